// check-steps (see driver.hpp).
#include "lockstep/capture/driver.hpp"

#include <map>

#include <fmt/format.h>

namespace lockstep::capture {

using namespace lockstep::harness;

namespace {

RecordKind kind_of(const std::string& s, bool& ok) {
  ok = true;
  if (s == "STEP") return RecordKind::kStep;
  if (s == "CTRL") return RecordKind::kCtrl;
  if (s == "PHYS") return RecordKind::kPhys;
  if (s == "FRAM") return RecordKind::kFrame;
  ok = false;
  return RecordKind::kStep;
}

}  // namespace

Result<ResolvedDriver> resolve_driver(const Profile& profile, const std::string& name) {
  ResolvedDriver d;
  d.spec = name.empty() ? profile.driver_for_record("CTRL") : profile.driver_by_name(name);
  if (!d.spec)
    return Error::make(Errc::kNotFound, "{} has no [[driver]] {}", profile.source,
                       name.empty() ? std::string("on CTRL records") : "named '" + name + "'");
  bool ok1 = false, ok2 = false;
  d.run_kind = kind_of(d.spec->record, ok1);
  d.compare_kind = kind_of(d.spec->compare, ok2);
  if (!ok1 || !ok2)
    return Error::make(Errc::kMalformed, "{}:{}: driver '{}': records are STEP, CTRL, PHYS or FRAM", profile.source,
                       d.spec->line, d.spec->name);
  d.call.function = d.spec->function;
  if (const FunctionSpec* f = profile.function_at(d.spec->function)) {
    d.call.convention = f->convention;
    d.call.returns = f->returns;
  }
  return d;
}

Result<std::unique_ptr<Machine>> driver_machine(const Snapshot& snapshot, const Profile& profile,
                                                const ResolvedDriver& driver, MachineConfig cfg) {
  const MachineConfig from_profile = config_from_profile(profile);
  cfg.default_fpu_control = from_profile.default_fpu_control;
  cfg.default_mxcsr = from_profile.default_mxcsr;
  cfg.stubs = from_profile.stubs;
  cfg.record = true;  // exact restores between runs (only the pages a run wrote are copied back)
  LOCKSTEP_TRY(auto machine, Machine::create(snapshot, cfg));
  for (const std::string& s : driver.spec->stubs) LOCKSTEP_TRY_STATUS(machine->set_stub_active(s, true));
  return machine;
}

Status lay_record(Machine& machine, const Record& rec, const std::string& kind) {
  machine.reset();
  for (const Block& b : rec.blocks) {
    auto w = machine.write(b.address, b.bytes);
    if (!w.ok())
      return Error::make(Errc::kMalformed, "{} record of step {} instance {}: block at 0x{:08x} ({} bytes): {}", kind,
                         rec.step, rec.instance, b.address, b.bytes.size(), w.error().message);
  }
  return {};
}

Result<std::vector<std::size_t>> driver_runs(const Profile& profile, const ResolvedDriver& driver, const StateLog& log) {
  std::vector<std::size_t> runs;
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    const Record& r = log.records[i];
    if (r.kind != driver.run_kind) continue;
    LOCKSTEP_TRY_STATUS(driver_args(profile, *driver.spec, r));  // the instance fits the driver's instances
    runs.push_back(i);
  }
  if (runs.empty())
    return Error::make(Errc::kMalformed, "the state log has no {} records, which driver '{}' runs on: nothing to run",
                       driver.spec->record, driver.spec->name);
  return runs;
}

Result<std::vector<Arg>> driver_args(const Profile& profile, const DriverSpec& driver, const Record& rec) {
  std::vector<Arg> args;
  for (const DriverArg& a : driver.args) {
    if (a.instance.empty()) {
      args.push_back(Arg::u32(a.value));
      continue;
    }
    const InstanceSpec* in = profile.instance_by_name(a.instance);
    const StructSpec* st = in ? profile.struct_by_name(in->struct_name) : nullptr;
    if (!in || !st) return Error::make(Errc::kMalformed, "driver '{}': no instance '{}'", driver.name, a.instance);
    std::uint32_t index = 0;
    if (in->count > 1) {
      if (rec.instance < 0)
        return Error::make(Errc::kMalformed, "step {}: driver '{}' takes an element of '{}' (count {}), and its {} "
                           "records are about no instance: give it a count = 1 instance or a number", rec.step,
                           driver.name, a.instance, in->count, record_kind_name(rec.kind));
      if (static_cast<std::uint32_t>(rec.instance) >= in->count)
        return Error::make(Errc::kMalformed, "step {}: instance {} has no {}[{}] (count {})", rec.step, rec.instance,
                           a.instance, rec.instance, in->count);
      index = static_cast<std::uint32_t>(rec.instance);
    }
    args.push_back(Arg::u32(in->base + index * st->size));
  }
  return args;
}

namespace {

/// Compares every block of the compare record `cmp` with the machine's memory after the run, byte by
/// byte, into `mm`: the differing bytes grouped by field (at most `max_fields` fields kept).
void compare_blocks(Machine& machine, const Record& cmp, const Labeler& labels, const std::string& compare,
                    std::size_t max_fields, StepMismatch& mm) {
  for (const Block& b : cmp.blocks) {
    auto actual = machine.read(b.address, static_cast<std::uint32_t>(b.bytes.size()));
    if (!actual.ok()) {
      mm.problem = fmt::format("{} block at 0x{:08x} is outside the machine's memory", compare, b.address);
      mm.bytes_differing += b.bytes.size();
      continue;
    }
    std::size_t i = 0;
    while (i < b.bytes.size()) {
      if ((*actual)[i] == b.bytes[i]) { ++i; continue; }
      const GuestAddr a = b.address + static_cast<GuestAddr>(i);
      const FieldRef f = labels.field(a);
      // The field's bytes within this block (an unnamed byte: up to 8 around it).
      std::uint64_t lo = f.owner.empty() ? a : std::max<std::uint64_t>(f.start, b.address);
      std::uint64_t hi = f.owner.empty() ? std::min<std::uint64_t>(b.end(), std::uint64_t{a} + 8)
                                         : std::min<std::uint64_t>(b.end(), std::uint64_t{f.start} + f.size);
      if (hi <= a) hi = std::uint64_t{a} + 1;
      if (hi - lo > 32) {  // a wide field (a whole record's gap): show 32 bytes from just before the first difference
        lo = std::max<std::uint64_t>(lo, a >= 8 ? std::uint64_t{a} - 8 : 0);
        hi = std::min<std::uint64_t>(hi, lo + 32);
      }
      FieldDiff d;
      d.name = f.owner.empty() ? labels.name(a) : f.text();
      d.start = static_cast<GuestAddr>(lo);
      for (std::uint64_t k = lo; k < hi; ++k) {
        d.expected.push_back(b.bytes[static_cast<std::size_t>(k - b.address)]);
        d.actual.push_back((*actual)[static_cast<std::size_t>(k - b.address)]);
        if (k >= a && b.bytes[static_cast<std::size_t>(k - b.address)] != (*actual)[static_cast<std::size_t>(k - b.address)])
          ++mm.bytes_differing;
      }
      if (mm.fields.size() < max_fields) mm.fields.push_back(std::move(d));
      i = static_cast<std::size_t>(hi - b.address);
    }
  }
}

}  // namespace

Result<StepCheckReport> check_steps(const Snapshot& snapshot, const StateLog& log, const Profile& profile,
                                    const StepCheckOptions& options) {
  LOCKSTEP_TRY(ResolvedDriver resolved, resolve_driver(profile, options.driver));
  const DriverSpec* driver = resolved.spec;
  const RecordKind compare_kind = resolved.compare_kind;
  CallSpec spec = resolved.call;
  LOCKSTEP_TRY(auto machine, driver_machine(snapshot, profile, resolved, options.machine));
  const Labeler labels(profile);

  // Compare records by (step, instance): the first one after its run record. Frame mode (a pass run on
  // FRAM record n, compared with FRAM record n + 1): by the pass number; the last pass of the log has
  // nothing after it to compare with and is not run.
  LOCKSTEP_TRY(std::vector<std::size_t> runs, driver_runs(profile, resolved, log));
  const bool frame_mode = resolved.run_kind == RecordKind::kFrame && compare_kind == RecordKind::kFrame;
  std::map<std::pair<std::uint32_t, std::int32_t>, std::vector<std::size_t>> compares;
  std::map<std::int32_t, std::size_t> passes;
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    const Record& r = log.records[i];
    if (frame_mode && r.kind == RecordKind::kFrame) passes[r.pass] = i;
    else if (r.kind == compare_kind) compares[{r.step, r.instance}].push_back(i);
  }
  if (frame_mode) {
    std::erase_if(runs, [&](std::size_t i) { return !passes.contains(log.records[i].pass + 1); });
    if (runs.empty())
      return Error::make(Errc::kMalformed, "driver '{}' runs a pass from one FRAM record to the next, and the state log "
                         "has fewer than two", driver->name);
  }
  if (options.max_steps && runs.size() > options.max_steps) runs.resize(options.max_steps);

  StepCheckReport report;
  report.driver = driver->name;
  report.frame_mode = frame_mode;
  for (std::size_t idx : runs) {
    const Record& rec = log.records[idx];
    StepMismatch mm;
    mm.step = rec.step;
    mm.instance = rec.instance;
    ++report.total;
    if (options.progress) options.progress(report.total, runs.size());
    auto finish = [&](StepMismatch m) {
      if (report.mismatches.size() < options.max_reports) report.mismatches.push_back(std::move(m));
    };

    mm.pass = frame_mode ? std::optional<std::int32_t>(rec.pass) : std::nullopt;
    const Record* cmp = nullptr;
    if (frame_mode) cmp = &log.records[passes.at(rec.pass + 1)];
    else if (auto it = compares.find({rec.step, rec.instance}); it != compares.end())
      for (std::size_t c : it->second)
        if (c > idx) { cmp = &log.records[c]; break; }
    if (!cmp) {
      mm.problem = fmt::format("no {} record for step {} instance {} after its {} record", driver->compare, rec.step,
                               rec.instance, driver->record);
      finish(std::move(mm));
      continue;
    }

    LOCKSTEP_TRY_STATUS(lay_record(*machine, rec, driver->record));
    LOCKSTEP_TRY(spec.args, driver_args(profile, *driver, rec));
    LOCKSTEP_TRY(CallOutcome out, machine->call(spec));
    report.blocks += out.blocks;
    if (out.fault) {
      ++report.faulted;
      mm.fault = std::move(out.fault);
      finish(std::move(mm));
      continue;
    }

    compare_blocks(*machine, *cmp, labels, driver->compare, options.max_fields, mm);
    if (mm.bytes_differing == 0 && mm.problem.empty()) ++report.matched;
    else finish(std::move(mm));
  }
  return report;
}

std::string format_step_report(const StepCheckReport& r) {
  std::string out = fmt::format("driver {}: {} matched: {} / {}", r.driver, r.frame_mode ? "passes" : "steps", r.matched,
                                r.total);
  if (r.faulted) out += fmt::format(" ({} faulted)", r.faulted);
  out += "\n";
  for (const StepMismatch& m : r.mismatches) {
    if (m.pass) out += fmt::format("pass {} (from step {}): ", *m.pass, m.step);
    else out += fmt::format("step {} instance {}: ", m.step, m.instance);
    if (m.fault) {
      out += "FAULT\n" + format_fault(*m.fault);
      continue;
    }
    if (!m.problem.empty()) out += m.problem + "; ";
    out += fmt::format("{} bytes differ\n", m.bytes_differing);
    for (const FieldDiff& f : m.fields) {
      std::string e, a, mark;
      for (std::size_t i = 0; i < f.expected.size(); ++i) {
        e += fmt::format("{:02x} ", f.expected[i]);
        a += fmt::format("{:02x} ", f.actual[i]);
        mark += f.expected[i] != f.actual[i] ? "** " : "   ";
      }
      out += fmt::format("  {} (0x{:08x}):\n    recorded  {}\n    emulated  {}\n              {}\n", f.name, f.start, e, a,
                         mark);
    }
  }
  return out;
}

}  // namespace lockstep::capture
