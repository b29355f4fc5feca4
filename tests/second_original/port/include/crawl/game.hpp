// Crawl's functions, ported from the original's C (game/*.c) to plain C++20 by their meaning: the
// same bytes read and written at the same addresses, the same results.
//
// Floating point: crawl/x87.hpp.
#pragma once

#include <cstdint>

#include "crawl/layout.hpp"
#include "crawl/memory.hpp"
#include "crawl/x87.hpp"

namespace crawl {

/// What the original asks of Windows: KERNEL32's GetTickCount.
class Platform {
 public:
  virtual ~Platform() = default;
  virtual std::uint32_t tick_count() const = 0;
};

// 0x401960 fx_mul (cdecl): a x b in 16.16, the 64-bit product shifted right arithmetically.
std::int32_t fx_mul(std::int32_t a, std::int32_t b);
// 0x4019a0 tile_at (fastcall): the tile at (tx, ty), wall outside the map (indices compared unsigned).
int tile_at(Memory& m, GuestAddr map, std::int32_t tx, std::int32_t ty);
// 0x4016c0 tile_blocked (stdcall): wall or water under a 16.16 position.
bool tile_blocked(Memory& m, GuestAddr map, std::int32_t x_fx, std::int32_t y_fx);
// 0x4015b0 angle_wrap (cdecl): into (-pi, pi] by at most four whole turns.
float angle_wrap(float a);
// 0x401680 entity_distance (cdecl): the distance between two entities' positions.
double entity_distance(Memory& m, GuestAddr a, GuestAddr b);
// 0x4019d0 entity_turn_toward (stdcall): heading toward target by at most max_step.
void turn_toward(Memory& m, GuestAddr e, float target, float max_step);
// 0x401a20 entity_move (fastcall): pos += vel x dt unless blocked; false (and the blocked flag) if so.
bool move(Memory& m, GuestAddr world, GuestAddr e, float dt);
// 0x401820 entity_damage (cdecl): a hit through the armour; true when it kills.
bool damage(Memory& m, GuestAddr e, std::int32_t amount);
// 0x401890 walker_think (cdecl).
void walker_think(Memory& m, GuestAddr e, GuestAddr world, float dt);
// 0x401700 turret_think (cdecl).
void turret_think(Memory& m, GuestAddr e, GuestAddr world, float dt);
// 0x401b20 world_update (cdecl): every live entity thinks; returns how many are alive after.
std::int32_t world_update(Memory& m, GuestAddr world, float dt, const Platform& platform);

}  // namespace crawl
