// What the hostile-input tests run on: a hand-made snapshot with one small function (demo::bump at
// 0x401000: rec->counter += by, returns it; by = 0 reads address 0, a fault), its profile with a
// [[driver]] on CTRL records, a two-record state log, call lists, a corpus captured from them, its
// replay report, and a port of demo::bump written from that description (not from the capture).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "fixture.hpp"  // tests/machine: nasm, make_snapshot
#include "lockstep/base/io.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/load/load.hpp"

namespace lockstep::test {

namespace fs = std::filesystem;

struct Ran {
  int code = 0;
  std::string out, err;
};

/// One command line through the same entry point as the executable.
inline Ran run_cli(const std::vector<std::string>& args, const cases::BindingSet& bindings = {}) {
  std::ostringstream o, e;
  Ran r;
  r.code = cli::run(args, cli::Io{o, e}, bindings);
  r.out = o.str();
  r.err = e.str();
  return r;
}

inline std::string text_of(const fs::path& p) {
  auto r = read_file(p);
  return r.ok() ? std::string(r->begin(), r->end()) : std::string("<unreadable: ") + r.error().message + ">";
}

inline void write_text(const fs::path& p, const std::string& text) {
  ASSERT_TRUE(write_file_atomic(p, text).ok()) << p;
}

inline constexpr harness::GuestAddr kBump = 0x401000;

/// demo::bump's port: rec (eax) +4 += by (edx); eax = the new value. A `wrong` port adds one more.
inline cases::BindingSet bump_port(bool wrong = false) {
  cases::Binding b;
  b.address = kBump;
  b.name = "demo::bump";
  b.run = [wrong](const cases::Case& c) {
    cases::PortEffects fx;
    const std::uint32_t at = c.in.eax + 4;
    std::uint32_t v = 0;
    for (std::uint32_t i = 0; i < 4; ++i) {
      auto byte = c.inputs.get(at + i);
      if (!byte) {
        fx.error = "the case holds no input byte of rec->counter";
        return fx;
      }
      v |= std::uint32_t{*byte} << (8 * i);
    }
    v += c.in.edx + (wrong ? 1 : 0);
    for (std::uint32_t i = 0; i < 4; ++i) fx.writes.set(at + i, static_cast<std::uint8_t>(v >> (8 * i)));
    fx.eax = v;
    return fx;
  };
  return {b};
}

inline std::string bump_profile(const std::string& extra = "", const std::string& record = "CTRL") {
  return R"([profile]
name = "hostile"
[[function]]
address = 0x401000
name = "demo::bump"
args = ["rec:ptr", "by:u32"]
convention = "watcom"
returns = "eax"
[[struct]]
name = "rec"
size = 0x10
fields = [ { offset = 4, size = 4, name = "counter" } ]
[[instance]]
name = "rec"
struct = "rec"
base = 0x600100
count = 4
[[driver]]
name = "bump"
function = "demo::bump"
args = ["rec", 1]
record = ")" + record + R"("
compare = "PHYS"
)" + extra;
}

/// The files of one test, in a folder of their own under the build tree.
struct HostileFiles {
  fs::path dir, snapshot, profile, calls, calls2, faulting_calls, steplog, corpus, corpus2, report, report2;

  explicit HostileFiles(const std::string& name) {
    dir = fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "cli" / (name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    snapshot = dir / "s.lks";
    profile = dir / "p.toml";
    calls = dir / "calls.toml";
    calls2 = dir / "calls2.toml";
    faulting_calls = dir / "faulting.toml";
    steplog = dir / "steps.log";
    corpus = dir / "C";
    corpus2 = dir / "C2";
    report = dir / "R.json";
    report2 = dir / "R2.json";
    const auto code = harness::test::assemble(R"(
    test edx, edx
    jz crash
    add [eax+4], edx
    mov eax, [eax+4]
    ret
  crash:
    mov eax, [0]
    ret)");
    EXPECT_TRUE(harness::save_snapshot(harness::test::make_snapshot(code), snapshot).ok());
    write_text(profile, bump_profile());
    write_text(calls, "[[call]]\nfunction = \"demo::bump\"\nargs = [\"rec[1]\", 2]\n");
    write_text(calls2, "[[call]]\nfunction = \"demo::bump\"\nargs = [\"rec[2]\", 3]\nrepeat = 2\n");
    write_text(faulting_calls, "[[call]]\nfunction = \"demo::bump\"\nargs = [\"rec[1]\", 0]\n");
    // One car step of instance 0: rec[0]->counter 5 before (CTRL), 6 after (PHYS), as the driver's by = 1 makes it.
    capture::StateLog log;
    log.header.producer = "hostile-test";
    log.records.push_back({capture::RecordKind::kStep, 0, -1, -1, {}});
    log.records.push_back({capture::RecordKind::kCtrl, 0, 0, -1, {{0x600104, {5, 0, 0, 0}}}});
    log.records.push_back({capture::RecordKind::kPhys, 0, 0, -1, {{0x600104, {6, 0, 0, 0}}}});
    const auto bytes = capture::encode_state_log(log);
    EXPECT_TRUE(write_file_atomic(steplog, bytes).ok());
    Ran c = run_cli({"capture", snapshot.string(), "--calls", calls.string(), "--profile", profile.string(), "-o",
                     corpus.string()});
    EXPECT_EQ(c.code, 0) << c.out << c.err;
    c = run_cli({"capture", snapshot.string(), "--calls", calls2.string(), "--profile", profile.string(), "-o",
                 corpus2.string()});
    EXPECT_EQ(c.code, 0) << c.out << c.err;
    c = run_cli({"replay", corpus.string(), "--json", report.string()}, bump_port());
    EXPECT_EQ(c.code, 0) << c.out << c.err;
    c = run_cli({"replay", corpus2.string(), "--json", report2.string()}, bump_port());
    EXPECT_EQ(c.code, 0) << c.out << c.err;
  }
  ~HostileFiles() {
    std::error_code ec;
    if (!::testing::Test::HasFailure()) fs::remove_all(dir, ec);
  }
  HostileFiles(const HostileFiles&) = delete;
  HostileFiles& operator=(const HostileFiles&) = delete;
};

}  // namespace lockstep::test
