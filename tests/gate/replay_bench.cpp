// Replay throughput ("What must be shown"): cases per second, one thread, for the small
// arithmetic helpers and for the whole car step, measured in one run on the stand-in corpus. Each
// case is the full replay path the gate uses: the binding (the case's sparse memory, the port
// function) and the byte-for-byte comparison. A benchmark, not a test: it asserts nothing about time.
//
//   replay_bench [--corpus DIR] [--seconds S]      (defaults: cases/standin, 1 s per function)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lockstep/cases/compare.hpp"
#include "lockstep/cases/corpus.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

using namespace lockstep;
using Clock = std::chrono::steady_clock;

struct Row {
  std::string name;
  std::uint64_t cases = 0;
  double seconds = 0;
  std::uint64_t matched = 0;
  double rate() const { return seconds > 0 ? static_cast<double>(cases) / seconds : 0; }
};

// Replays every case of `file` over and over for at least `budget` seconds.
Row measure(const cases::CaseFile& file, const cases::Binding& b, double budget) {
  Row r;
  r.name = file.name;
  const auto start = Clock::now();
  do {
    for (const auto& c : file.cases) {
      const auto fx = b.run(c);
      r.matched += cases::compare(c, fx).matched() ? 1 : 0;
    }
    r.cases += file.cases.size();
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } while (r.seconds < budget && !file.cases.empty());
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir = LOCKSTEP_SOURCE_DIR "/cases/standin";
  double budget = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--corpus") == 0) corpus_dir = argv[i + 1];
    else if (std::strcmp(argv[i], "--seconds") == 0) budget = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: replay_bench [--corpus DIR] [--seconds S]\n");
      return 2;
    }
  }
  auto corpus = cases::read_corpus(corpus_dir);
  if (!corpus.ok()) {
    std::fprintf(stderr, "replay_bench: %s\n", corpus.error().message.c_str());
    return 2;
  }
  const auto bindings = pod::bindings::all();
  // The helpers (x87 vector routines and table readers) and the car step.
  const std::vector<std::uint32_t> helpers = {0x4d41a0, 0x4d41df, 0x4d465d, 0x4d43ad, 0x4c5e6c, 0x4c5e64};
  const std::uint32_t car_step = 0x41b66c;

  std::vector<Row> rows;
  Row helpers_total{"helpers (all six)"};
  auto run = [&](std::uint32_t fn) -> const Row* {
    for (const auto& f : corpus->files) {
      if (f.function != fn || f.cases.empty()) continue;
      const auto* b = cases::find_binding(bindings, fn);
      if (b == nullptr) return nullptr;
      rows.push_back(measure(f, *b, budget));
      return &rows.back();
    }
    return nullptr;
  };
  for (auto fn : helpers) {
    if (const Row* r = run(fn)) {
      helpers_total.cases += r->cases;
      helpers_total.seconds += r->seconds;
      helpers_total.matched += r->matched;
    }
  }
  const Row* step = run(car_step);
  const Row step_row = step ? *step : Row{"step::step"};

  std::printf("%-26s %12s %10s %14s %10s\n", "function", "cases run", "seconds", "cases/s", "matched");
  for (const auto& r : rows)
    std::printf("%-26s %12llu %10.3f %14.0f %9.1f%%\n", r.name.c_str(), static_cast<unsigned long long>(r.cases),
                r.seconds, r.rate(), r.cases ? 100.0 * static_cast<double>(r.matched) / static_cast<double>(r.cases) : 0);
  std::printf("%-26s %12llu %10.3f %14.0f\n", helpers_total.name.c_str(),
              static_cast<unsigned long long>(helpers_total.cases), helpers_total.seconds, helpers_total.rate());
  if (step_row.rate() > 0)
    std::printf("helpers / car step: %.1f× (cases per second, one thread)\n", helpers_total.rate() / step_row.rate());
  return 0;
}
