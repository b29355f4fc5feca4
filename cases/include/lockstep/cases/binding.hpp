// A binding: how to run the port's version of one original function on a case. The cases layer only
// knows the shape; pod::bindings provides POD's (port/bindings/), and any other port can provide its
// own. The replay runs each case through the binding registered for its function's address.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/cases/arguments.hpp"
#include "lockstep/cases/case.hpp"
#include "lockstep/cases/compare.hpp"

namespace lockstep::cases {

/// What a declared binding's port function takes after its memory, and what it gives back
/// (lockstep/cases/declared.hpp): the C++ side of the profile's `args` and `returns`, so that the two can
/// be held together (declared_misfit) before any case runs.
struct DeclaredShape {
  enum class Param : std::uint8_t {
    kWord,    ///< a 32-bit (or narrower) integer: the profile's u32, i32 or ptr
    kFloat,   ///< float: the profile's f32, or a float it passes as u32
    kDouble,  ///< double: the profile's f64
  };
  std::vector<Param> params;
  ReturnKind returns = ReturnKind::kNone;  ///< void: none; an integer: eax (64-bit: edx:eax); float, double: st0
  friend bool operator==(const DeclaredShape&, const DeclaredShape&) = default;
};

/// Why a port function of `shape` cannot run on the arguments `signature` gives ("" when it fits): a
/// different count, a kind it cannot take, another return. `name` starts the sentence.
std::string declared_misfit(std::string_view name, const DeclaredShape& shape, const Signature& signature);
/// Whether `declared_misfit` would say nothing: the check a declared binding makes before each case.
bool declared_fits(const DeclaredShape& shape, const Signature& signature) noexcept;

struct Binding {
  GuestAddr address = 0;  ///< the original function's entry
  std::string name;       ///< the port function it runs ("math::dot16")
  /// Runs the port on the case's input bytes and registers; never throws (a port exception becomes
  /// PortEffects::error).
  std::function<PortEffects(const Case&)> run;
  /// Set instead of `run` by a binding that reads its arguments by name (lockstep/cases/arguments.hpp):
  /// it runs with the function's signature from the profile, which whoever holds the profile attaches
  /// (harness::with_signatures: the replay command, the gate, probe).
  std::function<PortEffects(const Case&, const Signature&)> run_with_args{};
  std::shared_ptr<const Signature> signature{};  ///< the profile's, for run_with_args
  /// Set by a declared binding (lockstep/cases/declared.hpp): the shape of the port function it calls
  /// with the profile's arguments in order, checked against the profile by the gate's bindings check
  /// (lockstep/testing/bindings_check.hpp) and before every case it runs.
  std::optional<DeclaredShape> declared{};
};

using BindingSet = std::vector<Binding>;

/// Runs the binding on a case: `run`, or `run_with_args` with the attached signature (without one, the
/// effects' error says that the profile is needed).
PortEffects run_binding(const Binding& b, const Case& c);

/// `b` with `edit` applied to its effects after each run, whichever way it runs (`run` or
/// `run_with_args`, with the signature it is given): a port made wrong on purpose, for a test that the
/// verdict sees it (a flipped byte, a thrown error, a write left out).
Binding with_edited_effects(Binding b, std::function<void(const Case&, PortEffects&)> edit);

/// The binding for an address, or nullptr.
const Binding* find_binding(const BindingSet& set, GuestAddr address);

}  // namespace lockstep::cases
