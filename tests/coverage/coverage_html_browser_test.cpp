// The HTML coverage report rendered in headless Chromium: scripts/check-coverage-html on
// the hand-made sample (sample_report.hpp) must find every untaken edge of the JSON in the DOM the
// browser built, and must fail when the JSON names an edge the pages do not show. Skipped when no
// chromium is installed (it is not part of scripts/setup: Debian's `chromium`, ~80 MB); the quick
// structure tests (coverage_report_test) run everywhere.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "lockstep/base/io.hpp"
#include "lockstep/harness/coverage_report.hpp"
#include "sample_report.hpp"

namespace lockstep::harness::test {
namespace {

namespace fs = std::filesystem;

bool have_browser() {
  if (const char* c = std::getenv("CHROMIUM"); c && *c) return true;
  return std::system("command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || "
                     "command -v google-chrome >/dev/null 2>&1") == 0;
}

/// The script's exit code on `dir` and `json`; its output goes to the test's log.
int check(const fs::path& dir, const fs::path& json) {
  const std::string cmd = "bash '" LOCKSTEP_SOURCE_DIR "/scripts/check-coverage-html' '" + dir.string() + "' '" +
                          json.string() + "' 2>&1";
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

}  // namespace
}  // namespace lockstep::harness::test
