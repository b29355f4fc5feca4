// The state log reader on good and bad input (capture/docs/state-log.md): a round trip, and the exact
// error for each malformed case.
#include <gtest/gtest.h>

#include <cstring>

#include "lockstep/base/io.hpp"
#include "lockstep/capture/state_log.hpp"

namespace {

using namespace lockstep;
using namespace lockstep::capture;

StateLog sample() {
  StateLog log;
  log.header.producer = "unit-test";
  Record step{RecordKind::kStep, 7, -1, {{0x630838, std::vector<std::uint8_t>(0x558, 0xab)}, {0x4f3310, {1, 2, 3, 4}}}};
  Record ctrl{RecordKind::kCtrl, 7, 3, {{0x61f870, std::vector<std::uint8_t>(0xb0, 0x11)}}};
  Record phys{RecordKind::kPhys, 7, 3, {{0x61f870, std::vector<std::uint8_t>(0xb0, 0x22)}, {0x10, {}}}};
  log.records = {step, ctrl, phys};
  return log;
}

void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

// Recomputes the CRC of the record at `at` (after an edit that should fail for another reason).
void fix_crc(std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t payload;
  std::memcpy(&payload, b.data() + at + 16, 4);
  std::uint32_t crc = crc32(std::span(b).subspan(at, 20 + payload));
  put32(b, at + 20 + payload, crc);
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
  put32(b, 8, 2);
  EXPECT_EQ(decode_error(b), Errc::kBadVersion);
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
  put32(b, first + 8, 2);  // a STEP record with a racer
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
  b = bytes;
  put32(b, first + 20 + 4, 0x600);  // the first block claims more bytes than the payload holds
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
  b = bytes;
  put32(b, first + 20, 0xfffffff0);  // a block wrapping past 4 GiB
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
  b = bytes;
  put32(b, first + 20 + 8 + 0x558, 0x630838 + 0x10);  // the second block overlaps the first
  fix_crc(b, first);
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
}

TEST(StateLog, RefusesCountsPastTheLimits) {
  auto bytes = encode_state_log(sample());
  auto b = bytes;
  put32(b, kStateLogHeaderSize + 12, 100000);  // block count
  EXPECT_EQ(decode_error(b), Errc::kLimit);
  b = bytes;
  put32(b, kStateLogHeaderSize + 16, 0xffffff00);  // payload size
  EXPECT_EQ(decode_error(b), Errc::kLimit);
  StateLogLimits small;
  small.max_records = 2;
  auto r = decode_state_log(bytes, "test.log", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kLimit);
}

TEST(StateLog, RefusesABadChecksum) {
  auto b = encode_state_log(sample());
  b[kStateLogHeaderSize + 20 + 8 + 100] ^= 1;  // a byte of the first block
  EXPECT_EQ(decode_error(b), Errc::kChecksum);
}

}  // namespace

namespace {

// Records out of order (capture/docs/state-log.md, "Order of records"): before, a missing CTRL was
// skipped by the drivers and a repeated one run twice; now each is refused naming the record.
TEST(StateLog, RefusesRecordsOutOfOrder) {
  auto rec = [](RecordKind k, std::uint32_t step, std::int32_t racer) {
    return Record{k, step, racer, {{0x61f870, {1, 2, 3, 4}}}};
  };
  const auto S = RecordKind::kStep, C = RecordKind::kCtrl, P = RecordKind::kPhys, F = RecordKind::kFrame;
  struct Bad {
    std::vector<Record> records;
    std::string says;
  };
  const std::vector<Bad> bad = {
      {{rec(S, 1, -1), rec(C, 1, 0), rec(C, 1, 0), rec(P, 1, 0)}, "a second CTRL record"},
      {{rec(S, 1, -1), rec(C, 1, 0), rec(P, 1, 0), rec(P, 1, 0)}, "a second PHYS record"},
      {{rec(S, 1, -1), rec(P, 1, 0)}, "no CTRL record of this racer"},
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
  for (const Bad& b : bad) {
    StateLog log;
    log.header.producer = "unit-test";
    log.records = b.records;
    const auto bytes = encode_state_log(log);
    auto r = decode_state_log(bytes, "test.log");
    ASSERT_FALSE(r.ok()) << b.says;
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
  EXPECT_EQ(f->records.back().racer, 3);
}

}  // namespace
