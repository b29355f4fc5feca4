// FlatMemory: a game's guest memory as a few byte vectors at their guest addresses.
#include "pod/memory.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace pod {

namespace {
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

double Memory::f64(GuestAddr a) { return std::bit_cast<double>(load64(a)); }
void Memory::put_f64(GuestAddr a, double v) { store64(a, std::bit_cast<std::uint64_t>(v)); }

std::vector<std::uint8_t>& FlatMemory::map(GuestAddr base, std::uint32_t size) {
  const std::uint64_t end = std::uint64_t{base} + size;
  if (size == 0 || end > (std::uint64_t{1} << 32)) {
    throw std::invalid_argument("FlatMemory::map: empty range or range past 4 GiB");
  }
  for (const Range& r : ranges_) {
    const std::uint64_t r_end = std::uint64_t{r.base} + r.bytes.size();
    if (base < r_end && r.base < end) throw std::invalid_argument("FlatMemory::map: range overlaps a mapped one");
  }
  auto at = std::lower_bound(ranges_.begin(), ranges_.end(), base,
                             [](const Range& r, GuestAddr b) { return r.base < b; });
  at = ranges_.insert(at, Range{base, std::vector<std::uint8_t>(size, 0)});
  slot_page_ = {};  // range indexes moved
  return at->bytes;
}

const FlatMemory::Range* FlatMemory::find(GuestAddr address) const {
  const std::uint32_t page = address >> 12;
  const std::size_t slot = page % kPageSlots;
  if (slot_page_[slot] == page + 1) {
    const Range& r = ranges_[slot_range_[slot]];
    if (address >= r.base && address - r.base < r.bytes.size()) return &r;
  }
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                             [](GuestAddr a, const Range& r) { return a < r.base; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  if (address - it->base >= it->bytes.size()) return nullptr;
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
    a = std::uint64_t{r->base} + r->bytes.size();
  }
  return true;
}

// The loads and stores of one range: small, so that each loadN/storeN inlines them with its size known
// and the copy becomes one move (a copy of a size known only at run time is a call into the C library,
// which cost more than the rest of the access). Accesses spanning two ranges, or unmapped, go through
// the byte-by-byte paths below.
inline std::uint64_t FlatMemory::load_le(GuestAddr address, unsigned size) const {
  const Range* r = find(address);
  if (r != nullptr && std::uint64_t{address - r->base} + size <= r->bytes.size()) {
    const std::uint8_t* p = r->bytes.data() + (address - r->base);
    std::uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, p, size);  // the guest's byte order is the host's
    } else {
      for (unsigned i = 0; i < size; ++i) v |= std::uint64_t{p[i]} << (8 * i);
    }
    return v;
  }
  return load_spanning(address, size);
}

std::uint64_t FlatMemory::load_spanning(GuestAddr address, unsigned size) const {
  if (!mapped(address, size)) throw MemoryFault(address, size, false);
  std::uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) {
    const Range* b = find(address + i);
    v |= std::uint64_t{b->bytes[address + i - b->base]} << (8 * i);
  }
  return v;
}

inline void FlatMemory::store_le(GuestAddr address, unsigned size, std::uint64_t value) {
  if (const Range* r = find(address); r != nullptr && std::uint64_t{address - r->base} + size <= r->bytes.size()) {
    std::uint8_t* p = const_cast<Range*>(r)->bytes.data() + (address - r->base);
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(p, &value, size);
    } else {
      for (unsigned i = 0; i < size; ++i) p[i] = static_cast<std::uint8_t>(value >> (8 * i));
    }
    return;
  }
  store_spanning(address, size, value);
}

void FlatMemory::store_spanning(GuestAddr address, unsigned size, std::uint64_t value) {
  if (!mapped(address, size)) throw MemoryFault(address, size, true);
  for (unsigned i = 0; i < size; ++i) {
    Range* b = const_cast<Range*>(find(address + i));
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
    const std::size_t n = std::min(size - done, r->bytes.size() - (a - r->base));
    std::memcpy(r->bytes.data() + (a - r->base), bytes + done, n);
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
    const std::size_t n = std::min(size - done, r->bytes.size() - (a - r->base));
    std::memcpy(bytes + done, r->bytes.data() + (a - r->base), n);
    done += n;
  }
}

std::uint8_t FlatMemory::load8(GuestAddr a) { return static_cast<std::uint8_t>(load_le(a, 1)); }
std::uint16_t FlatMemory::load16(GuestAddr a) { return static_cast<std::uint16_t>(load_le(a, 2)); }
std::uint32_t FlatMemory::load32(GuestAddr a) { return static_cast<std::uint32_t>(load_le(a, 4)); }
std::uint64_t FlatMemory::load64(GuestAddr a) { return load_le(a, 8); }
void FlatMemory::store8(GuestAddr a, std::uint8_t v) { store_le(a, 1, v); }
void FlatMemory::store16(GuestAddr a, std::uint16_t v) { store_le(a, 2, v); }
void FlatMemory::store32(GuestAddr a, std::uint32_t v) { store_le(a, 4, v); }
void FlatMemory::store64(GuestAddr a, std::uint64_t v) { store_le(a, 8, v); }

}  // namespace pod
