/* The three tables POD builds at start-up (F012-F014), by the formulas of port/CHOICES.md. */
#include <math.h>
#include <stdint.h>

#include "internal.h"

/* floor(sqrt(v)) exactly, bit by bit (no floating point). */
static uint32_t isqrt64(uint64_t v) {
  uint64_t root = 0, bit = (uint64_t)1 << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return (uint32_t)root;
}

void tables_build(void) {
  /* reciprocals: recip[i] = trunc(2^24 / i), recip[0] = 0 (chosen); [0x4ed42c] -> entry 0 */
  int32_t *recip = (int32_t *)PTR(POD_RECIP_STORAGE + 4u * 16384u);
  for (int32_t i = RECIP_MIN; i <= RECIP_MAX; ++i) recip[i] = i == 0 ? 0 : (int32_t)((1 << 24) / i);
  U32(POD_RECIP_PTR, 0) = ADDR(recip);

  /* square roots: sqrt_table[i] = floor(sqrt(i * 2^32)) = floor(sqrt(i) * 65536) */
  uint32_t *sq = (uint32_t *)PTR(POD_SQRT_STORAGE);
  for (uint32_t i = 0; i < SQRT_COUNT; ++i) sq[i] = isqrt64((uint64_t)i << 32);
  U32(POD_SQRT_PTR, 0) = ADDR(sq);

  /* sines: round(sin(i * 8 / 65536) * 65536) for i = 0..12868 (0 to pi/2). No entry is near a
   * rounding boundary (the tables test checks it), so sinl's last bits cannot change the table. */
  int32_t *sines = (int32_t *)PTR(POD_SINES);
  for (int32_t i = 0; i < SINE_COUNT; ++i) sines[i] = (int32_t)lroundl(sinl((long double)i * 8.0L / 65536.0L) * 65536.0L);
}
