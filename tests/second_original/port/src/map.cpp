// The tile map: what is at a tile, what blocks.
#include "crawl/game.hpp"

namespace crawl {

// 0x4019a0: both indices compared unsigned with the width and height in use, so a negative one is
// outside too; the rows are MAP_W bytes apart whatever the width.
int tile_at(Memory& m, GuestAddr map, std::int32_t tx, std::int32_t ty) {
  const auto x = static_cast<std::uint32_t>(tx), y = static_cast<std::uint32_t>(ty);
  if (x >= m.u32(map + map::kWidth)) return kWall;
  if (y >= m.u32(map + map::kHeight)) return kWall;
  return m.u8(map + map::kTiles + y * map::kRowStride + x);
}

// 0x4016c0: the position's tile is the coordinate shifted right arithmetically by tile_shift; sar
// takes its count modulo 32, so does the port (a C++ shift by 32 or more is undefined).
bool tile_blocked(Memory& m, GuestAddr map, std::int32_t x_fx, std::int32_t y_fx) {
  const unsigned shift = m.u32(map + map::kTileShift) & 31u;
  const int t = tile_at(m, map, x_fx >> shift, y_fx >> shift);
  return t == kWall || t == kWater;
}

}  // namespace crawl
