// ELF32 i386 executables mapped alone (elf_exec.hpp).
#include "lockstep/readers/elf_exec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "reader_util.hpp"

namespace lockstep::harness {
namespace {

using readers::le16;
using readers::le32;

constexpr std::uint16_t kEtRel = 1, kEtExec = 2, kEtDyn = 3, kEtCore = 4, kEm386 = 3;
constexpr std::uint32_t kPtLoad = 1, kPtInterp = 3;
constexpr std::uint64_t kPage = 0x1000;

std::uint64_t page_down(std::uint64_t a) { return a & ~(kPage - 1); }
std::uint64_t page_up(std::uint64_t a) { return (a + kPage - 1) & ~(kPage - 1); }

std::uint8_t prot_from_pflags(std::uint32_t f) {
  return static_cast<std::uint8_t>(((f & 4) ? kProtRead : 0) | ((f & 2) ? kProtWrite : 0) | ((f & 1) ? kProtExec : 0));
}

void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = static_cast<std::uint8_t>(v >> (8 * k));
}

GuestAddr thread_block_base(const ElfExecutable& exe, std::uint64_t block_size) {
  for (GuestAddr c : kElfThreadBlockCandidates) {
    const std::uint64_t lo = c - kElfThreadBlockGap, hi = std::uint64_t{c} + block_size + kElfThreadBlockGap;
    bool clear = hi <= readers::kAddressSpaceEnd;
    for (const auto& s : exe.segments)
      clear = clear && (hi <= s.vaddr || lo >= std::uint64_t{s.vaddr} + s.memsz);
    if (clear) return c;
  }
  // Segments over every candidate's window (a hostile or enormous file): the page after the last
  // segment. If even that does not fit, the snapshot fails validate() when it is used.
  std::uint64_t end = 0;
  for (const auto& s : exe.segments) end = std::max<std::uint64_t>(end, std::uint64_t{s.vaddr} + s.memsz);
  return static_cast<GuestAddr>(std::min<std::uint64_t>(page_up(end) + kElfThreadBlockGap, 0xffff0000u - block_size));
}

}  // namespace

bool is_elf_executable(std::span<const std::uint8_t> b) noexcept {
  if (b.size() < 18 || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F') return false;
  const std::uint16_t type = static_cast<std::uint16_t>(b[5] == 2 ? (b[16] << 8) | b[17] : b[16] | (b[17] << 8));
  return type != kEtCore;
}

Result<ElfExecutable> parse_elf_executable(std::span<const std::uint8_t> bytes, std::string_view what,
                                           const ElfExecLimits& limits) {
  ByteReader r(bytes, std::string(what));
  LOCKSTEP_TRY(auto id, r.slice(0, 16, "ELF identification"));
  if (id[0] != 0x7F || id[1] != 'E' || id[2] != 'L' || id[3] != 'F')
    return Error::make(Errc::kBadMagic, "{}: not an ELF file (starts with {:02x} {:02x} {:02x} {:02x})", what, id[0],
                       id[1], id[2], id[3]);
  if (id[4] == 2)
    return Error::make(Errc::kUnsupported, "{}: a 64-bit ELF file (ELFCLASS64): lockstep runs 32-bit (i386) code", what);
  if (id[4] != 1) return Error::make(Errc::kMalformed, "{}: ELF class {} is neither 32- nor 64-bit", what, id[4]);
  if (id[5] != 1) return Error::make(Errc::kUnsupported, "{}: a big-endian ELF file", what);
  LOCKSTEP_TRY(auto h, r.slice(0, 52, "ELF header"));
  const std::uint16_t type = le16(h, 16), machine = le16(h, 18);
  if (machine != kEm386) return Error::make(Errc::kUnsupported, "{}: ELF machine {} is not i386 (3)", what, machine);
  if (type == kEtDyn)
    return Error::make(Errc::kUnsupported,
                       "{}: a position-independent executable or shared object (ET_DYN): lockstep maps code at its "
                       "link address and never relocates; snapshot the running process instead (lockstep snapshot "
                       "--pid, or a core file)", what);
  if (type == kEtRel)
    return Error::make(Errc::kUnsupported, "{}: an object file (ET_REL), not linked: link it into an executable", what);
  if (type == kEtCore)
    return Error::make(Errc::kUnsupported, "{}: a core file (ET_CORE): read it as a snapshot, not as an executable", what);
  if (type != kEtExec)
    return Error::make(Errc::kUnsupported, "{}: ELF type {} is not an executable (ET_EXEC = 2)", what, type);

  ElfExecutable exe;
  exe.what = std::string(what);
  exe.entry = le32(h, 24);
  const std::uint32_t phoff = le32(h, 28);
  const std::uint16_t phentsize = le16(h, 42), phnum = le16(h, 44);
  if (phentsize != 32)
    return Error::make(Errc::kMalformed, "{}: program header size {} (an ELF32 Phdr is 32 bytes)", what, phentsize);
  if (phnum > limits.max_program_headers)
    return Error::make(Errc::kLimit, "{}: {} program headers, past the limit of {}", what, phnum,
                       limits.max_program_headers);
  LOCKSTEP_TRY(auto ph, r.slice(phoff, std::uint64_t{phnum} * 32, "program headers"));
  std::uint64_t mapped = 0;
  for (std::uint32_t i = 0; i < phnum; ++i) {
    auto p = ph.subspan(std::size_t{i} * 32, 32);
    const std::uint32_t ptype = le32(p, 0);
    if (ptype == kPtInterp) exe.dynamic = true;
    if (ptype != kPtLoad) continue;
    ElfLoadSegment s{le32(p, 8), le32(p, 20), le32(p, 16), le32(p, 4), prot_from_pflags(le32(p, 24))};
    if (s.filesz > s.memsz)
      return Error::make(Errc::kMalformed, "{}: PT_LOAD {} at 0x{:x}: p_filesz 0x{:x} > p_memsz 0x{:x}", what, i, s.vaddr,
                         s.filesz, s.memsz);
    if (std::uint64_t{s.vaddr} + s.memsz > readers::kAddressSpaceEnd)
      return Error::make(Errc::kMalformed, "{}: PT_LOAD {} at 0x{:x}, 0x{:x} bytes, wraps past 4 GiB", what, i, s.vaddr,
                         s.memsz);
    if (std::uint64_t{s.offset} + s.filesz > bytes.size())
      return Error::make(Errc::kTruncated, "{}: PT_LOAD {} at 0x{:x}: its 0x{:x} file bytes from offset 0x{:x} run past "
                         "the file's 0x{:x}", what, i, s.vaddr, s.filesz, s.offset, bytes.size());
    mapped += page_up(std::uint64_t{s.vaddr} + s.memsz) - page_down(s.vaddr);
    if (mapped > limits.max_mapped_bytes)
      return Error::make(Errc::kLimit, "{}: PT_LOAD segments map more than {} bytes", what, limits.max_mapped_bytes);
    if (s.memsz) exe.segments.push_back(s);
  }
  if (exe.segments.empty()) return Error::make(Errc::kMalformed, "{}: no PT_LOAD segment: nothing to map", what);
  std::sort(exe.segments.begin(), exe.segments.end(), [](const auto& a, const auto& b) { return a.vaddr < b.vaddr; });
  for (std::size_t i = 1; i < exe.segments.size(); ++i) {
    const auto &a = exe.segments[i - 1], &b = exe.segments[i];
    if (page_up(std::uint64_t{a.vaddr} + a.memsz) > page_down(b.vaddr))
      return Error::make(Errc::kMalformed, "{}: PT_LOAD segments at 0x{:x} and 0x{:x} share a page", what, a.vaddr,
                         b.vaddr);
  }
  exe.file.assign(bytes.begin(), bytes.end());
  exe.sha256 = to_hex(sha256(bytes));
  return exe;
}

Snapshot snapshot_from_elf_executable(const ElfExecutable& exe) {
  Snapshot snap;
  snap.meta.source = fmt::format("elf-exec {}", exe.what);
  snap.meta.format = "elf-exec";
  snap.meta.exe_path = exe.what;
  snap.meta.exe_sha256 = exe.sha256;
  const std::uint64_t lo = page_down(exe.segments.front().vaddr);
  const std::uint64_t hi = page_up(std::uint64_t{exe.segments.back().vaddr} + exe.segments.back().memsz);
  snap.meta.modules.push_back(Module{exe.what, static_cast<GuestAddr>(lo), static_cast<std::uint32_t>(hi - lo)});
  std::size_t n = 0;
  for (const auto& s : exe.segments) {
    // Whole pages, as the kernel maps them: the file's bytes, the rest (bss, page tails) zero.
    Region r;
    r.base = static_cast<GuestAddr>(page_down(s.vaddr));
    r.bytes.assign(page_up(std::uint64_t{s.vaddr} + s.memsz) - r.base, 0);
    std::copy_n(exe.file.begin() + s.offset, s.filesz, r.bytes.begin() + (s.vaddr - r.base));
    r.prot = s.prot;
    r.name = fmt::format("{} PT_LOAD {}", exe.what, n++);
    snap.regions.push_back(std::move(r));
  }

  const GuestAddr block = thread_block_base(exe, kElfStackSize + kElfTlsSize);
  const GuestAddr stack_high = block + kElfStackSize, tls = stack_high, tp = tls + kElfThreadPointerOffset;
  Region stack;
  stack.base = block;
  stack.bytes.assign(kElfStackSize, 0);
  stack.prot = kProtRead | kProtWrite;
  stack.name = "synthesized stack";
  snap.regions.push_back(std::move(stack));
  Region tls_block;
  tls_block.base = tls;
  tls_block.bytes.assign(kElfTlsSize, 0);
  put32(tls_block.bytes, kElfThreadPointerOffset + 0, tp);  // tcbhead_t.tcb: the thread pointer itself
  put32(tls_block.bytes, kElfThreadPointerOffset + 8, tp);  // tcbhead_t.self
  tls_block.prot = kProtRead | kProtWrite;
  tls_block.name = "synthesized TLS block";
  snap.regions.push_back(std::move(tls_block));
  snap.sort_regions();

  Thread t;
  t.tid = 1;
  t.esp = stack_high - 0x100;
  t.eip = exe.entry;
  t.cs = kElfCs;
  t.ds = t.es = t.ss = kElfDs;
  t.gs = kElfGs;
  t.gs_base = tp;
  t.x87.control = 0x037f;  // what Linux starts a process with; not the source's: the profile's word applies
  t.x87_valid = false;
  snap.threads.push_back(t);
  snap.meta.notes.push_back(fmt::format(
      "an executable alone: a synthesized thread (stack 0x{:08x}..0x{:08x}, gs base 0x{:08x} in a TLS block), no heap, "
      "nothing the program's start-up would have set", block, stack_high, tp));
  if (exe.dynamic)
    snap.meta.notes.push_back("dynamically linked (PT_INTERP): calls into shared libraries go through PLT stubs "
                              "nothing resolves, and fault there");
  return snap;
}

}  // namespace lockstep::harness
