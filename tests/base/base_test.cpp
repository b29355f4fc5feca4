// The shared vocabulary: byte reader bounds, zlib-format streams and their limits, SHA-256 against
// FIPS 180-2 vectors, atomic writes, --jobs / --shard and the work spread over threads.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <vector>
#include <string>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/base/parallel.hpp"

namespace lockstep {
namespace {

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(Sha256, MatchesFipsVectors) {
  EXPECT_EQ(to_hex(sha256(as_bytes(""))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256(as_bytes("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256(as_bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // A million 'a's, fed in odd-sized pieces to exercise the buffering.
  Sha256 s;
  std::string piece(997, 'a');
  std::size_t left = 1000000;
  while (left) {
    std::size_t n = std::min(left, piece.size());
    s.update(as_bytes(piece.substr(0, n)));
    left -= n;
  }
  EXPECT_EQ(to_hex(s.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(ByteReader, RefusesReadsPastTheEnd) {
  std::string data("\x01\x02\x03", 3);
  ByteReader r(as_bytes(data), "t.bin");
  auto a = r.u16("first");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 0x0201);
  auto b = r.u32("second");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, Errc::kTruncated);
  EXPECT_NE(b.error().message.find("second"), std::string::npos);
  auto s = r.slice(2, ~std::uint64_t{0}, "huge");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::kTruncated);
}

TEST(Zlib, RoundTripAndSizeChecks) {
  std::string text(10000, 'x');
  auto z = zlib_compress(as_bytes(text));
  auto back = zlib_decompress(z, text.size(), "t");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::string(back->begin(), back->end()), text);
  auto shorter = zlib_decompress(z, text.size() - 1, "t");
  ASSERT_FALSE(shorter.ok());
  EXPECT_EQ(shorter.error().code, Errc::kMalformed);
  auto longer = zlib_decompress(z, text.size() + 1, "t");
  ASSERT_FALSE(longer.ok());
  z.resize(z.size() / 2);
  auto cut = zlib_decompress(z, text.size(), "t");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code, Errc::kMalformed);
}

TEST(Zlib, ReadsWhatZlibWritesAndChecksumsAsZlibDoes) {
  // "lockstep " twenty times, compressed by zlib itself (Python's zlib.compress, level 9): the
  // streams lockstep reads are RFC 1950, whichever library wrote them.
  const std::vector<std::uint8_t> from_zlib = {0x78, 0xda, 0xcb, 0xc9, 0x4f, 0xce, 0x2e, 0x2e, 0x49, 0x2d,
                                               0x50, 0xc8, 0x19, 0x3a, 0x0c, 0x00, 0xfa, 0xf6, 0x46, 0x65};
  std::string text;
  for (int i = 0; i < 20; ++i) text += "lockstep ";
  auto back = zlib_decompress(from_zlib, text.size(), "t");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(std::string(back->begin(), back->end()), text);
  // CRC-32's published check value (the CRC of "123456789").
  EXPECT_EQ(crc32(as_bytes("123456789")), 0xcbf43926u);
  // An RFC 1950 stream starts with CMF 0x78 (deflate, 32 KiB window) and a check-valid FLG.
  auto z = zlib_compress(as_bytes(text));
  ASSERT_GE(z.size(), 2u);
  EXPECT_EQ(z[0], 0x78);
  EXPECT_EQ((z[0] * 256 + z[1]) % 31, 0);
}

TEST(Jobs, TakesWholeNumbersFromOneUp) {
  EXPECT_EQ(*parse_jobs("1"), 1u);
  EXPECT_EQ(*parse_jobs("16"), 16u);
  EXPECT_EQ(*parse_jobs(std::to_string(kMaxJobs)), kMaxJobs);
  for (const char* bad : {"", "0", "-1", "+2", " 2", "2 ", "2x", "0x2", "1.5", "99999999999999999999", "257"}) {
    auto r = parse_jobs(bad);
    ASSERT_FALSE(r.ok()) << "\"" << bad << "\"";
    EXPECT_EQ(r.error().code, Errc::kUsage);
  }
}

TEST(Shard, TakesKOfNAndDealsItemsRoundRobin) {
  auto s = parse_shard("2/3");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 3u);
  EXPECT_FALSE(s->holds(0));
  EXPECT_TRUE(s->holds(1));
  EXPECT_TRUE(s->holds(4));
  EXPECT_TRUE(parse_shard("1/1")->whole());
  for (const char* bad : {"", "1", "0/2", "3/2", "-1/2", "1/0", "1/-2", "a/b", "1/2/3", "1 /2", "1/2x", "2/4097"}) {
    auto r = parse_shard(bad);
    ASSERT_FALSE(r.ok()) << "\"" << bad << "\"";
    EXPECT_EQ(r.error().code, Errc::kUsage);
  }
}

TEST(ParallelFor, RunsEveryItemOnceOnTheThreadsAsked) {
  for (unsigned jobs : {1u, 2u, 7u}) {
    std::vector<std::atomic<int>> runs(1000);
    std::vector<std::atomic<int>> by_worker(jobs);
    parallel_for(jobs, runs.size(), [&](unsigned worker, std::size_t i) {
      ASSERT_LT(worker, jobs);
      ++runs[i];
      ++by_worker[worker];
    });
    for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i], 1) << i;
    int total = 0;
    for (auto& w : by_worker) total += w;
    EXPECT_EQ(total, 1000);
  }
  parallel_for(4, 0, [](unsigned, std::size_t) { FAIL() << "no items, no calls"; });
}

TEST(ParallelFor, AnExceptionReachesTheCaller) {
  for (unsigned jobs : {1u, 3u}) {
    std::vector<std::atomic<int>> runs(10000);
    EXPECT_THROW(parallel_for(jobs, runs.size(),
                              [&](unsigned, std::size_t i) {
                                ++runs[i];
                                if (i == 10) throw std::runtime_error("item 10");
                              }),
                 std::runtime_error)
        << jobs << " threads";
    for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_LE(runs[i], 1) << i;  // none run twice
    // One thread stops right there; several stop handing out, but how far the others got by then
    // depends on the scheduler, so it is not asserted.
    if (jobs == 1) {
      for (std::size_t i = 11; i < runs.size(); ++i) ASSERT_EQ(runs[i], 0) << i;
    }
  }
}

TEST(AtomicWrite, WritesWholeFileAndLeavesNoTemp) {
  auto dir = std::filesystem::temp_directory_path() / ("lockstep_base_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto p = dir / "out.bin";
  ASSERT_TRUE(write_file_atomic(p, std::string_view("hello")).ok());
  auto back = read_file(p);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::string(back->begin(), back->end()), "hello");
  std::size_t n = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) { (void)e; ++n; }
  EXPECT_EQ(n, 1u);
  // A write into a missing directory fails cleanly.
  auto bad = write_file_atomic(dir / "no" / "such" / "x", std::string_view("x"));
  ASSERT_FALSE(bad.ok());
  auto big = read_file(p, 2);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code, Errc::kLimit);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lockstep
