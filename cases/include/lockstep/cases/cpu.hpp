// The CPU vocabulary every layer shares: a guest address, the registers and x87 state at a call
// boundary, the calling conventions, where a result comes back, and the general registers by name.
// The case model stores these, the machine runs on them, capture copies one into the other unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"

namespace lockstep::cases {

using GuestAddr = std::uint32_t;  ///< a 32-bit guest virtual address (never a host pointer or file offset)

/// How a function takes its arguments. The values are the case file's convention byte.
enum class Convention : std::uint8_t {
  kWatcom,    ///< eax, edx, ebx, ecx, then the stack (right to left); the callee pops stack arguments
  kCdecl,     ///< all on the stack; the caller pops
  kStdcall,   ///< all on the stack; the callee pops
  kFastcall,  ///< ecx, edx, then the stack; the callee pops
  kThiscall,  ///< ecx, then the stack; the callee pops
  kCustom,    ///< the registers listed, then the stack; the callee pops
};
const char* convention_name(Convention c) noexcept;  ///< "watcom", "cdecl", ...
Result<Convention> parse_convention(std::string_view s);

/// Where a function's result comes back. The values are the case file's return byte.
enum class ReturnKind : std::uint8_t {
  kNone,
  kEax,     ///< 32-bit integer or pointer in eax
  kEdxEax,  ///< 64-bit integer, high half in edx
  kSt0,     ///< x87 ST(0)
};
const char* return_kind_name(ReturnKind k) noexcept;  ///< "none", "eax", "edx:eax", "st0"
Result<ReturnKind> parse_return_kind(std::string_view s);

/// A general register an argument or a poke can name (esp is the harness's own). The order is the
/// case file's poked-register bits: register_bit(r) is 1 << r.
enum class Reg : std::uint8_t { kEax, kEbx, kEcx, kEdx, kEsi, kEdi, kEbp };
inline constexpr Reg kRegs[] = {Reg::kEax, Reg::kEbx, Reg::kEcx, Reg::kEdx, Reg::kEsi, Reg::kEdi, Reg::kEbp};
const char* reg_name(Reg r) noexcept;  ///< "eax", ...
std::optional<Reg> reg_named(std::string_view s) noexcept;  ///< "eax" -> kEax; nothing for another name
Result<Reg> parse_reg(std::string_view s);                  ///< reg_named, or an error naming the choices
constexpr std::uint16_t register_bit(Reg r) noexcept { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(r)); }

/// A function's calling convention as a profile declares it.
struct CallingConvention {
  Convention kind = Convention::kWatcom;
  std::vector<Reg> registers;  ///< kCustom only: the argument registers in order
};
/// The registers a convention passes its first word arguments in, in order (custom: `cc.registers`).
std::vector<Reg> argument_registers(const CallingConvention& cc);

/// What one argument is, as a profile's `args` says: a 32-bit word (u32, i32, ptr: a guest address,
/// f32: a float's bit pattern) placed where the convention puts a word, or a double (f64), always on
/// the stack, 8 bytes.
enum class ArgType : std::uint8_t { kU32, kI32, kPtr, kF64, kF32 };
const char* arg_type_name(ArgType t) noexcept;  ///< "u32", "i32", "ptr", "f64", "f32"
Result<ArgType> parse_arg_type(std::string_view s);
constexpr std::uint32_t arg_size(ArgType t) noexcept { return t == ArgType::kF64 ? 8 : 4; }

/// One argument of a profile's function: `"throttle:i32"`.
struct ArgSpec {
  std::string name;
  ArgType type = ArgType::kU32;
  friend bool operator==(const ArgSpec&, const ArgSpec&) = default;
};

/// x87 and SSE state: what FSAVE and FXSAVE hold of it. `st[i]` is ST(i), by stack position
/// (ST(i) = physical register (TOP + i) & 7), as both store them; `tag` is the full tag word.
struct X87State {
  std::uint16_t control = 0x037f;  ///< FCW: fninit's 0x037f (POD's thread runs 0x027f, its profile says so)
  std::uint16_t status = 0;        ///< FSW (TOP in bits 11..13)
  std::uint16_t tag = 0xffff;      ///< full tag word, 2 bits per physical register (11 = empty)
  /// ST(0)..ST(7) as 80-bit extended values (10 bytes, little-endian).
  std::array<std::array<std::uint8_t, 10>, 8> st{};
  std::uint32_t mxcsr = 0x1f80;
  friend bool operator==(const X87State&, const X87State&) = default;
};

/// The CPU registers at a call boundary (entry or return).
struct Registers {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0, esi = 0, edi = 0, ebp = 0, esp = 0;
  std::uint32_t eip = 0, eflags = 0;
  X87State x87;
  /// The general register r.
  std::uint32_t& operator[](Reg r) noexcept;
  std::uint32_t operator[](Reg r) const noexcept;
  friend bool operator==(const Registers&, const Registers&) = default;
};

}  // namespace lockstep::cases
