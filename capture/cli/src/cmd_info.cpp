// lockstep info FILE: what a snapshot holds — regions (base, end, size, protection, name), threads
// (registers, selectors and their bases, x87 control/status/tag words, ST0..7, MXCSR), metadata.
// Reads any format load_snapshot() recognises.
#include <cmath>
#include <ctime>
#include <memory>

#include <fmt/ostream.h>

#include "lockstep/load/load.hpp"

#include "command.hpp"
#include "image_option.hpp"

namespace lockstep::cli {
namespace {

using harness::Snapshot;
using harness::Thread;

std::string utc(std::int64_t t) {
  if (t == 0) return "unknown";
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  if (!gmtime_r(&tt, &tm)) return fmt::format("{} (seconds since the epoch)", t);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string human_size(std::uint64_t n) {
  if (n >= (1u << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1u << 20));
  if (n >= (1u << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(n) / (1u << 10));
  return fmt::format("{} B", n);
}

/// An 80-bit extended value as "sign/exponent mantissa  value".
std::string st_text(const std::array<std::uint8_t, 10>& b) {
  std::uint64_t mant = 0;
  for (int i = 7; i >= 0; --i) mant = (mant << 8) | b[i];
  const unsigned se = b[8] | (b[9] << 8);
  const int exp = static_cast<int>(se & 0x7fff);
  const bool neg = se & 0x8000;
  std::string value;
  if (exp == 0x7fff) value = (mant << 1) == 0 ? (neg ? "-inf" : "inf") : "nan";
  else if (exp == 0 && mant == 0) value = neg ? "-0" : "0";
  else value = fmt::format("{:.17g}", (neg ? -1.0 : 1.0) * std::ldexp(static_cast<double>(mant), exp - 16383 - 63));
  return fmt::format("{:04x} {:016x}  {}", se, mant, value);
}

void print_thread(std::ostream& out, const Thread& t, bool first) {
  fmt::print(out, "  thread {}{}\n", t.tid, first ? " (calls run on this one by default)" : "");
  fmt::print(out, "    eax 0x{:08x}  ebx 0x{:08x}  ecx 0x{:08x}  edx 0x{:08x}\n", t.eax, t.ebx, t.ecx, t.edx);
  fmt::print(out, "    esi 0x{:08x}  edi 0x{:08x}  ebp 0x{:08x}  esp 0x{:08x}\n", t.esi, t.edi, t.ebp, t.esp);
  fmt::print(out, "    eip 0x{:08x}  eflags 0x{:08x}\n", t.eip, t.eflags);
  fmt::print(out, "    cs 0x{:04x}  ds 0x{:04x}  es 0x{:04x}  fs 0x{:04x}  gs 0x{:04x}  ss 0x{:04x}\n", t.cs, t.ds,
             t.es, t.fs, t.gs, t.ss);
  fmt::print(out, "    fs_base 0x{:08x}  gs_base 0x{:08x}\n", t.fs_base, t.gs_base);
  const auto& x = t.x87;
  fmt::print(out, "    x87 control 0x{:04x}  status 0x{:04x}  tag 0x{:04x}  mxcsr 0x{:08x}{}\n", x.control, x.status,
             x.tag, x.mxcsr, t.x87_valid ? "" : "  (not in the source: defaults)");
  const int top = (x.status >> 11) & 7;
  static constexpr const char* kTag[] = {"valid", "zero", "special", "empty"};
  for (int i = 0; i < 8; ++i) {
    const int phys = (top + i) & 7;
    const int tag = (x.tag >> (2 * phys)) & 3;
    fmt::print(out, "      st{} {:<7} {}\n", i, kTag[tag], st_text(x.st[i]));
  }
}

void print_snapshot(std::ostream& out, const std::string& path, const Snapshot& s) {
  fmt::print(out, "{}: {} snapshot, from {}\n", path, s.meta.format.empty() ? "unknown" : s.meta.format,
             s.meta.source.empty() ? "unknown" : s.meta.source);
  fmt::print(out, "created     {}\n", utc(s.meta.created_unix));
  fmt::print(out, "executable  {}{}\n", s.meta.exe_path.empty() ? "unknown" : s.meta.exe_path,
             s.meta.exe_sha256.empty() ? "" : "\n            sha256 " + s.meta.exe_sha256);
  fmt::print(out, "regions     {}, {} ({} bytes)\n", s.regions.size(), human_size(s.total_bytes()), s.total_bytes());
  fmt::print(out, "  {:>4}  {:<10} {:<10} {:>10}  {:<4} {}\n", "#", "base", "end", "size", "prot", "name");
  for (std::size_t i = 0; i < s.regions.size(); ++i) {
    const auto& r = s.regions[i];
    fmt::print(out, "  {:>4}  0x{:08x} 0x{:08x} {:>10}  {:<4} {}\n", i, r.base, r.end(), fmt::format("0x{:x}", r.bytes.size()),
               harness::prot_string(r.prot), r.name);
  }
  fmt::print(out, "threads     {}\n", s.threads.size());
  for (std::size_t i = 0; i < s.threads.size(); ++i) print_thread(out, s.threads[i], i == 0);
  if (!s.ldt.empty()) {
    fmt::print(out, "ldt         {} entries\n", s.ldt.size());
    for (const auto& e : s.ldt)
      fmt::print(out, "  entry {:>4} (selector 0x{:04x})  base 0x{:08x}  limit 0x{:08x}  access 0x{:02x}  flags 0x{:x}\n",
                 e.index, (e.index << 3) | 7, e.base, e.byte_limit(), e.access, e.flags);
  }
  fmt::print(out, "modules     {}\n", s.meta.modules.size());
  for (const auto& m : s.meta.modules) fmt::print(out, "  0x{:08x} 0x{:08x}  {}\n", m.base, m.size, m.name);
  fmt::print(out, "notes       {}\n", s.meta.notes.size());
  for (const auto& n : s.meta.notes) fmt::print(out, "  {}\n", n);
}

Action setup_info(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto path = std::make_shared<std::string>();
  app.add_option("file", *path, "A snapshot: lockstep's own file (or any format lockstep reads)")->required();
  auto image = add_image_option(app);
  return [path, image](Io& io) -> Result<int> {
    auto snap = load_snapshot_with_image(*path, *image, io);
    if (!snap.ok()) return snap.error();
    print_snapshot(io.out, *path, *snap);
    return kExitOk;
  };
}

}  // namespace

Command info_command() {
  return {"info", "Show what a snapshot holds: regions, threads and registers, metadata", setup_info};
}

}  // namespace lockstep::cli
