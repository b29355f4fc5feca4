/* The step log (capture/docs/state-log.md): STEP at the entry of the simulation step, CTRL in the car
 * step right after the controller returns, PHYS after the car step returns (port/CHOICES.md "Step log"), and
 * FRAME at the end of each pass of the race loop. The hooks sit at 0x74c240 /
 * 0x74c250 / 0x74c260 / 0x74c270 (000's code cave) and preserve every register. The run's stops
 * live here too: the pauses (--pause-at, --pause-at-pass) and the end after --steps steps. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "physics/objects.h"

/* Version 1: its FRAME records carry the pass number in the instance field. lockstep reads it as
 * well as version 2 (the recorder's), and the checked-in corpora name this log by its SHA-256, so a
 * fresh recording must write these very bytes. */
#define LOG_VERSION 1
#define LOG_HEADER_SIZE 32
#define MAX_BLOCKS 128

static FILE *log_file;
static steplog_options options = {NULL, -1, -1, -1};
static int passes_logged;  /* FRAME records so far: the next one's pass number */

typedef struct block { uint32_t address, size; } block;

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32). */
static uint32_t crc_table[256];
static void crc_init(void) {
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}
static uint32_t crc_update(uint32_t crc, const void *data, uint32_t n) {
  const uint8_t *p = data;
  crc = ~crc;
  while (n--) crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

static void put(const void *data, uint32_t n, uint32_t *crc) {
  if (fwrite(data, 1, n, log_file) != n) {
    fprintf(stderr, "standin: writing the step log failed\n");
    exit(4);
  }
  *crc = crc_update(*crc, data, n);
}

static void write_record(const char tag[4], int32_t step, int32_t racer, const block *blocks, uint32_t count) {
  if (!log_file) return;
  uint32_t payload = 0;
  for (uint32_t i = 0; i < count; ++i) payload += 8 + blocks[i].size;
  uint32_t header[5];
  memcpy(&header[0], tag, 4);
  header[1] = (uint32_t)step;
  header[2] = (uint32_t)racer;
  header[3] = count;
  header[4] = payload;
  uint32_t crc = 0;
  put(header, sizeof header, &crc);
  for (uint32_t i = 0; i < count; ++i) {
    put(&blocks[i], 8, &crc);
    put(PTR(blocks[i].address), blocks[i].size, &crc);
  }
  uint32_t stored = crc;
  put(&stored, 4, &crc);
}

/* CTRL and PHYS: that car, its driver, the frame-time block, the race block, the chassis search's
 * counter (000's five blocks); then, for a racer with a drawn object, its six body parts (set 0), which
 * the car step's damage (F099, on in this race) reads and writes: their health decides when a part
 * breaks and hurts the car's wheels, so a follower needs them as they were at that step; last the
 * damage veto [0x633314], which the damage race's human controller holds for its windows (a follower
 * of a car step needs it as the controller left it). */
static void car_record(const char tag[4], int32_t racer) {
  block b[7] = {
      {CAR(racer), CAR_SIZE},
      {DRIVER(racer), DRIVER_SIZE},
      {POD_FRAME, FRAME_SIZE},
      {POD_RACE_BLOCK, POD_RACE_BLOCK_END - POD_RACE_BLOCK},
      {POD_CHASSIS_COUNTER, 4},
      {POD_PARTS + PARTS_PER_RACER * (uint32_t)racer * PART_SIZE, NUM_BODY_PARTS * PART_SIZE},
      {POD_DAMAGE_VETO, 4},
  };
  uint32_t count = 7;
  if (!U32(POD_OBJECTS + (uint32_t)racer * OBJECT_SIZE, OBJECT_PART_LIST)) b[5] = b[6], count = 6;
  write_record(tag, I32(POD_FRAME, FRAME_STEP), racer, b, count);
}

int32_t steplog_hook_step(uint32_t eax) {
  (void)eax;
  int32_t step = I32(POD_FRAME, FRAME_STEP);
  uint32_t sectors = (uint32_t)I32(POD_SECTOR_COUNT, 0);
  block b[MAX_BLOCKS] = {
      {POD_FRAME, FRAME_SIZE},
      {POD_HUMAN_COUNT, 12},                       /* racer counts */
      {POD_RACE_BLOCK, POD_RACE_BLOCK_END - POD_RACE_BLOCK},
      {POD_SECTOR_COUNT, 8},                       /* count and pointer */
      {U32(POD_SECTOR_TABLE, 0), sectors * SECTOR_SIZE},
      {POD_CARS, NUM_RACERS * CAR_SIZE},
      {POD_DRIVERS, NUM_RACERS * DRIVER_SIZE},
      {POD_CHASSIS_COUNTER, 4},
      {POD_SURFACES, NUM_SURFACES * SURFACE_SIZE},
      {POD_DAMAGE_VETO, 4},
  };
  if (step == options.step_limit) {
    /* --steps: the run ends at the entry of this step, after `step` whole steps */
    steplog_finish();
    exit(0);
  }
  write_record("STEP", step, -1, b, 10);
  if (step == options.pause_at) {
    /* --pause-at: stop here, at the entry of the simulation step, with the record on disk */
    if (log_file) fflush(log_file);
    fprintf(stderr, "standin: paused at step %d (pid %d); continue with kill -CONT\n", step, (int)getpid());
    kill(getpid(), SIGSTOP);
  }
  return 0;
}

int32_t steplog_hook_ctrl(uint32_t racer) {
  car_record("CTRL", (int32_t)racer);
  return 0;
}

int32_t steplog_hook_phys(uint32_t racer) {
  car_record("PHYS", (int32_t)racer);
  return 0;
}

/* FRAME: everything the race loop's pass writes, and what it reads that changes from pass to pass,
 * so that a follower can lay record n over a snapshot, run pass n + 1 and compare record n + 1
 * (tests/standin/README.md, "The FRAME record"; the list is the table of choices'). Left out: the
 * smoke ring (0x5b0000: rand()'s draws, which reach no car, F169), and what no pass writes (the track,
 * the surfaces, the prop types and hulls, the part hulls, vertices, chains and lists, the options). */
static uint32_t frame_blocks(block *b) {
  uint32_t n = 0;
  b[n++] = (block){POD_FRAME, FRAME_SIZE};
  b[n++] = (block){POD_HUMAN_COUNT, 16};  /* the racer counts and the time-trial word */
  b[n++] = (block){POD_RACE_BLOCK, POD_RACE_BLOCK_END - POD_RACE_BLOCK};
  b[n++] = (block){POD_CHASSIS_COUNTER, 4};
  b[n++] = (block){POD_STEP_FORCES, 0x48};
  b[n++] = (block){POD_CHASSIS_MOVE, 0x18};
  b[n++] = (block){POD_CAR_CONTACT, 0x2c};
  b[n++] = (block){POD_RACE_CLOCK, 4};
  b[n++] = (block){POD_STEP_UNIT, 4};
  b[n++] = (block){POD_PASS_FRAME_TIME, 8};  /* the frame time and frame_clock's last reading */
  b[n++] = (block){POD_SCRIPTED_CLOCK, 8};
  b[n++] = (block){POD_OBJECTS, NUM_RACERS * OBJECT_SIZE};
  b[n++] = (block){POD_DRIVERS, NUM_RACERS * DRIVER_SIZE};
  b[n++] = (block){POD_CARS, NUM_RACERS * CAR_SIZE};
  /* the parts the objects list (body set 0 and the wheels): the damage's and to_template's */
  for (uint32_t r = 0; r < NUM_RACERS; ++r) {
    uint32_t object = POD_OBJECTS + r * OBJECT_SIZE;
    if (!U32(object, OBJECT_PART_LIST)) continue;
    uint32_t first = POD_PARTS + PARTS_PER_RACER * r * PART_SIZE;
    b[n++] = (block){first, NUM_BODY_PARTS * PART_SIZE};
    b[n++] = (block){first + (PARTS_PER_RACER - 4) * PART_SIZE, 4 * PART_SIZE};
  }
  b[n++] = (block){POD_DAMAGE_RECORDS, NUM_RACERS * DAMAGE_RECORD_SIZE};
  b[n++] = (block){POD_DAMAGE_VETO, 4};
  /* the props: count, list, hit flags, the heap word and the hull test's two objects; the records
   * in the list; each listed record's contact points */
  b[n++] = (block){POD_PROP_COUNT, POD_PROPS_END - POD_PROP_COUNT};
  int32_t props = I32(POD_PROP_COUNT, 0);
  uint32_t list = U32(POD_PROP_LIST, 0);
  if (list && props > 0 && props <= MAX_PROPS) {
    b[n++] = (block){list, (uint32_t)props * PROP_SIZE};
    for (int32_t i = 0; i < props; ++i) {
      uint32_t rec = list + (uint32_t)i * PROP_SIZE;
      int32_t points = I32(rec, PROP_POINT_COUNT);
      if (U32(rec, PROP_POINTS) && points > 0 && points <= MAX_PROP_POINTS)
        b[n++] = (block){U32(rec, PROP_POINTS), (uint32_t)points * PROP_POINT_SIZE};
    }
  }
  return n;
}

int32_t steplog_hook_frame(uint32_t eax) {
  (void)eax;
  int pass = passes_logged++;
  block b[MAX_BLOCKS];
  write_record("FRAM", I32(POD_FRAME, FRAME_STEP), pass, b, frame_blocks(b));
  return 0;
}

void steplog_pass_start(int pass) {
  if (pass != options.pause_at_pass) return;
  /* --pause-at-pass: stop at the start of this pass, before its row 3, with every record before it
   * on disk; a live snapshot taken then holds the previous FRAME record's state */
  if (log_file) fflush(log_file);
  fprintf(stderr, "standin: paused at pass %d (pid %d); continue with kill -CONT\n", pass, (int)getpid());
  kill(getpid(), SIGSTOP);
}

void steplog_finish(void) {
  if (log_file) fclose(log_file);
  log_file = NULL;
  fprintf(stderr, "standin: %d steps\n", I32(POD_FRAME, FRAME_STEP));
}

int steplog_open(const steplog_options *opened) {
  crc_init();
  options = *opened;
  const char *path = options.path;
  if (!path) return 0;
  log_file = fopen(path, "wb");
  if (!log_file) return -1;
  static char buffer[1 << 16];
  setvbuf(log_file, buffer, _IOFBF, sizeof buffer);
  uint8_t header[LOG_HEADER_SIZE] = {'L', 'K', 'S', 'T', 'L', 'O', 'G', '\n'};
  uint32_t version = LOG_VERSION, size = LOG_HEADER_SIZE;
  memcpy(header + 8, &version, 4);
  memcpy(header + 12, &size, 4);
  memcpy(header + 16, "lockstep-standin", 16);
  uint32_t crc = 0;
  put(header, sizeof header, &crc);
  return 0;
}

