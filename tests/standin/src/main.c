/* The stand-in's start-up and race loop (tests/standin/README.md): the loop runs the passes of
 * race::pass (0x49d5e8) until --passes passes or --steps steps have run. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pod_call.h"

static int parse_int(const char *s, const char *what) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < 0 || v > 1000000) {
    fprintf(stderr, "standin: %s: not a number in 0..1000000: '%s'\n", what, s);
    exit(2);
  }
  return (int)v;
}

#define DEFAULT_PASSES 2000

static void usage(void) {
  fprintf(stderr,
          "usage: standin [--log FILE] [--passes N] [--steps N] [--pause-at STEP] [--pause-at-pass N]\n"
          "               [--race standard|damage-veto|time-trial] [--trace] [--selftest-arith N]\n"
          "  runs the stand-in's race (tests/standin/README.md) and writes its step log:\n"
          "  --passes N         passes of the race loop to run (default %d)\n"
          "  --steps N          stop at the entry of simulation step N instead, if it comes first\n"
          "  --pause-at STEP    SIGSTOP at that step's STEP record (for a live snapshot)\n"
          "  --pause-at-pass N  SIGSTOP at the start of pass N, before its simulation steps\n"
          "  --race KIND        the race staged: standard (default), damage-veto (damage mode 2, the\n"
          "                     veto held for two windows of steps) or time-trial\n",
          DEFAULT_PASSES);
}

int main(int argc, char **argv) {
  /* POD's game thread runs with 0x027f: 53-bit precision, round to nearest (F001). First of all. */
  const uint16_t control_word = 0x027f;
  __asm__ volatile("fldcw %0" : : "m"(control_word));

  steplog_options log = {NULL, -1, -1, -1};
  int passes = DEFAULT_PASSES, selftest = -1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help")) {
      usage();
      return 0;
    } else if (!strcmp(a, "--log") && v) {
      log.path = v, ++i;
    } else if (!strcmp(a, "--passes") && v) {
      passes = parse_int(v, "--passes"), ++i;
    } else if (!strcmp(a, "--steps") && v) {
      log.step_limit = parse_int(v, "--steps"), ++i;
    } else if (!strcmp(a, "--pause-at") && v) {
      log.pause_at = parse_int(v, "--pause-at"), ++i;
    } else if (!strcmp(a, "--pause-at-pass") && v) {
      log.pause_at_pass = parse_int(v, "--pause-at-pass"), ++i;
    } else if (!strcmp(a, "--race") && v) {
      if (!strcmp(v, "standard")) race_staged = RACE_STANDARD;
      else if (!strcmp(v, "damage-veto")) race_staged = RACE_DAMAGE_VETO;
      else if (!strcmp(v, "time-trial")) race_staged = RACE_TIME_TRIAL;
      else {
        fprintf(stderr, "standin: --race takes standard, damage-veto or time-trial, not '%s'\n", v);
        return 2;
      }
      ++i;
    } else if (!strcmp(a, "--trace")) {
      race_trace = 1;
    } else if (!strcmp(a, "--selftest-arith") && v) {
      selftest = parse_int(v, "--selftest-arith"), ++i;
    } else {
      usage();
      return 2;
    }
  }

  if (log.pause_at >= 0 && log.pause_at_pass >= 0) {
    fprintf(stderr, "standin: --pause-at and --pause-at-pass: one pause per run (one snapshot)\n");
    return 2;
  }

  tables_build();
  if (selftest >= 0) {
    arith_selftest(selftest);
    return 0;
  }

  I32(POD_SOUND_FD, 0) = open("/dev/null", O_WRONLY);
  if (I32(POD_SOUND_FD, 0) < 0) {
    fprintf(stderr, "standin: cannot open /dev/null for the sound device\n");
    return 4;
  }
  track_build();
  race_setup();
  if (steplog_open(&log) != 0) {
    fprintf(stderr, "standin: cannot write %s\n", log.path);
    return 4;
  }
  /* the race loop FUN_0049d4c0: its passes (an end by --steps comes from inside the step) */
  for (int pass = 0; pass < passes; ++pass) {
    steplog_pass_start(pass);
    POD_CALL0(FN_RACE_PASS);
  }
  steplog_finish();
  return 0;
}
