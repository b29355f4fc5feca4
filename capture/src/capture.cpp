#include "lockstep/capture/capture.hpp"

namespace lockstep::capture {

namespace {

cases::X87 to_x87(const harness::X87State& x) {
  cases::X87 out;
  out.control = x.control;
  out.status = x.status;
  out.tag = x.tag;
  out.st = x.st;
  out.mxcsr = x.mxcsr;
  return out;
}

cases::Registers to_regs(const harness::Registers& r) {
  cases::Registers out;
  out.eax = r.eax;
  out.ebx = r.ebx;
  out.ecx = r.ecx;
  out.edx = r.edx;
  out.esi = r.esi;
  out.edi = r.edi;
  out.ebp = r.ebp;
  out.esp = r.esp;
  out.eip = r.eip;
  out.eflags = r.eflags;
  out.x87 = to_x87(r.x87);
  return out;
}

cases::Convention to_convention(harness::Convention c) {
  switch (c) {
    case harness::Convention::kWatcom: return cases::Convention::kWatcom;
    case harness::Convention::kCdecl: return cases::Convention::kCdecl;
    case harness::Convention::kStdcall: return cases::Convention::kStdcall;
    case harness::Convention::kFastcall: return cases::Convention::kFastcall;
    case harness::Convention::kThiscall: return cases::Convention::kThiscall;
    case harness::Convention::kCustom: return cases::Convention::kCustom;
  }
  return cases::Convention::kCustom;
}

cases::Returns to_returns(harness::ReturnKind k) {
  switch (k) {
    case harness::ReturnKind::kNone: return cases::Returns::kNone;
    case harness::ReturnKind::kEax: return cases::Returns::kEax;
    case harness::ReturnKind::kEdxEax: return cases::Returns::kEdxEax;
    case harness::ReturnKind::kSt0: return cases::Returns::kSt0;
  }
  return cases::Returns::kNone;
}

void add_runs(cases::ByteMap& m, const std::vector<harness::ByteRun>& runs) {
  for (const auto& r : runs) m.set(r.addr, r.bytes);
}

}  // namespace

cases::Case to_case(const harness::CallRecord& rec, const harness::FunctionSpec* spec, const RunOrigin& origin) {
  cases::Case c;
  c.function = rec.function;
  c.name = spec ? spec->name : "";
  c.convention = spec ? to_convention(spec->convention.kind) : cases::Convention::kWatcom;
  c.returns = spec ? to_returns(spec->returns) : cases::Returns::kEax;
  c.in = to_regs(rec.in);
  c.out = to_regs(rec.out);
  // Stale-stack reads are inputs too; they lie below in.esp, which is how a case tells them apart.
  add_runs(c.inputs, rec.effects.inputs);
  add_runs(c.inputs, rec.effects.stale_stack_reads);
  add_runs(c.writes, rec.effects.outputs);
  c.frame_bytes_written = static_cast<std::uint32_t>(harness::byte_count(rec.effects.frame_writes));
  c.origin.snapshot_sha256 = origin.snapshot_sha256;
  c.origin.record = origin.record;
  c.origin.record_index = origin.record_index;
  c.origin.step = origin.step;
  c.origin.racer = origin.racer;
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

}  // namespace lockstep::capture
