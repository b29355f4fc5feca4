// Replay throughput: cases per second for the small arithmetic helpers and for the whole car step on
// one thread, and the whole corpus's replay on 1 and on 2 threads (lockstep replay --jobs), on the
// stand-in corpus. Each case is the full replay path the gate uses: the binding (the case's replay
// memory, the port function) and the byte-for-byte comparison. A benchmark, not a test: it asserts
// nothing about time.
//
// The measurements are interleaved (every row once per round, R rounds), so a change in the
// machine's load falls on all of them alike; each row reports the median of its rounds and their
// spread, and the ratios come from the medians of one run. The load average is printed before and
// after: on a busy machine the absolute rates mean little, the ratios more. The one-thread rows are
// also given per second of the thread's own CPU time, which a busy machine disturbs far less than
// the wall clock (time the thread waits for a core does not count; caches shared with other work
// still do).
//
//   replay_bench [--corpus DIR] [--seconds S] [--rounds R] [--only ADDRESS]
//   (defaults: cases/standin, 0.3 s per row and round, 5 rounds; --only: that function alone, for
//   a profiler)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <time.h>

#include "lockstep/cases/compare.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/replay/replay.hpp"
#include "pod/bindings/bindings.hpp"
#include "lockstep_test/pod_profiled_bindings.hpp"

namespace {

using namespace lockstep;
using Clock = std::chrono::steady_clock;

double median_of(std::vector<double> r) {
  if (r.empty()) return 0;
  std::sort(r.begin(), r.end());
  return r.size() % 2 ? r[r.size() / 2] : (r[r.size() / 2 - 1] + r[r.size() / 2]) / 2;
}

struct Row {
  std::string name;
  std::vector<double> rates;  // cases per second, one per round
  std::uint64_t cases = 0, matched = 0;
  // One-thread rows, per round: the cases run and the thread's CPU seconds they took.
  std::vector<double> cpu_cases = {}, cpu_seconds = {};
  double median() const { return median_of(rates); }
  std::vector<double> cpu_rates() const {
    std::vector<double> r;
    for (std::size_t i = 0; i < cpu_cases.size(); ++i)
      r.push_back(cpu_seconds[i] > 0 ? cpu_cases[i] / cpu_seconds[i] : 0);
    return r;
  }
};

// The calling thread's CPU time, in seconds.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Replays every case of `file` over and over for at least `budget` seconds; returns cases/s.
[[gnu::noinline]] double measure(const cases::CaseFile& file, const cases::Binding& b, double budget, Row& row) {
  std::uint64_t cases = 0;
  double seconds = 0;
  const auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  do {
    for (const auto& c : file.cases) {
      const auto fx = lockstep::cases::run_binding(b, c);
      row.matched += cases::compare(c, fx).matched() ? 1 : 0;
    }
    cases += file.cases.size();
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } while (seconds < budget && !file.cases.empty());
  const double cpu = thread_cpu_seconds() - cpu_start;
  row.cases += cases;
  row.cpu_cases.push_back(static_cast<double>(cases));
  row.cpu_seconds.push_back(cpu);
  return seconds > 0 ? static_cast<double>(cases) / seconds : 0;
}

// The whole corpus through harness::replay (what `lockstep replay --jobs N` runs), for at least
// `budget` seconds; returns cases/s.
double measure_corpus(const cases::Corpus& corpus, const cases::BindingSet& bindings, unsigned jobs, double budget,
                      Row& row) {
  harness::ReplayOptions opt;
  opt.jobs = jobs;
  std::uint64_t cases = 0;
  double seconds = 0;
  const auto start = Clock::now();
  do {
    auto r = harness::replay(corpus, bindings, opt);
    if (!r.ok()) break;
    cases += r->total_cases();
    row.matched += r->total_matched();
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } while (seconds < budget);
  row.cases += cases;
  return seconds > 0 ? static_cast<double>(cases) / seconds : 0;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a.empty() ? "unknown" : a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir = LOCKSTEP_SOURCE_DIR "/cases/standin";
  double budget = 0.3;
  int rounds = 5;
  std::uint32_t only = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--corpus") == 0) corpus_dir = argv[i + 1];
    else if (std::strcmp(argv[i], "--seconds") == 0) budget = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--only") == 0) only = static_cast<std::uint32_t>(std::strtoul(argv[i + 1], nullptr, 0));
    else {
      std::fprintf(stderr, "usage: replay_bench [--corpus DIR] [--seconds S] [--rounds R] [--only ADDRESS]\n");
      return 2;
    }
  }
  if ((argc - 1) % 2 || budget <= 0 || rounds < 1) {
    std::fprintf(stderr, "usage: replay_bench [--corpus DIR] [--seconds S] [--rounds R] [--only ADDRESS]\n");
    return 2;
  }
  auto corpus = cases::read_corpus(corpus_dir);
  if (!corpus.ok()) {
    std::fprintf(stderr, "replay_bench: %s\n", corpus.error().message.c_str());
    return 2;
  }
  const auto bindings = lockstep::testing::pod_profiled_bindings();
  // The helpers (x87 vector routines and table readers) and the car step.
  const std::vector<std::uint32_t> helpers = {0x4d41a0, 0x4d41df, 0x4d465d, 0x4d43ad, 0x4c5e6c, 0x4c5e64};
  const std::uint32_t car_step = 0x41b66c;

  struct Measured {
    const cases::CaseFile* file;
    const cases::Binding* binding;
    Row row;
  };
  std::vector<Measured> fns;
  for (std::uint32_t fn : helpers) {
    if (only && fn != only) continue;
    for (const auto& f : corpus->files)
      if (f.function == fn && !f.cases.empty())
        if (const auto* b = cases::find_binding(bindings, fn)) fns.push_back({&f, b, Row{f.name, {}, 0, 0}});
  }
  const std::size_t n_helpers = fns.size();
  if (!only || only == car_step)
    for (const auto& f : corpus->files)
      if (f.function == car_step && !f.cases.empty())
        if (const auto* b = cases::find_binding(bindings, car_step)) fns.push_back({&f, b, Row{f.name, {}, 0, 0}});
  Row helpers_together{"helpers (all six)", {}, 0, 0};
  Row whole1{"whole corpus, 1 thread", {}, 0, 0}, whole2{"whole corpus, 2 threads", {}, 0, 0};

  std::printf("replay_bench: %s, %d rounds of %.2f s per row; load average %s\n", corpus_dir.c_str(), rounds, budget,
              load_average().c_str());
  for (int round = 0; round < rounds; ++round) {
    // Helpers together: each helper for the same time, the cases over the time.
    double helper_seconds = 0, helper_cases = 0;
    for (std::size_t i = 0; i < fns.size(); ++i) {
      const double rate = measure(*fns[i].file, *fns[i].binding, budget, fns[i].row);
      fns[i].row.rates.push_back(rate);
      if (i < n_helpers) {
        helper_seconds += budget;
        helper_cases += rate * budget;
      }
    }
    if (n_helpers) {
      helpers_together.rates.push_back(helper_cases / helper_seconds);
      double cases = 0, cpu = 0;
      for (std::size_t i = 0; i < n_helpers; ++i) {
        cases += fns[i].row.cpu_cases.back();
        cpu += fns[i].row.cpu_seconds.back();
      }
      helpers_together.cpu_cases.push_back(cases);
      helpers_together.cpu_seconds.push_back(cpu);
    }
    if (!only) {
      whole1.rates.push_back(measure_corpus(*corpus, bindings, 1, budget, whole1));
      whole2.rates.push_back(measure_corpus(*corpus, bindings, 2, budget, whole2));
    }
  }

  auto print = [](const Row& r) {
    auto [lo, hi] = std::minmax_element(r.rates.begin(), r.rates.end());
    std::printf("%-26s %14.0f   %12.0f .. %-12.0f", r.name.c_str(), r.median(), *lo, *hi);
    if (r.cases) std::printf(" %7.1f%%", 100.0 * static_cast<double>(r.matched) / static_cast<double>(r.cases));
    std::printf("\n");
  };
  std::printf("%-26s %14s   %28s %8s\n", "function", "cases/s median", "rounds' range", "matched");
  for (const auto& m : fns) print(m.row);
  if (n_helpers) print(helpers_together);
  if (!whole1.rates.empty()) {
    print(whole1);
    print(whole2);
  }
  std::printf("per second of the thread's CPU time (one thread):\n");
  auto print_cpu = [](const Row& r) {
    const std::vector<double> rates = r.cpu_rates();
    auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
    std::printf("%-26s %14.0f   %12.0f .. %-12.0f\n", (r.name + " [cpu]").c_str(), median_of(rates), *lo, *hi);
  };
  for (const auto& m : fns) print_cpu(m.row);
  if (n_helpers) print_cpu(helpers_together);
  const Row* step = nullptr;
  for (const auto& m : fns)
    if (m.file->function == car_step) step = &m.row;
  std::printf("ratios of the medians (one run):\n");
  if (step && n_helpers && step->median() > 0)
    std::printf("  helpers / car step:           %.1fx (cases per second, one thread)\n",
                helpers_together.median() / step->median());
  if (!whole1.rates.empty() && whole1.median() > 0)
    std::printf("  2 threads / 1 thread:         %.2fx (whole corpus, lockstep replay --jobs 2 vs 1)\n",
                whole2.median() / whole1.median());
  std::printf("load average after: %s\n", load_average().c_str());
  return 0;
}
