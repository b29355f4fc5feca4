// Benchmark (not a test): emulated instructions per second under the Unicorn machine with full
// byte-level recording vs the same runs with no memory hooks, as a ratio measured in one run.
//
//   lockstep_machine_bench [ITERATIONS] [REPEATS]
//   lockstep_machine_bench --standin SNAPSHOT STEPLOG PROFILE [STEPS] [REPEATS]
//
// The second form runs the stand-in's car steps as check-steps does (each CTRL record laid over the
// snapshot, the profile's driver called), timing only the calls. Instructions are counted once in a
// calibration pass (a per-instruction hook, untimed).
//
// Times are this thread's CPU time (on a shared machine wall time also counts the waits for a core),
// and each figure is the median of REPEATS (default 5) runs, the configurations taking turns.
//
// The workload is a 32-bit integer + x87 loop (loads, a 16.16 multiply, stores, fild/fmul/fadd/fstp)
// laid in a hand-made snapshot. Instruction counts are exact: the loop's instructions (counted by
// Capstone) times the iterations. The aim: recording costs at most 40 % of hook-free speed
// (ratio >= 0.60). Then the floor: the loop on a bare Unicorn engine with and without memory hooks
// that do nothing (no recorder on those hooks keeps more of the hook-free speed).
#include <algorithm>
#include <memory>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <ctime>
#include <unistd.h>

#include <fmt/format.h>
#include <unicorn/unicorn.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/machine/machine.hpp"

using namespace lockstep;
using namespace lockstep::harness;

namespace {

/// This thread's CPU time in seconds: on a shared machine a run's wall time includes the time it
/// waited for a core, its CPU time does not.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

constexpr GuestAddr kCode = 0x401000, kData = 0x600000, kStack = 0x7ff00000;

const char* kLoop = R"(
bits 32
org 0x401000
    mov ecx, eax           ; iterations
    mov edi, 0x600000
    fld qword [0x601000]   ; scale
    fldz
loop_top:
    mov esi, ecx
    and esi, 0x3fc
    mov eax, [edi + esi]
    mov edx, [edi + esi + 0x400]
    imul edx
    shrd eax, edx, 16
    add eax, ecx
    mov [edi + esi + 0x800], eax
    push eax
    fild dword [esp]
    fmul st0, st2
    faddp st1, st0
    pop eax
    dec ecx
    jnz loop_top
loop_end:
    fstp qword [0x601008]
    fstp st0
    ret
)";

std::vector<std::uint8_t> assemble(const std::string& src) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("lockstep-bench-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto in = dir / "loop.asm", out = dir / "loop.bin";
  (void)write_file_atomic(in, src);
  const std::string cmd = fmt::format("nasm -f bin -o '{}' '{}'", out.string(), in.string());
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "nasm failed\n");
    std::exit(4);
  }
  auto r = read_file(out);
  std::filesystem::remove_all(dir);
  if (!r.ok()) std::exit(4);
  return *r;
}

Snapshot make(const std::vector<std::uint8_t>& code) {
  Snapshot s;
  Region c{kCode, code, kProtRead | kProtExec, "code"};
  c.bytes.resize(0x1000, 0xcc);
  Region d{kData, std::vector<std::uint8_t>(0x2000), kProtRead | kProtWrite, "data"};
  for (std::size_t i = 0; i < 0x1000; ++i) d.bytes[i] = static_cast<std::uint8_t>(i * 13 + 5);
  const double scale = 1.0 / 65536;
  std::memcpy(&d.bytes[0x1000], &scale, 8);
  Region st{kStack, std::vector<std::uint8_t>(0x10000), kProtRead | kProtWrite, "[stack]"};
  s.regions = {c, d, st};
  Thread t;
  t.esp = kStack + 0xf000;
  t.cs = 0x23;
  t.ds = t.es = t.ss = 0x2b;
  s.threads = {t};
  return s;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Bench {
  std::unique_ptr<Machine> machine;
  std::vector<double> seconds;  // one per repeat
  double median() const { return median_of(seconds); }
};

std::unique_ptr<Machine> make_machine(const Snapshot& snap, const MachineConfig& cfg) {
  auto m = Machine::create(snap, cfg);
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.error().message.c_str());
    std::exit(5);
  }
  return std::move(*m);
}

double time_call(Machine& m, std::uint32_t iterations) {
  CallSpec spec;
  spec.function = kCode;
  spec.args = {Arg::u32(iterations)};
  m.reset();
  const double t0 = cpu_seconds();
  auto o = m.call(spec);
  const double t1 = cpu_seconds();
  if (!o.ok() || !o->returned()) {
    std::fprintf(stderr, "the benchmark loop faulted: %s\n",
                 o.ok() ? format_fault(*o->fault).c_str() : o.error().message.c_str());
    std::exit(3);
  }
  return t1 - t0;
}

// The floor: the same loop on a bare Unicorn engine (no machine around it), hook-free and then with
// memory read and write hooks that do nothing. No recorder built on Unicorn 2.0.1's memory hooks runs
// faster than the second; the ratio of the two is the most any such recorder can keep.
struct Floor {
  double none = 0, empty_hooks = 0;  // median seconds
};
void empty_mem_hook(uc_engine*, uc_mem_type, std::uint64_t, int, std::int64_t, void*) {}

Floor unicorn_floor(const Snapshot& snap, std::uint32_t iterations, int repeats) {
  constexpr GuestAddr kReturn = 0x500000;  // a mapped page the call returns to: the stop address
  auto engine = [&](bool hooks) {
    uc_engine* uc = nullptr;
    if (uc_open(UC_ARCH_X86, UC_MODE_32, &uc) != UC_ERR_OK) std::exit(5);
    for (const Region& r : snap.regions) {
      uc_mem_map(uc, r.base, r.bytes.size(), UC_PROT_ALL);
      uc_mem_write(uc, r.base, r.bytes.data(), r.bytes.size());
    }
    uc_mem_map(uc, kReturn, 0x1000, UC_PROT_ALL);
    if (hooks) {
      uc_hook h;
      uc_hook_add(uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(&empty_mem_hook), nullptr, 1, 0);
    }
    return uc;
  };
  auto run = [&](uc_engine* uc, std::uint32_t n) {
    std::uint32_t esp = snap.threads[0].esp - 4, eax = n;
    uc_mem_write(uc, esp, &kReturn, 4);
    uc_reg_write(uc, UC_X86_REG_ESP, &esp);
    uc_reg_write(uc, UC_X86_REG_EAX, &eax);
    const double t0 = cpu_seconds();
    if (uc_emu_start(uc, kCode, kReturn, 0, 0) != UC_ERR_OK) std::exit(3);
    return cpu_seconds() - t0;
  };
  uc_engine* bare = engine(false);
  uc_engine* hooked = engine(true);
  (void)run(bare, 1000);
  (void)run(hooked, 1000);
  std::vector<double> none, empty_hooks;
  for (int r = 0; r < repeats; ++r) {
    none.push_back(run(bare, iterations));
    empty_hooks.push_back(run(hooked, iterations));
  }
  const Floor f{median_of(none), median_of(empty_hooks)};
  uc_close(bare);
  uc_close(hooked);
  return f;
}

int standin_bench(const char* snapshot_path, const char* log_path, const char* profile_path, std::size_t steps,
                  int repeats) {
  auto snap = load_snapshot(snapshot_path);
  auto log = capture::read_state_log(log_path);
  auto profile = load_profile(profile_path);
  if (!snap.ok() || !log.ok() || !profile.ok()) {
    std::fprintf(stderr, "cannot read the inputs: %s\n",
                 !snap.ok() ? snap.error().message.c_str() : !log.ok() ? log.error().message.c_str() : profile.error().message.c_str());
    return 2;
  }
  const DriverSpec* d = profile->driver_for_record("CTRL");
  if (!d) return 2;
  std::vector<const capture::Record*> ctrl;
  for (const capture::Record& r : log->records)
    if (r.kind == capture::RecordKind::kCtrl && ctrl.size() < steps) ctrl.push_back(&r);
  const StructSpec* car = profile->struct_by_name("car");
  const StructSpec* drv = profile->struct_by_name("driver");
  const InstanceSpec* cars = profile->instance_by_name("car");
  const InstanceSpec* drivers = profile->instance_by_name("driver");
  if (!car || !drv || !cars || !drivers) return 2;

  auto machine_for = [&](bool record, bool count) {
    MachineConfig cfg = config_from_profile(*profile);
    cfg.record = record;
    cfg.count_instructions = count;
    if (!record) cfg.block_budget = 0;  // truly hook-free
    auto m = make_machine(*snap, cfg);
    for (const std::string& s : d->stubs) (void)m->set_stub_active(s, true);
    return m;
  };
  // Runs every step once; returns the seconds spent inside call() and the instructions (when counted).
  auto pass = [&](Machine& m, std::uint64_t* instructions) {
    double seconds = 0;
    for (const capture::Record* r : ctrl) {
      m.reset();
      for (const capture::Block& b : r->blocks) (void)m.write(b.address, b.bytes);
      CallSpec spec;
      spec.function = d->function;
      spec.args = {Arg::u32(cars->base + static_cast<GuestAddr>(r->instance) * car->size),
                   Arg::u32(drivers->base + static_cast<GuestAddr>(r->instance) * drv->size)};
      const double t0 = cpu_seconds();
      auto o = m.call(spec);
      seconds += cpu_seconds() - t0;
      if (!o.ok() || !o->returned()) {
        std::fprintf(stderr, "step %u racer %d faulted\n", r->step, r->instance);
        std::exit(3);
      }
      if (instructions) *instructions += o->instructions;
    }
    return seconds;
  };
  std::uint64_t instructions = 0;
  {
    auto counter = machine_for(false, true);
    (void)pass(*counter, &instructions);
  }
  auto none = machine_for(false, false);
  auto full = machine_for(true, false);
  (void)pass(*none, nullptr);  // translate once
  (void)pass(*full, nullptr);
  std::vector<double> none_seconds, full_seconds;
  for (int i = 0; i < repeats; ++i) {
    none_seconds.push_back(pass(*none, nullptr));
    full_seconds.push_back(pass(*full, nullptr));
  }
  const double a = instructions / median_of(none_seconds) / 1e6, c = instructions / median_of(full_seconds) / 1e6;
  fmt::print("stand-in car steps: {} steps, {} instructions ({:.0f} per step), median CPU time of {} interleaved passes\n",
             ctrl.size(), instructions, static_cast<double>(instructions) / ctrl.size(), repeats);
  fmt::print("no hooks                          {:8.1f} M instr/s\n", a);
  fmt::print("full byte recording + budget      {:8.1f} M instr/s  ({:.2f} of no hooks)\n", c, c / a);
  fmt::print("ratio recording / no hooks: {:.2f} (target >= 0.60: recording costs at most 40 %)\n", c / a);
  return 0;
}

}  // namespace

/// A count from the command line, strictly (lockstep/base/numbers.hpp): 1..max, or exit 2 naming it.
std::uint64_t count_arg(const char* text, const char* what, std::uint64_t max) {
  auto n = lockstep::parse_unsigned(text, max);
  if (!n.ok() || *n == 0) {
    std::fprintf(stderr, "lockstep_machine_bench: %s '%s' is not a number from 1 to %llu\n", what, text,
                 static_cast<unsigned long long>(max));
    std::exit(2);
  }
  return *n;
}

int main(int argc, char** argv) {
  const char* usage =
      "usage: lockstep_machine_bench [ITERATIONS] [REPEATS]\n"
      "       lockstep_machine_bench --standin SNAPSHOT STEPLOG PROFILE [STEPS] [REPEATS]\n";
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(usage, stdout);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--standin") {
    if (argc < 5 || argc > 7) {
      std::fputs(usage, stderr);
      return 2;
    }
    return standin_bench(argv[2], argv[3], argv[4], argc > 5 ? count_arg(argv[5], "STEPS", 1u << 24) : 800,
                         argc > 6 ? static_cast<int>(count_arg(argv[6], "REPEATS", 1000)) : 5);
  }
  if (argc > 3) {
    std::fputs(usage, stderr);
    return 2;
  }
  const auto iterations =
      argc > 1 ? static_cast<std::uint32_t>(count_arg(argv[1], "ITERATIONS", 100'000'000)) : 2'000'000u;
  const int repeats = argc > 2 ? static_cast<int>(count_arg(argv[2], "REPEATS", 1000)) : 5;
  const auto code = assemble(kLoop);
  const Snapshot snap = make(code);
  // Count the loop's instructions with Capstone: from loop_top to the jnz.
  Disassembler dis;
  std::uint64_t total = 0, in_loop = 0;
  bool looping = false;
  for (GuestAddr a = kCode; a < kCode + code.size();) {
    auto insn = dis.one(std::span(code).subspan(a - kCode), a);
    if (!insn) break;
    ++total;
    if (insn->mnemonic == "mov" && insn->operands == "esi, ecx") looping = true;
    if (looping) ++in_loop;
    if (insn->mnemonic == "jne") looping = false;
    a += static_cast<GuestAddr>(insn->bytes.size());
  }
  const std::uint64_t fixed = total - in_loop;

  MachineConfig none;
  none.record = false;
  none.block_budget = 0;
  MachineConfig budget_only = none;
  budget_only.block_budget = 1'000'000'000;
  MachineConfig full;  // record + block budget: what check-steps and call use
  full.block_budget = 1'000'000'000;

  fmt::print("workload: {} iterations x {} instructions (integer + x87), median CPU time of {} interleaved repeats\n",
             iterations, in_loop, repeats);
  // Interleaved, the median of N: every configuration sees the machine's load alike, and the median
  // leaves out the runs another process disturbed most.
  Bench b[3] = {{make_machine(snap, none), {}}, {make_machine(snap, budget_only), {}}, {make_machine(snap, full), {}}};
  for (Bench& x : b) (void)time_call(*x.machine, 1000);  // translate once
  for (int r = 0; r < repeats; ++r)
    for (Bench& x : b) x.seconds.push_back(time_call(*x.machine, iterations));
  const double instructions = static_cast<double>(in_loop) * iterations + static_cast<double>(fixed);
  auto mips = [&](const Bench& x) { return instructions / x.median() / 1e6; };
  fmt::print("no hooks                          {:8.1f} M instr/s\n", mips(b[0]));
  fmt::print("block budget hook only            {:8.1f} M instr/s  ({:.2f} of no hooks)\n", mips(b[1]), mips(b[1]) / mips(b[0]));
  fmt::print("full byte recording + budget      {:8.1f} M instr/s  ({:.2f} of no hooks)\n", mips(b[2]), mips(b[2]) / mips(b[0]));
  fmt::print("ratio recording / no hooks: {:.2f} (target >= 0.60: recording costs at most 40 %)\n", mips(b[2]) / mips(b[0]));
  const Floor f = unicorn_floor(snap, iterations, repeats);
  const double bare = instructions / f.none / 1e6, hooked = instructions / f.empty_hooks / 1e6;
  fmt::print("bare Unicorn, no hooks            {:8.1f} M instr/s\n", bare);
  fmt::print("bare Unicorn, empty memory hooks  {:8.1f} M instr/s  ({:.2f} of no hooks: the floor of any recorder\n"
             "                                                       on Unicorn's memory hooks)\n",
             hooked, hooked / bare);
  return 0;
}
