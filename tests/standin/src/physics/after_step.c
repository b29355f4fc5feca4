/* What runs per racer after the car step (F025): step::upside_down (0x4159d8) with its
 * put-back after 2.5 s (F081), step::pose (0x4155b8: the drawn object's frame, F089) and
 * step::wheel_roll (0x415424). Rules the documents leave open: port/CHOICES.md, "After the step, per racer". */
#include "car_params.h"

#define UPSIDE_DOWN_Z 0  /* upside down: the car's up axis points below the horizon (chosen) */

/* 0x4159d8 step::upside_down(eax = car, edx = driver): +0x4f0's low half counts the time upside down
 * in 1/256 s, its high half the steps (F023); after 2.5 s the car is put back. */
int32_t step_upside_down(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  if (I32(car, CAR_UP + 8) < UPSIDE_DOWN_Z) {
    uint32_t time = U16(car, CAR_UPSIDE_DOWN) + ((uint32_t)I32(POD_FRAME, FRAME_STEP_DT) >> 8);
    uint32_t steps = U16(car, CAR_UPSIDE_DOWN + 2);
    if (steps < 0xffff) steps++;
    U16(car, CAR_UPSIDE_DOWN) = (uint16_t)(time > 0xffff ? 0xffff : time);
    U16(car, CAR_UPSIDE_DOWN + 2) = (uint16_t)steps;
    if (time >= UPSIDE_DOWN_TIME) POD_CALL2(FN_PUT_BACK, car, driver);
  } else {
    U32(car, CAR_UPSIDE_DOWN) = 0;
  }
  return 0;
}

/* 0x415424 step::wheel_roll(eax = car): each wheel turned by its spin over the step's (unscaled)
 * time, the angle kept in (-pi, pi]. */
int32_t step_wheel_roll(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t dt = I32(POD_FRAME, FRAME_STEP_DT);
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t a = I32(p, PT_ROLL) + mul16(I32(p, PT_SPIN), dt);
    if (a > PI16) a -= TWO_PI16;
    else if (a <= -PI16) a += TWO_PI16;
    I32(p, PT_ROLL) = a;
  }
  return 0;
}

/* 0x4155b8 step::pose(eax = car, edx = driver): the drawn object's matrix (forward, left, up as
 * columns, stored row by row) and position (the chassis point less up x the hull's z half size,
 * none without a hull), then the wheels' roll. */
int32_t step_pose(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t obj = U32(driver, DRV_OBJECT);
  if (obj) {
    const vec3 *f = VEC(car, CAR_FORWARD), *l = VEC(car, CAR_LEFT), *u = VEC(car, CAR_UP);
    int32_t *m = PTR(obj + 0x48);
    m[0] = f->x, m[1] = l->x, m[2] = u->x;
    m[3] = f->y, m[4] = l->y, m[5] = u->y;
    m[6] = f->z, m[7] = l->z, m[8] = u->z;
    uint32_t hull = U32(obj, 0x44);
    vec3 t;
    scale16(u, hull ? I32(hull, 8) : 0, &t);
    vsub(VEC(obj, 0x6c), VEC(car, CAR_CHASSIS + PT_POSITION), &t);
  }
  POD_CALL1(FN_WHEEL_ROLL, car);
  return 0;
}

/* The stand-in's per-racer body of the simulation step (0x49a800; inline in FUN_0049a89c): the car
 * step, then the upside-down timer and the pose with the wheels' roll (F025). */
int32_t racer_step(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  POD_CALL2(FN_CAR_STEP, car, driver);
  POD_CALL2(FN_UPSIDE_DOWN, car, driver);
  POD_CALL2(FN_POSE, car, driver);
  return 0;
}
