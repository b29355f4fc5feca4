/* The suspension: suspension::springs (0x4194c8), suspension::substeps (0x419564),
 * suspension::place_points (0x419680), suspension::travel (0x41988c). Formulas: port/CHOICES.md, one section each. */
#include "car_params.h"

#define DROOP_ACCEL (40 << 16)   /* a free wheel's droop acceleration, units/s^2 (chosen, G10) */
#define WHEEL_SPRING (200 << 16) /* a free wheel's acceleration per quarter weight of spring (chosen) */

/* 0x4194c8 suspension::springs(eax = car, edx = forces): each wheel's spring and damper, in quarter
 * weights, held to +-7.63 (F033). The force array is not read. */
int32_t suspension_springs(uint32_t car, uint32_t forces, uint32_t ebx, uint32_t ecx) {
  (void)forces, (void)ebx, (void)ecx;
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t compression = I32(p, PT_REST) - I32(p, PT_HEIGHT);
    int32_t f = mul16(I32(p, PT_SPRING_K), compression) - mul16(I32(p, PT_DAMPER), I32(p, PT_HEIGHT_VEL));
    I32(p, PT_SPRING) = clampi(f, -SPRING_LIMIT, SPRING_LIMIT);
  }
  return 0;
}

/* 0x419564 suspension::substeps(eax = car): a free wheel drops towards its droop limit in sub-steps
 * of at most 0x444 (F035). */
int32_t suspension_substeps(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t dt = I32(POD_FRAME, FRAME_DT);
  if (dt <= 0) return 0;
  int32_t n = (dt + SUBSTEP_MAX - 1) / SUBSTEP_MAX;
  int32_t sdt = dt / n;
  for (int32_t k = 0; k < n; k++) {
    for (int i = 0; i < NUM_WHEELS; i++) {
      uint32_t p = car + CAR_POINT(i);
      if (U8(p, PT_TOUCHING)) continue;
      /* the unsprung wheel: pushed down by its spring (WHEEL_SPRING per quarter weight) and droop */
      int32_t push = mul16(mul16(I32(p, PT_SPRING_K), I32(p, PT_REST) - I32(p, PT_HEIGHT)), WHEEL_SPRING);
      int32_t hv = I32(p, PT_HEIGHT_VEL) + mul16(push + DROOP_ACCEL, sdt);
      int32_t h = I32(p, PT_HEIGHT) + mul16(hv, sdt);
      if (h >= I32(p, PT_HEIGHT_MAX)) h = I32(p, PT_HEIGHT_MAX), hv = 0;
      I32(p, PT_HEIGHT_VEL) = hv;
      I32(p, PT_HEIGHT) = h;
    }
  }
  return 0;
}

/* 0x419680 suspension::place_points(eax = car): every point's position and velocity from the body. */
int32_t suspension_place_points(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  const vec3 *centre = VEC(car, CAR_BODY_CENTRE);
  const vec3 *spin = VEC(car, CAR_SPIN);
  vec3 w, t;
  /* the spin (body frame) in world axes */
  scale16(VEC(car, CAR_FORWARD), spin->x, &w);
  scale16(VEC(car, CAR_LEFT), spin->y, &t);
  vadd(&w, &w, &t);
  scale16(VEC(car, CAR_UP), spin->z, &t);
  vadd(&w, &w, &t);
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    const vec3 *o = VEC(p, PT_OFFSET);
    vec3 r;
    scale16(VEC(car, CAR_FORWARD), o->x, &r);
    scale16(VEC(car, CAR_LEFT), o->y, &t);
    vadd(&r, &r, &t);
    scale16(VEC(car, CAR_UP), o->z - I32(p, PT_HEIGHT), &t);
    vadd(&r, &r, &t);
    vadd(VEC(p, PT_POSITION), centre, &r);
    cross16(&w, &r, &t);
    vadd(VEC(p, PT_VELOCITY), VEC(car, CAR_VELOCITY), &t);
  }
  return 0;
}

/* 0x41988c suspension::travel(eax = car): each wheel's travel held to its limits; a touching wheel
 * that bottomed out (collide::track's +0xa4) pushes the body up along its up axis, and the body's
 * speed into the ground along up is taken away. */
int32_t suspension_travel(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t most = 0;
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t h = I32(p, PT_HEIGHT);
    if (h < 0) I32(p, PT_HEIGHT) = 0;
    else if (h > I32(p, PT_HEIGHT_MAX)) I32(p, PT_HEIGHT) = I32(p, PT_HEIGHT_MAX);
    if (U8(p, PT_TOUCHING) && I32(p, PT_BOTTOM_OUT) > most) most = I32(p, PT_BOTTOM_OUT);
  }
  if (most <= 0) return 0;
  const vec3 *up = VEC(car, CAR_UP);
  vec3 push;
  scale16(up, most, &push);
  vadd(VEC(car, CAR_BODY_CENTRE), VEC(car, CAR_BODY_CENTRE), &push);
  for (int i = 0; i < NUM_POINTS; i++)
    vadd(VEC(car, CAR_POINT(i) + PT_POSITION), VEC(car, CAR_POINT(i) + PT_POSITION), &push);
  int32_t vu = dot16(VEC(car, CAR_VELOCITY), up);
  if (vu < 0) {
    vec3 t;
    scale16(up, vu, &t);
    vsub(VEC(car, CAR_VELOCITY), VEC(car, CAR_VELOCITY), &t);
  }
  return 0;
}
