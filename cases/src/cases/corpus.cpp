#include "lockstep/cases/corpus.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/folder.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/base/parallel.hpp"
#include "lockstep/base/numbers.hpp"
#include "lockstep/cases/function_list_json.hpp"

namespace lockstep::cases {

namespace {
constexpr const char* kManifestName = "manifest.json";

bool is_sha256_hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (char ch : s)
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  return true;
}
}  // namespace

std::string case_file_name(GuestAddr function, const std::string& name) {
  std::string safe;
  for (char ch : name) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_') safe += ch;
    else if (!safe.empty() && safe.back() != '-') safe += '-';
  }
  while (!safe.empty() && safe.back() == '-') safe.pop_back();
  return fmt::format("{:08x}{}{}.lkcases", function, safe.empty() ? "" : "_", safe);
}

Status write_manifest(const std::filesystem::path& dir, const Manifest& m) {
  nlohmann::ordered_json j;
  j["format"] = "lockstep-corpus";
  j["version"] = kCorpusVersion;
  j["profile"] = m.profile;
  if (!m.profile_path.empty()) {
    j["profile_path"] = m.profile_path;
    j["profile_sha256"] = m.profile_sha256;
  }
  j["snapshot_sha256"] = m.snapshot_sha256;
  j["steplog_sha256"] = m.steplog_sha256;
  j["command"] = m.command;
  j["driver"] = m.driver;
  std::uint64_t total = 0;
  j["functions"] = function_list_json(m.functions, [&total](const auto& e, nlohmann::ordered_json& f) {
    f["file"] = e.file;
    f["cases"] = e.cases;
    f["poked"] = e.poked;
    total += e.cases;
  });
  j["total_cases"] = total;
  return write_file_atomic(dir / kManifestName, j.dump(2) + "\n");
}

Result<Manifest> read_manifest(const std::filesystem::path& dir, const CorpusLimits& limits) {
  const auto path = dir / kManifestName;
  LOCKSTEP_TRY(auto bytes, read_file(path, limits.max_manifest_bytes));
  return decode_manifest(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path.string(),
                         limits);
}

Result<Manifest> decode_manifest(std::string_view text, const std::string& what, const CorpusLimits& limits) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Error::make(Errc::kMalformed, "{}: not valid JSON", what);
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || format->get<std::string>() != "lockstep-corpus")
    return Error::make(Errc::kBadMagic, "{}: \"format\" is not \"lockstep-corpus\"", what);
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_unsigned() || version->get<std::uint64_t>() < kOldestCorpusVersion ||
      version->get<std::uint64_t>() > kCorpusVersion)
    return Error::make(Errc::kBadVersion, "{}: corpus version is not {} to {} (a newer lockstep wrote it?)", what,
                       kOldestCorpusVersion, kCorpusVersion);

  // Every field is checked for its type here, so nothing below can throw.
  auto text_field = [&](const nlohmann::json& o, const char* key, bool required, std::string_view where,
                        std::string& out) -> Status {
    const auto it = o.find(key);
    if (it == o.end()) {
      if (required) return Error::make(Errc::kMalformed, "{}: {}: missing \"{}\"", what, where, key);
      return {};
    }
    if (!it->is_string()) return Error::make(Errc::kMalformed, "{}: {}: \"{}\" must be a string", what, where, key);
    out = it->get<std::string>();
    return {};
  };
  auto count_field = [&](const nlohmann::json& o, const char* key, bool required, std::uint64_t max,
                         std::string_view where, std::uint64_t& out) -> Status {
    const auto it = o.find(key);
    if (it == o.end()) {
      if (required) return Error::make(Errc::kMalformed, "{}: {}: missing \"{}\"", what, where, key);
      return {};
    }
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() > max)
      return Error::make(Errc::kMalformed, "{}: {}: \"{}\" must be a whole number from 0 to {}", what, where, key,
                         max);
    out = it->get<std::uint64_t>();
    return {};
  };

  Manifest m;
  LOCKSTEP_TRY_STATUS(text_field(j, "profile", false, "top level", m.profile));
  LOCKSTEP_TRY_STATUS(text_field(j, "profile_path", false, "top level", m.profile_path));
  LOCKSTEP_TRY_STATUS(text_field(j, "profile_sha256", false, "top level", m.profile_sha256));
  if (m.profile_path.empty() != m.profile_sha256.empty())
    return Error::make(Errc::kMalformed, "{}: \"profile_path\" and \"profile_sha256\" come together (both non-empty) "
                       "or not at all", what);
  if (!m.profile_sha256.empty() && !is_sha256_hex(m.profile_sha256))
    return Error::make(Errc::kMalformed, "{}: \"profile_sha256\" must be 64 lowercase hex digits, not \"{}\"", what,
                       m.profile_sha256.substr(0, 80));
  if (m.profile_path.find('\0') != std::string::npos || m.profile_path.size() > 4096)
    return Error::make(Errc::kMalformed, "{}: \"profile_path\" must be a file path (no NUL, at most 4096 bytes)", what);
  LOCKSTEP_TRY_STATUS(text_field(j, "snapshot_sha256", false, "top level", m.snapshot_sha256));
  LOCKSTEP_TRY_STATUS(text_field(j, "steplog_sha256", false, "top level", m.steplog_sha256));
  LOCKSTEP_TRY_STATUS(text_field(j, "command", false, "top level", m.command));
  LOCKSTEP_TRY_STATUS(text_field(j, "driver", false, "top level", m.driver));
  const auto fs = j.find("functions");
  if (fs == j.end() || !fs->is_array() || fs->empty() || fs->size() > limits.max_functions)
    return Error::make(Errc::kMalformed, "{}: \"functions\" must be an array of 1 to {} entries (a corpus without "
                       "functions would pass any gate)", what, limits.max_functions);
  std::uint64_t total = 0;
  std::set<std::string> files;
  for (std::size_t i = 0; i < fs->size(); ++i) {
    const auto& f = (*fs)[i];
    const std::string where = fmt::format("functions[{}]", i);
    if (!f.is_object()) return Error::make(Errc::kMalformed, "{}: {} must be an object", what, where);
    CorpusEntry e;
    std::string address;
    LOCKSTEP_TRY_STATUS(text_field(f, "address", true, where, address));
    auto a = parse_hex_number(address, 0xffffffffu);
    if (!address.starts_with("0x") || address.size() > 10 || !a.ok())  // at most 8 digits (case-format.md)
      return Error::make(Errc::kMalformed, "{}: {}: address \"{}\" is not a 32-bit 0x-hex address", what, where,
                         address);
    e.function = static_cast<GuestAddr>(*a);
    LOCKSTEP_TRY_STATUS(text_field(f, "name", true, where, e.name));
    LOCKSTEP_TRY_STATUS(text_field(f, "file", true, where, e.file));
    std::uint64_t cases = 0, poked = 0;
    LOCKSTEP_TRY_STATUS(count_field(f, "cases", true, limits.case_file.max_cases, where, cases));
    LOCKSTEP_TRY_STATUS(count_field(f, "poked", false, cases, where, poked));
    e.cases = static_cast<std::uint32_t>(cases);
    e.poked = static_cast<std::uint32_t>(poked);
    if (e.file.empty() || e.file.find('/') != std::string::npos || e.file.starts_with("."))
      return Error::make(Errc::kMalformed, "{}: {}: file name \"{}\" must be a plain name inside the corpus", what,
                         where, e.file);
    if (!m.functions.empty() && e.function <= m.functions.back().function)
      return Error::make(Errc::kMalformed, "{}: {}: 0x{:08x} {} (the list ascends by address, each function once)",
                         what, where, e.function,
                         e.function == m.functions.back().function ? "is listed twice" : "is out of order");
    if (!files.insert(e.file).second)
      return Error::make(Errc::kMalformed, "{}: {}: file \"{}\" is named twice", what, where, e.file);
    total += e.cases;
    m.functions.push_back(std::move(e));
  }
  std::uint64_t stated_total = 0;
  LOCKSTEP_TRY_STATUS(count_field(j, "total_cases", true, UINT64_MAX, "top level", stated_total));
  if (stated_total != total)
    return Error::make(Errc::kMalformed, "{}: \"total_cases\" is {}, the functions' cases add up to {}", what,
                       stated_total, total);
  if (total == 0) return Error::make(Errc::kMalformed, "{}: the corpus holds no cases", what);
  return m;
}

namespace {

bool is_corpus_file(const std::string& name) {
  return name == kManifestName || name.ends_with(".lkcases") || name.find(".tmp.") != std::string::npos;
}

}  // namespace

Status write_corpus(const std::filesystem::path& dir_in, Manifest m, const std::vector<CaseFile>& files,
                    unsigned jobs) {
  std::filesystem::path dir = dir_in.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "out/" → "out"
  if (dir.empty() || dir.filename() == "." || dir.filename() == "..")
    return Error::make(Errc::kUsage, "{}: give the corpus folder by name (e.g. cases/mine)", dir_in.string());
  std::uint64_t total = 0;
  for (const CaseFile& f : files) total += f.cases.size();
  // A corpus of no cases is one every reader refuses: never written, so it never replaces a good one.
  if (total == 0)
    return Error::make(Errc::kUsage, "{}: no cases to write (the corpus would hold none); nothing was written",
                       dir.string());
  // Encoding (compression, mostly) is the costly part: spread over the threads, written in order.
  std::vector<std::vector<std::uint8_t>> encoded(files.size());
  parallel_for(jobs, files.size(), [&](unsigned, std::size_t i) { encoded[i] = encode_case_file(files[i]); });

  m.functions.clear();
  auto fill = [&](const std::filesystem::path& next) -> Status {
    for (std::size_t i = 0; i < files.size(); ++i) {
      const CaseFile& f = files[i];
      CorpusEntry e;
      e.function = f.function;
      e.name = f.name;
      e.file = case_file_name(f.function, f.name);
      e.cases = static_cast<std::uint32_t>(f.cases.size());
      e.poked = static_cast<std::uint32_t>(std::count_if(f.cases.begin(), f.cases.end(),
                                                         [](const Case& c) { return c.poked(); }));
      LOCKSTEP_TRY_STATUS(write_file_atomic(next / e.file, encoded[i]));
      m.functions.push_back(std::move(e));
    }
    std::sort(m.functions.begin(), m.functions.end(),
              [](const CorpusEntry& a, const CorpusEntry& b) { return a.function < b.function; });
    return write_manifest(next, m);
  };
  // Files beside the cases that are not part of a corpus (a note) are carried into the new folder.
  return replace_folder(dir, fill, [](const std::string& name) { return !is_corpus_file(name); });
}

Result<Corpus> read_corpus(const std::filesystem::path& dir, const CorpusLimits& limits) {
  std::error_code ec;
  const auto st = std::filesystem::status(dir, ec);
  if (!std::filesystem::exists(st))
    return Error::make(Errc::kNotFound, "{}: no such corpus folder", dir.string());
  if (!std::filesystem::is_directory(st))
    return Error::make(Errc::kUsage, "{} is not a folder; a corpus is a folder holding manifest.json and case files",
                       dir.string());
  Corpus c;
  const auto manifest_path = dir / kManifestName;
  LOCKSTEP_TRY(auto manifest_bytes, read_file(manifest_path, limits.max_manifest_bytes));
  LOCKSTEP_TRY(c.manifest, decode_manifest(std::string_view(reinterpret_cast<const char*>(manifest_bytes.data()),
                                                            manifest_bytes.size()),
                                           manifest_path.string(), limits));
  c.manifest_sha256 = to_hex(sha256(manifest_bytes));
  for (const auto& e : c.manifest.functions) {
    LOCKSTEP_TRY(auto f, read_case_file(dir / e.file, limits.case_file));
    if (f.function != e.function || f.cases.size() != e.cases)
      return Error::make(Errc::kMalformed, "{}: the manifest says {} cases of 0x{:08x}, the file holds {} of 0x{:08x}",
                         (dir / e.file).string(), e.cases, e.function, f.cases.size(), f.function);
    c.files.push_back(std::move(f));
  }
  return c;
}

Result<std::vector<std::uint32_t>> add_cases(const std::filesystem::path& dir, Corpus& corpus, std::vector<Case> added) {
  std::vector<std::uint32_t> ids;
  for (Case& c : added) {
    auto it = std::find_if(corpus.files.begin(), corpus.files.end(), [&](const CaseFile& f) { return f.function == c.function; });
    if (it == corpus.files.end()) {
      CaseFile f;
      f.function = c.function;
      f.name = c.name;
      corpus.files.push_back(std::move(f));
      it = std::prev(corpus.files.end());
    }
    std::uint32_t next = 0;
    for (const Case& old : it->cases) next = std::max(next, old.id + 1);
    if (it->cases.size() >= CaseFileLimits{}.max_cases)  // the most a default reader takes back
      return Error::make(Errc::kLimit, "0x{:08x} already has {} cases, the most a case file holds", c.function,
                         it->cases.size());
    c.id = next;
    ids.push_back(next);
    it->cases.push_back(std::move(c));
  }
  std::sort(corpus.files.begin(), corpus.files.end(),
            [](const CaseFile& a, const CaseFile& b) { return a.function < b.function; });
  LOCKSTEP_TRY_STATUS(write_corpus(dir, corpus.manifest, corpus.files));
  LOCKSTEP_TRY(corpus.manifest, read_manifest(dir));
  return ids;
}

}  // namespace lockstep::cases
