/* A small 32-bit static program to snapshot live (gcc -m32 -static; tests/snapshot and scripts/demo).
 *
 * It writes known bytes into a global, a heap block, its stack and a __thread variable, sets the
 * x87 control word to 0x027f (POD's, not Linux's 0x037f) and leaves 1.0 and pi on the x87 stack,
 * prints where everything is, then prints "ready" and (with --wait) waits. Each SIGUSR1 makes it
 * print "alive N" (N = signals so far), so a test can see it runs on after being snapshotted;
 * SIGTERM ends it.
 *
 * Output, one item per line ("name 0xADDRESS"):
 *   global 0x...   16 bytes "lockstep-global!"
 *   heap 0x...     64 bytes 0xa5 ^ i
 *   stack 0x...    32 bytes 0x5a ^ i
 *   tls 0x...      the __thread u32 0xc0ffee42
 *   tp 0x...       the thread pointer as the program sees it (%gs:0, glibc's TCB self pointer)
 *   ready
 *
 * The same source builds demo_target64 (x86-64, static, non-PIE: data, heap and TLS below 4 GiB) for
 * hosts that cannot run 32-bit code; there the thread pointer is %fs:0.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile char g_global[16] = "lockstep-global";
__thread volatile uint32_t t_value = 1;

static volatile sig_atomic_t g_pings;
static volatile sig_atomic_t g_stop;

static void on_usr1(int sig) {
  (void)sig;
  g_pings++;
}
static void on_term(int sig) {
  (void)sig;
  g_stop = 1;
}

int main(int argc, char** argv) {
  int wait = argc > 1 && strcmp(argv[1], "--wait") == 0;
  volatile uint8_t stack_buf[32];
  uint8_t* heap = malloc(64);
  uintptr_t tp = 0;
  unsigned short cw = 0x027f;
  int i;

  g_global[15] = '!';
  for (i = 0; i < 64; ++i) heap[i] = (uint8_t)(0xa5 ^ i);
  for (i = 0; i < 32; ++i) stack_buf[i] = (uint8_t)(0x5a ^ i);
  t_value = 0xc0ffee42u;
#if defined(__x86_64__)
  __asm__ volatile("movq %%fs:0, %0" : "=r"(tp));  /* the 64-bit build (demo_target64): fs is the TLS segment */
#else
  __asm__ volatile("movl %%gs:0, %0" : "=r"(tp));
#endif

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);

  /* Signals are blocked except inside sigsuspend(), so none is lost between the check and the wait. */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);

  printf("global %p\nheap %p\nstack %p\ntls %p\ntp %p\n", (void*)g_global, (void*)heap, (void*)stack_buf,
         (void*)&t_value, (void*)tp);
  fflush(stdout);
  /* The x87 state last: control word 0x027f, then ST(1) = pi and ST(0) = 1.0 (TOP = 6). From here
   * until the snapshot only thin system-call wrappers run (write, sigsuspend), which leave the x87
   * registers alone (stdio could reach MMX or x87 code); Linux restores the x87 state after a
   * signal handler. */
  __asm__ volatile("fninit\n\tfldcw %0\n\tfldpi\n\tfld1" : : "m"(cw));
  if (write(1, "ready\n", 6) != 6) return 1;
  if (!wait) return 0;

  int seen = 0;
  while (!g_stop) {
    sigsuspend(&old);
    if (g_pings != seen) {
      seen = g_pings;
      printf("alive %d\n", seen);
      fflush(stdout);
    }
  }
  return 0;
}
