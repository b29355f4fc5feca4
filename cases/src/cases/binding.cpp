// Running a binding, and holding a declared binding's port function against the profile's signature.
#include "lockstep/cases/binding.hpp"

#include <fmt/format.h>

namespace lockstep::cases {

namespace {

bool fits(DeclaredShape::Param p, ArgType t) {
  switch (p) {
    case DeclaredShape::Param::kWord: return t == ArgType::kU32 || t == ArgType::kI32 || t == ArgType::kPtr;
    case DeclaredShape::Param::kFloat: return t == ArgType::kF32 || t == ArgType::kU32;
    case DeclaredShape::Param::kDouble: return t == ArgType::kF64;
  }
  return false;
}

const char* param_name(DeclaredShape::Param p) {
  switch (p) {
    case DeclaredShape::Param::kWord: return "a 32-bit integer";
    case DeclaredShape::Param::kFloat: return "a float";
    case DeclaredShape::Param::kDouble: return "a double";
  }
  return "?";
}

std::string port_side(const DeclaredShape& shape) {
  std::string params;
  for (DeclaredShape::Param p : shape.params) params += (params.empty() ? "" : ", ") + std::string(param_name(p));
  return fmt::format("({}) returning {}", params, return_kind_name(shape.returns));
}

std::string profile_side(const Signature& s) {
  std::string args;
  for (const ArgSpec& a : s.args) args += (args.empty() ? "" : ", ") + a.name + ":" + arg_type_name(a.type);
  return fmt::format("args = [{}], returns = \"{}\"", args, return_kind_name(s.returns));
}

}  // namespace

bool declared_fits(const DeclaredShape& shape, const Signature& signature) noexcept {
  if (shape.params.size() != signature.args.size() || shape.returns != signature.returns) return false;
  for (std::size_t i = 0; i < shape.params.size(); ++i)
    if (!fits(shape.params[i], signature.args[i].type)) return false;
  return true;
}

std::string declared_misfit(std::string_view name, const DeclaredShape& shape, const Signature& signature) {
  std::string why;
  if (shape.params.size() != signature.args.size()) {
    why = fmt::format("the port function takes {} argument(s) after its memory, the profile lists {}", shape.params.size(),
                      signature.args.size());
  } else if (shape.returns != signature.returns) {
    why = fmt::format("the port function returns {}, the profile says {}", return_kind_name(shape.returns),
                      return_kind_name(signature.returns));
  } else {
    for (std::size_t i = 0; i < shape.params.size() && why.empty(); ++i)
      if (!fits(shape.params[i], signature.args[i].type))
        why = fmt::format("its argument {} is {}, which the profile's '{}:{}' is not", i + 1, param_name(shape.params[i]),
                          signature.args[i].name, arg_type_name(signature.args[i].type));
  }
  if (why.empty()) return "";
  return fmt::format("{}: {}: the port function is {}; the profile has {}. Make the profile's [[function]] say what the "
                     "original takes and returns, and the port function take and return the same",
                     name, why, port_side(shape), profile_side(signature));
}

PortEffects run_binding(const Binding& b, const Case& c) {
  if (!b.run_with_args) {
    if (b.run) return b.run(c);
    PortEffects fx;
    fx.error = fmt::format("{}: the binding sets neither run nor run_with_args", b.name);
    return fx;
  }
  if (!b.signature) {
    PortEffects fx;
    fx.error = fmt::format("{} takes its arguments as the profile declares them, but no profile gave the function's "
                           "args: replay with the profile the corpus was captured with (--profile)",
                           b.name);
    return fx;
  }
  return b.run_with_args(c, *b.signature);
}

Binding with_edited_effects(Binding b, std::function<void(const Case&, PortEffects&)> edit) {
  if (b.run_with_args) {
    b.run_with_args = [inner = std::move(b.run_with_args), edit](const Case& c, const Signature& s) {
      PortEffects fx = inner(c, s);
      edit(c, fx);
      return fx;
    };
  }
  if (b.run) {
    b.run = [inner = std::move(b.run), edit](const Case& c) {
      PortEffects fx = inner(c);
      edit(c, fx);
      return fx;
    };
  }
  return b;
}

const Binding* find_binding(const BindingSet& set, GuestAddr address) {
  for (const auto& b : set)
    if (b.address == address) return &b;
  return nullptr;
}

}  // namespace lockstep::cases
