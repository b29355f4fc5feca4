// Benchmark (not a test): passes per second of the port's race (pod::Race over a FlatMemory, the
// stand-in's race followed from its snapshot at pass 0) against the stand-in's own race run natively
// (where the kernel executes i386 programs) and under Unicorn (tests/standin/tools/standin_run), as
// ratios measured in one run, medians over the repeats.
//
//   race_bench [--passes N] [--repeats R] [--no-emulated]
//
// The port's rounds time only the passes (the memory laid from the snapshot before each round, the
// controllers' outputs read from the state log before the first). A stand-in run is a whole process
// (start-up, the race's set-up, N passes, exit), so its rate is taken from two runs: (N − M) passes
// over t(N) − t(M), with M = N / 10, which cancels the start-up and the set-up. The stand-in's
// controllers are its scripted ones; the port's lay their recorded outputs (a lookup and a few byte
// stores per racer turn), so both sides do the same physics.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../standin/controller_output.hpp"
#include "../standin/port_memory.hpp"
#include "../standin/standin_process.hpp"
#include "lockstep/capture/state_log.hpp"
#include "pod/addresses.hpp"
#include "pod/game.hpp"
#include "pod/memory.hpp"

extern char** environ;

namespace {

using lockstep::capture::Record;
using lockstep::capture::RecordKind;
using Clock = std::chrono::steady_clock;

constexpr int kRacers = 8;

using Output = standin_test::ControllerOutput;

struct Recording {
  lockstep::harness::Snapshot snapshot;
  std::vector<std::uint32_t> ms;              // per pass
  std::int32_t first_step = 0;                // the step number of the first step
  std::vector<Output> outputs;                // (step − first_step) × 8 + racer
};

int usage(const char* msg) {
  std::fprintf(stderr, "race_bench: %s\nusage: race_bench [--passes N] [--repeats R] [--no-emulated]\n", msg);
  return 2;
}


std::optional<Recording> record(int passes, const std::filesystem::path& scratch) {
  const auto log_path = scratch / "race.log";
  auto run = standin_test::run_standin(standin_test::Mode::kAuto,
                                       {"--log", log_path.string(), "--passes", std::to_string(passes)}, 0, scratch,
                                       "--pause-at-pass");
  if (!run.ok() || run->exit_status != 0 || !run->snapshot) {
    std::fprintf(stderr, "race_bench: the stand-in's recording failed: %s\n",
                 run.ok() ? run->err.c_str() : run.error().message.c_str());
    return std::nullopt;
  }
  Recording rec;
  rec.snapshot = std::move(*run->snapshot);
  auto reader = lockstep::capture::StateLogReader::open(log_path);
  if (!reader.ok()) {
    std::fprintf(stderr, "race_bench: %s\n", reader.error().message.c_str());
    return std::nullopt;
  }
  std::optional<Record> step_record;
  std::optional<std::uint32_t> last;
  for (const auto& r : rec.snapshot.regions)
    if (r.base <= pod::addr::kLastClock && pod::addr::kLastClock + 4 <= r.base + r.bytes.size()) {
      const auto* p = r.bytes.data() + (pod::addr::kLastClock - r.base);
      last = p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t{p[3]} << 24;
    }
  if (!last) {
    std::fprintf(stderr, "race_bench: the snapshot holds no frame-clock word (0x60be10)\n");
    return std::nullopt;
  }
  bool first = true;
  for (;;) {
    auto next = reader->next();
    if (!next.ok()) {
      std::fprintf(stderr, "race_bench: %s\n", next.error().message.c_str());
      return std::nullopt;
    }
    if (!next->has_value()) break;
    Record& r = **next;
    if (r.kind == RecordKind::kStep) {
      if (first) rec.first_step = static_cast<std::int32_t>(r.step);
      first = false;
      step_record = std::move(r);
    } else if (r.kind == RecordKind::kCtrl && step_record) {
      const auto index = static_cast<std::size_t>(static_cast<std::int32_t>(r.step) - rec.first_step) * kRacers +
                         static_cast<std::size_t>(r.instance);
      if (rec.outputs.size() <= index) rec.outputs.resize(index + 1);
      const auto racer = static_cast<std::uint32_t>(r.instance);
      standin_test::add_changed_bytes(*step_record, r, pod::addr::kDrivers + racer * pod::addr::kDriverSize,
                                      pod::addr::kDriverSize, rec.outputs[index]);
      standin_test::add_changed_bytes(*step_record, r, pod::addr::kRaceCars + racer * pod::addr::kRaceCarSize + 0x4ec, 4,
                                      rec.outputs[index]);
    } else if (r.kind == RecordKind::kFrame) {
      const auto c = r.bytes_at(pod::addr::kLastClock, 4);
      if (!c.ok()) {
        std::fprintf(stderr, "race_bench: a FRAME record holds no frame-clock word (0x60be10)\n");
        return std::nullopt;
      }
      const std::uint32_t now = (*c)[0] | (*c)[1] << 8 | (*c)[2] << 16 | std::uint32_t{(*c)[3]} << 24;
      rec.ms.push_back(now - *last);
      last = now;
    }
  }
  return rec;
}

/// Seconds of one round of the port over all the recording's passes.
double port_round(const Recording& rec) {
  pod::FlatMemory m;
  standin_test::map_port_memory(m, rec.snapshot);
  pod::Race race(m, standin_test::port_scratch());
  for (int r = 0; r < kRacers; ++r)
    race.set_controller(r, [&rec, r](pod::Memory& mem, pod::GuestAddr, pod::GuestAddr) {
      const auto index = static_cast<std::size_t>(mem.i32(pod::addr::kFrameTime + 0xc) - rec.first_step) * kRacers +
                         static_cast<std::size_t>(r);
      if (index < rec.outputs.size())
        for (const auto& [a, v] : rec.outputs[index]) mem.put_u8(a, v);
    });
  const auto t0 = Clock::now();
  for (std::uint32_t ms : rec.ms) race.pass(ms);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Seconds of one whole process (its output thrown away); negative when it failed.
double process_seconds(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const auto t0 = Clock::now();
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  const double t = std::chrono::duration<double>(Clock::now() - t0).count();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

/// Passes per second of the stand-in run by `prefix` (empty: natively): (n − m) / (t(n) − t(m)).
double standin_rate(const std::vector<std::string>& prefix, int n, int m) {
  auto argv = [&](int passes) {
    std::vector<std::string> a = prefix;
    a.insert(a.end(), {STANDIN_EXE, "--passes", std::to_string(passes)});
    return a;
  };
  const double tn = process_seconds(argv(n));
  const double tm = process_seconds(argv(m));
  if (tn < 0 || tm < 0 || tn <= tm) return -1;
  return (n - m) / (tn - tm);
}

/// The first three fields of /proc/loadavg ("unknown" where there is none).
std::string load_average() {
  double a = 0, b = 0, c = 0;
  FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return "unknown";
  const int n = std::fscanf(f, "%lf %lf %lf", &a, &b, &c);
  std::fclose(f);
  if (n != 3) return "unknown";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int passes = 2000, repeats = 5;
  bool emulated = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto count = [&](int& out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 1000000) return false;
      out = static_cast<int>(v);
      return true;
    };
    if (a == "--passes") {
      if (!count(passes) || passes < 20) return usage("--passes takes a count of at least 20");
    } else if (a == "--repeats") {
      if (!count(repeats)) return usage("--repeats takes a count");
    } else if (a == "--no-emulated") {
      emulated = false;
    } else if (a == "--help" || a == "-h") {
      std::printf("race_bench [--passes N] [--repeats R] [--no-emulated]\n");
      return 0;
    } else {
      return usage(("unknown argument " + a).c_str());
    }
  }
  const auto scratch = std::filesystem::temp_directory_path() / ("lockstep_race_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  const auto rec = record(passes, scratch);
  std::filesystem::remove_all(scratch);
  if (!rec) return 4;
  const int m = passes / 10;
  const bool native = standin_test::native_i386();
  std::vector<double> port, standin, unicorn;
  for (int r = 0; r < repeats; ++r) {
    port.push_back(static_cast<double>(rec->ms.size()) / port_round(*rec));
    if (native) standin.push_back(standin_rate({}, passes, m));
    if (emulated) unicorn.push_back(standin_rate({STANDIN_RUN_EXE, "--quiet"}, passes, m));
  }
  std::printf("race_bench: %zu passes of 8 cars, %d repeats (medians; load average %s)\n", rec->ms.size(), repeats,
              load_average().c_str());
  const double p = median(port);
  std::printf("  port (pod::Race, FlatMemory)      %12.0f passes/s\n", p);
  if (native) {
    const double s = median(standin);
    if (s > 0)
      std::printf("  stand-in, native                  %12.0f passes/s   port / native   %.2f\n", s, p / s);
    else
      std::printf("  stand-in, native                  a run failed\n");
  } else {
    std::printf("  stand-in, native                  not measured: %s\n", standin_test::native_unavailable_reason().c_str());
  }
  if (emulated) {
    const double u = median(unicorn);
    if (u > 0)
      std::printf("  stand-in, under Unicorn           %12.0f passes/s   port / Unicorn  %.2f\n", u, p / u);
    else
      std::printf("  stand-in, under Unicorn           a run failed\n");
  }
  return 0;
}
