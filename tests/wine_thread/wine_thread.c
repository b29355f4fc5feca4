/* A test original set up the way Wine sets up a Windows thread: every thread gets a TEB-like block
 * (NT_TIB's stack base at +4 and limit at +8, its Self pointer at +0x18, TLS slots from +0xe10), an
 * LDT entry whose base is that block (modify_ldt), and FS loaded with the entry's selector. The
 * "Windows code" below reads its TEB only through FS, as Windows code does (fs:[0x18], fs:[4],
 * fs:[8], fs:[0xe10 + 4 * i]).
 *
 * Freestanding (no libc: -nostdlib -static): its own system calls, its own clone, so that it runs
 * the same natively, under qemu-i386 and under the project's i386 runner, and so that FS is free
 * for the TEB on x86-64 too (the 64-bit build exercises live snapshots on hosts without i386).
 *
 * It starts kWorkers (16) worker threads: even ones sleep in nanosleep between rounds, odd ones spin.
 * Every round a worker reads its TEB through FS and checks it against the values it wrote; a wrong
 * read counts as a failure. Modes (argv[1]):
 *   --print        print the native results and exit (no workers; qemu-i386 cross-check)
 *   --stop-self    start the workers, let them run, print the native results, send itself SIGSTOP
 *                  (the runner snapshots there), then stop the workers and print the summary
 *   --wait         start the workers, print the results and "ready", run until stdin reaches its
 *                  end, then stop the workers and print the summary (live snapshots from outside)
 *   --churn        like --wait, plus a thread that keeps creating short-lived threads
 *   --seccomp      like --wait, under a seccomp filter (that allows everything)
 * --wait and --churn take an optional second argument: MiB of heap (brk) to fill with a pattern
 * before "ready", so that a benchmark can time snapshots of a bigger process.
 *
 * Output lines:
 *   fn NAME 0xADDR            a function reading through FS (cdecl; tls_slot takes the slot index)
 *   teb K 0xADDR             thread K's TEB (K = 0 main, 1..16 workers), selector (7 + K) << 3 | 7
 *   result NAME ARG 0xVALUE   what NAME(ARG) returned natively on the main thread
 *   ldt_read N                what modify_ldt(0, buf, 256) returned (bytes, zero-filled past the table)
 *   ldt E 0xHIGH 0xLOW        the descriptor it read back for entry E (7 .. 23), high and low words
 *   ready
 *   summary threads N rounds R failures F
 */
#include <stdint.h>

#define kWorkers 16
#define kThreads (kWorkers + 1)
#define kTebSize 0x2000
#define kLdtFirst 7 /* Wine's first TEB selector is 0x3f: entry 7 */
#define kStackSize 0x8000
#define kTlsSlots 64

#if defined(__i386__)
#define SYS_exit 1
#define SYS_read 3
#define SYS_write 4
#define SYS_getpid 20
#define SYS_brk 45
#define SYS_prctl 172
#define SYS_seccomp 354
#define SYS_kill 37
#define SYS_clone 120
#define SYS_modify_ldt 123
#define SYS_sched_yield 158
#define SYS_nanosleep 162
#define SYS_exit_group 252
#elif defined(__x86_64__)
#define SYS_read 0
#define SYS_write 1
#define SYS_sched_yield 24
#define SYS_nanosleep 35
#define SYS_brk 12
#define SYS_prctl 157
#define SYS_seccomp 317
#define SYS_getpid 39
#define SYS_clone 56
#define SYS_exit 60
#define SYS_kill 62
#define SYS_modify_ldt 154
#define SYS_exit_group 231
#else
#error "an x86 program"
#endif

typedef uintptr_t word;

static word sys3(word nr, word a, word b, word c) {
  word r;
#if defined(__i386__)
  __asm__ volatile("int $0x80" : "=a"(r) : "0"(nr), "b"(a), "c"(b), "d"(c) : "memory");
#else
  __asm__ volatile("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
#endif
  return r;
}

/* prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0): the unused arguments must be 0. */
static word no_new_privs(void) {
  word r;
#if defined(__i386__)
  __asm__ volatile("int $0x80" : "=a"(r) : "0"((word)SYS_prctl), "b"(38), "c"(1), "d"(0), "S"(0), "D"(0) : "memory");
#else
  register word r10 __asm__("r10") = 0;
  register word r8 __asm__("r8") = 0;
  __asm__ volatile("syscall" : "=a"(r) : "0"((word)SYS_prctl), "D"(38), "S"(1), "d"(0), "r"(r10), "r"(r8)
                   : "rcx", "r11", "memory");
#endif
  return r;
}

/* A seccomp filter that allows every system call (the process then shows "Seccomp: 2"). */
static int allow_all_seccomp(void) {
  static const struct { uint16_t code; uint8_t jt, jf; uint32_t k; } allow[1] = {{0x06 /* BPF_RET | BPF_K */, 0, 0,
                                                                                 0x7fff0000u /* SECCOMP_RET_ALLOW */}};
  static struct { uint16_t len; const void* filter; } prog;
  prog.len = 1;
  prog.filter = allow;
  if (no_new_privs() != 0) return -1;
  return (int)(long)sys3(SYS_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, 0, (word)&prog);
}

/* clone(flags, stack) whose child calls fn(arg) on that stack and exits the thread. */
long raw_clone(word flags, void* stack_top, void (*fn)(word), word arg);
#if defined(__i386__)
__asm__(".text\n.globl raw_clone\nraw_clone:\n"
        "  push %ebx\n  push %esi\n  push %edi\n"
        "  mov 16(%esp), %ebx\n"     /* flags */
        "  mov 20(%esp), %ecx\n"     /* stack top */
        "  sub $16, %ecx\n"
        "  mov 28(%esp), %eax\n  mov %eax, 0(%ecx)\n" /* arg */
        "  mov 24(%esp), %eax\n  mov %eax, 4(%ecx)\n" /* fn */
        "  xor %edx, %edx\n  xor %esi, %esi\n  xor %edi, %edi\n"
        "  mov $120, %eax\n  int $0x80\n"
        "  test %eax, %eax\n  jnz 1f\n"
        "  call *4(%esp)\n"          /* child: fn(arg), arg at 0(%esp) before the call */
        "  mov $1, %eax\n  xor %ebx, %ebx\n  int $0x80\n  hlt\n"
        "1:\n  pop %edi\n  pop %esi\n  pop %ebx\n  ret\n");
#else
__asm__(".text\n.globl raw_clone\nraw_clone:\n"
        "  sub $16, %rsi\n"
        "  mov %rdx, 0(%rsi)\n"      /* fn */
        "  mov %rcx, 8(%rsi)\n"      /* arg */
        "  xor %edx, %edx\n  xor %r10d, %r10d\n  xor %r8d, %r8d\n"
        "  mov $56, %eax\n  syscall\n"
        "  test %rax, %rax\n  jnz 1f\n"
        "  pop %rax\n  pop %rdi\n  call *%rax\n"
        "  mov $60, %eax\n  xor %edi, %edi\n  syscall\n  hlt\n"
        "1:\n  ret\n");
#endif

/* struct user_desc (asm/ldt.h), as modify_ldt takes it on both ABIs. */
struct user_desc {
  uint32_t entry_number, base_addr, limit;
  uint32_t flags; /* seg_32bit:1 contents:2 read_exec_only:1 limit_in_pages:1 seg_not_present:1 useable:1 */
};

static uint8_t g_tebs[kThreads][kTebSize] __attribute__((aligned(4096)));
static uint8_t g_stacks[kWorkers][kStackSize] __attribute__((aligned(16)));
static volatile int g_stop;
static volatile int g_running;
static volatile int g_done;
static volatile uint32_t g_rounds[kThreads];
static volatile uint32_t g_failures;

/* ---- output ---- */
static void put(const char* s) {
  word n = 0;
  while (s[n]) ++n;
  sys3(SYS_write, 1, (word)s, n);
}
static void put_hex(uint32_t v) {
  char b[11] = "0x";
  for (int i = 0; i < 8; ++i) b[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
  b[10] = 0;
  put(b);
}
static void put_dec(uint32_t v) {
  char b[12];
  int i = 11;
  b[i] = 0;
  do b[--i] = (char)('0' + v % 10); while ((v /= 10) != 0);
  put(b + i);
}

/* ---- the TEB, as Windows code reads it ---- */
#define NOINLINE __attribute__((noinline, used))
/* NT_TIB.Self: the TEB's own address (what NtCurrentTeb() returns). */
NOINLINE uint32_t teb_self(void) {
  uint32_t v;
  __asm__ volatile("movl %%fs:0x18, %0" : "=r"(v));
  return v;
}
/* NT_TIB.StackBase and StackLimit. */
NOINLINE uint32_t teb_stack_base(void) {
  uint32_t v;
  __asm__ volatile("movl %%fs:4, %0" : "=r"(v));
  return v;
}
NOINLINE uint32_t teb_stack_limit(void) {
  uint32_t v;
  __asm__ volatile("movl %%fs:8, %0" : "=r"(v));
  return v;
}
/* TlsGetValue(slot): TEB.TlsSlots[slot] at fs:[0xe10 + 4 * slot]. */
NOINLINE uint32_t tls_slot(uint32_t slot) {
  uint32_t v;
  __asm__ volatile("movl %%fs:0xe10(,%1,4), %0" : "=r"(v) : "r"((word)slot));
  return v;
}
/* The stack size the TEB describes, through Self like kernel32 code that reads NtCurrentTeb(). */
NOINLINE uint32_t teb_stack_size(void) {
  const uint32_t self = teb_self();
  (void)self;
  return teb_stack_base() - teb_stack_limit();
}

static uint32_t tls_value(int thread, int slot) { return 0x7150000u + (uint32_t)thread * 0x100u + (uint32_t)slot; }

static void fill_teb(int k) {
  uint8_t* t = g_tebs[k];
  uint32_t base, limit;
  if (k == 0) { /* the main thread: a nominal 1 MiB stack below a fixed address */
    base = 0x00c00000u;
    limit = 0x00b00000u;
  } else {
    base = (uint32_t)(word)(g_stacks[k - 1] + kStackSize);
    limit = (uint32_t)(word)g_stacks[k - 1];
  }
  *(uint32_t*)(t + 4) = base;
  *(uint32_t*)(t + 8) = limit;
  *(uint32_t*)(t + 0x18) = (uint32_t)(word)t;
  for (int i = 0; i < kTlsSlots; ++i) *(uint32_t*)(t + 0xe10 + 4 * i) = tls_value(k, i);
}

static int install_ldt_entry(int k) {
  struct user_desc d;
  d.entry_number = kLdtFirst + (uint32_t)k;
  d.base_addr = (uint32_t)(word)g_tebs[k];
  d.limit = kTebSize - 1;
  d.flags = 1u /* seg_32bit */ | (1u << 6) /* useable */;
  return (int)(long)sys3(SYS_modify_ldt, 0x11, (word)&d, sizeof d);
}

static void load_fs(int k) {
  const uint16_t sel = (uint16_t)(((kLdtFirst + k) << 3) | 7);
  __asm__ volatile("movw %0, %%fs" : : "r"(sel) : "memory");
}

/* One check of everything a thread reads through FS. */
static int teb_ok(int k) {
  const uint8_t* t = g_tebs[k];
  if (teb_self() != (uint32_t)(word)t) return 0;
  if (teb_stack_base() != *(const uint32_t*)(t + 4) || teb_stack_limit() != *(const uint32_t*)(t + 8)) return 0;
  for (int i = 0; i < kTlsSlots; i += 7)
    if (tls_slot((uint32_t)i) != tls_value(k, i)) return 0;
  return 1;
}

static void nap(void) {
  struct { word sec, nsec; } ts = {0, 2000000}; /* 2 ms */
  sys3(SYS_nanosleep, (word)&ts, 0, 0);
}

static void worker(word k) {
  load_fs((int)k);
  __sync_fetch_and_add(&g_running, 1);
  while (!g_stop) {
    if (!teb_ok((int)k)) __sync_fetch_and_add(&g_failures, 1);
    g_rounds[k]++;
    if (k % 2 == 0) {
      nap(); /* sleeping in a system call */
    } else {
      for (volatile int spin = 0; spin < 2000; ++spin) { /* spinning */ }
      if ((g_rounds[k] & 63) == 0) sys3(SYS_sched_yield, 0, 0, 0);
    }
  }
  __sync_fetch_and_add(&g_done, 1);
}

#define kCloneThread 0x00010f00u /* CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD */
#define kCloneSysvsem 0x00040000u

static uint8_t g_churn_stacks[2][kStackSize] __attribute__((aligned(16)));
static void short_lived(word unused) { (void)unused; }
static void churn(word unused) {
  (void)unused;
  load_fs(0);
  __sync_fetch_and_add(&g_running, 1);
  for (uint32_t n = 0; !g_stop; ++n) {
    raw_clone(kCloneThread | kCloneSysvsem, g_churn_stacks[n & 1] + kStackSize, short_lived, 0);
    nap();
  }
  __sync_fetch_and_add(&g_done, 1);
}

static void result(const char* name, uint32_t arg, uint32_t v) {
  put("result ");
  put(name);
  put(" ");
  put_dec(arg);
  put(" ");
  put_hex(v);
  put("\n");
}

static void fn_line(const char* name, void* f) {
  put("fn ");
  put(name);
  put(" ");
  put_hex((uint32_t)(word)f);
  put("\n");
}

static int streq(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

static __attribute__((noreturn)) void finish(int code) {
  sys3(SYS_exit_group, (word)code, 0, 0);
  for (;;) {}
}

__attribute__((noreturn, used)) void wine_thread_main(word* sp) {
  const int argc = (int)sp[0];
  const char* mode = argc > 1 ? (const char*)sp[2] : "--print";
  const int print_only = streq(mode, "--print"), stop_self = streq(mode, "--stop-self"),
            with_seccomp = streq(mode, "--seccomp"), wait = streq(mode, "--wait") || with_seccomp,
            with_churn = streq(mode, "--churn");
  if (!print_only && !stop_self && !wait && !with_churn) {
    put("usage: wine_thread --print | --stop-self | --wait | --churn | --seccomp\n");
    finish(2);
  }
  if (with_seccomp && allow_all_seccomp() != 0) {
    put("seccomp failed\n");
    finish(4);
  }
  for (int k = 0; k < kThreads; ++k) {
    fill_teb(k);
    if (install_ldt_entry(k) != 0) {
      put("modify_ldt failed\n");
      finish(4);
    }
  }
  load_fs(0);

  fn_line("teb_self", (void*)teb_self);
  fn_line("teb_stack_base", (void*)teb_stack_base);
  fn_line("teb_stack_limit", (void*)teb_stack_limit);
  fn_line("tls_slot", (void*)tls_slot);
  fn_line("teb_stack_size", (void*)teb_stack_size);
  for (int k = 0; k < kThreads; ++k) {
    put("teb ");
    put_dec((uint32_t)k);
    put(" ");
    put_hex((uint32_t)(word)g_tebs[k]);
    put("\n");
  }
  static uint32_t ldt_words[64];
  put("ldt_read ");
  put_dec((uint32_t)(long)sys3(SYS_modify_ldt, 0, (word)ldt_words, sizeof ldt_words));
  put("\n");
  for (int k = 0; k < kThreads; ++k) {
    const int e = kLdtFirst + k;
    put("ldt ");
    put_dec((uint32_t)e);
    put(" ");
    put_hex(ldt_words[2 * e + 1]);
    put(" ");
    put_hex(ldt_words[2 * e]);
    put("\n");
  }
  result("teb_self", 0, teb_self());
  result("teb_stack_base", 0, teb_stack_base());
  result("teb_stack_limit", 0, teb_stack_limit());
  result("teb_stack_size", 0, teb_stack_size());
  for (uint32_t i = 0; i < kTlsSlots; i += 9) result("tls_slot", i, tls_slot(i));
  if (print_only) finish(teb_ok(0) ? 0 : 1);

  if (argc > 2 && (wait || with_churn)) {
    uint32_t mib = 0;
    for (const char* c = (const char*)sp[3]; *c >= '0' && *c <= '9'; ++c) mib = mib * 10 + (uint32_t)(*c - '0');
    const word start = sys3(SYS_brk, 0, 0, 0), want = start + ((word)mib << 20);
    if (sys3(SYS_brk, want, 0, 0) != want) {
      put("brk failed\n");
      finish(4);
    }
    for (word a = start; a < want; a += 64) *(volatile uint32_t*)a = (uint32_t)(a * 2654435761u);
  }

  int threads = 0;
  for (int k = 1; k <= kWorkers; ++k) {
    if ((long)raw_clone(kCloneThread | kCloneSysvsem, g_stacks[k - 1] + kStackSize, worker, (word)k) < 0) {
      put("clone failed\n");
      finish(4);
    }
    ++threads;
  }
  static uint8_t churn_stack[kStackSize] __attribute__((aligned(16)));
  if (with_churn) {
    raw_clone(kCloneThread | kCloneSysvsem, churn_stack + kStackSize, churn, 0);
    ++threads;
  }
  while (g_running < threads) sys3(SYS_sched_yield, 0, 0, 0);
  /* Every worker has done a few rounds before anything is looked at. */
  for (int k = 1; k <= kWorkers; ++k)
    while (g_rounds[k] < 3) sys3(SYS_sched_yield, 0, 0, 0);

  if (stop_self) {
    sys3(SYS_kill, sys3(SYS_getpid, 0, 0, 0), 19 /* SIGSTOP */, 0);
  } else {
    put("ready\n");
    char c;
    while ((long)sys3(SYS_read, 0, (word)&c, 1) > 0) {} /* the main thread sleeps in read */
  }
  /* The main thread's own reads after the snapshot(s): unchanged. */
  if (!teb_ok(0)) __sync_fetch_and_add(&g_failures, 1);
  g_stop = 1;
  while (g_done < threads) sys3(SYS_sched_yield, 0, 0, 0);
  uint32_t rounds = 0;
  for (int k = 1; k <= kWorkers; ++k) rounds += g_rounds[k];
  put("summary threads ");
  put_dec((uint32_t)threads);
  put(" rounds ");
  put_dec(rounds);
  put(" failures ");
  put_dec(g_failures);
  put("\n");
  finish(g_failures ? 1 : 0);
}

#if defined(__i386__)
__asm__(".text\n.globl _start\n_start:\n  xor %ebp, %ebp\n  mov %esp, %eax\n  and $-16, %esp\n"
        "  sub $12, %esp\n  push %eax\n  call wine_thread_main\n  hlt\n");
#else
__asm__(".text\n.globl _start\n_start:\n  xor %ebp, %ebp\n  mov %rsp, %rdi\n  and $-16, %rsp\n"
        "  call wine_thread_main\n  hlt\n");
#endif
