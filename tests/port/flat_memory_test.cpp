// Running the port without lockstep: pod::FlatMemory (the guest memory a game gives the port), the
// tables it installs there (tables::install) and the scratch blocks of the car step
// (step::map_scratch). The replay gate never runs these (it replays on the cases layer's memory and
// reads the original's tables from the cases), so these tests are their only judge. Expected values
// come from the interface's contract (memory.hpp, tables.hpp, step.hpp), the documents' formulas
// (F012..F014) and port/CHOICES.md's addresses, never from the code under test.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pod/memory.hpp"
#include "pod/step.hpp"
#include "pod/tables.hpp"

namespace {

__extension__ typedef __int128 i128;

std::string fault_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const pod::MemoryFault& e) {
    return e.what();
  }
  return "no fault";
}

// The fault names the access and the address in eight lower-case hex digits, every digit its own.
TEST(FlatMemory, FaultTextNamesAccessSizeAndEveryHexDigit) {
  pod::FlatMemory m;
  m.map(0x1000, 0x10);
  EXPECT_EQ(fault_text([&] { m.u32(0x89abcdef); }), "load of 4 bytes at 0x89abcdef: address not mapped");
  EXPECT_EQ(fault_text([&] { m.put_u16(0x01234567, 1); }), "store of 2 bytes at 0x01234567: address not mapped");
  EXPECT_EQ(fault_text([&] { m.u8(0xfedcba98); }), "load of 1 bytes at 0xfedcba98: address not mapped");
  EXPECT_EQ(fault_text([&] { m.put_f64(0x0000100c, 1.0); }), "store of 8 bytes at 0x0000100c: address not mapped");
  EXPECT_EQ(fault_text([&] { m.u32(0xffffffff); }), "load of 4 bytes at 0xffffffff: address not mapped");
  EXPECT_EQ(fault_text([&] { m.u16(0x00000000); }), "load of 2 bytes at 0x00000000: address not mapped");
  try {
    m.load64(0x0000100a);
    FAIL() << "no fault";
  } catch (const pod::MemoryFault& f) {
    EXPECT_EQ(f.address(), 0x100au);
    EXPECT_EQ(f.size(), 8u);
    EXPECT_FALSE(f.write());
  }
}

// A range may end exactly at 2^32, not one byte past it; mapped() never wraps round to address 0.
TEST(FlatMemory, RangesReachTheTopOfTheAddressSpaceAndNoFurther) {
  pod::FlatMemory m;
  auto top = m.map(0xffffff00u, 0x100);
  EXPECT_EQ(top.size(), 0x100u);
  m.map(0, 0x10);
  EXPECT_THROW(m.map(0xfffffe00u, 0x201), std::invalid_argument);
  EXPECT_TRUE(m.mapped(0xffffff00u, 0x100));
  EXPECT_TRUE(m.mapped(0xffffffffu, 1));
  EXPECT_FALSE(m.mapped(0xffffff00u, 0x101)) << "past 2^32 is not address 0";
  EXPECT_FALSE(m.mapped(0xfffffff0u, 0x20));
  m.put_u32(0xfffffffcu, 0xdeadbeefu);
  EXPECT_EQ(m.u32(0xfffffffcu), 0xdeadbeefu);
  EXPECT_EQ(m.u8(0xffffffffu), 0xde);
  EXPECT_THROW(m.u32(0xfffffffeu), pod::MemoryFault);
  EXPECT_THROW(m.put_u16(0xffffffffu, 0), pod::MemoryFault);
  EXPECT_EQ(m.u8(0xffffffffu), 0xde) << "a faulting store writes nothing";
  EXPECT_EQ(m.u8(0), 0);
}

// Ranges may touch on either side; one shared byte is an overlap.
TEST(FlatMemory, AdjacentRangesAreAllowedOverlapsAreNot) {
  pod::FlatMemory m;
  m.map(0x1000, 0x100);
  EXPECT_NO_THROW(m.map(0x1100, 0x10));
  EXPECT_NO_THROW(m.map(0x0ff0, 0x10));
  EXPECT_THROW(m.map(0x10ff, 2), std::invalid_argument);
  EXPECT_THROW(m.map(0x0fe0, 0x21), std::invalid_argument);
  EXPECT_THROW(m.map(0x0f00, 0x1000), std::invalid_argument) << "a range covering others";
  EXPECT_THROW(m.map(0x1080, 1), std::invalid_argument) << "a range inside another";
  EXPECT_TRUE(m.mapped(0x0ff0, 0x120));
  EXPECT_FALSE(m.mapped(0x0fef, 1));
  EXPECT_FALSE(m.mapped(0x1110, 1));
}

// Ranges mapped in any order are found again, each byte in its own range, gaps unmapped.
TEST(FlatMemory, RangesMappedOutOfOrderKeepTheirBytes) {
  pod::FlatMemory m;
  const std::vector<std::uint32_t> bases = {0x5000, 0x1000, 0x3000, 0x7000, 0x2000};
  for (std::uint32_t b : bases) m.map(b, 0x100);
  for (std::uint32_t b : bases) m.put_u32(b + 0xfc, b * 3 + 1);
  for (int round = 0; round < 2; ++round) {
    for (std::uint32_t b : {0x7000u, 0x1000u, 0x5000u, 0x2000u, 0x3000u, 0x1000u, 0x1000u}) {
      EXPECT_EQ(m.u32(b + 0xfc), b * 3 + 1) << std::hex << b;
      EXPECT_EQ(m.u32(b), 0u) << "a mapped range starts zeroed";
    }
  }
  for (std::uint32_t gap : {0x0fffu, 0x1100u, 0x1fffu, 0x2100u, 0x4000u, 0x6000u, 0x7100u}) {
    EXPECT_FALSE(m.mapped(gap, 1)) << std::hex << gap;
    EXPECT_THROW(m.u8(gap), pod::MemoryFault) << std::hex << gap;
  }
}

// Loads and stores of every width across range boundaries keep the little-endian order.
TEST(FlatMemory, EveryWidthSpansRangeBoundaries) {
  pod::FlatMemory m;
  m.map(0x2000, 3);
  m.map(0x2003, 5);
  m.map(0x2008, 8);
  m.store64(0x2001, 0x0807060504030201ull);
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(m.u8(0x2001 + i), i + 1) << i;
  EXPECT_EQ(m.load64(0x2001), 0x0807060504030201ull);
  EXPECT_EQ(m.u32(0x2002), 0x05040302u);
  EXPECT_EQ(m.u16(0x2007), 0x0807u);
  EXPECT_EQ(m.i16(0x2002), 0x0302);
  m.put_u16(0x2007, 0xa1b2);
  EXPECT_EQ(m.u8(0x2007), 0xb2);
  EXPECT_EQ(m.u8(0x2008), 0xa1);
  m.put_i32(0x2006, -2);
  EXPECT_EQ(m.u32(0x2006), 0xfffffffeu);
  EXPECT_EQ(m.u8(0x2009), 0xff);
  EXPECT_EQ(m.u8(0x200a), 0) << "a store touches only its bytes";
  m.put_f64(0x2004, -0.75);
  EXPECT_EQ(m.f64(0x2004), -0.75);
  EXPECT_EQ(m.load64(0x2008), 0x00000000bfe80000ull);
  m.put_u8(0x200f, 0x7f);
  EXPECT_EQ(m.u8(0x200f), 0x7f);
  EXPECT_THROW(m.u16(0x200f), pod::MemoryFault);
}

// A load or store running past a range's end faults wherever the range lies, its base close below
// 2^31 too: there a 32-bit sum of base and address wraps to a small number (0x7fffffff + 0x8000000d
// = 2^32 + 12), but only the offset into the range (here 14) says how much of it is left.
TEST(FlatMemory, AccessesPastARangesEndFaultWhereverTheRangeLies) {
  for (const std::uint32_t base : {0x7fffffffu, 0x7ffffffcu, 0x7ffffff9u}) {
    pod::FlatMemory m;
    m.map(base, 0x10);
    const std::uint32_t end = base + 0x10;
    for (const std::uint32_t past : {1u, 2u, 3u}) {  // an access of 4 bytes ending 1 to 3 bytes past the end
      EXPECT_THROW(m.u32(end - 4 + past), pod::MemoryFault) << std::hex << base << " +" << past;
      EXPECT_THROW(m.put_u32(end - 4 + past, 0x01020304u), pod::MemoryFault) << std::hex << base << " +" << past;
    }
    for (std::uint32_t past = 1; past < 8; ++past) {
      EXPECT_THROW(m.load64(end - 8 + past), pod::MemoryFault) << std::hex << base << " +" << past;
      EXPECT_THROW(m.store64(end - 8 + past, ~0ull), pod::MemoryFault) << std::hex << base << " +" << past;
    }
    EXPECT_THROW(m.u16(end - 1), pod::MemoryFault) << std::hex << base;
    for (std::uint32_t a = base; a != end; ++a) EXPECT_EQ(m.u8(a), 0) << std::hex << a << ": a faulting store writes nothing";
    // With the next range mapped the same accesses read and write across the boundary.
    m.map(end, 0x10);
    m.put_u32(end - 2, 0xa1b2c3d4u);
    EXPECT_EQ(m.u8(end - 2), 0xd4);
    EXPECT_EQ(m.u8(end + 1), 0xa1);
    EXPECT_EQ(m.u32(end - 2), 0xa1b2c3d4u);
  }
}

// A store that would run into unmapped bytes faults before writing any byte, even across ranges.
TEST(FlatMemory, AFaultingSpanningStoreWritesNothing) {
  pod::FlatMemory m;
  m.map(0x3000, 2);
  m.map(0x3002, 1);
  EXPECT_THROW(m.put_u32(0x3000, 0x11223344u), pod::MemoryFault);
  EXPECT_THROW(m.store64(0x3001, ~0ull), pod::MemoryFault);
  for (std::uint32_t a = 0x3000; a < 0x3003; ++a) EXPECT_EQ(m.u8(a), 0) << std::hex << a;
  const std::uint8_t in[4] = {1, 2, 3, 4};
  EXPECT_THROW(m.write_bytes(0x2fff, in, 4), pod::MemoryFault);
  EXPECT_THROW(m.write_bytes(0x3000, in, 4), pod::MemoryFault);
  for (std::uint32_t a = 0x3000; a < 0x3003; ++a) EXPECT_EQ(m.u8(a), 0) << std::hex << a;
}

// Block copies in and out cross ranges, and fault naming their start and length.
TEST(FlatMemory, BlockCopiesCrossRangesAndFaultWhole) {
  pod::FlatMemory m;
  m.map(0x4000, 3);
  m.map(0x4003, 3);
  const std::uint8_t in[6] = {9, 8, 7, 6, 5, 4};
  m.write_bytes(0x4000, in, 6);
  EXPECT_EQ(m.u32(0x4002), 0x04050607u);
  std::uint8_t out[6] = {};
  m.read_bytes(0x4000, out, 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], in[i]) << i;
  std::uint8_t two[2] = {};
  m.read_bytes(0x4002, two, 2);
  EXPECT_EQ(two[0], 7);
  EXPECT_EQ(two[1], 6);
  m.write_bytes(0x4005, in, 1);
  EXPECT_EQ(m.u8(0x4005), 9);
  EXPECT_NO_THROW(m.write_bytes(0x4000, in, 0));
  EXPECT_NO_THROW(m.read_bytes(0x4006, out, 0));
  try {
    m.read_bytes(0x4001, out, 6);
    FAIL() << "no fault";
  } catch (const pod::MemoryFault& f) {
    EXPECT_EQ(f.address(), 0x4001u);
    EXPECT_EQ(f.size(), 6u);
    EXPECT_FALSE(f.write());
  }
  try {
    m.write_bytes(0x3ffe, in, 3);
    FAIL() << "no fault";
  } catch (const pod::MemoryFault& f) {
    EXPECT_EQ(f.address(), 0x3ffeu);
    EXPECT_EQ(f.size(), 3u);
    EXPECT_TRUE(f.write());
  }
}

// A copy of 2^32 bytes or more cannot lie inside the 32-bit address space: refused as a fault
// before any byte is copied (its length does not wrap round to 0, which mapped() would accept).
TEST(FlatMemory, BlockCopiesOfFourGiBOrMoreFault) {
  pod::FlatMemory m;
  m.map(0x1000, 16);
  std::uint8_t buf[16] = {1, 2, 3};
  EXPECT_THROW(m.write_bytes(0x1000, buf, std::size_t{1} << 32), pod::MemoryFault);
  EXPECT_THROW(m.read_bytes(0x1000, buf, std::size_t{1} << 32), pod::MemoryFault);
  EXPECT_THROW(m.write_bytes(0x1000, buf, (std::size_t{1} << 32) + 4), pod::MemoryFault);
  EXPECT_EQ(m.u8(0x1000), 0) << "nothing copied";
  EXPECT_EQ(buf[0], 1) << "nothing copied";
}

// tables::install: the three tables by their formulas (F012..F014), at the storage port/CHOICES.md
// places them ("Data blocks": reciprocal storage 0x7a0000..0x7c0000 with entry 0 at 0x7b0000, square
// roots 0x7c0000..0x7e0000, sines at 0x72c704), the pointers [0x4ed42c] and [0x4ed434], the rounding
// constant 1.5·2^68 at 0x4ee0c0 and 2^-16 at 0x4ee0c8; nothing mapped beyond the storage.
TEST(TablesInstall, EveryEntryByItsFormulaAtItsAddress) {
  pod::FlatMemory m;
  m.map(0x4ed000, 0x1100);  // the pointer words and the two constants
  pod::tables::install(m);
  EXPECT_EQ(m.u32(0x4ed434), 0x7c0000u);
  EXPECT_EQ(m.u32(0x4ed42c), 0x7b0000u);
  EXPECT_EQ(m.load64(0x4ee0c0), 0x4438000000000000ull);  // 1.5 × 2^68
  EXPECT_EQ(m.load64(0x4ee0c8), 0x3ef0000000000000ull);  // 2^-16
  // F012: n = floor(sqrt(i) × 65536), n² <= i·2^32 < (n+1)², entries 0..0x7fff.
  for (std::uint32_t i = 0; i < 0x8000; ++i) {
    const i128 n = m.i32(0x7c0000 + 4 * i);
    ASSERT_LE(n * n, i128{i} << 32) << i;
    ASSERT_GT((n + 1) * (n + 1), i128{i} << 32) << i;
  }
  // F013: 2^24 / i truncated towards 0, i in -16384..16383; entry 0 is 0 (chosen, CHOICES).
  for (std::int32_t i = -16384; i <= 16383; ++i) {
    const std::int32_t q = m.i32(0x7b0000 + static_cast<std::uint32_t>(i) * 4u);
    if (i == 0) {
      ASSERT_EQ(q, 0);
      continue;
    }
    const i128 aq = q < 0 ? -i128{q} : i128{q};
    const i128 ai = i < 0 ? -i128{i} : i128{i};
    ASSERT_LE(aq * ai, i128{1} << 24) << i;
    ASSERT_GT((aq + 1) * ai, i128{1} << 24) << i;
    ASSERT_EQ(q < 0, i < 0) << i;
  }
  // F014: round(sin(i × 8/65536) × 65536), entries 0..12868 (HALF_PI16 >> 3, CHOICES).
  for (std::uint32_t i = 0; i <= 12868; ++i) {
    const long double s = std::sin(static_cast<long double>(i) * 8.0L / 65536.0L) * 65536.0L;
    ASSERT_EQ(m.i32(0x72c704 + 4 * i), static_cast<std::int32_t>(std::floor(s + 0.5L))) << i;
  }
  EXPECT_FALSE(m.mapped(0x72c704 + 4 * 12869, 1)) << "the sine table has 12869 entries";
  EXPECT_FALSE(m.mapped(0x72c703, 1));
  EXPECT_FALSE(m.mapped(0x79ffff, 1));
  EXPECT_TRUE(m.mapped(0x7a0000, 0x40000));
  EXPECT_FALSE(m.mapped(0x7e0000, 1));
}

// Installing again, or into storage a game mapped already, keeps the mappings and the values.
TEST(TablesInstall, InstallsIntoStorageAlreadyMapped) {
  pod::FlatMemory m;
  m.map(0x4ed000, 0x1100);
  m.map(0x7a0000, 0x40000);
  m.map(0x72c704, 4 * 12869);
  // Storage a game used before: every word of the three tables overwritten, the first ones too.
  for (std::uint32_t a = 0x7a0000; a < 0x7e0000; a += 4) m.put_u32(a, 0xa5a5a5a5u);
  for (std::uint32_t i = 0; i < 12869; ++i) m.put_u32(0x72c704 + 4 * i, 0xa5a5a5a5u);
  EXPECT_NO_THROW(pod::tables::install(m));
  EXPECT_EQ(m.i32(0x7c0000), 0) << "sqrt(0)";
  EXPECT_EQ(m.i32(0x7b0000), 0) << "the reciprocal table's entry 0 (chosen)";
  EXPECT_EQ(m.i32(0x7a0000), -1024) << "2^24 / -16384";
  EXPECT_EQ(m.i32(0x7c0000 + 4 * 0x7fff), 11863102) << "floor(sqrt(0x7fff) x 65536)";
  for (std::uint32_t a = 0x7a0000; a < 0x7e0000; a += 4) ASSERT_NE(m.u32(a), 0xa5a5a5a5u) << std::hex << a;
  for (std::uint32_t i = 0; i < 12869; ++i) ASSERT_NE(m.u32(0x72c704 + 4 * i), 0xa5a5a5a5u) << i;
  EXPECT_NO_THROW(pod::tables::install(m));
  EXPECT_EQ(m.i32(0x7c0000 + 4 * 0x4000), 128 * 65536);  // sqrt(0x4000) = 128
  EXPECT_EQ(m.i32(0x7b0000 + 4 * 3), 5592405);           // 2^24 / 3
  EXPECT_EQ(m.i32(0x7b0000 - 4 * 3), -5592405);
  EXPECT_EQ(m.i32(0x72c704 + 4 * 12868), 65536);          // sin(pi/2)
  EXPECT_EQ(m.i32(0x72c704), 0);
}

// step::map_scratch maps exactly the car step's scratch blocks (port/CHOICES.md "Data blocks"): the
// force array 0x48 bytes at 0x4f3320, the chassis move 0x18 at 0x4f3368, the slip-ratio word after
// it, the smoke ring 0x410 at 0x5b0000, the C library's thread block 0x40 bytes; twice is harmless.
TEST(MapScratch, MapsTheStepsScratchBlocksExactly) {
  pod::FlatMemory m;
  pod::step::Scratch s;
  s.thread_block = 0x7f1000;
  s.stale_slot = 0x4f3380;
  pod::step::map_scratch(m, s);
  EXPECT_TRUE(m.mapped(0x4f3320, 0x48 + 0x18 + 4)) << "forces, chassis move and the slip word end to end";
  EXPECT_FALSE(m.mapped(0x4f331f, 1));
  EXPECT_FALSE(m.mapped(0x4f3384, 1));
  EXPECT_TRUE(m.mapped(0x5b0000, 0x410));
  EXPECT_FALSE(m.mapped(0x5affff, 1));
  EXPECT_FALSE(m.mapped(0x5b0410, 1));
  EXPECT_TRUE(m.mapped(0x7f1000, 0x40));
  EXPECT_FALSE(m.mapped(0x7f0fff, 1));
  EXPECT_FALSE(m.mapped(0x7f1040, 1));
  EXPECT_NO_THROW(pod::step::map_scratch(m, s));
}

// Scratch words elsewhere (a slip word and a force array of a game's own choosing) are mapped there.
TEST(MapScratch, MapsScratchWhereTheGameAsks) {
  pod::FlatMemory m;
  m.map(0x4f3368, 0x18);  // the game mapped the chassis move itself
  pod::step::Scratch s;
  s.forces = 0x900000;
  s.stale_slot = 0x900100;
  s.thread_block = 0x900200;
  pod::step::map_scratch(m, s);
  EXPECT_TRUE(m.mapped(0x900000, 0x48));
  EXPECT_FALSE(m.mapped(0x900048, 1));
  EXPECT_TRUE(m.mapped(0x900100, 4));
  EXPECT_FALSE(m.mapped(0x900104, 1));
  EXPECT_FALSE(m.mapped(0x9000ff, 1));
  EXPECT_TRUE(m.mapped(0x900200, 0x40));
  EXPECT_FALSE(m.mapped(0x900240, 1));
  EXPECT_FALSE(m.mapped(0x4f3320, 1)) << "the default force array is not mapped when the game moved it";
}

// A scratch block only partly mapped is not taken for mapped: mapping it whole then overlaps, which
// FlatMemory refuses (a game must map its scratch blocks whole or not at all).
TEST(MapScratch, APartlyMappedBlockIsNotTakenForMapped) {
  for (const std::uint32_t mapped_bytes : {1u, 2u, 3u}) {
    pod::FlatMemory m;
    pod::step::Scratch s;
    s.stale_slot = 0x900100;
    m.map(0x900100, mapped_bytes);
    EXPECT_THROW(pod::step::map_scratch(m, s), std::invalid_argument) << mapped_bytes;
  }
  pod::FlatMemory m;
  m.map(0x4f3320, 0x20);  // part of the force array
  EXPECT_THROW(pod::step::map_scratch(m), std::invalid_argument);
}

}  // namespace
