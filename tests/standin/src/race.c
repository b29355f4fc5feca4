/* The race: eight cars on the grid, their scripted controllers, the props and the race's set-up
 * (port/CHOICES.md, "Race, controls and frame time"; tests/standin/README.md, "The race"). The loop
 * that runs it is race_loop.c's. */
#include <stdint.h>
#include <string.h>

#include <stdio.h>

#include "internal.h"
#include "physics/car_params.h"
#include "physics/objects.h"
#include "pod_call.h"
#include "standin_math.h"

int race_trace;  /* --trace: a line per car and step on stderr (for tuning the track) */
race_kind race_staged = RACE_STANDARD;

#define AUTOMATIC_RACER 3        /* the one car with the automatic gearbox */
#define UNTRACKED_RACER 7        /* the one car with no drawn object and no race tracker */
#define DROPPED_RACER 0          /* the one car that starts in the air (see grid_record, stage_after_settling) */
#define DROP_HEIGHT (14 * FX_ONE)
#define ROOF_RACER 7             /* the one car that starts on its roof (see grid_record, stage_after_settling) */
#define ROOF_HEIGHT (3 * FX_ONE)
#define TOUCHING_ROW 2           /* racers 4 and 5 start side by side, touching (see grid_record, stage_after_settling) */
#define BIT3_RACER 6             /* the one driver flagged bit 3 only: neither human nor computer car */
#define CATCHUP_BASE 3000        /* [0x4f9848]: the middle difficulty's base (F127) */
#define STEP_UNIT_SETUP 0x888    /* [0x60bdfc], as race_loop_setup sets it again: 1/30 s (chosen, G19) */

/* The damage race's veto windows (steps [from, to)): [0x633314] held at 1 by the human's controller,
 * so contacts and wall impacts there do no damage (F098); the first holds the grid's touching pair's
 * first contacts, the second part of the pile-up. */
static const int veto_windows[2][2] = {{0, 40}, {290, 320}};
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
  /* once in the race, from ring `from` to ring `to` (0..47 round the loop, after step `after`), the
   * car takes lane `lane` (and steers by `swerve` on top, 16.16 of full lock): the manoeuvres that
   * take the track's features (walls, the bay, the gap, the bank, the ice) */
  int from, to, after;
  fx lane, swerve;
  /* from this step (0: never), for SHIFT_BURST_STEPS steps, the car asks for the next gear at every
   * step whatever its engine speed: it reaches top gear and asks on (drive::gears' "no gear above"),
   * then, slow in top gear, the engine-speed rule asks down and the gearbox skips the gears the
   * engine would stall in (F047) */
  int shift_burst;
} script;

#define SHIFT_BURST_STEPS 45

static const script scripts[NUM_RACERS] = {
    {-4 * FX_ONE, 30 * FX_ONE, 150, 165, {25, 60, 110, 170}, {240, 330}, 8, 10, 0, 16 * FX_ONE, 0, 120},
    {4 * FX_ONE, 28 * FX_ONE, 180, 190, {30, 70, 120, 200}, {260, 340}, 9, 11, 300, 22 * FX_ONE, 0, 0},
    {-3 * FX_ONE, 26 * FX_ONE, 210, 230, {28, 64, 118, 190}, {250, 360}, 9, 11, 0, 22 * FX_ONE, 0, 0},
    {3 * FX_ONE, 22 * FX_ONE, 120, 128, {0, 0, 0, 0}, {200, 0}, 8, 11, 0, 8 * FX_ONE, 0, 0},  /* the automatic car */
    {-5 * FX_ONE, 32 * FX_ONE, 260, 275, {24, 58, 100, 160}, {300, 380}, 8, 10, 0, 14 * FX_ONE, 0, 0},
    {5 * FX_ONE, 24 * FX_ONE, 90, 96, {35, 80, 140, 220}, {230, 320}, 8, 10, 0, 22 * FX_ONE, 0, 0},
    {-2 * FX_ONE, 29 * FX_ONE, 300, 310, {26, 66, 112, 180}, {270, 350}, 5, 7, 0, 13 * FX_ONE, -0x4000, 0},
    {2 * FX_ONE, 31 * FX_ONE, 60, 70, {22, 55, 98, 150}, {280, 370}, 5, 7, 0, 16 * FX_ONE, 0, 0},
};

/* The driver's own words the stand-in's controllers keep (chosen, beyond 000's fields). */
#define DRV_RING     0x4c  /* i32: the ring (0..47) nearest the car, last step */
#define DRV_DONE     0x50  /* i32: 1 once the racer's manoeuvre is over (it ran its rings once) */
#define DRV_RECOVER  0x54  /* i32: 1 after reversing, until the car is in first gear again */

/* The ring nearest the car: the largest dot product with the 48 rings' directions. */
static fx ring_dirs[48][2];

static int ring_of(const vec3 *p) {
  int best = 0;
  int64_t best_d = INT64_MIN;
  for (int g = 0; g < 48; ++g) {
    int64_t d = (int64_t)p->x * ring_dirs[g][0] + (int64_t)p->y * ring_dirs[g][1];
    if (d > best_d) best_d = d, best = g;
  }
  return best;
}

static fx clamp(fx v, fx lo, fx hi) { return v < lo ? lo : v > hi ? hi : v; }

static void drive_by_script(uint32_t driver, uint32_t car) {
  int racer = I32(driver, DRV_RACER), step = I32(POD_FRAME, FRAME_STEP);
  const script *sc = &scripts[racer];
  const vec3 *p = VEC(car, CAR_BODY_CENTRE), *fwd = VEC(car, CAR_FORWARD), *vel = VEC(car, CAR_VELOCITY);

  /* the manoeuvre: its rings once, then the racer's own lane again */
  int ring = ring_of(p), was = I32(driver, DRV_RING);
  I32(driver, DRV_RING) = ring;
  int in_manoeuvre = 0;
  if (sc->to > sc->from && !I32(driver, DRV_DONE) && step >= sc->after) {
    if (ring >= sc->from && ring < sc->to) in_manoeuvre = 1;
    else if (was >= sc->from && was < sc->to && ring >= sc->to) I32(driver, DRV_DONE) = 1;
  }
  fx lane = in_manoeuvre ? sc->lane : sc->lane_offset;

  /* steering: towards the lane (lateral error) and along the ring (heading), positive = left */
  vec3 flat = {p->x, p->y, 0};
  fx r = POD_CALL1(FN_LENGTH16, ADDR(&flat));
  vec3 radial = {r ? div16(p->x, r) : FX_ONE, r ? div16(p->y, r) : 0, 0};
  fx lateral = r - (TRACK_RADIUS + lane);                        /* + too far out */
  fx heading = POD_CALL2(FN_DOT16, ADDR(fwd), ADDR(&radial));    /* + heading outward */
  fx steer = clamp(mul16(lateral, 0x1999) + mul16(heading, 3 * FX_ONE) + 0x2000, -FX_ONE, FX_ONE);
  if (in_manoeuvre) steer = clamp(steer + sc->swerve, -FX_ONE, FX_ONE);

  /* throttle to the cruising speed, brakes in the script's window */
  fx speed = POD_CALL1(FN_LENGTH16, ADDR(vel));
  int braking = step >= sc->brake_from && step < sc->brake_to;
  fx throttle = braking ? 0 : speed < sc->cruise ? FX_ONE : speed < sc->cruise + 2 * FX_ONE ? FX_ONE / 4 : 0;
  if ((steer > FX_ONE / 2 || steer < -FX_ONE / 2) && !in_manoeuvre && speed > 5 * FX_ONE)
    throttle = 0;  /* lift off in a hard turn at speed */
  if (in_manoeuvre) throttle = FX_ONE;
  if (I32(POD_RACE_BLOCK, RACE_PHASE) != 0 && (racer & 1)) throttle = FX_ONE / 2;  /* revving on the grid */
  fx brake = braking ? (step & 1 ? FX_ONE : 0xc000) : 0;

  /* a stuck computer car (step::stuck set driver +0x7c negative): reverse, counting it back up to 0
   * (F129, the controller's half), the steering turned the other way; then first gear again */
  int gear = I8(car, CAR_GEAR);
  int32_t stuck = I32(driver, DRV_STUCK);
  int reversing = 0;
  if (stuck < 0) {
    stuck += I32(POD_FRAME, FRAME_DT);
    I32(driver, DRV_STUCK) = stuck < 0 ? stuck : 0;
    I32(driver, DRV_RECOVER) = 1;
    I32(driver, DRV_DONE) = 1;
    reversing = 1;
    throttle = FX_ONE, brake = 0, steer = -steer;
  }

  uint32_t bits = 0;
  if (reversing && !(step & 1)) bits |= IN_GEAR_DOWN;  /* down to reverse, and on asking */
  if (!reversing && I32(driver, DRV_RECOVER)) {
    if (gear < 1) {
      if (!(step & 1)) bits |= IN_GEAR_UP;
    } else {
      I32(driver, DRV_RECOVER) = 0;
    }
  }
  /* full throttle and full brake as keys (the bits); part amounts only as analog values (+0x44,
   * +0x48), as a joystick gives them */
  if (throttle >= FX_ONE) bits |= IN_THROTTLE;
  if (brake >= FX_ONE) bits |= IN_BRAKE;
  if (steer > FX_ONE / 4) bits |= IN_LEFT;
  if (steer < -FX_ONE / 4) bits |= IN_RIGHT;
  int bursting = sc->shift_burst && step >= sc->shift_burst && step < sc->shift_burst + SHIFT_BURST_STEPS;
  if (bursting) bits |= IN_GEAR_UP;
  if (!reversing && !I32(driver, DRV_RECOVER) && !bursting) {
    /* the first gear at the script's first step, then by the engine speed: up above 750 rad/s,
     * down below 300 (the script's down steps ask once more) */
    int32_t engine = I32(car, CAR_ENGINE_SPEED);
    if (sc->gear_up[0] && ((gear == 0 && step >= sc->gear_up[0]) || (gear > 0 && engine > 750 * FX_ONE)))
      bits |= IN_GEAR_UP;
    else if (sc->gear_up[0] && gear > 1 && engine < 300 * FX_ONE)
      bits |= IN_GEAR_DOWN;
    for (int k = 0; k < 2; ++k)
      if (sc->gear_down[k] && step == sc->gear_down[k]) bits |= IN_GEAR_DOWN;
  }

  U32(driver, DRV_INPUT) = bits;
  I32(driver, DRV_STEER) = steer;
  I32(driver, DRV_THROTTLE) = throttle;
  I32(driver, DRV_BRAKE) = brake;
}

/* controller::human (0x422000) and controller::computer (0x4221d8): eax = driver, edx = car. */
int32_t controller_human(uint32_t driver, uint32_t car, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  drive_by_script(driver, car);
  /* The damage race: the veto word's writer is not described (G15), so the stand-in's human
   * controller, the one scripted part of a step, holds it for the windows (the step log's CTRL
   * records carry it, so a follower lays it as the controller's output). */
  if (race_staged == RACE_DAMAGE_VETO && (U32(driver, DRV_FLAGS) & DRV_FLAG_HUMAN)) {
    int step = I32(POD_FRAME, FRAME_STEP), veto = 0;
    for (int w = 0; w < 2; ++w) veto |= step >= veto_windows[w][0] && step < veto_windows[w][1];
    I32(POD_DAMAGE_VETO, 0) = veto;
  }
  return 0;
}

int32_t controller_computer(uint32_t driver, uint32_t car, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  drive_by_script(driver, car);
  /* computer drivers write the car's controller word (000: +0x4ec "written by the controller") */
  I32(car, CAR_CONTROLLER_WORD) = I32(driver, DRV_STEER);
  return 0;
}

/* The props (physics/props.c: the environment's bytes and props::build), where a branch has them. */
extern void props_setup(void) __attribute__((weak));

/* ---- the grid ----------------------------------------------------------------------------------- */

/* Two rows of four... of two: racer i in row i / 2, inner (even) or outer (odd) lane, facing along
 * the loop (counter-clockwise). Each racer's start record (F141: the ground point, then the heading;
 * the rest 0), which setup::grid_slot (0x4236f0) puts the car on before the settling. */
static uint8_t start_records[NUM_RACERS][GRID_RECORD_SIZE];

static uint32_t grid_record(int racer) {
  fx angle = 6554 - (racer / 2) * 4588;  /* 0.1 rad at the front row, 0.07 rad (8.4 units) per row */
  /* the third row's two cars stand 2.2 apart, their sides overlapping by 0.2: the collision pass
   * pushes them apart from the first step (a contact at the start; the settling runs no collision pass) */
  fx side = racer / 2 == TOUCHING_ROW ? 0x11999 : 4 * FX_ONE;
  fx radius = TRACK_RADIUS + ((racer & 1) ? side : -side);
  fx c = POD_CALL1(FN_COS16, angle), s = POD_CALL1(FN_SIN16, angle);
  uint32_t rec = ADDR(start_records[racer]);
  *VEC(rec, GRID_POSITION) = (vec3){mul16(radius, c), mul16(radius, s), 0};
  *VEC(rec, GRID_HEADING) = (vec3){-s, c, 0};  /* the loop's direction */
  return rec;
}

/* After the settling, two cars are staged for the race (the track's tests, not a grid's): the dropped
 * car lifted 14 above its settled place, above every sector's bounds (the highest vertex + 10, F131),
 * its points' sectors cleared, so none has a sector until the track pass's search of every sector
 * finds one as it falls (F070: the pass's and the walls' paths for points with no sector); the roof
 * car turned over about its forward axis and lifted 3: it falls onto its roof (the upside-down timer,
 * F081) and is put back after 2.5 s, however the race's cars meet. */
static void stage_after_settling(void) {
  uint32_t drop = CAR(DROPPED_RACER), roof = CAR(ROOF_RACER);
  VEC(drop, CAR_BODY_CENTRE)->z += DROP_HEIGHT;
  POD_CALL1(FN_PLACE_POINTS, drop);
  for (int i = 0; i < NUM_POINTS; ++i) {
    U32(drop + CAR_POINT(i), PT_SECTOR) = 0;
    U32(drop + CAR_POINT(i), PT_LAST_SECTOR) = 0;
  }
  VEC(roof, CAR_BODY_CENTRE)->z += ROOF_HEIGHT;
  vec3 *left = VEC(roof, CAR_LEFT), *up = VEC(roof, CAR_UP);
  *left = (vec3){-left->x, -left->y, -left->z};
  *up = (vec3){-up->x, -up->y, -up->z};
  POD_CALL1(FN_PLACE_POINTS, roof);
}

/* The beacons (race block +0x620, chosen): 12, every 30 degrees round the ring, each a vertical
 * plane across the road facing along the loop. */
static void beacons_setup(void) {
  const int n = 12;
  I32(POD_RACE_BLOCK, RACE_BEACON_COUNT) = n;
  for (int k = 0; k < n; ++k) {
    fx a = (fx)((int64_t)411774 * k / n), c = POD_CALL1(FN_COS16, a), s = POD_CALL1(FN_SIN16, a);
    uint32_t b = POD_RACE_BLOCK + RACE_BEACONS + (uint32_t)k * BEACON_SIZE;
    *VEC(b, 0) = (vec3){mul16(TRACK_RADIUS, c), mul16(TRACK_RADIUS, s), 0};
    *VEC(b, 12) = (vec3){-s, c, 0};
  }
}

/* The drawn objects (003: 0x61a6d0 + 0x80 racer; the driver's +4): no parts in the stand-in, the
 * whole car's hull (A01: a pointer at +0x44) inside the object at +0x10 (chosen): half sizes 2.0,
 * 1.2, 0.6, radius sqrt(x^2 + y^2) (F148), centre 0. Racer 7 has none (a car without a drawn
 * object, as a network car might be): the pose has nothing to place for it, and the race keeps no
 * tracker for it either (its put-back heads as the car faced, its catch-up goes straight). */
static void objects_setup(void) {
  for (int i = 0; i < NUM_RACERS; ++i) {
    if (i == UNTRACKED_RACER) continue;
    uint32_t obj = POD_OBJECTS + (uint32_t)i * OBJECT_SIZE, hull = obj + 0x10;
    memset(PTR(obj), 0, OBJECT_SIZE);
    *VEC(hull, 0) = (vec3){0x20000, 0x13333, 0x9999};
    vec3 flat = {0x20000, 0x13333, 0};
    I32(hull, 0xc) = POD_CALL1(FN_LENGTH16, ADDR(&flat));
    U32(obj, OBJECT_HULL) = hull;
    U32(DRIVER(i), DRV_OBJECT) = obj;
  }
}

static int sector_number(uint32_t point) {
  uint32_t s = U32(point, PT_SECTOR);
  return s ? (int)((s - U32(POD_SECTOR_TABLE, 0)) / SECTOR_SIZE) : -1;
}

static int link_number(uint32_t link) {
  for (int32_t l = 0; l < I32(POD_PATH_LINKS, 0); ++l)
    if (U32(POD_PATH_LINKS, 4u + 4u * (uint32_t)l) == link) return l;
  return -1;
}

void race_trace_car(int racer) {
  uint32_t car = CAR(racer), driver = DRIVER(racer);
  const vec3 *p = VEC(car, CAR_BODY_CENTRE);
  int down = 0, skid = 0, slide = 0;
  for (int i = 0; i < 4; ++i) {
    down += U8(car, CAR_POINT(i) + PT_TOUCHING) != 0;
    skid += U8(car, CAR_POINT(i) + PT_SKIDDING) != 0;
    slide += U8(car, CAR_POINT(i) + PT_SLIDING) != 0;
  }
  int walls = 0;
  for (int i = 0; i < 5; ++i) walls += I32(car, CAR_POINT(i) + PT_WALL_DEPTH) > 0;
  vec3 flat = {p->x, p->y, 0};
  fprintf(stderr, "%d %d ring %d r %.2f z %.2f v %.2f down %d skid %d slide %d walls %d upz %.2f ud %08x stuck %.2f gear %d beac %d w0q %d w0s %d secs %d,%d,%d,%d,%d trk %d,%d xy %.3f,%.3f\n",
          I32(POD_FRAME, FRAME_STEP), racer, I32(driver, DRV_RING), POD_CALL1(FN_LENGTH16, ADDR(&flat)) / 65536.0,
          p->z / 65536.0, POD_CALL1(FN_LENGTH16, car + CAR_VELOCITY) / 65536.0, down, skid, slide, walls,
          I32(car, CAR_UP + 8) / 65536.0, U32(car, CAR_UPSIDE_DOWN), I32(driver, DRV_STUCK) / 65536.0,
          I8(car, CAR_GEAR), I32(POD_RACE_BLOCK, RACE_RECORDS + RACE_RECORD_SIZE * racer + REC_BEACONS_PASSED),
          U8(car, PT_FACE_QUAD), sector_number(car + CAR_POINT(0)), sector_number(car + CAR_POINT(0)),
          sector_number(car + CAR_POINT(1)), sector_number(car + CAR_POINT(2)), sector_number(car + CAR_POINT(3)),
          sector_number(car + CAR_POINT(4)), link_number(U32(driver, DRV_TRACK_LINK)), I32(driver, DRV_TRACK_POINT), p->x / 65536.0,
          p->y / 65536.0);
}

void race_setup(void) {
  for (int g = 0; g < 48; ++g) {
    fx a = (fx)((int64_t)411774 * g / 48);
    ring_dirs[g][0] = POD_CALL1(FN_COS16, a);
    ring_dirs[g][1] = POD_CALL1(FN_SIN16, a);
  }
  beacons_setup();
  objects_setup();
  I32(POD_HUMAN_COUNT, 0) = 1;
  I32(POD_COMPUTER_COUNT, 0) = NUM_RACERS - 1;
  I32(POD_EXTRA_COUNT, 0) = 0;
  I32(POD_RACE_BLOCK, RACE_RACERS) = NUM_RACERS;
  /* the catch-up's target comes through the function at [0x4f984c] (A07 read as a code pointer) */
  U32(POD_CATCHUP_TARGET, 0) = FN_CATCH_UP_TARGET;
  for (int i = 0; i < NUM_RACERS; ++i) {
    uint32_t driver = DRIVER(i), car = CAR(i);
    uint32_t obj = U32(driver, DRV_OBJECT);
    memset(PTR(driver), 0, DRIVER_SIZE);
    memset(PTR(car), 0, CAR_SIZE);
    U32(driver, DRV_OBJECT) = obj;
    I32(driver, DRV_RACER) = i;
    /* the bit-3 driver's controller (FUN_004b8b48) is not described: the stand-in scripts it with
     * the human's (which writes no +0x4ec) */
    U32(driver, DRV_CONTROLLER) = i == 0 || i == BIT3_RACER ? FN_HUMAN_CONTROLLER : FN_COMPUTER_CONTROLLER;
    U32(driver, DRV_CAR) = car;
    I32(driver, DRV_FLAGS) = i == 0 ? DRV_FLAG_HUMAN : i == BIT3_RACER ? DRV_FLAG_BIT3 : DRV_FLAG_COMPUTER;
    U32(driver, DRV_CATCHUP) = POD_CATCHUP_RECORDS + (uint32_t)i * CATCHUP_RECORD_SIZE;
    if (i == AUTOMATIC_RACER) U8(car, CAR_FLAGS) |= CAR_AUTOMATIC;
    physics_car_setup(car, driver, i, grid_record(i));
  }
  /* The settling (0x49b9d4, F142): two seconds of the cars' physics on the grid, with the step unit
   * set and the countdown's phase 1 already (so the car step holds the brakes, F027; 003 names the
   * phase after the settling: chosen, or the scripted controllers would drive off the grid), the
   * damage off and the catch-up's base 0 until the countdown's set-up below. */
  I32(POD_STEP_UNIT, 0) = STEP_UNIT_SETUP;
  I32(POD_RACE_BLOCK, RACE_PHASE) = 1;
  I32(POD_DAMAGE_OPTION, 0) = 0;
  I32(POD_CATCHUP_BASE, 0) = 0;
  POD_CALL0(FN_SETTLE);
  stage_after_settling();
  for (int i = 0; i < NUM_RACERS; ++i) {
    uint32_t driver = DRIVER(i), car = CAR(i);
    /* the race tracker on the path point nearest the car (002: placed after the settling), for a
     * racer with a drawn object */
    if (U32(driver, DRV_OBJECT)) POD_CALL2(FN_PATH_PLACE, driver, car);
    I32(driver, DRV_RING) = ring_of(VEC(car, CAR_BODY_CENTRE));
    /* the first beacon ahead: beacon 0 lies at angle 0, so a car past it (y > 0) waits for beacon 1;
     * but the dropped car, past it too, waits for beacon 0, as a car put back beyond its next beacon
     * would: the beacon test's "already in front of it" path (its lap counts from the far side) */
    I32(POD_RACE_BLOCK, RACE_RECORDS + RACE_RECORD_SIZE * (uint32_t)i + REC_NEXT_BEACON) =
        VEC(car, CAR_BODY_CENTRE)->y > 0 && i != DROPPED_RACER ? 1 : 0;
  }
  /* damage on for the race, all six parts (chosen: the menus' option 1, A31); the damage race's
   * mode 2 (the contact's parts) with the veto off until the human's controller holds it */
  I32(POD_DAMAGE_OPTION, 0) = race_staged == RACE_DAMAGE_VETO ? 2 : 1;
  I32(POD_DAMAGE_VETO, 0) = 0;
  /* the catch-up's base, as the countdown leaves it for the middle difficulty (F127) */
  I32(POD_CATCHUP_BASE, 0) = CATCHUP_BASE;
  /* the props, laid where the race's cars run into them */
  if (props_setup) props_setup();
  race_loop_setup();
}
