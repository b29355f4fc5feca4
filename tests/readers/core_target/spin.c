/* The process gcore_live_test snapshots twice (gcore, then /proc + ptrace) and compares: a 32-bit
 * static program that fills known memory, sets known registers and x87 state, and spins on one
 * `jmp .` so that nothing changes between the two snapshots. Prints "ready <marker> <tls>" first.
 *
 * It pins itself to the CPU it starts on: glibc (2.35 on) registers an rseq area in the thread's
 * control block, and the kernel rewrites its cpu_id_start and cpu_id words whenever the thread comes
 * back to user space on another CPU. Unpinned, a migration between gcore and the live snapshot made
 * two heap words (GS base + 0x4a0 and + 0x4a4) read 1 in the core and 0 live. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>

static volatile unsigned char marker[8192];
static __thread volatile unsigned int tls_word = 0x5150;

int main(void) {
  /* gcore runs as a sibling of this process, not its parent: allow it under Yama ptrace_scope 1. */
  prctl(PR_SET_PTRACER, (unsigned long)-1 /* PR_SET_PTRACER_ANY */, 0, 0, 0);
  const int cpu = sched_getcpu();
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) perror("sched_setaffinity");
  }
  for (unsigned i = 0; i < sizeof marker; ++i) marker[i] = (unsigned char)(i * 13 + 5);
  tls_word += 1;
  printf("ready %p %p\n", (void*)marker, (void*)&tls_word);
  fflush(stdout);
  static const unsigned short cw = 0x027f; /* POD's control word, not Linux's 0x037f */
  __asm__ volatile(
      "fninit\n\t"
      "fldcw %0\n\t"
      "fld1\n\t"
      "fldpi\n\t"
      "mov $0x11111111, %%eax\n\t"
      "mov $0x22222222, %%ebx\n\t"
      "mov $0x33333333, %%ecx\n\t"
      "mov $0x44444444, %%edx\n\t"
      "mov $0x55555555, %%esi\n\t"
      "mov $0x66666666, %%edi\n\t"
      "1: jmp 1b\n\t"
      :
      : "m"(cw)
      : "eax", "ebx", "ecx", "edx", "esi", "edi", "memory");
  return 0;
}
