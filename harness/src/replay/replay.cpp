#include "lockstep/harness/replay.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/harness/disasm.hpp"
#include "lockstep/harness/labels.hpp"
#include "../markup.hpp"

namespace lockstep::harness {

using cases::ByteDiff;

std::uint32_t ReplayResult::total_cases() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.cases;
  return n;
}
std::uint32_t ReplayResult::total_matched() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.matched;
  return n;
}
std::uint32_t ReplayResult::total_mismatched() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.mismatched;
  return n;
}
std::uint32_t ReplayResult::unbound_functions() const {
  return static_cast<std::uint32_t>(std::count_if(functions.begin(), functions.end(),
                                                  [](const FunctionOutcome& f) { return !f.bound; }));
}

std::string FunctionOutcome::unchecked_reason() const {
  if (!excluded.empty()) return "";
  if (cases == 0) return "no cases";
  if (!bound) return "no binding";
  return "";
}
std::uint32_t ReplayResult::checked_cases() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.checked();
  return n;
}
std::uint32_t ReplayResult::unchecked_functions() const {
  return static_cast<std::uint32_t>(std::count_if(functions.begin(), functions.end(),
                                                  [](const FunctionOutcome& f) { return !f.unchecked_reason().empty(); }));
}

Result<ReplayResult> replay(const cases::Corpus& corpus, const cases::BindingSet& bindings, const ReplayOptions& opt) {
  ReplayResult out;
  out.shard = opt.shard;
  std::set<std::uint32_t> wanted(opt.functions.begin(), opt.functions.end());
  for (std::uint32_t fn : wanted) {
    bool present = std::any_of(corpus.files.begin(), corpus.files.end(),
                               [&](const cases::CaseFile& f) { return f.function == fn; });
    if (!present) return Error::make(Errc::kNotFound, "the corpus has no cases of function 0x{:08x}", fn);
  }
  // The cases to run, in corpus order: (function outcome, case). Outcomes are filled in that order
  // afterwards, whichever thread ran a case.
  struct Job {
    std::size_t function;
    const cases::Case* c;
    const cases::Binding* binding;
  };
  std::vector<Job> jobs;
  bool found_case = !opt.only_case;
  std::size_t chosen = 0;  // functions chosen so far, before sharding
  for (const auto& file : corpus.files) {
    if (!wanted.empty() && !wanted.count(file.function)) continue;
    if (opt.only_case && opt.only_case->first != file.function) continue;
    if (!opt.shard.holds(chosen++)) {
      // Another shard's function: a --case of it exists, it is just not run in this shard.
      if (opt.only_case)
        found_case = found_case || std::any_of(file.cases.begin(), file.cases.end(), [&](const cases::Case& c) {
                       return c.id == opt.only_case->second;
                     });
      continue;
    }
    FunctionOutcome fo;
    fo.function = file.function;
    fo.name = file.name;
    const cases::Binding* b = cases::find_binding(bindings, file.function);
    fo.bound = b != nullptr;
    if (auto ex = opt.excluded.find(file.function); ex != opt.excluded.end()) fo.excluded = ex->second;
    for (const auto& c : file.cases) {
      if (opt.only_case && opt.only_case->second != c.id) continue;
      found_case = true;
      ++fo.cases;
      fo.poked += c.poked() ? 1 : 0;
      if (b) jobs.push_back({out.functions.size(), &c, b});
    }
    out.functions.push_back(std::move(fo));
  }
  if (!found_case)
    return Error::make(Errc::kNotFound, "no case {} of function 0x{:08x} in the corpus", opt.only_case->second,
                       opt.only_case->first);

  // Each case leaves one byte of outcome; only a mismatch keeps its comparison, in its worker's own
  // list. (A comparison per case, made and freed by the calling thread, was most of the run's serial
  // part: what kept two threads from twice the speed of one.)
  constexpr std::uint8_t kMatched = 1, kOutsideReads = 2;
  std::vector<std::uint8_t> outcome(jobs.size());
  std::vector<std::vector<std::pair<std::size_t, cases::Comparison>>> failed(std::max(opt.jobs, 1u));
  parallel_for(opt.jobs, jobs.size(), [&](unsigned worker, std::size_t i) {
    const auto fx = jobs[i].binding->run(*jobs[i].c);
    cases::Comparison cmp = cases::compare(*jobs[i].c, fx, {.outside_reads_fail = opt.outside_reads_fail});
    outcome[i] = static_cast<std::uint8_t>((cmp.matched() ? kMatched : 0) | (cmp.outside_reads.empty() ? 0 : kOutsideReads));
    if (!cmp.matched()) failed[worker].emplace_back(i, std::move(cmp));
  });
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    FunctionOutcome& fo = out.functions[jobs[i].function];
    if (outcome[i] & kOutsideReads) ++fo.outside_reads;
    if (outcome[i] & kMatched) ++fo.matched;
    else ++fo.mismatched;
  }
  // The mismatches in corpus order, whichever worker ran them.
  std::vector<std::pair<std::size_t, cases::Comparison>> mismatches;
  for (auto& list : failed)
    for (auto& f : list) mismatches.push_back(std::move(f));
  std::sort(mismatches.begin(), mismatches.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [i, cmp] : mismatches) {
    FunctionOutcome& fo = out.functions[jobs[i].function];
    fo.failing_ids.push_back(jobs[i].c->id);
    fo.failures.push_back({jobs[i].c, std::move(cmp)});
  }
  return out;
}

Namer corpus_namer(const cases::Corpus& corpus, const Labeler* labels, std::size_t max_instructions) {
  Namer n;
  if (labels)
    n.field = [labels](std::uint32_t a) -> std::optional<FieldName> {
      const FieldRef f = labels->field(a);
      return FieldName{f.start, f.size, f.text()};
    };
  auto dis = std::make_shared<Disassembler>();
  // The listing of function fn from the code bytes its case file carries (empty when it has none).
  auto listing = [&corpus, dis, max_instructions](std::uint32_t fn) -> std::vector<Instruction> {
    for (const auto& f : corpus.files) {
      if (f.function != fn || f.code.empty()) continue;
      // The entry's code and its private helpers' (version 3), the calls into which are followed.
      auto range_at = [&f](std::uint32_t addr) -> std::pair<std::uint32_t, std::span<const std::uint8_t>> {
        if (addr >= f.code_base && addr - f.code_base < f.code.size()) return {f.code_base, f.code};
        for (const auto& r : f.helper_code)
          if (addr >= r.base && addr - r.base < r.bytes.size()) return {r.base, r.bytes};
        return {0, {}};
      };
      ReadMemory read = [range_at](std::uint32_t addr, std::uint32_t size) {
        std::vector<std::uint8_t> out;
        const auto [base, bytes] = range_at(addr);
        if (bytes.empty()) return out;
        const std::size_t off = addr - base, k = std::min<std::size_t>(size, bytes.size() - off);
        out.assign(bytes.begin() + static_cast<std::ptrdiff_t>(off), bytes.begin() + static_cast<std::ptrdiff_t>(off + k));
        return out;
      };
      auto helper = [&f](std::uint32_t target) {
        for (const auto& r : f.helper_code)
          if (target >= r.base && target - r.base < r.bytes.size()) return true;
        return false;
      };
      return dis->function(read, fn, max_instructions, helper);
    }
    return {};
  };
  n.disassembly = [listing](std::uint32_t fn) { return format_listing(listing(fn)); };
  n.writer_context = [listing](std::uint32_t fn, std::uint32_t writer) {
    return format_writer_context(listing(fn), writer, kWriterContext);
  };
  return n;
}

namespace {

/// The table's last column: why a function was not checked.
std::string table_note(const FunctionOutcome& f) {
  if (f.checked() > 0) return "";
  if (!f.excluded.empty()) return "excluded: " + f.excluded;
  if (f.cases == 0) return "UNCHECKED: no cases";
  return "UNCHECKED: no binding";
}

}  // namespace

std::string format_table(const ReplayResult& r) {
  std::string s = fmt::format("{:<10} {:<28} {:>7} {:>8} {:>10} {:>8} {}\n", "address", "function", "cases",
                              "matched", "mismatched", "outside", "");
  for (const auto& f : r.functions) {
    s += fmt::format("0x{:08x} {:<28} {:>7} {:>8} {:>10} {:>8} {}\n", f.function, f.name, f.cases,
                     f.bound ? fmt::to_string(f.matched) : "-", f.bound ? fmt::to_string(f.mismatched) : "-",
                     f.bound ? fmt::to_string(f.outside_reads) : "-", table_note(f));
  }
  s += fmt::format("{:<10} {:<28} {:>7} {:>8} {:>10}\n", "total", fmt::format("{} functions", r.functions.size()),
                   r.total_cases(), r.total_matched(), r.total_mismatched());
  s += fmt::format("{} of {} cases checked", r.checked_cases(), r.total_cases());
  const std::uint32_t excluded = static_cast<std::uint32_t>(std::count_if(
      r.functions.begin(), r.functions.end(), [](const FunctionOutcome& f) { return !f.excluded.empty() && f.checked() == 0; }));
  if (excluded) s += fmt::format(" ({} function{} excluded, each with its reason)", excluded, excluded == 1 ? "" : "s");
  s += "\n";
  if (const std::uint32_t n = r.unchecked_functions()) {
    s += fmt::format("UNCHECKED: {} function{} with nothing checked and no reason given:\n", n, n == 1 ? "" : "s");
    for (const auto& f : r.functions)
      if (const std::string why = f.unchecked_reason(); !why.empty())
        s += fmt::format("  0x{:08x} {}: {}{}\n", f.function, f.name, why,
                         why == "no binding" ? fmt::format(" ({} cases the port never ran)", f.cases)
                                             : std::string(" (nothing for a binding to run on)"));
    s += "  bind them, or exclude each with its reason (--exclude FUNCTION=REASON, --exclusions FILE): "
         "the verdict fails until then\n";
  } else if (r.checked_cases() == 0) {
    s += "UNCHECKED: no case was checked at all: the verdict fails\n";
  }
  return s;
}

namespace {

std::string hex_or(std::optional<std::uint8_t> v) { return v ? fmt::format("{:02x}", *v) : std::string(".."); }

}  // namespace

std::string format_mismatch(const FunctionOutcome& f, const CaseOutcome& co, const Namer& namer) {
  const cases::Case& c = *co.c;
  const cases::Comparison& cmp = co.comparison;
  std::string s = fmt::format("MISMATCH {} (0x{:08x}) case {}", f.name, f.function, c.id);
  s += fmt::format("  [from snapshot {}, {} record {}, step {}, racer {}, call {}]\n",
                   c.origin.snapshot_sha256.substr(0, 12), c.origin.record, c.origin.record_index, c.origin.step,
                   c.origin.racer, c.origin.call_index);
  s += fmt::format("  reproduce: lockstep replay CORPUS --case 0x{:08x}:{}\n", f.function, c.id);
  if (c.poked()) {
    s += "  poked:";
    for (const auto& p : c.pokes) s += fmt::format(" 0x{:08x}={:02x}", p.address, fmt::join(p.bytes, ""));
    if (c.poked_registers) s += " (registers: " + cases::poked_register_names(c.poked_registers) + ")";
    s += "\n";
    if (!c.note.empty()) s += "  note: " + c.note + "\n";
  }
  if (!cmp.port_error.empty()) s += fmt::format("  the port raised: {}\n", cmp.port_error);

  // Group differing bytes by field: every field with at least one difference is shown whole.
  struct Group {
    std::uint32_t base, size;
    std::string name;
  };
  std::vector<Group> groups;
  for (const auto& d : cmp.bytes) {
    if (!groups.empty() && d.address >= groups.back().base && d.address < groups.back().base + groups.back().size)
      continue;
    std::optional<FieldName> fld = namer.field ? namer.field(d.address) : std::nullopt;
    if (fld && fld->size > 0 && fld->size <= 64 && d.address >= fld->base && d.address < fld->base + fld->size)
      groups.push_back({fld->base, fld->size, fld->name});
    else
      groups.push_back({d.address, 1, fmt::format("0x{:08x}", d.address)});
  }
  std::map<std::uint32_t, const ByteDiff*> diff_at;
  for (const auto& d : cmp.bytes) diff_at[d.address] = &d;
  // The cause of each differing byte the original wrote: the instruction that wrote it last, shown
  // under its field with the instructions before it in its basic block.
  auto writers_of = [&](const Group& g) {
    std::string w;
    if (!c.writers_known()) return w;
    // Consecutive differing bytes with one writer share a line: (writer, first, last).
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> spans;
    for (std::uint32_t a = g.base; a < g.base + g.size; ++a) {
      if (!diff_at.count(a)) continue;
      std::optional<std::uint32_t> wr = c.writer_of(a);
      if (!wr) continue;
      if (!spans.empty() && std::get<0>(spans.back()) == *wr && std::get<2>(spans.back()) + 1 == a)
        std::get<2>(spans.back()) = a;
      else
        spans.emplace_back(*wr, a, a);
    }
    for (const auto& [wr, lo, hi] : spans) {
      const std::string bytes = lo == hi ? fmt::format("byte 0x{:08x}", lo) : fmt::format("bytes 0x{:08x}..0x{:08x}", lo, hi);
      std::string ctx = namer.writer_context ? namer.writer_context(f.function, wr) : std::string();
      if (ctx.empty()) {
        w += fmt::format("    {} written last by 0x{:08x} (outside this function's listing: a function it called)\n",
                         bytes, wr);
      } else {
        w += fmt::format("    {} written last by 0x{:08x}:\n", bytes, wr);
        std::size_t pos = 0;
        while (pos < ctx.size()) {
          const std::size_t nl = ctx.find('\n', pos);
          w += "    " + ctx.substr(pos, nl - pos) + "\n";
          if (nl == std::string::npos) break;
          pos = nl + 1;
        }
      }
    }
    return w;
  };
  if (!c.writers_known() && !cmp.bytes.empty())
    s += "  (no writers: this case file predates version 3, which records the instruction behind each written "
         "byte; capture again to see them)\n";
  for (const auto& g : groups) {
    std::string orig, port, mark;
    bool extra_only = true;
    for (std::uint32_t a = g.base; a < g.base + g.size; ++a) {
      auto it = diff_at.find(a);
      std::optional<std::uint8_t> o = c.writes.get(a), p;
      if (it != diff_at.end()) {
        p = it->second->port;
        if (it->second->kind != ByteDiff::Kind::kExtraWrite) extra_only = false;
      } else {
        p = o;  // not differing: the port wrote the same (or neither wrote it)
      }
      if (!o) o = c.inputs.get(a);  // show the unchanged value where the original did not write
      orig += hex_or(o) + " ";
      port += hex_or(p) + " ";
      mark += it != diff_at.end() ? " * " : "   ";
    }
    s += fmt::format("  {}{}:\n    original {}\n    port     {}\n             {}\n", g.name,
                     extra_only ? " (the port wrote bytes the original left alone)" : "", orig, port, mark);
    s += writers_of(g);
  }
  for (const auto& r : cmp.registers)
    s += fmt::format("  register {}: original {} / port {}\n", r.name, r.original, r.port);
  if (!cmp.outside_reads.empty()) {
    s += fmt::format("  the port read {} byte(s) the original never read:", cmp.outside_reads.size());
    std::size_t shown = 0;
    for (auto a : cmp.outside_reads) {
      if (shown++ == 16) { s += " ..."; break; }
      std::optional<FieldName> fld = namer.field ? namer.field(a) : std::nullopt;
      s += fld ? fmt::format(" 0x{:08x} ({})", a, fld->name) : fmt::format(" 0x{:08x}", a);
    }
    s += "\n";
  }
  if (namer.disassembly) {
    std::string d = namer.disassembly(f.function);
    if (!d.empty()) s += "  the original:\n" + d;
  }
  return s;
}

std::string to_json(const ReplayResult& r) {
  nlohmann::ordered_json j;
  j["format"] = "lockstep-replay";
  j["version"] = 1;
  j["cases"] = r.total_cases();
  j["matched"] = r.total_matched();
  j["mismatched"] = r.total_mismatched();
  j["checked"] = r.checked_cases();
  j["unchecked_functions"] = r.unchecked_functions();
  if (!r.shard.whole()) j["shard"] = fmt::format("{}/{}", r.shard.index, r.shard.count);
  auto& fs = j["functions"] = nlohmann::ordered_json::array();
  for (const auto& f : r.functions) {
    nlohmann::ordered_json o;
    o["address"] = fmt::format("0x{:08x}", f.function);
    o["name"] = f.name;
    o["bound"] = f.bound;
    o["cases"] = f.cases;
    o["matched"] = f.matched;
    o["mismatched"] = f.mismatched;
    o["outside_reads"] = f.outside_reads;
    if (!f.excluded.empty()) o["excluded"] = f.excluded;
    auto& fails = o["failing_cases"] = nlohmann::ordered_json::array();
    for (std::uint32_t id : f.failing_ids) fails.push_back(id);
    fs.push_back(std::move(o));
  }
  return j.dump(2) + "\n";
}

std::string to_junit(const ReplayResult& r) {
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format("<testsuites name=\"lockstep replay\" tests=\"{}\" failures=\"{}\">\n", r.functions.size(),
                   std::count_if(r.functions.begin(), r.functions.end(),
                                 [](const FunctionOutcome& f) {
                                   return f.mismatched > 0 || !f.unchecked_reason().empty();
                                 }));
  s += "  <testsuite name=\"replay\">\n";
  for (const auto& f : r.functions) {
    s += fmt::format("    <testcase classname=\"replay\" name=\"{}\">",
                     detail::markup_escape(fmt::format("0x{:08x} {}", f.function, f.name)));
    if (const std::string why = f.unchecked_reason(); !why.empty()) {
      s += fmt::format("<failure message=\"unchecked: {} ({} cases), and no exclusion gives a reason\"/>", why, f.cases);
    } else if (f.checked() == 0) {
      s += fmt::format("<skipped message=\"{}\"/>", detail::markup_escape("excluded: " + f.excluded));
    } else if (f.mismatched) {
      s += fmt::format("<failure message=\"{} of {} cases mismatched\"/>", f.mismatched, f.cases);
    }
    s += "</testcase>\n";
  }
  s += "  </testsuite>\n</testsuites>\n";
  return s;
}

Result<ReplayResult> merge_reports(const std::vector<std::string>& json_reports, const std::vector<std::string>& names) {
  ReplayResult merged;
  std::vector<bool> seen;  // shard K seen
  unsigned count = 0;
  for (std::size_t r = 0; r < json_reports.size(); ++r) {
    const std::string& name = r < names.size() ? names[r] : fmt::format("report {}", r + 1);
    nlohmann::json j = nlohmann::json::parse(json_reports[r], nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("format", "") != "lockstep-replay")
      return Error::make(Errc::kBadMagic, "{}: not a lockstep replay JSON report", name);
    Shard shard;
    if (j.contains("shard")) {
      if (!j["shard"].is_string()) return Error::make(Errc::kMalformed, "{}: \"shard\" is not a string", name);
      auto s = parse_shard(j["shard"].get<std::string>());
      if (!s.ok()) return Error::make(Errc::kMalformed, "{}: {}", name, s.error().message);
      shard = *s;
    }
    if (count == 0) {
      count = shard.count;
      seen.assign(count, false);
    } else if (shard.count != count) {
      return Error::make(Errc::kUsage, "{} is shard {}/{}, the reports before it are shards of {}", name, shard.index,
                         shard.count, count);
    }
    if (seen[shard.index - 1])
      return Error::make(Errc::kUsage, "{}: shard {}/{} is given twice", name, shard.index, shard.count);
    seen[shard.index - 1] = true;
    try {
      for (const auto& f : j.at("functions")) {
        FunctionOutcome fo;
        fo.function = static_cast<std::uint32_t>(std::stoul(f.at("address").get<std::string>(), nullptr, 16));
        fo.name = f.at("name").get<std::string>();
        fo.bound = f.at("bound").get<bool>();
        fo.cases = f.at("cases").get<std::uint32_t>();
        fo.matched = f.at("matched").get<std::uint32_t>();
        fo.mismatched = f.at("mismatched").get<std::uint32_t>();
        fo.outside_reads = f.at("outside_reads").get<std::uint32_t>();
        fo.failing_ids = f.at("failing_cases").get<std::vector<std::uint32_t>>();
        if (f.contains("excluded")) fo.excluded = f.at("excluded").get<std::string>();
        merged.functions.push_back(std::move(fo));
      }
    } catch (const std::exception& e) {
      return Error::make(Errc::kMalformed, "{}: malformed replay report: {}", name, e.what());
    }
  }
  for (unsigned k = 0; k < count; ++k)
    if (!seen[k]) return Error::make(Errc::kUsage, "shard {}/{} is missing from the reports", k + 1, count);
  // The unsharded run lists functions in corpus order, ascending by address.
  std::sort(merged.functions.begin(), merged.functions.end(),
            [](const FunctionOutcome& a, const FunctionOutcome& b) { return a.function < b.function; });
  for (std::size_t i = 1; i < merged.functions.size(); ++i)
    if (merged.functions[i].function == merged.functions[i - 1].function)
      return Error::make(Errc::kUsage, "function 0x{:08x} is in two reports: not shards of one run",
                         merged.functions[i].function);
  return merged;
}

Result<BaselineDelta> compare_baseline(const ReplayResult& now, const std::string& baseline_json) {
  nlohmann::json j = nlohmann::json::parse(baseline_json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "lockstep-replay")
    return Error::make(Errc::kBadMagic, "the baseline is not a lockstep replay JSON report");
  std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> before;  // address → (matched, cases)
  try {
    for (const auto& f : j.at("functions"))
      before[f.at("address").get<std::string>()] = {f.at("matched").get<std::uint32_t>(), f.at("cases").get<std::uint32_t>()};
  } catch (const std::exception& e) {
    return Error::make(Errc::kMalformed, "the baseline report is malformed: {}", e.what());
  }
  BaselineDelta d;
  for (const auto& f : now.functions) {
    std::string key = fmt::format("0x{:08x}", f.function);
    auto it = before.find(key);
    if (it == before.end()) {
      d.better.push_back(fmt::format("{} {}: new, {} of {} matched", key, f.name, f.matched, f.cases));
      continue;
    }
    auto [m0, c0] = it->second;
    if (f.matched > m0 || (f.matched == m0 && f.cases > c0 && f.mismatched == 0))
      d.better.push_back(fmt::format("{} {}: {} of {} matched (was {} of {})", key, f.name, f.matched, f.cases, m0, c0));
    else if (f.matched < m0 || (f.cases - f.matched) > (c0 - m0))
      d.worse.push_back(fmt::format("{} {}: {} of {} matched (was {} of {})", key, f.name, f.matched, f.cases, m0, c0));
    before.erase(it);
  }
  for (const auto& [key, mc] : before)
    d.worse.push_back(fmt::format("{}: gone from the corpus (was {} of {} matched)", key, mc.first, mc.second));
  return d;
}

std::string format_baseline(const BaselineDelta& d) {
  std::string s;
  for (const auto& b : d.better) s += "  better: " + b + "\n";
  for (const auto& w : d.worse) s += "  worse:  " + w + "\n";
  if (s.empty()) s = "  no change against the baseline\n";
  return s;
}

}  // namespace lockstep::harness
