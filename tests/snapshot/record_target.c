/* A small program that writes its own state log (capture/docs/state-log.md), for `lockstep record`'s
 * tests and scripts/bench-record: the recorder's log of it must hold the same records.
 *
 * A "race" of four cars runs in a thread of its own (created after a recorder that started the
 * program attached, so the recorder must follow new threads), beside idle threads that only sleep.
 * Each simulation step (sim_step):
 *   STEP  at the entry of sim_step:             the frame block, every car
 *   CTRL  after controller(car) returns:        that car, the frame block, the car's trail (heap)
 *   PHYS  at the entry of log_phys(car):        the same blocks, after car_step(car)
 * The program writes each record itself at exactly that point (log_step, log_ctrl, log_phys), so a
 * recorder's breakpoints there see the same bytes.
 *
 *   record_target --addresses            prints "name 0xADDRESS" lines (functions, data, "never": code a
 *                                        race never runs) and "code HEX"
 *                                        (sim_step's first 16 code bytes), then exits
 *   record_target LOG STEPS [options]    races STEPS steps (0: until SIGTERM), writing LOG
 *     --threads N      idle threads beside the race (default 2)
 *     --step-us U      sleep U microseconds after each step (a game's frame pacing)
 *     --work N         N rounds of arithmetic in each car step (a game's physics cost)
 *     --crash-at S     SIGSEGV at the entry of step S (after flushing the log)
 *     --ready          print "ready" once the race thread runs
 * Exit 0 after the race; 2 on bad usage; 4 when LOG cannot be written.
 *
 * Built 64-bit static non-PIE (data and heap below 4 GiB), and 32-bit where gcc-multilib is. */
#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RACERS 4
#define TRAIL 6
#define NOINLINE __attribute__((noinline, used))

struct car {
  int32_t pos, vel, ctrl, racer;
  uint32_t seed, hits;
  int32_t trail_len, pad;
  int32_t* trail; /* heap: the last positions; its pointer's size differs between the two builds */
  uint8_t spare[40 - sizeof(int32_t*)];
};
struct frame {
  int32_t step, dt, clock, pad;
};

struct car g_cars[RACERS];
struct frame g_frame;
volatile int32_t g_current; /* the racer whose controller runs */

static FILE* g_log;
static long g_work;
static volatile sig_atomic_t g_stop;

/* CRC-32 (IEEE, reflected, as zlib's crc32). */
static uint32_t crc_table[256];
static void crc_init(void) {
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}
static uint32_t crc_update(uint32_t crc, const void* data, uint32_t n) {
  const uint8_t* p = data;
  crc = ~crc;
  while (n--) crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}
static void put(const void* data, uint32_t n, uint32_t* crc) {
  if (fwrite(data, 1, n, g_log) != n) {
    fprintf(stderr, "record_target: writing the log failed\n");
    exit(4);
  }
  *crc = crc_update(*crc, data, n);
}

struct block {
  const void* at;
  uint32_t size;
};
static void write_record(const char tag[4], int32_t racer, const struct block* b, uint32_t count) {
  uint32_t payload = 0;
  for (uint32_t i = 0; i < count; ++i) payload += 8 + b[i].size;
  uint32_t header[5] = {0, (uint32_t)g_frame.step, (uint32_t)racer, count, payload};
  memcpy(&header[0], tag, 4);
  uint32_t crc = 0;
  put(header, sizeof header, &crc);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t where[2] = {(uint32_t)(uintptr_t)b[i].at, b[i].size};
    put(where, 8, &crc);
    put(b[i].at, b[i].size, &crc);
  }
  uint32_t stored = crc;
  put(&stored, 4, &crc);
}

static void car_record(const char tag[4], struct car* c) {
  struct block b[3] = {{c, sizeof *c}, {&g_frame, sizeof g_frame}, {c->trail, (uint32_t)c->trail_len * 4}};
  write_record(tag, c->racer, b, c->trail_len > 0 ? 3 : 2); /* an empty trail is no block */
}

NOINLINE void log_step(void) {
  struct block b[2] = {{&g_frame, sizeof g_frame}, {g_cars, sizeof g_cars}};
  write_record("STEP", -1, b, 2);
}
NOINLINE void log_ctrl(struct car* c) { car_record("CTRL", c); }
NOINLINE void log_phys(struct car* c) { car_record("PHYS", c); }

NOINLINE void controller(struct car* c) {
  c->seed = c->seed * 1103515245u + 12345u;
  c->ctrl = (int32_t)((c->seed >> 16) % 7) - 3;
}

NOINLINE void car_step(struct car* c) {
  volatile uint32_t w = c->seed;
  for (long k = 0; k < g_work; ++k) w = w * 2654435761u + (uint32_t)k;
  c->vel += c->ctrl * g_frame.dt + (int32_t)(w & 1);
  c->pos += c->vel;
  if (c->pos > 100000 || c->pos < -100000) c->vel = -c->vel, c->hits++;
  /* the trail grows to TRAIL entries, then shifts: its block's size changes over the race */
  if (c->trail_len < TRAIL) c->trail_len++;
  memmove(c->trail + 1, c->trail, (TRAIL - 1) * sizeof *c->trail);
  c->trail[0] = c->pos;
}

NOINLINE void sim_step(void) {
  log_step();
  for (int i = 0; i < RACERS; ++i) {
    g_current = i;
    controller(&g_cars[i]);
    log_ctrl(&g_cars[i]);
    car_step(&g_cars[i]);
    log_phys(&g_cars[i]);
  }
  g_frame.clock += g_frame.dt;
  g_frame.step++;
}

struct race {
  long steps, step_us, crash_at;
  int ready;
};

static void* run_race(void* arg) {
  const struct race* r = arg;
  if (r->ready) {
    printf("ready\n");
    fflush(stdout);
  }
  for (long s = 0; (r->steps == 0 || s < r->steps) && !g_stop; ++s) {
    if (s == r->crash_at) {
      fflush(g_log);
      *(volatile int*)(uintptr_t)8 = 1; /* the crash: SIGSEGV */
    }
    sim_step();
    if (r->step_us) {
      struct timespec t = {r->step_us / 1000000, (r->step_us % 1000000) * 1000};
      nanosleep(&t, NULL);
    }
  }
  return NULL;
}

static void* idle(void* arg) {
  (void)arg;
  while (!g_stop) {
    struct timespec t = {0, 2000000};
    nanosleep(&t, NULL);
  }
  return NULL;
}

static void on_term(int sig) {
  (void)sig;
  g_stop = 1;
}

/* "never": code a race never runs (this function), for a recording point that is never hit. */
NOINLINE int print_addresses(void) {
  printf("sim_step %p\ncontroller %p\nlog_phys %p\nnever %p\ncars %p\nframe %p\ncurrent %p\ncode ", (void*)sim_step,
         (void*)controller, (void*)log_phys, (void*)print_addresses, (void*)g_cars, (void*)&g_frame,
         (void*)&g_current);
  for (int i = 0; i < 16; ++i) printf("%02x", ((const uint8_t*)(uintptr_t)sim_step)[i]);
  printf("\ncar_size %u\ntrail_offset %u\npointer_size %u\n", (unsigned)sizeof(struct car),
         (unsigned)offsetof(struct car, trail), (unsigned)sizeof(int32_t*));
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--addresses") == 0) return print_addresses();
  if (argc < 3) {
    fprintf(stderr, "usage: record_target --addresses | LOG STEPS [--threads N] [--step-us U] [--work N] "
                    "[--crash-at S] [--ready]\n");
    return 2;
  }
  struct race r = {atol(argv[2]), 0, -1, 0};
  long threads = 2;
  for (int i = 3; i < argc; ++i) {
    const char* v = i + 1 < argc ? argv[i + 1] : "0";
    if (strcmp(argv[i], "--threads") == 0) threads = atol(v), ++i;
    else if (strcmp(argv[i], "--step-us") == 0) r.step_us = atol(v), ++i;
    else if (strcmp(argv[i], "--work") == 0) g_work = atol(v), ++i;
    else if (strcmp(argv[i], "--crash-at") == 0) r.crash_at = atol(v), ++i;
    else if (strcmp(argv[i], "--ready") == 0) r.ready = 1;
    else return fprintf(stderr, "record_target: unknown option %s\n", argv[i]), 2;
  }
  crc_init();
  g_log = fopen(argv[1], "wb");
  if (!g_log) return perror(argv[1]), 4;
  char header[32] = "LKSTLOG\n";
  const uint32_t version_size[2] = {1, 32};
  memcpy(header + 8, version_size, 8);
  strncpy(header + 16, "record-target", 16);
  if (fwrite(header, 1, 32, g_log) != 32) return 4;

  g_frame.dt = 33;
  for (int i = 0; i < RACERS; ++i) {
    g_cars[i].racer = i;
    g_cars[i].seed = 17u + 31u * (uint32_t)i;
    g_cars[i].trail = calloc(TRAIL, sizeof(int32_t));
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);

  pthread_t race, idlers[16];
  if (threads > 16) threads = 16;
  for (long i = 0; i < threads; ++i) pthread_create(&idlers[i], NULL, idle, NULL);
  pthread_create(&race, NULL, run_race, &r);
  pthread_join(race, NULL);
  g_stop = 1;
  for (long i = 0; i < threads; ++i) pthread_join(idlers[i], NULL);
  if (fclose(g_log) != 0) return 4;
  return 0;
}
