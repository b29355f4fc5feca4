// Conversions between the harness's vocabulary (what the machine records) and the case model's
// (what a case file stores). Private to the capture layer.
#pragma once

#include "lockstep/cases/case.hpp"
#include "lockstep/harness/conventions.hpp"
#include "lockstep/harness/recorder.hpp"

namespace lockstep::capture::detail {

inline cases::X87 to_x87(const harness::X87State& x) {
  cases::X87 out;
  out.control = x.control;
  out.status = x.status;
  out.tag = x.tag;
  out.st = x.st;
  out.mxcsr = x.mxcsr;
  return out;
}

inline cases::Registers to_regs(const harness::Registers& r) {
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

inline cases::Convention to_convention(harness::Convention c) {
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

inline cases::Returns to_returns(harness::ReturnKind k) {
  switch (k) {
    case harness::ReturnKind::kNone: return cases::Returns::kNone;
    case harness::ReturnKind::kEax: return cases::Returns::kEax;
    case harness::ReturnKind::kEdxEax: return cases::Returns::kEdxEax;
    case harness::ReturnKind::kSt0: return cases::Returns::kSt0;
  }
  return cases::Returns::kNone;
}

inline harness::X87State from_x87(const cases::X87& x) {
  harness::X87State out;
  out.control = x.control;
  out.status = x.status;
  out.tag = x.tag;
  out.st = x.st;
  out.mxcsr = x.mxcsr;
  out.valid = true;
  return out;
}

inline harness::Registers from_regs(const cases::Registers& r) {
  harness::Registers out;
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
  out.x87 = from_x87(r.x87);
  return out;
}

inline harness::ReturnKind from_returns(cases::Returns r) {
  switch (r) {
    case cases::Returns::kNone: return harness::ReturnKind::kNone;
    case cases::Returns::kEax: return harness::ReturnKind::kEax;
    case cases::Returns::kEdxEax: return harness::ReturnKind::kEdxEax;
    case cases::Returns::kSt0: return harness::ReturnKind::kSt0;
  }
  return harness::ReturnKind::kEax;
}

}  // namespace lockstep::capture::detail
