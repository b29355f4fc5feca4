// The shared vocabulary: byte reader bounds, zlib limits, SHA-256 against FIPS 180-2 vectors,
// atomic writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"

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
