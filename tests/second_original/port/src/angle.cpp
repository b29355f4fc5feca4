// Angles and distances.
#include <cmath>

#include "crawl/game.hpp"

namespace crawl {

// 0x4015b0: the float angle is compared with the 80-bit PI_F (not the float nearest pi: pi's float,
// 0x40490fdb, lies above it and is wrapped to -3.1415925), each turn taken off with the 80-bit
// 2 * PI_F at 53 bits and the angle stored back as a float.
float angle_wrap(float a) {
  int turns = 0;
  while (greater(a, kPi) && turns < 4) {
    a = to_float(add_extended(a, negate(kTwoPi)));
    ++turns;
  }
  while (less_equal(a, negate(kPi)) && turns < 4) {
    a = to_float(add_extended(a, kTwoPi));
    ++turns;
  }
  return a;
}

// 0x401680: the differences of float positions in double; mingw's sqrt is fsqrt at 53 bits, which
// is the correctly rounded square root std::sqrt gives.
double entity_distance(Memory& m, GuestAddr a, GuestAddr b) {
  const double dx = double{m.f32(a + entity::kPosX)} - double{m.f32(b + entity::kPosX)};
  const double dy = double{m.f32(a + entity::kPosY)} - double{m.f32(b + entity::kPosY)};
  return std::sqrt(dx * dx + dy * dy);
}

}  // namespace crawl
