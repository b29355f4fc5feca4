// The HTML reports rendered in headless Chromium. scripts/check-coverage-html on the hand-made
// sample (sample_report.hpp) must find every untaken edge of the JSON in the DOM the browser built,
// and must fail when the JSON names an edge the pages do not show; scripts/check-progress-html on a
// hand-made progress report must find its modules' bars, chart and function rows as the JSON's
// counts give them and its coverage link, and must fail when the JSON says otherwise. scripts/setup
// installs Debian's `chromium`; where it is missing the tests skip saying so, and the quick structure
// tests (coverage_report_test, the progress tests of cli_bindings_test) run everywhere.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "lockstep/base/io.hpp"
#include "lockstep/coverage/coverage_report.hpp"
#include "lockstep/progress/progress.hpp"
#include "sample_report.hpp"

namespace lockstep::harness::test {
namespace {

namespace fs = std::filesystem;

bool have_browser() {
  if (const char* c = std::getenv("CHROMIUM"); c && *c) return true;
  return std::system("command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || "
                     "command -v google-chrome >/dev/null 2>&1") == 0;
}

/// A check script's exit code on `dir` and `json`; its output goes to the test's log.
int check(const fs::path& dir, const fs::path& json, const char* script = "check-coverage-html") {
  const std::string cmd = std::string("bash '" LOCKSTEP_SOURCE_DIR "/scripts/") + script + "' '" + dir.string() +
                          "' '" + json.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

class CoverageHtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_browser()) GTEST_SKIP() << "chromium not installed (Debian: apt-get install chromium)";
    root_ = fs::temp_directory_path() / ("lockstep-coverage-browser-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    const Profile p = sample_profile();
    const CoverageReport r = sample_report();
    Status s = write_coverage_html(r, &p, root_ / "report");
    ASSERT_TRUE(s.ok()) << s.error().message;
    json_ = coverage_json(r, &p);
    ASSERT_TRUE(write_file_atomic(root_ / "report.json", json_).ok());
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }
  fs::path root_;
  std::string json_;
};

TEST_F(CoverageHtmlBrowser, ShowsEveryUntakenEdgeOfTheJson) {
  EXPECT_EQ(check(root_ / "report", root_ / "report.json"), 0);
}

TEST_F(CoverageHtmlBrowser, FailsWhenAnEdgeIsNotShown) {
  // Claim B1 (0x00401009, both edges covered) has an untaken taken edge: no page shows it.
  const std::string covered = "\"untaken\": []";
  const auto at = json_.find(covered);
  ASSERT_NE(at, std::string::npos);
  std::string lie = json_;
  lie.replace(at, covered.size(), "\"untaken\": [\"taken\"]");
  ASSERT_TRUE(write_file_atomic(root_ / "lie.json", lie).ok());
  EXPECT_EQ(check(root_ / "report", root_ / "lie.json"), 1);
}

// Two modules: one all matched, one half (a function matched, one mismatching, one not ported),
// code bytes of different sizes so the two bars of a module differ; a coverage page for one function.
ProgressReport sample_progress(const fs::path& coverage_page) {
  ProgressReport r;
  r.profile = "sample";
  r.corpora = {"corpus"};
  auto fn = [](GuestAddr a, std::string name, std::uint32_t cases, std::uint32_t matched, std::uint32_t bytes) {
    FunctionProgress f;
    f.address = a;
    f.name = std::move(name);
    f.module = f.name.substr(0, f.name.find("::"));
    f.in_profile = true;
    f.bound = cases > 0;
    f.cases = cases;
    f.matched = matched;
    f.mismatched = cases - matched;
    f.code_bytes = bytes;
    f.code_source = CodeSizeSource::kCapstone;
    if (matched < cases) f.first_mismatch.emplace("corpus", 7);
    return f;
  };
  r.functions = {fn(0x401000, "alpha::one", 4, 4, 100), fn(0x401100, "beta::two", 3, 3, 30),
                 fn(0x401200, "beta::three", 5, 2, 60), fn(0x401300, "beta::four", 0, 0, 10)};
  r.functions[0].coverage_page = coverage_page.string();
  r.functions[0].edges_covered = 3;
  r.functions[0].edges_total = 4;
  r.total.name = "all";
  for (const std::string m : {"alpha", "beta"}) {
    ProgressTotals t;
    t.name = m;
    for (const auto& f : r.functions)
      if (f.module == m) t.add(f);
    r.modules.push_back(t);
  }
  for (const auto& f : r.functions) r.total.add(f);
  return r;
}

TEST_F(CoverageHtmlBrowser, ProgressPageShowsTheJsonsModulesAndFunctions) {
  const ProgressReport r = sample_progress(root_ / "report" / "fn_00401000.html");
  ASSERT_TRUE(write_progress_html(r, root_ / "progress").ok());
  ASSERT_TRUE(write_file_atomic(root_ / "progress.json", progress_json(r)).ok());
  EXPECT_EQ(check(root_ / "progress", root_ / "progress.json", "check-progress-html"), 0);
  // A JSON claiming beta's functions all matched: the bars rendered show otherwise.
  std::string lie = progress_json(r);
  const std::string beta = "\"name\": \"beta\",\n      \"functions\": 3,\n      \"bound\": 2,\n      \"with_cases\": 2,\n"
                           "      \"matched_functions\": 1";
  const auto at = lie.find(beta);
  ASSERT_NE(at, std::string::npos) << lie;
  lie.replace(at + beta.size() - 1, 1, "3");
  ASSERT_TRUE(write_file_atomic(root_ / "lie.json", lie).ok());
  EXPECT_EQ(check(root_ / "progress", root_ / "lie.json", "check-progress-html"), 1);
}

}  // namespace
}  // namespace lockstep::harness::test
