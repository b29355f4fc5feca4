// Names for guest bytes (see labels.hpp).
#include "lockstep/profile/labels.hpp"

#include "lockstep/base/numbers.hpp"
#include "lockstep/profile/values.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace lockstep::harness {

namespace {

struct FlatField {
  std::uint32_t offset;
  std::uint32_t size;
  std::string name;
  bool chosen;
  bool gap = false;  // bytes of a nested record no field of it names
};

/// Flattens a struct's fields into innermost named ranges ("point[1].sliding"). A nested record
/// with no field covering a byte still names it by the record ("point[1]").
void flatten(const Profile& p, const StructSpec& s, std::uint32_t base, const std::string& prefix,
             std::vector<FlatField>& out, int depth) {
  if (depth > 8) return;  // a profile cannot nest deeper than this sensibly; guards cycles
  for (const FieldSpec& f : s.fields) {
    const StructSpec* inner = f.struct_name.empty() ? nullptr : p.struct_by_name(f.struct_name);
    if (inner) {
      for (std::uint32_t i = 0; i < f.count; ++i) {
        const std::string name = fmt::format("{}{}[{}]", prefix, f.name, i);
        const std::size_t before = out.size();
        flatten(p, *inner, base + f.offset + i * inner->size, name + ".", out, depth + 1);
        // Gaps inside the record: named by the record itself.
        std::vector<FlatField> gaps;
        std::uint32_t at = base + f.offset + i * inner->size;
        const std::uint32_t end = at + inner->size;
        std::vector<FlatField> mine(out.begin() + static_cast<std::ptrdiff_t>(before), out.end());
        std::sort(mine.begin(), mine.end(), [](auto& a, auto& b) { return a.offset < b.offset; });
        for (const FlatField& m : mine) {
          if (m.offset > at) gaps.push_back({at, m.offset - at, name, false, true});
          at = std::max(at, m.offset + m.size);
        }
        if (at < end) gaps.push_back({at, end - at, name, false, true});
        out.insert(out.end(), gaps.begin(), gaps.end());
      }
    } else if (f.count > 1) {
      const std::uint32_t elem = f.size / f.count;
      for (std::uint32_t i = 0; i < f.count; ++i)
        out.push_back({base + f.offset + i * elem, elem, fmt::format("{}{}[{}]", prefix, f.name, i), f.chosen});
    } else {
      out.push_back({base + f.offset, f.size, prefix + f.name, f.chosen});
    }
  }
}

}  // namespace

std::string FieldRef::text() const {
  if (owner.empty()) return fmt::format("0x{:08x}", start);
  return field.empty() ? owner : fmt::format("{} {}", owner, field);
}

Labeler::Labeler(const Profile& profile) {
  for (const InstanceSpec& in : profile.instances) {
    const StructSpec* s = profile.struct_by_name(in.struct_name);
    if (!s) continue;
    Inst i{in.name, in.base, s->size, in.count, {}};
    std::vector<FlatField> flat;
    flatten(profile, *s, 0, "", flat, 0);
    std::sort(flat.begin(), flat.end(), [](auto& a, auto& b) { return a.offset < b.offset || (a.offset == b.offset && a.size < b.size); });
    for (FlatField& f : flat) i.fields.push_back(Flat{f.offset, f.size, std::move(f.name), f.chosen, f.gap});
    instances_.push_back(std::move(i));
  }
  std::sort(instances_.begin(), instances_.end(), [](auto& a, auto& b) { return a.base < b.base; });
  labels_ = profile.labels;
  for (const FunctionSpec& f : profile.functions) functions_.emplace_back(f.address, f.name);
  std::sort(functions_.begin(), functions_.end());
  std::sort(labels_.begin(), labels_.end(), [](auto& a, auto& b) { return a.address < b.address; });
}

FieldRef Labeler::field(GuestAddr a) const {
  FieldRef r;
  r.start = a;
  for (const Inst& in : instances_) {
    const std::uint64_t span = std::uint64_t{in.stride} * in.count;
    if (a < in.base || a >= in.base + span || in.stride == 0) continue;
    const std::uint32_t idx = (a - in.base) / in.stride;
    const std::uint32_t off = (a - in.base) % in.stride;
    const GuestAddr rec = in.base + idx * in.stride;
    r.owner = fmt::format("{}[{}]", in.name, idx);
    // The innermost (smallest) field holding the byte.
    const Flat* best = nullptr;
    for (const Flat& f : in.fields) {
      if (f.offset > off) break;
      if (off < f.offset + f.size && (!best || f.size <= best->size)) best = &f;
    }
    if (best) {
      r.field = best->name;
      r.start = rec + best->offset;
      r.size = best->size;
      r.chosen = best->chosen;
      r.gap = best->gap;
    }
    r.owner = fmt::format("{}[{}]+0x{:x}", in.name, idx, r.start - rec);
    return r;
  }
  for (const LabelSpec& l : labels_) {
    if (a >= l.address && a < std::uint64_t{l.address} + l.size) {
      r.owner = l.name;
      r.start = l.address;
      r.size = l.size;
      return r;
    }
  }
  return r;
}

std::string Labeler::function_name(GuestAddr address) const {
  const auto it = std::lower_bound(functions_.begin(), functions_.end(), address,
                                   [](const auto& f, GuestAddr a) { return f.first < a; });
  return it != functions_.end() && it->first == address ? it->second : std::string();
}

std::string Labeler::name(GuestAddr a) const {
  for (const Inst& in : instances_) {
    const std::uint64_t span = std::uint64_t{in.stride} * in.count;
    if (a < in.base || a >= in.base + span || in.stride == 0) continue;
    const FieldRef f = field(a);
    const std::uint32_t idx = (a - in.base) / in.stride;
    const std::uint32_t off = (a - in.base) % in.stride;
    std::string s = fmt::format("{}[{}]+0x{:x}", in.name, idx, off);
    if (!f.field.empty()) {
      s += " " + f.field;
      if (a != f.start && !f.gap) s += fmt::format("+{}", a - f.start);
    }
    return s;
  }
  for (const LabelSpec& l : labels_) {
    if (a >= l.address && a < std::uint64_t{l.address} + l.size)
      return a == l.address ? l.name : fmt::format("{}+0x{:x}", l.name, a - l.address);
  }
  return fmt::format("0x{:08x}", a);
}

}  // namespace lockstep::harness

namespace lockstep::harness {

Result<GuestAddr> Labeler::resolve(std::string_view text) const {
  LOCKSTEP_TRY(const Target t, resolve_target(text));
  return t.address;
}

Result<Labeler::Target> Labeler::resolve_target(std::string_view text) const {
  std::string_view base = text;
  std::uint32_t offset = 0;
  if (auto plus = text.find('+'); plus != std::string_view::npos) {
    base = text.substr(0, plus);
    auto off = parse_address(text.substr(plus + 1));
    if (!off.ok())
      return Error::make(Errc::kUsage, "'{}': the offset after '+' is not a number (a field is named after a '.': {}.{})",
                         text, base, text.substr(plus + 1));
    offset = *off;
  }
  // Every sum is checked: an address past 4 GiB would wrap to a low one and name other bytes.
  auto at = [&](std::uint64_t a, std::uint32_t size) -> Result<Target> {
    LOCKSTEP_TRY(const GuestAddr addr, add_guest_offset(a, offset, text));
    return Target{addr, offset == 0 ? size : 0};
  };
  if (auto n = parse_address(base); n.ok()) return at(*n, 0);
  std::string_view path;  // the field's name after the instance: "fuel", "point[1].sliding"
  if (auto dot = base.find('.'); dot != std::string_view::npos) {
    path = base.substr(dot + 1);
    base = base.substr(0, dot);
  }
  std::string_view name = base;
  std::uint32_t index = 0;
  if (auto br = base.find('['); br != std::string_view::npos) {
    if (base.back() != ']') return Error::make(Errc::kUsage, "'{}': expected name[index]", text);
    auto idx = parse_address(base.substr(br + 1, base.size() - br - 2));
    if (!idx.ok()) return Error::make(Errc::kUsage, "'{}': the index is not a number", text);
    index = *idx;
    name = base.substr(0, br);
  }
  for (const Inst& in : instances_) {
    if (in.name != name) continue;
    if (index >= in.count)
      return Error::make(Errc::kUsage, "'{}': {} has {} instance(s), index {} is past them", text, in.name, in.count, index);
    const std::uint64_t record = std::uint64_t{in.base} + std::uint64_t{index} * in.stride;
    if (path.empty()) return at(record, 0);
    LOCKSTEP_TRY(const auto field, field_by_name(in, path, text));
    return at(record + field.first, field.second);
  }
  for (const LabelSpec& l : labels_)
    if (l.name == name && base.find('[') == std::string_view::npos && path.empty()) return at(l.address, 0);
  return Error::make(Errc::kUsage, "'{}' is neither a number nor an instance or label of the profile", text);
}

Result<std::pair<std::uint32_t, std::uint32_t>> Labeler::field_by_name(const Inst& in, std::string_view path,
                                                                        std::string_view text) {
  // The field itself, or a nested record or a whole array by its name: the range its parts cover.
  std::uint64_t lo = UINT64_MAX, hi = 0;
  for (const Flat& f : in.fields) {
    const std::string_view n = f.name;
    const bool whole = n == path && !f.gap;
    const bool part = n.size() > path.size() && n.substr(0, path.size()) == path &&
                      (n[path.size()] == '.' || n[path.size()] == '[');
    const bool record = f.gap && n == path;  // a nested record's bytes no field of it names
    if (!whole && !part && !record) continue;
    if (whole) return std::pair{f.offset, f.size};
    lo = std::min<std::uint64_t>(lo, f.offset);
    hi = std::max<std::uint64_t>(hi, std::uint64_t{f.offset} + f.size);
  }
  if (lo < hi) return std::pair{static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi - lo)};
  std::string names;
  std::size_t shown = 0;
  for (const Flat& f : in.fields) {
    if (f.gap) continue;
    if (shown++ == 12) { names += ", ..."; break; }
    names += (names.empty() ? "" : ", ") + f.name;
  }
  return Error::make(Errc::kUsage, "'{}': {} has no field '{}' ({})", text, in.name, path,
                     names.empty() ? "its struct names no fields" : "fields: " + names);
}

std::string format_runs(const std::vector<ByteRun>& runs, const Labeler& labels, std::string_view indent) {
  std::string out;
  for (const ByteRun& r : runs) {
    std::size_t i = 0;
    while (i < r.bytes.size()) {
      const GuestAddr a = r.addr + static_cast<GuestAddr>(i);
      const FieldRef f = labels.field(a);
      std::size_t n = 1;
      if (!f.field.empty() || !f.owner.empty()) {
        // Bytes of the same field (or the same unnamed stretch of an instance) go on one line.
        while (i + n < r.bytes.size() && n < 64) {
          const FieldRef g = labels.field(a + static_cast<GuestAddr>(n));
          if (g.field != f.field || g.start != f.start || (f.field.empty() && g.owner.substr(0, g.owner.find('+')) != f.owner.substr(0, f.owner.find('+'))))
            break;
          if (f.field.empty() && n >= 16) break;
          ++n;
        }
      } else {
        while (i + n < r.bytes.size() && n < 16 && labels.field(a + static_cast<GuestAddr>(n)).owner.empty()) ++n;
      }
      std::string hex;
      for (std::size_t k = 0; k < n; ++k) hex += fmt::format("{}{:02x}", k ? " " : "", r.bytes[i + k]);
      out += fmt::format("{}{}: {}\n", indent, labels.name(a), hex);
      i += n;
    }
  }
  return out;
}

std::string format_effects(const Effects& e, const Labeler& labels) {
  std::string out;
  out += fmt::format("  inputs ({} bytes read before written):\n", byte_count(e.inputs));
  out += format_runs(e.inputs, labels);
  if (!e.stale_stack_reads.empty()) {
    out += fmt::format("  STALE STACK READS ({} bytes below the entry esp 0x{:08x}, read before this call wrote "
                       "them: inputs left by earlier calls):\n",
                       byte_count(e.stale_stack_reads), e.entry_esp);
    out += format_runs(e.stale_stack_reads, labels);
  }
  out += fmt::format("  outputs ({} bytes written, final values):\n", byte_count(e.outputs));
  out += format_runs(e.outputs, labels);
  out += fmt::format("  own frame: {} bytes written below the entry esp (not compared)\n", byte_count(e.frame_writes));
  return out;
}

Result<std::vector<std::uint8_t>> parse_hex(std::string_view hex) {
  std::vector<std::uint8_t> out;
  int nibble = -1;
  for (char c : hex) {
    if (c == ' ' || c == '_') continue;
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else return Error::make(Errc::kUsage, "'{}' is not hex (character '{}')", hex, c);
    if (nibble < 0) nibble = v;
    else { out.push_back(static_cast<std::uint8_t>(nibble << 4 | v)); nibble = -1; }
  }
  if (nibble >= 0) return Error::make(Errc::kUsage, "'{}' has an odd number of hex digits", hex);
  if (out.empty()) return Error::make(Errc::kUsage, "no bytes in '{}'", hex);
  return out;
}

namespace {

// x86 registers a poke cannot set: the harness owns esp and eip (the call's stack and entry), and a
// register poke sets a whole 32-bit register. Named so that "esp=..." says so instead of being looked
// up as a label.
constexpr std::string_view kUnpokeableRegisters[] = {
    "esp", "eip", "eflags", "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "al", "ah", "bl", "bh",
    "cl", "ch", "dl", "dh", "cs", "ds", "es", "fs", "gs", "ss"};
constexpr std::string_view kPokeableRegisters = "eax, ebx, ecx, edx, esi, edi, ebp";

Result<cases::RegisterPoke> parse_register_poke(std::string_view text, cases::Reg reg, std::string_view value) {
  auto typed = parse_typed_value(value);
  if (!typed.ok()) return std::move(typed).error().wrap("poke '{}'", text);
  if (*typed) {
    if ((*typed)->bytes.size() > 4)
      return Error::make(Errc::kUsage, "poke '{}': {} holds 4 bytes, the value {}", text, cases::reg_name(reg),
                         (*typed)->bytes.size());
    return cases::RegisterPoke{reg, (*typed)->word()};
  }
  // "00001000" is a memory poke's hex bytes; read as decimal it would set another value than meant.
  const std::string_view digits = value.substr(!value.empty() && value.front() == '-' ? 1 : 0);
  if (digits.size() > 1 && digits[0] == '0' && digits[1] != 'x' && digits[1] != 'X')
    return Error::make(Errc::kUsage,
                       "poke '{}': '{}' has a leading zero, as hex bytes do (a memory poke's form); {} takes a number "
                       "written 0x-hex or decimal (0x1000, 4096)",
                       text, value, cases::reg_name(reg));
  auto number = parse_u32(value);
  if (!number.ok())
    return Error::make(Errc::kUsage,
                       "poke '{}': {}; {} takes a 32-bit number (0x3000, 12288, -1) or a typed value of at most 4 "
                       "bytes (u32:7, i16:-3, f32:0.5, fx:1.5)",
                       text, number.error().message, cases::reg_name(reg));
  return cases::RegisterPoke{reg, *number};
}

Result<cases::Poke> parse_memory_poke(std::string_view text, std::string_view address, std::string_view value,
                                      const Labeler& labels) {
  cases::Poke p;
  auto resolved = labels.resolve_target(address);
  if (!resolved.ok()) return std::move(resolved).error().wrap("poke '{}'", text);
  const Labeler::Target target = *resolved;
  p.address = target.address;
  auto parsed = parse_value(value);
  if (!parsed.ok()) return std::move(parsed).error().wrap("poke '{}'", text);
  p.bytes = std::move(parsed->bytes);
  if (target.field_size != 0 && p.bytes.size() > target.field_size)
    return Error::make(Errc::kUsage, "poke '{}': {} is {} byte(s), the value {} (it would write past the field)", text,
                       address, target.field_size, p.bytes.size());
  if (std::uint64_t{p.address} + p.bytes.size() > 0x100000000ULL)
    return Error::make(Errc::kUsage, "poke '{}': {} bytes at 0x{:08x} pass the end of the 32-bit address space", text,
                       p.bytes.size(), p.address);
  return p;
}

}  // namespace

Result<StatePoke> parse_state_poke(std::string_view text, const Labeler& labels) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos)
    return Error::make(Errc::kUsage,
                       "poke '{}' is not ADDR=VALUE (hex bytes, or typed: u32:7, f32:0.5, fx:-200.0) or REG=VALUE "
                       "({}: a number or a typed value of at most 4 bytes)",
                       text, kPokeableRegisters);
  const std::string_view target = text.substr(0, eq), value = text.substr(eq + 1);
  if (auto reg = cases::reg_named(target)) {
    LOCKSTEP_TRY(cases::RegisterPoke r, parse_register_poke(text, *reg, value));
    return StatePoke{r};
  }
  if (std::find(std::begin(kUnpokeableRegisters), std::end(kUnpokeableRegisters), target) !=
      std::end(kUnpokeableRegisters))
    return Error::make(Errc::kUsage,
                       "poke '{}': {} is not a register a poke can set (a register poke sets one of {}; esp and "
                       "eip are the harness's own)",
                       text, target, kPokeableRegisters);
  LOCKSTEP_TRY(cases::Poke p, parse_memory_poke(text, target, value, labels));
  return StatePoke{std::move(p)};
}

Result<cases::Poke> parse_poke(std::string_view text, const Labeler& labels) {
  auto poke = parse_state_poke(text, labels);
  if (!poke.ok()) return std::move(poke).error();
  if (const auto* r = std::get_if<cases::RegisterPoke>(&*poke))
    return Error::make(Errc::kUsage,
                       "poke '{}' sets the entry register {}, and only memory is poked here (ADDR=VALUE); a "
                       "register poke goes to probe --poke, on a case",
                       text, cases::reg_name(r->reg));
  return std::move(std::get<cases::Poke>(*poke));
}

}  // namespace lockstep::harness

namespace lockstep::harness {

Result<Arg> parse_call_arg(std::string_view text, ArgType type, const Labeler& labels) {
  if (text.rfind("hex:", 0) == 0) {
    LOCKSTEP_TRY(auto bytes, parse_hex(text.substr(4)));
    return Arg::bytes(std::move(bytes));
  }
  LOCKSTEP_TRY(std::optional<TypedValue> typed, parse_typed_value(text));
  // A plain number for a float argument is read as its kind.
  if (!typed && (type == ArgType::kF64 || type == ArgType::kF32) && !text.empty() &&
      (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-' || text.front() == '.')) {
    LOCKSTEP_TRY(TypedValue v, parse_value(fmt::format("{}:{}", type == ArgType::kF64 ? "f64" : "f32", text)));
    typed = std::move(v);
  }
  if (typed) {
    if (typed->type == ValueType::kF64) {
      double d;
      std::memcpy(&d, typed->bytes.data(), 8);
      // An argument is a value some call could pass: an infinity or a NaN is no such value. A poke may
      // still lay one in memory, and hex: gives an argument any bytes.
      if (!std::isfinite(d))
        return Error::make(Errc::kUsage, "argument '{}' is not a finite double; give its bytes with hex: if that is "
                                         "meant",
                           text);
      return Arg::f(d);
    }
    if (type == ArgType::kF64)
      return Error::make(Errc::kUsage, "argument '{}': the function takes an f64 here (8 bytes): write f64:...", text);
    return Arg::u32(typed->word());
  }
  // A negative integer argument ("-3", "-0x10000") is passed as its 32-bit two's complement. Only an
  // argument takes a sign: an address (resolve) never does, so "-1" cannot name the top of memory.
  if (!text.empty() && text.front() == '-') {
    auto magnitude = parse_address(text.substr(1));
    if (!magnitude.ok() || *magnitude > 0x80000000u)
      return Error::make(Errc::kUsage, "argument '{}' is not a number from -2^31 to -1", text);
    return Arg::u32(static_cast<std::uint32_t>(0u - *magnitude));
  }
  LOCKSTEP_TRY(GuestAddr v, labels.resolve(text));
  return Arg::u32(v);
}

}  // namespace lockstep::harness
