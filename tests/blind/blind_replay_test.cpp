// The blind reading replayed on every checked-in corpus: each case of a function the blind reading
// has (blind_bindings.hpp) runs the blind code and is compared with the stand-in's bytes, as the gate
// compares the port's. Where the blind reading and the port read the documents differently, the
// stand-in (written from the port's reading) and the blind code disagree: disagreements.txt lists
// every such case, each with the reason it stays (README.md, "Disagreements"). The test fails on a
// disagreement the list does not hold, and on a listed one that went away, so the list stays exact
// and a later change to the port that departs from the blind reading shows here.
//
// LOCKSTEP_BLIND_WRITE=FILE writes the disagreements found, in the list's format (reason "?"), so a
// new blind reading's list can be started from them; the reasons are then written by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "blind_bindings.hpp"
#include "pod/addresses.hpp"
#include "pod/blind.hpp"
#include "pod/race.hpp"
#include "lockstep/cases/compare.hpp"
#include "lockstep/cases/corpus.hpp"

namespace {

namespace fs = std::filesystem;

// The checked-in corpora (cases/): every one a function of the blind reading may have cases in.
const char* const kCorpora[] = {"standin",       "standin-catch-up", "standin-putback", "standin-cars",
                                "standin-props", "standin-paths",    "standin-smoke",   "standin-loop",
                                "standin-search", "standin-boundaries"};

// "corpus 0xADDRESS:ID" for a case.
std::string key(const std::string& corpus, std::uint32_t address, std::uint32_t id) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s 0x%08x:%u", corpus.c_str(), address, id);
  return buf;
}

// The list: "corpus 0xADDRESS:ID  reason" per line, # comments and blank lines skipped.
std::map<std::string, std::string> read_list(const fs::path& file) {
  std::map<std::string, std::string> list;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string corpus, at, reason;
    s >> corpus >> at;
    std::getline(s, reason);
    list[corpus + " " + at] = reason;
  }
  return list;
}

// The first difference of a comparison, for a message.
std::string first_difference(const lockstep::cases::Comparison& cmp) {
  std::ostringstream o;
  if (!cmp.port_error.empty()) return "error: " + cmp.port_error;
  if (!cmp.bytes.empty()) {
    o << "byte 0x" << std::hex << cmp.bytes.front().address << " (" << std::dec << cmp.bytes.size() << " bytes differ)";
  } else if (!cmp.registers.empty()) {
    o << "register " << cmp.registers.front().name;
  } else if (!cmp.outside_reads.empty()) {
    o << "reads 0x" << std::hex << cmp.outside_reads.front() << " (" << std::dec << cmp.outside_reads.size()
      << " bytes the original never read)";
  }
  return o.str();
}

TEST(BlindReading, EveryCorpusReplaysAsTheDisagreementListSays) {
  const fs::path root = LOCKSTEP_SOURCE_DIR;
  const auto list = read_list(root / "tests/blind/disagreements.txt");
  const lockstep::cases::BindingSet set = pod::blind::bindings();
  std::map<std::string, std::string> found;  // key -> first difference
  std::map<std::string, std::pair<int, int>> per_function;  // "name in corpus" -> (cases, disagreeing)
  for (const char* corpus : kCorpora) {
    const fs::path dir = root / "cases" / corpus;
    if (!fs::exists(dir / "manifest.json")) continue;
    auto read = lockstep::cases::read_corpus(dir);
    ASSERT_TRUE(read.ok()) << dir << ": " << read.error().message;
    for (const auto& file : read.value().files) {
      const auto* binding = lockstep::cases::find_binding(set, file.function);
      if (binding == nullptr) continue;
      auto& counts = per_function[binding->name + " in " + corpus];
      for (const auto& c : file.cases) {
        ++counts.first;
        const auto cmp = lockstep::cases::compare(c, binding->run(c));
        if (cmp.matched()) continue;
        ++counts.second;
        found[key(corpus, file.function, c.id)] = first_difference(cmp);
      }
    }
  }
  for (const auto& [what, counts] : per_function)
    std::printf("%-44s %5d cases, %5d disagree\n", what.c_str(), counts.first, counts.second);
  if (const char* out = std::getenv("LOCKSTEP_BLIND_WRITE")) {
    std::ofstream o(out);
    for (const auto& [k, diff] : found) o << k << "  ? " << diff << "\n";
  }
  for (const auto& [k, diff] : found)
    EXPECT_TRUE(list.count(k)) << k << ": the blind reading disagrees (" << diff << "), and the list does not say why";
  for (const auto& [k, reason] : list)
    EXPECT_TRUE(found.count(k)) << k << " is listed (" << reason << ") but now agrees: take it off the list";
  EXPECT_FALSE(per_function.empty()) << "no case of any blind function: the corpora are missing";
}

// race::race_step has no cases (it runs the racers' controllers): the blind reading's is compared
// with the port's on the race step's own words, for every kind of frame — no step (a time trial's
// countdown), one step, n steps at and past 3 × the unit, the longest frame — with no racers, so the
// simulation steps themselves (the port's sim_step in both) write only the frame block. Every byte
// of the words the race step reads or writes, and its report, must be the same.
TEST(BlindReading, RaceStepAgreesWithThePortOnEveryKindOfFrame) {
  struct Words {
    std::int32_t frame_time, unit, time_trial, phase;
  };
  std::vector<Words> kinds;
  for (std::int32_t unit : {0x888, 0x1000})
    for (std::int32_t f : {65, 0x888, 3 * 0x888, 3 * 0x888 + 1, 3 * 0x1000 + 1, 12345, 30000})
      for (std::int32_t trial : {0, 1})
        for (std::int32_t phase : {0, 1}) kinds.push_back({f, unit, trial, phase});
  const auto run = [](const Words& k, bool blind) {
    pod::FlatMemory m;
    m.map(pod::addr::kPassFrameTime, 8);
    m.map(pod::addr::kStepUnit, 4);
    m.map(pod::addr::kHumanRacers, 0x10);  // the racer counts (0) and the time-trial word
    m.map(pod::addr::kFrameTime, pod::addr::kFrameTimeSize);
    m.map(pod::addr::kRaceBlock, pod::addr::kRaceBlockEnd - pod::addr::kRaceBlock);
    m.map(pod::addr::kPropCount, 0x168);  // the props' words: none
    m.put_i32(pod::addr::kPassFrameTime, k.frame_time);
    m.put_i32(pod::addr::kStepUnit, k.unit);
    m.put_i32(pod::addr::kTimeTrial, k.time_trial);
    m.put_i32(pod::addr::kRaceBlock, k.phase);
    m.put_i32(pod::addr::kFrameTime + 4, 0x123456);  // a frame-time sum so far
    m.put_i32(pod::addr::kFrameTime + 0xc, 7);       // steps so far
    const pod::race::Racers racers;
    const pod::race::PassOut out = blind ? pod::blind::race::race_step(m, racers) : pod::race::race_step(m, racers);
    std::vector<std::uint8_t> frame(pod::addr::kFrameTimeSize);
    m.read_bytes(pod::addr::kFrameTime, frame.data(), frame.size());
    return std::tuple{out.frame_time, out.steps.size(), frame};
  };
  for (const Words& k : kinds) {
    EXPECT_EQ(run(k, true), run(k, false)) << "frame time " << k.frame_time << ", unit " << k.unit << ", time trial "
                                           << k.time_trial << ", phase " << k.phase;
  }
}

}  // namespace
