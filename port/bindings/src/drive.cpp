// Bindings of the drivetrain (port/CHOICES.md "drive::…"): eax = car, edx = driver where the profile
// names one.
#include "pod/drive.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_drive(lockstep::cases::BindingSet& set) {
  set.push_back(make(0x4191c4, "drive::automatic", [](pod::Memory& m, const Case& c) {
    drive::automatic(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x418f0c, "drive::gears", [](pod::Memory& m, const Case& c) {
    drive::gears(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x418010, "drive::engine", [](pod::Memory& m, const Case& c) {
    drive::engine(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  // FUN_004185ac returns the drive torque in eax.
  set.push_back(make(0x4185ac, "drive::torque", [](pod::Memory& m, const Case& c) {
    return ret_eax(drive::torque(m, c.in.eax, c.in.edx));
  }));
  set.push_back(make(0x4189c4, "drive::brakes", [](pod::Memory& m, const Case& c) {
    drive::brakes(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(make(0x418bd4, "drive::wheel_spin", [](pod::Memory& m, const Case& c) {
    drive::wheel_spin(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
