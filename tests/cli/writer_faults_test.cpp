// The writers under a failing disk: every k-th write(2) fails (ENOSPC, EIO, through base/io's test
// seam) while a corpus, a report, a snapshot and an HTML report are written over old ones; each time
// the command exits 4 and the old output is left byte for byte, with no temp file beside it.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <limits>

#include "hostile_fixture.hpp"

namespace lockstep::test {
namespace {

/// Every file under `p` (or `p` itself) with its bytes, by path relative to `p`'s folder.
std::map<std::string, std::string> contents(const fs::path& p) {
  std::map<std::string, std::string> m;
  if (fs::is_directory(p)) {
    for (const auto& e : fs::recursive_directory_iterator(p))
      if (e.is_regular_file()) m[fs::relative(e.path(), p).string()] = text_of(e.path());
  } else {
    m[p.filename().string()] = text_of(p);
  }
  return m;
}

/// Names beside `p` that a writer of it left (its temp files and folders).
std::vector<std::string> leftovers(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(p.parent_path())) {
    const std::string n = e.path().filename().string();
    if (n.starts_with(p.filename().string() + ".")) out.push_back(n);
  }
  return out;
}

struct Seam {
  ~Seam() { set_write_fault(0, 0); }
};

/// Runs `args` once with the seam counting, then once per k = 1..write calls (at most `max_k`, spread
/// over the range) with every k-th write failing: exit 4, `output` as it was.
void fail_every_kth_write(const std::vector<std::string>& args, const fs::path& output,
                          const cases::BindingSet& bindings = {}, std::uint64_t max_k = 24) {
  Seam seam;
  set_write_fault(std::numeric_limits<std::uint64_t>::max(), 0);  // counts, never fails
  const Ran ok = run_cli(args, bindings);
  const std::uint64_t writes = write_calls();
  set_write_fault(0, 0);
  ASSERT_LE(ok.code, kExitMismatch) << ok.out << ok.err;
  ASSERT_GT(writes, 0u) << "the command wrote nothing through the seam";
  const auto before = contents(output);
  const std::uint64_t step = writes > max_k ? writes / max_k : 1;
  std::uint64_t tried = 0;
  for (std::uint64_t k = 1; k <= writes; k += step) {
    const int error = (k % 2) ? ENOSPC : EIO;
    set_write_fault(k, error);
    const Ran r = run_cli(args, bindings);
    set_write_fault(0, 0);
    ++tried;
    const std::string what = fmt::format("{} with write #{} failing ({})", args[0], k, std::strerror(error));
    EXPECT_EQ(r.code, kExitEnvironment) << what << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(std::strerror(error)), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(contents(output), before) << what << ": the old output changed";
    EXPECT_TRUE(leftovers(output).empty()) << what << ": left " << fmt::format("{}", fmt::join(leftovers(output), " "));
  }
  std::cout << args[0] << ": " << writes << " write calls, " << tried << " of them made to fail\n";
}

TEST(WriterFaults, ACorpusIsReplacedWholeOrNotAtAll) {
  HostileFiles f("corpus-writes");
  fail_every_kth_write({"capture", f.snapshot.string(), "--calls", f.calls2.string(), "--profile", f.profile.string(),
                        "-o", f.corpus.string()},
                       f.corpus);
  EXPECT_EQ(run_cli({"replay", f.corpus.string()}, bump_port()).code, kExitOk);
}

TEST(WriterFaults, AReportIsReplacedWholeOrNotAtAll) {
  HostileFiles f("report-writes");
  // The old report is the other corpus's: the new one would differ.
  fs::copy_file(f.report2, f.dir / "old.json");
  fail_every_kth_write({"replay", f.corpus.string(), "--json", (f.dir / "old.json").string()}, f.dir / "old.json",
                       bump_port());
  fs::copy_file(f.report2, f.dir / "old.xml");
  fail_every_kth_write({"replay", f.corpus.string(), "--junit", (f.dir / "old.xml").string()}, f.dir / "old.xml",
                       bump_port());
}

TEST(WriterFaults, ASnapshotIsReplacedWholeOrNotAtAll) {
  HostileFiles f("snapshot-writes");
  fs::copy_file(f.profile, f.dir / "old.lks");  // any old bytes
  fail_every_kth_write({"snapshot", "--from", f.snapshot.string(), "--zlib-level", "0", "-o",
                        (f.dir / "old.lks").string()},
                       f.dir / "old.lks");
}

TEST(WriterFaults, AnHtmlReportIsReplacedWholeOrNotAtAll) {
  HostileFiles f("html-writes");
  const fs::path html = f.dir / "html";
  fs::create_directories(html);
  write_text(html / "index.html", "<p>the old report</p>\n");
  write_text(html / "old-page.html", "<p>an old page</p>\n");
  fail_every_kth_write({"coverage", f.corpus.string(), "--snapshot", f.snapshot.string(), "--html", html.string()},
                       html);
}

}  // namespace
}  // namespace lockstep::test
