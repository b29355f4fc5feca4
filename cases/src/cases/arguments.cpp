#include "lockstep/cases/arguments.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "lockstep/cases/replay_memory.hpp"

namespace lockstep::cases {

std::string ArgPlace::where() const {
  return reg ? std::string(reg_name(*reg)) : fmt::format("esp+{}", esp_offset);
}

Result<std::vector<ArgPlace>> place_arguments(const CallingConvention& cc, std::span<const ArgSpec> args) {
  if (cc.kind == Convention::kCustom && cc.registers.empty())
    return Error::make(Errc::kUsage, "a custom calling convention needs its argument registers");
  const std::vector<Reg> regs = argument_registers(cc);
  std::vector<ArgPlace> out;
  std::size_t next_reg = 0;
  std::uint32_t stack = 4;  // above the return address
  for (const ArgSpec& a : args) {
    ArgPlace p;
    p.size = arg_size(a.type);
    if (a.type != ArgType::kF64 && next_reg < regs.size()) {
      p.reg = regs[next_reg++];
    } else {
      p.esp_offset = stack;
      stack += p.size;
    }
    out.push_back(p);
  }
  return out;
}

void place_signature(Signature& s) {
  auto places = place_arguments(s.convention, s.args);
  s.places = places.ok() ? std::move(*places) : std::vector<ArgPlace>{};
}

Arguments::Arguments(const Case& c, const Signature& signature, ReplayMemory& memory)
    : c_(c), signature_(signature), memory_(memory) {
  if (signature.places.size() == signature.args.size()) {
    places_ = signature.places;
    return;
  }
  auto places = place_arguments(signature.convention, signature.args);
  if (!places.ok()) throw std::invalid_argument(places.error().message);
  own_places_ = std::move(*places);
  places_ = own_places_;
}

std::size_t Arguments::index(std::string_view name, std::initializer_list<ArgType> kinds, const char* accessor) const {
  for (std::size_t i = 0; i < signature_.args.size(); ++i) {
    const ArgSpec& a = signature_.args[i];
    if (a.name != name) continue;
    for (ArgType k : kinds)
      if (a.type == k) return i;
    throw std::invalid_argument(fmt::format("{}: argument '{}' is {} in the profile; {}() does not read it",
                                            c_.name, name, arg_type_name(a.type), accessor));
  }
  std::string names;
  for (const ArgSpec& a : signature_.args) names += (names.empty() ? "" : ", ") + a.name + ":" + arg_type_name(a.type);
  throw std::invalid_argument(fmt::format("{}: no argument '{}' in the profile's args ({})", c_.name, name,
                                          names.empty() ? "it lists none" : names));
}

std::uint64_t Arguments::load(std::size_t i) const {
  const ArgPlace& p = places_[i];
  if (p.reg) return c_.in[*p.reg];
  return memory_.load_le(c_.in.esp + p.esp_offset, p.size);
}

std::uint32_t Arguments::u32(std::string_view name) const {
  return static_cast<std::uint32_t>(load(index(name, {ArgType::kU32, ArgType::kI32, ArgType::kPtr, ArgType::kF32}, "u32")));
}
std::int32_t Arguments::i32(std::string_view name) const {
  return static_cast<std::int32_t>(load(index(name, {ArgType::kI32, ArgType::kU32}, "i32")));
}
GuestAddr Arguments::ptr(std::string_view name) const {
  return static_cast<GuestAddr>(load(index(name, {ArgType::kPtr, ArgType::kU32}, "ptr")));
}
float Arguments::f32(std::string_view name) const {
  return std::bit_cast<float>(static_cast<std::uint32_t>(load(index(name, {ArgType::kF32, ArgType::kU32}, "f32"))));
}
double Arguments::f64(std::string_view name) const {
  return std::bit_cast<double>(load(index(name, {ArgType::kF64}, "f64")));
}

const ArgPlace& Arguments::place(std::string_view name) const {
  return places_[index(name, {ArgType::kU32, ArgType::kI32, ArgType::kPtr, ArgType::kF32, ArgType::kF64}, "place")];
}

std::uint64_t Arguments::bits(std::size_t i) const {
  if (i >= places_.size())
    throw std::out_of_range(fmt::format("{}: argument {} asked for; the profile's args list {}", c_.name, i + 1, places_.size()));
  return load(i);
}

bool Arguments::read_by_original(std::string_view name) const {
  const ArgPlace& p = place(name);
  return p.reg || c_.inputs.contains_all(c_.in.esp + p.esp_offset, p.size);
}

namespace {

std::string format_value(ArgType t, std::uint64_t v) {
  switch (t) {
    case ArgType::kI32: return fmt::format("0x{:08x} ({})", v, static_cast<std::int32_t>(v));
    case ArgType::kU32: return fmt::format("0x{:08x} ({})", v, static_cast<std::uint32_t>(v));
    case ArgType::kPtr: return fmt::format("0x{:08x}", v);
    case ArgType::kF32: return fmt::format("{} (0x{:08x})", std::bit_cast<float>(static_cast<std::uint32_t>(v)), v);
    case ArgType::kF64: return fmt::format("{} (0x{:016x})", std::bit_cast<double>(v), v);
  }
  return "?";
}

}  // namespace

std::vector<std::string> describe_arguments(const Case& c, const Signature& signature) {
  std::vector<std::string> out;
  auto places = place_arguments(signature.convention, signature.args);
  if (!places.ok()) return {places.error().message};
  for (std::size_t i = 0; i < places->size(); ++i) {
    const ArgPlace& p = (*places)[i];
    const ArgSpec& a = signature.args[i];
    std::string value = "(not read)";
    if (p.reg) {
      value = format_value(a.type, c.in[*p.reg]);
    } else if (const GuestAddr at = c.in.esp + p.esp_offset; c.inputs.contains_all(at, p.size)) {
      std::uint64_t v = 0;
      for (std::uint32_t k = 0; k < p.size; ++k) v |= std::uint64_t{*c.inputs.get(at + k)} << (8 * k);
      value = format_value(a.type, v);
    }
    out.push_back(fmt::format("{} ({}) = {}", a.name, p.where(), value));
  }
  return out;
}

}  // namespace lockstep::cases
