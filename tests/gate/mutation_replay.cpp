// The replay gate as scripts/mutate runs it on each mutant of the port: every case of the named
// corpora replayed through pod::bindings, one line per function (its counts) and per mismatching case
// (its differences), in a fixed order. The first run writes the lines of the unmutated port; a
// mutant's run is given them (--expect) and stops at the first line that differs: the mutant is
// killed (exit 1). Exit 0: every line agreed (the mutant survived). Links only the cases layer, the
// port and its bindings, so a mutant costs one object's compile and one link.
//
//   lockstep_mutation_replay [--expect FILE] CORPUS...
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lockstep/cases/compare.hpp"
#include "lockstep/cases/corpus.hpp"
#include "pod/bindings/bindings.hpp"
#include "lockstep_test/pod_profiled_bindings.hpp"

namespace {

using namespace lockstep;

std::string outcome_line(const cases::Case& c, const cases::Comparison& cmp) {
  std::string s = fmt::format("  case {}:", c.id);
  for (const auto& b : cmp.bytes)
    s += fmt::format(" {}@{:08x}={}", static_cast<int>(b.kind), b.address, b.port ? int{*b.port} : -1);
  for (auto a : cmp.outside_reads) s += fmt::format(" read@{:08x}", a);
  for (const auto& r : cmp.registers) s += fmt::format(" {}={}", r.name, r.port);
  if (!cmp.port_error.empty()) s += " error:" + cmp.port_error;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> corpora;
  std::vector<std::string> expected;
  bool expecting = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      if (!in) {
        std::fprintf(stderr, "lockstep_mutation_replay: cannot read %s\n", argv[i]);
        return 2;
      }
      expecting = true;
      for (std::string line; std::getline(in, line);) expected.push_back(line);
    } else {
      corpora.emplace_back(argv[i]);
    }
  }
  if (corpora.empty()) {
    std::fprintf(stderr, "usage: lockstep_mutation_replay [--expect FILE] CORPUS...\n");
    return 2;
  }
  const cases::BindingSet bindings = lockstep::testing::pod_profiled_bindings();
  std::size_t at = 0;
  // Prints a line, or compares it with the expected one: false at the first difference.
  auto emit = [&](const std::string& line) {
    if (!expecting) {
      std::printf("%s\n", line.c_str());
      return true;
    }
    if (at >= expected.size() || expected[at] != line) {
      std::printf("killed at line %zu:\n  expected: %s\n  got:      %s\n", at + 1,
                  at < expected.size() ? expected[at].c_str() : "(end)", line.c_str());
      return false;
    }
    ++at;
    return true;
  };
  for (const std::string& dir : corpora) {
    auto corpus = cases::read_corpus(dir);
    if (!corpus.ok()) {
      std::fprintf(stderr, "lockstep_mutation_replay: %s\n", corpus.error().message.c_str());
      return 2;
    }
    for (const auto& file : corpus->files) {
      const cases::Binding* b = cases::find_binding(bindings, file.function);
      if (!b) continue;
      // The function's line, then each mismatching case's as it is found (so a mutant that breaks a
      // case stops the run there), then the count.
      if (!emit(fmt::format("{} {:08x} {}", dir, file.function, file.name))) return 1;
      std::size_t matched = 0;
      for (const auto& c : file.cases) {
        const auto cmp = cases::compare(c, cases::run_binding(*b, c));
        if (cmp.matched()) ++matched;
        else if (!emit(outcome_line(c, cmp))) return 1;
      }
      if (!emit(fmt::format("  {} of {} matched", matched, file.cases.size()))) return 1;
    }
  }
  if (expecting && at != expected.size()) {
    std::printf("killed: %zu lines expected, %zu given\n", expected.size(), at);
    return 1;
  }
  return 0;
}
