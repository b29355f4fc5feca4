// pod::Memory's page table and out-of-line accesses; FlatMemory: a game's guest memory as a few
// byte blocks at their guest addresses.
#include "pod/memory.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>

namespace pod {

// The inline path copies guest bytes straight into host values.
static_assert(std::endian::native == std::endian::little, "pod::Memory needs a little-endian host");

namespace {

// The page table of a Memory that serves no page inline: every entry null, never written. Static
// storage, zero-initialised: untouched, its pages cost nothing.
std::uint8_t* const no_pages[Memory::kPages] = {};

std::string fault_text(GuestAddr address, unsigned size, bool write) {
  static const char* hex = "0123456789abcdef";
  std::string a = "0x00000000";
  for (int i = 0; i < 8; ++i) a[9 - i] = hex[(address >> (4 * i)) & 0xf];
  return std::string(write ? "store" : "load") + " of " + std::to_string(size) + " bytes at " + a +
         ": address not mapped";
}
}  // namespace

MemoryFault::MemoryFault(GuestAddr address, unsigned size, bool write)
    : std::runtime_error(fault_text(address, size, write)), address_(address), size_(size), write_(write) {}

namespace {
std::uintptr_t table_address(std::uint8_t* const* table) { return reinterpret_cast<std::uintptr_t>(table); }
}  // namespace

Memory::Memory() : tagged_pages_(table_address(no_pages)) {}

Memory::Memory(OwnPageTable) {
  // 2^20 entries (8 MiB on a 64-bit host) from calloc: the system hands out zeroed pages as they are
  // first touched, so a memory pays only for the table entries of the pages it maps.
  auto* table = static_cast<std::uint8_t**>(std::calloc(kPages, sizeof(std::uint8_t*)));
  if (table == nullptr) throw std::bad_alloc();
  own_pages_.reset(table);
  tagged_pages_ = table_address(table);
}

Memory::Memory(MarkedPages pages) : tagged_pages_(table_address(pages.table) | kMarkedBit) {
  if (pages.table == nullptr) throw std::invalid_argument("pod::Memory: a marked memory needs its page table");
}

Memory::~Memory() = default;

void Memory::FreePages::operator()(std::uint8_t** p) const { std::free(p); }

void Memory::set_fast_page(std::uint32_t page, std::uint8_t* host) {
  if (!own_pages_ || page >= kPages) throw std::logic_error("pod::Memory::set_fast_page: no page table, or no such page");
  own_pages_[page] = host;
}

std::uint64_t Memory::load(GuestAddr a, unsigned size) {
  switch (size) {
    case 1: return load8(a);
    case 2: return load16(a);
    case 4: return load32(a);
    case 8: return load64(a);
    default: throw std::invalid_argument("pod::Memory::load: a size of 1, 2, 4 or 8 bytes");
  }
}

void Memory::store(GuestAddr a, unsigned size, std::uint64_t value) {
  switch (size) {
    case 1: return store8(a, static_cast<std::uint8_t>(value));
    case 2: return store16(a, static_cast<std::uint16_t>(value));
    case 4: return store32(a, static_cast<std::uint32_t>(value));
    case 8: return store64(a, value);
    default: throw std::invalid_argument("pod::Memory::store: a size of 1, 2, 4 or 8 bytes");
  }
}

double Memory::f64(GuestAddr a) { return std::bit_cast<double>(load64(a)); }
void Memory::put_f64(GuestAddr a, double v) { store64(a, std::bit_cast<std::uint64_t>(v)); }

FlatMemory::FlatMemory() : Memory(OwnPageTable{}) {}

std::span<std::uint8_t> FlatMemory::map(GuestAddr base, std::uint32_t size) {
  const std::uint64_t end = std::uint64_t{base} + size;
  if (size == 0 || end > (std::uint64_t{1} << 32)) {
    throw std::invalid_argument("FlatMemory::map: empty range or range past 4 GiB");
  }
  for (const Range& r : ranges_) {
    const std::uint64_t r_end = std::uint64_t{r.base} + r.size;
    if (base < r_end && r.base < end) throw std::invalid_argument("FlatMemory::map: range overlaps a mapped one");
  }
  auto at = std::lower_bound(ranges_.begin(), ranges_.end(), base,
                             [](const Range& r, GuestAddr b) { return r.base < b; });
  at = ranges_.insert(at, Range{base, size, std::make_unique<std::uint8_t[]>(size)});
  slot_page_ = {};  // range indexes moved
  // The pages the range covers whole are served inline; a page it shares with another range, or
  // with unmapped bytes, stays with the slow path (which finds the range, or faults).
  const std::uint64_t first = (std::uint64_t{base} + kPageSize - 1) >> kPageBits, last = end >> kPageBits;
  for (std::uint64_t page = first; page < last; ++page)
    set_fast_page(static_cast<std::uint32_t>(page), at->bytes.get() + ((page << kPageBits) - base));
  return {at->bytes.get(), size};
}

const FlatMemory::Range* FlatMemory::find(GuestAddr address) const {
  const std::uint32_t page = address >> 12;
  const std::size_t slot = page % kPageSlots;
  if (slot_page_[slot] == page + 1) {
    const Range& r = ranges_[slot_range_[slot]];
    if (address >= r.base && address - r.base < r.size) return &r;
  }
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                             [](GuestAddr a, const Range& r) { return a < r.base; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  if (address - it->base >= it->size) return nullptr;
  slot_page_[slot] = page + 1;
  slot_range_[slot] = static_cast<std::uint32_t>(it - ranges_.begin());
  return &*it;
}

bool FlatMemory::mapped(GuestAddr address, std::uint32_t size) const {
  std::uint64_t a = address;
  const std::uint64_t end = a + size;
  while (a < end) {
    if (a > 0xffffffffu) return false;
    const Range* r = find(static_cast<GuestAddr>(a));
    if (r == nullptr) return false;
    a = std::uint64_t{r->base} + r->size;
  }
  return true;
}

// The slow path: an access the page table does not serve (a page shared with another range or with
// unmapped bytes, an access across a page's end, an unmapped address). Byte by byte, each byte's
// range found when the access spans ranges: rare in a game whose ranges are page-aligned.
std::uint64_t FlatMemory::load_le(GuestAddr address, unsigned size) const {
  if (const Range* r = find(address); r != nullptr && std::uint64_t{address - r->base} + size <= r->size) {
    std::uint64_t v = 0;
    std::memcpy(&v, r->bytes.get() + (address - r->base), size);
    return v;
  }
  if (!mapped(address, size)) throw MemoryFault(address, size, false);
  std::uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) {
    const Range* b = find(address + i);
    v |= std::uint64_t{b->bytes[address + i - b->base]} << (8 * i);
  }
  return v;
}

void FlatMemory::store_le(GuestAddr address, unsigned size, std::uint64_t value) {
  if (const Range* r = find(address); r != nullptr && std::uint64_t{address - r->base} + size <= r->size) {
    std::memcpy(r->bytes.get() + (address - r->base), &value, size);
    return;
  }
  if (!mapped(address, size)) throw MemoryFault(address, size, true);
  for (unsigned i = 0; i < size; ++i) {
    const Range* b = find(address + i);
    b->bytes[address + i - b->base] = static_cast<std::uint8_t>(value >> (8 * i));
  }
}

void FlatMemory::write_bytes(GuestAddr address, const std::uint8_t* bytes, std::size_t size) {
  if (size > 0xffffffffu || !mapped(address, static_cast<std::uint32_t>(size))) {
    throw MemoryFault(address, static_cast<unsigned>(size), true);
  }
  // Every byte is mapped and the span does not wrap (mapped() says so): range by range.
  for (std::size_t done = 0; done < size;) {
    const auto a = static_cast<GuestAddr>(address + done);
    Range* r = const_cast<Range*>(find(a));
    const std::size_t n = std::min<std::size_t>(size - done, r->size - (a - r->base));
    std::memcpy(r->bytes.get() + (a - r->base), bytes + done, n);
    done += n;
  }
}

void FlatMemory::read_bytes(GuestAddr address, std::uint8_t* bytes, std::size_t size) const {
  if (size > 0xffffffffu || !mapped(address, static_cast<std::uint32_t>(size))) {
    throw MemoryFault(address, static_cast<unsigned>(size), false);
  }
  for (std::size_t done = 0; done < size;) {
    const auto a = static_cast<GuestAddr>(address + done);
    const Range* r = find(a);
    const std::size_t n = std::min<std::size_t>(size - done, r->size - (a - r->base));
    std::memcpy(bytes + done, r->bytes.get() + (a - r->base), n);
    done += n;
  }
}

std::uint8_t FlatMemory::load8_slow(GuestAddr a) { return static_cast<std::uint8_t>(load_le(a, 1)); }
std::uint16_t FlatMemory::load16_slow(GuestAddr a) { return static_cast<std::uint16_t>(load_le(a, 2)); }
std::uint32_t FlatMemory::load32_slow(GuestAddr a) { return static_cast<std::uint32_t>(load_le(a, 4)); }
std::uint64_t FlatMemory::load64_slow(GuestAddr a) { return load_le(a, 8); }
void FlatMemory::store8_slow(GuestAddr a, std::uint8_t v) { store_le(a, 1, v); }
void FlatMemory::store16_slow(GuestAddr a, std::uint16_t v) { store_le(a, 2, v); }
void FlatMemory::store32_slow(GuestAddr a, std::uint32_t v) { store_le(a, 4, v); }
void FlatMemory::store64_slow(GuestAddr a, std::uint64_t v) { store_le(a, 8, v); }

}  // namespace pod
