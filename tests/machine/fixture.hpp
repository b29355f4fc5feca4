// Test helpers: a small hand-made snapshot (code, data, stack, a TLS block) and nasm-assembled code.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "lockstep/base/io.hpp"
#include "lockstep/machine/machine.hpp"

namespace lockstep::harness::test {

inline constexpr GuestAddr kCode = 0x00401000;   // r-x, 0x2000 bytes
inline constexpr GuestAddr kData = 0x00600000;   // rw-, 0x3000 bytes
inline constexpr GuestAddr kTls = 0x00700000;    // rw-, 0x1000 bytes (gs base / fs base)
inline constexpr GuestAddr kStack = 0x7ff00000;  // rw-, 0x10000 bytes
inline constexpr GuestAddr kEsp = kStack + 0xf000;

/// Assembles 32-bit code at `org` with nasm (installed with the build tools). Fails the test when
/// nasm rejects the source.
inline std::vector<std::uint8_t> assemble(const std::string& source, GuestAddr org = kCode) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lockstep-nasm-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  const auto src = dir / "code.asm", out = dir / "code.bin", err = dir / "err.txt";
  {
    std::ofstream f(src);
    f << "bits 32\norg 0x" << std::hex << org << "\n" << source << "\n";
  }
  const std::string cmd = "nasm -f bin -o '" + out.string() + "' '" + src.string() + "' 2> '" + err.string() + "'";
  const int rc = std::system(cmd.c_str());
  std::vector<std::uint8_t> bytes;
  if (rc == 0) {
    auto r = read_file(out);
    if (r.ok()) bytes = std::move(*r);
    else ADD_FAILURE() << r.error().message;
  } else {
    auto r = read_file(err);
    const std::string msg = r.ok() ? std::string(r->begin(), r->end()) : std::string("(no message)");
    ADD_FAILURE() << "nasm failed: " << msg << "\n" << source;
  }
  std::filesystem::remove_all(dir);
  return bytes;
}

/// A snapshot with code at kCode (the assembled bytes), zeroed data at kData, a TLS block at kTls
/// and a stack; one thread with Linux i386 selectors (gs = TLS) unless `windows` (fs = TEB).
inline Snapshot make_snapshot(const std::vector<std::uint8_t>& code, bool windows = false) {
  Snapshot s;
  Region c;
  c.base = kCode;
  c.bytes.assign(0x2000, 0xcc);
  std::memcpy(c.bytes.data(), code.data(), std::min<std::size_t>(code.size(), c.bytes.size()));
  c.prot = kProtRead | kProtExec;
  c.name = "code";
  Region d;
  d.base = kData;
  d.bytes.assign(0x3000, 0);
  for (std::size_t i = 0; i < d.bytes.size(); ++i) d.bytes[i] = static_cast<std::uint8_t>(i * 7 + 1);
  d.prot = kProtRead | kProtWrite;
  d.name = "data";
  Region t;
  t.base = kTls;
  t.bytes.assign(0x1000, 0);
  for (std::size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<std::uint8_t>(0x80 + i);
  t.name = "tls";
  Region st;
  st.base = kStack;
  st.bytes.assign(0x10000, 0x5a);
  st.name = "[stack]";
  s.regions = {c, d, t, st};
  Thread th;
  th.tid = 1;
  th.esp = kEsp;
  th.ebp = kEsp + 0x40;
  th.eax = 0xaaaa0001;
  th.ebx = 0xbbbb0002;
  th.ecx = 0xcccc0003;
  th.edx = 0xdddd0004;
  th.esi = 0x51510005;
  th.edi = 0xd1d10006;
  if (windows) {
    th.cs = 0x1b; th.ds = th.es = th.ss = 0x23; th.fs = 0x3b; th.gs = 0; th.fs_base = kTls;
  } else {
    th.cs = 0x23; th.ds = th.es = th.ss = 0x2b; th.fs = 0; th.gs = 0x63; th.gs_base = kTls;
  }
  s.threads = {th};
  return s;
}

inline std::vector<std::uint8_t> bytes_of(const ByteRun& r) { return r.bytes; }

/// The bytes recorded at [a, a+n) in a list of runs (empty when any is missing).
inline std::vector<std::uint8_t> find_bytes(const std::vector<ByteRun>& runs, GuestAddr a, std::uint32_t n) {
  std::vector<std::uint8_t> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    bool found = false;
    for (const ByteRun& r : runs)
      if (a + i >= r.addr && a + i < r.end()) {
        out.push_back(r.bytes[a + i - r.addr]);
        found = true;
        break;
      }
    if (!found) return {};
  }
  return out;
}

inline std::vector<std::uint8_t> le32(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v >> 16),
          static_cast<std::uint8_t>(v >> 24)};
}

inline CallSpec watcom_call(GuestAddr fn, std::vector<Arg> args = {}, ReturnKind ret = ReturnKind::kEax) {
  CallSpec s;
  s.function = fn;
  s.convention.kind = Convention::kWatcom;
  s.args = std::move(args);
  s.returns = ret;
  return s;
}

}  // namespace lockstep::harness::test
