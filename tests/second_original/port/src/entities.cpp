// The entities: damage and the two kinds' think functions.
#include "crawl/game.hpp"
#include "tables.hpp"

namespace crawl {

namespace {
constexpr float kHalfPiFloat = 1.57079633f;  // HALF_PI_F passed as a float argument: 0x3fc90fdb
}  // namespace

// 0x401820: the hit in 16.16 (amount << 16, wrapping as shl does) times the armour, back to whole
// points; health is subtracted as the 32-bit sub does.
bool damage(Memory& m, GuestAddr e, std::int32_t amount) {
  std::int32_t taken =
      fx_mul(static_cast<std::int32_t>(static_cast<std::uint32_t>(amount) << 16), m.i32(e + entity::kArmor)) >> 16;
  if (taken < 1) taken = 1;
  const auto health = static_cast<std::int32_t>(static_cast<std::uint32_t>(m.i32(e + entity::kHealth)) -
                                                static_cast<std::uint32_t>(taken));
  if (health > 0) {
    m.put_i32(e + entity::kHealth, health);
    return false;
  }
  m.put_i32(e + entity::kHealth, 0);
  m.put_u8(e + entity::kFlags,
           static_cast<std::uint8_t>((m.u8(e + entity::kFlags) & ~entity::kAlive) | entity::kDied));
  return true;
}

// 0x401890: blocked, the velocity turns a quarter to the left and the heading follows (toward
// heading + the 80-bit HALF_PI_F, rounded as a float argument; at most HALF_PI_F's float); moved, the tile under the truncated position may be lava.
void walker_think(Memory& m, GuestAddr e, GuestAddr w, float dt) {
  if (!move(m, w, e, dt)) {
    const float vx = m.f32(e + entity::kVelX), vy = m.f32(e + entity::kVelY);
    m.put_f32(e + entity::kVelX, -vy);
    m.put_f32(e + entity::kVelY, vx);
    turn_toward(m, e, to_float(add_extended(m.f32(e + entity::kHeading), kHalfPi)), kHalfPiFloat);
    return;
  }
  const std::int32_t tx = x87_truncate(m.f32(e + entity::kPosX)), ty = x87_truncate(m.f32(e + entity::kPosY));
  if (tile_at(m, w + world::kMap, tx, ty) == kLava) call_damage(m, e, 7);
}

// 0x401700: the nearest live walker strictly nearer than 4 units (entity_count read each round, at
// most 8 looked at); the sweep always turns; the hit is 2 + (int)(4 / (distance + 0.5)).
void turret_think(Memory& m, GuestAddr e, GuestAddr w, float dt) {
  GuestAddr target = 0;
  double best = 4.0;
  for (std::int32_t i = 0; i < m.i32(w + world::kEntityCount) && i < world::kMaxEntities; ++i) {
    const GuestAddr o = w + world::kEntities + static_cast<std::uint32_t>(i) * entity::kSize;
    if (m.u8(o + entity::kKind) != entity::kWalker || !(m.u8(o + entity::kFlags) & entity::kAlive)) continue;
    const double d = entity_distance(m, e, o);
    if (d < best) {
      best = d;
      target = o;
    }
  }
  turn_toward(m, e, to_float(double{m.f32(e + entity::kHeading)} + 1.0), to_float(0.75 * double{dt}));
  if (target != 0) call_damage(m, target, 2 + x87_truncate(4.0 / (best + 0.5)));
}

}  // namespace crawl
