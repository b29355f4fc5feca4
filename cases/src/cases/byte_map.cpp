#include "lockstep/cases/byte_map.hpp"

#include <cassert>
#include <iterator>

namespace lockstep::cases {

void ByteMap::set(GuestAddr a, std::uint8_t v) { set(a, std::span<const std::uint8_t>(&v, 1)); }

void ByteMap::set(GuestAddr a, std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return;
  assert(std::uint64_t{a} + bytes.size() <= (std::uint64_t{1} << 32));
  const std::uint64_t lo = a, hi = std::uint64_t{a} + bytes.size();  // [lo, hi)
  // Find the first run that could touch [lo, hi): the last run starting at or before lo.
  auto it = runs_.upper_bound(a);
  if (it != runs_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.size() >= lo) it = prev;
  }
  std::uint64_t new_lo = lo, new_hi = hi;
  auto first = it;
  while (it != runs_.end() && it->first <= hi) {
    new_lo = std::min<std::uint64_t>(new_lo, it->first);
    new_hi = std::max<std::uint64_t>(new_hi, it->first + it->second.size());
    ++it;
  }
  std::vector<std::uint8_t> merged(static_cast<std::size_t>(new_hi - new_lo));
  for (auto j = first; j != it; ++j)
    std::copy(j->second.begin(), j->second.end(), merged.begin() + static_cast<std::ptrdiff_t>(j->first - new_lo));
  std::copy(bytes.begin(), bytes.end(), merged.begin() + static_cast<std::ptrdiff_t>(lo - new_lo));
  runs_.erase(first, it);
  runs_.emplace(static_cast<GuestAddr>(new_lo), std::move(merged));
}

void ByteMap::append(GuestAddr a, std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return;
  if (!runs_.empty()) {
    const auto& last = *runs_.rbegin();
    if (std::uint64_t{a} <= last.first + std::uint64_t{last.second.size()}) return set(a, bytes);
  }
  runs_.emplace_hint(runs_.end(), a, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
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
  auto it = runs_.upper_bound(a);
  if (it == runs_.begin()) return std::nullopt;
  --it;
  std::uint64_t off = std::uint64_t{a} - it->first;
  if (off >= it->second.size()) return std::nullopt;
  return it->second[static_cast<std::size_t>(off)];
}

bool ByteMap::contains_all(GuestAddr a, std::uint32_t n) const {
  if (n == 0) return true;
  auto it = runs_.upper_bound(a);
  if (it == runs_.begin()) return false;
  --it;
  return std::uint64_t{a} + n <= it->first + it->second.size() && a >= it->first;
}

void ByteMap::erase(GuestAddr a) {
  auto it = runs_.upper_bound(a);
  if (it == runs_.begin()) return;
  --it;
  std::uint64_t off = std::uint64_t{a} - it->first;
  if (off >= it->second.size()) return;
  std::vector<std::uint8_t> bytes = std::move(it->second);
  GuestAddr base = it->first;
  runs_.erase(it);
  if (off > 0) runs_.emplace(base, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(off)));
  if (off + 1 < bytes.size())
    runs_.emplace(static_cast<GuestAddr>(a + 1),
                  std::vector<std::uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(off + 1), bytes.end()));
}

std::size_t ByteMap::byte_count() const noexcept {
  std::size_t n = 0;
  for (const auto& [b, v] : runs_) n += v.size();
  return n;
}

std::vector<ByteMap::Run> ByteMap::runs() const {
  std::vector<Run> out;
  out.reserve(runs_.size());
  for (const auto& [b, v] : runs_) out.push_back(Run{b, v});
  return out;
}

}  // namespace lockstep::cases
