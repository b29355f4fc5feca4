// The shared vocabulary: byte reader bounds, zlib-format streams and their limits, SHA-256 against
// FIPS 180-2 vectors, atomic writes, --jobs / --shard and the work spread over threads.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdexcept>
#include <vector>
#include <string>
#include <thread>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"
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

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A FIFO as an input: refused at once as not a regular file (before the fix the open waited for a
// writer forever; the future's timeout turns such a hang into a failure instead of a stuck test).
TEST(ReadFile, RefusesAFifoWithoutWaitingOnIt) {
  const auto dir = fresh_dir("lockstep-fifo-in");
  const auto fifo = dir / "manifest.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Detached threads: a read that blocks must fail the test, not hang it in a future's destructor.
  auto in_thread = [](auto f) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto fut = task.get_future();
    std::thread(std::move(task)).detach();
    return fut;
  };
  auto read = in_thread([fifo] { return read_file(fifo); });
  auto check = in_thread([fifo] { return require_regular_file(fifo); });
  ASSERT_EQ(read.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "read_file blocked on a FIFO";
  ASSERT_EQ(check.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto r = read.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kUsage);
  EXPECT_NE(r.error().message.find("a FIFO"), std::string::npos) << r.error().message;
  auto c = check.get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::kUsage);
  // A directory is no file either.
  auto d = read_file(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, Errc::kUsage);
  std::filesystem::remove_all(dir);
}

// Outputs that are not regular files are written in place, never replaced by a renamed temp file.
TEST(AtomicWrite, WritesIntoAFifoInPlaceAndKeepsIt) {
  const auto dir = fresh_dir("lockstep-fifo-out");
  const auto fifo = dir / "report.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] {
    std::string got;
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    char buf[64];
    for (ssize_t n; fd >= 0 && (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    if (fd >= 0) ::close(fd);
    return got;
  });
  ASSERT_TRUE(write_file_atomic(fifo, std::string_view("{\"ok\": 1}")).ok());
  ASSERT_EQ(reader.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(reader.get(), "{\"ok\": 1}");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a regular file";
  std::size_t n = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) { (void)e; ++n; }
  EXPECT_EQ(n, 1u) << "a temp file was left beside the FIFO";
  std::filesystem::remove_all(dir);
}

TEST(AtomicWrite, WritesIntoACharacterDeviceInPlace) {
  const auto dir = fresh_dir("lockstep-dev-out");
  const auto null_dev = dir / "mynull";
  if (::mknod(null_dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod needs root (CAP_MKNOD); the FIFO and /proc/self/fd tests cover the same path";
  ASSERT_TRUE(write_file_atomic(null_dev, std::string_view("discarded")).ok());
  struct stat st {};
  ASSERT_EQ(::lstat(null_dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced by a regular file";
  // /dev/full: the write fails (ENOSPC) as an I/O error, and the node stays.
  const auto full = dir / "myfull";
  ASSERT_EQ(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  auto w = write_file_atomic(full, std::string_view("x"));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, Errc::kIo);
  ASSERT_EQ(::lstat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  std::filesystem::remove_all(dir);
}

TEST(AtomicWrite, WritesThroughAProcSelfFdLinkWithoutReplacingIt) {
  const auto dir = fresh_dir("lockstep-fd-out");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const auto link = dir / "out.json";
  std::filesystem::create_symlink("/proc/self/fd/" + std::to_string(fds[1]), link);
  ASSERT_TRUE(write_file_atomic(link, std::string_view("abc")).ok());
  ::close(fds[1]);
  char buf[8] = {};
  EXPECT_EQ(::read(fds[0], buf, sizeof buf), 3);
  EXPECT_EQ(std::string(buf, 3), "abc");
  ::close(fds[0]);
  EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link was replaced by a regular file";
  std::filesystem::remove_all(dir);
}

TEST(AtomicWrite, ReplacesTheFileASymlinkNamesAndRefusesADirectory) {
  const auto dir = fresh_dir("lockstep-link-out");
  ASSERT_TRUE(write_file_atomic(dir / "real.json", std::string_view("old")).ok());
  std::filesystem::create_symlink("real.json", dir / "link.json");
  ASSERT_TRUE(write_file_atomic(dir / "link.json", std::string_view("new")).ok());
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  auto back = read_file(dir / "real.json");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::string(back->begin(), back->end()), "new");
  std::filesystem::create_directory(dir / "adir");
  auto w = write_file_atomic(dir / "adir", std::string_view("x"));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, Errc::kUsage);
  EXPECT_TRUE(std::filesystem::is_directory(dir / "adir"));
  std::filesystem::remove_all(dir);
}

// A killed writer's temp file (its pid gone) is removed by the next write of the same output; a
// live process's is kept.
TEST(AtomicWrite, RemovesTempFilesOfKilledWriters) {
  const auto dir = fresh_dir("lockstep-stale");
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // now a pid that is gone
  const auto stale = dir / ("snap.lks.tmp." + std::to_string(child));
  const auto live = dir / "snap.lks.tmp.1";  // init: alive
  std::ofstream(stale) << "half";
  std::ofstream(live) << "other";
  ASSERT_TRUE(write_file_atomic(dir / "snap.lks", std::string_view("whole")).ok());
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live));
  std::filesystem::remove_all(dir);
}

TEST(Numbers, RefuseWhatWouldWrapOrMislead) {
  for (const char* bad : {"", "-1", "-1000", "+5", "18446744073709551616", "1e23", " 5", "5 ", "0x", "0x-1", "12abc",
                          "1.5"}) {
    auto v = parse_unsigned(bad);
    EXPECT_FALSE(v.ok()) << "'" << bad << "' was taken as " << (v.ok() ? *v : 0);
    if (!v.ok()) {
      EXPECT_EQ(v.error().code, Errc::kUsage);
    }
  }
  EXPECT_EQ(*parse_unsigned("0"), 0u);
  EXPECT_EQ(*parse_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(*parse_unsigned("0x41b66c"), 0x41b66cu);
  EXPECT_FALSE(parse_unsigned("101", 100).ok());
  EXPECT_EQ(*parse_address("0xffffffff"), 0xffffffffu);
  EXPECT_FALSE(parse_address("0x100000000").ok());
  EXPECT_FALSE(parse_address("-1").ok());
  EXPECT_EQ(*parse_hex_number("0x004191c4", 0xffffffff), 0x4191c4u);
  EXPECT_FALSE(parse_hex_number("0x1004191c4", 0xffffffff).ok());
  EXPECT_FALSE(parse_hex_number("car[3]", 0xffffffff).ok());
  EXPECT_EQ(*add_guest_offset(0xfffffff0, 0xf, "x"), 0xffffffffu);
  EXPECT_FALSE(add_guest_offset(0xfffffff0, 0x10, "x").ok());
}

}  // namespace
}  // namespace lockstep
