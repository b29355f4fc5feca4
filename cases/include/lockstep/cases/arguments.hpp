// A case's arguments by name: where the function's convention put each argument of the profile's
// `args` at entry, and typed reads of them for a binding (`args.i32("throttle")`). A register
// argument is read from the case's entry registers; a stack argument from the replay memory when the
// binding asks for it, so that only what the port reads counts as a port read (an argument the
// original never read, read by the port, is reported like any byte it never read).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/case.hpp"
#include "lockstep/cases/cpu.hpp"

namespace lockstep::cases {

class ReplayMemory;

/// Where one argument lies at the function's entry: a register, or the stack at entry esp + offset
/// (the first stack argument at esp+4, above the return address).
struct ArgPlace {
  std::optional<Reg> reg;
  std::uint32_t esp_offset = 0;  ///< stack arguments only
  std::uint32_t size = 4;
  /// "ecx", "esp+8".
  std::string where() const;
  friend bool operator==(const ArgPlace&, const ArgPlace&) = default;
};

/// A function's arguments and result as its profile declares them: the convention, `args`, `returns`.
struct Signature {
  CallingConvention convention;
  std::vector<ArgSpec> args;
  ReturnKind returns = ReturnKind::kNone;
  /// Where each of `args` lies, once placed (place_signature; harness::with_signatures does it), so
  /// that a replay places them once per function rather than once per case. Empty: not placed, and
  /// each Arguments over the signature places them itself.
  std::vector<ArgPlace> places{};
  friend bool operator==(const Signature&, const Signature&) = default;
};

/// The place of each argument, in order: words in the convention's registers until they are used
/// up, then on the stack (pushed right to left, so the first stack argument lies lowest); a double
/// always on the stack. The machine lays a call's arguments down by the same rule (plan_call).
/// kUsage for a custom convention without registers.
Result<std::vector<ArgPlace>> place_arguments(const CallingConvention& cc, std::span<const ArgSpec> args);

/// Fills `s.places` (place_arguments); a convention that cannot place them leaves it empty, so that each
/// use reports why.
void place_signature(Signature& s);

/// A case's arguments, read as the port asks for them. Every read of a name the signature does not
/// have, or of the wrong kind, throws std::invalid_argument naming the arguments there are: a
/// binding's exception becomes the case's port error, so the report says what to fix.
class Arguments {
 public:
  /// `memory` is the case's replay memory, which the port's own reads go through too.
  Arguments(const Case& c, const Signature& signature, ReplayMemory& memory);
  Arguments(const Arguments&) = delete;  // places_ may point into own_places_
  Arguments& operator=(const Arguments&) = delete;

  /// Any 32-bit argument's bits (u32, i32, ptr, f32).
  std::uint32_t u32(std::string_view name) const;
  std::int32_t i32(std::string_view name) const;    ///< an i32 or u32 argument
  GuestAddr ptr(std::string_view name) const;       ///< a ptr or u32 argument
  float f32(std::string_view name) const;           ///< an f32, or a float passed as u32
  double f64(std::string_view name) const;          ///< an f64 argument
  /// Where the argument lies.
  const ArgPlace& place(std::string_view name) const;
  /// The i-th argument's bits, as its place holds them (4 bytes; 8 for an f64), whatever its kind: for
  /// a declared binding, which passes the arguments in order after checking their kinds once
  /// (declared_misfit). Throws std::out_of_range past the last.
  std::uint64_t bits(std::size_t i) const;
  /// Whether the original read the argument (a register argument always counts as read).
  bool read_by_original(std::string_view name) const;

  const Case& call() const noexcept { return c_; }
  const Signature& signature() const noexcept { return signature_; }

 private:
  std::size_t index(std::string_view name, std::initializer_list<ArgType> kinds, const char* accessor) const;
  std::uint64_t load(std::size_t i) const;

  const Case& c_;
  const Signature& signature_;
  ReplayMemory& memory_;
  std::vector<ArgPlace> own_places_;   ///< when the signature was not placed
  std::span<const ArgPlace> places_;
};

/// One line per argument with its value in the case ("throttle (esp+8) = 0x000000c8 (200)"), for a
/// report: a stack argument the original never read shows "(not read)".
std::vector<std::string> describe_arguments(const Case& c, const Signature& signature);

}  // namespace lockstep::cases
