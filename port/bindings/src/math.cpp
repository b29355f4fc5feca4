// Bindings of the arithmetic layer (port/CHOICES.md "Arithmetic layer and tables"): the x87 vector
// routines, the table readers, exp16. Watcom registers: eax, edx, ebx, ecx; the result in eax.
#include "pod/body.hpp"
#include "pod/math.hpp"
#include "pod/tables.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

namespace {
Fixed i32(std::uint32_t reg) { return static_cast<Fixed>(reg); }
}  // namespace

void add_math(lockstep::cases::BindingSet& set) {
  // FUN_004d41a0 dot16: eax = a, edx = b → eax.
  // The stand-in's own division (0x4d5000, not a POD function: its overflow guard is chosen, CHOICES
  // "Notation"): eax = a, edx = b -> eax.
  set.push_back(make(0x4d5000, "math::qdiv", [](pod::Memory& m, const Case& c) {
    return ret_eax(math::qdiv(m, static_cast<Fixed>(c.in.eax), static_cast<Fixed>(c.in.edx)));
  }));
  set.push_back(make(0x4d41a0, "math::dot16", [](pod::Memory& m, const Case& c) {
    return ret_eax(math::dot16(m, c.in.eax, c.in.edx));
  }));
  // FUN_004d41df cross16: eax = a, edx = b, ebx = out.
  set.push_back(make(0x4d41df, "math::cross16", [](pod::Memory& m, const Case& c) {
    math::cross16(m, c.in.eax, c.in.edx, c.in.ebx);
    return ret_none();
  }));
  // FUN_004d4606 scale16 in place (fistp): eax = v, edx = s.
  set.push_back(make(0x4d4606, "math::scale16_in_place", [](pod::Memory& m, const Case& c) {
    math::scale16(m, c.in.eax, i32(c.in.edx));
    return ret_none();
  }));
  // FUN_004d465d scale16 (through M): eax = v, edx = s, ebx = out.
  set.push_back(make(0x4d465d, "math::scale16", [](pod::Memory& m, const Case& c) {
    math::scale16(m, c.in.eax, i32(c.in.edx), c.in.ebx);
    return ret_none();
  }));
  // FUN_004d43ad length16: eax = v → eax.
  set.push_back(make(0x4d43ad, "Tables::length16", [](pod::Memory& m, const Case& c) {
    return ret_eax(tables::length16(m, c.in.eax));
  }));
  // 0x4c5e64 cos16, 0x4c5e6c sin16: eax = angle → eax.
  set.push_back(make(0x4c5e64, "Tables::cos16", [](pod::Memory& m, const Case& c) {
    return ret_eax(tables::cos16(m, i32(c.in.eax)));
  }));
  set.push_back(make(0x4c5e6c, "Tables::sin16", [](pod::Memory& m, const Case& c) {
    return ret_eax(tables::sin16(m, i32(c.in.eax)));
  }));
  // FUN_004c5ed8 exp16: eax = x → eax (reads no memory).
  set.push_back(make(0x4c5ed8, "body::exp16", [](pod::Memory&, const Case& c) {
    return ret_eax(body::exp16(i32(c.in.eax)));
  }));
}

}  // namespace pod::bindings::detail
