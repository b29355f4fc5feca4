// `lockstep progress` on checked-in corpora with POD's bindings: every function of pod.toml listed,
// counts equal to the corpora's manifests, modules the names' namespaces, code sizes equal to the
// stand-in's symbol table as binutils reads it; `--changes` after a deliberately wrong port (exit 1,
// the first mismatching case named) and after it is put right; objdiff's report checked against the
// fields of objdiff's report.proto.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/io.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/coverage/coverage_report.hpp"
#include "lockstep/progress/progress.hpp"
#include "lockstep/replay/replay.hpp"
#include "lockstep/profile/profile.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

using namespace lockstep;
using nlohmann::json;
namespace fs = std::filesystem;

const std::string kProfile = LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml";
const std::string kPutback = LOCKSTEP_SOURCE_DIR "/cases/standin-putback";
const std::string kPaths = LOCKSTEP_SOURCE_DIR "/cases/standin-paths";

// A file's text (empty when it cannot be read: the expectations on it then fail).
std::string slurp(const std::string& path) {
  auto bytes = read_file(path, 64u << 20);
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
}

struct Ran {
  int code;
  std::string out, err;
};

Ran lockstep_run(const std::vector<std::string>& args, const cases::BindingSet& bindings = pod::bindings::all()) {
  std::ostringstream out, err;
  const int code = cli::run(args, cli::Io{out, err}, bindings);
  return {code, out.str(), err.str()};
}

json read_json(const fs::path& p) { return json::parse(slurp(p.string()), nullptr, false); }

class Progress : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lockstep-progress-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// POD's bindings with `name`'s port made wrong: it throws, so every case of it mismatches.
cases::BindingSet with_wrong(const std::string& name) {
  cases::BindingSet set = pod::bindings::all();
  for (auto& b : set)
    if (b.name == name)
      b = cases::with_edited_effects(std::move(b), [](const cases::Case&, cases::PortEffects& fx) {
        fx.error = "made wrong by the test";
      });
  return set;
}

// The reports the CLI reads back (progress --changes, progress --coverage, replay --baseline and
// merge-reports) are bounded by their format's limits: a caller's smaller bound is honoured.
TEST(ReportLimits, ACallersOwnBoundIsHonoured) {
  const fs::path dir = fs::temp_directory_path() / ("lockstep_report_limits_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "report.json";
  const std::string text = R"({"format": "lockstep-replay"})";
  ASSERT_TRUE(lockstep::write_file_atomic(file, text).ok());
  const std::uint64_t size = text.size();
  auto refused = [&](const lockstep::Result<std::string>& r) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, lockstep::Errc::kLimit) << r.error().message;
    EXPECT_NE(r.error().message.find(fmt::format("is {} bytes, past the limit of {} bytes", size, size - 1)),
              std::string::npos)
        << r.error().message;
  };
  EXPECT_EQ(*lockstep::harness::read_replay_report(file), text);
  EXPECT_EQ(*lockstep::harness::read_progress_report(file), text);
  EXPECT_EQ(*lockstep::harness::read_coverage_report(file), text);
  refused(lockstep::harness::read_replay_report(file, {.max_file_bytes = size - 1}));
  refused(lockstep::harness::read_progress_report(file, {.max_file_bytes = size - 1}));
  refused(lockstep::harness::read_coverage_report(file, {.max_file_bytes = size - 1}));
  fs::remove_all(dir);
}

TEST_F(Progress, ListsEveryFunctionOfTheProfileWithTheManifestsCounts) {
  const Ran r = lockstep_run({"progress", kPutback, kPaths, "--profile", kProfile, "--json", at("p.json")});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  const json p = read_json(at("p.json"));
  auto profile = harness::load_profile(kProfile);
  ASSERT_TRUE(profile.ok());
  std::map<std::string, json> by_address;
  for (const auto& f : p["functions"]) by_address[f["address"].get<std::string>()] = f;
  for (const auto& f : profile->functions) {
    const auto it = by_address.find(fmt::format("0x{:08x}", f.address));
    ASSERT_NE(it, by_address.end()) << f.name << " of the profile is not in the report";
    EXPECT_EQ(it->second["name"], f.name);
    EXPECT_TRUE(it->second["in_profile"].get<bool>());
  }
  // Cases per function: the sum of the two manifests' counts (read here, not through lockstep).
  std::map<std::string, std::uint32_t> manifest_cases;
  std::uint64_t total = 0;
  for (const auto& corpus : {kPutback, kPaths}) {
    const json manifest = read_json(fs::path(corpus) / "manifest.json");
    for (const auto& e : manifest["functions"]) {
      manifest_cases[e["address"].get<std::string>()] += e["cases"].get<std::uint32_t>();
      total += e["cases"].get<std::uint32_t>();
    }
  }
  std::uint32_t matched_functions = 0;
  for (const auto& [address, f] : by_address) {
    const auto want = manifest_cases.count(address) ? manifest_cases[address] : 0;
    EXPECT_EQ(f["cases"].get<std::uint32_t>(), want) << address;
    // The stand-in's corpora all match (README): matched == cases wherever there are cases.
    EXPECT_EQ(f["matched"].get<std::uint32_t>(), want) << address;
    EXPECT_EQ(f["all_matched"].get<bool>(), want > 0) << address << ": matched means cases, all of them matched";
    matched_functions += want > 0;
  }
  EXPECT_EQ(p["totals"]["cases"].get<std::uint64_t>(), total);
  EXPECT_EQ(p["totals"]["matched_functions"].get<std::uint32_t>(), matched_functions);
  EXPECT_EQ(p["totals"]["functions"].get<std::uint32_t>(), by_address.size());
  EXPECT_NE(r.out.find("putback::put_back"), std::string::npos) << r.out;
}

TEST_F(Progress, ModulesAreTheNamesNamespaces) {
  ASSERT_EQ(lockstep_run({"progress", kPutback, "--profile", kProfile, "--json", at("p.json")}).code, kExitOk);
  const json p = read_json(at("p.json"));
  std::map<std::string, std::pair<std::uint32_t, std::uint64_t>> want;  // module -> functions, cases
  for (const auto& f : p["functions"]) {
    const std::string name = f["name"];
    const auto sep = name.rfind("::");
    const std::string module = sep == std::string::npos ? "(global)" : name.substr(0, sep);
    EXPECT_EQ(f["module"], module) << name;
    ++want[module].first;
    want[module].second += f["cases"].get<std::uint64_t>();
  }
  ASSERT_EQ(p["modules"].size(), want.size());
  for (const auto& m : p["modules"]) {
    EXPECT_EQ(m["functions"].get<std::uint32_t>(), want[m["name"]].first) << m["name"];
    EXPECT_EQ(m["cases"].get<std::uint64_t>(), want[m["name"]].second) << m["name"];
  }
}

#ifdef STANDIN_EXE
// binutils' reading of the stand-in's symbol table: address -> size of each FUNC symbol.
std::map<std::string, std::uint32_t> readelf_function_sizes() {
  std::map<std::string, std::uint32_t> out;
  FILE* p = ::popen("readelf -sW '" STANDIN_EXE "'", "r");
  if (!p) return out;
  char line[512];
  while (std::fgets(line, sizeof line, p)) {
    char value[32], type[32], bind[32], vis[32], ndx[32], name[256];
    unsigned size = 0, num = 0;
    if (std::sscanf(line, " %u: %31s %u %31s %31s %31s %31s %255s", &num, value, &size, type, bind, vis, ndx, name) == 8 &&
        std::string(type) == "FUNC" && std::string(ndx) != "UND" && std::string(bind) != "LOCAL")
      out.emplace("0x" + std::string(value), size);
  }
  ::pclose(p);
  return out;
}

TEST_F(Progress, CodeSizesFromTheSymbolTableAsReadelfReadsIt) {
  ASSERT_EQ(lockstep_run({"progress", kPutback, "--profile", kProfile, "--snapshot", STANDIN_EXE, "--json", at("p.json")})
                .code,
            kExitOk);
  const auto sizes = readelf_function_sizes();
  ASSERT_FALSE(sizes.empty()) << "readelf read no symbols of " STANDIN_EXE;
  std::size_t checked = 0;
  const json report = read_json(at("p.json"));
  for (const auto& f : report["functions"]) {
    const auto it = sizes.find(f["address"].get<std::string>());
    if (it == sizes.end() || it->second == 0) continue;
    EXPECT_EQ(f["code_size_source"], "symbol") << f["name"];
    EXPECT_EQ(f["code_bytes"].get<std::uint32_t>(), it->second) << f["name"];
    ++checked;
  }
  EXPECT_GT(checked, 50u) << "the stand-in has a symbol at most of POD's addresses";
  // With --follow-helpers, Capstone measures the thunk and the body it calls: more than the thunk.
  ASSERT_EQ(lockstep_run({"progress", kPutback, "--profile", kProfile, "--snapshot", STANDIN_EXE, "--follow-helpers",
                          "--json", at("h.json")})
                .code,
            kExitOk);
  const json helpers = read_json(at("h.json"));
  for (const auto& f : helpers["functions"])
    if (f["name"] == "putback::put_back") {
      EXPECT_EQ(f["code_size_source"], "capstone");
      EXPECT_GT(f["code_bytes"].get<std::uint32_t>(), sizes.at(f["address"].get<std::string>()));
    }
}
#endif

TEST_F(Progress, ChangesAfterAWrongPortExitOneNamingTheFirstMismatchingCase) {
  ASSERT_EQ(lockstep_run({"progress", kPutback, "--profile", kProfile, "--json", at("old.json")}).code, kExitOk);
  const Ran r = lockstep_run({"progress", kPutback, "--profile", kProfile, "--changes", at("old.json"), "--json",
                              at("new.json")},
                             with_wrong("putback::place"));
  EXPECT_EQ(r.code, kExitMismatch) << r.out << r.err;
  EXPECT_NE(r.out.find("**Regressed (1)**"), std::string::npos) << r.out;
  // Every case of the wrong port mismatches: the first mismatching one is the file's first case.
  auto corpus = cases::read_corpus(kPutback);
  ASSERT_TRUE(corpus.ok());
  std::uint32_t first_id = 0;
  for (const auto& f : corpus->files)
    if (f.name == "putback::place") first_id = f.cases.front().id;
  const std::string replay_line = fmt::format("`lockstep replay {} --case 0x00423538:{}`", kPutback, first_id);
  EXPECT_NE(r.out.find("`putback::place` (0x00423538)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(replay_line), std::string::npos) << r.out;
  // And back: the port put right is newly matched, nothing regressed (exit 0).
  const Ran back = lockstep_run({"progress", kPutback, "--profile", kProfile, "--changes", at("new.json")});
  EXPECT_EQ(back.code, kExitOk) << back.out << back.err;
  EXPECT_NE(back.out.find("**Newly matched (1)**"), std::string::npos) << back.out;
  EXPECT_EQ(back.out.find("Regressed"), std::string::npos) << back.out;
}

TEST_F(Progress, ChangesRefuseAReportOfAnotherFormat) {
  ASSERT_TRUE(write_file_atomic(at("not.json"), std::string_view("{\"format\": \"lockstep-coverage\"}")).ok());
  const Ran r = lockstep_run({"progress", kPutback, "--profile", kProfile, "--changes", at("not.json")});
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_NE(r.err.find("not a `lockstep progress --json` report"), std::string::npos) << r.err;
}

// --- objdiff's report format ----------------------------------------------------------------------
// The fields of objdiff's report.proto (objdiff-core/protos/report.proto in encounter/objdiff,
// `package objdiff.report`, report version 2 as objdiff-core/src/bindings/report.rs says), with
// their proto3 types. objdiff writes it through pbjson with preserve_proto_field_names (its
// objdiff-core/build.rs), so the JSON keys are the proto names; protobuf's JSON mapping
// (protobuf.dev/programming-guides/json) writes uint64 as a decimal string, uint32 and float as
// numbers, repeated fields as arrays, messages as objects.
enum class Kind { kU64, kU32, kFloat, kString, kBool, kMessage, kRepeatedMessage, kRepeatedString };
struct Field {
  Kind kind;
  std::string message;  // for message kinds
};
using Schema = std::map<std::string, std::map<std::string, Field>>;
const Schema& report_proto() {
  static const Schema s = {
      {"Report",
       {{"measures", {Kind::kMessage, "Measures"}}, {"units", {Kind::kRepeatedMessage, "ReportUnit"}},
        {"version", {Kind::kU32, ""}}, {"categories", {Kind::kRepeatedMessage, "ReportCategory"}}}},
      {"Measures",
       {{"fuzzy_match_percent", {Kind::kFloat, ""}}, {"total_code", {Kind::kU64, ""}}, {"matched_code", {Kind::kU64, ""}},
        {"matched_code_percent", {Kind::kFloat, ""}}, {"total_data", {Kind::kU64, ""}}, {"matched_data", {Kind::kU64, ""}},
        {"matched_data_percent", {Kind::kFloat, ""}}, {"total_functions", {Kind::kU32, ""}},
        {"matched_functions", {Kind::kU32, ""}}, {"matched_functions_percent", {Kind::kFloat, ""}},
        {"complete_code", {Kind::kU64, ""}}, {"complete_code_percent", {Kind::kFloat, ""}},
        {"complete_data", {Kind::kU64, ""}}, {"complete_data_percent", {Kind::kFloat, ""}},
        {"total_units", {Kind::kU32, ""}}, {"complete_units", {Kind::kU32, ""}}}},
      {"ReportCategory",
       {{"id", {Kind::kString, ""}}, {"name", {Kind::kString, ""}}, {"measures", {Kind::kMessage, "Measures"}}}},
      {"ReportUnit",
       {{"name", {Kind::kString, ""}}, {"measures", {Kind::kMessage, "Measures"}},
        {"sections", {Kind::kRepeatedMessage, "ReportItem"}}, {"functions", {Kind::kRepeatedMessage, "ReportItem"}},
        {"metadata", {Kind::kMessage, "ReportUnitMetadata"}}}},
      {"ReportUnitMetadata",
       {{"complete", {Kind::kBool, ""}}, {"module_name", {Kind::kString, ""}}, {"module_id", {Kind::kU32, ""}},
        {"source_path", {Kind::kString, ""}}, {"progress_categories", {Kind::kRepeatedString, ""}},
        {"auto_generated", {Kind::kBool, ""}}}},
      {"ReportItem",
       {{"name", {Kind::kString, ""}}, {"size", {Kind::kU64, ""}}, {"fuzzy_match_percent", {Kind::kFloat, ""}},
        {"metadata", {Kind::kMessage, "ReportItemMetadata"}}}},
      {"ReportItemMetadata", {{"demangled_name", {Kind::kString, ""}}, {"virtual_address", {Kind::kU64, ""}}}},
  };
  return s;
}

// Every key of `j` a field of `message`, every value of its field's JSON type; problems listed.
void check_message(const json& j, const std::string& message, const std::string& path, std::vector<std::string>& bad) {
  if (!j.is_object()) { bad.push_back(path + ": not an object"); return; }
  const auto& fields = report_proto().at(message);
  for (const auto& [key, value] : j.items()) {
    const auto f = fields.find(key);
    const std::string at = path + "." + key;
    if (f == fields.end()) { bad.push_back(at + ": no such field in " + message); continue; }
    switch (f->second.kind) {
      case Kind::kU64:
        if (!value.is_string() || value.get<std::string>().empty() ||
            value.get<std::string>().find_first_not_of("0123456789") != std::string::npos)
          bad.push_back(at + ": a uint64 must be a decimal string");
        break;
      case Kind::kU32: if (!value.is_number_unsigned()) bad.push_back(at + ": a uint32 must be a number"); break;
      case Kind::kFloat: if (!value.is_number()) bad.push_back(at + ": a float must be a number"); break;
      case Kind::kString: if (!value.is_string()) bad.push_back(at + ": not a string"); break;
      case Kind::kBool: if (!value.is_boolean()) bad.push_back(at + ": not a bool"); break;
      case Kind::kMessage: check_message(value, f->second.message, at, bad); break;
      case Kind::kRepeatedMessage:
        if (!value.is_array()) { bad.push_back(at + ": not an array"); break; }
        for (std::size_t i = 0; i < value.size(); ++i)
          check_message(value[i], f->second.message, at + "[" + std::to_string(i) + "]", bad);
        break;
      case Kind::kRepeatedString:
        if (!value.is_array()) bad.push_back(at + ": not an array");
        else for (const auto& s : value) if (!s.is_string()) bad.push_back(at + ": an element not a string");
        break;
    }
  }
}

std::vector<std::string> objdiff_problems(const json& j) {
  std::vector<std::string> bad;
  check_message(j, "Report", "report", bad);
  return bad;
}

TEST_F(Progress, ObjdiffReportHasOnlyReportProtosFieldsWithTheirTypes) {
  ASSERT_EQ(lockstep_run({"progress", kPutback, kPaths, "--profile", kProfile, "--objdiff", at("o.json"), "--json",
                          at("p.json")})
                .code,
            kExitOk);
  const json o = read_json(at("o.json"));
  const auto bad = objdiff_problems(o);
  EXPECT_TRUE(bad.empty()) << ::testing::PrintToString(bad);
  EXPECT_EQ(o["version"], 2);
  // The meaning: a unit per module, a function item per function, fuzzy = cases matched / cases.
  const json p = read_json(at("p.json"));
  EXPECT_EQ(o["units"].size(), p["modules"].size());
  std::map<std::uint64_t, json> items;
  std::uint64_t code = 0;
  for (const auto& u : o["units"]) {
    code += std::stoull(u["measures"]["total_code"].get<std::string>());
    for (const auto& f : u["functions"]) items[std::stoull(f["metadata"]["virtual_address"].get<std::string>())] = f;
  }
  EXPECT_EQ(std::to_string(code), o["measures"]["total_code"].get<std::string>());
  ASSERT_EQ(items.size(), p["functions"].size());
  for (const auto& f : p["functions"]) {
    const json& item = items.at(std::stoull(f["address"].get<std::string>(), nullptr, 16));
    const double cases = f["cases"].get<double>();
    EXPECT_DOUBLE_EQ(item["fuzzy_match_percent"].get<double>(), cases ? 100.0 * f["matched"].get<double>() / cases : 0.0);
    EXPECT_EQ(item["name"], f["name"]);
  }
  EXPECT_EQ(o["measures"]["total_functions"].get<std::uint32_t>(), p["functions"].size());
}

TEST(ObjdiffSchemaCheck, RefusesWhatReportProtoLacks) {
  // The check above could fail: a field name of another spelling, a uint64 as a number, a nested
  // unknown field are each found.
  json j = json::parse(R"({"measures": {"total_code": "12"}, "units": [], "version": 2})");
  EXPECT_TRUE(objdiff_problems(j).empty());
  j["measures"]["totalCode"] = "12";
  EXPECT_EQ(objdiff_problems(j).size(), 1u);
  j["measures"].erase("totalCode");
  j["measures"]["total_code"] = 12;
  EXPECT_EQ(objdiff_problems(j).size(), 1u);
  j["measures"]["total_code"] = "12";
  j["units"].push_back(json::parse(R"({"name": "m", "functions": [{"name": "f", "address": "0x1"}]})"));
  EXPECT_EQ(objdiff_problems(j).size(), 1u);
}

TEST_F(Progress, HtmlPageHasABarPerModuleAndNoExternalResource) {
  ASSERT_EQ(lockstep_run({"progress", kPutback, "--profile", kProfile, "--html", at("html"), "--json", at("p.json")})
                .code,
            kExitOk);
  const std::string page = slurp(at("html/index.html"));
  const json p = read_json(at("p.json"));
  std::size_t rows = 0, at_ = 0;
  while ((at_ = page.find("<tr class=\"module\">", at_)) != std::string::npos) ++rows, ++at_;
  EXPECT_EQ(rows, p["modules"].size());
  // Nothing fetched: the only URL is the SVG namespace's name (never loaded); no scripts.
  auto count = [&page](std::string_view s) {
    std::size_t n = 0;
    for (auto i = page.find(s); i != std::string::npos; i = page.find(s, i + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("http"), count("xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count("<script"), 0u);
  EXPECT_EQ(count("<svg"), 1u);
}

}  // namespace
