/* The car step FUN_0041b66c (step::step) with its inline stages (3, 9, 11, 12's clearing, 15, 17,
 * 19, 29, 30's move, 32), the catch-up (0x422be8), the skid marks and smoke (0x41a714), the beacon
 * test (0x41cf2c) and the stuck timer (0x4227bc).
 * Formulas: port/CHOICES.md, "step::step", "step::catch_up", "step::skid_smoke". */
#include "car_params.h"

#define CATCHUP_NEAR (50 << 16)  /* F123, F125 */
#define CATCHUP_LOW  0xe666      /* 0.90 (F126) */
#define CATCHUP_HIGH 0x1020c     /* 1.008 (F126) */
#define CATCHUP_STEP 800         /* F124 */
#define CATCHUP_PLACE 400        /* F128 */

/* Catch-up record (four words at driver +0x90, 0x4f97c8 + 16 racer; chosen layout). */
#define CU_TARGET 0x0  /* i32 racer number it keeps near */
#define CU_SCALE  0x4  /* i32 16.16 the time scale */
#define CU_WEIGHT 0x8  /* i32 16.16 */
#define CU_PLACE  0xc  /* i32 places behind first */

/* The path value at a driver's tracker: its link's value for its point. */
static int32_t path_value(uint32_t driver) {
  return I32(U32(U32(driver, DRV_TRACK_LINK), LINK_VALUES), 4u * (uint32_t)I32(driver, DRV_TRACK_POINT));
}

/* 0x422be8 step::catch_up(eax = car, edx = driver): a computer car's time scale; scales the
 * frame-time block's dt in place. */
int32_t catch_up(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t rec = U32(driver, DRV_CATCHUP);
  if (!(U32(driver, DRV_FLAGS) & DRV_FLAG_COMPUTER) || rec == 0) return 0;
  /* the target racer by number, through the function at [0x4f984c] (catch_up::target, A07) */
  uint32_t other = (uint32_t)POD_CALL_INDIRECT2(POD_CATCHUP_TARGET, I32(rec, CU_TARGET), 0);
  if (!other) return 0;
  uint32_t target = U32(other, DRV_CAR);
  vec3 gap;
  vsub(&gap, VEC(target, CAR_BODY_CENTRE), VEC(car, CAR_BODY_CENTRE));
  int32_t d = dot16(&gap, VEC(car, CAR_FORWARD));  /* > 0: the target is ahead */
  /* along the race paths: the link values at the trackers, straight within 50 (F123) */
  if (U32(POD_PATHS, 0) != 0 && U32(driver, DRV_TRACK_LINK) != 0 && U32(other, DRV_TRACK_LINK) != 0) {
    int32_t along = path_value(other) - path_value(driver);
    if (iabs(along) >= CATCHUP_NEAR) d = along;
  }
  int32_t scale = I32(rec, CU_SCALE);
  int32_t step = qdiv(CATCHUP_STEP, I32(rec, CU_WEIGHT));
  scale += d > 0 ? step : -step;
  if (iabs(d) < CATCHUP_NEAR) {
    /* within 50: average in the ratio that would close the gap over 50 units */
    scale = (scale + FX_ONE + qdiv(d, CATCHUP_NEAR)) >> 1;
  }
  int32_t base = I32(POD_CATCHUP_BASE, 0);
  int32_t low = base + CATCHUP_LOW - CATCHUP_PLACE * I32(rec, CU_PLACE);
  int32_t high = base + CATCHUP_HIGH;
  if (scale < low) scale = low;
  if (scale > high) scale = high;
  I32(rec, CU_SCALE) = scale;
  I32(POD_FRAME, FRAME_DT) = mul16(I32(POD_FRAME, FRAME_DT), scale);
  return 0;
}

/* 0x41a714 step::skid_smoke(eax = car): smoke at each skidding wheel (smoke_emit draws rand();
 * nothing of it reaches the car, F169), then each wheel's last sector. */
int32_t step_skid_smoke(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (U8(p, PT_SKIDDING)) POD_CALL2(FN_SMOKE_EMIT, ADDR(VEC(p, PT_POSITION)), U8(p, PT_SLIDING) ? FX_ONE : 0x8000);
    U32(p, PT_LAST_SECTOR) = U32(p, PT_SECTOR);
  }
  return 0;
}

static int32_t toward(int32_t v, int32_t target, int32_t step) {
  if (v < target) return v + step > target ? target : v + step;
  return v - step < target ? target : v - step;
}

/* 0x41cf2c race::beacon_test(eax = driver, edx = move): the racer's next beacon passed when the
 * chassis point's move (before, after) crosses its plane forwards. */
int32_t race_beacon_test(uint32_t driver, uint32_t move, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int32_t count = I32(POD_RACE_BLOCK, RACE_BEACON_COUNT);
  if (count <= 0) return 0; /* no beacons: nothing to pass (the table of choices, G31) */
  uint32_t rec = POD_RACE_BLOCK + RACE_RECORDS + (uint32_t)I32(driver, DRV_RACER) * RACE_RECORD_SIZE;
  int32_t k = I32(rec, REC_NEXT_BEACON);
  uint32_t b = POD_RACE_BLOCK + RACE_BEACONS + (uint32_t)k * BEACON_SIZE;
  vec3 d;
  vsub(&d, PTR(move), VEC(b, 0));
  if (dot16(&d, VEC(b, 12)) >= 0) return 0;
  vsub(&d, PTR(move + 12), VEC(b, 0));
  if (dot16(&d, VEC(b, 12)) < 0) return 0;
  I32(rec, REC_NEXT_BEACON) = k + 1 == count ? 0 : k + 1;
  I32(rec, REC_BEACONS_PASSED) += 1;
  return 0;
}

/* 0x4227bc step::stuck(eax = car, edx = driver): a computer car held under 1 unit/s with the throttle
 * on counts driver +0x7c up; after 2 s it sets -2 s, which the controller counts back up while it
 * reverses (F129). */
int32_t step_stuck(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  if (!(U8(driver, DRV_FLAGS) & DRV_FLAG_COMPUTER)) return 0;
  int32_t t = I32(driver, DRV_STUCK);
  if (t < 0) return 0;
  if (length16(VEC(car, CAR_VELOCITY)) < STUCK_SPEED && I32(car, CAR_THROTTLE) != 0) t += I32(POD_FRAME, FRAME_DT);
  else t = 0;
  if (t > STUCK_TIME) t = -STUCK_TIME;
  I32(driver, DRV_STUCK) = t;
  return 0;
}

/* 0x41b66c step::step(eax = car, edx = driver) -> eax: the car step, in 000's order. Returns the
 * address of the chassis point's move, its position before and after the step (F036). */
int32_t step_step(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  vec3 *forces = physics_step_forces;
  vec3 chassis_before = *VEC(car, CAR_CHASSIS + PT_POSITION);
  int32_t engine_before = I32(car, CAR_ENGINE_SPEED);

  /* 1, 2: the time scale, the controller, and the CTRL record right after it (0x41b6f6) */
  POD_CALL2(FN_CATCH_UP, car, driver);
  POD_CALL_INDIRECT2(driver + DRV_CONTROLLER, driver, car);
  POD_CALL1(FN_HOOK_CTRL, I32(driver, DRV_RACER));
  int32_t dt = I32(POD_FRAME, FRAME_DT);

  /* 3: input bits: the low 16 bits without bit 3 (A04), the brake forced while the countdown holds */
  uint32_t in = U32(driver, DRV_INPUT) & 0xfff7u;
  if (I32(POD_RACE_BLOCK, RACE_PHASE) != 0) in |= IN_BRAKE;
  U16(car, CAR_INPUT) = (uint16_t)in;
  I32(car, CAR_THROTTLE) = (in & IN_THROTTLE) ? FX_ONE : clampi(I32(driver, DRV_THROTTLE), 0, FX_ONE);
  I32(car, CAR_BRAKE) = (in & IN_BRAKE) ? FX_ONE : clampi(I32(driver, DRV_BRAKE), 0, FX_ONE);
  int32_t speed = length16(VEC(car, CAR_VELOCITY));
  int32_t lim = qdiv(I32(car, CAR_STEER_MAX), FX_ONE + (speed >> 6));
  int32_t target = (in & IN_LEFT) ? lim : (in & IN_RIGHT) ? -lim : mul16(clampi(I32(driver, DRV_STEER), -FX_ONE, FX_ONE), lim);
  int32_t steer = toward(I32(car, CAR_STEER), target, mul16(I32(car, CAR_STEER_RATE), dt));
  I32(car, CAR_STEER) = steer;
  U8(car, CAR_GEAR_REQUEST) |= (uint8_t)(in & (IN_GEAR_UP | IN_GEAR_DOWN));

  /* 4, 5: gearbox */
  if (U8(car, CAR_FLAGS) & CAR_AUTOMATIC) POD_CALL1(FN_AUTOMATIC, car);
  POD_CALL1(FN_GEARS, car);
  /* 6: axes, the front wheels turned */
  POD_CALL1(FN_WHEEL_AXES, car);
  if (steer != 0) POD_CALL2(FN_TURN, car, steer);
  /* 7, 8: engine and torque */
  POD_CALL2(FN_ENGINE, car, driver);
  int32_t torque = POD_CALL2(FN_TORQUE, car, driver);
  /* 9: the torque shared by +0x54c (F028) */
  int32_t layout = I32(car, CAR_DRIVE_LAYOUT);
  int32_t radii = 0;
  for (int i = 0; i < NUM_WHEELS; i++) radii += I32(car, CAR_POINT(i) + PT_RADIUS);
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int front = i == 0 || i == 2;
    int32_t share;
    if (layout == 1) share = qdiv(mul16(torque, I32(p, PT_RADIUS)), radii);
    else if (layout == 2) share = front ? torque >> 1 : 0;
    else share = front ? 0 : torque >> 1;
    I32(p, PT_TORQUE) = share;
  }
  /* 10: brakes */
  POD_CALL2(FN_BRAKES, car, driver);
  /* 11: rolling resistance -(+0x90 x spin) >> 16 (F029) */
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t rr = (int32_t)(((int64_t)I32(p, PT_ROLLING_RESISTANCE) * I32(p, PT_SPIN)) >> 16);
    I32(p, PT_TORQUE) -= rr;
  }
  /* 12: the force array cleared, the air */
  for (int i = 0; i < NUM_FORCES; i++) forces[i] = (vec3){0, 0, 0};
  POD_CALL2(FN_AIR, car, ADDR(&forces[FORCE_OUTSIDE]));
  /* 13, 14: side grip, wheel drive */
  POD_CALL2(FN_GRIP, car, ADDR(forces));
  POD_CALL2(FN_WHEEL_DRIVE, car, ADDR(forces));
  /* 15: under 10 units/s without throttle, the weight's pull along the ground cancelled in
   * proportion to the wheels down (F032) */
  int down = 0;
  for (int i = 0; i < NUM_WHEELS; i++) down += U8(car, CAR_POINT(i) + PT_TOUCHING) != 0;
  if (speed < SLOPE_HOLD_SPEED && I32(car, CAR_THROTTLE) == 0 && down > 0) {
    vec3 w = {0, 0, -I32(car, CAR_WEIGHT)}, t, along;
    scale16(VEC(car, CAR_UP), dot16(&w, VEC(car, CAR_UP)), &t);
    vsub(&along, &w, &t);
    scale16(&along, down << 14, &t);
    vsub(&forces[FORCE_OUTSIDE], &forces[FORCE_OUTSIDE], &t);
  }
  /* 16: springs */
  POD_CALL2(FN_SPRINGS, car, ADDR(forces));
  /* 17: normal forces: a touching wheel's spring (when pushing) x a quarter weight along its normal */
  int32_t quarter = I32(car, CAR_WEIGHT) >> 2;
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t load = 0;
    if (U8(p, PT_TOUCHING) && I32(p, PT_SPRING) > 0) load = mul16(I32(p, PT_SPRING), quarter);
    I32(p, PT_LOAD) = load;
    if (load) {
      vec3 t;
      scale16(VEC(p, PT_NORMAL), load, &t);
      vadd(&forces[i], &forces[i], &t);
    }
  }
  /* 18: tyres */
  POD_CALL2(FN_TYRES, car, ADDR(forces));
  /* 19: a wheel down for fewer than four steps passes only count/4 of its force along the ground */
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (!U8(p, PT_TOUCHING)) continue;
    int32_t c = I32(p, PT_TOUCH_COUNT);
    if (c >= 4) continue;
    int32_t k = c <= 0 ? 0x4000 : c << 14;
    vec3 n, tang;
    scale16(VEC(p, PT_NORMAL), I32(p, PT_LOAD), &n);
    vsub(&tang, &forces[i], &n);
    scale16(&tang, k, &tang);
    vadd(&forces[i], &n, &tang);
  }
  /* 20 (with 21, the wall impacts, inside it): the body */
  POD_CALL2(FN_INTEGRATE, car, ADDR(forces));
  /* 22, 23, 24, 25, 26 */
  POD_CALL1(FN_SUBSTEPS, car);
  POD_CALL1(FN_PLACE_POINTS, car);
  POD_CALL2(FN_TRACK, car, driver);
  POD_CALL2(FN_WHEEL_SPIN, car, driver);
  POD_CALL1(FN_SKID_SMOKE, car);
  /* 27: travel limits, 28: out of the walls */
  POD_CALL1(FN_TRAVEL, car);
  POD_CALL1(FN_PUSH_OUT, car);
  /* 29: touching counters (F018) */
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t c = I32(p, PT_TOUCH_COUNT);
    if (U8(p, PT_TOUCHING)) c = c > 0 ? (c < 16 ? c + 1 : 16) : 1;
    else c = c < 0 ? (c > -16 ? c - 1 : -16) : -1;
    I32(p, PT_TOUCH_COUNT) = c;
  }
  /* 30: the chassis point's move, the beacon test (F036) */
  vec3 *move = PTR(POD_CHASSIS_MOVE);
  move[0] = chassis_before;
  move[1] = *VEC(car, CAR_CHASSIS + PT_POSITION);
  POD_CALL2(FN_BEACON_TEST, driver, POD_CHASSIS_MOVE);
  /* 31: the stuck timer */
  POD_CALL2(FN_STUCK, car, driver);
  /* 32: sound state and slots */
  uint8_t old = U8(car, CAR_SOUND_STATE);
  uint8_t st = old & 0x60;  /* car contact and crash belong to later stages */
  int skid = 0, wheels_down = 0;
  for (int i = 0; i < NUM_WHEELS; i++) {
    skid |= U8(car, CAR_POINT(i) + PT_SKIDDING) != 0;
    wheels_down += U8(car, CAR_POINT(i) + PT_TOUCHING) != 0;
  }
  int32_t engine = I32(car, CAR_ENGINE_SPEED);
  if (skid) st |= 0x01;
  if (engine > engine_before) st |= 0x02;
  if (engine < engine_before) st |= 0x04;
  if (wheels_down == 0) st |= 0x08;
  if (U8(car, CAR_CHASSIS + PT_TOUCHING)) st |= 0x10;
  uint8_t counter = U8(car, CAR_SKID_SOUND);
  counter = skid ? (counter < 255 ? counter + 1 : 255) : 0;
  U8(car, CAR_SKID_SOUND) = counter;
  U8(car, CAR_SOUND_STATE) = st;
  if (counter == 1) POD_CALL2(FN_SOUND, car, 1);                /* a skid starts: slot 1 */
  if ((old & 0x08) && !(st & 0x08)) POD_CALL2(FN_SOUND, car, 2); /* landing: slot 2 */
  return (int32_t)POD_CHASSIS_MOVE;
}
