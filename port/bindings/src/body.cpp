// Bindings of the body, the points' frames and the suspension's motion (port/CHOICES.md
// "body::integrate", "frames::…", "suspension::substeps", "suspension::place_points").
#include "pod/body.hpp"
#include "pod/frames.hpp"
#include "pod/suspension.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_body(lockstep::cases::BindingSet& set) {
  set.push_back(make(0x419ad0, "body::integrate", [](pod::Memory& m, const Case& c) {
    body::integrate(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(make(0x41b3d4, "frames::wheel_axes", [](pod::Memory& m, const Case& c) {
    frames::wheel_axes(m, c.in.eax);
    return ret_none();
  }));
  // FUN_00424704: eax = car, edx = the angle (16.16 rad).
  set.push_back(make(0x424704, "frames::turn", [](pod::Memory& m, const Case& c) {
    frames::turn(m, c.in.eax, static_cast<Fixed>(c.in.edx));
    return ret_none();
  }));
  set.push_back(make(0x419564, "suspension::substeps", [](pod::Memory& m, const Case& c) {
    suspension::substeps(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x419680, "suspension::place_points", [](pod::Memory& m, const Case& c) {
    suspension::place_points(m, c.in.eax);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
