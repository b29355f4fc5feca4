/* The car's parameters and the race car's fields the documents do not place (G01-G03), and the
 * physics' shared helpers. Every offset and value here is recorded in port/CHOICES.md, "Car
 * parameters" section); the car-step functions' own sections give their formulas.
 *
 * Written independently of the port: the two meet only in memory bytes. */
#ifndef STANDIN_CAR_PARAMS_H
#define STANDIN_CAR_PARAMS_H

#include <stdint.h>

#include "pod_call.h"
#include "standin.h"
#include "standin_math.h"

/* ---- point record fields (chosen, G02): +0x40..+0x5b and +0x94..+0xbf ------------------------ */
#define PT_OFFSET     0x40  /* vec3: where the point hangs from, in the body frame (x fwd, y left, z up) */
#define PT_RADIUS     0x4c  /* i32: wheel radius / the chassis point's radius */
#define PT_SPIN       0x50  /* i32: wheel spin, rad/s */
#define PT_TORQUE     0x54  /* i32: the wheel's drive torque this step (drive share + rolling resistance) */
#define PT_BRAKE      0x58  /* i32: the brake torque on the wheel this step (signed, against the spin) */
#define PT_HEIGHT     0x94  /* i32: suspension extension h: the wheel centre hangs h below PT_OFFSET */
#define PT_HEIGHT_VEL 0x98  /* i32: dh/dt, units/s */
#define PT_SPRING     0x9c  /* i32: spring + damper output, in quarter weights (clamped +-7.63) */
#define PT_LOAD       0xa0  /* i32: normal force this step */
#define PT_BOTTOM_OUT 0xa4  /* i32 (wheels): what the travel could not take this pass (collide::track) */
#define PT_REST       0xa8  /* i32: the spring's free extension */
#define PT_HEIGHT_MAX 0xac  /* i32: the most the wheel can hang (droop limit) */
#define PT_SPRING_K   0xb0  /* i32: spring rate, quarter weights per unit of compression */
#define PT_DAMPER     0xb4  /* i32: damper rate, quarter weights per unit/s */
#define PT_SIDE_GRIP  0xb8  /* i32: side grip */
#define PT_TRACTION   0xbc  /* i32: traction grip */

/* ---- race car fields (chosen, G01/G03) ------------------------------------------------------- */
#define CAR_TRACK_CALLS  0x43c  /* i32: the track pass's call counter ("every fourth call", A12) */
#define CAR_GEAR         0x44a  /* i8: -1 reverse, 0 neutral, 1..top */
#define CAR_TOP_GEAR     0x44b  /* u8 */
#define CAR_THROTTLE     0x44c  /* i32 16.16, 0..1 */
#define CAR_BRAKE        0x450  /* i32 16.16, 0..1 */
#define CAR_STEER        0x454  /* i32: front wheels' steering angle, rad, positive = left */
#define CAR_ENGINE_MAX   0x458  /* i32: engine limit, rad/s (F048: 1000) */
#define CAR_REV_UP       0x45c  /* i32: rad/s^2 */
#define CAR_REV_DOWN     0x460  /* i32: rad/s^2 */
#define CAR_DRIVE_TORQUE 0x464  /* i32: the torque stage's result (before the split) */
#define CAR_STEER_MAX    0x468  /* i32: rad */
#define CAR_BRAKE_MAX    0x46c  /* i32: brake torque per wheel at full brake */
#define CAR_RATIOS       0x484  /* 5 x i32: gear ratios of gears 1..5 (engine rad/s per wheel rad/s) */
#define CAR_INPUT        0x4fa  /* u16: the step's input bits after stage 3 */
#define CAR_WHEEL_INERTIA 0x524 /* i32 */
#define CAR_STEER_RATE   0x528  /* i32: rad/s */
#define CAR_TORQUE_CURVE 0x538  /* u32: address of the torque curve, TORQUE_CURVE_LEN x i32 */
#define CAR_WEIGHT       0x53c  /* i32: mass x gravity */
#define CAR_SIDE_STIFFNESS 0x540 /* i32: the grip stage's side force per unit/s of side speed */

#define TORQUE_CURVE_LEN 40
#define NUM_WHEELS 4
#define NUM_POINTS 5
#define CHASSIS 4

/* The step's force array (stage 12..20): a force per point, then the outside force. */
#define FORCE_OUTSIDE 5
#define NUM_FORCES 6

/* The stand-in's functions standin.h does not name (addresses from src/functions.def / the profile). */
#define FN_TOUCH_FACE       0x4174f8u  /* eax=point, edx=face, ebx=mesh, ecx=kind */
#define FN_CHASSIS_SEARCHES 0x417884u  /* eax=car -> eax */
#define FN_WALL_DEPTH       0x4167ecu  /* eax=point, edx=normal, ebx=depth */
#define FN_PUSH_FACES       0x4168dcu  /* eax=point, edx=sector, ebx=car */
#define FN_SECTOR_WALLS     0x416be0u  /* eax=car, edx=sectors, ebx=count */
#define FN_IMPACTS          0x416284u  /* eax=car, edx=force, ebx=torque */
#define FN_DAMAGE_HIT       0x420e54u  /* eax=car, edx=parts, ebx=strength (damage.c) */
#define FN_TRAVEL           0x41988cu  /* eax=car */
#define FN_PUSH_OUT         0x416030u  /* eax=car */
#define FN_BEACON_TEST      0x41cf2cu  /* eax=driver, edx=move */
#define FN_STUCK            0x4227bcu  /* eax=car, edx=driver */
#define FN_UPSIDE_DOWN      0x4159d8u  /* eax=car, edx=driver */
#define FN_PUT_BACK         0x415730u  /* eax=car, edx=driver */
#define FN_CAR_RESET        0x41c814u  /* eax=car */
#define FN_CLEAR_POSE       0x4231b4u  /* eax=car */
#define FN_PLACE            0x423538u  /* eax=car, edx=point, ebx=heading */
#define FN_SECTOR_NEAR      0x45ca78u  /* eax=position, edx=hint -> eax */
#define FN_SECTOR_ANY       0x45ccd8u  /* eax=position -> eax */
#define FN_PATH_HEADING     0x4abd38u  /* eax=driver, edx=out -> eax */
#define FN_PATH_NEXT        0x4abae8u  /* eax=link -> eax */
#define FN_PATH_PLACE       0x4aa8a0u  /* eax=driver, edx=car (paths.c) */
#define FN_PATH_TRACK       0x4b0ec0u  /* eax=driver, edx=car */
#define FN_PATH_TRACK_NODE  0x4b0b98u  /* eax=link -> eax */
#define FN_LANE_TARGET      0x455ed0u  /* eax=driver */
#define FN_CATCH_UP_TARGET  0x422918u  /* eax=racer number -> eax = driver or 0 */
#define FN_POSE             0x4155b8u  /* eax=car, edx=driver */
#define FN_WHEEL_ROLL       0x415424u  /* eax=car */


/* ---- constants ----------------------------------------------------------------------------- */
#define GRAVITY        0x9cf5c   /* 9.81 */
#define SPRING_LIMIT   0x7a148   /* 7.63 (F033) */
#define STEP_SCALE     0x131b7   /* 1.1942 (F063) */
#define SPIN_LIMIT     0x24a3d   /* 2.29 rad/s (F064) */
#define YAW_REMOVED    0xf000    /* 15/16 (F061) */
#define CONTACT_BELOW  0x24a3d   /* 2.29 (F072) */
#define FLOOR_UP_MIN   0x31ec    /* 0.195 (F073) */
#define SUBSTEP_MAX    0x444     /* F035 */
#define GEAR_CHANGE_TIME 15000   /* F020 */
#define HUMAN_TORQUE   0xb3b0    /* F043 */
#define RPM_PER_256    0x98c9e   /* F042 */
#define SLOW_TYRE      0xeb85    /* 0.92 units/s (F050) */
#define SKID_SLIP      0x4240    /* F055 */
#define SLIDE_SLIP     0x9470    /* F055 */
#define ROLL_LIMIT_KNEE 0x1dcd65 /* F054 */
#define SLOPE_HOLD_SPEED (10 << 16)  /* F032 */
#define AIR_STEER_SPEED  (30 << 16)  /* F067 */
#define AIR_STEER      0x5a0000  /* F067 */
#define AIR_SPIN_DECAY 0x38000   /* 3.5 (F065) */
#define AIR_NOSE_TURN  0x107ae   /* 1.03 (F066) */
#define WALL_BOUNCE    0x8000    /* every face's bounce (chosen) */
#define FALL_BELOW     0xa0000   /* 10 (F080) */
#define IMPACT_SLACK   0x4396    /* 0.264 (F059) */
#define IMPACT_FRICTION 0x2666   /* 0.15 (F060) */
#define SPOT_TURN_SPEED 0x10000  /* "nearly stopped": 1 unit/s (chosen, F068) */
#define SPOT_TURN_RATE 0x20000   /* yaw rate per radian of steering (chosen, F068) */
#define STUCK_SPEED    0x10000   /* 1 unit/s (chosen, F129) */
#define STUCK_TIME     0x20000   /* 2 s (F129) */
#define UPSIDE_DOWN_TIME 640     /* 2.5 s in 1/256 s (F081) */
#define PI16           205887
#define TWO_PI16       411774

/* ---- helpers: the arithmetic layer at its POD addresses ------------------------------------ */
static inline int32_t dot16(const void *a, const void *b) {
  return POD_CALL2(FN_DOT16, ADDR(a), ADDR(b));
}
static inline void cross16(const void *a, const void *b, void *out) {
  POD_CALL3(FN_CROSS16, ADDR(a), ADDR(b), ADDR(out));
}
static inline void scale16(const void *v, int32_t s, void *out) {
  POD_CALL3(FN_SCALE16, ADDR(v), (uint32_t)s, ADDR(out));
}
static inline int32_t length16(const void *v) { return POD_CALL1(FN_LENGTH16, ADDR(v)); }
static inline int32_t sin16(int32_t a) { return POD_CALL1(FN_SIN16, (uint32_t)a); }
static inline int32_t cos16(int32_t a) { return POD_CALL1(FN_COS16, (uint32_t)a); }
static inline int32_t exp16(int32_t x) { return POD_CALL1(FN_EXP16, (uint32_t)x); }

/* qdiv(a, b): div16 that never faults: when |b| > 32 and the quotient would not fit in 32 bits
 * (|a| >= |b| * 2^15) it gives +-0x7fffffff (the sign of a * b) instead of idiv's #DE.
 * port/CHOICES.md, "Car parameters", "qdiv". It is the stand-in's own function at 0x4d5000 (POD divides
 * inline, with no guard): the guard is the stand-in's, so its branches are not counted as the
 * calling physics function's. */
#define FN_QDIV 0x4d5000u  /* eax=a, edx=b -> eax */
static inline int32_t qdiv(int32_t a, int32_t b) { return POD_CALL2(FN_QDIV, (uint32_t)a, (uint32_t)b); }

static inline int32_t iabs(int32_t v) { return v < 0 ? -v : v; }
static inline int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* v = a + b, v = a - b, componentwise, wrapping (the original's add/sub). */
static inline void vadd(vec3 *out, const vec3 *a, const vec3 *b) {
  out->x = (int32_t)((uint32_t)a->x + (uint32_t)b->x);
  out->y = (int32_t)((uint32_t)a->y + (uint32_t)b->y);
  out->z = (int32_t)((uint32_t)a->z + (uint32_t)b->z);
}
static inline void vsub(vec3 *out, const vec3 *a, const vec3 *b) {
  out->x = (int32_t)((uint32_t)a->x - (uint32_t)b->x);
  out->y = (int32_t)((uint32_t)a->y - (uint32_t)b->y);
  out->z = (int32_t)((uint32_t)a->z - (uint32_t)b->z);
}

/* The step's force array (a static block, chosen; see "forces::grip" in CHOICES). */
extern vec3 physics_step_forces[NUM_FORCES];

#endif /* STANDIN_CAR_PARAMS_H */
