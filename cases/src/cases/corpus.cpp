#include "lockstep/cases/corpus.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/io.hpp"
#include "lockstep/base/parallel.hpp"

namespace lockstep::cases {

namespace {
constexpr const char* kManifestName = "manifest.json";
constexpr std::uint64_t kMaxManifestBytes = 16u << 20;
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
  j["snapshot_sha256"] = m.snapshot_sha256;
  j["steplog_sha256"] = m.steplog_sha256;
  j["command"] = m.command;
  j["driver"] = m.driver;
  std::uint64_t total = 0;
  auto& fs = j["functions"] = nlohmann::ordered_json::array();
  for (const auto& e : m.functions) {
    nlohmann::ordered_json f;
    f["address"] = fmt::format("0x{:08x}", e.function);
    f["name"] = e.name;
    f["file"] = e.file;
    f["cases"] = e.cases;
    f["poked"] = e.poked;
    fs.push_back(std::move(f));
    total += e.cases;
  }
  j["total_cases"] = total;
  return write_file_atomic(dir / kManifestName, j.dump(2) + "\n");
}

Result<Manifest> read_manifest(const std::filesystem::path& dir) {
  const auto path = dir / kManifestName;
  LOCKSTEP_TRY(auto bytes, read_file(path, kMaxManifestBytes));
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Error::make(Errc::kMalformed, "{}: not valid JSON", path.string());
  if (j.value("format", "") != "lockstep-corpus")
    return Error::make(Errc::kBadMagic, "{}: \"format\" is not \"lockstep-corpus\"", path.string());
  if (!j.contains("version") || !j["version"].is_number_unsigned() || j["version"].get<std::uint32_t>() != kCorpusVersion)
    return Error::make(Errc::kBadVersion, "{}: corpus version is not {}", path.string(), kCorpusVersion);
  Manifest m;
  try {
    m.profile = j.value("profile", "");
    m.snapshot_sha256 = j.value("snapshot_sha256", "");
    m.steplog_sha256 = j.value("steplog_sha256", "");
    m.command = j.value("command", "");
    m.driver = j.value("driver", "");
    const auto& fs = j.at("functions");
    if (!fs.is_array() || fs.size() > kMaxCorpusFunctions)
      return Error::make(Errc::kMalformed, "{}: \"functions\" must be an array of at most {} entries", path.string(),
                         kMaxCorpusFunctions);
    for (const auto& f : fs) {
      CorpusEntry e;
      e.function = static_cast<GuestAddr>(std::stoul(f.at("address").get<std::string>(), nullptr, 16));
      e.name = f.at("name").get<std::string>();
      e.file = f.at("file").get<std::string>();
      e.cases = f.at("cases").get<std::uint32_t>();
      e.poked = f.value("poked", 0u);
      if (e.file.find('/') != std::string::npos || e.file.starts_with("."))
        return Error::make(Errc::kMalformed, "{}: file name \"{}\" must be a plain name inside the corpus",
                           path.string(), e.file);
      m.functions.push_back(std::move(e));
    }
  } catch (const std::exception& ex) {
    return Error::make(Errc::kMalformed, "{}: {}", path.string(), ex.what());
  }
  return m;
}

Status write_corpus(const std::filesystem::path& dir, Manifest m, const std::vector<CaseFile>& files, unsigned jobs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error::make(Errc::kIo, "cannot create corpus folder {}: {}", dir.string(), ec.message());
  // Encoding (compression, mostly) is the costly part: spread over the threads, written in order.
  std::vector<std::vector<std::uint8_t>> encoded(files.size());
  parallel_for(jobs, files.size(), [&](unsigned, std::size_t i) { encoded[i] = encode_case_file(files[i]); });
  m.functions.clear();
  for (std::size_t i = 0; i < files.size(); ++i) {
    const CaseFile& f = files[i];
    CorpusEntry e;
    e.function = f.function;
    e.name = f.name;
    e.file = case_file_name(f.function, f.name);
    e.cases = static_cast<std::uint32_t>(f.cases.size());
    e.poked = static_cast<std::uint32_t>(std::count_if(f.cases.begin(), f.cases.end(),
                                                       [](const Case& c) { return c.poked(); }));
    LOCKSTEP_TRY_STATUS(write_file_atomic(dir / e.file, encoded[i]));
    m.functions.push_back(std::move(e));
  }
  std::sort(m.functions.begin(), m.functions.end(),
            [](const CorpusEntry& a, const CorpusEntry& b) { return a.function < b.function; });
  return write_manifest(dir, m);
}

Result<Corpus> read_corpus(const std::filesystem::path& dir) {
  Corpus c;
  LOCKSTEP_TRY(c.manifest, read_manifest(dir));
  for (const auto& e : c.manifest.functions) {
    LOCKSTEP_TRY(auto f, read_case_file(dir / e.file));
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
    if (it->cases.size() >= kMaxCasesPerFile)
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
