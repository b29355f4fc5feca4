// Comparing the port's effects on a case with the original's (cases/docs/case-format.md, "Case semantics"):
// every byte the original wrote at or above its entry stack pointer must be written by the port with
// the same value; the port must write nothing else; output registers per convention must agree; a
// byte the port read that the original never read is reported (an error by default).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/cases/case.hpp"
#include "lockstep/x87/extended.hpp"

namespace lockstep::cases {

/// What the port did on a case.
struct PortEffects {
  ByteMap writes;
  std::uint32_t eax = 0, edx = 0;
  /// For ReturnKind::kSt0: the 80-bit value, compared with the original's ST(0) bit for bit (a double
  /// converts to it exactly; lockstep/x87/extended.hpp says how to produce one at 64-bit precision).
  std::optional<x87::Extended> st0;
  std::vector<GuestAddr> outside_reads;
  std::string error;                  ///< non-empty: the port raised this instead of returning
};

struct ByteDiff {
  enum class Kind : std::uint8_t {
    kDifferent,        ///< both wrote, different values
    kNotWritten,       ///< the original wrote it, the port did not
    kExtraWrite,       ///< the port wrote a byte the original left alone
  };
  GuestAddr address = 0;
  Kind kind = Kind::kDifferent;
  std::optional<std::uint8_t> original;  ///< the original's final value (absent for kExtraWrite)
  std::optional<std::uint8_t> port;      ///< the port's value (absent for kNotWritten)
  std::optional<std::uint8_t> before;    ///< the byte's input value, when the case has it
};

struct RegisterDiff {
  std::string name;  ///< "eax", "edx", "st0"
  std::string original, port;
};

struct CompareOptions {
  /// A read outside the original's read set fails the case (the case cannot vouch for the value).
  bool outside_reads_fail = true;
};

struct Comparison {
  std::vector<ByteDiff> bytes;           ///< ascending by address
  std::vector<RegisterDiff> registers;
  std::vector<GuestAddr> outside_reads;
  bool outside_reads_fail = true;
  std::string port_error;                ///< the port raised instead of returning

  bool matched() const noexcept {
    return port_error.empty() && bytes.empty() && registers.empty() &&
           (outside_reads.empty() || !outside_reads_fail);
  }
};

Comparison compare(const Case& original, const PortEffects& port, const CompareOptions& opt = {});

/// The 80-bit extended value x87 would hold for a double (exact: every double is representable).
inline std::array<std::uint8_t, 10> f64_to_f80(double v) { return x87::Extended(v).bytes(); }
/// The double nearest an 80-bit value under round-to-nearest-even (exact when it came from a double).
inline double f80_to_f64(const std::array<std::uint8_t, 10>& v) { return x87::Extended::from_bytes(v).to_double(); }
/// "93.0617619503933612196 (4005ba1f9f432a274400)": an 80-bit value as the reports print it.
std::string format_extended(const x87::Extended& v);

}  // namespace lockstep::cases
