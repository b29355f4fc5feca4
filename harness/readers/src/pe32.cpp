// PE32 reader and mapper. Layout: Microsoft's PE format specification (pe-format). Every RVA and file offset from
// the file is checked (ByteReader slices, explicit 64-bit sums) before it is used.
#include "lockstep/readers/pe32.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "reader_util.hpp"

namespace lockstep::harness {

namespace {

using readers::le16;
using readers::le32;

constexpr std::uint16_t kMachineI386 = 0x14C;
constexpr std::uint16_t kMagicPe32 = 0x10B, kMagicPe32Plus = 0x20B;
constexpr std::uint64_t kSectionHeaderSize = 40;
constexpr std::uint64_t kImportDescriptorSize = 20;
constexpr std::uint32_t kScnExecute = 0x20000000, kScnRead = 0x40000000, kScnWrite = 0x80000000;
constexpr std::size_t kMaxDifferenceRanges = 1u << 16;  // the report lists this many, then counts

bool is_pow2(std::uint32_t v) { return v && !(v & (v - 1)); }
std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

class PeParser {
 public:
  PeParser(std::span<const std::uint8_t> bytes, std::string_view what, const Pe32Limits& limits)
      : r_(bytes, std::string(what)), what_(what), limits_(limits) {}

  Result<Pe32Image> run() {
    img_.what = std::string(what_);
    LOCKSTEP_TRY(auto dos, r_.slice(0, 0x40, "DOS header"));
    if (dos[0] != 'M' || dos[1] != 'Z')
      return Error::make(Errc::kBadMagic, "{}: not a PE image (starts with {:02x} {:02x}, expected 'MZ')", what_, dos[0],
                         dos[1]);
    const std::uint32_t nt = le32(dos, 0x3C);
    LOCKSTEP_TRY(auto fh, r_.slice(nt, 24, "PE signature and file header"));
    if (le32(fh, 0) != 0x00004550)
      return Error::make(Errc::kBadMagic, "{}: no 'PE\\0\\0' signature at e_lfanew 0x{:x}", what_, nt);
    const std::uint16_t machine = le16(fh, 4);
    if (machine != kMachineI386)
      return Error::make(Errc::kUnsupported, "{}: machine 0x{:x} is not i386 (0x14c): lockstep reads 32-bit x86 images",
                         what_, machine);
    const std::uint16_t nsections = le16(fh, 6);
    img_.time_date_stamp = le32(fh, 8);
    string_table_ = std::uint64_t{le32(fh, 12)} + std::uint64_t{le32(fh, 16)} * 18;  // COFF symbols are 18 bytes
    has_string_table_ = le32(fh, 12) != 0;
    const std::uint16_t opt_size = le16(fh, 20);
    img_.characteristics = le16(fh, 22);
    if (nsections > limits_.max_sections)
      return Error::make(Errc::kLimit, "{}: {} sections, past the limit of {}", what_, nsections,
                         limits_.max_sections);
    LOCKSTEP_TRY(auto opt, r_.slice(std::uint64_t{nt} + 24, opt_size, "optional header"));
    if (opt.size() < 2)
      return Error::make(Errc::kMalformed, "{}: optional header of {} bytes", what_, opt.size());
    const std::uint16_t magic = le16(opt, 0);
    if (magic == kMagicPe32Plus)
      return Error::make(Errc::kUnsupported, "{}: a PE32+ (64-bit) image: lockstep reads 32-bit PE32 images", what_);
    if (magic != kMagicPe32)
      return Error::make(Errc::kBadMagic, "{}: optional header magic 0x{:x}, expected 0x10b (PE32)", what_, magic);
    if (opt.size() < 96)
      return Error::make(Errc::kMalformed, "{}: PE32 optional header of {} bytes, shorter than its 96 fixed bytes",
                         what_, opt.size());
    img_.entry_rva = le32(opt, 16);
    img_.image_base = le32(opt, 28);
    img_.section_alignment = le32(opt, 32);
    img_.file_alignment = le32(opt, 36);
    img_.size_of_image = le32(opt, 56);
    img_.size_of_headers = le32(opt, 60);
    img_.dll_characteristics = le16(opt, 70);
    const std::uint32_t ndirs = std::min<std::uint32_t>(le32(opt, 92), 16);
    if (96 + std::uint64_t{ndirs} * 8 > opt.size())
      return Error::make(Errc::kMalformed, "{}: {} data directories do not fit the {}-byte optional header", what_,
                         ndirs, opt.size());
    if (!is_pow2(img_.section_alignment) || !is_pow2(img_.file_alignment))
      return Error::make(Errc::kMalformed, "{}: SectionAlignment 0x{:x} / FileAlignment 0x{:x} must be powers of two",
                         what_, img_.section_alignment, img_.file_alignment);
    if (img_.size_of_image > limits_.max_image_size)
      return Error::make(Errc::kLimit, "{}: SizeOfImage 0x{:x}, past the limit of 0x{:x}", what_, img_.size_of_image,
                         limits_.max_image_size);
    if (std::uint64_t{img_.image_base} + img_.size_of_image > readers::kAddressSpaceEnd)
      return Error::make(Errc::kMalformed, "{}: ImageBase 0x{:08x} + SizeOfImage 0x{:x} wraps past 4 GiB", what_,
                         img_.image_base, img_.size_of_image);
    if (img_.size_of_headers > r_.size())
      return Error::make(Errc::kTruncated, "{}: SizeOfHeaders 0x{:x} is past the end of the file (0x{:x} bytes)", what_,
                         img_.size_of_headers, r_.size());

    LOCKSTEP_TRY_STATUS(sections(std::uint64_t{nt} + 24 + opt_size, nsections));
    if (ndirs > 1) {
      const std::uint32_t imp_rva = le32(opt, 96 + 8), imp_size = le32(opt, 96 + 12);
      if (imp_rva != 0 && imp_size != 0) LOCKSTEP_TRY_STATUS(imports(imp_rva));
    }
    img_.file.assign(r_.bytes().begin(), r_.bytes().end());
    img_.sha256 = to_hex(sha256(img_.file));
    return std::move(img_);
  }

 private:
  Status sections(std::uint64_t off, std::uint16_t n) {
    LOCKSTEP_TRY(auto tab, r_.slice(off, n * kSectionHeaderSize, "section table"));
    for (std::uint16_t i = 0; i < n; ++i) {
      auto h = tab.subspan(i * kSectionHeaderSize, kSectionHeaderSize);
      Pe32Section s;
      std::size_t len = 0;
      while (len < 8 && h[len]) ++len;
      s.name.assign(reinterpret_cast<const char*>(h.data()), len);
      long_name(s.name);
      s.virtual_size = le32(h, 8);
      s.virtual_address = le32(h, 12);
      s.raw_size = le32(h, 16);
      s.raw_offset = le32(h, 20);
      s.characteristics = le32(h, 36);
      s.prot = static_cast<std::uint8_t>(((s.characteristics & kScnRead) ? kProtRead : 0) |
                                         ((s.characteristics & kScnWrite) ? kProtWrite : 0) |
                                         ((s.characteristics & kScnExecute) ? kProtExec : 0));
      const std::uint64_t span = align_up(std::max(s.virtual_size, s.raw_size), img_.section_alignment);
      const std::uint64_t begin = std::uint64_t{img_.image_base} + s.virtual_address;
      if (span == 0)
        return Error::make(Errc::kMalformed, "{}: section {} '{}' is empty (VirtualSize and SizeOfRawData 0)", what_, i,
                           s.name);
      if (begin + span > readers::kAddressSpaceEnd)
        return Error::make(Errc::kMalformed, "{}: section {} '{}' at 0x{:x}, 0x{:x} bytes, wraps past 4 GiB", what_, i,
                           s.name, begin, span);
      if (std::uint64_t{s.virtual_address} + span > align_up(img_.size_of_image, img_.section_alignment))
        return Error::make(Errc::kMalformed, "{}: section {} '{}' (RVA 0x{:x}, 0x{:x} bytes) ends past SizeOfImage 0x{:x}",
                           what_, i, s.name, s.virtual_address, span, img_.size_of_image);
      s.address = static_cast<GuestAddr>(begin);
      s.mapped_size = static_cast<std::uint32_t>(span);
      s.file_bytes = s.virtual_size == 0 ? s.raw_size : std::min(s.raw_size, s.virtual_size);
      if (s.file_bytes) LOCKSTEP_TRY_STATUS(r_.slice(s.raw_offset, s.file_bytes, fmt::format("section '{}' data", s.name)));
      img_.sections.push_back(std::move(s));
    }
    std::stable_sort(img_.sections.begin(), img_.sections.end(),
                     [](const auto& a, const auto& b) { return a.virtual_address < b.virtual_address; });
    for (std::size_t i = 1; i < img_.sections.size(); ++i) {
      const auto& p = img_.sections[i - 1];
      const auto& s = img_.sections[i];
      if (std::uint64_t{p.virtual_address} + p.mapped_size > s.virtual_address)
        return Error::make(Errc::kMalformed, "{}: sections '{}' (RVA 0x{:x}, 0x{:x} bytes) and '{}' (RVA 0x{:x}) overlap",
                           what_, p.name, p.virtual_address, p.mapped_size, s.name, s.virtual_address);
    }
    return {};
  }

  /// A section name "/123" is an offset into the COFF string table (mingw writes ".eh_frame" so);
  /// resolved when the table is there, left as is otherwise (the name is informational).
  void long_name(std::string& name) const {
    if (name.size() < 2 || name[0] != '/' || !has_string_table_) return;
    std::uint64_t off = 0;
    for (std::size_t i = 1; i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9') return;
      off = off * 10 + static_cast<std::uint64_t>(name[i] - '0');
    }
    std::string full;
    for (std::uint64_t i = 0; i < 256; ++i) {
      auto c = r_.read_at<std::uint8_t>(string_table_ + off + i, "section name");
      if (!c.ok()) return;
      if (*c == 0) {
        name = full;
        return;
      }
      full += static_cast<char>(*c);
    }
  }

  /// The file offset of `n` bytes at `rva` (in the headers or in a section's file bytes).
  Result<std::uint64_t> rva_offset(std::uint32_t rva, std::uint64_t n, std::string_view field) const {
    if (std::uint64_t{rva} + n <= img_.size_of_headers) return std::uint64_t{rva};
    for (const auto& s : img_.sections) {
      if (rva >= s.virtual_address && rva - s.virtual_address < s.file_bytes) {
        const std::uint64_t off = std::uint64_t{s.raw_offset} + (rva - s.virtual_address);
        if (std::uint64_t{rva} - s.virtual_address + n > s.file_bytes)
          return Error::make(Errc::kTruncated, "{}: {} at RVA 0x{:x} runs past the file bytes of section '{}'", what_,
                             field, rva, s.name);
        return off;
      }
    }
    return Error::make(Errc::kMalformed, "{}: {} at RVA 0x{:x} lies in no section's file bytes", what_, field, rva);
  }

  Result<std::string> cstr(std::uint32_t rva, std::string_view field) const {
    LOCKSTEP_TRY(std::uint64_t off, rva_offset(rva, 1, field));
    std::string s;
    for (std::uint64_t i = 0;; ++i) {
      if (i >= limits_.max_name_bytes)
        return Error::make(Errc::kLimit, "{}: {} at RVA 0x{:x} is longer than {} bytes", what_, field, rva,
                           limits_.max_name_bytes);
      LOCKSTEP_TRY(std::uint8_t c, r_.read_at<std::uint8_t>(off + i, field));
      if (!c) break;
      s += static_cast<char>(c);
    }
    return s;
  }

  Status imports(std::uint32_t dir_rva) {
    for (std::uint32_t d = 0;; ++d) {
      if (d >= limits_.max_import_dlls)
        return Error::make(Errc::kLimit, "{}: more than {} import descriptors", what_, limits_.max_import_dlls);
      const std::uint64_t drva = std::uint64_t{dir_rva} + d * kImportDescriptorSize;
      if (drva > 0xFFFFFFFFu) return Error::make(Errc::kMalformed, "{}: import table wraps past RVA 4 GiB", what_);
      LOCKSTEP_TRY(std::uint64_t off, rva_offset(static_cast<std::uint32_t>(drva), kImportDescriptorSize,
                                                 fmt::format("import descriptor {}", d)));
      LOCKSTEP_TRY(auto desc, r_.slice(off, kImportDescriptorSize, "import descriptor"));
      const std::uint32_t ilt = le32(desc, 0), name_rva = le32(desc, 12), iat = le32(desc, 16);
      if (ilt == 0 && name_rva == 0 && iat == 0) break;  // the terminating all-zero descriptor
      LOCKSTEP_TRY(std::string dll, cstr(name_rva, fmt::format("import descriptor {} DLL name", d)));
      const std::uint32_t lookup = ilt ? ilt : iat;  // no INT: the file's IAT holds the same thunks
      for (std::uint32_t i = 0;; ++i) {
        if (i >= limits_.max_imports_per_dll)
          return Error::make(Errc::kLimit, "{}: {} imports more than {} functions", what_, dll,
                             limits_.max_imports_per_dll);
        const std::uint64_t trva = std::uint64_t{lookup} + 4ull * i;
        if (trva > 0xFFFFFFFFu || std::uint64_t{iat} + 4ull * i > img_.size_of_image)
          return Error::make(Errc::kMalformed, "{}: import thunks of {} run past the image", what_, dll);
        LOCKSTEP_TRY(std::uint64_t toff, rva_offset(static_cast<std::uint32_t>(trva), 4, dll + " import thunk"));
        LOCKSTEP_TRY(std::uint32_t thunk, r_.read_at<std::uint32_t>(toff, "import thunk"));
        if (thunk == 0) break;
        Pe32Import imp;
        imp.dll = dll;
        imp.iat_slot = static_cast<GuestAddr>(std::uint64_t{img_.image_base} + iat + 4ull * i);
        if (thunk & 0x80000000u) {
          imp.by_ordinal = true;
          imp.ordinal = static_cast<std::uint16_t>(thunk & 0xFFFF);
        } else {
          LOCKSTEP_TRY(std::uint64_t hoff, rva_offset(thunk, 2, dll + " import hint"));
          LOCKSTEP_TRY(std::uint16_t hint, r_.read_at<std::uint16_t>(hoff, "import hint"));
          imp.ordinal = hint;
          if (thunk > 0xFFFFFFFDu) return Error::make(Errc::kMalformed, "{}: import name RVA wraps", what_);
          LOCKSTEP_TRY(imp.name, cstr(thunk + 2, dll + " import name"));
        }
        img_.imports.push_back(std::move(imp));
      }
    }
    return {};
  }

  ByteReader r_;
  std::string_view what_;
  const Pe32Limits& limits_;
  Pe32Image img_;
  std::uint64_t string_table_ = 0;
  bool has_string_table_ = false;
};

/// The image's bytes for one mapped piece (headers or a section), zero-filled past the file bytes.
struct Piece {
  GuestAddr begin = 0;
  std::uint32_t size = 0;
  std::uint8_t prot = kProtRead;
  std::string name;
  std::vector<std::uint8_t> bytes;
};

std::vector<Piece> image_pieces(const Pe32Image& img) {
  std::vector<Piece> out;
  // The headers: SizeOfHeaders bytes, page-rounded like a section but never into the first section.
  std::uint64_t hdr = align_up(img.size_of_headers, img.section_alignment);
  if (!img.sections.empty()) hdr = std::min<std::uint64_t>(hdr, img.sections.front().virtual_address);
  if (hdr) {
    Piece p{img.image_base, static_cast<std::uint32_t>(hdr), kProtRead, "(headers)", {}};
    p.bytes.assign(hdr, 0);
    const std::size_t n = std::min<std::size_t>({hdr, img.size_of_headers, img.file.size()});
    std::copy_n(img.file.begin(), n, p.bytes.begin());
    out.push_back(std::move(p));
  }
  for (const auto& s : img.sections) {
    Piece p{s.address, s.mapped_size, s.prot, s.name, {}};
    p.bytes.assign(s.mapped_size, 0);
    std::copy_n(img.file.begin() + s.raw_offset, s.file_bytes, p.bytes.begin());
    out.push_back(std::move(p));
  }
  return out;
}

std::string file_name_lower(std::string_view path) {
  const auto slash = path.find_last_of("/\\");
  std::string n(slash == std::string_view::npos ? path : path.substr(slash + 1));
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

}  // namespace

std::string Pe32Import::label() const {
  return by_ordinal ? fmt::format("{}!#{}", dll, ordinal) : fmt::format("{}!{}", dll, name);
}

std::vector<std::pair<GuestAddr, std::string>> Pe32Image::import_labels() const {
  std::vector<std::pair<GuestAddr, std::string>> out;
  out.reserve(imports.size());
  for (const auto& i : imports) out.emplace_back(i.iat_slot, i.label());
  return out;
}

const Pe32Section* Pe32Image::section_at(GuestAddr a) const noexcept {
  for (const auto& s : sections)
    if (a >= s.address && a - s.address < s.mapped_size) return &s;
  return nullptr;
}

Result<Pe32Image> parse_pe32(std::span<const std::uint8_t> bytes, std::string_view what, const Pe32Limits& limits) {
  return PeParser(bytes, what, limits).run();
}

Result<Pe32Image> load_pe32(const std::filesystem::path& path, const Pe32Limits& limits) {
  LOCKSTEP_TRY(auto bytes, read_file(path, limits.max_file_bytes));
  return parse_pe32(bytes, path.string(), limits);
}

namespace {

void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

/// The import traps: per import an int3, its IAT slot (4 bytes) and its label, NUL-terminated.
struct Traps {
  std::vector<std::uint8_t> bytes;
  std::vector<GuestAddr> at;  ///< per import, in table order
};

Traps build_traps(const Pe32Image& image, GuestAddr base) {
  Traps t;
  for (const Pe32Import& imp : image.imports) {
    t.at.push_back(static_cast<GuestAddr>(base + t.bytes.size()));
    const std::string label = imp.label();
    const std::size_t o = t.bytes.size();
    t.bytes.resize(o + 5 + label.size() + 1, 0);
    t.bytes[o] = 0xCC;
    put32(t.bytes, o + 1, imp.iat_slot);
    std::copy(label.begin(), label.end(), t.bytes.begin() + static_cast<std::ptrdiff_t>(o + 5));
  }
  t.bytes.resize(align_up(std::max<std::size_t>(t.bytes.size(), 1), 0x1000), 0);  // padding is no trap
  return t;
}

/// The first candidate block address whose block (traps included) keeps the gap to the image.
GuestAddr thread_block_base(const Pe32Image& image, std::uint64_t block_size) {
  const std::uint64_t ib = image.image_base, ie = ib + image.size_of_image;
  for (GuestAddr c : kImageThreadBlockCandidates) {
    const std::uint64_t lo = c >= kImageThreadBlockGap ? c - kImageThreadBlockGap : 0;
    const std::uint64_t hi = std::uint64_t{c} + block_size + kImageThreadBlockGap;
    if (hi <= readers::kAddressSpaceEnd && (hi <= ib || lo >= ie)) return c;
  }
  // An image over every candidate's window (hundreds of MiB: past Pe32Limits' default): the first
  // 16 MiB boundary above it, or below it, that fits.
  const std::uint64_t above = align_up(ie + kImageThreadBlockGap, 0x1000000);
  if (above + block_size + kImageThreadBlockGap <= readers::kAddressSpaceEnd) return static_cast<GuestAddr>(above);
  // Below the image. An image spanning nearly all 4 GiB leaves no room at all: the block then
  // overlaps it and the snapshot fails validate(), which saving it and making a machine check.
  return 0x00100000;
}

}  // namespace

Snapshot snapshot_of_image_sections(const Pe32Image& image) {
  Snapshot snap;
  snap.meta.source = fmt::format("pe32 {}", image.what);
  snap.meta.format = "pe32";
  snap.meta.exe_path = image.what;
  snap.meta.exe_sha256 = image.sha256;
  snap.meta.modules.push_back(Module{image.what, image.image_base, image.size_of_image});
  for (auto& p : image_pieces(image)) {
    Region r;
    r.base = p.begin;
    r.bytes = std::move(p.bytes);
    r.prot = p.prot;
    r.name = fmt::format("{} {}", image.what, p.name);
    snap.regions.push_back(std::move(r));
  }
  snap.meta.notes.push_back("an image's sections alone: no threads, no stack, no heap, imports unresolved");
  return snap;
}

Snapshot snapshot_from_image(const Pe32Image& image) {
  Snapshot snap = snapshot_of_image_sections(image);
  snap.meta.notes.clear();

  // The synthesized thread's block: stack, TEB, PEB, import traps (pe32.hpp gives the layout).
  const std::uint64_t trap_estimate = align_up(image.imports.size() * 8 + [&] {
    std::uint64_t n = 0;
    for (const auto& i : image.imports) n += i.label().size();
    return n;
  }() + 1, 0x1000);
  const GuestAddr block = thread_block_base(image, kImageThreadBlockSize + trap_estimate);
  const GuestAddr stack_low = block, stack_high = block + kImageStackSize;
  const GuestAddr teb = block + kImageTebOffset, peb = block + kImagePebOffset;
  auto add = [&](GuestAddr base, std::vector<std::uint8_t> bytes, std::uint8_t prot, std::string name) {
    Region r;
    r.base = base;
    r.bytes = std::move(bytes);
    r.prot = prot;
    r.name = std::move(name);
    snap.regions.push_back(std::move(r));
  };
  add(stack_low, std::vector<std::uint8_t>(kImageStackSize, 0), kProtRead | kProtWrite, "synthesized stack");
  std::vector<std::uint8_t> teb_bytes(0x1000, 0);
  put32(teb_bytes, 0x00, 0xFFFFFFFFu);  // ExceptionList: the end of the SEH chain
  put32(teb_bytes, 0x04, stack_high);   // StackBase
  put32(teb_bytes, 0x08, stack_low);    // StackLimit
  put32(teb_bytes, 0x18, teb);          // Self
  put32(teb_bytes, 0x20, 1);            // ClientId: process 1
  put32(teb_bytes, 0x24, 1);            //           thread 1
  put32(teb_bytes, 0x30, peb);          // ProcessEnvironmentBlock
  // +0xe10: TlsSlots[64], zero (TlsGetValue of a fresh slot gives 0).
  add(teb, std::move(teb_bytes), kProtRead | kProtWrite, "synthesized TEB");
  std::vector<std::uint8_t> peb_bytes(0x1000, 0);
  put32(peb_bytes, 0x08, image.image_base);  // ImageBaseAddress
  add(peb, std::move(peb_bytes), kProtRead | kProtWrite, "synthesized PEB");
  Traps traps = build_traps(image, block + kImageTrapsOffset);
  add(block + kImageTrapsOffset, std::move(traps.bytes), kProtRead | kProtExec,
      fmt::format("{} of {}", kImportTrapsRegionName, image.what));
  snap.sort_regions();
  for (std::size_t i = 0; i < image.imports.size(); ++i) {
    std::array<std::uint8_t, 4> v{};
    for (int k = 0; k < 4; ++k) v[k] = static_cast<std::uint8_t>(traps.at[i] >> (8 * k));
    (void)snap.write(image.imports[i].iat_slot, v);  // parse_pe32 checked every slot lies in the image
  }

  Thread t;
  t.tid = 1;
  t.esp = stack_high - 0x100;
  t.eip = image.entry_rva ? image.image_base + image.entry_rva : 0;
  t.cs = kImageCs;
  t.ds = t.es = t.ss = kImageDs;
  t.fs = kImageFs;
  t.fs_base = teb;
  t.x87.control = 0x027f;  // what Windows starts a thread with; x87_valid false: the profile's word applies
  t.x87_valid = false;
  snap.threads.push_back(t);
  snap.meta.notes.push_back(fmt::format(
      "an image alone: a synthesized thread (stack 0x{:08x}..0x{:08x}, TEB 0x{:08x}, PEB 0x{:08x}), {} import(s) "
      "pointing at traps from 0x{:08x}, no heap",
      stack_low, stack_high, teb, peb, image.imports.size(), block + kImageTrapsOffset));
  return snap;
}

std::optional<ImportTrap> import_trap_at(const Snapshot& snapshot, GuestAddr eip) {
  const Region* r = snapshot.find(eip);
  if (!r || !r->name.starts_with(kImportTrapsRegionName)) return std::nullopt;
  // Walk the records from the region's start: only a record's first byte is a trap (an IAT slot's
  // bytes inside a record may be 0xcc too).
  const std::size_t want = eip - r->base;
  std::size_t o = 0;
  while (o + 6 <= r->bytes.size() && r->bytes[o] == 0xCC) {
    std::size_t end = o + 5;
    while (end < r->bytes.size() && r->bytes[end]) ++end;
    if (o == want) {
      ImportTrap t;
      t.iat_slot = readers::le32(std::span<const std::uint8_t>(r->bytes), o + 1);
      t.label.assign(r->bytes.begin() + static_cast<std::ptrdiff_t>(o + 5),
                     r->bytes.begin() + static_cast<std::ptrdiff_t>(end));
      return t;
    }
    if (o > want) break;
    o = end + 1;
  }
  return std::nullopt;
}

Result<MapOverReport> map_image_over(Snapshot& snapshot, const Pe32Image& image) {
  MapOverReport rep;
  const std::string want = file_name_lower(image.what);
  bool listed = false;
  for (const auto& m : snapshot.meta.modules) {
    if (file_name_lower(m.name) != want) continue;
    if (m.base != image.image_base)
      return Error::make(Errc::kUnsupported,
                         "{}: the snapshot has {} at 0x{:08x} but the image's preferred base (ImageBase) is 0x{:08x}: "
                         "lockstep does not relocate images",
                         image.what, m.name, m.base, image.image_base);
    listed = true;
  }
  for (const auto& m : snapshot.meta.modules) {
    // Another module where the image goes: the snapshot is probably not of this program.
    const std::uint64_t mb = m.base, me = mb + m.size, ib = image.image_base, ie = ib + image.size_of_image;
    if (file_name_lower(m.name) != want && mb < ie && ib < me)
      rep.notes.push_back(fmt::format("{}: the snapshot lists {} at 0x{:08x}..0x{:08x}, overlapping the image's range "
                                      "0x{:08x}..0x{:08x}: is this the right executable?",
                                      image.what, m.name, mb, me, ib, ie));
  }
  if (!listed) {
    rep.notes.push_back(fmt::format("{}: the snapshot lists no module of that name: mapped at its ImageBase 0x{:08x}",
                                    image.what, image.image_base));
    snapshot.meta.modules.push_back(Module{image.what, image.image_base, image.size_of_image});
  }
  snapshot.sort_regions();

  std::vector<Region> added;
  std::size_t listed_ranges = 0;
  auto record = [&](GuestAddr begin, std::uint32_t size, const std::string& section, bool replaced) {
    if (listed_ranges++ < kMaxDifferenceRanges) rep.differences.push_back({begin, size, section, replaced});
  };
  const auto pieces = image_pieces(image);
  for (const Piece& p : pieces) {
    const bool replace = !(p.prot & kProtWrite);
    const std::uint64_t pend = std::uint64_t{p.begin} + p.size;
    std::uint64_t a = p.begin;
    while (a < pend) {
      Region* r = snapshot.find(static_cast<GuestAddr>(a));
      if (!r) {
        // A gap: up to the next region or the piece's end; the file's bytes fill it.
        auto next = std::upper_bound(snapshot.regions.begin(), snapshot.regions.end(), a,
                                     [](std::uint64_t x, const Region& reg) { return x < reg.base; });
        const std::uint64_t gap_end = next == snapshot.regions.end() ? pend : std::min<std::uint64_t>(pend, next->base);
        Region n;
        n.base = static_cast<GuestAddr>(a);
        n.bytes.assign(p.bytes.begin() + static_cast<std::ptrdiff_t>(a - p.begin),
                       p.bytes.begin() + static_cast<std::ptrdiff_t>(gap_end - p.begin));
        n.prot = p.prot;
        n.name = fmt::format("{} {} (from the file)", image.what, p.name);
        rep.bytes_added += n.bytes.size();
        added.push_back(std::move(n));
        a = gap_end;
        continue;
      }
      const std::uint64_t hi = std::min<std::uint64_t>(pend, r->end());
      std::uint64_t run_begin = 0;
      bool in_run = false;
      for (std::uint64_t x = a; x <= hi; ++x) {
        const bool differs = x < hi && r->bytes[x - r->base] != p.bytes[x - p.begin];
        if (differs && !in_run) {
          run_begin = x;
          in_run = true;
        } else if (!differs && in_run) {
          record(static_cast<GuestAddr>(run_begin), static_cast<std::uint32_t>(x - run_begin), p.name, replace);
          (replace ? rep.bytes_replaced : rep.bytes_kept) += x - run_begin;
          in_run = false;
        }
        if (differs && replace) r->bytes[x - r->base] = p.bytes[x - p.begin];
      }
      a = hi;
    }
  }
  if (listed_ranges > kMaxDifferenceRanges)
    rep.notes.push_back(fmt::format("{} differing ranges; the report lists the first {}", listed_ranges,
                                    kMaxDifferenceRanges));
  for (auto& n : added) snapshot.regions.push_back(std::move(n));
  snapshot.sort_regions();
  for (const Piece& p : pieces)
    readers::set_protection(snapshot.regions, p.begin, std::uint64_t{p.begin} + p.size, p.prot);
  rep.notes.push_back(fmt::format("mapped {} over the snapshot: {} differing ranges; 0x{:x} bytes of code/read-only "
                                  "data restored from the file, 0x{:x} differing bytes of writable sections kept, 0x{:x} "
                                  "bytes added where the snapshot had none",
                                  image.what, listed_ranges, rep.bytes_replaced, rep.bytes_kept, rep.bytes_added));
  for (const auto& n : rep.notes) snapshot.meta.notes.push_back(n);
  if (snapshot.meta.exe_sha256.empty() && (snapshot.meta.exe_path.empty() ||
                                           file_name_lower(snapshot.meta.exe_path) == want))
    snapshot.meta.exe_sha256 = image.sha256;
  LOCKSTEP_TRY_STATUS(snapshot.validate());
  return rep;
}

}  // namespace lockstep::harness
