// Bindings of the body (its wall impacts and push-out), the points' frames and the suspension's
// motion and travel.
#include "pod/body.hpp"
#include "pod/damage.hpp"
#include "pod/frames.hpp"
#include "pod/math.hpp"
#include "pod/suspension.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_body(lockstep::cases::BindingSet& set) {
  // Written out: the wall impacts' damage calls run where the original's consulted the option
  // (damage_consulted, which the case shows), after the body's motion (F100): the same bytes.
  set.push_back(make(0x419ad0, "body::integrate", [](pod::Memory& m, const Case& c) {
    std::vector<body::Impact> calls;
    body::integrate(m, c.in.eax, c.in.edx, &calls);
    if (damage_consulted(c)) damage::impacts(m, c.in.eax, calls);
    return ret_none();
  }));
  // FUN_00416284: eax = car, edx = the body's force sum, ebx = its torque sum (vec3s in the caller's
  // frame). The original adds to both for each point hit, and leaves them alone when none is. Written
  // out: the port returns the sums, which the binding adds to the caller's; the damage as above.
  set.push_back(make(0x416284, "body::impacts", [](pod::Memory& m, const Case& c) {
    // The sums are read only when a point is hit, as the original reads them (adding the impulses
    // one by one or all at once gives the same words: the adds wrap).
    Vec3 force, torque;
    std::vector<body::Impact> calls;
    if (body::impacts(m, c.in.eax, force, torque, &calls) > 0) {
      m.put_vec3(c.in.edx, math::add(m.vec3(c.in.edx), force));
      m.put_vec3(c.in.ebx, math::add(m.vec3(c.in.ebx), torque));
    }
    if (damage_consulted(c)) damage::impacts(m, c.in.eax, calls);
    return ret_none();
  }));
  set.push_back(declare(0x416030, "body::push_out", &body::push_out));
  set.push_back(declare(0x41988c, "suspension::travel", &suspension::travel));
  set.push_back(declare(0x41b3d4, "frames::wheel_axes", &frames::wheel_axes));
  // FUN_00424704: eax = car, edx = the angle (16.16 rad).
  set.push_back(declare(0x424704, "frames::turn", &frames::turn));
  set.push_back(declare(0x419564, "suspension::substeps", &suspension::substeps));
  set.push_back(declare(0x419680, "suspension::place_points", &suspension::place_points));
}

}  // namespace pod::bindings::detail
