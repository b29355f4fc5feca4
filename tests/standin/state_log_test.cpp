// The state log reader on good and bad input (capture/docs/state-log.md): a round trip, and the exact
// error for each malformed case. Version 2 is what writers write; version 1 (a FRAM record's pass
// number in its instance field) is still read.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "lockstep/base/io.hpp"
#include "lockstep/capture/state_log.hpp"

namespace {

using namespace lockstep;
using namespace lockstep::capture;

// Version 2's record header (capture/docs/state-log.md): tag, step, instance, pass, block count,
// payload size; the blocks follow at +24.
constexpr std::size_t kInstanceAt = 8, kPassAt = 12, kCountAt = 16, kPayloadAt = 20, kBlocksAt = 24;

StateLog sample() {
  StateLog log;
  log.header.producer = "unit-test";
  Record step{RecordKind::kStep, 7, -1, -1, {{0x630838, std::vector<std::uint8_t>(0x558, 0xab)}, {0x4f3310, {1, 2, 3, 4}}}};
  Record ctrl{RecordKind::kCtrl, 7, 3, -1, {{0x61f870, std::vector<std::uint8_t>(0xb0, 0x11)}}};
  Record phys{RecordKind::kPhys, 7, 3, -1, {{0x61f870, std::vector<std::uint8_t>(0xb0, 0x22)}, {0x10, {}}}};
  Record frame{RecordKind::kFrame, 8, -1, 4, {{0x4f3310, {5, 6, 7, 8}}}};
  log.records = {step, ctrl, phys, frame};
  return log;
}

void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
std::uint32_t get32(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// Recomputes the CRC of the version 2 record at `at` (after an edit that should fail for another reason).
void fix_crc(std::vector<std::uint8_t>& b, std::size_t at) {
  const std::uint32_t payload = get32(b, at + kPayloadAt);
  std::uint32_t crc = crc32(std::span(b).subspan(at, kBlocksAt + payload));
  put32(b, at + kBlocksAt + payload, crc);
}

Errc decode_error(const std::vector<std::uint8_t>& b) {
  auto r = decode_state_log(b, "test.log");
  EXPECT_FALSE(r.ok());
  return r.ok() ? Errc::kIo : r.error().code;
}

TEST(StateLog, RoundTrips) {
  auto bytes = encode_state_log(sample());
  auto back = decode_state_log(bytes, "test.log");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, sample());
  auto b = back->records[0].bytes_at(0x630838 + 0x440, 4);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0], 0xab);
  EXPECT_FALSE(back->records[0].bytes_at(0x630838 + 0x556, 4).ok()) << "past the block's end";
}

TEST(StateLog, StreamingReaderReadsTheSameRecords) {
  auto path = std::filesystem::path(LOCKSTEP_BINARY_DIR) / "state_log_test.log";
  auto bytes = encode_state_log(sample());
  ASSERT_TRUE(write_file_atomic(path, bytes).ok());
  auto reader = StateLogReader::open(path);
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  std::vector<Record> got;
  for (;;) {
    auto next = reader->next();
    ASSERT_TRUE(next.ok()) << next.error().message;
    if (!*next) break;
    got.push_back(std::move(**next));
  }
  EXPECT_EQ(got, sample().records);
  EXPECT_EQ(reader->header().producer, "unit-test");
}

TEST(StateLog, RefusesTruncation) {
  auto bytes = encode_state_log(sample());
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, std::size_t{20}, std::size_t{40}, bytes.size() - 1}) {
    std::vector<std::uint8_t> b(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_EQ(decode_error(b), Errc::kTruncated) << "cut at " << cut;
  }
}

TEST(StateLog, RefusesBadMagicAndVersion) {
  auto bytes = encode_state_log(sample());
  auto b = bytes;
  b[0] = 'X';
  EXPECT_EQ(decode_error(b), Errc::kBadMagic);
  b = bytes;
  put32(b, 8, 0);
  EXPECT_EQ(decode_error(b), Errc::kBadVersion);
  b = bytes;
  put32(b, 8, 3);  // a version this build does not know
  auto three = decode_state_log(b, "test.log");
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(three.error().code, Errc::kBadVersion);
  EXPECT_NE(three.error().message.find("state log version 3 (this build reads versions 1 to 2"), std::string::npos)
      << three.error().message;
  b = bytes;
  put32(b, 12, 1u << 20);
  EXPECT_EQ(decode_error(b), Errc::kMalformed) << "absurd header size";
}

TEST(StateLog, RefusesMalformedRecords) {
  const auto bytes = encode_state_log(sample());
  const std::size_t first = kStateLogHeaderSize;
  auto b = bytes;
  std::memcpy(b.data() + first, "JUNK", 4);
  EXPECT_EQ(decode_error(b), Errc::kMalformed) << "unknown tag";
  b = bytes;
  put32(b, first + kInstanceAt, 2);  // a STEP record with an instance
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
  b = bytes;
  put32(b, first + kPassAt, 0);  // a STEP record with a pass number
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
  b = bytes;
  put32(b, first + kBlocksAt + 4, 0x600);  // the first block claims more bytes than the payload holds
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
  b = bytes;
  put32(b, first + kBlocksAt, 0xfffffff0);  // a block wrapping past 4 GiB
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
  b = bytes;
  put32(b, first + kBlocksAt + 8 + 0x558, 0x630838 + 0x10);  // the second block overlaps the first
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
}

TEST(StateLog, RefusesCountsPastTheLimits) {
  auto bytes = encode_state_log(sample());
  auto b = bytes;
  put32(b, kStateLogHeaderSize + kCountAt, 100000);  // block count
  EXPECT_EQ(decode_error(b), Errc::kLimit);
  b = bytes;
  put32(b, kStateLogHeaderSize + kPayloadAt, 0xffffff00);  // payload size
  EXPECT_EQ(decode_error(b), Errc::kLimit);
  StateLogLimits small;
  small.max_records = 3;
  auto r = decode_state_log(bytes, "test.log", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kLimit);
}

TEST(StateLog, RefusesABadChecksum) {
  auto b = encode_state_log(sample());
  b[kStateLogHeaderSize + kBlocksAt + 8 + 100] ^= 1;  // a byte of the first block
  EXPECT_EQ(decode_error(b), Errc::kChecksum);
}


// Version 2's FRAM record: the pass number in a field of its own, the instance field -1; a record
// header of 24 bytes. The bytes are checked against the layout table, not read back by the reader.
TEST(StateLog, VersionTwoFrameRecordHasItsOwnPassField) {
  const auto bytes = encode_state_log(sample());
  EXPECT_EQ(get32(bytes, 8), 2u) << "writers write version 2";
  std::size_t at = kStateLogHeaderSize;
  for (int i = 0; i < 3; ++i) at += kBlocksAt + get32(bytes, at + kPayloadAt) + 4;
  ASSERT_EQ(std::memcmp(bytes.data() + at, "FRAM", 4), 0);
  EXPECT_EQ(get32(bytes, at + 4), 8u);                     // step
  EXPECT_EQ(get32(bytes, at + kInstanceAt), 0xffffffffu);  // no instance
  EXPECT_EQ(get32(bytes, at + kPassAt), 4u);               // the pass
  EXPECT_EQ(get32(bytes, at + kCountAt), 1u);
  EXPECT_EQ(get32(bytes, at + kPayloadAt), 12u);
  EXPECT_EQ(bytes.size(), at + kBlocksAt + 12 + 4);
  auto back = decode_state_log(bytes, "test.log");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->records[3].pass, 4);
  EXPECT_EQ(back->records[3].instance, -1);
  EXPECT_EQ(back->records[1].pass, -1) << "a CTRL record has no pass";
  // Each field holds only what its kind allows.
  auto b = bytes;
  put32(b, at + kInstanceAt, 2);  // a FRAM record about an instance
  fix_crc(b, at);
  auto r = decode_state_log(b, "test.log");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("FRAM record at offset"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("has instance 2, not -1"), std::string::npos) << r.error().message;
  b = bytes;
  put32(b, kStateLogHeaderSize + 24 + 0x558 + 8 + 4 + 8 + 4 + kPassAt, 0);  // the CTRL record with a pass number
  fix_crc(b, kStateLogHeaderSize + 24 + 0x558 + 8 + 4 + 8 + 4);
  r = decode_state_log(b, "test.log");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("CTRL record at offset"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("has pass number 0, not -1"), std::string::npos) << r.error().message;
}

// A version 1 log, laid out by hand from the version 1 table: a 20-byte record header whose third
// field is the racer (now: the instance) of a CTRL or PHYS record and the pass number of a FRAM record.
std::vector<std::uint8_t> version_one_record(const char tag[4], std::uint32_t step, std::int32_t racer,
                                             std::uint32_t address, std::vector<std::uint8_t> bytes) {
  std::vector<std::uint8_t> r(20 + 8 + bytes.size() + 4);
  std::memcpy(r.data(), tag, 4);
  put32(r, 4, step);
  put32(r, 8, static_cast<std::uint32_t>(racer));
  put32(r, 12, 1);
  put32(r, 16, static_cast<std::uint32_t>(8 + bytes.size()));
  put32(r, 20, address);
  put32(r, 24, static_cast<std::uint32_t>(bytes.size()));
  std::memcpy(r.data() + 28, bytes.data(), bytes.size());
  put32(r, 28 + bytes.size(), crc32(std::span(r).first(28 + bytes.size())));
  return r;
}

TEST(StateLog, VersionOneStillReadsItsPassFromTheInstanceField) {
  std::vector<std::uint8_t> log = {'L', 'K', 'S', 'T', 'L', 'O', 'G', '\n', 1, 0, 0, 0, 32, 0, 0, 0};
  const std::string_view producer = "lockstep-standin";  // exactly 16 bytes: no NUL after it
  log.insert(log.end(), producer.begin(), producer.end());
  for (const auto& r : {version_one_record("FRAM", 0, 0, 0x10, {1}), version_one_record("STEP", 0, -1, 0x20, {2}),
                        version_one_record("CTRL", 0, 5, 0x30, {3}), version_one_record("PHYS", 0, 5, 0x30, {4}),
                        version_one_record("FRAM", 1, 1, 0x10, {5})})
    log.insert(log.end(), r.begin(), r.end());
  auto back = decode_state_log(log, "v1.log");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->header.version, 1u);
  EXPECT_EQ(back->header.producer, "lockstep-standin");
  const std::vector<Record> expected = {
      {RecordKind::kFrame, 0, -1, 0, {{0x10, {1}}}}, {RecordKind::kStep, 0, -1, -1, {{0x20, {2}}}},
      {RecordKind::kCtrl, 0, 5, -1, {{0x30, {3}}}},  {RecordKind::kPhys, 0, 5, -1, {{0x30, {4}}}},
      {RecordKind::kFrame, 1, -1, 1, {{0x10, {5}}}}};
  EXPECT_EQ(back->records, expected);
  // Written back as version 1 (the version read), the same bytes: the stand-in's logs round-trip.
  EXPECT_EQ(encode_state_log(*back), log);
  // And as version 2, the same records.
  StateLog two = *back;
  two.header.version = 2;
  auto again = decode_state_log(encode_state_log(two), "v2.log");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->records, expected);
}

// The checked-in version 1 logs (the fuzzers' seeds) decode to the records their bytes hold: each
// record header walked here by hand, its third field the FRAM record's pass or the others' instance.
TEST(StateLog, CheckedInVersionOneLogsReadAsBefore) {
  for (const char* name : {"two-steps.log", "two-passes.log"}) {
    const auto path = std::filesystem::path(LOCKSTEP_SOURCE_DIR) / "tests/fuzz/corpus/state_log" / name;
    std::ifstream in(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 32u) << path;
    ASSERT_EQ(get32(bytes, 8), 1u) << path;
    auto log = read_state_log(path);
    ASSERT_TRUE(log.ok()) << log.error().message;
    std::size_t at = 32, i = 0;
    for (; at < bytes.size(); ++i) {
      ASSERT_LT(i, log->records.size()) << name;
      const Record& r = log->records[i];
      const auto third = static_cast<std::int32_t>(get32(bytes, at + 8));
      EXPECT_EQ(r.step, get32(bytes, at + 4)) << name << " record " << i;
      EXPECT_EQ(r.blocks.size(), get32(bytes, at + 12)) << name << " record " << i;
      if (std::memcmp(bytes.data() + at, "FRAM", 4) == 0) {
        EXPECT_EQ(r.kind, RecordKind::kFrame);
        EXPECT_EQ(r.pass, third) << name << " record " << i;
        EXPECT_EQ(r.instance, -1) << name << " record " << i;
      } else {
        EXPECT_EQ(r.instance, third) << name << " record " << i;
        EXPECT_EQ(r.pass, -1) << name << " record " << i;
      }
      at += 20 + get32(bytes, at + 16) + 4;
    }
    EXPECT_EQ(i, log->records.size()) << name;
  }
}

}  // namespace

namespace {

// Records out of order (capture/docs/state-log.md, "Order of records"): before, a missing CTRL was
// skipped by the drivers and a repeated one run twice; now each is refused naming the record.
TEST(StateLog, RefusesRecordsOutOfOrder) {
  // The third argument: a CTRL or PHYS record's instance, a FRAM record's pass (STEP: -1).
  auto rec = [](RecordKind k, std::uint32_t step, std::int32_t n) {
    const bool frame = k == RecordKind::kFrame;
    return Record{k, step, frame ? -1 : n, frame ? n : -1, {{0x61f870, {1, 2, 3, 4}}}};
  };
  const auto S = RecordKind::kStep, C = RecordKind::kCtrl, P = RecordKind::kPhys, F = RecordKind::kFrame;
  struct Bad {
    std::vector<Record> records;
    std::string says;
  };
  const std::vector<Bad> bad = {
      {{rec(S, 1, -1), rec(C, 1, 0), rec(C, 1, 0), rec(P, 1, 0)}, "a second CTRL record"},
      {{rec(S, 1, -1), rec(C, 1, 0), rec(P, 1, 0), rec(P, 1, 0)}, "a second PHYS record"},
      {{rec(S, 1, -1), rec(P, 1, 0)}, "no CTRL record of this instance"},
      {{rec(S, 1, -1), rec(C, 1, 0), rec(S, 2, -1)}, "has no PHYS record before the step ends"},
      {{rec(S, 1, -1), rec(C, 1, 0)}, "has no PHYS record"},
      {{rec(S, 2, -1), rec(S, 1, -1)}, "steps never go back"},
      {{rec(S, 1, -1), rec(S, 1, -1)}, "a second STEP record"},
      {{rec(C, 1, 0), rec(S, 1, -1), rec(P, 1, 0)}, "must come before"},
      // FRAME records: the end of a pass closes its step, counts the steps run, passes one after another
      {{rec(S, 1, -1), rec(C, 1, 0), rec(F, 2, 0)}, "has no PHYS record"},
      {{rec(S, 1, -1), rec(C, 1, 0), rec(P, 1, 0), rec(F, 1, 0)}, "but step 1 ran before it"},
      {{rec(F, 0, 0), rec(F, 0, 2)}, "passes are consecutive"},
      {{rec(F, 0, 3), rec(F, 0, 3)}, "passes are consecutive"},
      {{rec(F, 5, 0), rec(S, 4, -1)}, "steps never go back"},
      {{rec(F, 5, 0), rec(F, 4, 1)}, "steps never go back"},
      {{rec(F, 0, -1)}, "below 0"},
  };
  for (const Bad& b : bad) for (std::uint32_t version : {1u, 2u}) {
    StateLog log;
    log.header.producer = "unit-test";
    log.header.version = version;
    log.records = b.records;
    const auto bytes = encode_state_log(log);
    auto r = decode_state_log(bytes, "test.log");
    ASSERT_FALSE(r.ok()) << b.says << " (version " << version << ")";
    EXPECT_EQ(r.error().code, Errc::kMalformed);
    EXPECT_NE(r.error().message.find(b.says), std::string::npos) << r.error().message;
    // The streaming reader refuses the same log.
    auto path = std::filesystem::path(LOCKSTEP_BINARY_DIR) / "state_log_order_test.log";
    ASSERT_TRUE(write_file_atomic(path, bytes).ok());
    auto reader = StateLogReader::open(path);
    ASSERT_TRUE(reader.ok());
    bool refused = false;
    for (int i = 0; i < 16 && !refused; ++i) {
      auto next = reader->next();
      if (!next.ok()) refused = true;
      else if (!*next) break;
    }
    EXPECT_TRUE(refused) << b.says;
  }
  // Racers of a step in any order, STEP records optional: fine.
  StateLog ok;
  ok.records = {rec(C, 1, 2), rec(C, 1, 0), rec(P, 1, 0), rec(P, 1, 2), rec(S, 2, -1), rec(C, 2, 0), rec(P, 2, 0)};
  auto r = decode_state_log(encode_state_log(ok), "ok.log");
  EXPECT_TRUE(r.ok()) << r.error().message;
  // Passes: one step, none (the same count again), two steps; the next pass's step numbers go on.
  StateLog frames;
  frames.records = {rec(F, 0, 0),  rec(S, 0, -1), rec(C, 0, 0), rec(P, 0, 0), rec(F, 1, 1),
                    rec(F, 1, 2),  rec(S, 1, -1), rec(C, 1, 0), rec(P, 1, 0), rec(S, 2, -1),
                    rec(C, 2, 0),  rec(P, 2, 0),  rec(F, 3, 3)};
  auto f = decode_state_log(encode_state_log(frames), "frames.log");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->records.back().kind, RecordKind::kFrame);
  EXPECT_EQ(f->records.back().pass, 3);
  EXPECT_EQ(f->records.back().instance, -1);
}

}  // namespace
