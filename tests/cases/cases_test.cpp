// The cases layer: byte sets, the case file (round trip and every malformed-input error), corpora,
// the replay memory and the comparison rules of "Case semantics" (cases/docs/case-format.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "lockstep/base/io.hpp"
#include "lockstep/cases/case_file.hpp"
#include "lockstep/cases/compare.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cases/replay_memory.hpp"

namespace lockstep::cases {
namespace {

std::vector<std::uint8_t> B(std::initializer_list<int> v) {
  std::vector<std::uint8_t> out;
  for (int x : v) out.push_back(static_cast<std::uint8_t>(x));
  return out;
}

TEST(ByteMap, MergesTouchingAndOverlappingRuns) {
  ByteMap m;
  m.set(0x1000, B({1, 2}));
  m.set(0x1004, B({5}));
  EXPECT_EQ(m.runs().size(), 2u);
  m.set(0x1002, B({3, 4}));  // fills the gap: one run 0x1000..0x1005
  ASSERT_EQ(m.runs().size(), 1u);
  EXPECT_EQ(m.runs()[0].bytes, B({1, 2, 3, 4, 5}));
  m.set(0x0fff, B({9, 8}));  // overlaps the start, overwrites 0x1000
  EXPECT_EQ(m.runs()[0].base, 0x0fffu);
  EXPECT_EQ(m.runs()[0].bytes, B({9, 8, 2, 3, 4, 5}));
  EXPECT_EQ(m.byte_count(), 6u);
  m.erase(0x1001);
  EXPECT_EQ(m.runs().size(), 2u);
  EXPECT_FALSE(m.contains(0x1001));
  EXPECT_TRUE(m.contains_all(0x1002, 3));
  EXPECT_FALSE(m.contains_all(0x1000, 3));
}

TEST(ByteMap, SetIfAbsentKeepsTheFirstValue) {
  // "read before written": a byte read twice keeps the value first read.
  ByteMap m;
  m.set_if_absent(0x10, B({1, 2, 3}));
  m.set_if_absent(0x11, B({7, 7, 7, 7}));
  ASSERT_EQ(m.runs().size(), 1u);
  EXPECT_EQ(m.runs()[0].bytes, B({1, 2, 3, 7, 7}));
}

TEST(ByteMap, HandlesTheTopOfTheAddressSpace) {
  ByteMap m;
  m.set(0xfffffffe, B({1, 2}));
  EXPECT_EQ(m.get(0xffffffff), 2);
  EXPECT_TRUE(m.contains_all(0xfffffffe, 2));
}

// The byte map against a plain model (one std::map entry per byte) on random sets, appends, erases
// and first-value-wins sets, around the top of the address space too: after every change the runs
// (maximal, ascending, never touching), lookups, cursors and equality agree with the model. The map
// keeps its runs in one store that a change in the middle leaves holes in, so long sequences of
// changes (and the compaction they set off) are what this exercises.
TEST(ByteMap, AgreesWithAPlainModelOnRandomChanges) {
  std::uint64_t seed = 0x2545f4914f6cdd1du;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  const std::vector<std::uint32_t> bases = {0x00630800u, 0xfffff000u, 0x00000000u};  // the middle one ends at 4 GiB
  for (int round = 0; round < 30; ++round) {
    ByteMap m;
    std::map<std::uint32_t, std::uint8_t> model;
    const std::uint32_t base = bases[static_cast<std::size_t>(round) % bases.size()];
    for (int op = 0; op < 600; ++op) {
      const std::uint32_t span = 0x1000;
      const std::uint32_t at = base + static_cast<std::uint32_t>(next() % span);
      std::vector<std::uint8_t> bytes(1 + next() % (next() % 4 == 0 ? 300 : 9));
      for (auto& b : bytes) b = static_cast<std::uint8_t>(next());
      if (std::uint64_t{at} + bytes.size() > std::uint64_t{base} + span) bytes.resize(base + span - at);
      switch (next() % 5) {
        case 0:
        case 1:
          m.set(at, bytes);
          for (std::size_t i = 0; i < bytes.size(); ++i) model[static_cast<std::uint32_t>(at + i)] = bytes[i];
          break;
        case 2:
          m.set_if_absent(at, bytes);
          for (std::size_t i = 0; i < bytes.size(); ++i) model.emplace(static_cast<std::uint32_t>(at + i), bytes[i]);
          break;
        case 3: {  // above everything held (a scan's way), or anywhere (append falls back to set)
          const std::uint32_t top = model.empty() ? at : model.rbegin()->first;
          const bool above = next() % 2 && top < base + span - 16;
          const std::uint32_t from = above ? top + static_cast<std::uint32_t>(next() % 3) : at;
          if (std::uint64_t{from} + bytes.size() > std::uint64_t{base} + span) bytes.resize(base + span - from);
          m.append(from, bytes);
          for (std::size_t i = 0; i < bytes.size(); ++i) model[static_cast<std::uint32_t>(from + i)] = bytes[i];
          break;
        }
        case 4:
          for (int k = 0; k < 8; ++k) {
            const std::uint32_t a = at + static_cast<std::uint32_t>(k * 3);
            m.erase(a);
            model.erase(a);
          }
          break;
      }
      // The model's runs.
      std::vector<ByteMap::Run> want;
      for (const auto& [a, v] : model) {
        if (want.empty() || want.back().end() != a) want.push_back({a, {}});
        want.back().bytes.push_back(v);
      }
      const auto got = m.runs();
      ASSERT_EQ(got.size(), want.size()) << "round " << round << " op " << op;
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i].base, want[i].base) << "round " << round << " op " << op << " run " << i;
        ASSERT_EQ(got[i].bytes, want[i].bytes) << "round " << round << " op " << op << " run " << i;
        const auto view = m.run(i);
        ASSERT_EQ(view.base, want[i].base);
        ASSERT_TRUE(std::equal(view.bytes.begin(), view.bytes.end(), want[i].bytes.begin(), want[i].bytes.end()));
      }
      ASSERT_EQ(m.byte_count(), model.size());
      ASSERT_EQ(m.run_count(), want.size());
    }
    // Lookups of single bytes, of ranges, of the run from an address, and a cursor, over the span.
    ByteMap::Cursor cursor(m);
    for (std::uint32_t a = base; a != base + 0x1000; ++a) {
      const auto it = model.find(a);
      const std::optional<std::uint8_t> want = it == model.end() ? std::nullopt : std::optional(it->second);
      ASSERT_EQ(m.get(a), want) << std::hex << a;
      ASSERT_EQ(cursor.get(a), want) << std::hex << a;
      bool all4 = true;
      for (std::uint32_t k = 0; k < 4; ++k) all4 = all4 && a + k != base + 0x1000 && model.count(a + k);
      ASSERT_EQ(m.contains_all(a, 4), all4) << std::hex << a;
      const std::size_t i = m.run_from(a);
      const auto above = model.lower_bound(a);
      if (above == model.end()) {
        ASSERT_EQ(i, m.run_count());
      } else {
        ASSERT_LT(i, m.run_count());
        ASSERT_TRUE(m.run(i).base <= above->first && above->first < m.run(i).end()) << std::hex << a;
        ASSERT_TRUE(i == 0 || m.run(i - 1).end() <= a) << std::hex << a;
      }
    }
    // Equality: the same bytes built another way (byte by byte, in reverse) are equal; one byte
    // more or one changed is not.
    ByteMap same;
    for (auto it = model.rbegin(); it != model.rend(); ++it) same.set(it->first, it->second);
    EXPECT_TRUE(m == same) << "round " << round;
    if (!model.empty()) {
      ByteMap changed = same;
      changed.set(model.begin()->first, static_cast<std::uint8_t>(model.begin()->second + 1));
      EXPECT_FALSE(m == changed);
      changed = same;
      changed.erase(model.rbegin()->first);
      EXPECT_FALSE(m == changed);
    }
  }
}

TEST(ByteMap, TakesItsOwnBytes) {
  // A map handed bytes it holds itself (a run's view, while the store may move as it grows).
  ByteMap m;
  m.set(0x100, B({1, 2, 3, 4}));
  m.set(0x200, B({5, 6}));
  const auto view = m.run(0).bytes;
  m.set(0x1ff, view);  // joins 0x200's run, and overwrites it, from the bytes of 0x100's run
  m.append(0x300, m.run(0).bytes);
  ASSERT_EQ(m.runs().size(), 3u);
  EXPECT_EQ(m.runs()[1].base, 0x1ffu);
  EXPECT_EQ(m.runs()[1].bytes, B({1, 2, 3, 4}));
  EXPECT_EQ(m.runs()[2].bytes, B({1, 2, 3, 4}));
}

CaseFile make_file(GuestAddr fn, std::string name, std::vector<Case> cases) {
  CaseFile f;
  f.function = fn;
  f.name = std::move(name);
  f.cases = std::move(cases);
  return f;
}

Case sample_case(std::uint32_t id) {
  Case c;
  c.id = id;
  c.function = 0x41af80;
  c.name = "tyres::tyres";
  c.convention = Convention::kWatcom;
  c.returns = ReturnKind::kEax;
  c.in.esp = 0x00190000;  // a Windows-like stack below the data
  c.in.eax = 0x630838;
  c.in.x87.st[0][9] = 0x3f;
  c.out = c.in;
  c.out.eax = 42;
  c.inputs.set(0x630838 + 0x38, B({0, 0, 0, 0}));
  c.inputs.set(0x0018ff00, B({0x11, 0x22, 0x33, 0x44}));  // below esp: stale
  c.writes.set(0x630838 + 0x38, B({1}));
  c.writers = {{0x630838 + 0x38, 1, 0x41b00c}};
  c.frame_bytes_written = 64;
  c.origin = {"ab12", "CTRL", 7, 3, 2, 0};
  c.pokes.push_back({0x630838, B({0xff})});
  c.note = "made by hand";
  return c;
}

TEST(CaseFile, RoundTripIsIdenticalAndDeterministic) {
  CaseFile f = make_file(0x41af80, "tyres::tyres", {sample_case(0), sample_case(1)});
  f.code_base = 0x41af80;
  f.code = B({0x55, 0x8b, 0xec, 0xc3});
  f.helper_code = {{0x804f000, B({0x90, 0xc3})}, {0x8050000, B({0xc3})}};
  auto bytes = encode_case_file(f);
  EXPECT_EQ(bytes, encode_case_file(f));
  auto back = decode_case_file(bytes, "t.lkcases");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->function, f.function);
  EXPECT_EQ(back->name, f.name);
  EXPECT_EQ(back->code, f.code);
  EXPECT_EQ(back->code_base, f.code_base);
  EXPECT_EQ(back->helper_code, f.helper_code);
  // Helper ranges overlapping the entry's code or each other, or out of order, are refused.
  for (const auto& bad : std::vector<std::vector<CodeRange>>{{{0x41af82, B({0x90})}},
                                                             {{0x804f000, B({0x90, 0xc3})}, {0x804f001, B({0xc3})}},
                                                             {{0x8050000, B({0xc3})}, {0x804f000, B({0xc3})}}}) {
    CaseFile g = f;
    g.helper_code = bad;
    auto r = decode_case_file(encode_case_file(g), "bad.lkcases");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::kMalformed) << r.error().message;
  }
  ASSERT_EQ(back->cases.size(), 2u);
  EXPECT_EQ(back->cases[0], f.cases[0]);
  EXPECT_EQ(back->cases[1].stale_input_count(), 4u);
  EXPECT_TRUE(back->cases[1].poked());
}

class CaseFileErrors : public ::testing::Test {
 protected:
  std::vector<std::uint8_t> good = encode_case_file(make_file(0x41af80, "tyres::tyres", {sample_case(0)}));
  Errc decode_error(const std::vector<std::uint8_t>& b) {
    auto r = decode_case_file(b, "bad.lkcases");
    EXPECT_FALSE(r.ok());
    if (r.ok()) return Errc::kMismatch;
    EXPECT_NE(r.error().message.find("bad.lkcases"), std::string::npos) << r.error().message;
    return r.error().code;
  }
  void put32(std::vector<std::uint8_t>& b, std::size_t off, std::uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
};

TEST_F(CaseFileErrors, Truncated) {
  auto b = good;
  b.resize(20);
  EXPECT_EQ(decode_error(b), Errc::kTruncated);
  b = good;
  b.resize(b.size() - 5);
  EXPECT_EQ(decode_error(b), Errc::kTruncated);
}
TEST_F(CaseFileErrors, BadMagic) {
  auto b = good;
  b[0] = 'X';
  EXPECT_EQ(decode_error(b), Errc::kBadMagic);
}
TEST_F(CaseFileErrors, Version) {
  auto b = good;
  put32(b, 8, 99);
  EXPECT_EQ(decode_error(b), Errc::kBadVersion);
}
TEST_F(CaseFileErrors, CountPastLimit) {
  auto b = good;
  put32(b, 16, CaseFileLimits{}.max_cases + 1);
  EXPECT_EQ(decode_error(b), Errc::kLimit);
}
TEST_F(CaseFileErrors, BodySizePastLimit) {
  auto b = good;
  std::uint64_t huge = CaseFileLimits{}.max_body_bytes + 1;
  std::memcpy(b.data() + 24, &huge, 8);
  EXPECT_EQ(decode_error(b), Errc::kLimit);
}
// A caller's own bounds are the reader's: each one set just below what a valid file holds is refused
// with kLimit naming that bound, and the file decodes under the defaults.
TEST(CaseFileBounds, ACallersOwnBoundsAreHonoured) {
  CaseFile file = make_file(0x41af80, "tyres::tyres", {sample_case(0), sample_case(1)});
  file.code_base = 0x41af80;
  file.code = B({0x55, 0x89, 0xe5, 0xc3});
  file.helper_code = {{0x41c000, B({0xc3})}};
  const auto bytes = encode_case_file(file);
  ASSERT_TRUE(decode_case_file(bytes, "ok.lkcases").ok());
  std::uint64_t body_size = 0;
  std::memcpy(&body_size, bytes.data() + 24, 8);  // the header's body size (case-format.md)

  auto refused = [&](CaseFileLimits limits, std::string_view says) {
    auto r = decode_case_file(bytes, "small.lkcases", limits);
    ASSERT_FALSE(r.ok()) << says;
    EXPECT_EQ(r.error().code, Errc::kLimit) << r.error().message;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  };
  refused({.max_cases = 1}, "small.lkcases: 2 cases, past the limit of 1");
  refused({.max_body_bytes = body_size - 1}, fmt::format("body of {} bytes, past the limit of {}", body_size, body_size - 1));
  // sample_case's inputs are two runs of 4 bytes, its one poke 1 byte.
  refused({.max_runs_per_map = 1}, "input bytes has 2 runs at offset");
  refused({.max_run_bytes = 3}, "input bytes run 0 at offset");
  refused({.max_pokes = 0}, "case 0 has 1 pokes, past the limit of 0");
  refused({.max_string_bytes = 11}, "function name at offset 0x0 is 12 bytes long, past the limit of 11");
  refused({.max_code_bytes = 4}, "helper code range 0 at 0x0041c000 has 1 bytes (1 or more, at most 4 code bytes");
  refused({.max_code_bytes = 3}, "4 code bytes, past the limit of 3");
  refused({.max_helper_ranges = 0}, "1 helper code ranges, past the limit of 0");
}

TEST_F(CaseFileErrors, Checksum) {
  auto b = good;
  put32(b, 32, 0xdeadbeef);
  EXPECT_EQ(decode_error(b), Errc::kChecksum);
}
TEST_F(CaseFileErrors, CorruptCompressedBody) {
  auto b = good;
  for (std::size_t i = 44; i < b.size(); i += 7) b[i] ^= 0x5a;
  Errc e = decode_error(b);
  EXPECT_TRUE(e == Errc::kMalformed || e == Errc::kChecksum) << errc_name(e);
}
TEST_F(CaseFileErrors, OverlappingRunsInTheBody) {
  // Re-encode a body by hand whose input map has two overlapping runs.
  Case c = sample_case(0);
  c.function = 0x1000;
  CaseFile f = make_file(0x1000, "f", {c});
  auto enc = encode_case_file(f);
  auto dec = decode_case_file(enc, "ok");
  ASSERT_TRUE(dec.ok());
  // Find the serialized input map in the raw body and make run 2 start inside run 1.
  std::uint64_t raw_size;
  std::memcpy(&raw_size, enc.data() + 24, 8);
  auto raw = zlib_decompress(std::span(enc).subspan(40), raw_size, "t");
  ASSERT_TRUE(raw.ok());
  // Locate "runs=2, base=0x0018ff00" (the stale run comes first by address) then "base=0x630870".
  std::vector<std::uint8_t> r = *raw;
  std::uint32_t stale = 0x0018ff00, car = 0x630838 + 0x38;
  std::size_t at = 0;
  for (std::size_t i = 0; i + 4 <= r.size(); ++i)
    if (std::memcmp(r.data() + i, &car, 4) == 0 && i >= 12 && std::memcmp(r.data() + i - 12, &stale, 4) == 0) {
      at = i;
      break;
    }
  ASSERT_NE(at, 0u);
  std::uint32_t inside = stale + 1;
  std::memcpy(r.data() + at, &inside, 4);
  auto packed = zlib_compress(r);
  std::vector<std::uint8_t> b(enc.begin(), enc.begin() + 40);
  std::uint32_t crc = crc32(r), psize = static_cast<std::uint32_t>(packed.size());
  std::memcpy(b.data() + 32, &crc, 4);
  std::memcpy(b.data() + 36, &psize, 4);
  b.insert(b.end(), packed.begin(), packed.end());
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
}

/// A corpus of two functions: math::dot16 with one case, tyres::tyres with two.
struct TwoFunctionCorpus {
  Manifest manifest{"pod-2.8", "", "", "snap", "log", "lockstep capture ...", "car_step", {}};
  std::vector<CaseFile> files{make_file(0x4d41a0, "math::dot16", {sample_case(0)}),
                              make_file(0x41af80, "tyres::tyres", {sample_case(0), sample_case(1)})};
  TwoFunctionCorpus() { files[0].cases[0].function = 0x4d41a0; }
};

TEST(Corpus, WriteReadAndDeterminism) {
  auto dir = std::filesystem::temp_directory_path() / ("lockstep_corpus_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const TwoFunctionCorpus two;
  const Manifest& m = two.manifest;
  const std::vector<CaseFile>& files = two.files;
  ASSERT_TRUE(write_corpus(dir, m, files).ok());
  auto first = read_file(dir / "manifest.json");
  ASSERT_TRUE(write_corpus(dir, m, files).ok());
  EXPECT_EQ(*read_file(dir / "manifest.json"), *first);
  auto c = read_corpus(dir);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->manifest.functions.size(), 2u);
  EXPECT_EQ(c->manifest.functions[0].function, 0x41af80u);  // sorted by address
  EXPECT_EQ(c->manifest.functions[0].file, "0041af80_tyres-tyres.lkcases");
  EXPECT_EQ(c->manifest.functions[0].poked, 2u);
  EXPECT_EQ(c->files[0].cases.size(), 2u);
  // A manifest that lies about a count is refused.
  auto man = *read_file(dir / "manifest.json");
  std::string s(man.begin(), man.end());
  auto pos = s.find("\"cases\": 2");
  ASSERT_NE(pos, std::string::npos);
  s.replace(pos, 10, "\"cases\": 3");
  ASSERT_TRUE(write_file_atomic(dir / "manifest.json", s).ok());
  auto bad = read_corpus(dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::kMalformed);
  std::filesystem::remove_all(dir);
}

// The corpus's own bounds, a caller's smaller ones honoured: the manifest's function count and size,
// each entry's case count, and the case files' bounds passed on to every file read.
TEST(Corpus, ACallersOwnLimitsAreHonoured) {
  auto dir = std::filesystem::temp_directory_path() / ("lockstep_corpus_limits_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const TwoFunctionCorpus two;
  const Manifest& m = two.manifest;
  const std::vector<CaseFile>& files = two.files;
  ASSERT_TRUE(write_corpus(dir, m, files).ok());
  ASSERT_TRUE(read_corpus(dir).ok());
  const auto manifest_size = std::filesystem::file_size(dir / "manifest.json");

  auto refused = [&](const CorpusLimits& limits, Errc code, std::string_view says) {
    auto c = read_corpus(dir, limits);
    ASSERT_FALSE(c.ok()) << says;
    EXPECT_EQ(c.error().code, code) << c.error().message;
    EXPECT_NE(c.error().message.find(says), std::string::npos) << c.error().message;
  };
  CorpusLimits few_functions, small_manifest, few_cases, no_pokes;
  few_functions.max_functions = 1;
  small_manifest.max_manifest_bytes = manifest_size - 1;
  few_cases.case_file.max_cases = 1;
  no_pokes.case_file.max_pokes = 0;
  refused(few_functions, Errc::kMalformed, "\"functions\" must be an array of 1 to 1 entries");
  refused(small_manifest, Errc::kLimit,
          fmt::format("is {} bytes, past the limit of {} bytes", manifest_size, manifest_size - 1));
  refused(few_cases, Errc::kMalformed, "\"cases\" must be a whole number from 0 to 1");
  refused(no_pokes, Errc::kLimit, "case 0 has 1 pokes, past the limit of 0");
  auto manifest = read_manifest(dir, few_functions);
  ASSERT_FALSE(manifest.ok());
  EXPECT_NE(manifest.error().message.find("1 to 1 entries"), std::string::npos) << manifest.error().message;
  std::filesystem::remove_all(dir);
}

// The manifest as the format document says it must be: each defect a hostile user found is refused
// with kMalformed (or kBadMagic/kBadVersion) naming the place, never taken or thrown.
TEST(Corpus, ManifestIsCheckedFieldByField) {
  const std::string ok_entry =
      R"({"address": "0x0041af80", "name": "tyres::tyres", "file": "0041af80_tyres-tyres.lkcases", "cases": 2, "poked": 0})";
  auto manifest = [](const std::string& functions, const std::string& total, const std::string& head =
                         R"("format": "lockstep-corpus", "version": 1)") {
    return "{" + head + R"(, "profile": "pod-2.8", "functions": [)" + functions + R"(], "total_cases": )" + total + "}";
  };
  auto good = decode_manifest(manifest(ok_entry, "2"), "m.json");
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->functions[0].function, 0x41af80u);

  // Version 2 records the profile's file; version 1 (above) records none and still loads.
  const std::string sha(64, 'c');
  auto v2 = decode_manifest(manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 2, )"
                                                    R"("profile_path": "../../harness/profiles/pod.toml", )"
                                                    R"("profile_sha256": ")" + sha + R"(")"),
                            "m.json");
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  EXPECT_EQ(v2->profile_path, "../../harness/profiles/pod.toml");
  EXPECT_EQ(v2->profile_sha256, sha);
  EXPECT_EQ(good->profile_path, "");

  struct Bad {
    std::string text;
    Errc code;
    std::string says;
  };
  const std::string second =
      R"({"address": "0x004d41a0", "name": "math::dot16", "file": "004d41a0_math-dot16.lkcases", "cases": 1})";
  const std::vector<Bad> bad = {
      {manifest(ok_entry, "2", R"("format": 5, "version": 1)"), Errc::kBadMagic, "format"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": "1")"), Errc::kBadVersion, "version"},
      {manifest("", "0"), Errc::kMalformed, "1 to"},
      {manifest(ok_entry, "3"), Errc::kMalformed, "total_cases"},
      {manifest(ok_entry, "\"2\""), Errc::kMalformed, "total_cases"},
      {manifest(ok_entry + "," + ok_entry, "4"), Errc::kMalformed, "listed twice"},
      {manifest(second + "," + ok_entry, "3"), Errc::kMalformed, "out of order"},
      {manifest(R"({"address": "0x0041af80", "name": "a", "file": "x.lkcases", "cases": 1}, )"
                R"({"address": "0x0041af84", "name": "b", "file": "x.lkcases", "cases": 1})", "2"),
       Errc::kMalformed, "named twice"},
      {manifest(R"({"address": "0x0041af80", "name": "a", "file": "a.lkcases", "cases": 4294967363})", "67"),
       Errc::kMalformed, "\"cases\""},
      {manifest(R"({"address": "0x1004191c4", "name": "a", "file": "a.lkcases", "cases": 1})", "1"),
       Errc::kMalformed, "0x1004191c4"},
      {manifest(R"({"address": "car[3]", "name": "a", "file": "a.lkcases", "cases": 1})", "1"), Errc::kMalformed,
       "car[3]"},
      {manifest(R"({"address": "0x0041af80", "name": "a", "file": "a.lkcases", "cases": -1})", "1"),
       Errc::kMalformed, "\"cases\""},
      {manifest(R"({"address": "0x0041af80", "name": "a", "file": "a.lkcases", "cases": 1, "poked": 2})", "1"),
       Errc::kMalformed, "poked"},
      {manifest(R"({"address": "0x0041af80", "name": 7, "file": "a.lkcases", "cases": 1})", "1"), Errc::kMalformed,
       "name"},
      {manifest(R"({"address": "0x0041af80", "name": "a", "file": "../a.lkcases", "cases": 1})", "1"),
       Errc::kMalformed, "plain name"},
      {manifest(R"({"address": "0x0041af80", "name": "a", "file": "a.lkcases", "cases": 0})", "0"), Errc::kMalformed,
       "no cases"},
      {"[1, 2]", Errc::kMalformed, "JSON"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 3)"), Errc::kBadVersion, "version"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 0)"), Errc::kBadVersion, "version"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 2, "profile_path": "../p.toml")"),
       Errc::kMalformed, "come together"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 2, "profile_sha256": ")" + sha + R"(")"),
       Errc::kMalformed, "come together"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 2, "profile_path": "p.toml", )"
                               R"("profile_sha256": ")" + sha.substr(1) + R"(")"),
       Errc::kMalformed, "64 lowercase hex"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 2, "profile_path": "p.toml", )"
                               R"("profile_sha256": ")" + std::string(63, 'a') + R"(G")"),
       Errc::kMalformed, "64 lowercase hex"},
      {manifest(ok_entry, "2", R"("format": "lockstep-corpus", "version": 2, "profile_path": 7, )"
                               R"("profile_sha256": ")" + sha + R"(")"),
       Errc::kMalformed, "profile_path"},
  };
  for (const Bad& b : bad) {
    auto m = decode_manifest(b.text, "m.json");
    ASSERT_FALSE(m.ok()) << b.text;
    EXPECT_EQ(m.error().code, b.code) << b.text << "\n" << m.error().message;
    EXPECT_NE(m.error().message.find(b.says), std::string::npos) << m.error().message;
    EXPECT_EQ(m.error().message.rfind("m.json", 0), 0u) << m.error().message;
  }
}

TEST(CaseFile, RefusesARepeatedCaseId) {
  CaseFile f = make_file(0x41af80, "tyres::tyres", {sample_case(0), sample_case(1), sample_case(1)});
  auto d = decode_case_file(encode_case_file(f), "t.lkcases");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, Errc::kMalformed);
  EXPECT_NE(d.error().message.find("case 2 has id 1"), std::string::npos) << d.error().message;
}

// A corpus is replaced as a whole: the new folder takes the old one's place, nothing half-written or
// temporary stays, other files in the folder are kept, and a path that is a file is refused (exit 2).
TEST(Corpus, IsReplacedAsAWhole) {
  auto root = std::filesystem::temp_directory_path() / ("lockstep_whole_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  const auto dir = root / "corpus";
  Manifest m{"pod-2.8", "", "", "snap", "log", "lockstep capture ...", "car_step", {}};
  std::vector<CaseFile> two{make_file(0x41af80, "tyres::tyres", {sample_case(0), sample_case(1)})};
  ASSERT_TRUE(write_corpus(dir, m, two).ok());
  std::ofstream(dir / "NOTES.txt") << "kept";
  std::ofstream(dir / "00000001_gone.lkcases") << "an old case file no manifest names";
  // A folder where the new corpus writes a case file: before, the write failed half-way (exit 4) and
  // left the corpus unloadable; now the new folder is written aside and swapped in.
  std::filesystem::create_directories(dir / "0041af80_tyres-tyres.lkcases.in-the-way");
  std::filesystem::remove(dir / "0041af80_tyres-tyres.lkcases");
  std::filesystem::create_directories(dir / "0041af80_tyres-tyres.lkcases");
  // What killed writers leave: a half-written new folder and an old one of a pid that is gone.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  std::filesystem::create_directories(root / ("corpus.new." + std::to_string(child)));
  std::filesystem::create_directories(root / ("corpus.old." + std::to_string(child)));

  std::vector<CaseFile> one{make_file(0x41af80, "tyres::tyres", {sample_case(0)})};
  ASSERT_TRUE(write_corpus(dir / "", m, one).ok());  // a trailing slash names the same folder
  auto c = read_corpus(dir);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->files[0].cases.size(), 1u);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(root)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"corpus"}) << "left beside the corpus: " << names.size() << " entries";
  EXPECT_TRUE(std::filesystem::exists(dir / "NOTES.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir / "00000001_gone.lkcases"));

  // A corpus path that is a file: usage (exit 2), not an I/O error (exit 4), for writing and reading.
  std::ofstream(root / "afile") << "x";
  auto w = write_corpus(root / "afile", m, one);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, Errc::kUsage);
  auto r = read_corpus(root / "afile");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kUsage);
  EXPECT_EQ(exit_code_for(r.error().code), kExitBadInput);
  std::filesystem::remove_all(root);
}

// Stale-stack bytes are those on the stack below the entry esp, not every byte at a lower address:
// with the stack at 0xff.. (Linux) a game's globals at 0x4.. were counted stale before.
TEST(Case, StaleMeansOnTheStackBelowEsp) {
  Case c = sample_case(0);
  c.in.esp = 0xffffd000;
  c.stack_low = 0xfffdd000;
  c.stack_high = 0xffffe000;
  EXPECT_FALSE(c.is_stale(0x630838)) << "a global below the stack is no stale-stack byte";
  EXPECT_TRUE(c.is_stale(0xffffcffc));
  EXPECT_TRUE(c.is_stale(0xfffdd000));
  EXPECT_FALSE(c.is_stale(0xfffdcfff));
  EXPECT_FALSE(c.is_stale(0xffffd000));
  // The bounds survive the file; bounds that do not hold esp are refused.
  CaseFile f = make_file(0x41af80, "tyres::tyres", {c});
  auto back = decode_case_file(encode_case_file(f), "t.lkcases");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->cases[0].stack_low, 0xfffdd000u);
  EXPECT_EQ(back->cases[0].stack_high, 0xffffe000u);
  f.cases[0].stack_high = 0xffffc000;
  auto bad = decode_case_file(encode_case_file(f), "t.lkcases");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::kMalformed);
}

// A version-1 file (no stack bounds) is still read, its bounds 0 (not recorded).
TEST(CaseFile, ReadsVersionOne) {
  auto v1 = read_case_file(LOCKSTEP_SOURCE_DIR "/tests/fuzz/corpus/case_file/automatic.lkcases");
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  ASSERT_FALSE(v1->cases.empty());
  EXPECT_EQ(v1->cases[0].stack_low, 0u);
  EXPECT_EQ(v1->cases[0].stack_high, 0u);
  EXPECT_FALSE(v1->cases[0].writers_known() && !v1->cases[0].writes.empty()) << "version 1 records no writers";
  auto again = decode_case_file(encode_case_file(*v1), "v3.lkcases");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cases, v1->cases);
}

// Version 3's writer runs: who wrote each written byte last, checked against the writes.
Case case_with_writers(std::vector<WriterRun> writers) {
  Case c = sample_case(0);
  c.writes.clear();
  c.writes.set(0x1000, B({1, 2, 3, 4}));
  c.writes.set(0x2000, B({5, 6}));
  c.writers = std::move(writers);
  return c;
}

TEST(CaseFile, WriterRunsRoundTripAndNameEachByte) {
  Case c = case_with_writers({{0x1000, 1, 0x41b000}, {0x1001, 3, 0x41b010}, {0x2000, 2, 0x41b000}});
  auto back = decode_case_file(encode_case_file(make_file(0x41af80, "tyres::tyres", {c})), "t.lkcases");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->cases[0], c);
  const Case& b = back->cases[0];
  EXPECT_TRUE(b.writers_known());
  EXPECT_EQ(b.writer_of(0x1000), 0x41b000u);
  EXPECT_EQ(b.writer_of(0x1003), 0x41b010u);
  EXPECT_EQ(b.writer_of(0x2001), 0x41b000u);
  EXPECT_EQ(b.writer_of(0x1004), std::nullopt);
  EXPECT_EQ(b.writer_of(0xfff), std::nullopt);
  // No writer runs with writes: none recorded (a case carried over from an older file).
  Case old = case_with_writers({});
  EXPECT_FALSE(old.writers_known());
  EXPECT_EQ(old.writer_of(0x1000), std::nullopt);
  auto back_old = decode_case_file(encode_case_file(make_file(0x41af80, "tyres::tyres", {old})), "t.lkcases");
  ASSERT_TRUE(back_old.ok()) << back_old.error().message;
  EXPECT_FALSE(back_old->cases[0].writers_known());
}

TEST(CaseFile, RefusesWriterRunsThatDoNotCoverTheWrites) {
  const std::vector<std::pair<std::vector<WriterRun>, std::string>> bad = {
      {{{0x1000, 4, 1}}, "leave written bytes"},                                         // 0x2000.. uncovered
      {{{0x1000, 4, 1}, {0x2000, 1, 2}}, "leave written bytes"},                         // 0x2001 uncovered
      {{{0x1001, 3, 1}, {0x2000, 2, 1}}, "starts at 0x00001001"},                        // 0x1000 uncovered
      {{{0x1000, 2, 1}, {0x1001, 3, 2}, {0x2000, 2, 1}}, "starts at 0x00001001"},        // overlap
      {{{0x1000, 2, 1}, {0x1002, 2, 1}, {0x2000, 2, 1}}, "share the writer"},            // one writer, two runs
      {{{0x1000, 5, 1}, {0x2000, 2, 1}}, "runs past"},                                   // past a run of writes
      {{{0x2000, 2, 1}, {0x1000, 4, 1}}, "starts at 0x00002000"},                        // out of order
      {{{0x1000, 4, 1}, {0x2000, 2, 1}, {0x3000, 1, 1}}, "past the written bytes"},      // past the end
      {{{0x1000, 0, 1}, {0x1000, 4, 1}, {0x2000, 2, 1}}, "length 0"},                    // empty run
  };
  for (const auto& [runs, why] : bad) {
    auto r = decode_case_file(encode_case_file(make_file(0x41af80, "tyres::tyres", {case_with_writers(runs)})),
                              "bad.lkcases");
    ASSERT_FALSE(r.ok()) << why;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("bad.lkcases"), std::string::npos) << r.error().message;
    EXPECT_TRUE(r.error().code == Errc::kMalformed || r.error().code == Errc::kLimit) << errc_name(r.error().code);
  }
  // A case that wrote nothing has no writer runs.
  Case none = sample_case(0);
  none.writes.clear();
  none.writers = {{0x1000, 1, 1}};
  EXPECT_FALSE(decode_case_file(encode_case_file(make_file(0x41af80, "tyres::tyres", {none})), "bad.lkcases").ok());
}

// A version-2 file (no writer runs, no helper code) is still read, no writer known. Made from a
// version-3 encoding by the document's layout: the version field set to 2, the writer count (4 bytes
// after the stack bounds) and the helper code count taken out.
TEST(CaseFile, ReadsVersionTwoWithoutWriters) {
  Case c = sample_case(0);
  c.writers.clear();
  c.stack_low = 0x00100000;
  c.stack_high = 0x0019abcd;  // a value to find in the body
  auto enc = encode_case_file(make_file(0x41af80, "tyres::tyres", {c}));
  std::uint64_t raw_size;
  std::memcpy(&raw_size, enc.data() + 24, 8);
  auto raw = zlib_decompress(std::span(enc).subspan(40), raw_size, "t");
  ASSERT_TRUE(raw.ok());
  std::vector<std::uint8_t> r = *raw;
  std::size_t at = 0;
  for (std::size_t i = 4; i + 8 <= r.size(); ++i)
    if (std::memcmp(r.data() + i, &c.stack_high, 4) == 0 && std::memcmp(r.data() + i - 4, &c.stack_low, 4) == 0) at = i + 4;
  ASSERT_NE(at, 0u);
  std::uint32_t count;
  std::memcpy(&count, r.data() + at, 4);
  ASSERT_EQ(count, 0u);
  r.erase(r.begin() + static_cast<std::ptrdiff_t>(at), r.begin() + static_cast<std::ptrdiff_t>(at) + 4);
  // The helper code count (0) after the function name ("tyres::tyres", 4 + 12 bytes) and the code's
  // base and length (8 bytes, no code) goes too.
  constexpr std::ptrdiff_t kHelperCount = 4 + 12 + 8;
  std::memcpy(&count, r.data() + kHelperCount, 4);
  ASSERT_EQ(count, 0u);
  r.erase(r.begin() + kHelperCount, r.begin() + kHelperCount + 4);
  auto packed = zlib_compress(r);
  std::vector<std::uint8_t> b(enc.begin(), enc.begin() + 40);
  std::uint32_t version = 2, crc = crc32(r), psize = static_cast<std::uint32_t>(packed.size());
  std::uint64_t size = r.size();
  std::memcpy(b.data() + 8, &version, 4);
  std::memcpy(b.data() + 24, &size, 8);
  std::memcpy(b.data() + 32, &crc, 4);
  std::memcpy(b.data() + 36, &psize, 4);
  b.insert(b.end(), packed.begin(), packed.end());
  auto v2 = decode_case_file(b, "v2.lkcases");
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  EXPECT_EQ(v2->cases[0], c);
  EXPECT_FALSE(v2->cases[0].writers_known());
}

TEST(ReplayMemory, ReadsInputsAndOwnWritesAndRecordsOutsideReads) {
  Case c = sample_case(0);
  ReplayMemory mem(c);
  std::uint8_t buf[6];
  mem.load(0x630838 + 0x36, buf);  // 2 bytes outside, 4 inputs
  EXPECT_EQ(buf[0], 0);
  EXPECT_EQ(mem.outside_reads(), (std::vector<GuestAddr>{0x630838 + 0x36, 0x630838 + 0x37}));
  std::uint8_t w = 9;
  mem.store(0x630838 + 0x36, {&w, 1});
  mem.load(0x630838 + 0x36, {buf, 1});
  EXPECT_EQ(buf[0], 9);
  EXPECT_EQ(mem.outside_reads().size(), 2u);  // the own write did not add an outside read
}

// The replay memory against a plain model of its rule (the port's own writes, else the case's
// inputs, else 0 and an outside read), on random accesses of the port's widths and of any length,
// across page boundaries and around the top of the address space.
TEST(ReplayMemory, AgreesWithAPlainModelOnRandomAccesses) {
  std::uint64_t seed = 0x9e3779b97f4a7c15u;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  const std::vector<std::uint32_t> bases = {0x00630800u, 0x0018fff0u, 0xfffffe00u, 0x00000000u};
  for (int round = 0; round < 40; ++round) {
    Case c;
    std::map<std::uint32_t, std::uint8_t> inputs;  // the model's inputs, byte by byte
    for (int r = 0; r < 12; ++r) {
      const std::uint32_t at = bases[next() % bases.size()] + static_cast<std::uint32_t>(next() % 0x600);
      const std::size_t len = 1 + next() % 300;
      std::vector<std::uint8_t> bytes(len);
      for (auto& b : bytes) b = static_cast<std::uint8_t>(next());
      if (std::uint64_t{at} + len > (std::uint64_t{1} << 32)) continue;
      c.inputs.set(at, bytes);
      for (std::size_t i = 0; i < len; ++i) inputs[static_cast<std::uint32_t>(at + i)] = bytes[i];
    }
    std::map<std::uint32_t, std::uint8_t> written;
    std::set<std::uint32_t> outside;
    ReplayMemory mem(c);
    for (int op = 0; op < 400; ++op) {
      const std::uint32_t at = bases[next() % bases.size()] + static_cast<std::uint32_t>(next() % 0x700) - 0x40;
      const bool wide = next() % 8 == 0;  // now and then a long span, else a port-width access
      const unsigned n = wide ? 1 + static_cast<unsigned>(next() % 600) : (1u << (next() % 4));
      if (next() % 3 == 0) {
        std::vector<std::uint8_t> bytes(n);
        for (auto& b : bytes) b = static_cast<std::uint8_t>(next());
        if (wide) {
          mem.store(at, bytes);
        } else {
          std::uint64_t v = 0;
          std::memcpy(&v, bytes.data(), n);
          mem.store_le(at, v, n);
        }
        for (unsigned i = 0; i < n; ++i) written[static_cast<std::uint32_t>(at + i)] = bytes[i];
      } else {
        std::vector<std::uint8_t> want(n);
        for (unsigned i = 0; i < n; ++i) {
          const std::uint32_t a = static_cast<std::uint32_t>(at + i);
          if (auto w = written.find(a); w != written.end()) want[i] = w->second;
          else if (auto in = inputs.find(a); in != inputs.end()) want[i] = in->second;
          else outside.insert(a);
        }
        std::vector<std::uint8_t> got(n);
        if (wide) {
          mem.load(at, got);
        } else {
          const std::uint64_t v = mem.load_le(at, n);
          std::memcpy(got.data(), &v, n);
        }
        ASSERT_EQ(got, want) << "round " << round << " load of " << n << " at 0x" << std::hex << at;
      }
    }
    ByteMap want_writes;
    for (const auto& [a, v] : written) want_writes.set(a, v);
    EXPECT_EQ(mem.writes(), want_writes) << "round " << round;
    EXPECT_EQ(mem.outside_reads(), std::vector<GuestAddr>(outside.begin(), outside.end())) << "round " << round;
  }
}

TEST(ReplayMemory, TwoAtOnceOnOneThreadStayApart) {
  Case a = sample_case(0), b = sample_case(1);
  b.inputs.set(0x630838 + 0x38, B({7, 7, 7, 7}));
  ReplayMemory ma(a);
  {
    ReplayMemory mb(b);
    mb.store_le(0x630838 + 0x38, 0x01020304, 4);
    EXPECT_EQ(ma.load_le(0x630838 + 0x38, 4), 0u);
    EXPECT_EQ(mb.load_le(0x630838 + 0x38, 4), 0x01020304u);
  }
  ReplayMemory mc(b);  // a fresh case reuses the store the one before left: nothing of it shows
  EXPECT_EQ(mc.load_le(0x630838 + 0x38, 4), 0x07070707u);
  EXPECT_TRUE(mc.writes().empty());
  EXPECT_TRUE(ma.writes().empty());
}

TEST(Compare, NamesEachKindOfDifference) {
  Case c = sample_case(0);
  c.writes.set(0x630900, B({1, 2}));
  PortEffects p;
  p.eax = 42;
  p.writes.set(0x630838 + 0x38, B({1}));  // same
  p.writes.set(0x630900, B({1, 3}));      // second byte differs
  p.writes.set(0x630a00, B({7}));         // extra
  // 0x630901 differs; 0x630a00 extra; nothing missing.
  auto cmp = compare(c, p);
  ASSERT_EQ(cmp.bytes.size(), 2u);
  EXPECT_EQ(cmp.bytes[0].address, 0x630901u);
  EXPECT_EQ(cmp.bytes[0].kind, ByteDiff::Kind::kDifferent);
  EXPECT_EQ(cmp.bytes[1].kind, ByteDiff::Kind::kExtraWrite);
  EXPECT_TRUE(cmp.registers.empty());
  EXPECT_FALSE(cmp.matched());
  PortEffects q;
  q.eax = 41;
  auto cmp2 = compare(c, q);
  EXPECT_EQ(cmp2.bytes.size(), 3u);  // nothing written: all three original bytes missing
  EXPECT_EQ(cmp2.bytes[0].kind, ByteDiff::Kind::kNotWritten);
  ASSERT_EQ(cmp2.registers.size(), 1u);
  EXPECT_EQ(cmp2.registers[0].name, "eax");
}

TEST(Compare, OutsideReadsFailByDefault) {
  Case c = sample_case(0);
  PortEffects p;
  p.eax = 42;
  p.writes = c.writes;
  EXPECT_TRUE(compare(c, p).matched());
  p.outside_reads = {0x1234};
  EXPECT_FALSE(compare(c, p).matched());
  EXPECT_TRUE(compare(c, p, {.outside_reads_fail = false}).matched());
}

#if defined(__x86_64__) || defined(__i386__)
TEST(F80, MatchesTheHostX87Format) {
  // On x86 the host's long double is the x87 80-bit format: an independent check of f64_to_f80.
  for (double v : {0.0, -0.0, 1.0, -1.5, 1.0 / 3.0, 65536.0 * 65536.0, 5e-324, 2.2250738585072014e-308,
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity()}) {
    long double ld = v;
    std::array<std::uint8_t, 10> host{};
    std::memcpy(host.data(), &ld, 10);
    EXPECT_EQ(f64_to_f80(v), host) << v;
    EXPECT_EQ(f80_to_f64(host), v) << v;
  }
}
#endif

// lockstep::x87::Extended (lockstep/x87/extended.hpp). Expected values: the Intel SDM's control word
// (PC: 00 = 24 bits, 10 = 53, 11 = 64) and IEEE 754's round to nearest even, on values whose rounding
// is worked by hand; and, on x86, the host's own x87 (long double, its conversion to double).
TEST(X87Extended, PrecisionOfTheControlWord) {
  EXPECT_EQ(x87::significand_bits(0x037f), 64);  // fninit's, Linux's
  EXPECT_EQ(x87::significand_bits(0x027f), 53);  // POD's, Windows'
  EXPECT_EQ(x87::significand_bits(0x007f), 24);
  EXPECT_EQ(x87::significand_bits(0x0c7f), 24);  // the rounding field does not matter
}

TEST(X87Extended, RoundsToAPrecisionToNearestEven) {
  const std::uint64_t one = std::uint64_t{1} << 63;  // 1.0's significand; bit 63 - k weighs 2^-k
  auto value = [](std::uint64_t significand) { return x87::Extended::from_parts(false, 16383, significand); };
  const std::uint64_t ulp53 = std::uint64_t{1} << 11, half53 = ulp53 >> 1;
  EXPECT_EQ(x87::round_to(value(one | 1), 53), x87::Extended(1.0));                   // below half: down
  EXPECT_EQ(x87::round_to(value(one | half53), 53), x87::Extended(1.0));              // tie, 1.0 is even
  EXPECT_EQ(x87::round_to(value(one | half53 | 1), 53), x87::Extended(1.0 + 0x1p-52));  // past half: up
  EXPECT_EQ(x87::round_to(value(one | ulp53 | half53), 53), x87::Extended(1.0 + 0x1p-51));  // tie to even: up
  EXPECT_EQ(x87::round_to(value(~std::uint64_t{0}), 53), x87::Extended(2.0));         // carries into 2.0
  EXPECT_EQ(x87::round_to(value(one | (std::uint64_t{1} << 39)), 24), x87::Extended(1.0f));  // 2^-24: tie, even
  EXPECT_EQ(x87::round_to(value(one | 1), 64), value(one | 1));
  EXPECT_EQ(x87::Extended(1.0 / 3.0).hex(), "3ffdaaaaaaaaaaaaa800");
}

TEST(X87Extended, ToDoubleRoundsToNearestEvenIntoSubnormals) {
  // 1.5 x 2^-1074 lies halfway between double's two smallest subnormals: even is 2 x 2^-1074.
  EXPECT_EQ(x87::Extended::from_parts(false, 16383 - 1074, std::uint64_t{3} << 62).to_double(), 0x1p-1073);
  EXPECT_EQ(x87::Extended::from_parts(true, 16383 - 1075, std::uint64_t{1} << 63).to_double(), -0.0);  // tie to 0
  EXPECT_EQ(x87::Extended::from_parts(false, 16383 + 1024, std::uint64_t{1} << 63).to_double(),
            std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(x87::Extended::from_parts(false, 0x7fff, std::uint64_t{3} << 62).to_double()));
}

#if defined(__x86_64__) || defined(__i386__)
TEST(X87Extended, AgreesWithTheHostsX87) {
  static_assert(x87::kHostLongDoubleIsExtended);
  // The host's x87 at 64 bits (x86-64's default control word) is the model: its long double and its
  // conversion to double (fstp m64, round to nearest).
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  auto next = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 20000; ++i) {
    const std::uint16_t exponent = static_cast<std::uint16_t>(16383 - 1100 + next() % 2200);
    const x87::Extended e = x87::Extended::from_parts(next() & 1, exponent, next() | std::uint64_t{1} << 63);
    const long double host = e.to_long_double();
    ASSERT_EQ(e.to_double(), static_cast<double>(host)) << e.hex();
    ASSERT_EQ(x87::Extended(host), e);
  }
  const long double third = 1.0L / 3.0L;
  EXPECT_EQ(x87::Extended(third).hex(), "3ffdaaaaaaaaaaaaaaab");
  EXPECT_EQ(x87::round_to(x87::Extended(third), 53), x87::Extended(1.0 / 3.0));
  EXPECT_EQ(x87::round_to(x87::Extended(third), 24), x87::Extended(1.0f / 3.0f));
}

TEST(Compare, St0IsComparedAsThe80BitValueAndReportedWithDigitsThatDiffer) {
  // A function returning 1/3 at 64-bit precision: a port that returns the double nearest it differs
  // in the significand's last 11 bits; one that computes in long double matches.
  Case c = sample_case(0);
  c.returns = ReturnKind::kSt0;
  c.out.x87.st[0] = x87::Extended(1.0L / 3.0L).bytes();
  PortEffects p;
  p.writes = c.writes;
  p.st0 = 1.0 / 3.0;
  const Comparison wrong = compare(c, p);
  ASSERT_EQ(wrong.registers.size(), 1u);
  EXPECT_EQ(wrong.registers[0].name, "st0");
  EXPECT_EQ(wrong.registers[0].original, "0.333333333333333333342 (3ffdaaaaaaaaaaaaaaab)");
  EXPECT_EQ(wrong.registers[0].port, "0.33333333333333331483 (3ffdaaaaaaaaaaaaa800)");
  p.st0 = 1.0L / 3.0L;
  EXPECT_TRUE(compare(c, p).matched());
}
#endif

// The CPU vocabulary (lockstep/cases/cpu.hpp) holds the case file's numbering: the expected values
// are cases/docs/case-format.md's (convention and return bytes, poked-register bits).
TEST(CpuVocabulary, NumbersAreTheCaseFileFormats) {
  EXPECT_EQ(static_cast<int>(Convention::kWatcom), 0);
  EXPECT_EQ(static_cast<int>(Convention::kCustom), 5);
  EXPECT_EQ(static_cast<int>(ReturnKind::kEdxEax), 2);
  EXPECT_EQ(static_cast<int>(ReturnKind::kSt0), 3);
  const std::pair<const char*, std::uint16_t> bits[] = {{"eax", 1}, {"ebx", 2},  {"ecx", 4}, {"edx", 8},
                                                        {"esi", 16}, {"edi", 32}, {"ebp", 64}};
  for (auto [name, bit] : bits) {
    auto r = parse_reg(name);
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(register_bit(*r), bit) << name;
    EXPECT_STREQ(reg_name(*r), name);
  }
  EXPECT_FALSE(parse_reg("esp").ok()) << "esp is the harness's, never an argument or a poke";
  EXPECT_FALSE(reg_named("ax").has_value());
  EXPECT_EQ(poked_register_names(register_bit(Reg::kEdx) | register_bit(Reg::kEax)), "eax edx");
}

TEST(CpuVocabulary, RegistersByName) {
  Registers r;
  r.eax = 1, r.ebx = 2, r.ecx = 3, r.edx = 4, r.esi = 5, r.edi = 6, r.ebp = 7, r.esp = 8;
  const std::uint32_t want[] = {1, 2, 3, 4, 5, 6, 7};
  for (std::size_t i = 0; i < std::size(kRegs); ++i) EXPECT_EQ(r[kRegs[i]], want[i]) << reg_name(kRegs[i]);
  Case c;
  poke_register(c, Reg::kEsi, 0x1234);
  EXPECT_EQ(c.in.esi, 0x1234u);
  EXPECT_EQ(c.poked_registers, kPokedEsi);
  EXPECT_FALSE(reg_named("esp").has_value()) << "esp is the harness's: no register poke names it";
  // fninit's control word: a case or a call says its own, the vocabulary assumes no game's.
  EXPECT_EQ(X87State{}.control, 0x037f);
}

}  // namespace
}  // namespace lockstep::cases
