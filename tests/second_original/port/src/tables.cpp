#include "tables.hpp"

#include <cstdio>
#include <stdexcept>

namespace crawl {

namespace {

/// The code address in slot `slot` of e's table.
GuestAddr table_slot(Memory& m, GuestAddr e, GuestAddr slot, GuestAddr& table) {
  table = m.u32(e + entity::kVtbl);
  return m.u32(table + slot);
}

[[noreturn]] void unknown_code(GuestAddr table, GuestAddr code) {
  char text[120];
  std::snprintf(text, sizeof text, "function table 0x%08x holds 0x%08x, which is no function the port knows",
                table, code);
  throw std::runtime_error(text);
}

}  // namespace

void call_think(Memory& m, GuestAddr e, GuestAddr world, float dt) {
  GuestAddr table = 0;
  const GuestAddr code = table_slot(m, e, vtbl::kThink, table);
  if (code == code::kWalkerThink)
    walker_think(m, e, world, dt);
  else if (code == code::kTurretThink)
    turret_think(m, e, world, dt);
  else
    unknown_code(table, code);
}

void call_damage(Memory& m, GuestAddr e, std::int32_t amount) {
  GuestAddr table = 0;
  const GuestAddr code = table_slot(m, e, vtbl::kDamage, table);
  if (code != code::kEntityDamage) unknown_code(table, code);
  damage(m, e, amount);
}

}  // namespace crawl
