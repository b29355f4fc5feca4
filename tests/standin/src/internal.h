/* Declarations shared by the stand-in's own sources (not the physics'). */
#ifndef STANDIN_INTERNAL_H
#define STANDIN_INTERNAL_H

#include <stdint.h>

#include "standin.h"

/* tables.c: builds the three tables and sets [0x4ed42c], [0x4ed434] (F012-F014). */
void tables_build(void);
/* selftest.c: prints the arithmetic layer's results on n deterministic inputs (tests compare them
 * with port/CHOICES.md's formulas). */
void arith_selftest(int n);

/* track.c: lays out the track in POD's in-memory layout (port/CHOICES.md "Track"). */
void track_build(void);
/* Geometry the controllers steer by. */
#define TRACK_RADIUS (120 * FX_ONE)
#define TRACK_HALF_WIDTH (8 * FX_ONE)


/* race.c */
extern int race_trace;
/* Which race the run stages (--race): the race of tests/standin/README.md, the same with damage mode 2
 * and the damage veto held for two windows of steps, or the time trial. */
typedef enum race_kind { RACE_STANDARD, RACE_DAMAGE_VETO, RACE_TIME_TRIAL } race_kind;
extern race_kind race_staged;
/* The race's set-up: drivers, cars, objects, beacons, props, damage, the loop's clock. */
void race_setup(void);
/* --trace: one line for this racer's car on stderr. */
void race_trace_car(int racer);

/* race_loop.c: the words the race loop starts from, and its first frame_clock (003). */
void race_loop_setup(void);

/* steplog.c: the step log and the run's stops. */
typedef struct steplog_options {
  const char *path;   /* the step log (NULL: none) */
  int pause_at;       /* SIGSTOP at this step's STEP record (-1: never) */
  int pause_at_pass;  /* SIGSTOP at the start of this pass (-1: never) */
  int step_limit;     /* the run ends at the entry of this step (-1: no limit) */
} steplog_options;
int steplog_open(const steplog_options *options);
/* Called by the race loop at the start of each pass, before its row 3 (--pause-at-pass). */
void steplog_pass_start(int pass);
/* Ends the run: the log closed, the count of steps on stderr. */
void steplog_finish(void);

/* The car's set-up: in src/physics/ (a weak placeholder in placeholders.c). On entry the car record is
 * zero but for +0x448 bit 2 for an automatic car. It sets everything the car step reads and puts the
 * car on its grid slot (setup::grid_slot 0x4236f0) from the start record at `start` (F141). */
void physics_car_setup(uint32_t car, uint32_t driver, int racer, uint32_t start);

#endif
