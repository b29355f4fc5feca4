/* The points' axes: frames::wheel_axes (0x41b3d4) and frames::turn (0x424704).
 * Formulas: port/CHOICES.md, "frames::wheel_axes", "frames::turn". */
#include "car_params.h"

/* 0x41b3d4 frames::wheel_axes(eax = car): every point's rolling direction, axle and up are the
 * car's forward, left and up axes. */
int32_t frames_wheel_axes(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    /* the three axes are 36 contiguous bytes in both records: one block copy (Watcom's memmove) */
    POD_CALL3(FN_MEMMOVE, p + PT_AXIS_ROLL, car + CAR_FORWARD, 36);
  }
  return 0;
}

/* 0x424704 frames::turn(eax = car, edx = angle): turns the front wheels' (0 and 2) rolling
 * direction and axle about their up axis by the angle (positive = to the left). */
int32_t frames_turn(uint32_t car, uint32_t angle, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int32_t c = cos16((int32_t)angle), s = sin16((int32_t)angle);
  for (int i = 0; i <= 2; i += 2) {
    uint32_t p = car + CAR_POINT(i);
    vec3 f = *VEC(p, PT_AXIS_ROLL), l = *VEC(p, PT_AXIS_AXLE), a, b;
    scale16(&f, c, &a);
    scale16(&l, s, &b);
    vadd(VEC(p, PT_AXIS_ROLL), &a, &b);   /* roll' = roll cos + axle sin */
    scale16(&l, c, &a);
    scale16(&f, s, &b);
    vsub(VEC(p, PT_AXIS_AXLE), &a, &b);   /* axle' = axle cos - roll sin */
  }
  return 0;
}
