#include "lockstep/replay/replay.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/numbers.hpp"
#include "lockstep/disasm/data_slice.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/base/markup.hpp"

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

std::map<std::uint32_t, cases::Signature> signatures(const Profile& profile) {
  std::map<std::uint32_t, cases::Signature> out;
  for (const FunctionSpec& f : profile.functions) out[f.address] = cases::Signature{f.convention, f.args};
  return out;
}

cases::BindingSet with_signatures(cases::BindingSet bindings, const Profile& profile) {
  const auto all = signatures(profile);
  for (cases::Binding& b : bindings)
    if (auto it = all.find(b.address); it != all.end()) b.signature = std::make_shared<const cases::Signature>(it->second);
  return bindings;
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
  out.corpus_sha256 = corpus.manifest_sha256;
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
    const auto fx = cases::run_binding(*jobs[i].binding, *jobs[i].c);
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
  // A call's target by the profile's name for it, else by its case file's.
  CodeNamer name_of = [&corpus, labels](std::uint32_t target) {
    std::string name = labels ? labels->function_name(target) : std::string();
    for (const auto& f : corpus.files)
      if (name.empty() && f.function == target) name = f.name;
    return name;
  };
  n.disassembly = [listing, name_of](std::uint32_t fn) { return format_listing(listing(fn), name_of); };
  n.writer_context = [&corpus, listing, name_of](std::uint32_t fn, std::uint32_t writer, bool on_stack) {
    // The function's own code, else the corpus function it called that holds the writer.
    std::uint32_t owner = fn;
    std::vector<Instruction> code = listing(fn);
    auto holds = [writer](const std::vector<Instruction>& l) {
      return std::any_of(l.begin(), l.end(), [writer](const Instruction& i) { return i.address == writer; });
    };
    for (std::size_t k = 0; k < corpus.files.size() && !holds(code); ++k) {
      owner = corpus.files[k].function;
      if (owner != fn) code = listing(owner);
    }
    if (!holds(code)) return std::string();
    const ResolvedWriter w = resolve_writer(code, writer, on_stack);
    std::string slice = format_data_slice(code, owner, w.address, name_of);
    std::string head = fmt::format("written last by 0x{:08x}", w.address);
    if (owner != fn) head += fmt::format(" in {}, a function it called", name_of(owner));
    if (w.moved)
      head += fmt::format(" (the capture noted 0x{:08x}: an x87 or SSE store leaves the emulator's instruction pointer "
                          "at the last integer memory access before it)", writer);
    else if (!w.candidates.empty())
      head += fmt::format(" (an instruction that writes no memory: the store is one of the x87 or SSE stores after it, "
                          "at 0x{:08x})", fmt::join(w.candidates, ", 0x"));
    return head + ":\n" + slice;
  };
  return n;
}

void name_arguments(Namer& namer, const Profile& profile) {
  auto all = std::make_shared<const std::map<std::uint32_t, cases::Signature>>(signatures(profile));
  namer.signature = [all](std::uint32_t fn) -> const cases::Signature* {
    auto it = all->find(fn);
    return it == all->end() ? nullptr : &it->second;
  };
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
    s += fmt::format("0x{:08x} {:<28} {:>7} {:>8} {:>10} {:>8} {}\n", f.function, detail::printable(f.name), f.cases,
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
  } else if (r.empty_shard()) {
    s += fmt::format("shard {}/{} drew no function of this corpus: merge-reports gives the verdict of the whole\n",
                     r.shard.index, r.shard.count);
  } else if (r.checked_cases() == 0) {
    s += "UNCHECKED: no case was checked at all: the verdict fails\n";
  }
  return s;
}

namespace {

// How far a call's stack reaches from its entry esp, for telling a stack byte from others: its
// arguments above, its own and its callees' frames below.
constexpr std::uint32_t kStackArgumentsSpan = 0x1000, kStackFrameSpan = 0x100000;

std::string hex_or(std::optional<std::uint8_t> v) { return v ? fmt::format("{:02x}", *v) : std::string(".."); }

/// The name of a byte in one of the case's stack arguments ("throttle (esp+8)", "dt+4 (esp+16)").
std::optional<std::string> stack_argument_name(const cases::Case& c, const cases::Signature* sig, std::uint32_t a) {
  if (!sig) return std::nullopt;
  auto places = cases::place_arguments(sig->convention, sig->args);
  if (!places.ok()) return std::nullopt;
  for (std::size_t i = 0; i < places->size(); ++i) {
    const cases::ArgPlace& p = (*places)[i];
    if (p.reg) continue;
    const std::uint32_t at = c.in.esp + p.esp_offset;
    if (a - at < p.size)
      return a == at ? fmt::format("{} ({})", sig->args[i].name, p.where())
                     : fmt::format("{}+{} (esp+{})", sig->args[i].name, a - at, p.esp_offset + (a - at));
  }
  return std::nullopt;
}

}  // namespace

std::string format_mismatch(const FunctionOutcome& f, const CaseOutcome& co, const Namer& namer,
                            std::size_t max_bytes) {
  const cases::Case& c = *co.c;
  const cases::Comparison& cmp = co.comparison;
  std::string s = fmt::format("MISMATCH {} (0x{:08x}) case {}", detail::printable(f.name), f.function, c.id);
  s += fmt::format("  [from snapshot {}, {} record {}, step {}, racer {}, call {}]\n",
                   c.origin.snapshot_sha256.substr(0, 12), c.origin.record, c.origin.record_index, c.origin.step,
                   c.origin.racer, c.origin.call_index);
  s += fmt::format("  reproduce: {} --case 0x{:08x}:{}\n", namer.replay_command, f.function, c.id);
  if (c.poked()) {
    s += "  poked:";
    for (const auto& p : c.pokes) s += fmt::format(" 0x{:08x}={:02x}", p.address, fmt::join(p.bytes, ""));
    if (c.poked_registers) s += " (registers: " + cases::poked_register_names(c.poked_registers) + ")";
    s += "\n";
    if (!c.note.empty()) s += "  note: " + c.note + "\n";
  }
  const cases::Signature* sig = namer.signature ? namer.signature(f.function) : nullptr;
  if (sig && !sig->args.empty()) {
    s += "  arguments:\n";
    for (const std::string& line : cases::describe_arguments(c, *sig)) s += "    " + line + "\n";
  }
  if (!cmp.port_error.empty()) s += fmt::format("  the port raised: {}\n", cmp.port_error);

  // Group differing bytes by field: every field with at least one difference is shown whole. Groups
  // are made one at a time as the report grows, so a case writing megabytes costs no more than the
  // report's byte budget (the rest is counted, not shown).
  struct Group {
    std::uint32_t base, size;
    std::string name;
  };
  // The differing byte at `a` (cmp.bytes ascends by address), or null.
  auto diff_at = [&cmp](std::uint32_t a) -> const ByteDiff* {
    auto it = std::lower_bound(cmp.bytes.begin(), cmp.bytes.end(), a,
                               [](const ByteDiff& d, std::uint32_t x) { return d.address < x; });
    return it != cmp.bytes.end() && it->address == a ? &*it : nullptr;
  };
  // The cause of each differing byte the original wrote: the instruction that wrote it last, shown
  // under its field with the instructions its value and address came from (its data slice).
  auto writers_of = [&](const Group& g) {
    std::string w;
    if (!c.writers_known()) return w;
    // Consecutive differing bytes with one writer share a line: (writer, first, last).
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> spans;
    for (std::uint32_t a = g.base; a < g.base + g.size; ++a) {
      if (!diff_at(a)) continue;
      std::optional<std::uint32_t> wr = c.writer_of(a);
      if (!wr) continue;
      if (!spans.empty() && std::get<0>(spans.back()) == *wr && std::get<2>(spans.back()) + 1 == a)
        std::get<2>(spans.back()) = a;
      else
        spans.emplace_back(*wr, a, a);
    }
    for (const auto& [wr, lo, hi] : spans) {
      const std::string bytes = lo == hi ? fmt::format("byte 0x{:08x}", lo) : fmt::format("bytes 0x{:08x}..0x{:08x}", lo, hi);
      // The call's stack: below its entry esp (its frame, its callees') or just above (its arguments).
      const bool on_stack = lo >= c.in.esp ? lo - c.in.esp < kStackArgumentsSpan : c.in.esp - lo < kStackFrameSpan;
      std::string ctx = namer.writer_context ? namer.writer_context(f.function, wr, on_stack) : std::string();
      if (ctx.empty()) {
        w += fmt::format("    {} written last by 0x{:08x} (outside this function's listing: a function it called)\n",
                         bytes, wr);
      } else {
        const std::size_t head = ctx.find('\n');  // "written last by 0x...:", then the slice's lines
        w += fmt::format("    {} {}\n", bytes, ctx.substr(0, head));
        std::size_t pos = head == std::string::npos ? ctx.size() : head + 1;
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
  bool unwritten_shown = false;  // a `..` was printed: the legend follows the fields
  std::size_t next = 0;  // the first differing byte no group holds yet
  while (next < cmp.bytes.size()) {
    if (s.size() >= max_bytes) {
      // What is left out is said, with where it starts: `--case` and a narrower look find it.
      std::uint64_t runs = 0;
      for (std::size_t k = next; k < cmp.bytes.size(); ++k)
        if (k == next || cmp.bytes[k].address != cmp.bytes[k - 1].address + 1) ++runs;
      s += fmt::format("  ... {} more differing bytes from 0x{:08x} (in {} runs of consecutive bytes) not shown: the "
                       "report reached its budget of {} bytes\n",
                       cmp.bytes.size() - next, cmp.bytes[next].address, runs, max_bytes);
      break;
    }
    const ByteDiff& d = cmp.bytes[next];
    std::optional<FieldName> fld = namer.field ? namer.field(d.address) : std::nullopt;
    Group g{d.address, 1, fmt::format("0x{:08x}", d.address)};
    if (auto arg = stack_argument_name(c, sig, d.address))
      g.name = fmt::format("0x{:08x} {}", d.address, *arg);
    else if (fld && fld->size > 0 && fld->size <= 64 && d.address >= fld->base && d.address < fld->base + fld->size)
      g = Group{fld->base, fld->size, fld->name};
    while (next < cmp.bytes.size() && cmp.bytes[next].address < std::uint64_t{g.base} + g.size) ++next;
    std::string orig, port, mark;
    bool extra_only = true;
    for (std::uint32_t a = g.base; a < g.base + g.size; ++a) {
      const ByteDiff* dd = diff_at(a);
      std::optional<std::uint8_t> o = c.writes.get(a), p;
      if (dd) {
        p = dd->port;
        if (dd->kind != ByteDiff::Kind::kExtraWrite) extra_only = false;
      } else {
        p = o;  // not differing: the port wrote the same (or neither wrote it)
      }
      if (!o) o = c.inputs.get(a);  // show the unchanged value where the original did not write
      unwritten_shown = unwritten_shown || !o || !p;
      orig += hex_or(o) + " ";
      port += hex_or(p) + " ";
      mark += dd ? " * " : "   ";
    }
    s += fmt::format("  {}{}:\n    original {}\n    port     {}\n             {}\n", g.name,
                     extra_only ? " (the port wrote bytes the original left alone)" : "", orig, port, mark);
    s += writers_of(g);
  }
  if (unwritten_shown)
    s += "  (`..`: a byte not written: on the port's line, one the port did not write; on the original's, one "
         "the original neither wrote nor read, so the case holds no value for it)\n";
  for (const auto& r : cmp.registers)
    s += fmt::format("  register {}: original {} / port {}\n", r.name, r.original, r.port);
  if (!cmp.outside_reads.empty()) {
    s += fmt::format("  the port read {} byte(s) the original never read:", cmp.outside_reads.size());
    std::size_t shown = 0;
    for (auto a : cmp.outside_reads) {
      if (shown++ == 16) { s += " ..."; break; }
      std::optional<FieldName> fld = namer.field ? namer.field(a) : std::nullopt;
      if (auto arg = stack_argument_name(c, sig, a)) s += fmt::format(" 0x{:08x} {}", a, *arg);
      else if (fld && fld->name != fmt::format("0x{:08x}", a)) s += fmt::format(" 0x{:08x} ({})", a, fld->name);
      else s += fmt::format(" 0x{:08x}", a);  // a byte no label names: its address once
    }
    s += "\n";
  }
  if (namer.disassembly) {
    std::string d = namer.disassembly(f.function);
    if (!d.empty() && s.size() + d.size() <= max_bytes) s += "  the original:\n" + d;
    else if (!d.empty()) s += "  (the original's listing left out: the report reached its budget)\n";
  }
  return s;
}

std::string to_json(const ReplayResult& r) {
  nlohmann::ordered_json j;
  j["format"] = "lockstep-replay";
  j["version"] = kReportVersion;
  j["corpus"] = r.corpus_sha256;
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
                     detail::markup_escape(detail::printable(fmt::format("0x{:08x} {}", f.function, f.name))));
    if (const std::string why = f.unchecked_reason(); !why.empty()) {
      s += fmt::format("<failure message=\"unchecked: {} ({} cases), and no exclusion gives a reason\"/>",
                       detail::markup_escape(why), f.cases);
    } else if (f.checked() == 0) {
      s += fmt::format("<skipped message=\"{}\"/>", detail::markup_escape(detail::printable("excluded: " + f.excluded)));
    } else if (f.mismatched) {
      s += fmt::format("<failure message=\"{} of {} cases mismatched\"/>", f.mismatched, f.cases);
    }
    s += "</testcase>\n";
  }
  s += "  </testsuite>\n</testsuites>\n";
  return s;
}

namespace {

/// A report's count: a JSON unsigned integer of at most 32 bits (not -1, 14.5, 2^32 + 14 or "0x0e").
Result<std::uint32_t> report_count(const nlohmann::json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end()) return Error::make(Errc::kMalformed, "{}: no \"{}\"", where, key);
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 0xffffffffu)
    return Error::make(Errc::kMalformed, "{}: \"{}\" is {}, not a count (an integer from 0 to 4294967295)", where,
                       key, it->dump());
  return static_cast<std::uint32_t>(it->get<std::uint64_t>());
}

/// One function of a report, every number checked, and its counts against each other.
Result<FunctionOutcome> report_function(const nlohmann::json& f, const std::string& where_in) {
  if (!f.is_object()) return Error::make(Errc::kMalformed, "{}: a function is not an object", where_in);
  FunctionOutcome fo;
  auto address = f.find("address");
  if (address == f.end() || !address->is_string())
    return Error::make(Errc::kMalformed, "{}: a function has no \"address\" string", where_in);
  const std::string text = address->get<std::string>();
  auto a = parse_hex_number(text, 0xffffffffu);
  if (!text.starts_with("0x") || text.size() > 10 || !a.ok())
    return Error::make(Errc::kMalformed, "{}: address \"{}\" is not a 32-bit 0x-hex address", where_in, text);
  fo.function = static_cast<std::uint32_t>(*a);
  const std::string where = fmt::format("{}: function {}", where_in, text);
  auto name = f.find("name");
  auto bound = f.find("bound");
  if (name == f.end() || !name->is_string()) return Error::make(Errc::kMalformed, "{}: no \"name\" string", where);
  if (bound == f.end() || !bound->is_boolean()) return Error::make(Errc::kMalformed, "{}: no \"bound\" boolean", where);
  fo.name = name->get<std::string>();
  fo.bound = bound->get<bool>();
  LOCKSTEP_TRY(fo.cases, report_count(f, "cases", where));
  LOCKSTEP_TRY(fo.matched, report_count(f, "matched", where));
  LOCKSTEP_TRY(fo.mismatched, report_count(f, "mismatched", where));
  LOCKSTEP_TRY(fo.outside_reads, report_count(f, "outside_reads", where));
  if (std::uint64_t{fo.matched} + fo.mismatched > fo.cases || fo.outside_reads > fo.cases)
    return Error::make(Errc::kMalformed, "{}: {} matched and {} mismatched ({} outside reads) of {} cases", where,
                       fo.matched, fo.mismatched, fo.outside_reads, fo.cases);
  auto failing = f.find("failing_cases");
  if (failing == f.end() || !failing->is_array())
    return Error::make(Errc::kMalformed, "{}: no \"failing_cases\" list", where);
  for (const auto& id : *failing) {
    if (!id.is_number_unsigned() || id.get<std::uint64_t>() > 0xffffffffu)
      return Error::make(Errc::kMalformed, "{}: failing case {} is not a case id", where, id.dump());
    fo.failing_ids.push_back(static_cast<std::uint32_t>(id.get<std::uint64_t>()));
  }
  if (fo.failing_ids.size() != fo.mismatched)
    return Error::make(Errc::kMalformed, "{}: {} failing cases listed for {} mismatched", where,
                       fo.failing_ids.size(), fo.mismatched);
  if (auto excluded = f.find("excluded"); excluded != f.end()) {
    if (!excluded->is_string() || excluded->get<std::string>().empty())
      return Error::make(Errc::kMalformed, "{}: \"excluded\" is not a reason (a non-empty string)", where);
    fo.excluded = excluded->get<std::string>();
  }
  return fo;
}

/// A JSON replay report read strictly: its format and version, the corpus it names, every function.
Result<ReplayResult> read_report(const std::string& text, const std::string& name) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "lockstep-replay")
    return Error::make(Errc::kBadMagic, "{}: not a lockstep replay JSON report", name);
  LOCKSTEP_TRY(std::uint32_t version, report_count(j, "version", name));
  if (version != kReportVersion)
    return Error::make(Errc::kBadVersion, "{}: a replay report of version {}; this lockstep reads version {} (replay "
                                          "again to write one)",
                       name, version, kReportVersion);
  ReplayResult r;
  auto corpus = j.find("corpus");
  if (corpus == j.end() || !corpus->is_string())
    return Error::make(Errc::kMalformed, "{}: no \"corpus\" (the replayed corpus's manifest digest)", name);
  r.corpus_sha256 = corpus->get<std::string>();
  if (j.contains("shard")) {
    if (!j["shard"].is_string()) return Error::make(Errc::kMalformed, "{}: \"shard\" is not a string", name);
    auto s = parse_shard(j["shard"].get<std::string>());
    if (!s.ok()) return Error::make(Errc::kMalformed, "{}: {}", name, s.error().message);
    r.shard = *s;
  }
  auto fs = j.find("functions");
  if (fs == j.end() || !fs->is_array()) return Error::make(Errc::kMalformed, "{}: no \"functions\" list", name);
  for (const auto& f : *fs) {
    LOCKSTEP_TRY(FunctionOutcome fo, report_function(f, name));
    r.functions.push_back(std::move(fo));
  }
  LOCKSTEP_TRY(std::uint32_t cases, report_count(j, "cases", name));
  LOCKSTEP_TRY(std::uint32_t matched, report_count(j, "matched", name));
  LOCKSTEP_TRY(std::uint32_t mismatched, report_count(j, "mismatched", name));
  if (cases != r.total_cases() || matched != r.total_matched() || mismatched != r.total_mismatched())
    return Error::make(Errc::kMalformed, "{}: the totals ({} cases, {} matched, {} mismatched) are not the functions' "
                                         "sums ({}, {}, {})",
                       name, cases, matched, mismatched, r.total_cases(), r.total_matched(), r.total_mismatched());
  return r;
}

}  // namespace

Result<ReplayResult> merge_reports(const std::vector<std::string>& json_reports, const std::vector<std::string>& names) {
  ReplayResult merged;
  std::vector<bool> seen;  // shard K seen
  unsigned count = 0;
  for (std::size_t r = 0; r < json_reports.size(); ++r) {
    const std::string& name = r < names.size() ? names[r] : fmt::format("report {}", r + 1);
    LOCKSTEP_TRY(ReplayResult one, read_report(json_reports[r], name));
    const Shard shard = one.shard;
    if (count == 0) {
      count = shard.count;
      seen.assign(count, false);
      merged.corpus_sha256 = one.corpus_sha256;
    } else if (shard.count != count) {
      return Error::make(Errc::kUsage, "{} is shard {}/{}, the reports before it are shards of {}", name, shard.index,
                         shard.count, count);
    } else if (one.corpus_sha256 != merged.corpus_sha256) {
      return Error::make(Errc::kUsage, "{} is a replay of corpus {}, the reports before it of corpus {}: shards of "
                                       "one run replay one corpus",
                         name, one.corpus_sha256.substr(0, 16), merged.corpus_sha256.substr(0, 16));
    }
    if (seen[shard.index - 1])
      return Error::make(Errc::kUsage, "{}: shard {}/{} is given twice", name, shard.index, shard.count);
    seen[shard.index - 1] = true;
    for (auto& fo : one.functions) merged.functions.push_back(std::move(fo));
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
  LOCKSTEP_TRY(ReplayResult then, read_report(baseline_json, "the baseline"));
  if (then.corpus_sha256 != now.corpus_sha256)
    return Error::make(Errc::kUsage, "the baseline is a replay of corpus {}, this run of corpus {}: compare runs of "
                                     "one corpus (the corpus changed? make a new baseline)",
                       then.corpus_sha256.substr(0, 16), now.corpus_sha256.substr(0, 16));
  std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> before;  // address → (matched, cases)
  for (const auto& f : then.functions) before[fmt::format("0x{:08x}", f.function)] = {f.matched, f.cases};
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
