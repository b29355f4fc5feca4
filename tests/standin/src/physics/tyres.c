/* tyres::tyres (0x41af80): each touching wheel's force split into a side and a rolling part, each
 * held to its limit; the skid flags. Formulas: port/CHOICES.md, "tyres::tyres". */
#include "car_params.h"
#include "stale_slot.h"

/* The slip curve at 0x4e9a78 (F052): peak 0.342, offset 0.523, curvature 8.55 below the peak and
 * 2.37 above, as four i32 16.16 words in that order (chosen layout); the rest of the 0x40-byte
 * label is zero. */
__attribute__((section(".pod.d.tyre_curve"), used))
const int32_t tyre_curve[16] = {0x578d, 0x85e3, 0x88ccd, 0x25eb8};

/* The curve at x = |slip ratio| >= 0: 1 at the peak, a parabola down to 0 at x = 0, another down to
 * the offset (the sliding floor) above it. */
static int32_t slip_curve(uint32_t x) {
  const int32_t *c = PTR(POD_TYRE_CURVE);
  int32_t peak = c[0], floor_ = c[1], below = c[2], above = c[3];
  int32_t y;
  if (x <= (uint32_t)peak) {
    int32_t d = peak - (int32_t)x;
    y = FX_ONE - mul16(below, mul16(d, d));
  } else {
    uint32_t d = x - (uint32_t)peak;
    if (d > FX_ONE) d = FX_ONE;
    y = FX_ONE - mul16(above, mul16((int32_t)d, (int32_t)d));
    if (y < floor_) y = floor_;
  }
  return y < 0 ? 0 : y;
}

static inline uint32_t uabs(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* 0x41af80 tyres::tyres(eax = car, edx = forces). */
int32_t tyres_tyres(uint32_t car, uint32_t forces, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  vec3 *f = PTR(forces);
  int32_t quarter = I32(car, CAR_WEIGHT) >> 2;  /* a quarter of the car's weight (F053) */
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (!U8(p, PT_TOUCHING)) {
      U8(p, PT_SLIDING) = 0;
      U8(p, PT_SKIDDING) = 0;
      continue;
    }
    vec3 side;
    cross16(VEC(p, PT_NORMAL), VEC(p, PT_AXIS_ROLL), &side);  /* F049 */
    int32_t fs = dot16(&f[i], &side);
    int32_t fr = dot16(&f[i], VEC(p, PT_AXIS_ROLL));
    int32_t surface = I32(U32(p, PT_SURFACE), SURF_GRIP);
    int32_t speed = length16(VEC(p, PT_VELOCITY));
    int32_t side_limit;
    uint32_t slip;
    if (speed < SLOW_TYRE) {
      /* F050; the slip ratio is not formed: the slot is read as it stands, what an earlier point of
       * this call (or, for the first, forces::grip) left there */
      side_limit = mul16(mul16(I32(p, PT_LOAD), I32(p, PT_TRACTION)), surface);
      slip = STALE_SLOT(car);
    } else {
      int32_t ratio = qdiv(dot16(VEC(p, PT_VELOCITY), VEC(p, PT_AXIS_AXLE)), speed);  /* F051 */
      STALE_SLOT(car) = (uint32_t)ratio;
      slip = (uint32_t)ratio;
      side_limit = mul16(slip_curve(uabs(ratio)), quarter);  /* scaled by a quarter of the weight (F053) */
    }
    int32_t roll_limit = mul16(mul16(quarter, I32(p, PT_SIDE_GRIP)), surface);  /* F054 */
    int32_t circle = mul16(roll_limit >> 8, side_limit);
    if (circle > ROLL_LIMIT_KNEE) roll_limit = mul16(roll_limit, qdiv(ROLL_LIMIT_KNEE, circle));
    int32_t fs2 = fs, fr2 = clampi(fr, -roll_limit, roll_limit);
    uint8_t skid = 0, slide = 0;
    if ((int64_t)uabs(fs) > (int64_t)side_limit) {
      fs2 = fs < 0 ? -side_limit : side_limit;
      uint32_t x = uabs((int32_t)slip);  /* F055 */
      skid = x > SKID_SLIP;
      slide = x > SLIDE_SLIP;
    }
    U8(p, PT_SKIDDING) = skid;
    U8(p, PT_SLIDING) = slide;
    vec3 d;
    scale16(&side, fs2 - fs, &d);
    vadd(&f[i], &f[i], &d);
    scale16(VEC(p, PT_AXIS_ROLL), fr2 - fr, &d);
    vadd(&f[i], &f[i], &d);
  }
  return 0;
}
