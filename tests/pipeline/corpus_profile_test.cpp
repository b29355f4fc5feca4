// A corpus remembers the profile it was captured with (the manifest's profile_path and
// profile_sha256): `lockstep replay` names the differing bytes with it when no --profile is given,
// warns when the file changed since the capture, says so when it is missing, and reads a version 1
// manifest (no profile recorded) as before.
//
// The corpus: drive::engine's cases of the checked-in stand-in corpus with one expected byte of its
// store to car[i]+0x440 engine_speed changed (the profile's [[struct]] car), so the port mismatches
// on a byte the profile names. It is written into a temporary tree laid out like the repository
// (cases/<corpus>, harness/profiles/pod.toml).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <algorithm>

#include "lockstep/base/io.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lockstep;

constexpr std::uint32_t kEngine = 0x418010;  // drive::engine

struct CliRun {
  int rc = -1;
  std::string out, err;
};

CliRun lockstep_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CliRun r;
  r.rc = cli::run(args, cli::Io{out, err}, pod::bindings::all());
  r.out = out.str();
  r.err = err.str();
  return r;
}

class CorpusProfile : public ::testing::Test {
 protected:
  fs::path tree, corpus, profile;
  std::string profile_sha;

  void SetUp() override {
    tree = fs::temp_directory_path() / ("lockstep-corpus-profile-" + std::to_string(::getpid()));
    fs::remove_all(tree);
    fs::create_directories(tree / "harness/profiles");
    profile = tree / "harness/profiles/pod.toml";
    fs::copy_file(LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml", profile);
    corpus = tree / "cases/engine";

    auto source = cases::read_corpus(LOCKSTEP_SOURCE_DIR "/cases/standin");
    ASSERT_TRUE(source.ok()) << source.error().message;
    auto p = harness::load_profile(profile);
    ASSERT_TRUE(p.ok()) << p.error().message;
    const harness::Labeler labels(*p);
    std::vector<cases::CaseFile> files;
    for (const auto& f : source->files)
      if (f.function == kEngine) files.push_back(f);
    ASSERT_EQ(files.size(), 1u);
    // One expected byte the profile names engine_speed, changed in the first case that writes it.
    bool changed = false;
    for (auto& c : files[0].cases) {
      for (const auto& run : c.writes.runs()) {
        for (std::size_t i = 0; i < run.bytes.size() && !changed; ++i) {
          const auto a = static_cast<std::uint32_t>(run.base + i);
          if (labels.name(a).find("engine_speed") == std::string::npos) continue;
          c.writes.set(a, static_cast<std::uint8_t>(run.bytes[i] ^ 0x5a));
          changed = true;
        }
        if (changed) break;
      }
      if (changed) break;
    }
    ASSERT_TRUE(changed) << "no drive::engine case writes engine_speed";

    auto bytes = read_file(profile);
    ASSERT_TRUE(bytes.ok());
    profile_sha = to_hex(sha256(*bytes));
    cases::Manifest m = source->manifest;
    m.functions.clear();
    m.profile_path = "../../harness/profiles/pod.toml";  // what capture records for this layout
    m.profile_sha256 = profile_sha;
    ASSERT_TRUE(cases::write_corpus(corpus, m, files).ok());
  }
  void TearDown() override { fs::remove_all(tree); }

  std::string manifest_text() const {
    auto bytes = read_file(corpus / "manifest.json");
    return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
  }
};

TEST_F(CorpusProfile, ReplayNamesFieldsWithTheRecordedProfile) {
  const CliRun r = lockstep_cli({"replay", corpus.string()});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("engine_speed"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
  // --no-profile: addresses only.
  const CliRun bare = lockstep_cli({"replay", corpus.string(), "--no-profile"});
  EXPECT_EQ(bare.rc, 1);
  EXPECT_EQ(bare.out.find("engine_speed"), std::string::npos) << bare.out;
}

#ifdef GATE_EXE
// A gate (lockstep_add_gate's executable) given an empty --profile names the fields with the profile
// the corpus recorded, and says so when that file is gone.
CliRun run_gate(const fs::path& corpus) {
  const std::string cmd = std::string("'") + GATE_EXE + "' --corpus '" + corpus.string() + "' --profile '' 2>&1";
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST_F(CorpusProfile, GateWithoutAProfileNamesFieldsWithTheRecordedOne) {
  const CliRun r = run_gate(corpus);
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("engine_speed"), std::string::npos) << r.out;
  fs::remove(profile);
  const CliRun bare = run_gate(corpus);
  EXPECT_NE(bare.rc, 0) << bare.out;
  EXPECT_EQ(bare.out.find("engine_speed"), std::string::npos) << bare.out;
  EXPECT_NE(bare.out.find("cannot be read"), std::string::npos) << bare.out;
}
#endif

TEST_F(CorpusProfile, ChangedProfileWarnsNamingBothHashesAndIsUsed) {
  { std::ofstream(profile, std::ios::app) << "# edited after the capture\n"; }
  auto bytes = read_file(profile);
  ASSERT_TRUE(bytes.ok());
  const std::string now = to_hex(sha256(*bytes));
  ASSERT_NE(now, profile_sha);
  const CliRun r = lockstep_cli({"replay", corpus.string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("engine_speed"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(profile_sha), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(now), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(CorpusProfile, MissingProfileIsReportedAndReplayGoesOnWithoutNames) {
  fs::remove(profile);
  const CliRun r = lockstep_cli({"replay", corpus.string()});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_EQ(r.out.find("engine_speed"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("pod.toml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot be read"), std::string::npos) << r.err;
  // Coverage needs the profile to run the original: an error naming the file, not a crash.
  const CliRun cov = lockstep_cli({"coverage", corpus.string(), "--snapshot", "unused.lks"});
  EXPECT_EQ(cov.rc, 2) << cov.out << cov.err;
  EXPECT_NE(cov.err.find("pod.toml"), std::string::npos) << cov.err;
}

TEST_F(CorpusProfile, ExplicitProfileOverridesTheRecordedOne) {
  fs::remove(profile);
  const CliRun r = lockstep_cli({"replay", corpus.string(), "--profile", LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("engine_speed"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(CorpusProfile, VersionOneManifestLoadsAndReplaysWithoutNames) {
  std::string text = manifest_text();
  const auto drop_line = [&text](const std::string& key) {
    const auto at = text.find("\n  \"" + key + "\"");
    ASSERT_NE(at, std::string::npos) << key;
    text.erase(at, text.find('\n', at + 1) - at);
  };
  drop_line("profile_path");
  drop_line("profile_sha256");
  const auto v = text.find("\"version\": 2");
  ASSERT_NE(v, std::string::npos);
  text.replace(v, 12, "\"version\": 1");
  { std::ofstream(corpus / "manifest.json", std::ios::trunc) << text; }
  auto m = cases::read_manifest(corpus);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->profile_path, "");
  const CliRun r = lockstep_cli({"replay", corpus.string()});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_EQ(r.out.find("engine_speed"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

}  // namespace
