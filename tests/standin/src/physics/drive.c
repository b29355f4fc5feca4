/* The drivetrain: automatic gearbox (0x4191c4), gears (0x418f0c), engine (0x418010), torque
 * (0x4185ac), brakes (0x4189c4), wheel spin (0x418bd4). Formulas: port/CHOICES.md, one section per
 * function ("drive::..."). Bodies behind the entry thunks of thunks.S (Watcom -> cdecl). */
#include "car_params.h"

#define SMOOTH_K (100 << 16)       /* the smooth torque factor's knee, rad/s (chosen, G06) */
#define FREE_SPIN_LIMIT (400 << 16) /* a free wheel's spin limit, rad/s (chosen) */

static inline int32_t gear_ratio(uint32_t car, int gear) {
  if (gear > 0) return I32(car, CAR_RATIOS + 4 * (gear - 1));
  if (gear < 0) return -I32(car, CAR_RATIOS);  /* reverse: first gear's ratio, negative */
  return 0;
}

/* The front wheels' (0 and 2) mean spin (F041). */
static inline int32_t front_spin(uint32_t car) {
  return (int32_t)((uint32_t)I32(car, CAR_POINT(0) + PT_SPIN) + (uint32_t)I32(car, CAR_POINT(2) + PT_SPIN)) >> 1;
}

/* 0x4191c4 drive::automatic(eax = car): asks for a gear change from the shift points. */
int32_t drive_automatic(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  if (I32(car, CAR_GEAR_TIMER) > 0 || U8(car, CAR_GEAR_REQUEST) != 0) return 0;
  int gear = I8(car, CAR_GEAR);
  int32_t wheels = I32(car, CAR_WHEEL_ENGINE_SPEED);
  if (gear <= 0) {
    if (I32(car, CAR_ENGINE_SPEED) > I32(car, CAR_SHIFT_POINTS + 12)) U8(car, CAR_GEAR_REQUEST) = 0x20;
  } else if (gear < U8(car, CAR_TOP_GEAR) && wheels > I32(car, CAR_SHIFT_POINTS)) {
    U8(car, CAR_GEAR_REQUEST) = 0x20;
  } else if (gear > 1 && wheels < I32(car, CAR_SHIFT_POINTS + 4)) {
    U8(car, CAR_GEAR_REQUEST) = 0x40;
  }
  return 0;
}

/* 0x418f0c drive::gears(eax = car): serves a gear change request, runs the change timer. */
int32_t drive_gears(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t dt = I32(POD_FRAME, FRAME_DT);
  int32_t timer = I32(car, CAR_GEAR_TIMER);
  if (timer > 0) {
    timer -= dt;
    if (timer < 0) timer = 0;
    I32(car, CAR_GEAR_TIMER) = timer;
    U8(car, CAR_GEAR_REQUEST) = 0;  /* a request during a change is dropped */
    return 0;
  }
  uint8_t req = U8(car, CAR_GEAR_REQUEST);
  int gear = I8(car, CAR_GEAR);
  if (req & 0x20) {
    if (gear < U8(car, CAR_TOP_GEAR)) {
      if (gear == 0) {
        /* Up from neutral: the engine speed through a two-piece line (F046): unchanged up to the
         * knee +0x478, half the excess above it. */
        int32_t e = I32(car, CAR_ENGINE_SPEED), knee = I32(car, CAR_SHIFT_POINTS + 4);
        if (e > knee) I32(car, CAR_ENGINE_SPEED) = knee + ((e - knee) >> 1);
      }
      gear += 1;
      I32(car, CAR_GEAR_TIMER) = GEAR_CHANGE_TIME;
    }
  } else if (req & 0x40) {
    if (gear > -1) {
      gear -= 1;
      /* Skip down while the engine would stay under +0x478 in the next gear down (F047). */
      int32_t spin = front_spin(car);
      while (gear > 1 && mul16(spin, gear_ratio(car, gear - 1)) < I32(car, CAR_SHIFT_POINTS + 4)) gear -= 1;
      I32(car, CAR_GEAR_TIMER) = GEAR_CHANGE_TIME;
    }
  }
  I8(car, CAR_GEAR) = (int8_t)gear;
  U8(car, CAR_GEAR_REQUEST) = 0;
  return 0;
}

/* 0x418010 drive::engine(eax = car, edx = driver): the engine speed (F037-F040). */
int32_t drive_engine(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)driver, (void)ebx, (void)ecx;
  int32_t dt = I32(POD_FRAME, FRAME_DT);
  int32_t e = I32(car, CAR_ENGINE_SPEED);
  int32_t max = I32(car, CAR_ENGINE_MAX);
  int32_t thr = I32(car, CAR_THROTTLE);
  if (I8(car, CAR_GEAR) == 0 || I32(car, CAR_GEAR_TIMER) > 0) {
    int32_t up = mul16(I32(car, CAR_REV_UP), dt);
    int32_t down = mul16(I32(car, CAR_REV_DOWN), dt) >> 1;
    if (thr >= FX_ONE) {
      e += up;
    } else if (thr > 0) {  /* an analog throttle: towards throttle x limit */
      int32_t target = mul16(thr, max);
      if (e < target) {
        e += up;
        if (e > target) e = target;
      } else {
        e -= down;
        if (e < target) e = target;
      }
    } else {
      e -= down;
    }
  } else {
    /* In gear the engine follows the wheels (last step's +0x444), not below idle (+0x47c). */
    e = I32(car, CAR_WHEEL_ENGINE_SPEED);
    if (e < I32(car, CAR_SHIFT_POINTS + 8)) e = I32(car, CAR_SHIFT_POINTS + 8);
  }
  if (e > max - 1) e = max - 1;
  if (e < 0) e = 0;
  I32(car, CAR_ENGINE_SPEED) = e;
  return 0;
}

/* 0x4185ac drive::torque(eax = car, edx = driver) -> eax: the drive torque from the curve (F041-F045). */
int32_t drive_torque(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int gear = I8(car, CAR_GEAR);
  int32_t ratio = gear_ratio(car, gear);
  int32_t wheels = gear != 0 ? mul16(front_spin(car), ratio) : I32(car, CAR_ENGINE_SPEED);
  I32(car, CAR_WHEEL_ENGINE_SPEED) = wheels;
  int32_t t = 0;
  if (gear != 0 && I32(car, CAR_GEAR_TIMER) <= 0) {
    int32_t e = I32(car, CAR_ENGINE_SPEED);
    const int32_t *curve = (const int32_t *)PTR(U32(car, CAR_TORQUE_CURVE));
    int32_t pos = (int32_t)(((int64_t)e * RPM_PER_256) >> 24);  /* rpm / 256, 16.16 (F042) */
    if (pos < 0) pos = 0;
    int32_t i = pos >> 16, f = pos & 0xffff;
    if (i >= TORQUE_CURVE_LEN - 1) i = TORQUE_CURVE_LEN - 2, f = FX_ONE;
    int32_t c = curve[i] + mul16(curve[i + 1] - curve[i], f);
    int32_t ahead = e - wheels;
    if (ahead < 0) ahead = 0;
    c = mul16(c, qdiv(SMOOTH_K, SMOOTH_K + ahead));  /* the smooth factor (F045) */
    if (wheels >= I32(car, CAR_ENGINE_MAX) - 1) c = 0;  /* the wheels hold the engine at its limit */
    int32_t thr = I32(car, CAR_THROTTLE);
    if (thr > 0) {
      t = mul16(mul16(c, thr), ratio);
    } else if (wheels > I32(car, CAR_SHIFT_POINTS + 8)) {
      t = -mul16(mul16(c, ratio), 0x40000);  /* off the throttle: by 4, against the gear (F044) */
    }
    if (U32(driver, DRV_FLAGS) & DRV_FLAG_HUMAN) t = mul16(t, HUMAN_TORQUE);  /* F043 */
  }
  I32(car, CAR_DRIVE_TORQUE) = t;
  return t;
}

/* 0x4189c4 drive::brakes(eax = car, edx = driver): each wheel's brake torque, against its spin. */
int32_t drive_brakes(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)driver, (void)ebx, (void)ecx;
  int32_t dt = I32(POD_FRAME, FRAME_DT);
  int32_t b = I32(car, CAR_BRAKE);
  int32_t hold = I32(car, CAR_BRAKE_HOLD);
  if (b > 0) {
    hold += dt;
    if (hold > FX_ONE) hold = FX_ONE;
  } else {
    hold = 0;
  }
  I32(car, CAR_BRAKE_HOLD) = hold;
  int32_t tb = mul16(mul16(I32(car, CAR_BRAKE_MAX), b), 0x8000 + (hold >> 1));
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t t = (i == 0 || i == 2) ? tb : mul16(tb, 0xc000);  /* rear wheels three quarters */
    int32_t want = -(int32_t)((uint32_t)I32(p, PT_SPIN) << 3);
    I32(p, PT_BRAKE) = clampi(want, -t, t);
  }
  return 0;
}

/* 0x418bd4 drive::wheel_spin(eax = car, edx = driver): a touching wheel rolls, a free one spins up. */
int32_t drive_wheel_spin(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)driver, (void)ebx, (void)ecx;
  int32_t dt = I32(POD_FRAME, FRAME_DT);
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    int32_t s;
    if (U8(p, PT_TOUCHING)) {
      s = qdiv(dot16(VEC(p, PT_VELOCITY), VEC(p, PT_AXIS_ROLL)), I32(p, PT_RADIUS));
    } else {
      int32_t tq = I32(p, PT_TORQUE) + I32(p, PT_BRAKE);
      s = I32(p, PT_SPIN) + qdiv(mul16(tq, dt), I32(car, CAR_WHEEL_INERTIA));
      s = clampi(s, -FREE_SPIN_LIMIT, FREE_SPIN_LIMIT);
    }
    I32(p, PT_SPIN) = s;
  }
  I32(car, 0x404) = 0;  /* cleared by the wheel spin (000; use unknown) */
  return 0;
}
