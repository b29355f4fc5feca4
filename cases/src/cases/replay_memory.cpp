#include "lockstep/cases/replay_memory.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>

namespace lockstep::cases {

// The guest is little-endian; values are copied to and from guest bytes as they lie in a register.
static_assert(std::endian::native == std::endian::little, "lockstep's replay needs a little-endian host");

namespace {

using replay_detail::Page;
constexpr unsigned kPageBits = Page::kBits;
constexpr unsigned kPageSize = Page::kSize;
constexpr unsigned kWords = Page::kWords;
constexpr unsigned kLoadsFromInputs = 16;  // see load_le_slow

// Cleared readable marks, copied over a page's as it is filled: a copy of a constant block compiles
// to plain vector moves, where a memset of the same size may become a slow `rep stos`.
constexpr std::array<std::uint8_t, kPageSize> kNoMarks{};

// What an empty entry of the recent-page table points at: its number matches no page, so the inline
// paths need no test for null. Never written (a store only lands in a page whose number matched).
Page no_page;

// Sets bits [off, off + n) of a page's bitmap.
inline void set_bits(std::array<std::uint64_t, kWords>& bits, unsigned off, unsigned n) {
  if (off % 64 + n < 64) {  // the common case: inside one word
    bits[off / 64] |= ((std::uint64_t{1} << n) - 1) << (off % 64);
    return;
  }
  while (n) {
    const unsigned word = off / 64, bit = off % 64, take = std::min(n, 64 - bit);
    bits[word] |= (take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1)) << bit;
    off += take;
    n -= take;
  }
}

}  // namespace

struct ReplayMemory::Pages {
  std::vector<std::unique_ptr<Page>> pool;  // pool[0, used) belong to the current case
  std::size_t used = 0;
  const ByteMap* inputs = nullptr;          // the case's inputs (runs looked up in place)
  // Open-addressed page table; a slot is live only when its stamp is the current case's.
  struct Slot {
    std::uint32_t number = 0, stamp = 0, page = 0;
  };
  std::vector<Slot> slots = std::vector<Slot>(64);
  std::uint32_t stamp = 0;
  // The pages touched last (the inline paths of ReplayMemory look here first).
  static constexpr std::size_t kRecent = replay_detail::kRecentPages;
  replay_detail::RecentPages recent = [] {
    replay_detail::RecentPages r;
    r.fill(&no_page);
    return r;
  }();
  Page* recent_page(std::uint32_t number) const {
    Page* p = recent[number % kRecent];
    return p->number == number ? p : nullptr;
  }

  void reset(const ByteMap& in) {
    // The last case's pages leave the recent table by losing their number (cheaper than clearing
    // the table for a case that touched a page or two); an entry left pointing at one matches no
    // page until the page is filled again, and then it holds that page, as an entry should.
    for (std::size_t k = 0; k < used; ++k) pool[k]->number = Page::kNone;
    used = 0;
    outside_bytes = 0;
    last_input = 0;
    loads_from_inputs = 0;
    if (++stamp == 0) {  // wrapped: forget every slot for real
      std::fill(slots.begin(), slots.end(), Slot{});
      stamp = 1;
    }
    inputs = &in;
  }

  std::size_t slot_of(std::uint32_t number) const {
    return (number * 0x9e3779b1u) & (slots.size() - 1);
  }

  // The page, if this case has touched it.
  Page* find(std::uint32_t number) {
    if (Page* p = recent_page(number)) return p;
    if (used == 0) return nullptr;
    for (std::size_t i = slot_of(number); slots[i].stamp == stamp; i = (i + 1) & (slots.size() - 1)) {
      if (slots[i].number == number) return recent[number % kRecent] = pool[slots[i].page].get();
    }
    return nullptr;
  }

  // The page, filled from the inputs the first time.
  Page& page(std::uint32_t number) {
    if (Page* p = find(number)) return *p;
    std::size_t i = slot_of(number);
    while (slots[i].stamp == stamp) i = (i + 1) & (slots.size() - 1);
    Page& p = fill(number);
    slots[i] = {number, stamp, static_cast<std::uint32_t>(used - 1)};
    if (used * 2 > slots.size()) grow();
    return *(recent[number % kRecent] = &p);
  }

  // The index of the first input run ending above a (ByteMap::run_from, here inline: a helper's
  // case spends a good part of its time in these searches).
  std::size_t input_run_from(std::uint64_t a) const {
    std::size_t first = 0, n = inputs->run_count();
    while (n > 0) {
      const std::size_t half = n / 2;
      if (inputs->run(first + half).end() <= a) {
        first += half + 1;
        n -= half + 1;
      } else {
        n = half;
      }
    }
    return first;
  }

  // The n input bytes at a when one input run holds them all, else nullptr. The run found last is
  // tried first, then the one after it (a helper reads its inputs mostly in address order).
  std::size_t last_input = 0;
  unsigned loads_from_inputs = 0;
  const std::uint8_t* input_bytes(GuestAddr a, unsigned n) {
    const std::uint64_t lo = a, hi = lo + n;
    for (std::size_t k = last_input; k < last_input + 2 && k < inputs->run_count(); ++k) {
      const ByteMap::RunView r = inputs->run(k);
      if (r.base <= lo && hi <= r.end()) {
        last_input = k;
        return r.bytes.data() + (lo - r.base);
      }
    }
    const std::size_t i = input_run_from(a);
    if (i == inputs->run_count()) return nullptr;
    const ByteMap::RunView r = inputs->run(i);
    if (r.base > lo || hi > r.end()) return nullptr;
    last_input = i;
    return r.bytes.data() + (lo - r.base);
  }

  // A fresh page for this case: the inputs that fall in it readable, the rest not (reading as 0).
  Page& fill(std::uint32_t number) {
    if (used == pool.size()) pool.push_back(std::make_unique<Page>());
    Page& p = *pool[used++];
    p.number = number;
    p.written.fill(0);
    p.outside.fill(0);
    // The data is not cleared: a byte that is not readable is read as 0 by its mark, not its value.
    std::memcpy(p.readable.data(), kNoMarks.data(), kPageSize);
    const std::uint64_t lo = std::uint64_t{number} << kPageBits, hi = lo + kPageSize;
    for (std::size_t i = input_run_from(lo); i < inputs->run_count(); ++i) {
      const ByteMap::RunView r = inputs->run(i);
      if (r.base >= hi) break;
      const std::uint64_t from = std::max<std::uint64_t>(lo, r.base), to = std::min(hi, r.end());
      std::memcpy(p.data.data() + (from - lo), r.bytes.data() + (from - r.base), to - from);
      std::memset(p.readable.data() + (from - lo), 0xff, to - from);
    }
    return p;
  }

  void grow() {
    slots.assign(slots.size() * 2, Slot{});
    for (std::size_t k = 0; k < used; ++k) {
      std::size_t i = slot_of(pool[k]->number);
      while (slots[i].stamp == stamp) i = (i + 1) & (slots.size() - 1);
      slots[i] = {pool[k]->number, stamp, static_cast<std::uint32_t>(k)};
    }
  }

  // The current case's pages in address order (a list kept from case to case).
  std::vector<const Page*> order;
  const std::vector<const Page*>& sorted() {
    order.clear();
    for (std::size_t k = 0; k < used; ++k) order.push_back(pool[k].get());
    std::sort(order.begin(), order.end(), [](const Page* a, const Page* b) { return a->number < b->number; });
    return order;
  }
  std::size_t outside_bytes = 0;  // bytes flagged in some page's `outside`, counted once each

  // Reads [off, off + n) of page p into out, recording the bytes that are not readable (which
  // read as 0).
  void read(Page& p, unsigned off, std::uint8_t* out, unsigned n) {
    for (unsigned k = 0; k < n; ++k) out[k] = p.data[off + k] & p.readable[off + k];
    flag_outside(p, off, n);
  }

  // Flags the bytes of [off, off + n) (inside the page) that are not readable as read from outside.
  void flag_outside(Page& p, unsigned off, unsigned n) {
    for (unsigned b = off; b < off + n; ++b) {
      const std::uint64_t m = std::uint64_t{1} << (b % 64);
      if (!p.readable[b] && !(p.outside[b / 64] & m)) {
        p.outside[b / 64] |= m;
        ++outside_bytes;
      }
    }
  }

  static void write(Page& p, unsigned off, const std::uint8_t* in, unsigned n) {
    switch (n) {  // the port's widths as fixed-size copies
      case 1: p.data[off] = *in; break;
      case 2: std::memcpy(p.data.data() + off, in, 2); break;
      case 4: std::memcpy(p.data.data() + off, in, 4); break;
      case 8: std::memcpy(p.data.data() + off, in, 8); break;
      default: std::memcpy(p.data.data() + off, in, n); break;
    }
    std::memset(p.readable.data() + off, 0xff, n);
    set_bits(p.written, off, n);
  }
};

namespace {
// Each thread keeps the page stores of its finished cases for the next ones (a case replayed inside
// another one's replay, as a test may do, takes a second store).
thread_local std::vector<std::unique_ptr<ReplayMemory::Pages>> spare_pages;
}  // namespace

ReplayMemory::ReplayMemory(const Case& c) {
  std::unique_ptr<Pages> p;
  if (!spare_pages.empty()) {
    p = std::move(spare_pages.back());
    spare_pages.pop_back();
  } else {
    p = std::make_unique<Pages>();
  }
  p->reset(c.inputs);
  recent_ = &p->recent;
  pages_ = p.release();
}

ReplayMemory::~ReplayMemory() {
  std::unique_ptr<Pages> p(pages_);
  p->inputs = nullptr;  // the case may go away first
  try {
    spare_pages.push_back(std::move(p));
  } catch (...) {
    // out of memory while keeping it: let it go
  }
}

void ReplayMemory::load(GuestAddr a, std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const unsigned off = a & (kPageSize - 1);
    const unsigned take = static_cast<unsigned>(std::min<std::size_t>(out.size() - done, kPageSize - off));
    pages_->read(pages_->page(a >> kPageBits), off, out.data() + done, take);
    done += take;
    a += take;  // wraps at 4 GiB
  }
}

void ReplayMemory::store(GuestAddr a, std::span<const std::uint8_t> bytes) {
  wrote_ = wrote_ || !bytes.empty();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const unsigned off = a & (kPageSize - 1);
    const unsigned take = static_cast<unsigned>(std::min<std::size_t>(bytes.size() - done, kPageSize - off));
    Pages::write(pages_->page(a >> kPageBits), off, bytes.data() + done, take);
    done += take;
    a += take;
  }
}

std::uint64_t ReplayMemory::load_le_slow(GuestAddr a, unsigned n) {
  Pages& ps = *pages_;
  const unsigned off = a & (kPageSize - 1);
  std::uint64_t v = 0;
  if (off + n <= kPageSize) {
    // A case's first loads, while it has no page, are served from its bytes when one input run
    // holds them (a helper that reads a few values never fills a page). Once a page exists (a
    // store, a load no run holds whole) or after kLoadsFromInputs of them, every access goes
    // through pages, whose inline path costs a fraction of an input search: a function that only
    // reads, but reads a lot (the track's faces), fills its pages too.
    if (ps.used == 0 && ps.loads_from_inputs < kLoadsFromInputs) {
      ++ps.loads_from_inputs;
      if (const std::uint8_t* in = ps.input_bytes(a, n)) {
        switch (n) {  // the port's widths as fixed-size copies
          case 1: v = *in; break;
          case 2: std::memcpy(&v, in, 2); break;
          case 4: std::memcpy(&v, in, 4); break;
          case 8: std::memcpy(&v, in, 8); break;
          default: std::memcpy(&v, in, n); break;
        }
        return v;
      }
    }
    Page& p = ps.page(a >> kPageBits);
    std::uint64_t marks;
    std::memcpy(&v, p.data.data() + off, 8);
    std::memcpy(&marks, p.readable.data() + off, 8);  // a byte not readable reads as 0
    v &= marks;
    if (n < 8) v &= (std::uint64_t{1} << (8 * n)) - 1;
    ps.flag_outside(p, off, n);
    return v;
  }
  std::uint8_t b[8] = {};
  load(a, std::span(b, n));
  std::memcpy(&v, b, 8);
  return v;
}

void ReplayMemory::store_le_slow(GuestAddr a, std::uint64_t value, unsigned n) {
  std::uint8_t b[8];
  std::memcpy(b, &value, 8);
  wrote_ = true;
  const unsigned off = a & (kPageSize - 1);
  if (off + n > kPageSize) return store(a, std::span<const std::uint8_t>(b, n));
  Pages::write(pages_->page(a >> kPageBits), off, b, n);
}

ByteMap ReplayMemory::writes() const {
  ByteMap out;
  if (!wrote_) return out;
  const std::vector<const Page*>& pages = pages_->sorted();
  // First the sizes, so the map is filled without growing: the bytes written, and at most as many
  // runs as there are first bytes of a stretch within a bitmap word.
  std::size_t bytes = 0, runs = 0;
  for (const Page* p : pages)
    for (const std::uint64_t bits : p->written)
      if (bits) {  // most words of most pages: none written
        bytes += static_cast<std::size_t>(std::popcount(bits));
        runs += static_cast<std::size_t>(std::popcount(bits & ~(bits << 1)));
      }
  out.reserve(runs, bytes);
  // Then the stretches in address order; ByteMap::append joins those that touch, across bitmap
  // words and page boundaries, into one run.
  for (const Page* p : pages) {
    const std::uint64_t lo = std::uint64_t{p->number} << kPageBits;
    for (unsigned w = 0; w < kWords; ++w) {
      std::uint64_t bits = p->written[w];
      while (bits) {
        const unsigned b = static_cast<unsigned>(std::countr_zero(bits));
        const unsigned len = static_cast<unsigned>(std::countr_one(bits >> b));
        out.append(static_cast<GuestAddr>(lo + 64 * w + b),
                   std::span<const std::uint8_t>(p->data.data() + 64 * w + b, len));
        bits = len + b == 64 ? 0 : bits & ~(((std::uint64_t{1} << len) - 1) << b);
      }
    }
  }
  return out;
}

std::vector<GuestAddr> ReplayMemory::outside_reads() const {
  std::vector<GuestAddr> out;
  if (pages_->outside_bytes == 0) return out;
  out.reserve(pages_->outside_bytes);
  for (const Page* p : pages_->sorted()) {
    for (unsigned w = 0; w < kWords; ++w) {
      for (std::uint64_t bits = p->outside[w]; bits; bits &= bits - 1)
        out.push_back(static_cast<GuestAddr>((std::uint64_t{p->number} << kPageBits) + 64 * w +
                                             static_cast<unsigned>(std::countr_zero(bits))));
    }
  }
  return out;
}

}  // namespace lockstep::cases
