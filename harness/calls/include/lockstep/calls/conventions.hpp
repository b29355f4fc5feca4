// Calling conventions: where a call's arguments go and where its result comes back.
//
// Pure data and planning (no Unicorn): the machine lays out what plan_call() returns.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/calls/recorder.hpp"
#include "lockstep/x87/extended.hpp"

namespace lockstep::harness {

// The conventions, return kinds and register names are the shared CPU vocabulary's
// (lockstep/cases/cpu.hpp).
using cases::argument_registers;
using cases::Convention;
using cases::convention_name;
using cases::parse_convention;
using cases::parse_reg;
using cases::parse_return_kind;
using cases::Reg;
using cases::reg_name;
using cases::return_kind_name;
using cases::ReturnKind;

using cases::CallingConvention;

/// One argument as the caller gives it.
struct Arg {
  enum class Kind {
    kWord,   ///< 32-bit value (u32, i32 or a guest pointer)
    kF64,    ///< a double, always passed on the stack (8 bytes), in every convention
    kBlock,  ///< bytes the machine lays down in its scratch memory; the argument is their address
  };
  Kind kind = Kind::kWord;
  std::uint32_t word = 0;
  double f64 = 0;
  std::vector<std::uint8_t> block;

  static Arg u32(std::uint32_t v) { Arg a; a.word = v; return a; }
  static Arg i32(std::int32_t v) { return u32(static_cast<std::uint32_t>(v)); }
  static Arg f(double v) { Arg a; a.kind = Kind::kF64; a.f64 = v; return a; }
  static Arg bytes(std::vector<std::uint8_t> b) { Arg a; a.kind = Kind::kBlock; a.block = std::move(b); return a; }
};

/// An argument after blocks have been placed: a 32-bit word or a double.
struct PlacedArg {
  bool is_f64 = false;
  std::uint32_t word = 0;
  double f64 = 0;
};

/// Where one call's arguments go.
struct CallPlan {
  std::vector<std::pair<Reg, std::uint32_t>> registers;
  /// The stack arguments as they lie from [entry esp + 4] upward (the first stack argument lowest).
  std::vector<std::uint8_t> stack;
  /// Bytes the callee pops with `ret N` (0 for cdecl).
  std::uint32_t callee_pops = 0;
};

/// Plans a call. Fails (kUsage) for a custom convention without registers or with a repeated one.
Result<CallPlan> plan_call(const CallingConvention& cc, std::span<const PlacedArg> args);

/// The result a function returned, read from its output registers.
struct ReturnValue {
  ReturnKind kind = ReturnKind::kNone;
  std::uint32_t eax = 0, edx = 0;
  double st0 = 0;              ///< ST(0) rounded to a double (kSt0)
  x87::Extended st0_extended;  ///< ST(0) as the x87 held it (kSt0)
  std::uint64_t edx_eax() const noexcept { return (std::uint64_t{edx} << 32) | eax; }
};
ReturnValue return_value(ReturnKind kind, const Registers& out);
std::string format_return(const ReturnValue& v);  ///< "eax = 0x00000010 (16)", "st0 = 0.333... (3ffdaaaaaaaaaaaaa800)"

/// An 80-bit x87 extended value (10 bytes, little-endian) as a double (round to nearest), and back.
double x87_to_double(const std::array<std::uint8_t, 10>& ext) noexcept;
std::array<std::uint8_t, 10> double_to_x87(double d) noexcept;

}  // namespace lockstep::harness
