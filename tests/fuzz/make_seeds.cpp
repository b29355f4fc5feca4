// Writes the fuzz seed corpus (tests/fuzz/corpus/<reader>/) from the test builders: small valid files
// that reach every stream, note and table the readers know. Run by `scripts/fuzz --seeds`.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "builders.hpp"

namespace t = lockstep::testing;

namespace {

void write(const std::filesystem::path& dir, const std::string& name, const t::Bytes& b) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                                    static_cast<std::streamsize>(b.size()));
  std::printf("%s/%s (%zu bytes)\n", dir.c_str(), name.c_str(), b.size());
}

t::MinidumpBuilder::Thread thread(std::uint32_t tid, std::uint32_t teb, std::uint32_t flags) {
  t::MinidumpBuilder::Thread th;
  th.tid = tid;
  th.teb = teb;
  th.ctx.flags = flags;
  th.ctx.esp = 0x130100;
  th.ctx.eip = 0x401000;
  th.ctx.fsw = 0x3800;
  th.ctx.ftw_full = 0x3fff;
  th.ctx.st[7] = 0x80;
  th.ctx.st[9] = 0x3f;
  th.stack_base = 0x130000;
  th.stack = t::pattern(0x200, static_cast<std::uint8_t>(tid));
  return th;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root = argv[1];
  {  // minidumps
    t::MinidumpBuilder full;  // Windows-style: MemoryList, MemoryInfoList, full contexts, modules
    full.threads.push_back(thread(0x10, 0x7ffdf000, 0x1003f));
    full.memory.push_back({0x401000, t::pattern(0x100, 1)});
    t::Bytes teb(0x40, 0);
    t::put32(teb, 0x18, 0x7ffdf000);
    full.memory.push_back({0x7ffdf000, teb});
    full.info.push_back({0x400000, 0x2000, 0x1000, 0x20});
    full.info.push_back({0x130000, 0x1000, 0x1000, 0x04});
    full.modules.push_back({0x400000, 0x2000, "C:\\pod\\WINPOD.EXE"});
    full.extra_streams.push_back({15, t::Bytes(24, 1)});
    write(root / "minidump", "windows.dmp", full.build());

    t::MinidumpBuilder wine;  // Wine-style: Memory64List, CONTEXT_FULL, 0xFFF0, padded directory
    wine.wine = true;
    wine.unused_entries = 2;
    wine.threads.push_back(thread(0x20, 0x7ffdd000, 0x10007));
    wine.memory64.push_back({0x400000, t::pattern(0x180, 2)});
    wine.memory64.push_back({0x7ffdd000, t::Bytes(0x20, 0)});
    wine.modules.push_back({0x400000, 0x1000, "WINPOD.EXE"});
    wine.wine_modules.push_back({0xf7000000, 0x1000, "/usr/lib/wine/ntdll.so"});
    write(root / "minidump", "wine.dmp", wine.build());

    t::MinidumpBuilder padded;  // lists with the 4 padding bytes, an FPU-only context, an unknown stream
    padded.pad_lists = true;
    padded.threads.push_back(thread(0x30, 0, 0x10008));
    padded.memory.push_back({0x1000, t::Bytes(0x40, 0xAA)});
    padded.memory.push_back({0x1020, t::Bytes(0x40, 0xBB)});
    padded.modules.push_back({0x400000, 0x1000, "a.exe"});
    padded.extra_streams.push_back({0x47670001, t::Bytes(12, 0)});
    write(root / "minidump", "padded.dmp", padded.build());
  }
  {  // ELF cores
    t::ElfCoreBuilder kernel;
    t::ElfCoreBuilder::Regs r;
    r.esp = 0x130f00;
    r.eip = 0x8049000;
    kernel.prstatus(100, r);
    std::array<std::array<std::uint8_t, 10>, 8> st{};
    st[0] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};
    kernel.fsave(0x037f, 0x3800, 0x3fff, st);
    kernel.fxsave(0x037f, 0x3800, 0x80, 0x1f80, st);
    kernel.tls({{12, 0x804c000}, {13, 0}, {14, 0}});
    kernel.prstatus(101, r);
    kernel.fxsave(0x027f, 0, 0, 0x1f80, st, true, 1);
    kernel.file({{0x8048000, 0x804a000, 0, "/nonexistent/a.out"}, {0x804a000, 0x804b000, 2, "/nonexistent/a.out"}});
    kernel.loads.push_back({0x8048000, 0x2000, 5, t::pattern(0x100, 3)});
    kernel.loads.push_back({0x130000, 0x1000, 6, t::pattern(0x100, 4)});
    kernel.loads.push_back({0x10000000, 0x10000, 0, {}});
    write(root / "elf_core", "kernel.core", kernel.build());

    t::ElfCoreBuilder gcore;  // one thread, XSTATE only, no TLS
    gcore.prstatus(7, r);
    gcore.fxsave(0x027f, 0, 0, 0x1f80, st, true, 3);
    gcore.loads.push_back({0x1000, 0x1000, 6, t::pattern(0x80, 5)});
    gcore.notes.push_back({"CORE", 3, t::Bytes(124, 0x41)});
    write(root / "elf_core", "gcore.core", gcore.build());
  }
  {  // PE32
    write(root / "pe32", "imports.exe", t::PeBuilder{}.build());
    t::PeBuilder noimp;
    noimp.imports.clear();
    write(root / "pe32", "noimports.exe", noimp.build());
  }
  return 0;
}
