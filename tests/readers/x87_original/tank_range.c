/* A small Linux i386 original for the x87 test (tests/readers/x87_tank_test.cpp): a world of four
   tanks and one stdcall function that returns a double in ST0 unrounded. Built with gcc -m32 -O2
   -std=gnu11 (-fexcess-precision=fast: the quotient stays in the x87 register it was computed in)
   and no C library: lockstep maps the file alone and never runs _start. Under fninit's control word
   0x037f the x87 computes at 64 bits, so the value returned has a 64-bit significand that no double
   holds. */
struct tank {
  int x, y;     /* 16.16 */
  int heading;  /* 16.16 radians */
  float fuel;
};

struct tank g_tanks[4];

__attribute__((stdcall, noinline)) double tank_range(const struct tank *t, int throttle) {
  /* fuel x 1.1 (a double constant: the product is rounded to 64 bits), over the 16.16 throttle plus
     a quarter (exact), divided (rounded to 64 bits). */
  return t->fuel * 1.1 / (throttle / 65536.0 + 0.25);
}

void _start(void) {
  volatile double r = tank_range(&g_tanks[0], 0x8000);
  (void)r;
  for (;;) {
  }
}
