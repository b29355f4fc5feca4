// The gate is not vacuous ("The gate"): on the checked-in stand-in corpus,
//   (a) a binding whose port function is deliberately altered fails, and its report names the field
//       the alteration reaches: one constant of a port routine (dot16's rounding constant, F006/F007;
//       and drive::engine's stored speed off by a constant 1), and one byte of one write (byte 2 of
//       drive::engine's store to car[i]+0x440 engine_speed);
//   (b) a case with one input byte changed fails.
// Each mutant is checked against the unaltered binding on the same cases, so a failure is the
// mutation's and not a mismatch the port already has.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "lockstep/cases/compare.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"
#include "pod/bindings/bindings.hpp"
#include "pod/drive.hpp"
#include "pod/math.hpp"
#include "lockstep_test/pod_profiled_bindings.hpp"

namespace {

using namespace lockstep;
using pod::bindings::Returned;

constexpr std::uint32_t kDot16 = 0x4d41a0;
constexpr std::uint32_t kEngine = 0x418010;
constexpr std::uint32_t kEngineSpeed = 0x440;  // car +0x440 engine_speed (the profile's [[struct]] car)

// A pod::Memory between the port and the case's memory that changes the port's stores covering one
// guest address: `change(old byte) -> new byte` for that byte only (every other access unchanged).
class MutatingMemory final : public pod::Memory {
 public:
  MutatingMemory(pod::Memory& inner, pod::GuestAddr target, std::function<std::uint8_t(std::uint8_t)> change)
      : in_(inner), target_(target), change_(std::move(change)) {}
  std::uint8_t load8_slow(pod::GuestAddr a) override { return in_.load8(a); }
  std::uint16_t load16_slow(pod::GuestAddr a) override { return in_.load16(a); }
  std::uint32_t load32_slow(pod::GuestAddr a) override { return in_.load32(a); }
  std::uint64_t load64_slow(pod::GuestAddr a) override { return in_.load64(a); }
  void store8_slow(pod::GuestAddr a, std::uint8_t v) override { in_.store8(a, mutate(a, v, 1)); }
  void store16_slow(pod::GuestAddr a, std::uint16_t v) override { in_.store16(a, static_cast<std::uint16_t>(mutate(a, v, 2))); }
  void store32_slow(pod::GuestAddr a, std::uint32_t v) override { in_.store32(a, static_cast<std::uint32_t>(mutate(a, v, 4))); }
  void store64_slow(pod::GuestAddr a, std::uint64_t v) override { in_.store64(a, mutate(a, v, 8)); }
  int hits = 0;

 private:
  std::uint64_t mutate(pod::GuestAddr a, std::uint64_t v, unsigned n) {
    if (target_ < a || target_ - a >= n) return v;
    ++hits;
    const unsigned shift = 8 * (target_ - a);
    const auto old = static_cast<std::uint8_t>(v >> shift);
    return (v & ~(std::uint64_t{0xff} << shift)) | (std::uint64_t{change_(old)} << shift);
  }
  pod::Memory& in_;
  pod::GuestAddr target_;
  std::function<std::uint8_t(std::uint8_t)> change_;
};

struct Fixture {
  cases::Corpus corpus;
  harness::Labeler labeler;
  cases::BindingSet bindings = lockstep::testing::pod_profiled_bindings();
  std::string error;

  Fixture() {
    auto c = cases::read_corpus(LOCKSTEP_SOURCE_DIR "/cases/standin");
    if (!c.ok()) {
      error = c.error().message;
      return;
    }
    corpus = std::move(c).value();
    auto p = harness::load_profile(LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml");
    if (!p.ok()) {
      error = p.error().message;
      return;
    }
    labeler = harness::Labeler(*p);
  }

  const cases::CaseFile* file(std::uint32_t fn) const {
    for (const auto& f : corpus.files)
      if (f.function == fn) return &f;
    return nullptr;
  }

  harness::Namer namer() const {
    harness::Namer n;
    n.field = [this](std::uint32_t a) -> std::optional<harness::FieldName> {
      auto f = labeler.field(a);
      return harness::FieldName{f.start, f.size, f.text()};
    };
    return n;
  }

  // The report a porter would read for one case run through `run`.
  std::string report(const cases::Case& c, const cases::Comparison& cmp) const {
    harness::FunctionOutcome fo;
    fo.function = c.function;
    fo.name = c.name;
    fo.bound = true;
    harness::CaseOutcome co{&c, cmp};
    return harness::format_mismatch(fo, co, namer());
  }
};

Fixture& fx() {
  static Fixture f;
  return f;
}

// Runs `run` on every case of `fn` whose unaltered binding matches; returns (cases tried, cases the
// mutant failed) and the first failing report.
struct MutantOutcome {
  int tried = 0, failed = 0;
  std::string first_report;
  std::optional<cases::Comparison> first;
};

MutantOutcome run_mutant(std::uint32_t fn, const std::function<cases::PortEffects(const cases::Case&)>& run) {
  MutantOutcome out;
  const auto* file = fx().file(fn);
  const auto* good = cases::find_binding(fx().bindings, fn);
  if (file == nullptr || good == nullptr) return out;
  for (const auto& c : file->cases) {
    if (!cases::compare(c, cases::run_binding(*good, c)).matched()) continue;  // only cases the port matches
    ++out.tried;
    auto cmp = cases::compare(c, run(c));
    if (cmp.matched()) continue;
    if (out.failed++ == 0) {
      out.first_report = fx().report(c, cmp);
      out.first = std::move(cmp);
    }
  }
  return out;
}

class GateVacuity : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fx().error.empty()) GTEST_FAIL() << fx().error;
    ASSERT_NE(fx().file(kDot16), nullptr);
    ASSERT_NE(fx().file(kEngine), nullptr);
  }
};

// (a) one constant: dot16 with the rounding constant M = 1.5·2^68 (F006) replaced by 1.5·2^67, the
// sum order of F007 kept. Every product then rounds to a 2^15 grid instead of 2^16 and the read-out is
// off by a factor of two: eax must differ.
TEST_F(GateVacuity, Dot16WithAnotherRoundingConstantFailsOnEax) {
  const auto mutant = [](const cases::Case& c) {
    return pod::bindings::run_on_case(c, [](pod::Memory& m, const cases::Case& k) {
      const pod::Vec3 a = m.vec3(k.in.eax), b = m.vec3(k.in.edx);
      constexpr double kAltered = pod::math::kRound / 2;  // the one constant changed
      double s = static_cast<double>(a.x) * b.x + kAltered;
      s += static_cast<double>(a.y) * b.y;
      s += static_cast<double>(a.z) * b.z;
      return Returned{static_cast<std::uint32_t>(pod::math::low_word(s)), 0, std::nullopt};
    });
  };
  const auto r = run_mutant(kDot16, mutant);
  ASSERT_GT(r.tried, 100) << "the gate needs dot16 cases the unaltered port matches";
  // A zero (or tiny) dot product is the same under either constant; most are not.
  EXPECT_GT(r.failed, r.tried / 2) << r.failed << " of " << r.tried;
  ASSERT_TRUE(r.first.has_value());
  ASSERT_EQ(r.first->registers.size(), 1u);
  EXPECT_EQ(r.first->registers[0].name, "eax");
  EXPECT_TRUE(r.first->bytes.empty());
  EXPECT_NE(r.first_report.find("eax"), std::string::npos) << r.first_report;
}

// drive::engine through a memory that changes its store to car +0x440.
cases::PortEffects engine_mutated(const cases::Case& c, unsigned byte, std::function<std::uint8_t(std::uint8_t)> change,
                                  int* hits) {
  return pod::bindings::run_on_case(c, [&](pod::Memory& m, const cases::Case& k) {
    MutatingMemory mm(m, k.in.eax + kEngineSpeed + byte, change);
    pod::drive::engine(mm, k.in.eax, k.in.edx);
    *hits += mm.hits;
    return Returned{};
  });
}

// (a) one constant: the stored engine speed off by one unit in its last place (as a limit constant
// of F040 changed by one would leave it): the report names car[i]+0x440 engine_speed.
TEST_F(GateVacuity, EngineSpeedOffByOneFailsOnEngineSpeed) {
  int hits = 0;
  const auto r = run_mutant(kEngine, [&](const cases::Case& c) {
    return engine_mutated(c, 0, [](std::uint8_t b) { return static_cast<std::uint8_t>(b ^ 1); }, &hits);
  });
  ASSERT_GT(r.tried, 100);
  ASSERT_GT(hits, 0) << "drive::engine never stored car+0x440";
  EXPECT_EQ(r.failed, r.tried) << "every case writes the engine speed, so every mutant case must fail";
  ASSERT_TRUE(r.first.has_value());
  ASSERT_EQ(r.first->bytes.size(), 1u) << r.first_report;
  EXPECT_EQ(r.first->bytes[0].kind, cases::ByteDiff::Kind::kDifferent);
  EXPECT_NE(r.first_report.find("+0x440 engine_speed"), std::string::npos) << r.first_report;
  EXPECT_NE(r.first_report.find("car["), std::string::npos) << r.first_report;
}

// (a) one byte of one write: byte 2 of the engine-speed store, its top bit flipped. Exactly that byte
// differs, inside the field the report names.
TEST_F(GateVacuity, OneByteOfOneWriteFailsWithTheFieldNamed) {
  int hits = 0;
  const auto r = run_mutant(kEngine, [&](const cases::Case& c) {
    return engine_mutated(c, 2, [](std::uint8_t b) { return static_cast<std::uint8_t>(b ^ 0x80); }, &hits);
  });
  ASSERT_GT(r.tried, 100);
  EXPECT_EQ(r.failed, r.tried);
  ASSERT_TRUE(r.first.has_value());
  ASSERT_EQ(r.first->bytes.size(), 1u) << r.first_report;
  const auto& d = r.first->bytes[0];
  const auto field = fx().labeler.field(d.address);
  EXPECT_EQ(field.field, "engine_speed");
  EXPECT_EQ(d.address - field.start, 2u);
  ASSERT_TRUE(d.original && d.port);
  EXPECT_EQ(*d.original ^ *d.port, 0x80);
  EXPECT_NE(r.first_report.find("+0x440 engine_speed"), std::string::npos) << r.first_report;
  EXPECT_NE(r.first_report.find('*'), std::string::npos) << r.first_report;
}

// (b) one input byte changed: the top byte of one of dot16's a components (bit 24 flipped), the one
// whose b component is largest, in cases where |b_k| >= 0x100: the result then moves by at least
// 2^24 · 2^8 / 2^16 = 2^16, far beyond the read-out's rounding of at most one unit per addition.
TEST_F(GateVacuity, OneInputByteChangedFails) {
  const auto* file = fx().file(kDot16);
  const auto* good = cases::find_binding(fx().bindings, kDot16);
  ASSERT_NE(good, nullptr);
  int changed = 0;
  for (const auto& original : file->cases) {
    auto word = [&](std::uint32_t a) -> std::optional<std::int32_t> {
      std::uint32_t v = 0;
      for (std::uint32_t i = 0; i < 4; ++i) {
        auto b = original.inputs.get(a + i);
        if (!b) return std::nullopt;
        v |= std::uint32_t{*b} << (8 * i);
      }
      return static_cast<std::int32_t>(v);
    };
    int k = -1;
    std::uint32_t most = 0;
    for (int i = 0; i < 3; ++i) {
      auto b = word(original.in.edx + 4 * static_cast<std::uint32_t>(i));
      if (b && pod::math::uabs(*b) > most) most = pod::math::uabs(*b), k = i;
    }
    if (k < 0 || most < 0x100) continue;
    const std::uint32_t top = original.in.eax + 4 * static_cast<std::uint32_t>(k) + 3;
    if (!original.inputs.get(top) || !cases::compare(original, cases::run_binding(*good, original)).matched()) continue;
    cases::Case poked = original;
    poked.inputs.set(top, static_cast<std::uint8_t>(*original.inputs.get(top) ^ 0x01));
    const auto cmp = cases::compare(poked, cases::run_binding(*good, poked));
    EXPECT_FALSE(cmp.matched()) << "case " << original.id << ": a changed input byte went unnoticed";
    ASSERT_EQ(cmp.registers.size(), 1u);
    EXPECT_EQ(cmp.registers[0].name, "eax");
    if (++changed == 50) break;
  }
  EXPECT_EQ(changed, 50) << "needs 50 dot16 cases with a b component of at least 0x100";
}

}  // namespace
