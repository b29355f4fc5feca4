// Bindings of the arithmetic layer (port/CHOICES.md "Arithmetic layer and tables"): the x87 vector
// routines, the table readers, exp16. Watcom registers: eax, edx, ebx, ecx; the result in eax.
#include "pod/body.hpp"
#include "pod/math.hpp"
#include "pod/tables.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_math(lockstep::cases::BindingSet& set) {
  // The stand-in's own division (0x4d5000, not a POD function: its overflow guard is chosen, CHOICES
  // "Notation"): eax = a, edx = b -> eax.
  set.push_back(declare(0x4d5000, "math::qdiv", &math::qdiv));
  // FUN_004d41a0 dot16: eax = a, edx = b → eax.
  set.push_back(declare(0x4d41a0, "math::dot16", &math::dot16));
  // FUN_004d41df cross16: eax = a, edx = b, ebx = out.
  set.push_back(declare(0x4d41df, "math::cross16", &math::cross16));
  // FUN_004d4606 scale16 in place (fistp): eax = v, edx = s.
  set.push_back(declare_overload<void(GuestAddr, Fixed)>(0x4d4606, "math::scale16_in_place", &math::scale16));
  // FUN_004d465d scale16 (through M): eax = v, edx = s, ebx = out.
  set.push_back(declare_overload<void(GuestAddr, Fixed, GuestAddr)>(0x4d465d, "math::scale16", &math::scale16));
  // FUN_004d43ad length16: eax = v → eax.
  set.push_back(declare_overload<Fixed(GuestAddr)>(0x4d43ad, "Tables::length16", &tables::length16));
  // 0x4c5e64 cos16, 0x4c5e6c sin16: eax = angle → eax.
  set.push_back(declare(0x4c5e64, "Tables::cos16", &tables::cos16));
  set.push_back(declare(0x4c5e6c, "Tables::sin16", &tables::sin16));
  // FUN_004c5ed8 exp16: eax = x → eax (reads no memory).
  set.push_back(declare_pure(0x4c5ed8, "body::exp16", &body::exp16));
}

}  // namespace pod::bindings::detail
