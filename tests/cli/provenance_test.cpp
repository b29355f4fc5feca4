// A captured corpus carries its provenance: the manifest records the hashes of the very files the
// capture was given (the profile, the snapshot's content, the state log or the call list), its
// driver and its command; the readers hand back the hash of the bytes they parsed; and a command's
// error is reported once, with its exit code.
#include <gtest/gtest.h>

#include "hostile_fixture.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/capture/call_list.hpp"
#include "lockstep/capture/captured_corpus.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/load/load.hpp"

namespace lockstep::test {
namespace {

// SHA-256 of a file's bytes as the test reads them itself.
std::string file_sha256(const fs::path& p) {
  auto bytes = read_file(p);
  EXPECT_TRUE(bytes.ok()) << p;
  return bytes.ok() ? to_hex(sha256(*bytes)) : std::string();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(Provenance, AStepLogCaptureRecordsTheHashesOfWhatItWasGiven) {
  HostileFiles f("provenance-steplog");
  const fs::path out = f.dir / "S";
  const Ran r = run_cli({"capture", f.snapshot.string(), f.steplog.string(), "--profile", f.profile.string(), "--fn",
                         "demo::bump", "-o", out.string()});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  auto m = cases::read_manifest(out);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto snap = harness::load_snapshot(f.snapshot);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(m->profile, "hostile");
  EXPECT_EQ(m->profile_path, "../p.toml");  // the profile beside the corpus folder, seen from it
  EXPECT_EQ(m->profile_sha256, file_sha256(f.profile));
  EXPECT_EQ(m->snapshot_sha256, snap->content_sha256());
  EXPECT_EQ(m->steplog_sha256, file_sha256(f.steplog));
  EXPECT_EQ(m->driver, "bump");
  EXPECT_EQ(m->command, "lockstep capture SNAPSHOT STEPLOG --profile p.toml --fn demo::bump --every 1 --max 0");
}

TEST(Provenance, ACallListCaptureNamesTheListByItsHash) {
  HostileFiles f("provenance-calls");
  auto m = cases::read_manifest(f.corpus);  // the fixture's corpus, captured from calls.toml
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->profile_sha256, file_sha256(f.profile));
  EXPECT_TRUE(m->steplog_sha256.empty());
  EXPECT_TRUE(m->driver.empty());
  EXPECT_EQ(m->command, "lockstep capture SNAPSHOT --calls calls.toml --profile p.toml (call list sha256 " +
                            file_sha256(f.calls) + ")");
}

TEST(Provenance, TheManifestHoldsWhatTheWriterWasGiven) {
  HostileFiles f("provenance-writer");
  const capture::CorpusProvenance from{"some-game", f.dir / "profiles" / "game.toml", std::string(64, 'a'),
                                       std::string(64, 'b'), std::string(64, 'c'), "frame", "lockstep capture X"};
  cases::Case c;
  c.function = kBump;
  c.name = "demo::bump";
  cases::CaseFile file;
  file.function = kBump;
  file.name = "demo::bump";
  file.cases.push_back(c);
  const fs::path out = f.dir / "W";
  ASSERT_TRUE(capture::write_captured_corpus(out, from, {file}).ok());
  auto m = cases::read_manifest(out);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->profile, "some-game");
  EXPECT_EQ(m->profile_path, "../profiles/game.toml");
  EXPECT_EQ(m->profile_sha256, from.profile_sha256);
  EXPECT_EQ(m->snapshot_sha256, from.snapshot_sha256);
  EXPECT_EQ(m->steplog_sha256, from.steplog_sha256);
  EXPECT_EQ(m->driver, "frame");
  EXPECT_EQ(m->command, "lockstep capture X");
  ASSERT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(m->functions[0].function, kBump);
}

TEST(Provenance, TheReadersHashTheBytesTheyParsed) {
  HostileFiles f("provenance-readers");
  auto log = capture::read_state_log(f.steplog);
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->sha256, file_sha256(f.steplog));
  EXPECT_EQ(log->records.size(), 3u);
  auto list = capture::read_call_list(f.calls);
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->sha256, file_sha256(f.calls));
  EXPECT_EQ(list->calls.size(), 1u);
  // Decoded from memory there is no file to name by its hash.
  auto bytes = read_file(f.steplog);
  ASSERT_TRUE(bytes.ok());
  auto decoded = capture::decode_state_log(*bytes, "steps.log");
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->sha256.empty());
  EXPECT_EQ(*decoded, *log);  // the hash is not part of what the log holds
}

// Each command's error is printed once, as "lockstep: error (kind): ...", with the kind's exit code.
TEST(Provenance, ACommandsErrorIsReportedOnce) {
  HostileFiles f("provenance-errors");
  struct Expect {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<Expect> expected = {
      {{"probe", f.corpus.string(), "--snapshot", f.snapshot.string()}, kExitBadInput,
       "lockstep: error (usage): probe needs --case F:ID (or --search)\n"},
      {{"probe", f.corpus.string(), "--snapshot", f.snapshot.string(), "--search", "--fn", "demo::bump"},
       kExitBadInput, "lockstep: error (usage): --search needs --fn F and --edge ADDR:taken|fallthrough\n"},
      {{"capture", f.snapshot.string(), "--profile", f.profile.string(), "-o", (f.dir / "X").string()}, kExitBadInput,
       "lockstep: error (usage): capture needs a step log and --fn, or --calls FILE\n"},
      {{"coverage"}, kExitBadInput, "lockstep: error (usage): give a corpus, or --run SNAPSHOT STEPLOG\n"},
  };
  for (const Expect& e : expected) {
    const Ran r = run_cli(e.args, bump_port());
    EXPECT_EQ(r.code, e.code) << e.args[0] << ": " << r.err;
    EXPECT_EQ(count_of(r.err, "lockstep: error"), 1u) << r.err;
    EXPECT_EQ(r.err.substr(0, e.message.size()), e.message) << r.err;
  }
}

}  // namespace
}  // namespace lockstep::test
