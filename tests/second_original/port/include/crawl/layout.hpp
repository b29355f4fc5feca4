// Crawl's structures as the original lays them out (its header, game/crawl.h): offsets, sizes, the
// tile and flag values, and the original's code addresses its function tables hold.
#pragma once

#include <cstdint>

#include "crawl/memory.hpp"

namespace crawl {

namespace map {  // TileMap, 0xcc bytes
inline constexpr GuestAddr kWidth = 0x00, kHeight = 0x04, kTileShift = 0x08, kTiles = 0x0c;
inline constexpr std::uint32_t kRowStride = 16;  // MAP_W: rows are 16 bytes whatever the width in use
}  // namespace map

namespace world {  // World, 0x258 bytes
inline constexpr GuestAddr kMap = 0x000, kTick = 0x0cc, kEntityCount = 0x0d0, kEntities = 0x0d8;
inline constexpr std::int32_t kMaxEntities = 8;
}  // namespace world

namespace entity {  // Entity, 0x30 bytes
inline constexpr GuestAddr kVtbl = 0x00, kKind = 0x04, kFlags = 0x05, kPosX = 0x08, kPosY = 0x0c, kVelX = 0x10,
                           kVelY = 0x14, kHeading = 0x18, kHealth = 0x1c, kArmor = 0x20, kLastTick = 0x24,
                           kOdometer = 0x28;
inline constexpr std::uint32_t kSize = 0x30;
inline constexpr std::uint8_t kWalker = 1, kTurret = 2;                        // kind
inline constexpr std::uint8_t kAlive = 0x01, kBlocked = 0x02, kDied = 0x04;    // flags
}  // namespace entity

namespace vtbl {  // EntityVtbl: two cdecl code pointers
inline constexpr GuestAddr kThink = 0x0, kDamage = 0x4;
}  // namespace vtbl

enum Tile : int { kFloor = 0, kWall = 1, kWater = 2, kLava = 3 };

/// The original's functions a function table can point at (the EXE's symbol table; game.toml lists
/// the same addresses and a test holds both to the build).
namespace code {
inline constexpr GuestAddr kTurretThink = 0x401700, kEntityDamage = 0x401820, kWalkerThink = 0x401890;
}  // namespace code

}  // namespace crawl
