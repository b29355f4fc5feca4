/* The race: eight cars on the grid, scripted controllers, the simulation step, and the frames that
 * drive it (port/CHOICES.md, "Race, controls and frame time"). */
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "pod_call.h"
#include "standin_math.h"

#define STEP_UNIT 0x888          /* the step unit (chosen, G19): 1/30 s */
#define COUNTDOWN_STEPS 20       /* the countdown holds the cars for the first 20 steps */
#define AUTOMATIC_RACER 3        /* the one car with the automatic gearbox */

/* ---- the grid ----------------------------------------------------------------------------------- */

/* Two rows of four... of two: racer i in row i / 2, inner (even) or outer (odd) lane, facing along
 * the loop (counter-clockwise). */
static void grid_place(int racer) {
  uint32_t car = CAR(racer);
  fx angle = 6554 - (racer / 2) * 4588;  /* 0.1 rad at the front row, 0.07 rad (8.4 units) per row */
  fx radius = TRACK_RADIUS + ((racer & 1) ? 4 : -4) * FX_ONE;
  fx c = POD_CALL1(FN_COS16, angle), s = POD_CALL1(FN_SIN16, angle);
  *VEC(car, CAR_BODY_CENTRE) = (vec3){mul16(radius, c), mul16(radius, s), 0};
  *VEC(car, CAR_FORWARD) = (vec3){-s, c, 0};   /* the loop's direction */
  *VEC(car, CAR_LEFT) = (vec3){-c, -s, 0};     /* up x forward: towards the centre */
  *VEC(car, CAR_UP) = (vec3){0, 0, FX_ONE};
}

void race_setup(void) {
  I32(POD_HUMAN_COUNT, 0) = 1;
  I32(POD_COMPUTER_COUNT, 0) = NUM_RACERS - 1;
  I32(POD_EXTRA_COUNT, 0) = 0;
  I32(POD_RACE_BLOCK, RACE_RACERS) = NUM_RACERS;
  I32(POD_RACE_BLOCK, RACE_PHASE) = 1;
  for (int i = 0; i < NUM_RACERS; ++i) {
    uint32_t driver = DRIVER(i), car = CAR(i);
    memset(PTR(driver), 0, DRIVER_SIZE);
    memset(PTR(car), 0, CAR_SIZE);
    I32(driver, DRV_RACER) = i;
    U32(driver, DRV_CONTROLLER) = i == 0 ? FN_HUMAN_CONTROLLER : FN_COMPUTER_CONTROLLER;
    U32(driver, DRV_CAR) = car;
    I32(driver, DRV_FLAGS) = i == 0 ? DRV_FLAG_HUMAN : DRV_FLAG_COMPUTER;
    U32(driver, DRV_CATCHUP) = POD_CATCHUP_RECORDS + (uint32_t)i * CATCHUP_RECORD_SIZE;
    grid_place(i);
    if (i == AUTOMATIC_RACER) U8(car, CAR_FLAGS) |= CAR_AUTOMATIC;
    physics_car_setup(car, driver, i);
  }
}

/* ---- the scripted controllers ------------------------------------------------------------------ */

/* Each racer keeps to a lane (its radius) and a cruising speed, with its own moments to brake and to
 * change gear: steering from the car's place and heading relative to the ring (the same integer
 * arithmetic every run), throttle and brake from its speed and the step number. */
typedef struct script {
  fx lane_offset;   /* from the ring's centre line, + outward */
  fx cruise;        /* units/s */
  int brake_from, brake_to;
  int gear_up[4];   /* steps at which a manual car asks for the next gear */
  int gear_down[2];
} script;

static const script scripts[NUM_RACERS] = {
    {-4 * FX_ONE, 30 * FX_ONE, 150, 165, {25, 60, 110, 170}, {240, 330}},
    {4 * FX_ONE, 28 * FX_ONE, 180, 190, {30, 70, 120, 200}, {260, 340}},
    {-3 * FX_ONE, 26 * FX_ONE, 210, 230, {28, 64, 118, 190}, {250, 360}},
    {3 * FX_ONE, 22 * FX_ONE, 120, 128, {0, 0, 0, 0}, {0, 0}},  /* the automatic car */
    {-5 * FX_ONE, 32 * FX_ONE, 260, 275, {24, 58, 100, 160}, {300, 380}},
    {5 * FX_ONE, 24 * FX_ONE, 90, 96, {35, 80, 140, 220}, {230, 320}},
    {-2 * FX_ONE, 29 * FX_ONE, 300, 310, {26, 66, 112, 180}, {270, 350}},
    {2 * FX_ONE, 31 * FX_ONE, 60, 70, {22, 55, 98, 150}, {280, 370}},
};

static fx clamp(fx v, fx lo, fx hi) { return v < lo ? lo : v > hi ? hi : v; }

static void drive_by_script(uint32_t driver, uint32_t car) {
  int racer = I32(driver, DRV_RACER), step = I32(POD_FRAME, FRAME_STEP);
  const script *sc = &scripts[racer];
  const vec3 *p = VEC(car, CAR_BODY_CENTRE), *fwd = VEC(car, CAR_FORWARD), *vel = VEC(car, CAR_VELOCITY);

  /* steering: towards the lane (lateral error) and along the ring (heading), positive = left */
  vec3 flat = {p->x, p->y, 0};
  fx r = POD_CALL1(FN_LENGTH16, ADDR(&flat));
  vec3 radial = {r ? div16(p->x, r) : FX_ONE, r ? div16(p->y, r) : 0, 0};
  fx lateral = r - (TRACK_RADIUS + sc->lane_offset);            /* + too far out */
  fx heading = POD_CALL2(FN_DOT16, ADDR(fwd), ADDR(&radial));    /* + heading outward */
  fx steer = clamp(mul16(lateral, 0x1999) + mul16(heading, 3 * FX_ONE) + 0x2000, -FX_ONE, FX_ONE);

  /* throttle to the cruising speed, brakes in the script's window */
  fx speed = POD_CALL1(FN_LENGTH16, ADDR(vel));
  int braking = step >= sc->brake_from && step < sc->brake_to;
  fx throttle = braking ? 0 : speed < sc->cruise ? FX_ONE : speed < sc->cruise + 2 * FX_ONE ? FX_ONE / 4 : 0;
  if (steer > FX_ONE / 2 || steer < -FX_ONE / 2) throttle = 0;  /* lift off in a hard turn */
  fx brake = braking ? (step & 1 ? FX_ONE : 0xc000) : 0;

  uint32_t bits = 0;
  if (throttle) bits |= IN_THROTTLE;
  if (brake) bits |= IN_BRAKE;
  if (steer > FX_ONE / 4) bits |= IN_LEFT;
  if (steer < -FX_ONE / 4) bits |= IN_RIGHT;
  for (int k = 0; k < 4; ++k)
    if (sc->gear_up[k] && step == sc->gear_up[k]) bits |= IN_GEAR_UP;
  for (int k = 0; k < 2; ++k)
    if (sc->gear_down[k] && step == sc->gear_down[k]) bits |= IN_GEAR_DOWN;

  U32(driver, DRV_INPUT) = bits;
  I32(driver, DRV_STEER) = steer;
  I32(driver, DRV_THROTTLE) = throttle;
  I32(driver, DRV_BRAKE) = brake;
}

/* controller::human (0x422000) and controller::computer (0x4221d8): eax = driver, edx = car. */
int32_t controller_human(uint32_t driver, uint32_t car, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  drive_by_script(driver, car);
  return 0;
}

int32_t controller_computer(uint32_t driver, uint32_t car, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  drive_by_script(driver, car);
  /* computer drivers write the car's controller word (000: +0x4ec "written by the controller") */
  I32(car, CAR_CONTROLLER_WORD) = I32(driver, DRV_STEER);
  return 0;
}

/* ---- the simulation step (FUN_0049a89c) -------------------------------------------------------- */

/* Each racer's car step in turn (000 "The step"). FUN_004159d8 (upside-down), FUN_004155b8 (wheel
 * roll), the zones and the collisions are outside the stand-in's slice and are not run (chosen). */
int32_t sim_step(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  POD_CALL0(FN_HOOK_STEP);
  for (int i = 0; i < NUM_RACERS; ++i) {
    I32(POD_FRAME, FRAME_DT) = I32(POD_FRAME, FRAME_STEP_DT);
    POD_CALL2(FN_CAR_STEP, CAR(i), DRIVER(i));
    POD_CALL1(FN_HOOK_PHYS, i);
  }
  return 0;
}

/* ---- frames ------------------------------------------------------------------------------------ */

/* The frame time of frame n, 16.16 s (65 = 1 ms, as frame_clock's x 65): 1200..4500 varying, and
 * every 50th frame a long one (9000) that the step unit splits into equal steps (F154). */
static fx frame_time(int n) {
  if (n % 50 == 49) return 9000;
  return 1200 + (fx)(((uint32_t)n * 7919u) % 23u) * 150;
}

int race_frame(int frame, int steps_left) {
  fx f = frame_time(frame);
  int n = f > 3 * STEP_UNIT ? f / STEP_UNIT : 1;
  fx dt = f / n;
  I32(POD_FRAME, FRAME_SUM) += f;
  int run = 0;
  for (; run < n && run < steps_left; ++run) {
    int step = I32(POD_FRAME, FRAME_STEP);
    I32(POD_FRAME, FRAME_STEP_DT) = dt;
    if (step < COUNTDOWN_STEPS) {
      for (int i = 0; i < NUM_RACERS; ++i) I32(DRIVER(i), DRV_STUCK) = 0;  /* F130 */
    } else {
      I32(POD_RACE_BLOCK, RACE_PHASE) = 0;  /* "GO!" */
    }
    POD_CALL0(FN_SIM_STEP);
    I32(POD_FRAME, FRAME_STEP) = step + 1;
  }
  return run;
}
