// Bindings of the drivetrain (port/CHOICES.md "drive::…"): eax = car, edx = driver where the profile
// names one.
#include "pod/drive.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_drive(lockstep::cases::BindingSet& set) {
  set.push_back(declare(0x4191c4, "drive::automatic", &drive::automatic));
  set.push_back(declare(0x418f0c, "drive::gears", &drive::gears));
  set.push_back(declare(0x418010, "drive::engine", &drive::engine));
  // FUN_004185ac returns the drive torque in eax.
  set.push_back(declare(0x4185ac, "drive::torque", &drive::torque));
  set.push_back(declare(0x4189c4, "drive::brakes", &drive::brakes));
  set.push_back(declare(0x418bd4, "drive::wheel_spin", &drive::wheel_spin));
}

}  // namespace pod::bindings::detail
