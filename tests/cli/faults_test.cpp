// Each defect a hostile sweep found, reproduced through the command line (lockstep::cli::run, as the
// executable runs it): what was accepted, hung or replaced is now refused, bounded or kept.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "hostile_fixture.hpp"
#include "lockstep/cases/corpus.hpp"

namespace lockstep::test {
namespace {

// 1. One case writing 16 MiB that the port gets wrong: the report of it stays within its byte budget
// and says what it left out (it used to build every byte's lines in memory first: > 120 s, ~2 GB).
TEST(Faults, OneHugeMismatchIsReportedWithinItsBudget) {
  HostileFiles f("huge-mismatch");
  constexpr std::uint32_t kBase = 0x10000000, kSize = 16u << 20;
  cases::Case c;
  c.function = 0x401000;
  c.name = "demo::fill";
  c.returns = cases::ReturnKind::kNone;
  c.writes.set(kBase, std::vector<std::uint8_t>(kSize, 0x11));
  c.writers.push_back({kBase, kSize, 0x401004});
  cases::CaseFile file;
  file.function = c.function;
  file.name = c.name;
  file.cases.push_back(std::move(c));
  cases::Manifest m;
  m.profile = "hostile";
  m.command = "built by the test";
  const fs::path corpus = f.dir / "huge";
  ASSERT_TRUE(cases::write_corpus(corpus, m, {file}).ok());
  cases::Binding zero;  // writes the 16 MiB as zeros: every byte differs
  zero.address = 0x401000;
  zero.name = "demo::fill";
  zero.run = [](const cases::Case&) {
    cases::PortEffects fx;
    fx.writes.set(kBase, std::vector<std::uint8_t>(kSize, 0));
    return fx;
  };
  const Ran r = run_cli({"replay", corpus.string()}, {zero});
  EXPECT_EQ(r.code, kExitMismatch) << r.err;
  EXPECT_LT(r.out.size(), std::size_t{256} << 10) << "the report outgrew its budget";
  EXPECT_NE(r.out.find("MISMATCH demo::fill"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("more differing bytes from 0x1"), std::string::npos) << r.out.substr(r.out.size() - 2000);
  EXPECT_NE(r.out.find("not shown: the report reached its budget"), std::string::npos);
}

// 2. A profile of a few hundred bytes naming 2^31 array elements (a field, or a nested record) is
// refused when it is loaded, as a limit (2), before a labeler makes a name per element.
TEST(Faults, AProfileNamingBillionsOfRangesIsRefusedWhenLoaded) {
  HostileFiles f("huge-profile");
  for (const char* field : {R"({ offset = 0, size = 2147483648, count = 2147483648, name = "many" })",
                            R"({ offset = 0, struct = "byte", count = 2147483648, name = "nested" })"}) {
    const std::string profile = std::string(R"([profile]
name = "huge"
[[function]]
address = 0x401000
name = "demo::bump"
args = ["rec:ptr", "by:u32"]
returns = "eax"
[[struct]]
name = "byte"
size = 1
fields = [ { offset = 0, size = 1, name = "b" } ]
[[struct]]
name = "big"
size = 0x80000000
fields = [ )") + field + R"( ]
[[instance]]
name = "big"
struct = "big"
base = 0x10000000
)";
    ASSERT_LT(profile.size(), 600u);
    write_text(f.dir / "huge.toml", profile);
    const Ran r = run_cli({"call", f.snapshot.string(), "--profile", (f.dir / "huge.toml").string(), "--fn", "demo::bump",
                           "--arg", "0x600100", "--arg", "1"});
    EXPECT_EQ(r.code, kExitBadInput) << field << "\n" << r.err;
    EXPECT_NE(r.err.find("error (limit)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("struct 'big' names more than"), std::string::npos) << r.err;
  }
}

// 3. A call list's calls are limited like every other run of the original: a jump to itself poked at
// the function's entry stops on --budget and on --timeout (it used to run for ever with either).
TEST(Faults, CallListsHonourTheBudgetAndTheTimeout) {
  HostileFiles f("call-limits");
  write_text(f.dir / "spin.toml",
             "[[call]]\nfunction = \"demo::bump\"\nargs = [\"rec[1]\", 2]\npokes = [\"0x401000=ebfe\"]\n"
             "[[call]]\nfunction = \"demo::bump\"\nargs = [\"rec[1]\", 2]\n");
  const std::string before = text_of(f.corpus / "manifest.json");
  Ran r = run_cli({"capture", f.snapshot.string(), "--calls", (f.dir / "spin.toml").string(), "--profile",
                   f.profile.string(), "-o", (f.dir / "spun").string(), "--budget", "1000"});
  EXPECT_EQ(r.code, kExitGuestFault) << r.out << r.err;
  EXPECT_NE(r.err.find("block_budget 1000"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 of 2 calls returned"), std::string::npos) << r.out;
  r = run_cli({"capture", f.snapshot.string(), "--calls", (f.dir / "spin.toml").string(), "--profile",
               f.profile.string(), "-o", (f.dir / "spun").string(), "--budget", "0", "--timeout", "1"});
  EXPECT_EQ(r.code, kExitGuestFault) << r.out << r.err;
  EXPECT_NE(r.err.find("faulted"), std::string::npos) << r.err;
  EXPECT_EQ(text_of(f.corpus / "manifest.json"), before);
}

// 4. A capture that keeps no case writes nothing: the good corpus it would replace is left as it was
// (3 when every call faulted, 2 when the driver never calls the function).
TEST(Faults, ACaptureOfNoCasesLeavesTheCorpusAlone) {
  HostileFiles f("no-cases");
  const std::string before = text_of(f.corpus / "manifest.json");
  Ran r = run_cli({"capture", f.snapshot.string(), "--calls", f.faulting_calls.string(), "--profile",
                   f.profile.string(), "-o", f.corpus.string()});
  EXPECT_EQ(r.code, kExitGuestFault) << r.out << r.err;
  EXPECT_NE(r.err.find("no case was captured"), std::string::npos) << r.err;
  EXPECT_EQ(text_of(f.corpus / "manifest.json"), before);
  // The driver runs demo::bump; a second function it never calls gives no case.
  write_text(f.dir / "two.toml", bump_profile("[[function]]\naddress = 0x401100\nname = \"demo::idle\"\n"));
  r = run_cli({"capture", f.snapshot.string(), f.steplog.string(), "--profile", (f.dir / "two.toml").string(), "--fn",
               "demo::idle", "-o", f.corpus.string()});
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_NE(r.err.find("none of 1 runs called the chosen functions"), std::string::npos) << r.err;
  EXPECT_EQ(text_of(f.corpus / "manifest.json"), before);
  EXPECT_EQ(run_cli({"replay", f.corpus.string()}, bump_port()).code, kExitOk);
}

// 5. A misspelt record in a [[driver]] is refused when the profile is loaded (it used to leave no
// driver on CTRL records and pick another, or none, silently).
TEST(Faults, AMisspeltDriverRecordIsRefusedWhenTheProfileLoads) {
  HostileFiles f("driver-record");
  // The right spelling first: the driver reproduces the step (so the refusal below is the spelling's).
  Ran r = run_cli({"check-steps", f.snapshot.string(), f.steplog.string(), "--profile", f.profile.string()});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  write_text(f.dir / "typo.toml", bump_profile("", "CTLR"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check-steps", f.snapshot.string(), f.steplog.string(), "--profile",
                                 (f.dir / "typo.toml").string()},
        std::vector<std::string>{"capture", f.snapshot.string(), f.steplog.string(), "--profile",
                                 (f.dir / "typo.toml").string(), "--fn", "demo::bump", "-o", (f.dir / "X").string()}}) {
    r = run_cli(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("'CTLR' is no state-log record"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(f.dir / "X"));
}

// 6. An output never replaces an input of its own command, nor another of its outputs: compared by
// file identity (a link to the manifest is the manifest).
TEST(Faults, OutputsNeverReplaceInputs) {
  HostileFiles f("outputs");
  const fs::path manifest = f.corpus / "manifest.json";
  const std::string before = text_of(manifest), profile = text_of(f.profile);
  fs::path case_file;
  for (const auto& e : fs::directory_iterator(f.corpus))
    if (e.path().extension() == ".lkcases") case_file = e.path();
  const std::string case_bytes = text_of(case_file);
  fs::create_symlink(manifest, f.dir / "link.json");
  const std::vector<std::vector<std::string>> lines{
      {"replay", f.corpus.string(), "--json", manifest.string()},
      {"replay", f.corpus.string(), "--junit", case_file.string()},
      {"replay", f.corpus.string(), "--profile", f.profile.string(), "--json", f.profile.string()},
      {"replay", f.corpus.string(), "--json", (f.dir / "link.json").string()},
      {"replay", f.corpus.string(), "--json", (f.dir / "same").string(), "--junit", (f.dir / "./same").string()},
      {"coverage", f.corpus.string(), "--snapshot", f.snapshot.string(), "--json", manifest.string()},
      {"coverage", f.corpus.string(), "--snapshot", f.snapshot.string(), "--html", f.corpus.string()},
      {"capture", f.snapshot.string(), "--calls", f.calls.string(), "--profile", f.profile.string(), "-o",
       f.snapshot.string()},
      {"merge-reports", f.report.string(), "--json", f.report.string()},
  };
  for (const auto& args : lines) {
    const Ran r = run_cli(args, bump_port());
    EXPECT_EQ(r.code, kExitBadInput) << fmt::format("{}", fmt::join(args, " ")) << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("error (usage)"), std::string::npos) << r.err;
  }
  EXPECT_EQ(text_of(manifest), before);
  EXPECT_EQ(text_of(case_file), case_bytes);
  EXPECT_EQ(text_of(f.profile), profile);
  EXPECT_FALSE(fs::exists(f.dir / "same"));
  // Devices are written in place and may be named twice.
  EXPECT_EQ(run_cli({"replay", f.corpus.string(), "--json", "/dev/null", "--junit", "/dev/null"}, bump_port()).code,
            kExitOk);
}

// 7. Reports name their corpus: shards of two corpora do not merge, a baseline of another corpus is
// refused; numbers are read strictly (no wrap, no sign, no fraction, no count past its total).
TEST(Faults, ReportsOfAnotherCorpusAndLooseNumbersAreRefused) {
  HostileFiles f("reports");
  Ran r = run_cli({"merge-reports", f.report.string(), f.report2.string()});
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  r = run_cli({"replay", f.corpus.string(), "--baseline", f.report2.string()}, bump_port());
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_NE(r.err.find("the baseline is a replay of corpus"), std::string::npos) << r.err;
  // Shards 1/2 and 2/2 of two corpora.
  const fs::path s1 = f.dir / "s1.json", s2 = f.dir / "s2.json";
  ASSERT_EQ(run_cli({"replay", f.corpus.string(), "--shard", "1/2", "--json", s1.string()}, bump_port()).code, 0);
  ASSERT_EQ(run_cli({"replay", f.corpus2.string(), "--shard", "2/2", "--json", s2.string()}, bump_port()).code, 0);
  r = run_cli({"merge-reports", s1.string(), s2.string()});
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_NE(r.err.find("shards of one run replay one corpus"), std::string::npos) << r.err;

  const std::string good = text_of(f.report);
  ASSERT_NE(good.find("\"cases\": 1,"), std::string::npos) << good;
  ASSERT_EQ(run_cli({"merge-reports", f.report.string()}).code, kExitOk);
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const auto at = t.rfind(from);  // the function's own field (the totals come first)
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return t;
  };
  const std::vector<std::string> bad{
      replaced("\"cases\": 1,", "\"cases\": -1,"),
      replaced("\"cases\": 1,", "\"cases\": 4294967310,"),
      replaced("\"cases\": 1,", "\"cases\": 18446744073709551616,"),
      replaced("\"cases\": 1,", "\"cases\": 14.5,"),
      replaced("\"address\": \"0x00401000\"", "\"address\": \"0xZZ\""),
      replaced("\"address\": \"0x00401000\"", "\"address\": \"0x000401000\""),
      replaced("\"matched\": 1,", "\"matched\": 2,"),
      replaced("\"version\": 2", "\"version\": 1"),
  };
  for (const std::string& text : bad) {
    write_text(f.dir / "bad.json", text);
    r = run_cli({"merge-reports", (f.dir / "bad.json").string()});
    EXPECT_EQ(r.code, kExitBadInput) << text << r.out << r.err;
    r = run_cli({"replay", f.corpus.string(), "--baseline", (f.dir / "bad.json").string()}, bump_port());
    EXPECT_EQ(r.code, kExitBadInput) << text << r.out << r.err;
  }
}

// 8. Names from a profile with control characters and markup: the JUnit report stays XML, the table
// prints them escaped.
TEST(Faults, NamesWithControlCharactersAreEscaped) {
  HostileFiles f("names");
  std::string profile = bump_profile();
  profile.replace(profile.find("name = \"demo::bump\""), 19, "name = \"demo::<b\\u0001&\\u001b[2J>\"");
  profile.replace(profile.find("function = \"demo::bump\""), 23, "function = 0x401000");
  write_text(f.dir / "odd.toml", profile);
  write_text(f.dir / "odd-calls.toml", "[[call]]\nfunction = 0x401000\nargs = [\"rec[1]\", 2]\n");
  Ran r = run_cli({"capture", f.snapshot.string(), "--calls", (f.dir / "odd-calls.toml").string(), "--profile",
                   (f.dir / "odd.toml").string(), "-o", (f.dir / "odd").string()});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  r = run_cli({"replay", (f.dir / "odd").string(), "--junit", (f.dir / "odd.xml").string()}, bump_port(true));
  EXPECT_EQ(r.code, kExitMismatch) << r.err;
  for (char ch : r.out) EXPECT_FALSE(static_cast<unsigned char>(ch) < 0x20 && ch != '\n') << "raw control character";
  EXPECT_NE(r.out.find("demo::<b\\x01&\\x1b[2J>"), std::string::npos) << r.out;
  const std::string xml = text_of(f.dir / "odd.xml");
  for (char ch : xml) EXPECT_FALSE(static_cast<unsigned char>(ch) < 0x20 && ch != '\n') << "raw control character";
  EXPECT_NE(xml.find("demo::&lt;b\\x01&amp;\\x1b[2J&gt;"), std::string::npos) << xml;
}

// 9. An empty value is refused (an unset variable in a CI script used to pass with nothing written).
TEST(Faults, EmptyValuesAreRefused) {
  HostileFiles f("empty");
  for (const char* opt : {"--json", "--junit", "--profile", "--baseline", "--case", "--fn"}) {
    const Ran r = run_cli({"replay", f.corpus.string(), opt, ""}, bump_port());
    EXPECT_EQ(r.code, kExitBadInput) << opt << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("empty value"), std::string::npos) << r.err;
  }
}

// 10. A corpus folder given through a symbolic link is written through it: the link stays, the
// folder it names gets the new corpus.
TEST(Faults, ACorpusFolderLinkIsWrittenThrough) {
  HostileFiles f("link");
  fs::create_symlink(f.corpus, f.dir / "LINK");
  const Ran r = run_cli({"capture", f.snapshot.string(), "--calls", f.calls2.string(), "--profile", f.profile.string(),
                         "-o", (f.dir / "LINK").string()});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(fs::is_symlink(f.dir / "LINK"));
  // The new corpus (calls2.toml: one call made twice, two cases) is in the folder the link names.
  EXPECT_NE(text_of(f.corpus / "manifest.json").find("\"total_cases\": 2"), std::string::npos)
      << text_of(f.corpus / "manifest.json");
}

// The smaller ones: a manifest address of more than 8 hex digits, a compression level with a space or
// in hex, a double past its range or not a number, an unknown command, an original symbol several
// functions share, a zombie's snapshot.
TEST(Faults, TheSmallerOnes) {
  HostileFiles f("small");
  std::string m = text_of(f.corpus / "manifest.json");
  m.replace(m.find("\"0x00401000\""), 12, "\"0x000401000\"");
  write_text(f.corpus / "manifest.json", m);
  Ran r = run_cli({"replay", f.corpus.string()}, bump_port());
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_NE(r.err.find("0x000401000"), std::string::npos) << r.err;

  for (const char* level : {" 5", "0x5", "5.0", "10", "-1"}) {
    r = run_cli({"snapshot", "--from", f.snapshot.string(), "--zlib-level", level, "-o", (f.dir / "z.lks").string()});
    EXPECT_EQ(r.code, kExitBadInput) << "'" << level << "': " << r.err;
  }
  EXPECT_EQ(run_cli({"snapshot", "--from", f.snapshot.string(), "--zlib-level", "5", "-o", (f.dir / "z.lks").string()})
                .code,
            kExitOk);

  for (const char* arg : {"f64:1e400", "f64:nan", "f64:inf", "f64: 1"}) {
    r = run_cli({"call", f.snapshot.string(), "--profile", f.profile.string(), "--fn", "demo::bump", "--arg", "rec[1]",
                 "--arg", arg});
    EXPECT_EQ(r.code, kExitBadInput) << arg << ": " << r.out << r.err;
  }

  r = run_cli({"replya", f.corpus.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("'replya' is not a lockstep command; the commands are: "), std::string::npos) << r.err;

  write_text(f.dir / "shared.toml",
             bump_profile("[[function]]\naddress = 0x401100\nname = \"hook::a\"\noriginal = \"hook\"\n"
                          "[[function]]\naddress = 0x401200\nname = \"hook::b\"\noriginal = \"hook\"\n"));
  r = run_cli({"call", f.snapshot.string(), "--profile", (f.dir / "shared.toml").string(), "--fn", "hook"});
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_NE(r.err.find("original symbol 'hook' is shared by 2 functions (hook::a, hook::b)"), std::string::npos)
      << r.err;

  // A zombie: a child that exited and is not reaped yet.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  for (int i = 0; i < 500; ++i) {
    // A /proc file's size reads as 0 (not read_file): read as a stream.
    std::string stat(512, '\0');
    const int fd = ::open(fmt::format("/proc/{}/stat", child).c_str(), O_RDONLY | O_CLOEXEC);
    const ssize_t n = fd >= 0 ? ::read(fd, stat.data(), stat.size()) : -1;
    if (fd >= 0) ::close(fd);
    stat.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    if (stat.find(") Z ") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r = run_cli({"snapshot", "--pid", std::to_string(child), "--allow-64bit", "-o", (f.dir / "zombie.lks").string()});
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_NE(r.err.find("is a zombie"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(f.dir / "zombie.lks"));
}

}  // namespace
}  // namespace lockstep::test
