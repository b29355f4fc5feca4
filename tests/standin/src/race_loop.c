/* The race loop at POD's addresses (port/CHOICES.md "The race loop"): one pass of
 * the loop (the rows that touch the simulation), the simulation steps of a pass, the simulation step
 * with the zones and the collision pass, the frame clock on a scripted millisecond clock, and the
 * countdown. Every rule the documents leave open is in the table of choices (port/CHOICES.md, "The
 * race loop"); tests/standin/README.md, "The race loop", says how the stand-in runs it.
 *
 * All of it sits in .pod.code (STANDIN_CODE): none of it moves the C runtime's .text or .rodata. */
#include <stdint.h>

#include "internal.h"
#include "physics/car_params.h"
#include "physics/objects.h"
#include "pod_call.h"

/* ---- race::zones (FUN_00456dd4): the zones (C07: 003's race_zones). Their behaviour is not
 * described (G20) and they changed no car (000): a named seam that does nothing. ---------------- */
__asm__(".pushsection .pod.fn.00456dd4,\"ax\",@progbits\n"
        ".globl pod_00456dd4\n"
        ".type pod_00456dd4,@function\n"
        "pod_00456dd4:\n"
        "        ret\n"
        ".size pod_00456dd4, .-pod_00456dd4\n"
        ".popsection\n");

/* The racers the loops run over: humans then computer cars (A35), as the collision pass counts them. */
STANDIN_INLINE int32_t racer_count(void) { return I32(POD_HUMAN_COUNT, 0) + I32(POD_COMPUTER_COUNT, 0); }

/* ---- the simulation step (FUN_0049a89c) ------------------------------------------------------- */

/* The STEP record; then each racer in turn (F025): the frame time of its car step
 * set back to the step's unscaled time (the catch-up scales it in place for a computer car), its
 * turn (racer_step, 0x49a800: the car step, the upside-down timer, the pose with the wheels' roll),
 * its PHYS record. After all racers (A32): the zones, then the collision pass (C06), with the frame
 * time set back to the unscaled step time first (the last racer's turn may have left a computer
 * car's scaled time there). Then the race's trackers, each racer in turn (paths.c). */
STANDIN_CODE int32_t sim_step(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  POD_CALL0(FN_HOOK_STEP);
  int32_t n = racer_count();
  for (int32_t i = 0; i < n; ++i) {
    I32(POD_FRAME, FRAME_DT) = I32(POD_FRAME, FRAME_STEP_DT);
    POD_CALL2(FN_RACER_STEP, CAR(i), DRIVER(i));
    if (race_trace) race_trace_car(i);
    POD_CALL1(FN_HOOK_PHYS, i);
  }
  POD_CALL0(FN_ZONES);
  I32(POD_FRAME, FRAME_DT) = I32(POD_FRAME, FRAME_STEP_DT);
  POD_CALL0(FN_COLLISIONS);
  /* the race's trackers (003: Race::step after the cars' step): a racer put back this step has its
   * tracker found again, when it had one, and a computer driver its lane target; every other
   * tracker moves along its path */
  for (int32_t i = 0; i < n; ++i) {
    uint32_t driver = DRIVER(i), car = CAR(i);
    if (I32(driver, DRV_PUT_BACK) != 0) {
      I32(driver, DRV_PUT_BACK) = 0;
      if (U32(driver, DRV_TRACK_LINK) != 0) POD_CALL2(FN_PATH_PLACE, driver, car);
      if (U32(driver, DRV_FLAGS) & DRV_FLAG_COMPUTER) POD_CALL1(FN_LANE_TARGET, driver);
    } else {
      POD_CALL2(FN_PATH_TRACK, driver, car);
    }
  }
  return 0;
}

/* ---- race::race_step (FUN_0049e63c): the simulation steps of one pass (F154, F161) ------------- */

/* The frame time F frame_clock measured in the pass before: none while a time trial counts down;
 * else the frame-time sum gains F (so a pass is the run of steps that see one value of the sum), and
 * F runs as one step, or as n = F / U equal steps of F / n when it is longer than three step units. */
STANDIN_CODE int32_t race_step(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  int32_t frame = I32(POD_PASS_FRAME_TIME, 0);
  if (I32(POD_TIME_TRIAL, 0) != 0 && I32(POD_RACE_BLOCK, RACE_PHASE) != 0) return 0;
  I32(POD_FRAME, FRAME_SUM) += frame;
  int32_t unit = I32(POD_STEP_UNIT, 0);
  int32_t n = 1, dt = frame;
  if (frame > 3 * unit) {
    n = frame / unit;
    dt = frame / n;
  }
  for (int32_t k = 0; k < n; ++k) {
    I32(POD_FRAME, FRAME_STEP_DT) = dt;
    POD_CALL0(FN_SIM_STEP);
    I32(POD_FRAME, FRAME_STEP) += 1;
  }
  return 0;
}

/* ---- race::frame_clock (FUN_004ae894): the next pass's frame time (F156, F157) ----------------- */

#define MS_TO_FRAME     65     /* 16.16 s per millisecond, as the game's x 65 (F156) */
#define FRAME_TIME_MAX  30000  /* the clamp's maximum (F157) */
#define FRAME_TIME_MIN  65     /* one millisecond (chosen, G19): no step runs with dt 0 */

/* The milliseconds since its last reading, x 65, clamped; the reading kept for the next call. The
 * clock is timeGetTime through its import slot (the stand-in's is scripted, clock_time_get_time). */
STANDIN_CODE int32_t frame_clock(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  uint32_t now;
  __asm__ volatile("call *%P[slot]" : "=a"(now) : [slot] "i"(POD_TIME_GET_TIME_PTR) : "ecx", "edx", "memory", "cc");
  uint32_t since = now - U32(POD_CLOCK_LAST, 0);
  U32(POD_CLOCK_LAST, 0) = now;
  int32_t frame = (int32_t)(since * MS_TO_FRAME);
  if (frame > FRAME_TIME_MAX) frame = FRAME_TIME_MAX;
  if (frame < FRAME_TIME_MIN) frame = FRAME_TIME_MIN;
  I32(POD_PASS_FRAME_TIME, 0) = frame;
  return 0;
}

/* ---- race::countdown (FUN_0047b98c): the countdown, while the phase is not 0 (F130, F159) ------- */

/* Holds every racer's stuck timer (driver +0x7c) and the race clock at 0, and says "GO!" (phase 0)
 * once the wall clock (frame_clock's last reading, F171) reaches the race block's GO! time. */
STANDIN_CODE int32_t countdown(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  int32_t n = racer_count();
  for (int32_t i = 0; i < n; ++i) I32(DRIVER(i), DRV_STUCK) = 0;
  I32(POD_RACE_CLOCK, 0) = 0;
  if ((int32_t)(U32(POD_CLOCK_LAST, 0) - U32(POD_RACE_BLOCK, RACE_GO_TIME)) >= 0) I32(POD_RACE_BLOCK, RACE_PHASE) = 0;
  return 0;
}

/* ---- race::pass (0x49d5e8, inside FUN_0049d4c0): one pass of the race loop --------------------- */

/* 003's rows that touch the simulation, in its order: 3 the steps with the frame time measured in
 * the pass before, 4 the race clock, 8 the next frame time, 10 the countdown (the HUD's, while the
 * phase is not 0); then the FRAME record. */
STANDIN_CODE int32_t race_pass(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  POD_CALL0(FN_RACE_STEP);
  I32(POD_RACE_CLOCK, 0) += I32(POD_PASS_FRAME_TIME, 0);
  POD_CALL0(FN_FRAME_CLOCK);
  if (I32(POD_RACE_BLOCK, RACE_PHASE) != 0) POD_CALL0(FN_COUNTDOWN);
  POD_CALL0(FN_HOOK_FRAME);
  return 0;
}

/* ---- the scripted millisecond clock (timeGetTime, 0x7f0010 behind [0x4ed72c]) ------------------ */

/* Reading k returns the last reading + d(k) ms, d chosen so that the passes vary and some split:
 * mostly 18..62 ms (one step), every 50th 140 ms (4 steps), every 400th 700 ms (past the clamp: 13
 * steps), and the fourth reading the same millisecond as the third (the clamp's minimum). Its state
 * is guest memory (POD_SCRIPTED_CLOCK), so a follower that runs a pass runs the same clock. */
STANDIN_INLINE uint32_t clock_step_ms(uint32_t k) {
  if (k == 3) return 0;
  if (k % 400 == 200) return 700;
  if (k % 50 == 49) return 140;
  return 18 + 2 * ((k * 7919u) % 23u);
}

STANDIN_CODE int32_t clock_time_get_time(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  uint32_t k = U32(POD_SCRIPTED_CLOCK, 4);
  uint32_t now = U32(POD_SCRIPTED_CLOCK, 0) + clock_step_ms(k);
  U32(POD_SCRIPTED_CLOCK, 0) = now;
  U32(POD_SCRIPTED_CLOCK, 4) = k + 1;
  return (int32_t)now;
}

/* ---- the loop's set-up -------------------------------------------------------------------------- */

#define STEP_UNIT       0x888   /* 1/30 s (chosen, G19) */
#define CLOCK_START_MS  0x10000 /* the scripted clock's first value (chosen) */
#define COUNTDOWN_MS    1000    /* from the loop's first frame to "GO!" (chosen, G19) */

/* What POD's race set-up leaves for the loop (chosen where the documents are silent): the step
 * unit, no time trial, the race clock at 0, the countdown's phase 1; frame_clock's last reading at
 * the clock's start (POD's set-up and its settling read the clock before the loop); then the loop's
 * first measurement of a frame (003: FUN_0049d4c0 "measures one frame" before it loops) and the
 * countdown's "GO!" time from it. */
STANDIN_CODE void race_loop_setup(void) {
  I32(POD_STEP_UNIT, 0) = STEP_UNIT;
  I32(POD_TIME_TRIAL, 0) = race_staged == RACE_TIME_TRIAL;
  I32(POD_RACE_CLOCK, 0) = 0;
  I32(POD_RACE_BLOCK, RACE_PHASE) = 1;
  U32(POD_SCRIPTED_CLOCK, 0) = CLOCK_START_MS;
  U32(POD_SCRIPTED_CLOCK, 4) = 0;
  U32(POD_CLOCK_LAST, 0) = CLOCK_START_MS;
  POD_CALL0(FN_FRAME_CLOCK);
  U32(POD_RACE_BLOCK, RACE_GO_TIME) = U32(POD_CLOCK_LAST, 0) + COUNTDOWN_MS;
}
