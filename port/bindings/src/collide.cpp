// Bindings of the track contact: ground faces, walls, the pass.
#include "pod/collide.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_collide(lockstep::cases::BindingSet& set) {
  // Written out: the port's result (whether it put the car back) is for the port's own step; the
  // original returns nothing (the profile's returns = "none"), so nothing of it is compared.
  set.push_back(make(0x417988, "collide::track", [](pod::Memory& m, const Case& c) {
    collide::track(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  // FUN_004167ec: eax = point, edx = the face normal's address, ebx = depth.
  set.push_back(declare(0x4167ec, "collide::wall_depth", &collide::wall_depth));
  // FUN_004168dc: eax = point, edx = sector, ebx = car.
  set.push_back(declare(0x4168dc, "collide::push_faces", &collide::push_faces));
  // FUN_00416be0: eax = car, edx = the sectors' list, ebx = their number.
  set.push_back(declare(0x416be0, "collide::sector_walls", &collide::sector_walls));
  // FUN_004174f8: eax = point, edx = face, ebx = mesh, ecx = kind (0 triangle, 1 / 2 quad halves).
  set.push_back(declare(0x4174f8, "collide::touch_face", &collide::touch_face));
  // FUN_00417884 → eax 1 or 0.
  set.push_back(declare(0x417884, "collide::chassis_searches", &collide::chassis_searches));
  // FUN_00424ba4 / FUN_00424ee4: eax = point, edx = face, ebx = mesh → eax.
  set.push_back(declare(0x424ba4, "collide::over_quad", &collide::over_quad));
  set.push_back(declare(0x424ee4, "collide::over_triangle", &collide::over_triangle));
}

}  // namespace pod::bindings::detail
