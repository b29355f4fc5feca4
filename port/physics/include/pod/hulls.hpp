// The drawn objects' hulls (F147, F148, F149): the box of an object's
// vertices, its radius, each part's hull and the whole car's ("Prisme"). The collisions read them
// (port/CHOICES.md "Car against car and damage").
#pragma once

#include <cstdint>

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::world {

/// The box's starting extremes (F147): min from 0x7fffffff, max from 0x80000001 on each axis.
inline constexpr Fixed kBoxMinStart = 0x7fffffff;
inline constexpr Fixed kBoxMaxStart = static_cast<Fixed>(0x80000001u);

/// A box of vertices being grown: per axis the least and the greatest coordinate so far.
struct Box {
  Vec3 min{kBoxMinStart, kBoxMinStart, kBoxMinStart};
  Vec3 max{kBoxMaxStart, kBoxMaxStart, kBoxMaxStart};
  /// Takes in `count` vertices (vec3 of i32, 12 bytes apart) from `vertices`, in order.
  void add(Memory& m, GuestAddr vertices, std::uint32_t count);
  /// Writes the half sizes (max − min) >> 1 at hull +0 and the centre (max + min) >> 1 at hull +0x10
  /// (the differences and sums wrap at 32 bits; the shifts are arithmetic).
  void write(Memory& m, GuestAddr hull) const;
};

/// FUN_004713c8 — the box of `count` vertices into the hull (eax = vertices, edx = count, ebx = hull):
/// half sizes and centre; the radius is not written (F147).
void hull_box(Memory& m, GuestAddr vertices, std::int32_t count, GuestAddr hull);

/// FUN_00423b48 — the hull's radius (eax = hull → eax), also stored at hull +0xc: the square root
/// (FUN_004d3e90) of x² + y² of the x and y half sizes, products and sum in 64 bits (F148).
Fixed hull_radius(Memory& m, GuestAddr hull);

/// FUN_00420300 — one part's hull from its own vertices (eax = part): hull_box then hull_radius.
void part_hull(Memory& m, GuestAddr part);

/// FUN_004203c8 — "Prisme" (eax = the race object): each part's hull (part_hull, parts in list
/// order), then the whole car's hull (+0x44) as the box of every part's vertices, as they are stored
/// (no offsets), and its radius (F149).
void prisme(Memory& m, GuestAddr object);

}  // namespace pod::world
