// `lockstep call` through the same entry point as the executable.
#include <gtest/gtest.h>

#include <sstream>

#include "fixture.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/load/load.hpp"

namespace lockstep::harness::test {
namespace {

struct Files {
  std::filesystem::path dir, snapshot, profile;
};

Files write_files(const std::string& code) {
  Files f;
  f.dir = std::filesystem::path(LOCKSTEP_BINARY_DIR) / "tests" / "machine" / ("cli-call-" + std::to_string(::getpid()));
  std::filesystem::create_directories(f.dir);
  f.snapshot = f.dir / "s.lks";
  f.profile = f.dir / "p.toml";
  EXPECT_TRUE(save_snapshot(make_snapshot(assemble(code)), f.snapshot).ok());
  EXPECT_TRUE(write_file_atomic(f.profile, R"(
[profile]
name = "test"
[[function]]
address = 0x401000
name = "demo::bump"
convention = "watcom"
args = ["rec:ptr", "by:u32"]
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
)").ok());
  return f;
}

int call(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::ostringstream o, e;
  const int rc = cli::run(args, cli::Io{o, e}, /*bindings: these commands run no port*/ {});
  out = o.str();
  err = e.str();
  return rc;
}

// Numbers on the command line are parsed strictly: what used to wrap into "no limit" or another
// function is a usage error (2); --timeout stops a call that loops within its block budget (3).
TEST(CliCall, NumericOptionsAreStrictAndTheWallClockIsLimited) {
  Files f = write_files(R"(
  spin:
    jmp spin)");
  std::string out, err;
  for (const char* bad : {"-1", "-1000", "18446744073709551616", "1e23", ""}) {
    const int rc = call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--budget",
                         bad},
                        out, err);
    EXPECT_EQ(rc, 2) << "--budget '" << bad << "': " << err;
  }
  EXPECT_EQ(call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "-1"}, out, err), 2) << err;
  EXPECT_EQ(call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--timeout",
                  "-5"},
                 out, err),
            2)
      << err;
  EXPECT_EQ(call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--thread", "-1"},
                 out, err),
            2)
      << err;
  // An --arg or --poke address past 4 GiB is refused, not wrapped to a low address.
  EXPECT_EQ(call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--poke",
                  "rec[3]+0xffffffff=00"},
                 out, err),
            2)
      << err;
  // An endless loop, no block budget: the wall clock stops it after a second.
  const int rc = call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--budget",
                       "0", "--timeout", "1", "--json"},
                      out, err);
  EXPECT_EQ(rc, 3) << out << err;
  EXPECT_NE(out.find("\"kind\": \"timeout\""), std::string::npos) << out;
}

TEST(CliCall, PrintsEffectsByLabelAndFaultsExitThree) {
  // bump: rec->counter += by, returns the new value; with by = 0 it reads address 0 (a fault).
  Files f = write_files(R"(
    test edx, edx
    jz crash
    add [eax+4], edx
    mov eax, [eax+4]
    ret
  crash:
    mov eax, [0]
    ret)");
  std::string out, err;
  int rc = call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--arg", "rec[2]",
                 "--arg", "0x10", "--poke", "rec[2]+4=01000000"},
                out, err);
  EXPECT_EQ(rc, 0) << out << err;
  EXPECT_NE(out.find("eax = 0x00000011"), std::string::npos) << out;
  EXPECT_NE(out.find("rec[2]+0x4 counter: 01 00 00 00"), std::string::npos) << out;  // input (poked)
  EXPECT_NE(out.find("rec[2]+0x4 counter: 11 00 00 00"), std::string::npos) << out;  // output
  rc = call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "0x401000", "--arg", "rec[1]",
             "--arg", "0", "--json"},
            out, err);
  EXPECT_EQ(rc, 3) << out << err;
  EXPECT_NE(out.find("\"kind\": \"read-unmapped\""), std::string::npos) << out;
  rc = call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::nope"}, out, err);
  EXPECT_EQ(rc, 2) << err;
  EXPECT_NE(err.find("demo::nope"), std::string::npos) << err;
  rc = call({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--arg", "rec[9]"}, out, err);
  EXPECT_EQ(rc, 2) << err;
  std::filesystem::remove_all(f.dir);
}

}  // namespace
}  // namespace lockstep::harness::test
