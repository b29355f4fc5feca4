#include "lockstep/capture/capture.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "private_helpers.hpp"
#include "lockstep/base/parallel.hpp"
#include "lockstep/capture/driver.hpp"
#include "lockstep/disasm/disasm.hpp"

namespace lockstep::capture {

namespace {

// The recorder's runs come ascending and apart, so they are appended (no search, no merge); runs
// that do not (the stale-stack reads after the inputs) go through set().
void add_runs(cases::ByteMap& m, const std::vector<harness::ByteRun>& runs) {
  for (const auto& r : runs) m.append(r.addr, r.bytes);
}

}  // namespace

cases::Case to_case(const harness::CallRecord& rec, const harness::FunctionSpec* spec, const RunOrigin& origin) {
  cases::Case c;
  c.function = rec.function;
  c.name = spec ? spec->name : "";
  c.convention = spec ? spec->convention.kind : cases::Convention::kWatcom;
  c.returns = spec ? spec->returns : cases::ReturnKind::kEax;
  c.in = rec.in;
  c.out = rec.out;
  // Stale-stack reads are inputs too; they lie on the stack below in.esp, which is how a case tells
  // them apart (Case::is_stale, with the stack's bounds recorded here).
  add_runs(c.inputs, rec.effects.inputs);
  add_runs(c.inputs, rec.effects.stale_stack_reads);
  add_runs(c.writes, rec.effects.outputs);
  c.writers = rec.effects.output_writers;
  c.frame_bytes_written = static_cast<std::uint32_t>(harness::byte_count(rec.effects.frame_writes));
  c.stack_low = rec.effects.stack_low;
  c.stack_high = rec.effects.stack_high;
  c.origin.snapshot_sha256 = origin.snapshot_sha256;
  c.origin.record = origin.record;
  c.origin.record_index = origin.record_index;
  c.origin.step = origin.step;
  c.origin.instance = origin.instance;
  c.origin.call_index = static_cast<std::uint32_t>(rec.call_index);
  return c;
}

CaseCollector::CaseCollector(const harness::Profile& profile, std::vector<harness::GuestAddr> functions,
                             Sampling sampling)
    : profile_(profile), sampling_(sampling) {
  if (sampling_.every == 0) sampling_.every = 1;
  for (auto fn : functions) {
    cases::CaseFile f;
    f.function = fn;
    if (const auto* spec = profile_.function_at(fn)) f.name = spec->name;
    files_.emplace(fn, std::move(f));
  }
}

bool CaseCollector::begin_run(const RunOrigin& origin) {
  origin_ = origin;
  taken_this_run_.clear();
  calls_this_run_.clear();
  return origin.record_index % sampling_.every == 0;
}

bool CaseCollector::on_enter(harness::GuestAddr function, std::uint64_t, const harness::Registers&) {
  if (!files_.count(function)) return false;
  std::uint32_t& taken = taken_this_run_[function];
  if (sampling_.max && taken >= sampling_.max) return false;
  ++taken;
  return true;
}

void CaseCollector::on_leave(const harness::CallRecord& record) {
  auto it = files_.find(record.function);
  if (it == files_.end()) return;
  if (!record.complete) {
    ++incomplete_;
    return;
  }
  cases::Case c = to_case(record, profile_.function_at(record.function), origin_);
  c.origin.call_index = calls_this_run_[record.function]++;
  c.id = static_cast<std::uint32_t>(it->second.cases.size());
  it->second.cases.push_back(std::move(c));
}

std::uint64_t CaseCollector::cases() const noexcept {
  std::uint64_t n = 0;
  for (const auto& [fn, f] : files_) n += f.cases.size();
  return n;
}

std::vector<cases::CaseFile> CaseCollector::files() const {
  std::vector<cases::CaseFile> out;
  for (const auto& [fn, f] : files_) out.push_back(f);
  return out;
}

std::vector<cases::CaseFile> CaseCollector::take_files() {
  std::vector<cases::CaseFile> out;
  out.reserve(files_.size());
  for (auto& [fn, f] : files_) out.push_back(std::move(f));
  files_.clear();
  return out;
}

std::uint64_t CaptureReport::cases() const noexcept {
  std::uint64_t n = 0;
  for (const auto& f : files) n += f.cases.size();
  return n;
}

namespace {

// The original function's code, from its entry to the end of the last instruction its jumps reach,
// for the replay report's disassembly (at most 64 KiB); and, apart, the code of the private helpers
// it calls (each stretch of the listing away from the entry's, at most 64 KiB each, 1 MiB in all).
void attach_code(cases::CaseFile& f, const harness::Snapshot& snapshot, const harness::Disassembler& dis,
                 const std::function<bool(harness::GuestAddr)>& helpers) {
  auto read = harness::snapshot_reader(snapshot);
  auto listing = dis.function(read, f.function, 4000, helpers);
  if (listing.empty()) return;
  // Stretches of the listing (sorted by address) whose instructions lie close together: a gap of
  // more than 256 bytes starts another.
  struct Stretch {
    std::uint32_t lo, hi;
  };
  std::vector<Stretch> stretches;
  for (const auto& ins : listing) {
    const std::uint32_t end = ins.address + static_cast<std::uint32_t>(ins.bytes.size());
    if (stretches.empty() || ins.address > stretches.back().hi + 256u)
      stretches.push_back({ins.address, end});
    else
      stretches.back().hi = std::max(stretches.back().hi, end);
  }
  std::size_t total = 0;
  for (const Stretch& s : stretches) {
    const bool entry = f.function >= s.lo && f.function < s.hi;
    const std::uint32_t lo = s.lo;
    const std::uint32_t hi = std::min<std::uint32_t>(s.hi, lo + (64u << 10));
    if (total + (hi - lo) > cases::CaseFileLimits{}.max_code_bytes) break;  // what a reader takes back
    auto bytes = snapshot.read(lo, hi - lo);
    if (!bytes.ok()) continue;
    total += hi - lo;
    if (entry) {
      f.code_base = lo;
      f.code = std::move(bytes).value();
    } else {
      f.helper_code.push_back({lo, std::move(bytes).value()});
    }
  }
}

}  // namespace

void attach_function_code(std::vector<cases::CaseFile>& files, const harness::Snapshot& snapshot,
                          const harness::Profile& profile) {
  harness::Disassembler dis;
  const auto helpers = detail::private_helpers(profile);
  for (auto& f : files) attach_code(f, snapshot, dis, helpers);
}

namespace {

// A function the driver replaces by a stub would give cases of the stub, not of the original.
Status check_not_stubbed(harness::Machine& machine, const harness::DriverSpec& driver,
                         const std::vector<harness::GuestAddr>& functions) {
  for (const std::string& stub : driver.stubs) {
    auto at = machine.stub_address(stub);
    if (at.ok() && std::find(functions.begin(), functions.end(), *at) != functions.end())
      return Error::make(Errc::kUsage,
                         "0x{:08x} is stubbed by driver '{}' (stub '{}'): its cases would record the stub, not the "
                         "original; capture it with a driver that runs it",
                         *at, driver.name, stub);
  }
  return {};
}

// One thread's share of a capture: its machine, its collector, its counts.
struct Worker {
  std::unique_ptr<harness::Machine> machine;
  std::unique_ptr<CaseCollector> collector;
  std::uint64_t runs_captured = 0, faulted = 0;
};

// The workers' cases into the report: each function's cases in run order (a run's cases stay in
// their order), ids renumbered; the counts summed.
void merge_workers(std::vector<Worker>& workers, CaptureReport& report) {
  std::size_t with_cases = 0;
  for (Worker& w : workers) {
    if (!w.collector) continue;
    ++with_cases;
    report.runs_captured += w.runs_captured;
    report.faulted += w.faulted;
    report.incomplete += w.collector->incomplete();
    std::vector<cases::CaseFile> files = w.collector->take_files();
    if (report.files.empty()) {
      report.files = std::move(files);
      continue;
    }
    for (std::size_t i = 0; i < files.size(); ++i)
      for (auto& c : files[i].cases) report.files[i].cases.push_back(std::move(c));
  }
  if (with_cases > 1)
    for (auto& f : report.files) {
      std::stable_sort(f.cases.begin(), f.cases.end(), [](const cases::Case& a, const cases::Case& b) {
        return a.origin.record_index < b.origin.record_index;
      });
      for (std::size_t i = 0; i < f.cases.size(); ++i) f.cases[i].id = static_cast<std::uint32_t>(i);
    }
}

}  // namespace

Result<CaptureReport> capture(const harness::Snapshot& snapshot, const StateLog& log, const harness::Profile& profile,
                              const CaptureOptions& options) {
  using namespace lockstep::harness;
  if (options.functions.empty()) return Error::make(Errc::kUsage, "capture needs at least one function (--fn)");
  LOCKSTEP_TRY(ResolvedDriver resolved, resolve_driver(profile, options.driver));
  const DriverSpec* driver = resolved.spec;
  CallSpec spec = resolved.call;
  MachineConfig cfg = options.machine;
  cfg.watched = options.functions;
  LOCKSTEP_TRY(auto machine, driver_machine(snapshot, profile, resolved, cfg));
  LOCKSTEP_TRY_STATUS(check_not_stubbed(*machine, *driver, options.functions));

  CaptureReport report;
  report.driver = driver->name;
  LOCKSTEP_TRY(std::vector<std::size_t> runs, driver_runs(profile, resolved, log));
  report.runs = runs.size();

  // One machine and one collector per thread, each taking whole driver runs (a run restores the
  // machine first, so which machine runs it does not matter); the cases are put back in run order
  // afterwards (merge_workers), so the corpus is the same for every number of threads.
  const unsigned jobs = static_cast<unsigned>(std::clamp<std::size_t>(options.jobs, 1, std::max<std::size_t>(runs.size(), 1)));
  std::vector<Worker> workers;
  workers.reserve(jobs);
  workers.push_back(Worker{std::move(machine), nullptr});  // the machine made above serves the first
  workers.resize(jobs);
  std::mutex mutex;  // guards the fields below
  std::size_t first_failed = runs.size();
  std::optional<Error> failure;
  std::uint64_t runs_done = 0, cases_done = 0;

  auto run_one = [&](Worker& w, std::size_t n) -> Status {
    if (!w.machine) {
      LOCKSTEP_TRY(w.machine, driver_machine(snapshot, profile, resolved, cfg));
    }
    if (!w.collector) {
      w.collector = std::make_unique<CaseCollector>(profile, options.functions, options.sampling);
      w.machine->set_observer(w.collector.get());
    }
    const Record& rec = log.records[runs[n]];
    // A FRAM record is about no instance: its case's origin holds the pass number in that field, as
    // the case files have always held it (cases/docs/case-format.md).
    const std::int32_t about = rec.kind == RecordKind::kFrame ? rec.pass : rec.instance;
    RunOrigin origin{options.snapshot_sha256, driver->record, static_cast<std::uint32_t>(n), rec.step,
                     static_cast<std::uint32_t>(std::max(about, 0))};
    const std::uint64_t cases_before = w.collector->cases();
    if (w.collector->begin_run(origin)) {
      ++w.runs_captured;
      LOCKSTEP_TRY_STATUS(lay_record(*w.machine, rec, driver->record));
      for (const auto& p : options.pokes)
        if (auto wr = w.machine->write(p.address, p.bytes); !wr.ok())
          return Error::make(Errc::kUsage, "--poke at 0x{:08x}: {}", p.address, wr.error().message);
      CallSpec call = spec;
      LOCKSTEP_TRY(call.args, driver_args(profile, *driver, rec));
      LOCKSTEP_TRY(CallOutcome out, w.machine->call(call));
      if (out.fault) ++w.faulted;
    }
    if (options.progress) {
      std::lock_guard lock(mutex);
      cases_done += w.collector->cases() - cases_before;
      options.progress(++runs_done, runs.size(), cases_done);
    }
    return {};
  };
  parallel_for(jobs, runs.size(), [&](unsigned worker, std::size_t n) {
    {
      std::lock_guard lock(mutex);
      if (n > first_failed) return;  // a run before this one failed: the capture stops there
    }
    Status st = run_one(workers[worker], n);
    if (!st.ok()) {
      std::lock_guard lock(mutex);
      if (n < first_failed) {  // the error of the earliest failing run, as one thread would report it
        first_failed = n;
        failure = std::move(st).error();
      }
    }
  });
  if (failure) return std::move(*failure);

  merge_workers(workers, report);
  if (report.files.empty()) report.files = CaseCollector(profile, options.functions, options.sampling).take_files();
  if (options.check_conventions) {
    Machine& m = *workers.front().machine;  // made as every worker's was: the same stubs
    m.set_observer(nullptr);
    LOCKSTEP_TRY(report.conventions, check_conventions(m, profile, report.files));
  }
  // Poked runs: every case lists the pokes it was made under.
  if (!options.pokes.empty())
    for (auto& f : report.files)
      for (auto& c : f.cases) c.pokes = options.pokes;
  attach_function_code(report.files, snapshot, profile);
  return report;
}

}  // namespace lockstep::capture
