/* Forces: forces::air (0x417c2c), forces::grip (0x417cec), forces::wheel_drive (0x417f48).
 * Formulas: port/CHOICES.md, one section each. */
#include "car_params.h"
#include "stale_slot.h"

/* The step's force array: a force per point, then the outside force (chosen: a static block, as a
 * Watcom program keeps its scratch; its address is what grip leaves in the stale slot). */
vec3 physics_step_forces[NUM_FORCES];

/* 0x417c2c forces::air(eax = car, edx = force): the outside force := drag along the forward axis
 * and downforce along -up, both in (forward speed / 256)^2 (F030). */
int32_t forces_air(uint32_t car, uint32_t force, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int32_t vf = dot16(VEC(car, CAR_VELOCITY), VEC(car, CAR_FORWARD));
  int32_t s = vf >> 8;
  int32_t q = mul16(s, s);
  int32_t drag = mul16(q, I32(car, CAR_AIR_DRAG));
  if (vf >= 0) drag = -drag;
  int32_t down = -mul16(q, I32(car, CAR_DOWNFORCE));
  vec3 a, b;
  scale16(VEC(car, CAR_FORWARD), drag, &a);
  scale16(VEC(car, CAR_UP), down, &b);
  vadd(PTR(force), &a, &b);
  return 0;
}

/* 0x417cec forces::grip(eax = car, edx = forces): each touching wheel's side force, against its
 * speed sideways along the ground. Leaves the force array's address in its frame's stale slot, where the
 * tyres' slip ratio will later sit (port/CHOICES.md "tyres::tyres", "forces::grip"). */
int32_t forces_grip(uint32_t car, uint32_t forces, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  STALE_SLOT(car) = forces;
  vec3 *f = PTR(forces);
  int32_t k = I32(car, CAR_SIDE_STIFFNESS);
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (!U8(p, PT_TOUCHING)) continue;
    /* along the ground: the side direction the tyres use, contact normal x rolling direction */
    vec3 side;
    cross16(VEC(p, PT_NORMAL), VEC(p, PT_AXIS_ROLL), &side);
    int32_t vl = dot16(VEC(p, PT_VELOCITY), &side);
    scale16(&side, -mul16(vl, k), &f[i]);
  }
  return 0;
}

/* 0x417f48 forces::wheel_drive(eax = car, edx = forces): (drive + brake torque) / radius along each
 * touching wheel's rolling direction (F031). */
int32_t forces_wheel_drive(uint32_t car, uint32_t forces, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  vec3 *f = PTR(forces);
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (!U8(p, PT_TOUCHING)) continue;
    int32_t push = qdiv(I32(p, PT_TORQUE) + I32(p, PT_BRAKE), I32(p, PT_RADIUS));
    vec3 d;
    scale16(VEC(p, PT_AXIS_ROLL), push, &d);
    vadd(&f[i], &f[i], &d);
  }
  return 0;
}
