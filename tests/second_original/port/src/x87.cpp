// The x87's meanings in host doubles (crawl/x87.hpp).
#include "crawl/x87.hpp"

#include <cmath>

namespace crawl {

std::int32_t x87_truncate(double v) {
  // fistp stores 0x80000000 for anything it cannot represent; in range it truncates (the original
  // sets the rounding control to "toward zero" around each conversion).
  if (std::isnan(v) || v >= 2147483648.0 || v <= -2147483649.0) return INT32_MIN;
  return static_cast<std::int32_t>(v);
}

double add_extended(double a, Extended c) {
  // a + c.hi exactly as s + err (Knuth's two-sum), then err + c.lo: both lie far below s's last bit
  // and within 53 bits of each other, so their sum is exact and s + (err + c.lo) is one rounding of
  // the exact a + c.
  const double s = a + c.hi;
  if (!std::isfinite(s)) return s;  // an infinite (or NaN) angle stays what it is, as on the x87
  const double b = s - a;
  const double err = (a - (s - b)) + (c.hi - b);
  return s + (err + c.lo);
}

bool greater(double a, Extended c) { return a > c.hi || (a == c.hi && c.lo < 0.0); }

}  // namespace crawl
