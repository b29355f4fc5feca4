#include "lockstep/cases/byte_map.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <functional>

namespace lockstep::cases {

namespace {
// True when `bytes` lies inside `store` (a caller handing a map its own bytes): such bytes are
// copied out before the store grows, which may move it.
bool inside(std::span<const std::uint8_t> bytes, const std::vector<std::uint8_t>& store) {
  const auto* p = bytes.data();
  return !store.empty() && std::greater_equal<>()(p, store.data()) && std::less<>()(p, store.data() + store.size());
}
}  // namespace

std::size_t ByteMap::first_ending_above(std::uint64_t a) const {
  return static_cast<std::size_t>(
      std::partition_point(spans_.begin(), spans_.end(), [a](const Span& s) { return s.end() <= a; }) -
      spans_.begin());
}

std::size_t ByteMap::run_from(GuestAddr a) const { return first_ending_above(a); }

void ByteMap::set(GuestAddr a, std::uint8_t v) { set(a, std::span<const std::uint8_t>(&v, 1)); }

void ByteMap::set(GuestAddr a, std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return;
  assert(std::uint64_t{a} + bytes.size() <= (std::uint64_t{1} << 32));
  if (inside(bytes, bytes_)) {
    const std::vector<std::uint8_t> copy(bytes.begin(), bytes.end());
    return set(a, copy);
  }
  const std::uint64_t lo = a, hi = lo + bytes.size();  // [lo, hi)
  // The runs that overlap or touch [lo, hi): [first, last).
  const std::size_t first = lo == 0 ? 0 : first_ending_above(lo - 1);
  std::size_t last = first;
  while (last < spans_.size() && spans_[last].base <= hi) ++last;

  if (first == last) {  // touches nothing: a run of its own
    spans_.insert(spans_.begin() + static_cast<std::ptrdiff_t>(first), Span{a, bytes.size(), bytes_.size()});
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    live_ += bytes.size();
    return;
  }
  Span& s = spans_[first];
  if (last == first + 1 && s.base <= lo) {
    if (hi <= s.end()) {  // inside one run: overwritten in place
      std::memcpy(bytes_.data() + s.offset + (lo - s.base), bytes.data(), bytes.size());
      return;
    }
    if (s.offset + s.size == bytes_.size()) {  // past the end of the run stored last: it grows in place
      const std::size_t grow = static_cast<std::size_t>(hi - s.end());
      bytes_.resize(bytes_.size() + grow);
      std::memcpy(bytes_.data() + s.offset + (lo - s.base), bytes.data(), bytes.size());
      s.size += grow;
      live_ += grow;
      return;
    }
  }
  // Several runs, or one that cannot grow where it lies: the merged run is stored anew at the end.
  const std::uint64_t new_lo = std::min<std::uint64_t>(lo, s.base);
  const std::uint64_t new_hi = std::max<std::uint64_t>(hi, spans_[last - 1].end());
  const std::size_t at = bytes_.size();
  bytes_.resize(at + static_cast<std::size_t>(new_hi - new_lo));
  for (std::size_t k = first; k < last; ++k) {
    const Span& old = spans_[k];
    std::memcpy(bytes_.data() + at + (old.base - new_lo), bytes_.data() + old.offset, old.size);
    live_ -= old.size;
  }
  std::memcpy(bytes_.data() + at + (lo - new_lo), bytes.data(), bytes.size());
  s = Span{static_cast<GuestAddr>(new_lo), static_cast<std::size_t>(new_hi - new_lo), at};
  live_ += s.size;
  spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(first + 1),
               spans_.begin() + static_cast<std::ptrdiff_t>(last));
  if (bytes_.size() > 2 * live_ + 4096) compact();
}

void ByteMap::append(GuestAddr a, std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return;
  if (!spans_.empty() && std::uint64_t{a} <= spans_.back().end()) {
    Span& s = spans_.back();
    // Touching the last run, which lies last in the store: it grows in place (a scan of runs cut
    // at page boundaries gives these). Anything else goes through set().
    if (std::uint64_t{a} == s.end() && s.offset + s.size == bytes_.size() && !inside(bytes, bytes_)) {
      bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
      s.size += bytes.size();
      live_ += bytes.size();
      return;
    }
    return set(a, bytes);
  }
  if (inside(bytes, bytes_)) return set(a, bytes);
  assert(std::uint64_t{a} + bytes.size() <= (std::uint64_t{1} << 32));
  spans_.push_back(Span{a, bytes.size(), bytes_.size()});
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  live_ += bytes.size();
}

void ByteMap::set_if_absent(GuestAddr a, std::span<const std::uint8_t> bytes) {
  // Runs of absent bytes are set in one go; present bytes keep their first value.
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (contains(static_cast<GuestAddr>(a + i))) { ++i; continue; }
    std::size_t j = i;
    while (j < bytes.size() && !contains(static_cast<GuestAddr>(a + j))) ++j;
    set(static_cast<GuestAddr>(a + i), bytes.subspan(i, j - i));
    i = j;
  }
}

std::optional<std::uint8_t> ByteMap::get(GuestAddr a) const {
  const std::size_t i = first_ending_above(a);
  if (i == spans_.size() || spans_[i].base > a) return std::nullopt;
  return bytes_[spans_[i].offset + (a - spans_[i].base)];
}

bool ByteMap::contains_all(GuestAddr a, std::uint32_t n) const {
  if (n == 0) return true;
  const std::size_t i = first_ending_above(a);
  return i < spans_.size() && spans_[i].base <= a && std::uint64_t{a} + n <= spans_[i].end();
}

void ByteMap::erase(GuestAddr a) {
  const std::size_t i = first_ending_above(a);
  if (i == spans_.size() || spans_[i].base > a) return;
  Span& s = spans_[i];
  --live_;
  if (s.size == 1) {
    spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(i));
  } else if (a == s.base) {
    ++s.base;
    ++s.offset;
    --s.size;
  } else if (std::uint64_t{a} + 1 == s.end()) {
    --s.size;
  } else {  // split: both halves keep their bytes where they lie
    const std::size_t before = a - s.base;
    const Span after{a + 1, s.size - before - 1, s.offset + before + 1};
    s.size = before;
    spans_.insert(spans_.begin() + static_cast<std::ptrdiff_t>(i + 1), after);
  }
  if (bytes_.size() > 2 * live_ + 4096) compact();
}

void ByteMap::compact() {
  std::vector<std::uint8_t> packed;
  packed.reserve(live_);
  for (Span& s : spans_) {
    const std::size_t at = packed.size();
    packed.insert(packed.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(s.offset),
                  bytes_.begin() + static_cast<std::ptrdiff_t>(s.offset + s.size));
    s.offset = at;
  }
  bytes_ = std::move(packed);
}

std::vector<ByteMap::Run> ByteMap::runs() const {
  std::vector<Run> out;
  out.reserve(spans_.size());
  for_each_run([&](GuestAddr base, std::span<const std::uint8_t> bytes) {
    out.push_back(Run{base, std::vector<std::uint8_t>(bytes.begin(), bytes.end())});
  });
  return out;
}

bool operator==(const ByteMap& a, const ByteMap& b) {
  if (a.spans_.size() != b.spans_.size() || a.live_ != b.live_) return false;
  for (std::size_t i = 0; i < a.spans_.size(); ++i) {
    const auto& x = a.spans_[i];
    const auto& y = b.spans_[i];
    if (x.base != y.base || x.size != y.size ||
        std::memcmp(a.bytes_.data() + x.offset, b.bytes_.data() + y.offset, x.size) != 0)
      return false;
  }
  return true;
}

}  // namespace lockstep::cases
