#include "lockstep/cases/replay_memory.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace lockstep::cases {

// The guest is little-endian; values are copied to and from guest bytes as they lie in a register.
static_assert(std::endian::native == std::endian::little, "lockstep's replay needs a little-endian host");

namespace {

using replay_detail::Page;
constexpr unsigned kPageBits = Page::kBits;
constexpr unsigned kPageSize = Page::kSize;
constexpr unsigned kWords = Page::kWords;
constexpr std::size_t kTablePages = ReplayMemory::kPages;
// A store keeps at most this many pages (about 37 MiB) from case to case; past it, the next case
// starts afresh (a corpus that walks over more of the guest space than that pays for new pages).
constexpr std::size_t kMostKeptPages = 4096;

static_assert(offsetof(Page, bytes) == 0, "the table lists a page by its bytes' address");

Page& page_at(std::uint8_t* bytes) { return *reinterpret_cast<Page*>(bytes); }

// Sets bits [off, off + n) of a page's bitmap, and the marked bits of the 64-byte lines they fall in.
inline void set_bits(std::array<std::uint64_t, kWords>& bits, std::uint64_t& marked, unsigned off, unsigned n) {
  while (n) {
    const unsigned word = off / 64, bit = off % 64, take = std::min(n, 64 - bit);
    bits[word] |= (take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1)) << bit;
    marked |= std::uint64_t{1} << word;
    off += take;
    n -= take;
  }
}

// A copy and a fill of n bytes, most of them a few bytes long (a case's input runs: a field, a
// vector): 8-byte moves, where memcpy and memset of a size known only at run time become
// `rep movs`/`rep stos` here, whose start-up costs more than such a copy.
inline void copy_bytes(std::uint8_t* to, const std::uint8_t* from, std::size_t n) {
  if (n > 256) {
    std::memcpy(to, from, n);
    return;
  }
  for (; n >= 8; n -= 8, to += 8, from += 8) std::memcpy(to, from, 8);
  for (; n; --n) *to++ = *from++;
}
inline void fill_marks(std::uint8_t* to, std::uint8_t mark, std::size_t n) {
  if (n > 256) {
    std::memset(to, mark, n);
    return;
  }
  const std::uint64_t word = mark * std::uint64_t{0x0101010101010101u};
  for (; n >= 8; n -= 8, to += 8) std::memcpy(to, &word, 8);
  for (; n; --n) *to++ = mark;
}

// Sets the readable marks of [off, off + n), noting their lines in `marked`.
inline void mark_readable(Page& p, unsigned off, unsigned n) {
  fill_marks(p.bytes.data() + kPageSize + off, 0xff, n);
  for (unsigned line = off / 64; line <= (off + n - 1) / 64; ++line) p.marked |= std::uint64_t{1} << line;
}

struct FreeTable {
  void operator()(std::uint8_t** t) const { std::free(t); }
};

}  // namespace

struct ReplayMemory::Pages {
  // kTablePages entries from calloc: the system hands out zeroed pages as they are first touched,
  // so the table costs only the entries of the pages a thread's cases reach.
  std::unique_ptr<std::uint8_t*[], FreeTable> table{[] {
    auto* t = static_cast<std::uint8_t**>(std::calloc(kTablePages, sizeof(std::uint8_t*)));
    if (t == nullptr) throw std::bad_alloc();
    return t;
  }()};
  std::vector<std::unique_ptr<Page>> pool;  // every page the store holds, each listed in the table
  std::vector<Page*> touched;               // the pages the current case touched, each once
  std::uint32_t stamp = 0;                  // the current case's (pages touched by it carry it)
  std::size_t outside_bytes = 0;            // bytes flagged in some page's `outside`, counted once each

  // Clears what the last case marked in its pages (only the lines it marked: a case costs what it
  // touched) and lays the new case's inputs into theirs.
  void reset(const ByteMap& inputs) {
    for (Page* p : touched) {
      for (std::uint64_t lines = p->marked; lines; lines &= lines - 1) {
        const unsigned line = static_cast<unsigned>(std::countr_zero(lines));
        std::memset(p->bytes.data() + kPageSize + 64 * line, 0, 64);
        p->written[line] = 0;
        p->outside[line] = 0;
      }
      p->marked = 0;
    }
    touched.clear();
    outside_bytes = 0;
    if (pool.size() > kMostKeptPages) {
      for (const auto& p : pool) table[p->number] = nullptr;
      pool.clear();
    }
    if (++stamp == 0) {  // wrapped: no page may keep a stamp that a later case takes
      for (const auto& p : pool) p->stamp = 0;
      stamp = 1;
    }
    for (std::size_t i = 0; i < inputs.run_count(); ++i) {
      const ByteMap::RunView r = inputs.run(i);
      for (std::uint64_t a = r.base; a < r.end();) {
        const auto page_number = static_cast<std::uint32_t>(a >> kPageBits);
        const auto off = static_cast<unsigned>(a & (kPageSize - 1));
        const auto n = static_cast<unsigned>(std::min<std::uint64_t>(r.end() - a, kPageSize - off));
        Page& p = page(page_number);
        copy_bytes(p.bytes.data() + off, r.bytes.data() + (a - r.base), n);
        mark_readable(p, off, n);
        a += n;
      }
    }
  }

  // The page, made (listed, nothing readable) the first time, and counted as touched by this case.
  Page& page(std::uint32_t number) {
    std::uint8_t* b = table[number];
    if (b == nullptr) {
      pool.push_back(std::make_unique<Page>());
      Page& p = *pool.back();
      p.number = number;
      b = table[number] = p.bytes.data();
    }
    Page& p = page_at(b);
    if (p.stamp != stamp) {
      p.stamp = stamp;
      touched.push_back(&p);
    }
    return p;
  }

  // The current case's pages in address order.
  const std::vector<Page*>& sorted() {
    std::sort(touched.begin(), touched.end(), [](const Page* a, const Page* b) { return a->number < b->number; });
    return touched;
  }

  // Reads [off, off + n) of page p into out, recording the bytes that are not readable (which
  // read as 0).
  void read(Page& p, unsigned off, std::uint8_t* out, unsigned n) {
    const std::uint8_t* marks = p.bytes.data() + kPageSize;
    for (unsigned k = 0; k < n; ++k) out[k] = p.bytes[off + k] & marks[off + k];
    flag_outside(p, off, n);
  }

  // Flags the bytes of [off, off + n) (inside the page) that are not readable as read from outside.
  void flag_outside(Page& p, unsigned off, unsigned n) {
    const std::uint8_t* marks = p.bytes.data() + kPageSize;
    for (unsigned b = off; b < off + n; ++b) {
      const std::uint64_t m = std::uint64_t{1} << (b % 64);
      if (!marks[b] && !(p.outside[b / 64] & m)) {
        p.outside[b / 64] |= m;
        p.marked |= std::uint64_t{1} << (b / 64);
        ++outside_bytes;
      }
    }
  }

  static void write(Page& p, unsigned off, const std::uint8_t* in, unsigned n) {
    switch (n) {  // the port's widths as fixed-size copies
      case 1: p.bytes[off] = *in; break;
      case 2: std::memcpy(p.bytes.data() + off, in, 2); break;
      case 4: std::memcpy(p.bytes.data() + off, in, 4); break;
      case 8: std::memcpy(p.bytes.data() + off, in, 8); break;
      default: std::memcpy(p.bytes.data() + off, in, n); break;
    }
    fill_marks(p.bytes.data() + kPageSize + off, 0xff, n);
    set_bits(p.written, p.marked, off, n);
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
  table_ = p->table.get();
  stamp_ = p->stamp;
  pages_ = p.release();
}

ReplayMemory::~ReplayMemory() {
  std::unique_ptr<Pages> p(pages_);
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
  const unsigned off = a & (kPageSize - 1);
  std::uint64_t v = 0;
  if (off + n <= kPageSize) {
    Page& p = pages_->page(a >> kPageBits);
    std::uint64_t marks;
    std::memcpy(&v, p.bytes.data() + off, 8);
    std::memcpy(&marks, p.bytes.data() + kPageSize + off, 8);  // a byte not readable reads as 0
    v &= marks;
    if (n < 8) v &= (std::uint64_t{1} << (8 * n)) - 1;
    pages_->flag_outside(p, off, n);
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
  const std::vector<Page*>& pages = pages_->sorted();
  // First the sizes, so the map is filled without growing: the bytes written, and at most as many
  // runs as there are first bytes of a stretch within a bitmap word.
  std::size_t bytes = 0, runs = 0;
  // Only the lines the case marked can hold a written byte.
  for (const Page* p : pages)
    for (std::uint64_t lines = p->marked; lines; lines &= lines - 1)
      if (const std::uint64_t bits = p->written[static_cast<unsigned>(std::countr_zero(lines))]) {
        bytes += static_cast<std::size_t>(std::popcount(bits));
        runs += static_cast<std::size_t>(std::popcount(bits & ~(bits << 1)));
      }
  out.reserve(runs, bytes);
  // Then the stretches in address order; ByteMap::append joins those that touch, across bitmap
  // words and page boundaries, into one run.
  for (const Page* p : pages) {
    const std::uint64_t lo = std::uint64_t{p->number} << kPageBits;
    for (std::uint64_t lines = p->marked; lines; lines &= lines - 1) {
      const auto w = static_cast<unsigned>(std::countr_zero(lines));
      std::uint64_t bits = p->written[w];
      while (bits) {
        const unsigned b = static_cast<unsigned>(std::countr_zero(bits));
        const unsigned len = static_cast<unsigned>(std::countr_one(bits >> b));
        out.append(static_cast<GuestAddr>(lo + 64 * w + b),
                   std::span<const std::uint8_t>(p->bytes.data() + 64 * w + b, len));
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
    for (std::uint64_t lines = p->marked; lines; lines &= lines - 1) {
      const auto w = static_cast<unsigned>(std::countr_zero(lines));
      for (std::uint64_t bits = p->outside[w]; bits; bits &= bits - 1)
        out.push_back(static_cast<GuestAddr>((std::uint64_t{p->number} << kPageBits) + 64 * w +
                                             static_cast<unsigned>(std::countr_zero(bits))));
    }
  }
  return out;
}

}  // namespace lockstep::cases
