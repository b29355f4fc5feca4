// The command line on real-world inputs: `lockstep snapshot --from FILE -o OUT` (format from the
// magic), `lockstep info FILE` and `--image EXE`, through the same entry point as the executable.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <unistd.h>

#include "builders.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/load/load.hpp"

namespace lockstep::cli {
namespace {

struct CliRun {
  int code = -1;
  std::string out, err;
};

CliRun run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CliRun r;
  r.code = run(args, Io{out, err}, /*bindings: these commands run no port*/ {});
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::filesystem::path tmp(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("lockstep_cli_readers_" + std::to_string(::getpid()) + "_" + name);
}

void write(const std::filesystem::path& p, const testing::Bytes& b) { ASSERT_TRUE(write_file_atomic(p, b).ok()); }

TEST(CliReaders, SnapshotFromMinidumpAndCoreAndImage) {
  testing::MinidumpBuilder md;
  testing::MinidumpBuilder::Thread t;
  t.tid = 0x44;
  t.ctx.eip = 0x401000;
  md.threads.push_back(t);
  md.memory.push_back({0x401000, testing::pattern(0x100, 1)});
  testing::ElfCoreBuilder core;
  core.prstatus(9, {});
  core.loads.push_back({0x1000, 0x1000, 6, testing::pattern(0x1000, 2)});
  const std::vector<std::pair<std::string, testing::Bytes>> inputs = {
      {"in.dmp", md.build()}, {"in.core", core.build()}, {"in.exe", testing::PeBuilder{}.build()}};
  for (const auto& [name, bytes] : inputs) {
    SCOPED_TRACE(name);
    const auto in = tmp(name), out = tmp(name + ".lks");
    write(in, bytes);
    CliRun r = run_cli({"snapshot", "--from", in.string(), "-o", out.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    auto direct = harness::load_snapshot(in);
    auto saved = harness::load_snapshot(out);
    ASSERT_TRUE(direct.ok()) << direct.error().message;
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    EXPECT_EQ(saved->meta.format, direct->meta.format);
    ASSERT_EQ(saved->regions.size(), direct->regions.size());
    for (std::size_t i = 0; i < saved->regions.size(); ++i) EXPECT_EQ(saved->regions[i].bytes, direct->regions[i].bytes);
    EXPECT_EQ(saved->threads.size(), direct->threads.size());
    CliRun info = run_cli({"info", in.string()});
    EXPECT_EQ(info.code, 0) << info.err;
    EXPECT_NE(info.out.find(direct->meta.format + " snapshot"), std::string::npos) << info.out;
    std::filesystem::remove(in);
    std::filesystem::remove(out);
  }
}

TEST(CliReaders, ImageOptionRestoresCodeAndReportsIt) {
  // A "process" snapshot: the image with its code patched, then --image restores it.
  const auto exe = tmp("game.exe"), dmp = tmp("game.dmp"), out = tmp("game.lks");
  const testing::Bytes image = testing::PeBuilder{}.build();
  write(exe, image);
  testing::MinidumpBuilder md;
  md.memory.push_back({0x401000, testing::Bytes{0xCC, 0xC2, 0xC3}});  // int3 over `mov eax, edx`
  md.modules.push_back({0x400000, 0x3000, "C:\\games\\" + exe.filename().string()});
  write(dmp, md.build());
  CliRun r = run_cli({"snapshot", "--from", dmp.string(), "--image", exe.string(), "-o", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("0x00401000 +0x1 .text restored"), std::string::npos) << r.err;
  auto s = harness::load_snapshot(out);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s->read(0x401000, 3), (std::vector<std::uint8_t>{0x8B, 0xC2, 0xC3}));
  // The module at another base: a usage-level error naming both bases, exit code 2, no output file.
  md.modules[0].base = 0x10000000;
  write(dmp, md.build());
  std::filesystem::remove(out);
  r = run_cli({"info", dmp.string(), "--image", exe.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("0x10000000"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0x00400000"), std::string::npos) << r.err;
  r = run_cli({"snapshot", "--from", dmp.string(), "--image", exe.string(), "-o", out.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove(exe);
  std::filesystem::remove(dmp);
}

TEST(CliReaders, TruncatedMinidumpIsBadInput) {
  const auto dmp = tmp("cut.dmp");
  testing::Bytes b = testing::MinidumpBuilder{}.build();
  b.resize(20);
  write(dmp, b);
  CliRun r = run_cli({"info", dmp.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("cut.dmp"), std::string::npos) << r.err;
  std::filesystem::remove(dmp);
}

}  // namespace
}  // namespace lockstep::cli
