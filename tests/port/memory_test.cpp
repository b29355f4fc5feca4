// pod::FlatMemory and the typed views: little-endian layout, ranges, faults; a Memory over marked
// pages (the replay's): which accesses stay inline and which reach its slow path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "pod/layout.hpp"
#include "pod/memory.hpp"

namespace {

TEST(FlatMemory, LittleEndianAtEveryWidth) {
  pod::FlatMemory m;
  auto bytes = m.map(0x1000, 0x100);
  m.put_u32(0x1000, 0x11223344u);
  EXPECT_EQ(bytes[0], 0x44);
  EXPECT_EQ(bytes[3], 0x11);
  EXPECT_EQ(m.u16(0x1001), 0x2233);
  EXPECT_EQ(m.i8(0x1003), 0x11);
  m.put_i16(0x1010, -2);
  EXPECT_EQ(m.u16(0x1010), 0xfffe);
  EXPECT_EQ(m.i16(0x1010), -2);
  m.put_f64(0x1020, 1.5);
  EXPECT_EQ(m.u32(0x1024), 0x3ff80000u);
  EXPECT_EQ(m.f64(0x1020), 1.5);
}

TEST(FlatMemory, UnmappedAccessFaultsWithAddress) {
  pod::FlatMemory m;
  m.map(0x1000, 0x10);
  EXPECT_THROW(m.u8(0x0fff), pod::MemoryFault);
  try {
    m.put_u32(0x100e, 1);  // two bytes past the end
    FAIL() << "no fault";
  } catch (const pod::MemoryFault& f) {
    EXPECT_EQ(f.address(), 0x100eu);
    EXPECT_EQ(f.size(), 4u);
    EXPECT_TRUE(f.write());
    EXPECT_NE(std::string(f.what()).find("0x0000100e"), std::string::npos);
  }
  EXPECT_EQ(m.u8(0x100e), 0) << "a faulting store writes nothing";
}

TEST(FlatMemory, AccessSpansAdjacentRanges) {
  pod::FlatMemory m;
  m.map(0x2000, 2);
  m.map(0x2002, 2);
  m.put_u32(0x2000, 0xa1b2c3d4u);
  EXPECT_EQ(m.u32(0x2000), 0xa1b2c3d4u);
  EXPECT_TRUE(m.mapped(0x2000, 4));
  EXPECT_FALSE(m.mapped(0x2000, 5));
}

// The lookup remembers a range per recently used page: it must never answer with a range that does not
// hold the address — two ranges sharing one page, pages that share a remembered slot (64 pages apart),
// ranges mapped after lookups (which moves the others), and a gap inside a remembered page. The
// expected bytes are a plain model: what was stored, or a fault where nothing is mapped.
TEST(FlatMemory, LookupsOfSharedPagesSlotsAndLaterRangesFindTheRightBytes) {
  pod::FlatMemory m;
  m.map(0x10000, 0x800);   // ends mid-page
  m.map(0x10c00, 0x400);   // starts later in the same page: 0x10800..0x10bff is a gap
  m.map(0x50000, 0x1000);  // page 0x50: the same slot as page 0x10 (64 pages apart)
  for (std::uint32_t round = 0; round < 3; ++round) {
    m.put_u32(0x10000, 0xa0000000u + round);
    m.put_u32(0x10c00, 0xb0000000u + round);
    m.put_u32(0x50000, 0xc0000000u + round);
    EXPECT_EQ(m.u32(0x10c00), 0xb0000000u + round);
    EXPECT_EQ(m.u32(0x10000), 0xa0000000u + round);
    EXPECT_EQ(m.u32(0x50000), 0xc0000000u + round);
    EXPECT_EQ(m.u32(0x10000), 0xa0000000u + round);
    EXPECT_THROW(m.u8(0x10900), pod::MemoryFault);  // the gap, in a page just looked up
    EXPECT_EQ(m.u32(0x10c00), 0xb0000000u + round);
  }
  // A range mapped below the others after lookups: every range's bytes stay where they were.
  m.map(0x8000, 0x100);
  m.put_u32(0x8000, 0xd0000000u);
  EXPECT_EQ(m.u32(0x10000), 0xa0000002u);
  EXPECT_EQ(m.u32(0x10c00), 0xb0000002u);
  EXPECT_EQ(m.u32(0x50000), 0xc0000002u);
  EXPECT_EQ(m.u32(0x8000), 0xd0000000u);
  // Spans: the end of one range into the gap faults; the copy paths cross the gap's edges alike.
  EXPECT_THROW(m.u32(0x107fe), pod::MemoryFault);
  std::uint8_t four[4] = {1, 2, 3, 4};
  EXPECT_THROW(m.write_bytes(0x10bfe, four, 4), pod::MemoryFault);
  m.write_bytes(0x10c00, four, 4);
  EXPECT_EQ(m.u32(0x10c00), 0x04030201u);
}

// read_bytes across several ranges writes exactly `size` bytes to the caller's buffer: every range's
// share is cut at what is left of the copy, so a last range with bytes to spare gives none past the
// end (the buffer's bytes after the copy keep what they held).
TEST(FlatMemory, ReadAcrossRangesWritesExactlyTheBytesAsked) {
  pod::FlatMemory m;
  m.map(0x5000, 2);
  m.map(0x5002, 3);
  m.map(0x5005, 0x40);  // far more than the copy needs
  for (std::uint32_t a = 0x5000; a < 0x5045; ++a) m.put_u8(a, static_cast<std::uint8_t>(a - 0x5000 + 1));
  std::uint8_t out[24];
  for (std::uint8_t& b : out) b = 0xee;
  m.read_bytes(0x5001, out, 8);  // 1 byte of the first range, 3 of the second, 4 of the third
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], i + 2) << "byte " << i;
  for (std::uint32_t i = 8; i < 24; ++i) EXPECT_EQ(out[i], 0xee) << "byte " << i << " past the copy";
}

TEST(FlatMemory, RefusesOverlapsAndEmptyRanges) {
  pod::FlatMemory m;
  m.map(0x1000, 0x100);
  EXPECT_THROW(m.map(0x10ff, 1), std::invalid_argument);
  EXPECT_THROW(m.map(0x3000, 0), std::invalid_argument);
  EXPECT_THROW(m.map(0xffffff00u, 0x200), std::invalid_argument);
}

// A Memory over a table of marked pages, as the replay gives the port: one page listed (guest page
// 5), its bytes and, kPageSize bytes after them, a mark per byte (0xff: may be loaded inline). The
// slow path answers 0xee in every byte and counts what reaches it.
class MarkedMemory final : public pod::Memory {
 public:
  static constexpr std::uint32_t kPage = 5;
  static constexpr pod::GuestAddr kBase = kPage << kPageBits;
  explicit MarkedMemory(std::uint8_t** table) : pod::Memory(MarkedPages{table}) {}
  std::vector<pod::GuestAddr> loads, stores;  // the addresses that reached the slow path

 private:
  std::uint8_t load8_slow(pod::GuestAddr a) override { return static_cast<std::uint8_t>(slow(a)); }
  std::uint16_t load16_slow(pod::GuestAddr a) override { return static_cast<std::uint16_t>(slow(a)); }
  std::uint32_t load32_slow(pod::GuestAddr a) override { return static_cast<std::uint32_t>(slow(a)); }
  std::uint64_t load64_slow(pod::GuestAddr a) override { return slow(a); }
  void store8_slow(pod::GuestAddr a, std::uint8_t) override { stores.push_back(a); }
  void store16_slow(pod::GuestAddr a, std::uint16_t) override { stores.push_back(a); }
  void store32_slow(pod::GuestAddr a, std::uint32_t) override { stores.push_back(a); }
  void store64_slow(pod::GuestAddr a, std::uint64_t) override { stores.push_back(a); }
  std::uint64_t slow(pod::GuestAddr a) {
    loads.push_back(a);
    return 0xeeeeeeeeeeeeeeeeu;
  }
};

struct MarkedPage {
  std::vector<std::uint8_t> bytes = std::vector<std::uint8_t>(2 * pod::Memory::kPageSize);  // data, then marks
  std::uint8_t** table = static_cast<std::uint8_t**>(std::calloc(pod::Memory::kPages, sizeof(std::uint8_t*)));
  MarkedPage() { table[MarkedMemory::kPage] = bytes.data(); }
  ~MarkedPage() { std::free(table); }
  void set(std::uint32_t off, std::uint8_t v) {
    bytes[off] = v;
    bytes[pod::Memory::kPageSize + off] = 0xff;
  }
};

TEST(MarkedMemory, LoadsMarkedBytesInlineAndSendsTheRestAndEveryStoreToTheSlowPath) {
  MarkedPage page;
  for (std::uint32_t off = 0x100; off < 0x108; ++off) page.set(off, static_cast<std::uint8_t>(off));
  page.set(0xfff, 0x42);
  MarkedMemory m(page.table);
  constexpr pod::GuestAddr b = MarkedMemory::kBase;
  // Every byte marked: inline, the page's bytes, little-endian; the slow path never asked.
  EXPECT_EQ(m.u8(b + 0x100), 0x00);
  EXPECT_EQ(m.u16(b + 0x100), 0x0100);
  EXPECT_EQ(m.u32(b + 0x104), 0x07060504u);
  EXPECT_EQ(m.load64(b + 0x100), 0x0706050403020100u);
  EXPECT_EQ(m.u8(b + 0xfff), 0x42);  // the page's last byte
  EXPECT_TRUE(m.loads.empty());
  // One byte of the load not marked (the one past each run, the one before it), a load across the
  // page's end, a page not listed: the slow path, whatever the bytes hold.
  EXPECT_EQ(m.u16(b + 0x107), 0xeeee);
  EXPECT_EQ(m.u32(b + 0x0ff), 0xeeeeeeeeu);
  EXPECT_EQ(m.load64(b + 0x101), 0xeeeeeeeeeeeeeeeeu);
  EXPECT_EQ(m.u8(b + 0x108), 0xee);
  EXPECT_EQ(m.u16(b + 0xfff), 0xeeee);
  EXPECT_EQ(m.u32(b + 0x1000 + 0x100), 0xeeeeeeeeu);
  EXPECT_EQ(m.loads, (std::vector<pod::GuestAddr>{b + 0x107, b + 0x0ff, b + 0x101, b + 0x108, b + 0xfff, b + 0x1100}));
  // Stores, even to marked bytes of a listed page: the slow path, the page untouched.
  m.put_u8(b + 0x100, 9);
  m.put_u16(b + 0x102, 9);
  m.put_u32(b + 0x104, 9);
  m.store64(b + 0x100, 9);
  EXPECT_EQ(m.stores, (std::vector<pod::GuestAddr>{b + 0x100, b + 0x102, b + 0x104, b + 0x100}));
  EXPECT_EQ(page.bytes[0x100], 0x00);
  EXPECT_EQ(page.bytes[0x104], 0x04);
  // A mark set later (as the replay does for a byte the port wrote) is seen by the next load.
  page.set(0x108, 0x99);
  EXPECT_EQ(m.u8(b + 0x108), 0x99);
  EXPECT_EQ(m.loads.size(), 6u);
}

// F015, F016: five 0xd8 point records open the 0x558-byte car; the chassis point is at 0x360.
TEST(Facts, F015_F016_CarOpensWithFivePointRecords) {
  pod::FlatMemory m;
  m.map(pod::addr::kRaceCars, 8 * 0x558);
  EXPECT_EQ(pod::Car::kSize, 0x558u);
  EXPECT_EQ(pod::Point::kSize, 0xd8u);
  const pod::Car car1(m, pod::Car::at(pod::addr::kRaceCars, 1));
  EXPECT_EQ(car1.addr(), 0x630838u + 0x558u);
  EXPECT_EQ(car1.point(pod::Car::kChassis).addr() - car1.addr(), 0x360u);
  car1.point(2).set(pod::Point::velocity, pod::Vec3{1, 2, 3});
  EXPECT_EQ(m.i32(car1.addr() + 2 * 0xd8 + 0x0c + 8), 3);
  // The first byte after the five points is wheel 1's sector number (000).
  EXPECT_EQ(pod::Car::wheel1_sector_number.offset, 5 * 0xd8u);
}

// F017: a point's surface is 0x62bc0c + 12 × n and its first word is the grip.
TEST(Facts, F017_SurfaceRecordsAreTwelveBytesGripFirst) {
  EXPECT_EQ(pod::Surface::at(0), 0x62bc0cu);
  EXPECT_EQ(pod::Surface::at(5), 0x62bc0cu + 60u);
  EXPECT_EQ(pod::Surface::grip.offset, 0u);
}

}  // namespace

namespace {

// F078, F135: face flags are byte 0 of the trailing flags word (bit 3 ground, bit 5 wall), stored
// after byte 1 and before byte 2, the surface: quad +0x35, +0x36, +0x37; triangle +0x1b, +0x1c, +0x1d.
TEST(Facts, F078_F135_FaceFlagsAndSurfaceBytes) {
  EXPECT_EQ(pod::face_flags::kGround, 0x08);
  EXPECT_EQ(pod::face_flags::kWall, 0x20);
  EXPECT_EQ(pod::Quad::flags_byte1.offset, 0x35u);
  EXPECT_EQ(pod::Quad::flags.offset, 0x36u);
  EXPECT_EQ(pod::Quad::surface.offset, 0x37u);
  EXPECT_EQ(pod::Triangle::flags_byte1.offset, 0x1bu);
  EXPECT_EQ(pod::Triangle::flags.offset, 0x1cu);
  EXPECT_EQ(pod::Triangle::surface.offset, 0x1du);
  EXPECT_EQ(pod::Quad::kSize, 0x3cu);
  EXPECT_EQ(pod::Triangle::kSize, 0x20u);
  // Corners: four u16 from +0x2c (quad), three from +0x14 (triangle).
  EXPECT_EQ(pod::Quad::corners[3].offset, 0x32u);
  EXPECT_EQ(pod::Triangle::corners[2].offset, 0x18u);
}

// F133: a quad keeps the normals of its halves a b c (+0xc) and c d a (+0x18) after its own (+0).
TEST(Facts, F133_QuadHalvesNormalsFollowTheFaceNormal) {
  EXPECT_EQ(pod::Quad::normal.offset, 0x00u);
  EXPECT_EQ(pod::Quad::normal_abc.offset, 0x0cu);
  EXPECT_EQ(pod::Quad::normal_cda.offset, 0x18u);
}

// F079, F132: a sector's neighbour count (+0x28) is -1 out of play; +0x34 is 1. Sector 0x3c bytes.
TEST(Facts, F079_F132_SectorRecord) {
  pod::FlatMemory m;
  m.map(0x900000, 2 * pod::Sector::kSize);
  const pod::Sector s(m, 0x900000 + pod::Sector::kSize);
  s.set(pod::Sector::neighbour_count, -1);
  EXPECT_EQ(m.i32(0x900000 + 0x3c + 0x28), -1);
  EXPECT_EQ(pod::Sector::neighbours.offset, 0x2cu);
  EXPECT_EQ(pod::Sector::one.offset, 0x34u);
  EXPECT_EQ(pod::Sector::mesh.offset, 0u);
  EXPECT_EQ(pod::Sector::bounds_low.offset, 0x10u);
  EXPECT_EQ(pod::Sector::bounds_high.offset, 0x1cu);
}

// The car's documented bit fields sit where 000 puts them (F019, F021, F022 are tested by behaviour).
TEST(Layout, GearboxAndSoundFieldOffsets) {
  EXPECT_EQ(pod::Car::gear_request.offset, 0x449u);
  EXPECT_EQ(pod::Car::gearbox_flags.offset, 0x448u);
  EXPECT_EQ(pod::Car::sound_state.offset, 0x4f9u);
  EXPECT_EQ(pod::sound::kSkid | pod::sound::kEngineRising | pod::sound::kEngineFalling | pod::sound::kAirborne |
                pod::sound::kScraping | pod::sound::kCarContact | pod::sound::kCrash,
            0x7f);
  EXPECT_EQ(pod::sound::kCarContact, 0x20);
}

}  // namespace
