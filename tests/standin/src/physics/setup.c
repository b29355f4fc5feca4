/* The car's set-up: its parameters (G01, chosen) and its placement on its grid slot, called by the
 * race's set-up (src/internal.h: physics_car_setup), and its grid slot. Every value: port/CHOICES.md, "Car parameters". */
#include "../internal.h"
#include "car_params.h"
#include "objects.h"

/* The base torque curve, engine torque at rpm = 256 i (i = 0..39): 1.6 at rest rising to 2.8 at 5120
 * rpm, 1.9 at 9984 rpm (chosen). Each car's own curve (car_curves, whose address the car holds at
 * +0x538) is this one scaled and tilted by the car's parameter set. */
static const int32_t base_torque_curve[TORQUE_CURVE_LEN] = {
    0x1999a, 0x1b78d, 0x1d3f8, 0x1eed9, 0x20831, 0x22000, 0x23646, 0x24b02, 0x25e35, 0x26fdf,
    0x28000, 0x28e98, 0x29ba6, 0x2a72b, 0x2b127, 0x2b99a, 0x2c083, 0x2c5e3, 0x2c9ba, 0x2cc08,
    0x2cccd, 0x2cc29, 0x2ca3f, 0x2c70e, 0x2c297, 0x2bcd8, 0x2b5d3, 0x2ad87, 0x2a3f4, 0x2991b,
    0x28cfa, 0x27f93, 0x270e5, 0x260f1, 0x24fb5, 0x23d33, 0x2296a, 0x2145a, 0x1fe04, 0x1e666};

/* The eight cars' parameter sets (chosen, G01: the car file is absent): mass, inertias about the
 * forward, left and up axes, the tyres' side and traction grips, the torque curve's scale and tilt
 * (the curve at index i is the base's x (scale + tilt x (i - 20) / 20): a tilt > 0 a car that pulls at
 * high revs, < 0 one that pulls low down), the drive layout (F028: 1 all wheels, 2 front, other values
 * rear: 0 and 3 both rear), and the catch-up record's places behind (F127's 400 each). */
typedef struct car_set {
  int32_t mass;
  vec3 inertia;
  int32_t side_grip, traction;
  int32_t curve_scale, curve_tilt;
  int32_t layout;
  int32_t places_behind;
} car_set;

static const car_set car_sets[NUM_RACERS] = {
    {32 << 16, {16 << 16, 48 << 16, 52 << 16}, 0x20000, 0x1b333, 0x10000, 0, 0, 0},
    {28 << 16, {14 << 16, 42 << 16, 46 << 16}, 0x23333, 0x1cccd, 0xe666, 0x1000, 2, 0},
    {36 << 16, {18 << 16, 54 << 16, 59 << 16}, 0x1e666, 0x1999a, 0x11999, -0x1000, 1, 0},
    {30 << 16, {15 << 16, 45 << 16, 49 << 16}, 0x21999, 0x1c000, 0x10ccd, 0x0800, 3, 0},  /* the automatic car */
    {34 << 16, {17 << 16, 51 << 16, 56 << 16}, 0x1cccd, 0x19999, 0x12666, 0x1800, 2, 0},
    {26 << 16, {13 << 16, 39 << 16, 43 << 16}, 0x24ccd, 0x1e666, 0xd99a, -0x0800, 1, 1},
    {38 << 16, {20 << 16, 58 << 16, 63 << 16}, 0x1f333, 0x1a666, 0x13333, -0x1800, 0, 0},
    {31 << 16, {15 << 16, 47 << 16, 51 << 16}, 0x20ccd, 0x1b333, 0xf333, 0x1000, 1, 0},   /* the roof car */
};

/* The cars' torque curves (+0x538 points at its car's). */
int32_t car_curves[NUM_RACERS][TORQUE_CURVE_LEN];

static const int32_t gear_ratios[5] = {18 << 16, 12 << 16, 0x88000 /* 8.5 */, 0x68000 /* 6.5 */,
                                       0x53333 /* 5.2 */};

/* Wheels 0 front left, 1 rear left, 2 front right, 3 rear right (F166: 0 and 2 steer; F105's part
 * bits: 0x10/0x20 front, 1/2 rear); then the chassis point. Body frame: x forward, y left, z up. */
static const vec3 point_offsets[NUM_POINTS] = {
    {0x14ccd, 0xe666, 0x3333}, {-0x14ccd, 0xe666, 0x3333},
    {0x14ccd, -0xe666, 0x3333}, {-0x14ccd, -0xe666, 0x3333}, {0, 0, 0}};

#define WHEEL_RADIUS   0x599a   /* 0.35 */
#define CHASSIS_RADIUS 0x3333   /* 0.2 */
#define WHEEL_REST     0x8000   /* 0.5: the spring's free extension = the droop limit */
#define SPRING_K       0x6aaab  /* 6.6667: one quarter weight at 0.15 of compression */
#define STATIC_HEIGHT  0x599a   /* 0.35 = 0.5 - 0.15 */

void physics_car_setup(uint32_t car, uint32_t driver, int racer, uint32_t start) {
  /* the car's parameters: its set's, and the rest the same for every car */
  const car_set *set = &car_sets[racer];
  I32(car, CAR_MASS) = set->mass;
  I32(car, CAR_WEIGHT) = mul16(set->mass, GRAVITY);
  *VEC(car, CAR_INERTIA) = set->inertia;
  int32_t max = 1000 << 16;  /* F048 */
  I32(car, CAR_ENGINE_MAX) = max;
  I32(car, CAR_SHIFT_POINTS + 0) = mul16(max, 0xeb85);  /* 0.92 */
  I32(car, CAR_SHIFT_POINTS + 4) = mul16(max, 0x75c3);  /* 0.46 */
  I32(car, CAR_SHIFT_POINTS + 8) = mul16(max, 0x199a);  /* 0.10 */
  I32(car, CAR_SHIFT_POINTS + 12) = mul16(max, 0x3333); /* 0.20 */
  I32(car, CAR_REV_UP) = 600 << 16;
  I32(car, CAR_REV_DOWN) = 400 << 16;
  for (int g = 0; g < 5; g++) I32(car, CAR_RATIOS + 4 * g) = gear_ratios[g];
  U8(car, CAR_TOP_GEAR) = 5;
  I8(car, CAR_GEAR) = 0;
  int32_t *curve = car_curves[racer];
  for (int i = 0; i < TORQUE_CURVE_LEN; i++)
    curve[i] = mul16(base_torque_curve[i], set->curve_scale + set->curve_tilt * (i - 20) / 20);
  U32(car, CAR_TORQUE_CURVE) = ADDR(curve);
  I32(car, CAR_AIR_DRAG) = 600 << 16;
  I32(car, CAR_DOWNFORCE) = 300 << 16;
  I32(car, CAR_STEER_MAX) = 0x9999;   /* 0.6 rad */
  I32(car, CAR_STEER_RATE) = 2 << 16; /* rad/s */
  I32(car, CAR_BRAKE_MAX) = 25 << 16;
  I32(car, CAR_WHEEL_INERTIA) = 0x18000;  /* 1.5 */
  I32(car, CAR_SIDE_STIFFNESS) = 100 << 16;
  I32(car, CAR_DRIVE_LAYOUT) = set->layout;
  I32(car, CAR_ENGINE_SPEED) = 0;

  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    *VEC(p, PT_OFFSET) = point_offsets[i];
    U32(p, PT_SURFACE) = SURFACE(0);
    if (i == CHASSIS) {
      I32(p, PT_RADIUS) = CHASSIS_RADIUS;
      continue;
    }
    I32(p, PT_RADIUS) = WHEEL_RADIUS;
    I32(p, PT_ROLLING_RESISTANCE) = 655;  /* 0.01 */
    I32(p, PT_REST) = WHEEL_REST;
    I32(p, PT_HEIGHT_MAX) = WHEEL_REST;
    I32(p, PT_HEIGHT) = STATIC_HEIGHT;
    I32(p, PT_SPRING_K) = SPRING_K;
    I32(p, PT_DAMPER) = 0xcccd;      /* 0.8 */
    I32(p, PT_SIDE_GRIP) = set->side_grip;
    I32(p, PT_TRACTION) = set->traction;
  }

  /* The catch-up record the driver points at (chosen layout, step.c): keep near the racer ahead on
   * the grid (racer 0 itself; racer 1 the last car, racer 7), scale 1, weight 2, the set's places
   * behind. */
  uint32_t rec = U32(driver, DRV_CATCHUP);
  if (rec) {
    I32(rec, 0x0) = racer == 1 ? NUM_RACERS - 1 : racer > 0 ? racer - 1 : 0;
    I32(rec, 0x4) = FX_ONE;
    I32(rec, 0x8) = 2 << 16;
    I32(rec, 0xc) = set->places_behind;
  }

  /* On its grid slot (0x4236f0, F141): the body 1 above the start record's point, levelled along its
   * heading, the points placed and sectored (the place, 0x423538); the settling lets it down onto its
   * springs. */
  POD_CALL2(FN_GRID_SLOT, car, start);
  uint32_t table = U32(POD_SECTOR_TABLE, 0);
  uint32_t s1 = U32(car, CAR_POINT(1) + PT_SECTOR);
  I32(car, CAR_WHEEL1_SECTOR) = s1 ? (int32_t)(s1 - table) / SECTOR_SIZE : -1;

  /* the drawn object's parts (parts_setup.c); racer 7 has no drawn object */
  uint32_t object = U32(driver, DRV_OBJECT);
  if (object) parts_setup(object, racer);
}

/* 0x4d5000 math::qdiv(eax = a, edx = b) -> eax: the guarded 16.16 divide (car_params.h). */
int32_t math_qdiv(uint32_t ua, uint32_t ub, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int32_t a = (int32_t)ua, b = (int32_t)ub;
  if (b < -32 || b > 32) {
    int64_t aa = a < 0 ? -(int64_t)a : a, bb = b < 0 ? -(int64_t)b : b;
    if (aa >= (bb << 15)) return ((a < 0) != (b < 0)) ? -0x7fffffff : 0x7fffffff;
  }
  return div16(a, b);
}
