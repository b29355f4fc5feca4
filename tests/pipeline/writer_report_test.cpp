// A mismatch report points at the cause: under each differing field the original wrote, the
// original's instruction that wrote it last (from the case file's writer runs) with its data slice.
//
// The port here is deliberately wrong: drive::engine's binding with one byte of its store to
// car[i]+0x440 engine_speed (the profile's [[struct]] car) changed. The expected writer is found
// independently of the recorder: the stores in drive::engine's listing (disassembled from the code
// bytes the case file carries) whose memory operand has displacement 0x440.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

#include "lockstep/cases/case_file.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/disasm/data_slice.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"
#include "pod/bindings/bindings.hpp"
#include "lockstep_test/pod_profiled_bindings.hpp"

namespace {

using namespace lockstep;

constexpr std::uint32_t kEngine = 0x418010;       // drive::engine
constexpr std::int64_t kEngineSpeedOffset = 0x440;  // car record: engine_speed (harness/profiles/pod.toml)

// drive::engine's binding, with the first engine_speed byte the port writes flipped.
cases::BindingSet wrong_engine(const harness::Labeler& labels) {
  cases::BindingSet set = lockstep::testing::pod_profiled_bindings();
  for (auto& b : set) {
    if (b.address != kEngine) continue;
    b = cases::with_edited_effects(std::move(b), [&labels](const cases::Case&, cases::PortEffects& fx) {
      std::optional<std::uint32_t> at;
      fx.writes.for_each([&](std::uint32_t a, std::uint8_t) {
        if (!at && labels.name(a).find("engine_speed") != std::string::npos &&
            labels.name(a).find("wheel_engine_speed") == std::string::npos)
          at = a;
      });
      if (at) fx.writes.set(*at, static_cast<std::uint8_t>(*fx.writes.get(*at) ^ 0x5a));
    });
  }
  return set;
}

// The addresses of drive::engine's instructions that store to [reg + 0x440], from its listing: the
// code the case file carries, its entry's and its private helpers' (the stand-in's C body).
std::set<std::uint32_t> stores_to_engine_speed(const cases::CaseFile& f) {
  std::vector<cases::CodeRange> ranges = f.helper_code;
  ranges.push_back({f.code_base, f.code});
  harness::Disassembler dis;
  harness::ReadMemory read = [&ranges](std::uint32_t a, std::uint32_t n) {
    std::vector<std::uint8_t> out;
    for (const auto& r : ranges) {
      if (a < r.base || a - r.base >= r.bytes.size()) continue;
      const std::size_t off = a - r.base;
      out.assign(r.bytes.begin() + static_cast<std::ptrdiff_t>(off),
                 r.bytes.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(r.bytes.size(), off + n)));
    }
    return out;
  };
  std::set<std::uint32_t> out;
  for (const auto& ins : dis.function(read, f.function, 20000, [](std::uint32_t) { return true; })) {
    const bool store = ins.mnemonic.starts_with("fst") || ins.mnemonic.starts_with("fist") ||
                       (ins.mnemonic == "mov" && ins.operands.find("ptr [") < ins.operands.find(','));
    if (!store) continue;
    for (const auto& m : ins.memory)
      if (m.disp == kEngineSpeedOffset && !m.base.empty()) out.insert(ins.address);
  }
  return out;
}

TEST(WriterReport, AMismatchNamesTheStoreThatWroteTheField) {
  auto corpus = cases::read_corpus(LOCKSTEP_SOURCE_DIR "/cases/standin");
  ASSERT_TRUE(corpus.ok()) << corpus.error().message;
  auto profile = harness::load_profile(LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  const harness::Labeler labels(*profile);
  const cases::CaseFile* engine = nullptr;
  for (const auto& f : corpus->files)
    if (f.function == kEngine) engine = &f;
  ASSERT_NE(engine, nullptr);
  ASSERT_FALSE(engine->cases.empty());
  ASSERT_TRUE(engine->cases[0].writers_known()) << "the checked-in corpus is captured with writers (version 3)";
  const std::set<std::uint32_t> stores = stores_to_engine_speed(*engine);
  ASSERT_FALSE(stores.empty()) << "drive::engine's listing has no store to +0x440";

  harness::ReplayOptions opt;
  opt.functions = {kEngine};
  opt.only_case = std::make_pair(kEngine, engine->cases[0].id);
  const cases::BindingSet bindings = wrong_engine(labels);
  auto result = harness::replay(*corpus, bindings, opt);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->functions.size(), 1u);
  const harness::FunctionOutcome& fo = result->functions[0];
  ASSERT_EQ(fo.failures.size(), 1u) << "the flipped byte makes the case mismatch";
  const std::string text = harness::format_mismatch(fo, fo.failures[0], harness::corpus_namer(*corpus, &labels));

  // "  car[0]+0x440 engine_speed:" then original / port / marks, then "    byte 0x... written last by 0x...:"
  // and the context lines, the writer's marked '>'.
  const std::size_t field = text.find("+0x440 engine_speed:");
  ASSERT_NE(field, std::string::npos) << text;
  std::smatch m;
  const std::string after = text.substr(field);
  ASSERT_TRUE(std::regex_search(after, m, std::regex("written last by 0x([0-9a-f]{8}):\n"))) << text;
  const std::uint32_t writer = static_cast<std::uint32_t>(std::stoul(m[1].str(), nullptr, 16));
  EXPECT_TRUE(stores.count(writer)) << "0x" << std::hex << writer << " is not a store to +0x440 in:\n" << text;
  // The data slice: instructions of the listing (or `...` between them), then the writer marked '>'.
  std::istringstream lines(m.suffix().str());
  std::string line;
  std::size_t before = 0;
  bool found_writer = false;
  while (std::getline(lines, line) && (line.starts_with("      ") || line.starts_with("    > "))) {
    if (line.starts_with("    > ")) break;
    ++before;
  }
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", writer);
  found_writer = line.starts_with("    > ") && line.find(hex) != std::string::npos;
  EXPECT_TRUE(found_writer) << "no '>' line for the writer:\n" << text;
  EXPECT_LE(before, harness::kMaxSliceInstructions) << text;

  // Every byte shown was written by both sides: no `..`, so no legend for it.
  EXPECT_EQ(text.find(" .. "), std::string::npos) << text;
  EXPECT_EQ(text.find("(`..`: a byte not written"), std::string::npos) << text;
  // A port that leaves the field's bytes unwritten: its line shows `..`, and the legend says what it means.
  cases::BindingSet silent = lockstep::testing::pod_profiled_bindings();
  for (auto& b : silent)
    if (b.address == kEngine)
      b = cases::with_edited_effects(std::move(b), [&labels](const cases::Case&, cases::PortEffects& fx) {
        cases::ByteMap kept;
        fx.writes.for_each([&](std::uint32_t a, std::uint8_t v) {
          if (labels.name(a).find(" engine_speed") == std::string::npos) kept.set(a, v);
        });
        fx.writes = kept;
      });
  auto silent_result = harness::replay(*corpus, silent, opt);
  ASSERT_TRUE(silent_result.ok());
  ASSERT_EQ(silent_result->functions[0].failures.size(), 1u);
  const std::string silent_text = harness::format_mismatch(silent_result->functions[0],
                                                           silent_result->functions[0].failures[0],
                                                           harness::corpus_namer(*corpus, &labels));
  EXPECT_NE(silent_text.find("    port     .. .. .. .. "), std::string::npos) << silent_text;
  EXPECT_NE(silent_text.find("(`..`: a byte not written: on the port's line, one the port did not write"), std::string::npos)
      << silent_text;

  // The same case without writers (as a file of version 2 reads): the report says they are unknown.
  cases::Corpus old = *corpus;
  for (auto& f : old.files)
    for (auto& c : f.cases) c.writers.clear();
  auto old_result = harness::replay(old, bindings, opt);
  ASSERT_TRUE(old_result.ok());
  ASSERT_EQ(old_result->functions[0].failures.size(), 1u);
  const std::string old_text = harness::format_mismatch(old_result->functions[0], old_result->functions[0].failures[0],
                                                        harness::corpus_namer(old, &labels));
  EXPECT_NE(old_text.find("no writers: this case file predates version 3"), std::string::npos) << old_text;
  EXPECT_EQ(old_text.find("written last by"), std::string::npos) << old_text;
}

}  // namespace
