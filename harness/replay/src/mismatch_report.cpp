// The report of one mismatching case: where it came from, its arguments, the differing bytes by
// field with the instruction behind each, the registers, the port's reads outside the original's.
#include "lockstep/replay/replay.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "lockstep/base/markup.hpp"

namespace lockstep::harness {

using cases::ByteDiff;

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

/// The differing bytes of one field shown whole (or of one byte no label names).
struct Group {
  std::uint32_t base, size;
  std::string name;
};

/// The differing byte at `a` (cmp.bytes ascends by address), or null.
const ByteDiff* diff_at(const cases::Comparison& cmp, std::uint32_t a) {
  auto it = std::lower_bound(cmp.bytes.begin(), cmp.bytes.end(), a,
                             [](const ByteDiff& d, std::uint32_t x) { return d.address < x; });
  return it != cmp.bytes.end() && it->address == a ? &*it : nullptr;
}

/// Where the case came from, how to run it alone, what was poked, its arguments, the port's error.
std::string case_header(const FunctionOutcome& f, const cases::Case& c, const cases::Comparison& cmp,
                        const Namer& namer, const cases::Signature* sig) {
  std::string s = fmt::format("MISMATCH {} (0x{:08x}) case {}", detail::printable(f.name), f.function, c.id);
  s += fmt::format("  [from snapshot {}, {} record {}, step {}, {}, call {}]\n",
                   c.origin.snapshot_sha256.substr(0, 12), c.origin.record, c.origin.record_index, c.origin.step,
                   cases::origin_subject(c.origin), c.origin.call_index);
  s += fmt::format("  reproduce: {} --case 0x{:08x}:{}\n", namer.replay_command, f.function, c.id);
  if (c.poked()) {
    s += "  poked:";
    for (const auto& p : c.pokes) s += fmt::format(" 0x{:08x}={:02x}", p.address, fmt::join(p.bytes, ""));
    if (c.poked_registers) s += " (registers: " + cases::poked_register_names(c.poked_registers) + ")";
    s += "\n";
    if (!c.note.empty()) s += "  note: " + c.note + "\n";
  }
  if (sig && !sig->args.empty()) {
    s += "  arguments:\n";
    for (const std::string& line : cases::describe_arguments(c, *sig)) s += "    " + line + "\n";
  }
  if (!cmp.port_error.empty()) s += fmt::format("  the port raised: {}\n", cmp.port_error);
  return s;
}

/// The cause of each differing byte the original wrote: the instruction that wrote it last, shown
/// under its field with the instructions its value and address came from (its data slice).
std::string group_writers(const FunctionOutcome& f, const cases::Case& c, const cases::Comparison& cmp,
                          const Namer& namer, const Group& g) {
  std::string w;
  if (!c.writers_known()) return w;
  // Consecutive differing bytes with one writer share a line: (writer, first, last).
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> spans;
  for (std::uint32_t a = g.base; a < g.base + g.size; ++a) {
    if (!diff_at(cmp, a)) continue;
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
}

/// What is left out once the report reached its budget, with where it starts: `--case` and a
/// narrower look find it.
std::string left_out(const cases::Comparison& cmp, std::size_t next, std::size_t max_bytes) {
  std::uint64_t runs = 0;
  for (std::size_t k = next; k < cmp.bytes.size(); ++k)
    if (k == next || cmp.bytes[k].address != cmp.bytes[k - 1].address + 1) ++runs;
  return fmt::format("  ... {} more differing bytes from 0x{:08x} (in {} runs of consecutive bytes) not shown: the "
                     "report reached its budget of {} bytes\n",
                     cmp.bytes.size() - next, cmp.bytes[next].address, runs, max_bytes);
}

/// One field's original and port lines with the differing bytes marked; `unwritten_shown` is set
/// when a `..` is printed.
std::string group_lines(const cases::Case& c, const cases::Comparison& cmp, const Group& g, bool& unwritten_shown) {
  std::string orig, port, mark;
  bool extra_only = true;
  for (std::uint32_t a = g.base; a < g.base + g.size; ++a) {
    const ByteDiff* dd = diff_at(cmp, a);
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
  return fmt::format("  {}{}:\n    original {}\n    port     {}\n             {}\n", g.name,
                     extra_only ? " (the port wrote bytes the original left alone)" : "", orig, port, mark);
}

/// The differing bytes grouped by field: every field with at least one difference is shown whole.
/// Groups are made one at a time as the report `s` grows, so a case writing megabytes costs no more
/// than the report's byte budget (the rest is counted, not shown). True when a `..` was printed.
bool append_fields(std::string& s, const FunctionOutcome& f, const cases::Case& c, const cases::Comparison& cmp,
                   const Namer& namer, const cases::Signature* sig, std::size_t max_bytes) {
  bool unwritten_shown = false;  // a `..` was printed: the legend follows the fields
  std::size_t next = 0;  // the first differing byte no group holds yet
  while (next < cmp.bytes.size()) {
    if (s.size() >= max_bytes) {
      s += left_out(cmp, next, max_bytes);
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
    s += group_lines(c, cmp, g, unwritten_shown);
    s += group_writers(f, c, cmp, namer, g);
  }
  return unwritten_shown;
}

/// The bytes the port read that the original never read, by argument or label where one names them.
std::string outside_reads_line(const cases::Case& c, const cases::Comparison& cmp, const Namer& namer,
                               const cases::Signature* sig) {
  std::string s = fmt::format("  the port read {} byte(s) the original never read:", cmp.outside_reads.size());
  std::size_t shown = 0;
  for (auto a : cmp.outside_reads) {
    if (shown++ == 16) { s += " ..."; break; }
    std::optional<FieldName> fld = namer.field ? namer.field(a) : std::nullopt;
    if (auto arg = stack_argument_name(c, sig, a)) s += fmt::format(" 0x{:08x} {}", a, *arg);
    else if (fld && fld->name != fmt::format("0x{:08x}", a)) s += fmt::format(" 0x{:08x} ({})", a, fld->name);
    else s += fmt::format(" 0x{:08x}", a);  // a byte no label names: its address once
  }
  return s + "\n";
}

}  // namespace

std::string format_mismatch(const FunctionOutcome& f, const CaseOutcome& co, const Namer& namer,
                            std::size_t max_bytes) {
  const cases::Case& c = *co.c;
  const cases::Comparison& cmp = co.comparison;
  const cases::Signature* sig = namer.signature ? namer.signature(f.function) : nullptr;
  std::string s = case_header(f, c, cmp, namer, sig);
  if (!c.writers_known() && !cmp.bytes.empty())
    s += "  (no writers: this case file predates version 3, which records the instruction behind each written "
         "byte; capture again to see them)\n";
  if (append_fields(s, f, c, cmp, namer, sig, max_bytes))
    s += "  (`..`: a byte not written: on the port's line, one the port did not write; on the original's, one "
         "the original neither wrote nor read, so the case holds no value for it)\n";
  for (const auto& r : cmp.registers)
    s += fmt::format("  register {}: original {} / port {}\n", r.name, r.original, r.port);
  if (!cmp.outside_reads.empty()) s += outside_reads_line(c, cmp, namer, sig);
  if (namer.disassembly) {
    std::string d = namer.disassembly(f.function);
    if (!d.empty() && s.size() + d.size() <= max_bytes) s += "  the original:\n" + d;
    else if (!d.empty()) s += "  (the original's listing left out: the report reached its budget)\n";
  }
  return s;
}

}  // namespace lockstep::harness
