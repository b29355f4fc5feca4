// Small writers of minidumps and i386 ELF cores for tests and for the fuzz seed corpus
// (tests/fuzz/make_seeds.cpp). Written from the formats' public definitions (breakpad's
// minidump_format.h, Linux's elf.h, the PE specification),
// independently of the readers under test: a test builds a file with known contents and checks that
// the reader gives those contents back.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace lockstep::testing {

using Bytes = std::vector<std::uint8_t>;

inline void put16(Bytes& b, std::size_t off, std::uint16_t v) {
  if (b.size() < off + 2) b.resize(off + 2);
  b[off] = v & 0xFF;
  b[off + 1] = v >> 8;
}
inline void put32(Bytes& b, std::size_t off, std::uint32_t v) {
  if (b.size() < off + 4) b.resize(off + 4);
  for (int i = 0; i < 4; ++i) b[off + i] = (v >> (8 * i)) & 0xFF;
}
inline void put64(Bytes& b, std::size_t off, std::uint64_t v) {
  put32(b, off, static_cast<std::uint32_t>(v));
  put32(b, off + 4, static_cast<std::uint32_t>(v >> 32));
}
inline std::size_t append(Bytes& b, const Bytes& more) {
  const std::size_t at = b.size();
  b.insert(b.end(), more.begin(), more.end());
  return at;
}
inline Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

// ---------------------------------------------------------------------------------------------------
// Minidump

/// An x86 CONTEXT's fields (MS layout, 0x2CC bytes).
struct X86Context {
  std::uint32_t flags = 0x1003f;  // CONTEXT_ALL without debug registers: CONTROL|INTEGER|SEGMENTS|FP|EXTENDED + 0x10
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0, esi = 0, edi = 0, ebp = 0, esp = 0, eip = 0, eflags = 0x246;
  std::uint32_t cs = 0x1b, ds = 0x23, es = 0x23, fs = 0x3b, gs = 0, ss = 0x23;
  std::uint16_t fcw = 0x027f, fsw = 0, ftw_full = 0xffff;
  std::uint32_t mxcsr = 0x1f80;
  std::array<std::uint8_t, 80> st{};
  std::uint32_t size = 0x2CC;

  Bytes bytes() const {
    Bytes b(size < 0xCC ? 0xCC : size, 0);
    put32(b, 0x00, flags);
    put32(b, 0x1C, fcw);
    put32(b, 0x20, fsw);
    put32(b, 0x24, ftw_full);
    std::memcpy(&b[0x38], st.data(), 80);
    put32(b, 0x8C, gs);
    put32(b, 0x90, fs);
    put32(b, 0x94, es);
    put32(b, 0x98, ds);
    put32(b, 0x9C, edi);
    put32(b, 0xA0, esi);
    put32(b, 0xA4, ebx);
    put32(b, 0xA8, edx);
    put32(b, 0xAC, ecx);
    put32(b, 0xB0, eax);
    put32(b, 0xB4, ebp);
    put32(b, 0xB8, eip);
    put32(b, 0xBC, cs);
    put32(b, 0xC0, eflags);
    put32(b, 0xC4, esp);
    put32(b, 0xC8, ss);
    if (b.size() >= 0x2CC) {
      put16(b, 0xCC + 0, fcw);
      put16(b, 0xCC + 2, fsw);
      put32(b, 0xCC + 24, mxcsr);
    }
    b.resize(size);
    return b;
  }
};

class MinidumpBuilder {
 public:
  struct Thread {
    std::uint32_t tid = 0;
    std::uint64_t teb = 0;
    std::uint64_t stack_base = 0;
    Bytes stack;
    X86Context ctx;
    bool has_context = true;
  };
  struct Range {
    std::uint64_t base = 0;
    Bytes data;
  };
  struct Info {
    std::uint64_t base = 0, size = 0;
    std::uint32_t state = 0x1000, protect = 0x04;
  };
  struct Mod {
    std::uint64_t base = 0;
    std::uint32_t size = 0;
    std::string name;
  };

  std::uint16_t arch = 0;
  bool wine = false;
  bool pad_lists = false;        ///< the 4 padding bytes some writers put after a list's count
  bool system_info = true;
  std::vector<Thread> threads;
  std::vector<Range> memory, memory64;
  std::vector<Info> info;
  std::vector<Mod> modules, wine_modules;
  std::vector<std::pair<std::uint32_t, Bytes>> extra_streams;
  std::uint32_t unused_entries = 0;  ///< type-0 directory entries (Wine pads to a multiple of 4)

  Bytes build() const {
    Bytes f(32, 0);
    struct Dir {
      std::uint32_t type, size, rva;
    };
    std::vector<Dir> dir;
    auto stream = [&](std::uint32_t type, const Bytes& body) {
      dir.push_back({type, static_cast<std::uint32_t>(body.size()), static_cast<std::uint32_t>(append(f, body))});
    };
    auto list_head = [&](std::uint32_t count) {
      Bytes b;
      put32(b, 0, count);
      if (pad_lists) put32(b, 4, 0);
      return b;
    };
    auto utf16 = [&](const std::string& s) {
      Bytes b;
      put32(b, 0, static_cast<std::uint32_t>(s.size() * 2));
      for (char c : s) {
        b.push_back(static_cast<std::uint8_t>(c));
        b.push_back(0);
      }
      b.push_back(0);
      b.push_back(0);
      return static_cast<std::uint32_t>(append(f, b));
    };
    if (system_info) {
      Bytes si(56, 0);
      put16(si, 0, arch);
      put16(si, 2, 6);
      si[6] = 1;
      put32(si, 8, 10);
      if (wine) {
        for (char c : std::string("WINE")) si.push_back(static_cast<std::uint8_t>(c));
        put32(si, si.size(), 0);
      }
      stream(7, si);
    }
    if (!threads.empty()) {
      Bytes tl = list_head(static_cast<std::uint32_t>(threads.size()));
      const std::size_t base = tl.size();
      tl.resize(base + 48 * threads.size(), 0);
      for (std::size_t i = 0; i < threads.size(); ++i) {
        const Thread& t = threads[i];
        const std::size_t e = base + 48 * i;
        put32(tl, e, t.tid);
        put64(tl, e + 16, t.teb);
        put64(tl, e + 24, t.stack_base);
        put32(tl, e + 32, static_cast<std::uint32_t>(t.stack.size()));
        put32(tl, e + 36, t.stack.empty() ? 0 : static_cast<std::uint32_t>(append(f, t.stack)));
        if (t.has_context) {
          Bytes c = t.ctx.bytes();
          put32(tl, e + 40, static_cast<std::uint32_t>(c.size()));
          put32(tl, e + 44, static_cast<std::uint32_t>(append(f, c)));
        }
      }
      stream(3, tl);
    }
    auto module_stream = [&](std::uint32_t type, const std::vector<Mod>& mods) {
      if (mods.empty()) return;
      Bytes ml = list_head(static_cast<std::uint32_t>(mods.size()));
      const std::size_t base = ml.size();
      ml.resize(base + 108 * mods.size(), 0);
      for (std::size_t i = 0; i < mods.size(); ++i) {
        put64(ml, base + 108 * i, mods[i].base);
        put32(ml, base + 108 * i + 8, mods[i].size);
        put32(ml, base + 108 * i + 20, utf16(mods[i].name));
      }
      stream(type, ml);
    };
    module_stream(4, modules);
    module_stream(0xFFF0, wine_modules);
    if (!memory.empty()) {
      Bytes ml = list_head(static_cast<std::uint32_t>(memory.size()));
      const std::size_t base = ml.size();
      ml.resize(base + 16 * memory.size(), 0);
      for (std::size_t i = 0; i < memory.size(); ++i) {
        put64(ml, base + 16 * i, memory[i].base);
        put32(ml, base + 16 * i + 8, static_cast<std::uint32_t>(memory[i].data.size()));
        put32(ml, base + 16 * i + 12, static_cast<std::uint32_t>(append(f, memory[i].data)));
      }
      stream(5, ml);
    }
    if (!info.empty()) {
      Bytes il(16, 0);
      put32(il, 0, 16);
      put32(il, 4, 48);
      put64(il, 8, info.size());
      for (const auto& i : info) {
        Bytes e(48, 0);
        put64(e, 0, i.base);
        put64(e, 8, i.base);
        put32(e, 16, i.protect);
        put64(e, 24, i.size);
        put32(e, 32, i.state);
        put32(e, 36, i.protect);
        put32(e, 40, 0x20000);
        append(il, e);
      }
      stream(16, il);
    }
    for (const auto& [type, body] : extra_streams) stream(type, body);
    std::size_t m64_dir = 0;
    if (!memory64.empty()) {
      Bytes ml(16 + 16 * memory64.size(), 0);
      put64(ml, 0, memory64.size());
      for (std::size_t i = 0; i < memory64.size(); ++i) {
        put64(ml, 16 + 16 * i, memory64[i].base);
        put64(ml, 24 + 16 * i, memory64[i].data.size());
      }
      m64_dir = dir.size();
      stream(9, ml);
    }
    for (std::uint32_t i = 0; i < unused_entries; ++i) dir.push_back({0, 0, 0});
    // The Memory64List's data: all ranges back to back at the end of the file (BaseRva).
    if (!memory64.empty()) {
      const std::uint64_t base_rva = f.size();
      for (const auto& r : memory64) append(f, r.data);
      put64(f, dir[m64_dir].rva + 8, base_rva);
    }
    const std::size_t dir_rva = f.size();
    for (const auto& d : dir) {
      const std::size_t at = f.size();
      put32(f, at, d.type);
      put32(f, at + 4, d.size);
      put32(f, at + 8, d.rva);
    }
    put32(f, 0, 0x504D444D);
    put32(f, 4, 0x0000A793);
    put32(f, 8, static_cast<std::uint32_t>(dir.size()));
    put32(f, 12, static_cast<std::uint32_t>(dir_rva));
    put32(f, 20, 0x5f000000);
    return f;
  }
};

// ---------------------------------------------------------------------------------------------------
// i386 ELF core

class ElfCoreBuilder {
 public:
  struct Load {
    std::uint32_t vaddr = 0, memsz = 0, flags = 6;  // PF_R|PF_W
    Bytes data;                                      // p_filesz = data.size()
  };
  struct Note {
    std::string name;
    std::uint32_t type = 0;
    Bytes desc;
  };
  struct FileMap {
    std::uint32_t start = 0, end = 0, pgoff = 0;
    std::string path;
  };
  /// i386 user_regs_struct order.
  struct Regs {
    std::uint32_t ebx = 0, ecx = 0, edx = 0, esi = 0, edi = 0, ebp = 0, eax = 0, ds = 0x2b, es = 0x2b, fs = 0,
                  gs = 0x63, orig_eax = 0xFFFFFFFF, eip = 0, cs = 0x23, eflags = 0x246, esp = 0, ss = 0x2b;
  };

  std::vector<Load> loads;
  std::vector<Note> notes;

  void prstatus(std::uint32_t tid, const Regs& r) {
    Bytes d(144, 0);
    put32(d, 24, tid);
    const std::uint32_t v[17] = {r.ebx, r.ecx, r.edx, r.esi, r.edi, r.ebp, r.eax, r.ds, r.es,
                                 r.fs,  r.gs,  r.orig_eax, r.eip, r.cs, r.eflags, r.esp, r.ss};
    for (int i = 0; i < 17; ++i) put32(d, 72 + 4 * i, v[i]);
    notes.push_back({"CORE", 1, d});
  }
  /// NT_PRXFPREG (or, with xstate_bv, NT_X86_XSTATE) with the given x87/SSE control state.
  void fxsave(std::uint16_t fcw, std::uint16_t fsw, std::uint8_t abridged_tag, std::uint32_t mxcsr,
              const std::array<std::array<std::uint8_t, 10>, 8>& st, bool xstate = false, std::uint64_t xstate_bv = 3) {
    Bytes d(xstate ? 576 : 512, 0);
    put16(d, 0, fcw);
    put16(d, 2, fsw);
    d[4] = abridged_tag;
    put32(d, 24, mxcsr);
    for (int i = 0; i < 8; ++i) std::memcpy(&d[32 + 16 * i], st[i].data(), 10);
    if (xstate) put64(d, 512, xstate_bv);
    notes.push_back({"LINUX", xstate ? 0x202u : 0x46E62B7Fu, d});
  }
  void fsave(std::uint16_t fcw, std::uint16_t fsw, std::uint16_t ftw, const std::array<std::array<std::uint8_t, 10>, 8>& st) {
    Bytes d(108, 0);
    put32(d, 0, 0xFFFF0000u | fcw);
    put32(d, 4, 0xFFFF0000u | fsw);
    put32(d, 8, 0xFFFF0000u | ftw);
    for (int i = 0; i < 8; ++i) std::memcpy(&d[28 + 10 * i], st[i].data(), 10);
    notes.push_back({"CORE", 2, d});
  }
  void tls(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& entries) {
    Bytes d;
    for (const auto& [entry, base] : entries) {
      const std::size_t at = d.size();
      put32(d, at, entry);
      put32(d, at + 4, base);
      put32(d, at + 8, 0xFFFFF);
      put32(d, at + 12, 0x51);
    }
    notes.push_back({"LINUX", 0x200, d});
  }
  void file(const std::vector<FileMap>& maps, std::uint32_t page = 4096) {
    Bytes d;
    put32(d, 0, static_cast<std::uint32_t>(maps.size()));
    put32(d, 4, page);
    for (const auto& m : maps) {
      const std::size_t at = d.size();
      put32(d, at, m.start);
      put32(d, at + 4, m.end);
      put32(d, at + 8, m.pgoff);
    }
    for (const auto& m : maps) {
      d.insert(d.end(), m.path.begin(), m.path.end());
      d.push_back(0);
    }
    notes.push_back({"CORE", 0x46494C45, d});
  }

  Bytes build() const {
    Bytes notes_blob;
    for (const auto& n : notes) {
      const std::size_t at = notes_blob.size();
      put32(notes_blob, at, static_cast<std::uint32_t>(n.name.size() + 1));
      put32(notes_blob, at + 4, static_cast<std::uint32_t>(n.desc.size()));
      put32(notes_blob, at + 8, n.type);
      notes_blob.insert(notes_blob.end(), n.name.begin(), n.name.end());
      notes_blob.push_back(0);
      while (notes_blob.size() % 4) notes_blob.push_back(0);
      append(notes_blob, n.desc);
      while (notes_blob.size() % 4) notes_blob.push_back(0);
    }
    const std::size_t phnum = 1 + loads.size();
    Bytes f(52 + 32 * phnum, 0);
    f[0] = 0x7F;
    f[1] = 'E';
    f[2] = 'L';
    f[3] = 'F';
    f[4] = 1;  // ELFCLASS32
    f[5] = 1;  // little-endian
    f[6] = 1;
    put16(f, 16, 4);  // ET_CORE
    put16(f, 18, 3);  // EM_386
    put32(f, 20, 1);
    put32(f, 28, 52);
    put16(f, 40, 52);
    put16(f, 42, 32);
    put16(f, 44, static_cast<std::uint16_t>(phnum));
    const std::size_t note_off = append(f, notes_blob);
    std::size_t ph = 52;
    put32(f, ph, 4);  // PT_NOTE
    put32(f, ph + 4, static_cast<std::uint32_t>(note_off));
    put32(f, ph + 16, static_cast<std::uint32_t>(notes_blob.size()));
    for (const auto& l : loads) {
      ph += 32;
      const std::size_t off = append(f, l.data);
      put32(f, ph, 1);  // PT_LOAD
      put32(f, ph + 4, static_cast<std::uint32_t>(off));
      put32(f, ph + 8, l.vaddr);
      put32(f, ph + 16, static_cast<std::uint32_t>(l.data.size()));
      put32(f, ph + 20, l.memsz);
      put32(f, ph + 24, l.flags);
      put32(f, ph + 28, 4096);
    }
    return f;
  }
};

// ---------------------------------------------------------------------------------------------------
// PE32

/// A two-section i386 PE32: .text (code, read/execute) and .idata (one import descriptor per DLL,
/// read/write), SectionAlignment 0x1000, FileAlignment 0x200, ImageBase 0x400000.
struct PeBuilder {
  Bytes code = {0x8B, 0xC2, 0xC3};  // mov eax, edx; ret
  std::vector<std::pair<std::string, std::vector<std::string>>> imports = {
      {"KERNEL32.dll", {"ExitProcess", "GetTickCount"}}, {"WINMM.dll", {"timeGetTime"}}};

  static constexpr std::uint32_t kImageBase = 0x400000, kTextRva = 0x1000, kIdataRva = 0x2000;

  Bytes build() const {
    // .idata: descriptors, then per DLL an INT and an IAT, then hint/name entries and DLL names.
    Bytes idata(20 * (imports.size() + 1), 0);
    std::vector<std::size_t> int_at, iat_at;
    for (const auto& [dll, names] : imports) {
      int_at.push_back(idata.size());
      idata.resize(idata.size() + 4 * (names.size() + 1), 0);
      iat_at.push_back(idata.size());
      idata.resize(idata.size() + 4 * (names.size() + 1), 0);
    }
    for (std::size_t d = 0; d < imports.size(); ++d) {
      const auto& [dll, names] = imports[d];
      for (std::size_t i = 0; i < names.size(); ++i) {
        const std::uint32_t hn = kIdataRva + static_cast<std::uint32_t>(idata.size());
        put16(idata, idata.size(), static_cast<std::uint16_t>(i));
        idata.insert(idata.end(), names[i].begin(), names[i].end());
        idata.push_back(0);
        if (idata.size() % 2) idata.push_back(0);
        put32(idata, int_at[d] + 4 * i, hn);
        put32(idata, iat_at[d] + 4 * i, hn);
      }
      const std::uint32_t name_rva = kIdataRva + static_cast<std::uint32_t>(idata.size());
      idata.insert(idata.end(), dll.begin(), dll.end());
      idata.push_back(0);
      put32(idata, 20 * d, kIdataRva + static_cast<std::uint32_t>(int_at[d]));
      put32(idata, 20 * d + 12, name_rva);
      put32(idata, 20 * d + 16, kIdataRva + static_cast<std::uint32_t>(iat_at[d]));
    }
    auto round = [](std::size_t n) { return (n + 0x1FF) / 0x200 * 0x200; };
    const std::size_t text_off = 0x200, idata_off = text_off + round(code.size());
    Bytes f(idata_off + round(idata.size()), 0);
    put16(f, 0, 0x5A4D);  // "MZ"
    put32(f, 0x3C, 0x40);
    put32(f, 0x40, 0x00004550);
    put16(f, 0x44, 0x14C);
    put16(f, 0x46, 2);
    put16(f, 0x54, 0xE0);
    put16(f, 0x56, 0x0102);
    const std::size_t o = 0x58;
    put16(f, o, 0x10B);
    put32(f, o + 16, kTextRva);
    put32(f, o + 28, kImageBase);
    put32(f, o + 32, 0x1000);
    put32(f, o + 36, 0x200);
    put32(f, o + 56, 0x3000);
    put32(f, o + 60, 0x200);
    put32(f, o + 92, 16);
    put32(f, o + 96 + 8, kIdataRva);
    put32(f, o + 96 + 12, static_cast<std::uint32_t>(20 * (imports.size() + 1)));
    auto section = [&](std::size_t at, const char* name, std::uint32_t vsize, std::uint32_t rva, std::size_t raw,
                       std::size_t off, std::uint32_t ch) {
      std::memcpy(&f[at], name, std::strlen(name));
      put32(f, at + 8, vsize);
      put32(f, at + 12, rva);
      put32(f, at + 16, static_cast<std::uint32_t>(raw));
      put32(f, at + 20, static_cast<std::uint32_t>(off));
      put32(f, at + 36, ch);
    };
    section(o + 0xE0, ".text", static_cast<std::uint32_t>(code.size()), kTextRva, round(code.size()), text_off,
            0x60000020);
    section(o + 0xE0 + 40, ".idata", static_cast<std::uint32_t>(idata.size()), kIdataRva, round(idata.size()),
            idata_off, 0xC0000040);
    std::copy(code.begin(), code.end(), f.begin() + static_cast<std::ptrdiff_t>(text_off));
    std::copy(idata.begin(), idata.end(), f.begin() + static_cast<std::ptrdiff_t>(idata_off));
    return f;
  }
};

}  // namespace lockstep::testing
