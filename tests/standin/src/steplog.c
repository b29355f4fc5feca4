/* The step log (capture/docs/state-log.md): STEP at the entry of the simulation step, CTRL in the car
 * step right after the controller returns, PHYS after the car step returns (000 "Recording"). The
 * hooks sit at 0x74c240 / 0x74c250 / 0x74c260 (000's code cave) and preserve every register. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define LOG_VERSION 1
#define LOG_HEADER_SIZE 32
#define MAX_BLOCKS 16

static FILE *log_file;
static int pause_at = -1;

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
 * counter (000's five blocks). */
static void car_record(const char tag[4], int32_t racer) {
  block b[5] = {
      {CAR(racer), CAR_SIZE},
      {DRIVER(racer), DRIVER_SIZE},
      {POD_FRAME, FRAME_SIZE},
      {POD_RACE_BLOCK, POD_RACE_BLOCK_END - POD_RACE_BLOCK},
      {POD_CHASSIS_COUNTER, 4},
  };
  write_record(tag, I32(POD_FRAME, FRAME_STEP), racer, b, 5);
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
  };
  write_record("STEP", step, -1, b, 9);
  if (step == pause_at) {
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

int steplog_open(const char *path, int pause_step) {
  crc_init();
  pause_at = pause_step;
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

void steplog_close(void) {
  if (log_file) fclose(log_file);
  log_file = NULL;
}
