// Car against car (F088..F097): after every racer's step, the collision pass
// takes each pair of racers once, in order; a pair whose hulls overlap, with a part of each car near
// the contact, exchanges an impulse, is pushed apart and plays the contact sound. The documents leave
// most formulas open: the port follows the table of choices (port/CHOICES.md "Car against car").
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::cars {

/// F097: an impulse over 0x2000 sets the contact bit (+0x4f9 0x20) in both cars; the first plays slot 7.
inline constexpr Fixed kContactSoundImpulse = 0x2000;
inline constexpr std::int32_t kContactSoundSlot = 7;

/// FUN_00423fd8 — the distance between two hull centres (eax, edx = their vec3s → eax): length16(b − a).
Fixed centre_distance(Memory& m, const Vec3& a, const Vec3& b);

/// FUN_00423c64 — the unit normal from a to b (eax = a, edx = b, ebx = out → eax = the length): each
/// component of b − a over length16(b − a) (qdiv); (0, 0, 1) when the centres meet. The table behind
/// it is the square-root table length16 reads (G14, chosen).
Fixed normal(Memory& m, const Vec3& a, const Vec3& b, Vec3& out);

/// FUN_00420548 — hull against hull (eax = object a, edx = object b, ebx = the contact record → eax 1
/// or 0; F090, F091): the positions within the summed radii on each axis, the hull centres within that
/// distance, then the boxes' reach along the normal past it. The record (layout.hpp Contact) is
/// written only on a contact.
int hull_test(Memory& m, GuestAddr object_a, GuestAddr object_b, GuestAddr contact);

/// Where a box's hull pointer, matrix and position lie: a drawn object's (+0x44, +0x48, +0x6c) or a
/// prop's (+0x34, +0x40, +0x98). The car-against-prop and prop-against-prop tests are hull_test's rule
/// on a prop's fields (port/CHOICES.md "Props").
struct Placement {
  GuestAddr hull;      // the word holding the hull's address
  GuestAddr matrix;    // 3 × 3 i32, row by row, axis k = column k
  GuestAddr position;  // vec3, world
  static Placement of_object(GuestAddr object);
  static Placement of_prop(GuestAddr prop);
};

/// hull_test's rule on any two placed boxes.
int hull_test(Memory& m, const Placement& a, const Placement& b, GuestAddr contact);

/// FUN_004209c8 — the object's parts near the contact (eax = object, edx = its car, ebx = the contact
/// record → eax = a mask, bit i for part i). Wheels 0..3 are parts 6..9, placed by the car's wheel
/// points (F092).
std::uint32_t mark_parts(Memory& m, GuestAddr object, GuestAddr car, GuestAddr contact);

/// FUN_00420adc — the impulse (eax = car a, edx = car b, ebx = the normal → eax; F093): the closing
/// speed along the normal × ((2 ma mb / (ma + mb)) >> 8) / (dt << 8), 0 when the cars part. dt is the
/// step's unscaled time (frame block +8, chosen).
Fixed impulse(Memory& m, GuestAddr car_a, GuestAddr car_b, GuestAddr normal);

/// Where a body's velocity and mass lie: a car's (+0x4c8, +0x520) or a prop's (+0x8c, +0x1c).
struct Mover {
  GuestAddr velocity;
  GuestAddr mass;
  static Mover of_car(GuestAddr car);
  static Mover of_prop(GuestAddr prop);
};

/// impulse's rule on any two bodies (car and prop, prop and prop).
Fixed impulse(Memory& m, const Mover& a, const Mover& b, GuestAddr normal);

/// FUN_00420b4c — the impulse into the carried force (eax = car, edx = the normal, ebx = the signed
/// impulse, ecx = the contact point; F094): along the car's own axis nearest the normal, and its
/// torque about the body's centre into the carried torque.
void carry(Memory& m, GuestAddr car, GuestAddr normal, Fixed impulse, GuestAddr point);

/// What one pair did besides the state it wrote (the caller's share, port/CHOICES.md "Car against car and damage": the
/// beacon test after each push, the damage record for the display).
struct PairOut {
  int racer_a = 0;
  int racer_b = 0;
  bool contact = false;
  Fixed impulse = 0;
  /// The sound slots played (0x4b8d64, eax = car, edx = slot), with the car: F097's slot 7.
  std::vector<std::pair<GuestAddr, std::int32_t>> sounds;
};

/// FUN_0042127c — one pair of racers (eax = racer a, edx = racer b → eax = the impulse; F095, F097):
/// the hull test, both cars' parts, the impulse carried into each (the first car backwards), each
/// car's damage (damage::hit), the push by half the overlap (b along the normal, a back), each car's
/// points placed again and its drawn object posed (the wheels turn once more, F096), the contact
/// sound.
PairOut pair(Memory& m, int racer_a, int racer_b);

/// Whether the collision pass runs its props' part. A game always runs it (kRun); kNone is the pass
/// of a state captured before the props existed, where the original read nothing of them.
enum class Props { kRun, kNone };

/// FUN_0042196c — the collision pass (F088): every pair (a, b), a < b, of the [0x61d5bc] + [0x61d5c0]
/// racers, in order; then the props (F111..F121): every car against every
/// prop (props::car_hit), then each hit prop, in list order, pushing the props it touches and moving
/// (props::knock, props::motion; a prop that falls away is removed). Returns each pair's result that
/// made a contact.
std::vector<PairOut> collisions(Memory& m, Props props = Props::kRun);

}  // namespace pod::cars
