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
                                "standin-search", "standin-boundaries", "standin-damage-veto",
                                "standin-time-trial"};

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

// A u32 the original read in the case (0 when it did not read all four bytes).
std::uint32_t input_u32(const lockstep::cases::Case& c, std::uint32_t a) {
  std::uint32_t v = 0;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const auto b = c.inputs.get(a + i);
    if (!b) return 0;
    v |= static_cast<std::uint32_t>(*b) << (8 * i);
  }
  return v;
}

// Where a case differs, in words a reader can group by cause: each differing or outside-read word as
// an offset in the record eax points at (the car, for most functions; for props::motion, whose eax
// is a number, the prop's record "prop+" and its contact points "cpoint+", from the list the call
// read) or as an address, with the original's and the blind reading's bytes.
std::string where(const lockstep::cases::Case& c, const lockstep::cases::Comparison& cmp) {
  std::ostringstream o;
  std::uint32_t prop = 0, points = 0, point_count = 0;
  if (c.function == 0x454a98) {  // props::motion: the list [0x62129c], 0xd0 a prop, points at +0xb8
    const std::uint32_t list = input_u32(c, 0x62129c);
    if (list != 0) prop = list + c.in.eax * 0xd0;
    if (prop != 0) points = input_u32(c, prop + 0xb8), point_count = input_u32(c, prop + 0x30);
  }
  const auto name = [&](std::uint32_t a) {
    char buf[40];
    if (prop != 0 && a >= prop && a < prop + 0xd0)
      std::snprintf(buf, sizeof buf, "prop+0x%x", a - prop);
    else if (points != 0 && a >= points && a < points + 0x40 * point_count)
      std::snprintf(buf, sizeof buf, "cpoint+0x%x", (a - points) % 0x40);
    else if (prop == 0 && a >= c.in.eax && a < c.in.eax + 0x558)
      std::snprintf(buf, sizeof buf, "eax+0x%x", a - c.in.eax);
    else
      std::snprintf(buf, sizeof buf, "0x%x", a);
    return std::string(buf);
  };
  std::uint32_t last = 0;
  for (const auto& b : cmp.bytes) {
    if (last != 0 && b.address < last + 4) continue;  // one entry a word
    last = b.address;
    o << " " << name(b.address) << (b.kind == lockstep::cases::ByteDiff::Kind::kExtraWrite ? "(extra)"
                                    : b.kind == lockstep::cases::ByteDiff::Kind::kNotWritten ? "(unwritten)"
                                                                                               : "");
  }
  for (const auto a : cmp.outside_reads) o << " read:" << name(a);
  for (const auto& r : cmp.registers) o << " " << r.name << ":" << r.original << "/" << r.port;
  if (!cmp.port_error.empty()) o << " error:" << cmp.port_error;
  return o.str();
}

TEST(BlindReading, EveryCorpusReplaysAsTheDisagreementListSays) {
  const fs::path root = LOCKSTEP_SOURCE_DIR;
  const auto list = read_list(root / "tests/blind/disagreements.txt");
  const lockstep::cases::BindingSet set = pod::blind::bindings();
  std::map<std::string, std::string> found;  // key -> first difference
  std::map<std::string, std::string> detail;  // key -> every difference (LOCKSTEP_BLIND_DETAIL)
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
        const auto cmp = lockstep::cases::compare(c, lockstep::cases::run_binding(*binding, c));
        if (cmp.matched()) continue;
        ++counts.second;
        found[key(corpus, file.function, c.id)] = first_difference(cmp);
        detail[key(corpus, file.function, c.id)] = where(c, cmp);
      }
    }
  }
  for (const auto& [what, counts] : per_function)
    std::printf("%-44s %5d cases, %5d disagree\n", what.c_str(), counts.first, counts.second);
  if (const char* out = std::getenv("LOCKSTEP_BLIND_WRITE")) {
    std::ofstream o(out);
    for (const auto& [k, diff] : found) o << k << "  ? " << diff << "\n";
  }
  if (const char* out = std::getenv("LOCKSTEP_BLIND_DETAIL")) {
    std::ofstream o(out);
    for (const auto& [k, diff] : detail) o << k << " " << diff << "\n";
  }
  for (const auto& [k, diff] : found)
    EXPECT_TRUE(list.count(k)) << k << ": the blind reading disagrees (" << diff << "), and the list does not say why";
  for (const auto& [k, reason] : list) {
    if (k.rfind("race-step ", 0) == 0) continue;  // the race step's own test checks those
    EXPECT_TRUE(found.count(k)) << k << " is listed (" << reason << ") but now agrees: take it off the list";
  }
  EXPECT_FALSE(per_function.empty()) << "no case of any blind function: the corpora are missing";
}

// race::race_step has no cases (it runs the racers' controllers): the blind reading's is compared
// with the port's on the race step's own words, for every kind of frame — no step (a time trial's
// countdown), one step, n steps at and past 3 × the unit, the longest frame — with no racers, so the
// simulation steps themselves (the port's sim_step in both) write only the frame block. Every byte
// of the words the race step reads or writes, and its report, must be the same, but for the kinds of
// frame disagreements.txt lists ("race-step FRAME:UNIT:TIME_TRIAL:PHASE"), which must differ.
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
  const fs::path root = LOCKSTEP_SOURCE_DIR;
  std::map<std::string, std::string> listed;
  for (const auto& [k, reason] : read_list(root / "tests/blind/disagreements.txt"))
    if (k.rfind("race-step ", 0) == 0) listed[k] = reason;
  std::set<std::string> found;
  for (const Words& k : kinds) {
    const std::string name = "race-step " + std::to_string(k.frame_time) + ":" + std::to_string(k.unit) + ":" +
                             std::to_string(k.time_trial) + ":" + std::to_string(k.phase);
    const auto blind = run(k, true);
    const auto port = run(k, false);
    if (blind == port) {
      EXPECT_FALSE(listed.count(name)) << name << " is listed (" << listed[name] << ") but now agrees: take it off the list";
      continue;
    }
    found.insert(name);
    EXPECT_TRUE(listed.count(name)) << name << ": the blind race step disagrees with the port's (" << std::get<1>(blind)
                                    << " steps against " << std::get<1>(port) << "), and the list does not say why";
  }
  if (const char* out = std::getenv("LOCKSTEP_BLIND_WRITE")) {
    std::ofstream o(out, std::ios::app);
    for (const auto& k : found) o << k << "  ?\n";
  }
}

}  // namespace
