/* The stand-in's start-up and race loop (tests/standin/README.md). */
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

static void usage(void) {
  fprintf(stderr,
          "usage: standin [--log FILE] [--steps N] [--pause-at STEP] [--trace] [--selftest-arith N]\n"
          "  runs the stand-in's race (tests/standin/README.md) and writes its step log\n");
}

int main(int argc, char **argv) {
  /* POD's game thread runs with 0x027f: 53-bit precision, round to nearest (F001). First of all. */
  const uint16_t control_word = 0x027f;
  __asm__ volatile("fldcw %0" : : "m"(control_word));

  const char *log_path = NULL;
  int steps = 400, pause_at = -1, selftest = -1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help")) {
      usage();
      return 0;
    } else if (!strcmp(a, "--log") && v) {
      log_path = v, ++i;
    } else if (!strcmp(a, "--steps") && v) {
      steps = parse_int(v, "--steps"), ++i;
    } else if (!strcmp(a, "--pause-at") && v) {
      pause_at = parse_int(v, "--pause-at"), ++i;
    } else if (!strcmp(a, "--trace")) {
      race_trace = 1;
    } else if (!strcmp(a, "--selftest-arith") && v) {
      selftest = parse_int(v, "--selftest-arith"), ++i;
    } else {
      usage();
      return 2;
    }
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
  if (steplog_open(log_path, pause_at) != 0) {
    fprintf(stderr, "standin: cannot write %s\n", log_path);
    return 4;
  }
  int done = 0;
  for (int frame = 0; done < steps; ++frame) done += race_frame(frame, steps - done);
  steplog_close();
  fprintf(stderr, "standin: %d steps\n", done);
  return 0;
}
