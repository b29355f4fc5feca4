// Call lists (call_list.hpp; the format: capture/docs/call-list.md).
#include "lockstep/capture/call_list.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "lockstep/base/io.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/machine/machine.hpp"

namespace lockstep::capture {
namespace {

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

/// A string, or an integer written as the CLI would write it (hex): args and pokes may be either.
Result<std::string> text_item(const toml::node& n, std::string_view source, std::string_view where,
                              bool integers_allowed) {
  if (auto s = n.value<std::string>()) return *s;
  if (integers_allowed && n.is_integer()) {
    const std::int64_t v = *n.value<std::int64_t>();
    if (v < -0x80000000LL || v > 0xffffffffLL)
      return Error::make(Errc::kMalformed, "{}:{}: {}: {} is outside 32 bits", source, line_of(n), where, v);
    return v < 0 ? std::to_string(v) : fmt::format("0x{:x}", v);
  }
  return Error::make(Errc::kMalformed, "{}:{}: {}: must be a string{}", source, line_of(n), where,
                     integers_allowed ? " or an integer" : "");
}

Result<std::vector<std::string>> text_list(const toml::table& t, std::string_view key, std::string_view source,
                                           std::string_view where, bool integers_allowed) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a)
    return Error::make(Errc::kMalformed, "{}:{}: {}: '{}' must be an array", source, line_of(*n), where, key);
  for (std::size_t i = 0; i < a->size(); ++i) {
    LOCKSTEP_TRY(std::string s, text_item(*a->get(i), source, fmt::format("{} {}[{}]", where, key, i), integers_allowed));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Result<CallList> parse_call_list(std::string_view text, std::string_view source, const CallListLimits& limits) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return Error::make(Errc::kMalformed, "{}:{}: {}", source, e.source().begin.line, e.description());
  }
  CallList list;
  list.source = std::string(source);
  for (const auto& [key, node] : root)
    if (key.str() != "call")
      return Error::make(Errc::kMalformed, "{}:{}: unknown top-level key '{}' (a call list holds [[call]] tables only)",
                         source, line_of(node), key.str());
  const toml::node* calls = root.get("call");
  if (!calls) return Error::make(Errc::kMalformed, "{}:1: no [[call]] table: nothing to capture", source);
  const toml::array* arr = calls->as_array();
  if (!arr || !arr->is_array_of_tables())
    return Error::make(Errc::kMalformed, "{}:{}: 'call' must be [[call]] tables", source, line_of(*calls));
  if (arr->size() > limits.max_calls)
    return Error::make(Errc::kLimit, "{}: {} [[call]] tables, past the limit of {}", source, arr->size(),
                       limits.max_calls);
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::table& t = *arr->get(i)->as_table();
    const std::string where = fmt::format("[[call]] #{}", i + 1);
    ExplicitCall c;
    c.line = line_of(t);
    for (const auto& [key, node] : t)
      if (key.str() != "function" && key.str() != "args" && key.str() != "pokes" && key.str() != "repeat")
        return Error::make(Errc::kMalformed, "{}:{}: {}: unknown key '{}' (function, args, pokes, repeat)", source,
                           line_of(node), where, key.str());
    const toml::node* fn = t.get("function");
    if (!fn) return Error::make(Errc::kMalformed, "{}:{}: {}: missing key 'function'", source, c.line, where);
    LOCKSTEP_TRY(c.function, text_item(*fn, source, where + " function", true));
    LOCKSTEP_TRY(c.args, text_list(t, "args", source, where, true));
    LOCKSTEP_TRY(c.pokes, text_list(t, "pokes", source, where, false));
    if (const toml::node* r = t.get("repeat")) {
      const auto v = r->value<std::int64_t>();
      if (!r->is_integer() || *v < 1 || *v > 10000)
        return Error::make(Errc::kMalformed, "{}:{}: {}: 'repeat' must be an integer from 1 to 10000", source,
                           line_of(*r), where);
      c.repeat = static_cast<std::uint32_t>(*v);
    }
    list.calls.push_back(std::move(c));
  }
  return list;
}

Result<CallList> read_call_list(const std::filesystem::path& path, const CallListLimits& limits) {
  LOCKSTEP_TRY(std::vector<std::uint8_t> bytes, read_file(path, limits.max_file_bytes));
  LOCKSTEP_TRY(CallList list, parse_call_list(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                               path.string(), limits));
  list.sha256 = to_hex(sha256(bytes));
  return list;
}

namespace {

/// A [[call]] resolved against the profile: what the machine is given.
struct ResolvedCall {
  harness::CallSpec spec;
  std::vector<cases::Poke> pokes;
};

Result<ResolvedCall> resolve(const ExplicitCall& c, std::size_t index, const std::string& source,
                             const harness::Profile& profile, const harness::Labeler& labels) {
  auto at = [&](Error e) {
    return std::move(e).wrap("{}:{}: [[call]] #{}", source, c.line, index + 1);
  };
  auto fn = profile.find_function(c.function);
  if (!fn.ok()) return at(std::move(fn).error());
  const harness::FunctionSpec& f = **fn;
  ResolvedCall r;
  r.spec.function = f.address;
  r.spec.convention = f.convention;
  r.spec.returns = f.returns;
  if (c.args.size() != f.args.size())
    return at(Error::make(Errc::kUsage, "{} takes {} argument(s), {} given", f.name, f.args.size(), c.args.size()));
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    auto a = harness::parse_call_arg(c.args[i], f.args[i].type, labels);
    if (!a.ok()) return at(std::move(a).error().wrap("args[{}] '{}'", i, c.args[i]));
    r.spec.args.push_back(std::move(*a));
  }
  for (std::size_t i = 0; i < c.pokes.size(); ++i) {
    auto p = harness::parse_poke(c.pokes[i], labels);
    if (!p.ok()) return at(std::move(p).error().wrap("pokes[{}] '{}'", i, c.pokes[i]));
    r.pokes.push_back(std::move(*p));
  }
  return r;
}

/// The addresses the profile's active stubs replace (a stub at `pointer` sits where the snapshot's
/// 4 bytes there point): their cases would record the stub, not the original.
std::set<harness::GuestAddr> stubbed_addresses(const harness::Profile& profile, const harness::Snapshot& snapshot) {
  std::set<harness::GuestAddr> out;
  for (const auto& stub : profile.stubs) {
    if (!stub.active) continue;
    if (stub.address) out.insert(*stub.address);
    if (stub.pointer)
      if (auto bytes = snapshot.read(*stub.pointer, 4); bytes.ok())
        out.insert(static_cast<harness::GuestAddr>((*bytes)[0] | ((*bytes)[1] << 8) | ((*bytes)[2] << 16) |
                                                   (std::uint32_t{(*bytes)[3]} << 24)));
  }
  return out;
}

/// What the capture watches: the chosen functions (each must not be stubbed), or every profile
/// function no active stub replaces.
Result<std::vector<harness::GuestAddr>> watched_functions(const harness::Profile& profile,
                                                          const harness::Snapshot& snapshot,
                                                          const std::vector<harness::GuestAddr>& chosen) {
  const std::set<harness::GuestAddr> stubbed = stubbed_addresses(profile, snapshot);
  std::set<harness::GuestAddr> out;
  if (!chosen.empty()) {
    for (harness::GuestAddr fn : chosen) {
      if (stubbed.count(fn))
        return Error::make(Errc::kUsage, "0x{:08x} is replaced by a [[stub]]: its cases would record the stub, not "
                                         "the original",
                           fn);
      out.insert(fn);
    }
  } else {
    for (const auto& f : profile.functions)
      if (!stubbed.count(f.address)) out.insert(f.address);
  }
  return std::vector<harness::GuestAddr>(out.begin(), out.end());
}

}  // namespace

Result<CallsCaptureReport> capture_calls(const harness::Snapshot& snapshot, const harness::Profile& profile,
                                         const CallList& list, const CallsCaptureOptions& options) {
  using namespace lockstep::harness;
  const Labeler labels(profile);
  // Every call resolved before any runs: a bad line is an error before a machine exists.
  std::vector<ResolvedCall> calls;
  for (std::size_t i = 0; i < list.calls.size(); ++i) {
    LOCKSTEP_TRY(ResolvedCall r, resolve(list.calls[i], i, list.source, profile, labels));
    calls.push_back(std::move(r));
  }
  if (calls.empty()) return Error::make(Errc::kUsage, "{}: no [[call]]: nothing to capture", list.source);

  MachineConfig cfg = options.machine;
  const MachineConfig from_profile = config_from_profile(profile);
  cfg.default_fpu_control = from_profile.default_fpu_control;
  cfg.default_mxcsr = from_profile.default_mxcsr;
  cfg.stubs = from_profile.stubs;
  cfg.record = true;
  LOCKSTEP_TRY(cfg.watched, watched_functions(profile, snapshot, options.functions));
  LOCKSTEP_TRY(auto machine, Machine::create(snapshot, cfg));
  CaseCollector collector(profile, cfg.watched, Sampling{});
  machine->set_observer(&collector);

  CallsCaptureReport rep;
  rep.capture.driver = "";
  rep.capture.runs = calls.size();
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const ExplicitCall& c = list.calls[i];
    machine->reset();
    for (const cases::Poke& p : calls[i].pokes)
      if (auto w = machine->write(p.address, p.bytes); !w.ok())
        return std::move(w).error().wrap("{}:{}: [[call]] #{}: poke at 0x{:08x}", list.source, c.line, i + 1,
                                         p.address);
    ++rep.capture.runs_captured;
    for (std::uint32_t k = 0; k < c.repeat; ++k) {
      collector.begin_run(RunOrigin{options.snapshot_sha256, "CALL", static_cast<std::uint32_t>(i), k, 0});
      LOCKSTEP_TRY(CallOutcome out, machine->call(calls[i].spec));
      if (out.fault) {
        ++rep.capture.faulted;
        rep.faults.push_back({i, c.line, out.fault->message});
        break;  // the state after a fault is no start for the next repeat
      }
    }
  }
  rep.capture.incomplete = collector.incomplete();
  rep.capture.files = collector.take_files();
  for (const auto& f : rep.capture.files)
    if (f.cases.empty()) rep.uncalled.push_back(f.function);
  // The whole profile watched: a function no call reached has a line in the report, not a case file.
  if (options.functions.empty())
    std::erase_if(rep.capture.files, [](const cases::CaseFile& f) { return f.cases.empty(); });
  if (options.check_conventions) {
    machine->set_observer(nullptr);
    LOCKSTEP_TRY(rep.capture.conventions, check_conventions(*machine, profile, rep.capture.files));
  }
  // Each case lists the pokes of the [[call]] it came from.
  for (auto& f : rep.capture.files)
    for (auto& cs : f.cases) cs.pokes = calls[cs.origin.record_index].pokes;
  attach_function_code(rep.capture.files, snapshot, profile);
  return rep;
}

}  // namespace lockstep::capture
