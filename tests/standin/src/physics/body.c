/* body::integrate (0x419ad0) with its wall impacts body::impacts (0x416284, stage 21) and the turn
 * on the spot (F068); body::push_out (0x416030, stage 28).
 * Formulas: port/CHOICES.md, "body::integrate" and "body::impacts". */
#include "car_params.h"

#define NOSE_TURN_SPEED (10 << 16)  /* "at speed" for the nose turning into the velocity (chosen, G09) */

__attribute__((noinline)) static void normalise(vec3 *v) {
  int32_t n = length16(v);
  if (n == 0) return;
  v->x = qdiv(v->x, n);
  v->y = qdiv(v->y, n);
  v->z = qdiv(v->z, n);
}

/* 0x419ad0 body::integrate(eax = car, edx = forces). */
int32_t body_integrate(uint32_t car, uint32_t forces, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  const vec3 *f = PTR(forces);
  int32_t dt = I32(POD_FRAME, FRAME_DT);
  vec3 *centre = VEC(car, CAR_BODY_CENTRE), *vel = VEC(car, CAR_VELOCITY), *spin = VEC(car, CAR_SPIN);
  vec3 *fwd = VEC(car, CAR_FORWARD), *left = VEC(car, CAR_LEFT), *up = VEC(car, CAR_UP);
  vec3 t;

  /* The force: outside (air, slope hold) + weight on z + carried + the touching points' (F057). */
  vec3 force = f[FORCE_OUTSIDE];
  force.z -= I32(car, CAR_WEIGHT);
  vadd(&force, &force, VEC(car, CAR_CARRIED_FORCE));
  vec3 torque = *VEC(car, CAR_CARRIED_TORQUE);  /* world axes */
  int wheels_down = 0;
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (!U8(p, PT_TOUCHING)) continue;
    if (i < NUM_WHEELS) wheels_down++;
    vadd(&force, &force, &f[i]);
    /* r reaches from the centre to the contact, a radius below the point along its up axis (F058) */
    vec3 r;
    scale16(VEC(p, PT_AXIS_UP), I32(p, PT_RADIUS), &t);
    vsub(&r, VEC(p, PT_POSITION), &t);
    vsub(&r, &r, centre);
    cross16(&r, &f[i], &t);
    vadd(&torque, &torque, &t);
  }
  *VEC(car, CAR_CARRIED_FORCE) = (vec3){0, 0, 0};
  *VEC(car, CAR_CARRIED_TORQUE) = (vec3){0, 0, 0};
  /* 21: the walls' impulses join the sums (F034) */
  POD_CALL3(FN_IMPACTS, car, ADDR(&force), ADDR(&torque));

  /* The torque in the body's axes; 15/16 of the yaw taken away (F061). */
  vec3 tb = {dot16(&torque, fwd), dot16(&torque, left), dot16(&torque, up)};
  tb.z -= mul16(tb.z, YAW_REMOVED);

  /* The air: every wheel off for more than two steps (F065), more than four (F066). */
  int off3 = 1, off5 = 1;
  for (int i = 0; i < NUM_WHEELS; i++) {
    int32_t c = I32(car, CAR_POINT(i) + PT_TOUCH_COUNT);
    if (c > -3) off3 = 0;
    if (c > -5) off5 = 0;
  }
  int32_t speed = length16(vel);
  if (wheels_down == 0 && speed > AIR_STEER_SPEED) {
    /* F067: the front wheels' steering moves the car sideways in the air */
    scale16(left, mul16(mul16(AIR_STEER, dt), I32(car, CAR_STEER)), &t);
    vadd(&force, &force, &t);
  }

  /* Velocity (F062), then position by the mean velocity x dt x step_scale (F063). */
  int32_t mass = I32(car, CAR_MASS);
  vec3 old = *vel;
  vel->x += qdiv(mul16(force.x, dt), mass);
  vel->y += qdiv(mul16(force.y, dt), mass);
  vel->z += qdiv(mul16(force.z, dt), mass);
  centre->x += mul16(mul16((old.x + vel->x) >> 1, dt), STEP_SCALE);
  centre->y += mul16(mul16((old.y + vel->y) >> 1, dt), STEP_SCALE);
  centre->z += mul16(mul16((old.z + vel->z) >> 1, dt), STEP_SCALE);

  /* Spin per axis by the inertia, held to 2.29 rad/s on its largest axis (F064). */
  const vec3 *inertia = VEC(car, CAR_INERTIA);
  spin->x += qdiv(mul16(tb.x, dt), inertia->x);
  spin->y += qdiv(mul16(tb.y, dt), inertia->y);
  spin->z += qdiv(mul16(tb.z, dt), inertia->z);
  int32_t most = iabs(spin->x);
  if (iabs(spin->y) > most) most = iabs(spin->y);
  if (iabs(spin->z) > most) most = iabs(spin->z);
  if (most > SPIN_LIMIT) {
    int32_t k = qdiv(SPIN_LIMIT, most);
    spin->x = mul16(spin->x, k);
    spin->y = mul16(spin->y, k);
    spin->z = mul16(spin->z, k);
  }
  if (off3) {
    int32_t k = exp16(-mul16(AIR_SPIN_DECAY, dt));
    spin->x = mul16(spin->x, k);
    spin->y = mul16(spin->y, k);
    spin->z = mul16(spin->z, k);
  }
  /* F068: nearly stopped, three wheels down or more and pushed into a wall: the steering turns the
   * car on the spot. */
  if (speed < SPOT_TURN_SPEED && wheels_down >= 3) {
    int walled = 0;
    for (int i = 0; i < NUM_POINTS; i++) walled |= I32(car + CAR_POINT(i), PT_WALL_DEPTH) > 0;
    if (walled) spin->z = mul16(I32(car, CAR_STEER), SPOT_TURN_RATE);
  }

  /* Orientation: the axes turned by spin x dt, the nose into the velocity in the air, then made
   * orthonormal again. */
  vec3 th = {mul16(spin->x, dt), mul16(spin->y, dt), mul16(spin->z, dt)};
  vec3 nf = *fwd, nl = *left;
  scale16(left, th.z, &t);
  vadd(&nf, &nf, &t);
  scale16(up, th.y, &t);
  vsub(&nf, &nf, &t);
  scale16(up, th.x, &t);
  vadd(&nl, &nl, &t);
  scale16(fwd, th.z, &t);
  vsub(&nl, &nl, &t);
  int32_t new_speed = off5 ? length16(vel) : 0;
  if (off5 && new_speed > NOSE_TURN_SPEED) {
    int32_t a = FX_ONE - exp16(-mul16(AIR_NOSE_TURN, dt));
    vec3 dir = {qdiv(vel->x, new_speed), qdiv(vel->y, new_speed), qdiv(vel->z, new_speed)};
    nf.x += mul16(dir.x - nf.x, a);
    nf.y += mul16(dir.y - nf.y, a);
    nf.z += mul16(dir.z - nf.z, a);
  }
  normalise(&nf);
  vec3 nu;
  cross16(&nf, &nl, &nu);
  normalise(&nu);
  cross16(&nu, &nf, &nl);
  normalise(&nl);
  *fwd = nf;
  *left = nl;
  *up = nu;
  return 0;
}

/* Each point's part bits for the damage (F105's numbering: wheel 0 front left 0x10, wheel 1 rear left
 * 1, wheel 2 front right 0x20, wheel 3 rear right 2; the chassis the middle parts 4 | 8). */
static const uint32_t part_bits[NUM_POINTS] = {0x10, 0x01, 0x20, 0x02, 0x0c};

/* 0x416284 body::impacts(eax = car, edx = force, ebx = torque): the walls' impulses (F059, F060),
 * added to the body's force and (world) torque sums; each point's impulse in +0x84; the damage call
 * (F099): damage::hit (damage.c), which returns at once while the option [0x63334c] is off. */
int32_t body_impacts(uint32_t car, uint32_t force_at, uint32_t torque_at, uint32_t ecx) {
  (void)ecx;
  vec3 *force = PTR(force_at), *torque = PTR(torque_at);
  int32_t closing[NUM_POINTS];
  int hits = 0;
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    *VEC(p, PT_IMPULSE) = (vec3){0, 0, 0};
    closing[i] = 0;
    if (I32(p, PT_WALL_DEPTH) <= 0) continue;
    int32_t c = -dot16(VEC(p, PT_VELOCITY), VEC(p, PT_WALL_DIR)) - IMPACT_SLACK;
    if (c <= 0) continue;
    closing[i] = c;
    hits++;
  }
  if (hits == 0) return 0;
  int32_t dt = I32(POD_FRAME, FRAME_DT), mass = I32(car, CAR_MASS);
  int32_t total = 0, one_size = 0;
  uint32_t parts = 0;
  for (int i = 0; i < NUM_POINTS; i++) {
    if (closing[i] <= 0) continue;
    uint32_t p = car + CAR_POINT(i);
    const vec3 *n = VEC(p, PT_WALL_DIR);
    int32_t size = mul16(qdiv(mul16(closing[i], mass), dt), I32(p, PT_BOUNCE));
    int32_t share = hits == 1 ? size : hits == 2 ? size >> 1 : size / hits;
    vec3 j, t;
    scale16(n, share, &j);
    if (hits == 1) {
      /* friction along the wall, up to 0.15 of the impulse */
      vec3 vt;
      scale16(n, dot16(VEC(p, PT_VELOCITY), n), &t);
      vsub(&vt, VEC(p, PT_VELOCITY), &t);
      int32_t speed = length16(&vt);
      if (speed > 0) {
        int32_t f = qdiv(mul16(speed, mass), dt), most = mul16(size, IMPACT_FRICTION);
        if (f > most) f = most;
        vec3 dir = {qdiv(vt.x, speed), qdiv(vt.y, speed), qdiv(vt.z, speed)};
        scale16(&dir, f, &t);
        vsub(&j, &j, &t);
      }
      one_size = size;
    }
    *VEC(p, PT_IMPULSE) = j;
    vadd(force, force, &j);
    vec3 r;
    vsub(&r, VEC(p, PT_POSITION), VEC(car, CAR_BODY_CENTRE));
    cross16(&r, &j, &t);
    vadd(torque, torque, &t);
    total += share;
    parts |= part_bits[i];
  }
  if (hits == 1) POD_CALL3(FN_DAMAGE_HIT, car, parts, (uint32_t)(one_size >> 2));
  else POD_CALL3(FN_DAMAGE_HIT, car, parts, (uint32_t)(total >> 2));
  return 0;
}

/* 0x416030 body::push_out(eax = car): the body and its points out of the walls, by each point's depth
 * less what earlier points' pushes already gave along its direction. */
int32_t body_push_out(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  vec3 push = {0, 0, 0}, t;
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t d = I32(p, PT_WALL_DEPTH);
    if (d <= 0) continue;
    int32_t left = d - dot16(&push, VEC(p, PT_WALL_DIR));
    if (left <= 0) continue;
    scale16(VEC(p, PT_WALL_DIR), left, &t);
    vadd(&push, &push, &t);
  }
  if (push.x == 0 && push.y == 0 && push.z == 0) return 0;
  vadd(VEC(car, CAR_BODY_CENTRE), VEC(car, CAR_BODY_CENTRE), &push);
  for (int i = 0; i < NUM_POINTS; i++)
    vadd(VEC(car, CAR_POINT(i) + PT_POSITION), VEC(car, CAR_POINT(i) + PT_POSITION), &push);
  return 0;
}
