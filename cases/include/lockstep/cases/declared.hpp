// A declared binding: the port function itself stands for how it is called. Its parameters after its
// memory take the profile's `args` in order (the convention says where each lies: a register or the
// stack, lockstep/cases/arguments.hpp), its result is the profile's `returns`, so the common binding,
// "read the arguments, call, put the result in eax", is one line instead of a lambda:
//
//   set.push_back(lockstep::cases::declared<MyCaseMemory>(0x418010, "drive::engine", &drive::engine));
//
// `PortMemory` is the port's memory over a case (constructed from the case's ReplayMemory; the
// port function's memory parameter is it or a base of it). What the port function takes and returns
// is recorded in the binding (Binding::declared) and held against the profile before anything runs
// (declared_misfit: the gate's bindings check, lockstep/testing/bindings_check.hpp) and again on each
// case, whose port error then says what disagrees. A binding that needs more than its arguments (a
// value the case shows elsewhere, a result that is not the function's return) is written out.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "lockstep/cases/arguments.hpp"
#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/port_run.hpp"
#include "lockstep/x87/extended.hpp"

namespace lockstep::cases {

namespace declared_detail {

template <class T>
constexpr DeclaredShape::Param param_of() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || (std::is_integral_v<T> && sizeof(T) <= 4),
                "a declared binding's port function takes 32-bit integers, floats and doubles after its memory; "
                "write the binding out for any other parameter");
  if constexpr (std::is_same_v<T, float>) return DeclaredShape::Param::kFloat;
  else if constexpr (std::is_same_v<T, double>) return DeclaredShape::Param::kDouble;
  else return DeclaredShape::Param::kWord;
}

template <class R>
concept DeclarableResult = std::is_void_v<R> || std::is_floating_point_v<R> || std::is_integral_v<R>;

template <class R>
constexpr ReturnKind return_of() {
  static_assert(DeclarableResult<R>,
                "a declared binding's port function returns nothing, an integer or a floating-point value; write the "
                "binding out for any other result");
  if constexpr (std::is_void_v<R>) return ReturnKind::kNone;
  else if constexpr (std::is_floating_point_v<R>) return ReturnKind::kSt0;
  else if constexpr (sizeof(R) == 8) return ReturnKind::kEdxEax;
  else return ReturnKind::kEax;
}

/// The i-th argument as the port function's parameter type (its kind was checked by declared_misfit).
template <class T>
T argument(const Arguments& args, std::size_t i) {
  const std::uint64_t bits = args.bits(i);
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(bits);
  else return static_cast<T>(static_cast<std::uint32_t>(bits));  // the register's low bits, as the callee sees them
}

template <class R>
void put_result(PortEffects& fx, R r) {
  if constexpr (std::is_floating_point_v<R>) {
    fx.st0 = x87::Extended(r);
  } else if constexpr (sizeof(R) == 8) {
    const auto v = static_cast<std::uint64_t>(r);
    fx.eax = static_cast<std::uint32_t>(v);
    fx.edx = static_cast<std::uint32_t>(v >> 32);
  } else if constexpr (std::is_same_v<R, bool>) {
    fx.eax = r ? 1u : 0u;
  } else {
    fx.eax = static_cast<std::uint32_t>(r);  // a narrower or signed result, widened as C widens it
  }
}

/// Runs `call(memory, args)` on the case, with the misfit check first and the port's exceptions caught.
template <class PortMemory, class R, class Call>
PortEffects run(const DeclaredShape& shape, std::string_view name, const Case& c, const Signature& signature,
                const Call& call) {
  if (!declared_fits(shape, signature)) {
    PortEffects fx;
    fx.error = declared_misfit(name, shape, signature);
    return fx;
  }
  return run_port<PortMemory>(c, [&](PortMemory& memory, ReplayMemory& rm, PortEffects& fx) {
    const Arguments args(c, signature, rm);
    if constexpr (std::is_void_v<R>) call(memory, args);
    else put_result(fx, call(memory, args));
  });
}

template <class R, class... A>
Binding make_declared(GuestAddr address, std::string name) {
  Binding b{address, std::move(name), {}};
  b.declared = DeclaredShape{{param_of<A>()...}, return_of<R>()};
  return b;
}

}  // namespace declared_detail

/// The binding of the original function at `address` to the port function `fn`, called with its
/// memory over the case and the profile's arguments in order.
template <class PortMemory, class R, class M, class... A>
  requires(std::derived_from<PortMemory, M> || std::same_as<PortMemory, M>)
Binding declared(GuestAddr address, std::string name, R (*fn)(M&, A...)) {
  static_assert(std::constructible_from<PortMemory, ReplayMemory&>, "PortMemory is built over a case's ReplayMemory");
  Binding b = declared_detail::make_declared<R, A...>(address, std::move(name));
  b.run_with_args = [fn, shape = *b.declared, label = b.name](const Case& c, const Signature& signature) {
    return declared_detail::run<PortMemory, R>(shape, label, c, signature, [fn](M& m, const Arguments& args) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return fn(m, declared_detail::argument<A>(args, I)...);
      }(std::index_sequence_for<A...>{});
    });
  };
  return b;
}

/// The same for a port function that reads no memory (its arguments only): the case's memory is still
/// the replay's, so a byte the port could not have read is never reported as read.
template <class PortMemory, class R, class... A>
  requires(std::is_arithmetic_v<A> && ...)
Binding declared(GuestAddr address, std::string name, R (*fn)(A...)) {
  Binding b = declared_detail::make_declared<R, A...>(address, std::move(name));
  b.run_with_args = [fn, shape = *b.declared, label = b.name](const Case& c, const Signature& signature) {
    return declared_detail::run<PortMemory, R>(shape, label, c, signature, [fn](PortMemory&, const Arguments& args) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return fn(declared_detail::argument<A>(args, I)...);
      }(std::index_sequence_for<A...>{});
    });
  };
  return b;
}

}  // namespace lockstep::cases
