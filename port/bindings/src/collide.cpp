// Bindings of the track contact: ground faces, walls, the pass.
#include "pod/collide.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_collide(lockstep::cases::BindingSet& set) {
  set.push_back(make(0x417988, "collide::track", [](pod::Memory& m, const Case& c) {
    collide::track(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  // FUN_004167ec: eax = point, edx = the face normal's address, ebx = depth.
  set.push_back(make(0x4167ec, "collide::wall_depth", [](pod::Memory& m, const Case& c) {
    collide::wall_depth(m, c.in.eax, c.in.edx, static_cast<Fixed>(c.in.ebx));
    return ret_none();
  }));
  // FUN_004168dc: eax = point, edx = sector, ebx = car.
  set.push_back(make(0x4168dc, "collide::push_faces", [](pod::Memory& m, const Case& c) {
    collide::push_faces(m, c.in.eax, c.in.edx, c.in.ebx);
    return ret_none();
  }));
  // FUN_00416be0: eax = car, edx = the sectors' list, ebx = their number.
  set.push_back(make(0x416be0, "collide::sector_walls", [](pod::Memory& m, const Case& c) {
    collide::sector_walls(m, c.in.eax, c.in.edx, static_cast<std::int32_t>(c.in.ebx));
    return ret_none();
  }));
  // FUN_004174f8: eax = point, edx = face, ebx = mesh, ecx = kind (0 triangle, 1 / 2 quad halves).
  set.push_back(make(0x4174f8, "collide::touch_face", [](pod::Memory& m, const Case& c) {
    collide::touch_face(m, c.in.eax, c.in.edx, c.in.ebx, static_cast<int>(c.in.ecx));
    return ret_none();
  }));
  // FUN_00417884 → eax 1 or 0.
  set.push_back(make(0x417884, "collide::chassis_searches", [](pod::Memory& m, const Case& c) {
    return ret_eax(collide::chassis_searches(m, c.in.eax) ? 1 : 0);
  }));
  // FUN_00424ba4 / FUN_00424ee4: eax = point, edx = face, ebx = mesh → eax.
  set.push_back(make(0x424ba4, "collide::over_quad", [](pod::Memory& m, const Case& c) {
    return ret_eax(collide::over_quad(m, c.in.eax, c.in.edx, c.in.ebx));
  }));
  set.push_back(make(0x424ee4, "collide::over_triangle", [](pod::Memory& m, const Case& c) {
    return ret_eax(collide::over_triangle(m, c.in.eax, c.in.edx, c.in.ebx));
  }));
}

}  // namespace pod::bindings::detail
