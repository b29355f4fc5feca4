/* --selftest-arith N: runs the arithmetic layer at its POD addresses on N deterministic inputs per
 * routine and prints inputs and results, one case a line, in hex:
 *   dot a0 a1 a2 b0 b1 b2 r          cross a0 a1 a2 b0 b1 b2 x y z
 *   scale v0 v1 v2 s x y z           scale_in_place v0 v1 v2 s x y z
 *   length v0 v1 v2 r                sin a r     cos a r     exp x r
 *   mul a b r                        div a b r
 * The tests (tests/standin/standin_test.cpp) recompute every result from port/CHOICES.md's formulas. */
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "pod_call.h"
#include "standin_math.h"

static uint32_t lcg_state = 12345;
static uint32_t next(void) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return lcg_state;
}
/* Values of every magnitude: a random word shifted right by 0..31, with a random sign; now and then
 * an edge value. */
static int32_t value(void) {
  uint32_t r = next(), pick = next();
  switch (pick % 16) {
    case 0: return 0;
    case 1: return (int32_t)0x80000000u;
    case 2: return 0x7fffffff;
    case 3: return (int32_t)(pick >> 28) - 8;
    default: break;
  }
  int32_t v = (int32_t)(r >> (pick % 32));
  return (pick & 0x40) ? -v : v;
}
/* Moderate values (|v| < 2^24), as physics vectors mostly are. */
static int32_t moderate(void) { return value() >> 7; }

void arith_selftest(int n) {
  for (int i = 0; i < n; ++i) {
    int32_t (*gen)(void) = (i & 1) ? moderate : value;
    vec3 a = {gen(), gen(), gen()}, b = {gen(), gen(), gen()}, out;
    int32_t r = POD_CALL2(FN_DOT16, ADDR(&a), ADDR(&b));
    printf("dot %x %x %x %x %x %x %x\n", a.x, a.y, a.z, b.x, b.y, b.z, r);
    POD_CALL3(FN_CROSS16, ADDR(&a), ADDR(&b), ADDR(&out));
    printf("cross %x %x %x %x %x %x %x %x %x\n", a.x, a.y, a.z, b.x, b.y, b.z, out.x, out.y, out.z);
    int32_t s = gen();
    POD_CALL3(FN_SCALE16, ADDR(&a), s, ADDR(&out));
    printf("scale %x %x %x %x %x %x %x\n", a.x, a.y, a.z, s, out.x, out.y, out.z);
    out = a;
    POD_CALL2(FN_SCALE16_IN_PLACE, ADDR(&out), s);
    printf("scale_in_place %x %x %x %x %x %x %x\n", a.x, a.y, a.z, s, out.x, out.y, out.z);
    r = POD_CALL1(FN_LENGTH16, ADDR(&b));
    printf("length %x %x %x %x\n", b.x, b.y, b.z, r);
    int32_t angle = gen();
    printf("sin %x %x\n", angle, POD_CALL1(FN_SIN16, angle));
    printf("cos %x %x\n", angle, POD_CALL1(FN_COS16, angle));
    int32_t x = moderate() >> 4;
    printf("exp %x %x\n", x, POD_CALL1(FN_EXP16, x));
    int32_t p = gen(), q = gen();
    printf("mul %x %x %x\n", p, q, mul16(p, q));
    /* div: the table path for |q| <= 32, else only where the idiv quotient fits */
    if ((i % 4) == 0) q = (int32_t)(next() % 65) - 32;
    int64_t quotient = q ? ((int64_t)p * 65536) / q : 0;
    if ((q >= -32 && q <= 32) || (quotient >= INT32_MIN && quotient <= INT32_MAX))
      printf("div %x %x %x\n", p, q, div16(p, q));
  }
}
