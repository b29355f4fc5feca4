// make_progress (progress.hpp): every corpus replayed on the bindings, the results laid over the
// profile's functions, code sizes measured, coverage reports read.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/disasm/disasm.hpp"
#include "lockstep/progress/progress.hpp"
#include "lockstep/replay/replay.hpp"

namespace lockstep::harness {
namespace {

std::string module_of(const std::string& name) {
  const auto at = name.rfind("::");
  return at == std::string::npos || at == 0 ? "(global)" : name.substr(0, at);
}

// The functions of the profile, then those only a corpus holds, by address.
std::map<GuestAddr, FunctionProgress> listed_functions(const ProgressInputs& in) {
  std::map<GuestAddr, FunctionProgress> out;
  for (const auto& f : in.profile->functions) {
    FunctionProgress& p = out[f.address];
    p.address = f.address;
    p.name = f.name;
    p.in_profile = true;
  }
  for (const auto& [name, corpus] : in.corpora)
    for (const auto& e : corpus->manifest.functions) {
      auto [it, fresh] = out.try_emplace(e.function);
      if (fresh) {
        it->second.address = e.function;
        it->second.name = e.name;
      }
    }
  for (auto& [a, p] : out) {
    p.module = module_of(p.name);
    p.bound = cases::find_binding(*in.bindings, a) != nullptr;
  }
  return out;
}

Status add_replays(const ProgressInputs& in, std::map<GuestAddr, FunctionProgress>& fns) {
  // The profile's signatures, for bindings that take the arguments it declares.
  const cases::BindingSet bindings = with_signatures(*in.bindings, *in.profile);
  for (const auto& [name, corpus] : in.corpora) {
    ReplayOptions opt;
    opt.jobs = in.jobs;
    LOCKSTEP_TRY(auto result, replay(*corpus, bindings, opt));
    for (const auto& o : result.functions) {
      FunctionProgress& p = fns[o.function];
      p.cases += o.cases;
      p.matched += o.matched;
      p.mismatched += o.mismatched;
      p.poked += o.poked;
      if (!p.first_mismatch && !o.failures.empty()) p.first_mismatch.emplace(name, o.failures.front().c->id);
    }
  }
  return {};
}

// The symbol's size, else Capstone's instructions from the entry in the snapshot, else the case file's
// code. With follow_helpers, Capstone's (following calls to where the profile names no function) even
// where a symbol has a size: a symbol's size never holds its helpers.
void measure_code(const ProgressInputs& in, std::map<GuestAddr, FunctionProgress>& fns) {
  std::map<GuestAddr, std::uint32_t> corpus_code;
  for (const auto& [name, corpus] : in.corpora)
    for (const auto& f : corpus->files)
      if (!f.code.empty()) corpus_code.try_emplace(f.function, static_cast<std::uint32_t>(f.code.size()));
  std::optional<Disassembler> dis;
  ReadMemory read;
  if (in.snapshot) {
    dis.emplace();
    read = snapshot_reader(*in.snapshot);
  }
  auto helper = [&](GuestAddr target) { return in.profile->function_at(target) == nullptr; };
  for (auto& [a, p] : fns) {
    if (in.symbols && in.symbols->size_known && !(dis && in.follow_helpers))
      if (const Symbol* s = in.symbols->function_at(a); s && s->size) {
        p.code_bytes = s->size;
        p.code_source = CodeSizeSource::kSymbol;
        continue;
      }
    if (dis) {
      const auto listing = in.follow_helpers
                               ? dis->function(read, a, 20000, helper)
                               : dis->function(read, a);
      std::uint32_t bytes = 0;
      for (const auto& i : listing) bytes += static_cast<std::uint32_t>(i.bytes.size());
      if (bytes) {
        p.code_bytes = bytes;
        p.code_source = CodeSizeSource::kCapstone;
        continue;
      }
    }
    if (auto c = corpus_code.find(a); c != corpus_code.end()) {
      p.code_bytes = c->second;
      p.code_source = CodeSizeSource::kCorpus;
    }
  }
}

// Edges covered as the union over the coverage reports: a branch's edge is covered when any report
// saw it go that way.
Status add_coverage(const ProgressInputs& in, std::map<GuestAddr, FunctionProgress>& fns) {
  std::map<GuestAddr, std::map<std::uint64_t, std::pair<bool, bool>>> branches;
  for (const auto& [name, text] : in.coverage_json) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("format", "") != "lockstep-coverage" ||
        !j.contains("functions") || !j["functions"].is_array())
      return Error::make(Errc::kMalformed, "{}: not a `lockstep coverage --json` report", name);
    try {
      for (const auto& f : j["functions"]) {
        const auto entry = static_cast<GuestAddr>(std::stoul(f.at("address").get<std::string>(), nullptr, 16));
        auto& bs = branches[entry];
        for (const auto& b : f.at("branches")) {
          auto& e = bs[std::stoul(b.at("address").get<std::string>(), nullptr, 16)];
          e.first = e.first || b.at("taken").get<std::uint64_t>() > 0;
          e.second = e.second || b.at("fell_through").get<std::uint64_t>() > 0;
        }
      }
    } catch (const std::exception& e) {
      return Error::make(Errc::kMalformed, "{}: a function or branch without its fields ({})", name, e.what());
    }
  }
  for (const auto& [entry, bs] : branches) {
    auto it = fns.find(entry);
    if (it == fns.end()) continue;
    std::uint32_t covered = 0;
    for (const auto& [addr, e] : bs) covered += e.first + e.second;
    it->second.edges_covered = covered;
    it->second.edges_total = static_cast<std::uint32_t>(2 * bs.size());
  }
  return {};
}

void link_coverage_pages(const ProgressInputs& in, std::map<GuestAddr, FunctionProgress>& fns) {
  for (auto& [a, p] : fns)
    for (const auto& dir : in.coverage_html) {
      const auto page = dir / fmt::format("fn_{:08x}.html", a);
      std::error_code ec;
      if (std::filesystem::is_regular_file(page, ec)) {
        p.coverage_page = std::filesystem::absolute(page, ec).string();
        break;
      }
    }
}

}  // namespace

const char* code_size_source_name(CodeSizeSource s) noexcept {
  switch (s) {
    case CodeSizeSource::kSymbol: return "symbol";
    case CodeSizeSource::kCapstone: return "capstone";
    case CodeSizeSource::kCorpus: return "corpus";
    case CodeSizeSource::kNone: return "none";
  }
  return "?";
}

void ProgressTotals::add(const FunctionProgress& f) {
  ++functions;
  bound += f.bound;
  with_cases += f.cases > 0;
  matched_functions += f.all_matched();
  code_bytes += f.code_bytes;
  if (f.all_matched()) matched_code_bytes += f.code_bytes;
  cases += f.cases;
  matched_cases += f.matched;
  mismatched_cases += f.mismatched;
  edges_covered += f.edges_covered.value_or(0);
  edges_total += f.edges_total.value_or(0);
}

Result<ProgressReport> make_progress(const ProgressInputs& in) {
  if (!in.profile || !in.bindings) return Error::make(Errc::kUsage, "progress needs a profile and the bindings");
  auto fns = listed_functions(in);
  LOCKSTEP_TRY_STATUS(add_replays(in, fns));
  measure_code(in, fns);
  LOCKSTEP_TRY_STATUS(add_coverage(in, fns));
  link_coverage_pages(in, fns);
  ProgressReport r;
  r.profile = in.profile->name;
  for (const auto& [name, c] : in.corpora) r.corpora.push_back(name);
  std::map<std::string, ProgressTotals> modules;
  r.total.name = "all";
  for (auto& [a, p] : fns) {
    auto& m = modules[p.module];
    m.name = p.module;
    m.add(p);
    r.total.add(p);
    r.functions.push_back(std::move(p));
  }
  for (auto& [name, m] : modules) r.modules.push_back(std::move(m));
  return r;
}

}  // namespace lockstep::harness
