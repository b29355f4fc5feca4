// The analysts' commands end to end on the stand-in: a fresh recording (the one the
// checked-in corpus was captured from: same snapshot content hash), then `lockstep coverage`,
// `lockstep probe --case --poke` and `lockstep probe --search` on cases/standin, through the same
// entry point as the executable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lockstep;

const fs::path kRoot = LOCKSTEP_SOURCE_DIR;
const fs::path kProfile = kRoot / "harness/profiles/pod.toml";
const fs::path kCorpus = kRoot / "cases/standin";

struct Recording {
  fs::path dir;  ///< this process's scratch folder (the tests' outputs)
  fs::path rec;  ///< the recording: snapshot.lks, steps.log
  fs::path snapshot() const { return rec / "snapshot.lks"; }
};
Recording* g_rec = nullptr;

int run(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::ostringstream o, e;
  const int rc = cli::run(args, cli::Io{o, e}, pod::bindings::all());
  out = o.str();
  err = e.str();
  return rc;
}

class Analysts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_rec = new Recording{fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "pipeline" / ("analysts-" + std::to_string(::getpid())), {}};
    fs::remove_all(g_rec->dir);
    fs::create_directories(g_rec->dir);
    // The checked-in corpus's recording: 400 steps, the snapshot at step 100 (scripts/capture-standin),
    // emulated as that corpus was — a native recording has another snapshot (stack placement, pid, vdso)
    // and the corpus would rightly refuse it. Under ctest, the fixture pipeline.standin_race_recording has
    // made it once for every test of this program (each runs in a process of its own) and names it in
    // LOCKSTEP_STANDIN_RACE_RECORDING; run alone, the program records it itself.
    if (const char* shared = std::getenv("LOCKSTEP_STANDIN_RACE_RECORDING"); shared && *shared) {
      g_rec->rec = shared;
      ASSERT_TRUE(fs::is_regular_file(g_rec->snapshot())) << "the shared recording has no snapshot: " << g_rec->snapshot();
      return;
    }
    g_rec->rec = g_rec->dir / "rec";
    const std::string cmd = (kRoot / "scripts/record-standin").string() + " --mode emulated --build '" + LOCKSTEP_BINARY_DIR +
                            "' --no-build --steps 400 --pause-at 100 '" + g_rec->rec.string() + "' > '" +
                            (g_rec->dir / "record.log").string() + "' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << "record-standin failed; see " << (g_rec->dir / "record.log");
  }
  static void TearDownTestSuite() {
    fs::remove_all(g_rec->dir);
    delete g_rec;
  }
};

TEST_F(Analysts, CoverageRerunsEveryCaseAndWritesTheReports) {
  std::string out, err;
  const fs::path html = g_rec->dir / "html", json = g_rec->dir / "coverage.json";
  const int rc = run({"coverage", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile",
                      kProfile.string(), "--quiet", "--html", html.string(), "--json", json.string()},
                     out, err);
  // Every one of the corpus's cases reproduces its recording when re-run from its own state.
  EXPECT_EQ(rc, 0) << out << err;
  EXPECT_NE(out.find("0 diverged"), std::string::npos) << out;
  EXPECT_NE(out.find("tyres::tyres"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(html / "index.html"));
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  // The corpus has 31 functions (its manifest); each is in the report with its edges counted.
  auto corpus = cases::read_corpus(kCorpus);
  ASSERT_TRUE(corpus.ok());
  ASSERT_TRUE(j.contains("functions")) << j.dump().substr(0, 400);
  EXPECT_EQ(j["functions"].size(), corpus->files.size());
}

TEST_F(Analysts, ProbeOfACaseWithStoppedWheelTakesTheStaleSlipPath) {
  // Case 81 of tyres::tyres (racer 1, step 91): every wheel rolls. With point[0]'s velocity zeroed
  // the tyres take the low-speed path (F050) and read the stale stack slot: a STALE STACK READ the
  // unpoked case has not.
  std::string out, err;
  const int rc = run({"probe", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile",
                      kProfile.string(), "--case", "tyres::tyres:81", "--poke", "car[1]+0xc=000000000000000000000000"},
                     out, err);
  // The port takes the same low-speed path with the original's stale word (port/CHOICES.md, the
  // stale slot the binding hands it), so it matches: exit 0, and it says so.
  EXPECT_EQ(rc, 0) << out << err;
  EXPECT_NE(out.find("port (tyres::tyres): matches the original on this state"), std::string::npos) << out;
  EXPECT_NE(out.find("STALE STACK READS"), std::string::npos) << out;
  EXPECT_NE(out.find("branches that went another way than unpoked:\n    0x"), std::string::npos) << out;
  EXPECT_NE(out.find("port (tyres::tyres): "), std::string::npos) << out;
  // Unpoked, nothing changes: no branch goes another way.
  const int rc2 = run({"probe", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile",
                       kProfile.string(), "--case", "tyres::tyres:81"},
                      out, err);
  EXPECT_EQ(rc2, 0) << out << err;
  EXPECT_NE(out.find("(none: every branch went the same ways)"), std::string::npos) << out;
  EXPECT_EQ(out.find("warning: the unpoked re-run does not reproduce"), std::string::npos) << out;
}

TEST_F(Analysts, SearchTakesAnUntakenEdgeAndWritesAPokedCase) {
  // An edge the corpus never takes (from the coverage report), searched; the state is written into a
  // corpus of its own with --into.
  std::string out, err;
  const fs::path json = g_rec->dir / "cov-all.json";
  ASSERT_EQ(run({"coverage", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile",
                 kProfile.string(), "--quiet", "--json", json.string()},
                out, err),
            0)
      << out << err;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  // Edges the checked-in search found a state for (cases/standin-search.txt: "ADDR ... taken  found in"),
  // so the budget below is known to be enough; the first of them, in address order, that the corpus
  // took one way only.
  std::set<std::string> findable;
  {
    std::ifstream report(kRoot / "cases/standin-search.txt");
    for (std::string line; std::getline(report, line);) {
      std::istringstream words(line);
      std::string address, mnemonic, target, direction, found;
      if (words >> address >> mnemonic >> target >> direction >> found && direction == "taken" && found == "found")
        findable.insert(address + ":taken");
    }
  }
  ASSERT_FALSE(findable.empty()) << "cases/standin-search.txt names no edge the search found";
  std::string edge, fn;
  for (const auto& f : j["functions"]) {
    for (const auto& b : f["branches"]) {
      if (b["taken"].get<std::uint64_t>() == 0 && b["fell_through"].get<std::uint64_t>() != 0 &&
          findable.count(b["address"].get<std::string>() + ":taken") != 0) {
        edge = b["address"].get<std::string>() + ":taken";
        fn = f["name"].get<std::string>();
        break;
      }
    }
    if (!edge.empty()) break;
  }
  ASSERT_FALSE(edge.empty()) << "no function has a half-taken branch over the corpus";
  const fs::path into = g_rec->dir / "found";
  const int rc = run({"probe", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile",
                      kProfile.string(), "--search", "--fn", fn, "--edge", edge, "--budget", "3000",
                      "--into", into.string()},
                     out, err);
  // The port has no known difference on any state the edge search finds
  // (tests/gate/standin-search-known-differences.txt lists none): it matches, exit 0.
  EXPECT_EQ(rc, 0) << out << err;
  EXPECT_NE(out.find("found, from case"), std::string::npos) << out;
  auto found = cases::read_corpus(into);
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_EQ(found->files.size(), 1u);
  ASSERT_EQ(found->files[0].cases.size(), 1u);
  const cases::Case& c = found->files[0].cases[0];
  EXPECT_TRUE(c.poked());
  EXPECT_NE(c.note.find(edge.substr(2, 8)), std::string::npos) << c.note;
  // The found state now takes the edge: coverage over the new corpus counts it.
  const fs::path json2 = g_rec->dir / "cov-found.json";
  ASSERT_EQ(run({"coverage", into.string(), "--snapshot", g_rec->snapshot().string(), "--profile", kProfile.string(),
                 "--quiet", "--json", json2.string()},
                out, err),
            0)
      << out << err;
  std::ifstream in2(json2);
  const auto j2 = nlohmann::json::parse(in2);
  bool taken = false;
  for (const auto& b : j2["functions"][0]["branches"])
    if (b["address"].get<std::string>() + ":taken" == edge) taken = b["taken"].get<std::uint64_t>() > 0;
  EXPECT_TRUE(taken) << edge;
}

TEST_F(Analysts, ARegisterPokeChangesTheEntryRegister) {
  // Tables::cos16 takes its angle in eax: a different angle, the same function, the port beside it.
  std::string out, err;
  const fs::path copy = g_rec->dir / "corpus-copy";
  fs::remove_all(copy);
  fs::copy(kCorpus, copy);
  const int rc = run({"probe", copy.string(), "--snapshot", g_rec->snapshot().string(), "--profile", kProfile.string(),
                      "--case", "Tables::cos16:0", "--poke", "eax=0x3000", "--add"},
                     out, err);
  EXPECT_EQ(rc, 0) << out << err;
  EXPECT_NE(out.find("port (Tables::cos16): matches"), std::string::npos) << out;
  auto corpus = cases::read_corpus(copy);
  ASSERT_TRUE(corpus.ok());
  for (const auto& f : corpus->files) {
    if (f.name != "Tables::cos16") continue;
    const cases::Case& added = f.cases.back();
    EXPECT_EQ(added.in.eax, 0x3000u);
    EXPECT_EQ(added.poked_registers, cases::kPokedEax);
    EXPECT_TRUE(added.poked());
  }
  EXPECT_EQ(run({"probe", copy.string(), "--snapshot", g_rec->snapshot().string(), "--profile", kProfile.string(),
                 "--case", "Tables::cos16:0", "--poke", "eax=zz"},
                out, err),
            2);
}

TEST_F(Analysts, BadArgumentsExitTwoWithAMessage) {
  std::string out, err;
  EXPECT_EQ(run({"probe", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile", kProfile.string(),
                 "--search", "--fn", "tyres::tyres", "--edge", "0x41af80:sideways"},
                out, err),
            2);
  EXPECT_NE(err.find("sideways"), std::string::npos) << err;
  // The thunk's first instruction is no conditional branch.
  EXPECT_EQ(run({"probe", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile", kProfile.string(),
                 "--search", "--fn", "tyres::tyres", "--edge", "0x41af80:taken"},
                out, err),
            2);
  EXPECT_NE(err.find("not a conditional branch"), std::string::npos) << err;
  EXPECT_EQ(run({"probe", kCorpus.string(), "--snapshot", g_rec->snapshot().string(), "--profile", kProfile.string(),
                 "--case", "tyres::tyres:999999"},
                out, err),
            2);
  EXPECT_NE(err.find("no case 999999"), std::string::npos) << err;
  EXPECT_EQ(run({"coverage", kCorpus.string(), "--profile", kProfile.string()}, out, err), 2);
  EXPECT_NE(err.find("--snapshot"), std::string::npos) << err;
}

// The files of a folder, name -> bytes.
std::map<std::string, std::string> folder(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    out[e.path().filename().string()] = bytes.str();
  }
  return out;
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST_F(Analysts, EveryNumberOfThreadsWritesTheSameCorpusCoverageAndSearch) {
  std::string out, err;
  // step::pose: its one edge no race takes (a drawn object without a hull, tests/standin/README.md) is
  // an untaken edge the search finds, however the race's sample covers the other functions.
  const std::vector<std::string> fns = {"--fn", "math::dot16", "--fn", "tyres::tyres", "--fn", "step::pose"};
  std::map<std::string, std::string> first;
  for (const char* jobs : {"1", "2", "5"}) {
    const fs::path dir = g_rec->dir / (std::string("jobs-corpus-") + jobs);
    std::vector<std::string> args = {"capture", g_rec->snapshot().string(), (g_rec->rec / "steps.log").string(),
                                     "--profile", kProfile.string(), "--every", "7", "--max", "2", "--quiet",
                                     "--jobs", jobs, "-o", dir.string()};
    args.insert(args.begin() + 5, fns.begin(), fns.end());
    ASSERT_EQ(run(args, out, err), 0) << out << err;
    const auto files = folder(dir);
    ASSERT_EQ(files.size(), 4u);  // three case files and the manifest
    if (first.empty()) first = files;
    else EXPECT_TRUE(files == first) << "--jobs " << jobs << " wrote another corpus";
  }
  // Coverage and the search of every function's untaken edges, on the corpus just captured.
  const fs::path captured = g_rec->dir / "jobs-corpus-1";
  std::string first_cov;
  for (const char* jobs : {"1", "3"}) {
    const fs::path json = g_rec->dir / (std::string("jobs-coverage-") + jobs + ".json");
    ASSERT_EQ(run({"coverage", captured.string(), "--snapshot", g_rec->snapshot().string(), "--profile",
                   kProfile.string(), "--quiet", "--jobs", jobs, "--json", json.string()},
                  out, err),
              0)
        << out << err;
    if (first_cov.empty()) first_cov = file_text(json);
    else EXPECT_EQ(file_text(json), first_cov) << "--jobs " << jobs;
  }
  std::string first_found;
  for (const char* jobs : {"1", "2"}) {
    const fs::path into = g_rec->dir / (std::string("jobs-search-") + jobs);
    const int rc = run({"probe", captured.string(), "--snapshot", g_rec->snapshot().string(), "--profile",
                        kProfile.string(), "--search", "--edge", "untaken", "--budget", "100", "--jobs", jobs,
                        "--into", into.string()},
                       out, err);
    ASSERT_TRUE(rc == 0 || rc == 1) << out << err;
    std::string found;
    ASSERT_TRUE(fs::exists(into / "manifest.json")) << "the search found no state: nothing compared\n" << out;
    for (const auto& [name, bytes] : folder(into)) found += name + "\n" + bytes;
    if (first_found.empty()) first_found = found;
    else EXPECT_EQ(found, first_found) << "--jobs " << jobs;
  }
  EXPECT_EQ(run({"capture", g_rec->snapshot().string(), (g_rec->rec / "steps.log").string(), "--profile",
                 kProfile.string(), "--fn", "math::dot16", "--jobs", "0", "-o", (g_rec->dir / "never").string()},
                out, err),
            2);
  EXPECT_NE(err.find("--jobs"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(g_rec->dir / "never"));
}

}  // namespace
