// The world's update.
#include "crawl/game.hpp"
#include "tables.hpp"

namespace crawl {

// 0x401b20: the tick first (stored before any entity thinks), then each live entity's think through
// its table's first slot, its stamp, and the count of those still alive.
std::int32_t world_update(Memory& m, GuestAddr w, float dt, const Platform& platform) {
  const std::uint32_t now = platform.tick_count();
  const std::int32_t count = m.i32(w + world::kEntityCount);
  const std::int32_t n = count < world::kMaxEntities ? count : world::kMaxEntities;
  m.put_u32(w + world::kTick, now);
  std::int32_t alive = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const GuestAddr e = w + world::kEntities + static_cast<std::uint32_t>(i) * entity::kSize;
    if (!(m.u8(e + entity::kFlags) & entity::kAlive)) continue;
    call_think(m, e, w, dt);
    m.put_u32(e + entity::kLastTick, now);
    alive += m.u8(e + entity::kFlags) & entity::kAlive;
  }
  return alive;
}

}  // namespace crawl
