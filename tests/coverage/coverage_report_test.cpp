// The coverage reports: terminal text, JSON and the static HTML site, on a CoverageReport
// built by hand from a listing Capstone decodes from hand-written bytes — so these tests do not
// depend on the collector. The HTML tests stand in for a browser in CI (they check the HTML
// structure; the check in a real browser is scripts/check-coverage-html): every page
// must parse as balanced HTML with no raw '<', '>' or stray '&' in text, every link must resolve to a
// file of the report or an id on the page, and each untaken edge must be marked.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lockstep/coverage/coverage_report.hpp"
#include "sample_report.hpp"

namespace lockstep::harness::test {
namespace {

namespace fs = std::filesystem;

// The decoded texts the report shows; checked once here so later expectations can name them.
TEST(CoverageSample, DecodesAsLaidOut) {
  const CoverageReport r = sample_report();
  ASSERT_EQ(r.functions.size(), 3u);
  const auto& f1 = r.functions[0];
  ASSERT_EQ(f1.branches.size(), 3u);
  EXPECT_EQ(f1.branches[0].text, "jl 0x40100e");
  EXPECT_EQ(f1.branches[1].text, "jle 0x40101b");
  EXPECT_EQ(f1.branches[2].text, "je 0x40101b");
  EXPECT_EQ(f1.branches[1].fallthrough, 0x401010u);
  EXPECT_EQ(f1.listing[6].text(), "call 0x501000");
  EXPECT_EQ(f1.listing[4].text(), "cmp eax, dword ptr [esi + 0x39]");
  EXPECT_EQ(r.functions[2].branches.at(0).text, "jne 0x404005");
  EXPECT_EQ(r.functions[2].listing[0].text(), "test dword ptr [esi], eax");
}

// ---------------------------------------------------------------------------------------------------
// Terminal text

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The lines from `header` (a function's line) up to the next unindented line.
std::vector<std::string> section(const std::vector<std::string>& lines, const std::string& header_prefix) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& l : lines) {
    if (!l.empty() && l[0] != ' ') {
      if (in) break;
      in = l.rfind(header_prefix, 0) == 0;
    }
    if (in) out.push_back(l);
  }
  return out;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(CoverageText, CountsPerFunctionAndTotal) {
  const Profile p = sample_profile();
  const auto lines = lines_of(format_coverage(sample_report(), &p));
  const auto f1 = section(lines, "tyres::sample");
  ASSERT_FALSE(f1.empty());
  EXPECT_TRUE(contains(f1[0], "0x00401000")) << f1[0];
  EXPECT_TRUE(contains(f1[0], "instructions 8/12")) << f1[0];
  EXPECT_TRUE(contains(f1[0], "edges 3/6")) << f1[0];
  const auto f2 = section(lines, kOddName);
  ASSERT_FALSE(f2.empty());
  EXPECT_TRUE(contains(f2[0], "instructions 1/1") && contains(f2[0], "edges 0/0")) << f2[0];
  const auto f3 = section(lines, "FUN_00404000");  // unnamed: the documents' form
  ASSERT_FALSE(f3.empty());
  EXPECT_TRUE(contains(f3[0], "instructions 0/4") && contains(f3[0], "edges 0/2")) << f3[0];
  ASSERT_FALSE(lines.empty());
  const std::string& total = lines.back();
  EXPECT_EQ(total.rfind("total:", 0), 0u) << total;
  EXPECT_TRUE(contains(total, "3 functions")) << total;
  EXPECT_TRUE(contains(total, "instructions 9/17")) << total;
  EXPECT_TRUE(contains(total, "edges 3/8")) << total;
  EXPECT_TRUE(contains(lines.front(), "5 runs") && contains(lines.front(), "1 faulted")) << lines.front();
}

TEST(CoverageText, NamesEachUntakenEdgeWithItsConditionAndNotTheCoveredOnes) {
  const Profile p = sample_profile();
  const std::string text = format_coverage(sample_report(), &p);
  const auto f1 = section(lines_of(text), "tyres::sample");

  // B2 ran and always jumped: its fallthrough is the untaken edge, with both labels of its compare.
  auto b2 = std::find_if(f1.begin(), f1.end(), [](const std::string& l) { return contains(l, "0x0040100e"); });
  ASSERT_NE(b2, f1.end()) << text;
  EXPECT_TRUE(contains(*b2, "untaken")) << *b2;
  EXPECT_FALSE(contains(*b2, "unreached")) << *b2;
  EXPECT_TRUE(contains(*b2, "jle 0x40101b")) << *b2;
  EXPECT_TRUE(contains(*b2, "fallthrough edge (to 0x00401010)")) << *b2;
  EXPECT_TRUE(contains(*b2, "taken followed 5 times")) << *b2;
  ASSERT_NE(b2 + 1, f1.end());
  EXPECT_TRUE(contains(b2[1], "cmp eax, dword ptr [esi + 0x39]")) << b2[1];
  EXPECT_TRUE(contains(b2[1], kSlidingLabel) && contains(b2[1], kSlidingLabel2)) << b2[1];

  // B3 never ran: said so, both edges, and the call its condition uses named by the profile.
  auto b3 = std::find_if(f1.begin(), f1.end(), [](const std::string& l) { return contains(l, "0x00401017"); });
  ASSERT_NE(b3, f1.end()) << text;
  EXPECT_TRUE(contains(*b3, "unreached")) << *b3;
  EXPECT_TRUE(contains(*b3, "never ran") && contains(*b3, "both edges")) << *b3;
  ASSERT_LT(std::distance(f1.begin(), b3) + 2, static_cast<long>(f1.size()));
  EXPECT_TRUE(contains(b3[1], "call 0x501000") && contains(b3[1], "Tables::length16")) << b3[1];
  EXPECT_TRUE(contains(b3[2], "test eax, eax")) << b3[2];

  // B1 took both edges: not listed, nor its condition's label.
  EXPECT_FALSE(contains(text, "0x00401009")) << text;
  EXPECT_FALSE(contains(text, kCoveredLabel)) << text;

  // F3's memory operand never ran: said, not left blank.
  const auto f3 = section(lines_of(text), "FUN_00404000");
  ASSERT_GE(f3.size(), 3u) << text;
  EXPECT_TRUE(contains(f3[1], "unreached") && contains(f3[1], "jne 0x404005")) << f3[1];
  EXPECT_TRUE(contains(f3[2], "test dword ptr [esi], eax") && contains(f3[2], "never ran")) << f3[2];

  // Exactly the two untaken branches of F1 and the one of F3 are listed.
  std::size_t listed = 0;
  for (const auto& l : lines_of(text))
    if (l.rfind("  untaken", 0) == 0 || l.rfind("  unreached", 0) == 0) ++listed;
  EXPECT_EQ(listed, 3u) << text;
}

TEST(CoverageText, WithoutAProfileACallTargetIsItsAddress) {
  const std::string text = format_coverage(sample_report(), nullptr);
  EXPECT_TRUE(contains(text, "result of 0x00501000")) << text;
  EXPECT_FALSE(contains(text, "Tables::length16")) << text;
}

TEST(CoverageText, SaysWhenAListingIsIncomplete) {
  const auto f2 = section(lines_of(format_coverage(sample_report(), nullptr)), kOddName);
  ASSERT_EQ(f2.size(), 3u);
  EXPECT_TRUE(contains(f2[1], "indirect jump at 0x00402000")) << f2[1];
  EXPECT_TRUE(contains(f2[2], "truncated")) << f2[2];
  const auto f1 = section(lines_of(format_coverage(sample_report(), nullptr)), "tyres::sample");
  for (const auto& l : f1) EXPECT_FALSE(contains(l, "note:")) << l;
}

TEST(CoverageText, EmptyReportHasATotalLine) {
  const std::string text = format_coverage(CoverageReport{}, nullptr);
  EXPECT_EQ(text, "total: 0 functions, instructions 0/0 (-), edges 0/0 (-)\n");
}

// ---------------------------------------------------------------------------------------------------
// JSON

TEST(CoverageJson, ParsesAndHasTheCounts) {
  const Profile p = sample_profile();
  const nlohmann::json j = nlohmann::json::parse(coverage_json(sample_report(), &p));
  EXPECT_EQ(j["format"], "lockstep-coverage");
  EXPECT_EQ(j["runs"], 5);
  EXPECT_EQ(j["faulted"], 1);
  EXPECT_EQ(j["totals"]["functions"], 3);
  EXPECT_EQ(j["totals"]["instructions"]["covered"], 9);
  EXPECT_EQ(j["totals"]["instructions"]["total"], 17);
  EXPECT_EQ(j["totals"]["edges"]["covered"], 3);
  EXPECT_EQ(j["totals"]["edges"]["total"], 8);
  ASSERT_EQ(j["functions"].size(), 3u);

  const auto& f1 = j["functions"][0];
  EXPECT_EQ(f1["address"], "0x00401000");
  EXPECT_EQ(f1["name"], "tyres::sample");
  EXPECT_EQ(f1["instructions"]["covered"], 8);
  EXPECT_EQ(f1["instructions"]["total"], 12);
  EXPECT_EQ(f1["edges"]["covered"], 3);
  EXPECT_EQ(f1["edges"]["total"], 6);
  ASSERT_EQ(f1["listing"].size(), 12u);
  EXPECT_EQ(f1["listing"][4]["address"], "0x0040100b");
  EXPECT_EQ(f1["listing"][4]["hits"], 2);
  EXPECT_EQ(f1["listing"][6]["hits"], 0);
  EXPECT_EQ(f1["listing"][6]["text"], "call 0x501000");

  ASSERT_EQ(f1["branches"].size(), 3u);
  const auto& b1 = f1["branches"][0];
  EXPECT_EQ(b1["taken"], 3);
  EXPECT_EQ(b1["fell_through"], 2);
  EXPECT_TRUE(b1["untaken"].empty());
  const auto& b2 = f1["branches"][1];
  EXPECT_EQ(b2["address"], "0x0040100e");
  EXPECT_EQ(b2["target"], "0x0040101b");
  EXPECT_EQ(b2["fallthrough"], "0x00401010");
  EXPECT_EQ(b2["taken"], 5);
  EXPECT_EQ(b2["fell_through"], 0);
  EXPECT_EQ(b2["reached"], true);
  EXPECT_EQ(b2["untaken"], nlohmann::json::array({"fallthrough"}));
  ASSERT_EQ(b2["condition"].size(), 1u);
  EXPECT_EQ(b2["condition"][0]["labels"], nlohmann::json::array({kSlidingLabel, kSlidingLabel2}));
  EXPECT_EQ(b2["condition"][0]["first_address"], "0x00630950");
  const auto& b3 = f1["branches"][2];
  EXPECT_EQ(b3["reached"], false);
  EXPECT_EQ(b3["untaken"], nlohmann::json::array({"taken", "fallthrough"}));
  EXPECT_EQ(b3["condition"][0]["call_target"], "0x00501000");
  EXPECT_EQ(b3["condition"][0]["call_target_name"], "Tables::length16");
  EXPECT_TRUE(b3["condition"][1]["call_target"].is_null());

  const auto& f2 = j["functions"][1];
  EXPECT_EQ(f2["name"], kOddName);  // JSON escapes it itself, and reads it back intact
  EXPECT_EQ(f2["truncated"], true);
  EXPECT_EQ(f2["indirect_jumps"], nlohmann::json::array({"0x00402000"}));
}

// ---------------------------------------------------------------------------------------------------
// HTML: a small strict parser, enough to check what a browser would build from our pages.

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // all text inside, entities left as written
  bool has_class(const std::string& c) const {
    auto it = attrs.find("class");
    if (it == attrs.end()) return false;
    std::istringstream in(it->second);
    for (std::string w; in >> w;)
      if (w == c) return true;
    return false;
  }
  std::string attr(const std::string& a) const {
    auto it = attrs.find(a);
    return it == attrs.end() ? "" : it->second;
  }
};

struct Dom {
  std::vector<Element> elements;  // document order
  std::string error;              // non-empty: the page is malformed

  std::vector<const Element*> with_class(const std::string& c, const std::string& name = "") const {
    std::vector<const Element*> out;
    for (const auto& e : elements)
      if (e.has_class(c) && (name.empty() || e.name == name)) out.push_back(&e);
    return out;
  }
  const Element* by_id(const std::string& id) const {
    for (const auto& e : elements)
      if (e.attr("id") == id) return &e;
    return nullptr;
  }
  std::set<std::string> ids() const {
    std::set<std::string> out;
    for (const auto& e : elements)
      if (!e.attr("id").empty()) out.insert(e.attr("id"));
    return out;
  }
};

// Strict on purpose: only double-quoted attributes, every non-void element closed in order, text
// with no '<' or '>' and every '&' starting an entity. Our pages are generated, so anything looser
// would be a bug (an unescaped name would show up here as a stray tag or '&').
Dom parse_html(const std::string& s) {
  static const std::set<std::string> kVoid = {"meta", "link", "br", "hr", "img", "input", "wbr", "col"};
  static const std::regex kEntity("^&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);");
  Dom dom;
  std::vector<std::size_t> open;
  std::size_t i = 0;
  auto fail = [&](const std::string& why) {
    dom.error = why + " at offset " + std::to_string(i) + ": " + s.substr(i, 60);
    return dom;
  };
  while (i < s.size()) {
    if (s[i] != '<') {
      const std::size_t end = std::min(s.find('<', i), s.size());
      const std::string text = s.substr(i, end - i);
      for (std::size_t k = 0; k < text.size(); ++k) {
        if (text[k] == '>') return fail("raw '>' in text");
        if (text[k] == '&' && !std::regex_search(text.substr(k, 16), kEntity)) return fail("stray '&' in text");
      }
      for (std::size_t e : open) dom.elements[e].text += text;
      i = end;
      continue;
    }
    if (s.compare(i, 9, "<!DOCTYPE") == 0) {
      i = s.find('>', i) + 1;
      continue;
    }
    const bool closing = i + 1 < s.size() && s[i + 1] == '/';
    std::size_t k = i + (closing ? 2 : 1);
    std::size_t name_end = k;
    while (name_end < s.size() && std::isalnum(static_cast<unsigned char>(s[name_end]))) ++name_end;
    if (name_end == k) return fail("'<' that starts no tag");
    const std::string name = s.substr(k, name_end - k);
    k = name_end;
    if (closing) {
      if (k >= s.size() || s[k] != '>') return fail("bad end tag");
      if (open.empty() || dom.elements[open.back()].name != name) return fail("</" + name + "> closes nothing open");
      open.pop_back();
      i = k + 1;
      continue;
    }
    Element e;
    e.name = name;
    for (;;) {
      while (k < s.size() && s[k] == ' ') ++k;
      if (k >= s.size()) return fail("unterminated tag");
      if (s[k] == '>') break;
      std::size_t an = k;
      while (an < s.size() && (std::isalnum(static_cast<unsigned char>(s[an])) || s[an] == '-')) ++an;
      if (an == k || an + 1 >= s.size() || s[an] != '=' || s[an + 1] != '"') return fail("bad attribute");
      const std::size_t ve = s.find('"', an + 2);
      if (ve == std::string::npos) return fail("unterminated attribute");
      const std::string value = s.substr(an + 2, ve - an - 2);
      if (value.find('<') != std::string::npos || value.find('>') != std::string::npos)
        return fail("raw '<' or '>' in an attribute");
      if (!e.attrs.emplace(s.substr(k, an - k), value).second) return fail("repeated attribute");
      k = ve + 1;
    }
    dom.elements.push_back(std::move(e));
    if (!kVoid.count(name)) open.push_back(dom.elements.size() - 1);
    i = k + 1;
  }
  if (!open.empty()) {
    i = s.size();
    return fail("<" + dom.elements[open.back()].name + "> never closed");
  }
  return dom;
}

TEST(CoverageHtmlParser, RejectsWhatABrowserWouldMisread) {
  EXPECT_TRUE(parse_html("<p>a &amp; b</p>").error.empty());
  EXPECT_FALSE(parse_html("<p>a & b</p>").error.empty());
  EXPECT_FALSE(parse_html("<p>a<b</p>").error.empty());
  EXPECT_FALSE(parse_html("<p><b>x</p></b>").error.empty());
  EXPECT_FALSE(parse_html("<p class=\"a\">x").error.empty());
  EXPECT_FALSE(parse_html("<p>x > y</p>").error.empty());
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CoverageHtml : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("lockstep-coverage-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  Dom page(const std::string& file) {
    const fs::path p = root_ / "report" / file;
    EXPECT_TRUE(fs::is_regular_file(p)) << p;
    Dom d = parse_html(slurp(p));
    EXPECT_EQ(d.error, "") << file;
    return d;
  }
  void write_sample() {
    const Profile p = sample_profile();
    Status s = write_coverage_html(sample_report(), &p, root_ / "report");
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  std::set<std::string> files_in(const fs::path& d) {
    std::set<std::string> out;
    if (fs::is_directory(d))
      for (const auto& e : fs::directory_iterator(d)) out.insert(e.path().filename().string());
    return out;
  }

  fs::path root_;
};

TEST_F(CoverageHtml, IndexLinksEveryPageAndEveryLinkResolves) {
  write_sample();
  const fs::path dir = root_ / "report";
  // Exactly the index, the stylesheet and one page per function; no temporaries left.
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"index.html", "style.css", "fn_00401000.html", "fn_00402000.html",
                                                   "fn_00404000.html"}));

  const Dom index = page("index.html");
  std::vector<std::string> pages;
  for (const auto& e : index.elements) {
    const std::string href = e.attr("href");
    if (e.name == "a" && href.rfind("fn_", 0) == 0) pages.push_back(href);
  }
  EXPECT_EQ(pages, (std::vector<std::string>{"fn_00401000.html", "fn_00402000.html", "fn_00404000.html"}));
  const auto rows = index.with_class("function", "tr");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(contains(rows[0]->text, "8/12") && contains(rows[0]->text, "3/6")) << rows[0]->text;
  EXPECT_TRUE(contains(rows[2]->text, "0/4") && contains(rows[2]->text, "0/2")) << rows[2]->text;
  const auto total = index.with_class("total", "tr");
  ASSERT_EQ(total.size(), 1u);
  EXPECT_TRUE(contains(total[0]->text, "3 functions") && contains(total[0]->text, "9/17") &&
              contains(total[0]->text, "3/8"))
      << total[0]->text;
  EXPECT_EQ(index.with_class("bar").size(), 4u);  // one per function and the total

  // Every link on every page: a fragment that names an id on that page, or a file of the report.
  // Nothing external, no scripts.
  for (const std::string& file : files_in(dir)) {
    if (file == "style.css") continue;
    const Dom d = page(file);
    const auto ids = d.ids();
    for (const auto& e : d.elements) {
      EXPECT_NE(e.name, "script") << file;
      EXPECT_FALSE(e.attrs.count("src")) << file << " <" << e.name << ">";
      const std::string href = e.attr("href");
      if (href.empty()) continue;
      if (href[0] == '#') {
        EXPECT_TRUE(ids.count(href.substr(1))) << file << " links to missing " << href;
      } else {
        EXPECT_EQ(href.find('/'), std::string::npos) << file << ": " << href;
        EXPECT_EQ(href.find(':'), std::string::npos) << file << ": " << href;
        EXPECT_TRUE(fs::is_regular_file(dir / href)) << file << " links to missing " << href;
      }
    }
  }
  const std::string css = slurp(dir / "style.css");
  EXPECT_TRUE(contains(css, ".edge.untaken")) << css;
  EXPECT_FALSE(contains(css, "url(")) << "the stylesheet must fetch nothing";
  EXPECT_FALSE(contains(css, "@import"));
}

TEST_F(CoverageHtml, EachUntakenEdgeIsListedAndMarkedOnItsPage) {
  write_sample();
  const Dom d = page("fn_00401000.html");

  // The list at the top: exactly B2's fallthrough and both edges of B3, in that order.
  const auto listed = d.with_class("untaken-edge", "li");
  std::vector<std::string> ids;
  for (const auto* e : listed) ids.push_back(e->attr("id"));
  EXPECT_EQ(ids, (std::vector<std::string>{"u_0040100e_fallthrough", "u_00401017_taken", "u_00401017_fallthrough"}));
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_FALSE(listed[0]->has_class("unreached"));  // ran, always jumped
  EXPECT_TRUE(listed[1]->has_class("unreached") && listed[2]->has_class("unreached"));
  EXPECT_TRUE(contains(listed[0]->text, "jle 0x40101b")) << listed[0]->text;
  EXPECT_TRUE(contains(listed[0]->text, kSlidingLabel) && contains(listed[0]->text, kSlidingLabel2))
      << listed[0]->text;
  EXPECT_TRUE(contains(listed[0]->text, "taken followed 5 times")) << listed[0]->text;
  EXPECT_TRUE(contains(listed[1]->text, "never ran")) << listed[1]->text;
  EXPECT_TRUE(contains(listed[1]->text, "Tables::length16")) << listed[1]->text;
  EXPECT_EQ(listed[0]->attr("data-edge"), "fallthrough");
  EXPECT_EQ(listed[1]->attr("data-edge"), "taken");

  // In the listing: each branch row carries two edge marks; untaken ones link back to the list.
  std::map<std::string, std::vector<std::pair<std::string, bool>>> marks;  // row id → (edge, untaken)
  std::string row;
  for (const auto& e : d.elements) {
    if (e.name == "tr" && e.has_class("insn")) row = e.attr("id");
    if (e.name == "span" && e.has_class("edge"))
      marks[row].emplace_back(e.attr("data-edge"), e.has_class("untaken"));
  }
  using M = std::vector<std::pair<std::string, bool>>;
  EXPECT_EQ(marks["i_00401009"], (M{{"taken", false}, {"fallthrough", false}}));
  EXPECT_EQ(marks["i_0040100e"], (M{{"taken", false}, {"fallthrough", true}}));
  EXPECT_EQ(marks["i_00401017"], (M{{"taken", true}, {"fallthrough", true}}));
  EXPECT_EQ(marks.size(), 3u);
  const auto untaken_marks = d.with_class("untaken", "span");
  EXPECT_EQ(untaken_marks.size(), 3u);
  for (const auto* m : untaken_marks) EXPECT_TRUE(contains(m->text, "untaken")) << m->text;
  const auto taken_marks = d.with_class("covered", "span");
  ASSERT_EQ(taken_marks.size(), 3u);
  EXPECT_TRUE(contains(taken_marks[0]->text, "taken &times;3 "));
  EXPECT_TRUE(contains(taken_marks[1]->text, "fallthrough &times;2 "));
  EXPECT_TRUE(contains(taken_marks[2]->text, "taken &times;5 "));

  // The condition rows show the labels, including a covered branch's (the page shows everything).
  std::string conditions;
  for (const auto* c : d.with_class("condition", "tr")) conditions += c->text + "\n";
  EXPECT_TRUE(contains(conditions, kCoveredLabel)) << conditions;
  EXPECT_TRUE(contains(conditions, kSlidingLabel)) << conditions;
  EXPECT_EQ(d.with_class("labels").size(), 1u + 2u);  // B1's in its row; B2's in its row and in the list

  // Pages without untaken edges say so; F3's one branch lists both edges.
  const Dom f2 = page("fn_00402000.html");
  EXPECT_TRUE(f2.with_class("untaken-edge").empty());
  EXPECT_EQ(f2.with_class("all-covered").size(), 1u);
  EXPECT_EQ(f2.with_class("indirect").size(), 1u);
  EXPECT_EQ(f2.with_class("truncated").size(), 1u);
  const Dom f3 = page("fn_00404000.html");
  EXPECT_EQ(f3.with_class("untaken-edge").size(), 2u);
  EXPECT_TRUE(contains(f3.with_class("untaken-edge")[0]->text, "never ran"));
}

TEST_F(CoverageHtml, RowsCarryHitsBytesAndUncoveredMarks) {
  write_sample();
  const Dom d = page("fn_00401000.html");
  // Per row: its id, class and the text of its cells, in order.
  struct Row {
    std::string id;
    bool uncovered;
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  for (const auto& e : d.elements) {
    if (e.name == "tr" && e.has_class("insn")) rows.push_back({e.attr("id"), e.has_class("uncovered"), {}});
    else if (e.name == "tr") rows.push_back({"", false, {}});  // header and condition rows end a row
    else if (e.name == "td" && !rows.empty() && !rows.back().id.empty()) rows.back().cells.push_back(e.text);
  }
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const Row& r) { return r.id.empty(); }), rows.end());
  ASSERT_EQ(rows.size(), 12u);
  const std::vector<std::uint64_t> hits = {5, 5, 5, 5, 2, 5, 0, 0, 0, 0, 5, 5};
  const CoverageReport r = sample_report();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Instruction& in = r.functions[0].listing[k];
    ASSERT_EQ(rows[k].cells.size(), 6u) << rows[k].id;
    EXPECT_EQ(rows[k].id, "i_" + fmt::format("{:08x}", in.address));
    EXPECT_EQ(rows[k].uncovered, hits[k] == 0) << rows[k].id;
    EXPECT_EQ(rows[k].cells[0].empty(), hits[k] != 0) << rows[k].id << ": an uncovered row shows a mark";
    EXPECT_EQ(rows[k].cells[1], std::to_string(hits[k])) << rows[k].id;
    EXPECT_EQ(rows[k].cells[2], fmt::format("{:08x}", in.address));
    EXPECT_EQ(rows[k].cells[4], in.text());
  }
  EXPECT_EQ(rows[2].cells[3], "3d 00 80 00 00");
  EXPECT_EQ(rows[6].cells[3], "e8 eb ff 0f 00");
}

TEST_F(CoverageHtml, EscapesNamesAndTexts) {
  write_sample();
  const fs::path dir = root_ / "report";
  const std::string escaped = "odd&lt;name&gt; &amp; &quot;q&quot; &#39;x&#39;";
  for (const std::string file : {"index.html", "fn_00402000.html"}) {
    const std::string html = slurp(dir / file);
    EXPECT_TRUE(contains(html, escaped)) << file;
    EXPECT_FALSE(contains(html, "odd<name>")) << file;
    EXPECT_TRUE(parse_html(html).error.empty()) << parse_html(html).error;
  }
  // The source line and the <title> go through the same escaping.
  EXPECT_TRUE(contains(slurp(dir / "index.html"), "hand-made &lt;sample&gt; &amp; co"));
  EXPECT_TRUE(contains(slurp(dir / "fn_00402000.html"), "<title>" + escaped + " 0x00402000"));
}

TEST_F(CoverageHtml, RewritingAReportReplacesItsFiles) {
  write_sample();
  CoverageReport r = sample_report();
  r.functions[0].branches[1].fell_through = 4;  // B2 now covered
  const Profile p = sample_profile();
  ASSERT_TRUE(write_coverage_html(r, &p, root_ / "report").ok());
  const Dom d = page("fn_00401000.html");
  EXPECT_EQ(d.with_class("untaken-edge").size(), 2u);
  EXPECT_EQ(d.by_id("u_0040100e_fallthrough"), nullptr);
  EXPECT_EQ(files_in(root_ / "report").size(), 5u);
}

TEST_F(CoverageHtml, RepeatedEntriesGetTheirOwnPages) {
  CoverageReport r = sample_report();
  r.functions.push_back(r.functions[0]);
  ASSERT_TRUE(write_coverage_html(r, nullptr, root_ / "report").ok());
  EXPECT_TRUE(fs::is_regular_file(root_ / "report" / "fn_00401000_2.html"));
  const Dom index = page("index.html");
  std::size_t links = 0;
  for (const auto& e : index.elements) links += e.name == "a" && e.attr("href").rfind("fn_", 0) == 0;
  EXPECT_EQ(links, 4u);
}

TEST_F(CoverageHtml, EmptyReportWritesAnIndex) {
  ASSERT_TRUE(write_coverage_html(CoverageReport{}, nullptr, root_ / "a" / "b" / "report").ok());
  const fs::path dir = root_ / "a" / "b" / "report";
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"index.html", "style.css"}));
  const Dom d = parse_html(slurp(dir / "index.html"));
  EXPECT_EQ(d.error, "");
  EXPECT_TRUE(d.with_class("function", "tr").empty());
}

// Root (CI runs as root) may write anywhere permissions allow, so an unwritable path is built from
// what no one can do: a directory under a regular file.
TEST_F(CoverageHtml, AnUnwritablePathFailsCleanly) {
  const fs::path file = root_ / "plain-file";
  std::ofstream(file) << "not a directory";
  const fs::path dir = file / "report";
  Status s = write_coverage_html(sample_report(), nullptr, dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::kIo);
  // The folder is made under a temporary name beside it, so the error names the parent it could not use.
  EXPECT_TRUE(contains(s.error().message, file.string())) << s.error().message;
  EXPECT_EQ(files_in(root_), (std::set<std::string>{"plain-file"}));
  EXPECT_EQ(slurp(file), "not a directory");

  // The report directory itself a regular file: refused, the file untouched.
  Status s2 = write_coverage_html(sample_report(), nullptr, file);
  ASSERT_FALSE(s2.ok());
  EXPECT_EQ(s2.error().code, Errc::kUsage);
  EXPECT_TRUE(contains(s2.error().message, "is not a folder")) << s2.error().message;
  EXPECT_EQ(slurp(file), "not a directory");
}

// The report folder is replaced whole: an old folder's entries, even a directory where the index goes,
// do not survive into the new report.
TEST_F(CoverageHtml, AnOldReportFolderIsReplacedWhole) {
  const fs::path dir = root_ / "report";
  fs::create_directories(dir / "index.html");  // a directory where the index goes
  std::ofstream(dir / "stale.html") << "old";
  Status s = write_coverage_html(sample_report(), nullptr, dir);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(fs::is_regular_file(dir / "index.html"));
  EXPECT_FALSE(fs::exists(dir / "stale.html"));
}

}  // namespace
}  // namespace lockstep::harness::test
