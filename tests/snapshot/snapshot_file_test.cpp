// lockstep's snapshot file (harness/docs/snapshot-format.md): round trip, atomic saves, and every
// malformed-file case with its own Errc. Bad files are made here from a good one, by editing the
// bytes at the offsets the format document gives.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/snapshot/snapshot_file.hpp"

namespace lockstep::harness {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

/// A snapshot with something in every field of the model.
Snapshot sample() {
  Snapshot s;
  Region code{0x00401000, Bytes(0x3000), kProtRead | kProtExec, "/opt/game/GAME.EXE"};
  for (std::size_t i = 0; i < code.bytes.size(); ++i) code.bytes[i] = static_cast<std::uint8_t>(i * 7 + (i >> 8));
  Region data{0x00630000, Bytes(0x10000, 0), kProtRead | kProtWrite, "[anon]"};
  for (std::size_t i = 0; i < data.bytes.size(); i += 97) data.bytes[i] = static_cast<std::uint8_t>(i);
  Region tail{0x7ffdf000, Bytes{1, 2, 3}, kProtRead, "TEB"};  // not page-sized on purpose
  s.regions = {code, data, tail};

  Thread t;
  t.tid = 4242;
  t.eax = 0x11111111; t.ebx = 0x22222222; t.ecx = 0x33333333; t.edx = 0x44444444;
  t.esi = 0x55555555; t.edi = 0x66666666; t.ebp = 0x0012ff80; t.esp = 0x0012ff40;
  t.eip = 0x0041b66c; t.eflags = 0x00000246;
  t.cs = 0x23; t.ds = 0x2b; t.es = 0x2b; t.fs = 0x63; t.gs = 0x6b; t.ss = 0x2b;
  t.fs_base = 0x7ffdf000; t.gs_base = 0x00640010;
  t.x87.control = 0x027f; t.x87.status = 0x3800; t.x87.tag = 0x3fff; t.x87.mxcsr = 0x1fa0; t.x87_valid = true;
  t.x87.st[0] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};  // 1.0
  Thread u;
  u.tid = 4243;
  u.eip = 0x00402000;
  s.threads = {t, u};
  // Wine's TEB selectors for two threads (0x3f, 0x47) and a read-only 16-bit segment.
  s.ldt = {{7, 0x7ffdf000, 0x1fff, 0xf3, 0x4}, {8, 0x7ffde000, 0x1fff, 0xf3, 0x4}, {100, 0x000b8000, 0xffff, 0xf1, 0x0}};

  s.meta.source = "live pid 4242";
  s.meta.format = "live";
  s.meta.created_unix = 1764460800;
  s.meta.exe_path = "/opt/game/GAME.EXE";
  s.meta.exe_sha256 = std::string(64, 'a');
  s.meta.modules = {{"/opt/game/GAME.EXE", 0x00400000, 0x00300000}, {"ntdll.dll", 0x7bc00000, 0x1000}};
  s.meta.notes = {"[vvar]: skipped", "thread 4243: no x87 state"};
  return s;
}

/// A directory of the test's own (ctest runs tests in parallel; the atomic-save test lists its directory).
fs::path temp_dir(const char* test) {
  fs::path d = fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "snapshot" / "tmp" / test;
  fs::create_directories(d);
  return d;
}

std::uint32_t get32(const Bytes& b, std::size_t off) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}
void put32(Bytes& b, std::size_t off, std::uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
void put64(Bytes& b, std::size_t off, std::uint64_t v) { std::memcpy(b.data() + off, &v, 8); }
/// Recomputes the header CRC (offset 44, over bytes 0..43), as a deliberate editor would.
void fix_header_crc(Bytes& b) { put32(b, 44, crc32(std::span(b.data(), 44))); }

/// Rewrites the info block through `edit` (on its inflated bytes) and fixes the header to match, so
/// that only what `edit` did is wrong.
Bytes with_info_edited(const Bytes& file, const std::function<void(Bytes&)>& edit) {
  const std::uint32_t info_size = get32(file, 32), info_stored = get32(file, 36);
  auto info = zlib_decompress(std::span(file.data() + 48, info_stored), info_size, "test");
  EXPECT_TRUE(info.ok());
  Bytes raw = *info;
  edit(raw);
  Bytes z = zlib_compress(raw);
  Bytes out(file.begin(), file.begin() + 48);
  put32(out, 32, static_cast<std::uint32_t>(raw.size()));
  put32(out, 36, static_cast<std::uint32_t>(z.size()));
  put32(out, 40, crc32(z));
  fix_header_crc(out);
  out.insert(out.end(), z.begin(), z.end());
  out.insert(out.end(), file.begin() + 48 + info_stored, file.end());
  return out;
}

Errc decode_error(const Bytes& b, std::string* message = nullptr) {
  auto r = decode_snapshot(b, "bad.lks");
  EXPECT_FALSE(r.ok()) << "a malformed file was accepted";
  if (r.ok()) return Errc::kMismatch;
  if (message) *message = r.error().message;
  return r.error().code;
}

TEST(SnapshotFile, RoundTripIsIdentical) {
  const Snapshot s = sample();
  ASSERT_TRUE(s.validate().ok());
  const fs::path p = temp_dir("roundtrip") / "roundtrip.lks";
  ASSERT_TRUE(save_snapshot(s, p).ok());
  auto back = load_snapshot(p);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, s);
  EXPECT_EQ(back->threads[0].x87.st[0], s.threads[0].x87.st[0]);
  // Every compression level reads back the same.
  for (int level : {0, 1, 9}) {
    auto r = decode_snapshot(encode_snapshot(s, {level}), "level");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(*r, s) << "level " << level;
  }
}

TEST(SnapshotFile, EmptySnapshotRoundTrips) {
  Snapshot s;
  auto r = decode_snapshot(encode_snapshot(s), "empty");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, s);
}

TEST(SnapshotFile, HeaderFieldsAreWhereTheDocumentSays) {
  const Snapshot s = sample();
  const Bytes b = encode_snapshot(s);
  ASSERT_GE(b.size(), 48u);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 8), std::string("LKSNAP\r\n"));
  EXPECT_EQ(get32(b, 8), 2u);    // version
  EXPECT_EQ(get32(b, 12), 0u);   // flags
  EXPECT_EQ(get32(b, 16), 3u);   // regions
  EXPECT_EQ(get32(b, 20), 2u);   // threads
  std::uint64_t total;
  std::memcpy(&total, b.data() + 24, 8);
  EXPECT_EQ(total, 0x3000u + 0x10000u + 3u);
  EXPECT_EQ(get32(b, 44), crc32(std::span(b.data(), 44)));
  // The info block inflates to the documented table: region 0's entry first.
  auto info = zlib_decompress(std::span(b.data() + 48, get32(b, 36)), get32(b, 32), "t");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(get32(*info, 0), 0x00401000u);
  EXPECT_EQ(get32(*info, 4), 0x3000u);
  EXPECT_EQ((*info)[8], kProtRead | kProtExec);
  EXPECT_EQ(get32(*info, 12), crc32(s.regions[0].bytes));
}

TEST(SnapshotFile, SaveIsAtomicAndValidates) {
  const fs::path dir = temp_dir("atomic");
  Snapshot bad = sample();
  bad.regions[1].base = 0x00402000;  // overlaps the code region
  const fs::path p = dir / "refused.lks";
  fs::remove(p);
  auto st = save_snapshot(bad, p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Errc::kMalformed);
  EXPECT_NE(st.error().message.find("overlap"), std::string::npos) << st.error().message;
  EXPECT_FALSE(fs::exists(p));
  // Into a directory that does not exist: an error, and nothing left behind.
  auto st2 = save_snapshot(sample(), dir / "no-such-dir" / "x.lks");
  ASSERT_FALSE(st2.ok());
  EXPECT_FALSE(fs::exists(dir / "no-such-dir"));
  // Overwriting a good file with a good file leaves no temp file.
  ASSERT_TRUE(save_snapshot(sample(), dir / "twice.lks").ok());
  ASSERT_TRUE(save_snapshot(sample(), dir / "twice.lks").ok());
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(SnapshotFile, RefusesTruncationAtEveryLength) {
  const Bytes good = encode_snapshot(sample());
  for (std::size_t n = 0; n < good.size(); ++n) {
    Bytes b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = decode_snapshot(b, "cut.lks");
    ASSERT_FALSE(r.ok()) << "accepted a file cut to " << n << " bytes";
    EXPECT_EQ(r.error().code, Errc::kTruncated) << "cut to " << n << ": " << r.error().message;
  }
}

TEST(SnapshotFile, RefusesEverySingleByteFlip) {
  // Every byte is covered by a check (magic, version, header CRC, info CRC, region CRCs): no flip
  // may be accepted, and none may crash.
  const Bytes good = encode_snapshot(sample());
  for (std::size_t i = 0; i < good.size(); ++i) {
    Bytes b = good;
    b[i] ^= 0x10;
    auto r = decode_snapshot(b, "flip.lks");
    EXPECT_FALSE(r.ok()) << "accepted a flip at offset " << i;
  }
}

TEST(SnapshotFile, BadMagicNamesTheFirstBytes) {
  Bytes b = encode_snapshot(sample());
  b[0] = 'X';
  std::string msg;
  EXPECT_EQ(decode_error(b, &msg), Errc::kBadMagic);
  EXPECT_NE(msg.find("58 4b 53 4e"), std::string::npos) << msg;
}

TEST(SnapshotFile, OtherVersionIsRefused) {
  for (std::uint32_t v : {0u, 3u}) {
    Bytes b = encode_snapshot(sample());
    put32(b, 8, v);
    std::string msg;
    EXPECT_EQ(decode_error(b, &msg), Errc::kBadVersion);
    EXPECT_NE(msg.find(fmt::format("version {}", v)), std::string::npos) << msg;
  }
}

/// The offset in the inflated info block where the threads end (the document's sizes: 24 bytes +
/// name per region entry, 156 bytes per thread).
std::size_t after_threads(const Snapshot& s) {
  std::size_t off = 0;
  for (const Region& r : s.regions) off += 24 + 4 + r.name.size();
  return off + 156 * s.threads.size();
}

Bytes info_of(const Bytes& file) {
  auto info = zlib_decompress(std::span(file.data() + 48, get32(file, 36)), get32(file, 32), "t");
  EXPECT_TRUE(info.ok());
  return info.ok() ? *info : Bytes{};
}

TEST(SnapshotFile, LdtTableIsWhereTheDocumentSays) {
  const Snapshot s = sample();
  const Bytes info = info_of(encode_snapshot(s));
  const std::size_t at = after_threads(s);
  ASSERT_GE(info.size(), at + 4 + 3 * 12);
  EXPECT_EQ(get32(info, at), 3u);  // entry count
  // Entry 1: u16 index, u8 access, u8 flags, u32 base, u32 limit.
  const std::size_t e = at + 4 + 12;
  EXPECT_EQ(info[e] | (info[e + 1] << 8), 8);
  EXPECT_EQ(info[e + 2], 0xf3);
  EXPECT_EQ(info[e + 3], 0x4);
  EXPECT_EQ(get32(info, e + 4), 0x7ffde000u);
  EXPECT_EQ(get32(info, e + 8), 0x1fffu);
  // The metadata follows: source's str32.
  EXPECT_EQ(get32(info, at + 4 + 36), s.meta.source.size());
}

TEST(SnapshotFile, Version1FilesStillRead) {
  // A version-1 file is a version-2 file without the LDT table: written by the version-1 path and
  // also built by hand from a version-2 file by the document's layout, both read back the same.
  Snapshot s = sample();
  s.ldt.clear();
  const Bytes v1 = encode_snapshot(s, {6, 1});
  EXPECT_EQ(get32(v1, 8), 1u);
  auto r = decode_snapshot(v1, "v1.lks");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, s);
  EXPECT_TRUE(r->ldt.empty());

  const Bytes v2 = encode_snapshot(s);
  Bytes by_hand = with_info_edited(v2, [&](Bytes& info) {
    const std::size_t at = after_threads(s);
    EXPECT_EQ(get32(info, at), 0u);  // the empty LDT's count
    info.erase(info.begin() + static_cast<std::ptrdiff_t>(at), info.begin() + static_cast<std::ptrdiff_t>(at + 4));
  });
  put32(by_hand, 8, 1);
  fix_header_crc(by_hand);
  EXPECT_EQ(by_hand, v1);
  // The same content, the same hash: cases cite it, whichever version the snapshot was read from.
  EXPECT_EQ(r->content_sha256(), s.content_sha256());
}

TEST(SnapshotFile, TheContentHashCoversTheLdt) {
  // A call through an LDT selector depends on the entry: another base is another state.
  const Snapshot s = sample();
  Snapshot moved = s;
  moved.ldt[0].base += 0x1000;
  Snapshot none = s;
  none.ldt.clear();
  EXPECT_NE(s.content_sha256(), moved.content_sha256());
  EXPECT_NE(s.content_sha256(), none.content_sha256());
  Snapshot renoted = s;
  renoted.meta.notes.push_back("metadata only");
  EXPECT_EQ(s.content_sha256(), renoted.content_sha256());
}

TEST(SnapshotFile, Version1CannotHoldAnLdt) {
  const fs::path p = temp_dir("v1ldt") / "v1.lks";
  fs::remove(p);
  auto st = save_snapshot(sample(), p, {6, 1});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Errc::kUsage);
  EXPECT_NE(st.error().message.find("3 LDT entries"), std::string::npos) << st.error().message;
  EXPECT_FALSE(fs::exists(p));
  Snapshot s = sample();
  s.ldt.clear();
  EXPECT_TRUE(save_snapshot(s, p, {6, 1}).ok());
  auto back = load_snapshot(p);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, s);
}

TEST(SnapshotFile, LdtTableChecks) {
  const Snapshot s = sample();
  const Bytes good = encode_snapshot(s);
  const std::size_t at = after_threads(s);
  std::string msg;
  // Entries out of order, or one index twice.
  EXPECT_EQ(decode_error(with_info_edited(good, [&](Bytes& i) { i[at + 4 + 12] = 7; }), &msg), Errc::kMalformed);
  EXPECT_NE(msg.find("sorted"), std::string::npos) << msg;
  // An index past the LDT's 8192 entries.
  EXPECT_EQ(decode_error(with_info_edited(good, [&](Bytes& i) { i[at + 4 + 24 + 1] = 0x20; }), &msg), Errc::kMalformed);
  EXPECT_NE(msg.find("index 8292"), std::string::npos) << msg;
  // A flags nibble or limit that does not fit a descriptor.
  EXPECT_EQ(decode_error(with_info_edited(good, [&](Bytes& i) { i[at + 4 + 3] = 0x10; }), &msg), Errc::kMalformed);
  EXPECT_EQ(decode_error(with_info_edited(good, [&](Bytes& i) { put32(i, at + 4 + 8, 0x100000); }), &msg),
            Errc::kMalformed);
  // A count past the LDT's size, and one the block cannot hold.
  EXPECT_EQ(decode_error(with_info_edited(good, [&](Bytes& i) { put32(i, at, 8193); }), &msg), Errc::kLimit);
  EXPECT_EQ(decode_error(with_info_edited(good, [&](Bytes& i) { put32(i, at, 8000); }), &msg), Errc::kTruncated);
  // validate() holds the same rules for snapshots built in memory.
  Snapshot u = sample();
  std::swap(u.ldt[0], u.ldt[1]);
  EXPECT_FALSE(u.validate().ok());
}

TEST(SnapshotFile, LdtDescriptorsRoundTripThroughTheirEightBytes) {
  // The 8-byte form is the CPU's (Intel SDM vol. 3, 3.4.5): Wine's TEB entry at 0x7ffdf000, limit
  // 0x1fff, present DPL 3 read/write data, 32-bit: 0x7f40f3fd_f0001fff.
  const LdtEntry e{7, 0x7ffdf000, 0x1fff, 0xf3, 0x4};
  EXPECT_EQ(e.descriptor(), 0x7f40f3fdf0001fffull);
  EXPECT_EQ(LdtEntry::from_descriptor(7, e.descriptor()), e);
  EXPECT_EQ(e.byte_limit(), 0x1fffu);
  const LdtEntry g{1, 0, 0xfffff, 0xf3, 0xc};
  EXPECT_EQ(g.byte_limit(), 0xffffffffu);
}

TEST(SnapshotFile, HeaderChecksum) {
  Bytes b = encode_snapshot(sample());
  b[12] ^= 1;  // flags, without fixing the CRC
  EXPECT_EQ(decode_error(b), Errc::kChecksum);
  fix_header_crc(b);  // now the CRC is right and the flag is unknown
  EXPECT_EQ(decode_error(b), Errc::kMalformed);
}

// A caller's own bounds are the reader's: each set one below what the sample holds is refused with
// kLimit naming that bound, and the same file decodes under the defaults.
TEST(SnapshotFile, ACallersOwnBoundsAreHonoured) {
  const Bytes good = encode_snapshot(sample());
  ASSERT_TRUE(decode_snapshot(good, "ok.lks").ok());
  std::uint32_t info_size = 0;
  std::memcpy(&info_size, good.data() + 32, 4);  // the header's info_size (snapshot-format.md)
  auto refused = [&](std::function<void(SnapshotLimits&)> set, const std::string& says) {
    SnapshotLimits limits;
    set(limits);
    auto r = decode_snapshot(good, "small.lks", limits);
    ASSERT_FALSE(r.ok()) << says;
    EXPECT_EQ(r.error().code, Errc::kLimit) << r.error().message;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  };
  // The sample: 3 regions of 0x13003 bytes, 2 threads, 2 modules, 2 notes (the longer 25 bytes),
  // names of at most 18 bytes ("/opt/game/GAME.EXE").
  refused([](SnapshotLimits& l) { l.max_regions = 2; }, "region count 3 (at offset 0x10) is past the limit of 2");
  refused([](SnapshotLimits& l) { l.max_threads = 1; }, "thread count 2 (at offset 0x14) is past the limit of 1");
  refused([](SnapshotLimits& l) { l.max_total_bytes = 0x13002; },
          "total region bytes 0x13003 (at offset 0x18) is past the limit of 0x13002");
  refused([&](SnapshotLimits& l) { l.max_info_bytes = info_size - 1; },
          fmt::format("info block size {} (at offset 0x20) is past the limit of {}", info_size, info_size - 1));
  refused([](SnapshotLimits& l) { l.max_name_bytes = 17; }, "region 0 name at offset");
  refused([](SnapshotLimits& l) { l.max_name_bytes = 17; }, "is 18 bytes long, past the limit of 17");
  refused([](SnapshotLimits& l) { l.max_modules = 1; }, "module count at info offset");
  refused([](SnapshotLimits& l) { l.max_modules = 1; }, "is 2, past the limit of 1");
  refused([](SnapshotLimits& l) { l.max_notes = 1; }, "note count at info offset");
  refused([](SnapshotLimits& l) { l.max_note_bytes = 24; }, "is 25 bytes long, past the limit of 24");
}

TEST(SnapshotFile, AbsurdCountsHitNamedLimits) {
  const Bytes good = encode_snapshot(sample());
  struct Case {
    std::size_t off;
    std::uint64_t value;
    bool wide;
    const char* words;
  } cases[] = {
      {16, 0xffffffff, false, "region count"},
      {16, SnapshotLimits{}.max_regions + 1, false, "region count"},
      {20, 0x10000000, false, "thread count"},
      {24, (std::uint64_t{1} << 32) + 1, true, "total region bytes"},
      {32, 0xfffffff0, false, "info block size"},
  };
  for (const auto& c : cases) {
    Bytes b = good;
    if (c.wide) put64(b, c.off, c.value);
    else put32(b, c.off, static_cast<std::uint32_t>(c.value));
    fix_header_crc(b);
    std::string msg;
    EXPECT_EQ(decode_error(b, &msg), Errc::kLimit) << c.words;
    EXPECT_NE(msg.find(c.words), std::string::npos) << msg;
  }
  // A region count that is within the limit but more than the info block can hold.
  Bytes b = good;
  put32(b, 16, 60000);
  fix_header_crc(b);
  EXPECT_EQ(decode_error(b), Errc::kTruncated);
}

TEST(SnapshotFile, InfoBlockChecksum) {
  Bytes b = encode_snapshot(sample());
  b[48 + 5] ^= 0xff;
  std::string msg;
  EXPECT_EQ(decode_error(b, &msg), Errc::kChecksum);
  EXPECT_NE(msg.find("info block"), std::string::npos) << msg;
}

TEST(SnapshotFile, CorruptRegionByteIsAChecksumError) {
  const Snapshot s = sample();
  Bytes b = encode_snapshot(s);
  const std::size_t data_at = 48 + get32(b, 36);
  b[data_at + 7] ^= 0x01;  // inside region 0's stored data
  std::string msg;
  EXPECT_EQ(decode_error(b, &msg), Errc::kChecksum);
  EXPECT_NE(msg.find("region 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GAME.EXE"), std::string::npos) << msg;
}

TEST(SnapshotFile, InflatedBytesChecksum) {
  // The stored stream is intact but the table's CRC of the inflated bytes is not.
  const Bytes good = encode_snapshot(sample());
  Bytes b = with_info_edited(good, [](Bytes& info) { info[12] ^= 0x80; });  // region 0 data_crc32
  std::string msg;
  EXPECT_EQ(decode_error(b, &msg), Errc::kChecksum);
  EXPECT_NE(msg.find("inflated"), std::string::npos) << msg;
}

TEST(SnapshotFile, OverlappingAndUnsortedRegionsAreMalformed) {
  Snapshot s = sample();
  s.regions[1].base = 0x00402000;  // inside region 0 (0x401000..0x404000)
  std::string msg;
  EXPECT_EQ(decode_error(encode_snapshot(s), &msg), Errc::kMalformed);
  EXPECT_NE(msg.find("overlaps region 0"), std::string::npos) << msg;

  Snapshot u = sample();
  std::swap(u.regions[0], u.regions[2]);
  EXPECT_EQ(decode_error(encode_snapshot(u), &msg), Errc::kMalformed);
  EXPECT_NE(msg.find("sorted"), std::string::npos) << msg;
}

TEST(SnapshotFile, RegionTableChecks) {
  const Bytes good = encode_snapshot(sample());
  std::string msg;
  // A region past 4 GiB.
  EXPECT_EQ(decode_error(with_info_edited(good, [](Bytes& i) { put32(i, 0, 0xffffff00); }), &msg), Errc::kMalformed);
  EXPECT_NE(msg.find("4 GiB"), std::string::npos) << msg;
  // An unknown protection bit.
  EXPECT_EQ(decode_error(with_info_edited(good, [](Bytes& i) { i[8] = 0x08; }), &msg), Errc::kMalformed);
  // A size no zlib stream of the stored size can inflate to.
  EXPECT_EQ(decode_error(with_info_edited(good, [](Bytes& i) { put32(i, 4, 0x7fff0000); }), &msg), Errc::kMalformed);
  EXPECT_NE(msg.find("more than zlib can"), std::string::npos) << msg;
  // A name longer than the limit (encode does not check; the reader must).
  Snapshot s = sample();
  s.regions[0].name.assign(SnapshotLimits{}.max_name_bytes + 1, 'n');
  EXPECT_EQ(decode_error(encode_snapshot(s), &msg), Errc::kLimit);
  // Bytes after the last region.
  Bytes t = good;
  t.push_back(0);
  EXPECT_EQ(decode_error(t, &msg), Errc::kMalformed);
  EXPECT_NE(msg.find("after the last region"), std::string::npos) << msg;
}

TEST(LoadSnapshot, DetectsFormatsByMagic) {
  const fs::path dir = temp_dir("magic");
  auto write = [&](const char* name, const Bytes& b) {
    EXPECT_TRUE(write_file_atomic(dir / name, b).ok());
    return dir / name;
  };
  auto unknown = load_snapshot(write("text.lks", Bytes{'h', 'e', 'l', 'l', 'o', '!', '\n', 0}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, Errc::kBadMagic);
  EXPECT_NE(unknown.error().message.find("68 65 6c 6c 6f"), std::string::npos) << unknown.error().message;
  auto short_file = load_snapshot(write("short.lks", Bytes{'L', 'K'}));
  ASSERT_FALSE(short_file.ok());
  EXPECT_EQ(short_file.error().code, Errc::kTruncated);
  auto missing = load_snapshot(dir / "does-not-exist.lks");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::kNotFound);
  EXPECT_EQ(detect_snapshot_format(Bytes{'M', 'D', 'M', 'P', 0x93, 0xa7}), SnapshotFormat::kMinidump);
  EXPECT_EQ(detect_snapshot_format(Bytes{0x7f, 'E', 'L', 'F', 1}), SnapshotFormat::kElfCore);
  EXPECT_EQ(detect_snapshot_format(encode_snapshot(sample())), SnapshotFormat::kLockstep);
  EXPECT_EQ(detect_snapshot_format(Bytes{'M', 'D'}), SnapshotFormat::kUnknown);
}

TEST(X87FromFxsave, RebuildsTheFullTagWord) {
  // FXSAVE image with TOP = 5: ST(0) = 1.0 (valid), ST(1) = +0 (zero), ST(2) = a NaN (special),
  // the rest empty. Physical register of ST(i) is (5 + i) & 7: 5, 6, 7.
  Bytes fx(512, 0);
  fx[0] = 0x7f; fx[1] = 0x02;                  // FCW 0x027f
  fx[2] = 0x00; fx[3] = 5 << 3;                // FSW: TOP = 5 in bits 11..13
  fx[4] = (1 << 5) | (1 << 6) | (1 << 7);      // abridged tag: physical 5, 6, 7 in use
  put32(fx, 24, 0x1f80);
  const std::uint8_t one[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};
  const std::uint8_t nan[10] = {0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0x7f};
  std::memcpy(fx.data() + 32, one, 10);
  std::memcpy(fx.data() + 64, nan, 10);        // ST(2); ST(1) stays all zero
  const std::optional<X87State> read = x87_from_fxsave(fx);
  ASSERT_TRUE(read.has_value());
  const X87State& x = *read;
  EXPECT_EQ(x.control, 0x027f);
  EXPECT_EQ(x.mxcsr, 0x1f80u);
  // Physical 5 valid (00), 6 zero (01), 7 special (10), 0..4 empty (11).
  EXPECT_EQ(x.tag, 0x93ff);
  EXPECT_EQ(x.st[0][9], 0x3f);
  EXPECT_FALSE(x87_from_fxsave(Bytes(100, 0)).has_value());
}

}  // namespace
}  // namespace lockstep::harness
