// Names for guest bytes (see labels.hpp).
#include "lockstep/harness/labels.hpp"

#include "lockstep/base/numbers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

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
  std::string_view base = text;
  std::uint32_t offset = 0;
  if (auto plus = text.find('+'); plus != std::string_view::npos) {
    base = text.substr(0, plus);
    auto off = parse_address(text.substr(plus + 1));
    if (!off.ok()) return Error::make(Errc::kUsage, "'{}': the offset after '+' is not a number", text);
    offset = *off;
  }
  // Every sum is checked: an address past 4 GiB would wrap to a low one and name other bytes.
  if (auto n = parse_address(base); n.ok()) return add_guest_offset(*n, offset, text);
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
    return add_guest_offset(std::uint64_t{in.base} + std::uint64_t{index} * in.stride, offset, text);
  }
  for (const LabelSpec& l : labels_)
    if (l.name == name && base.find('[') == std::string_view::npos) return add_guest_offset(l.address, offset, text);
  return Error::make(Errc::kUsage, "'{}' is neither a number nor an instance or label of the profile", text);
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

Result<Poke> parse_poke(std::string_view text, const Labeler& labels) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) return Error::make(Errc::kUsage, "poke '{}' is not ADDR=HEX", text);
  Poke p;
  LOCKSTEP_TRY(p.address, labels.resolve(text.substr(0, eq)));
  LOCKSTEP_TRY(p.bytes, parse_hex(text.substr(eq + 1)));
  if (std::uint64_t{p.address} + p.bytes.size() > 0x100000000ULL)
    return Error::make(Errc::kUsage, "poke '{}': {} bytes at 0x{:08x} pass the end of the 32-bit address space", text,
                       p.bytes.size(), p.address);
  return p;
}

}  // namespace lockstep::harness

namespace lockstep::harness {

Result<Arg> parse_call_arg(std::string_view text, ArgType type, const Labeler& labels) {
  if (text.rfind("hex:", 0) == 0) {
    LOCKSTEP_TRY(auto bytes, parse_hex(text.substr(4)));
    return Arg::bytes(std::move(bytes));
  }
  const bool as_f64 = text.rfind("f64:", 0) == 0;
  if (as_f64 || type == ArgType::kF64) {
    const std::string s(as_f64 ? text.substr(4) : text);
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s.front())))
      return Error::make(Errc::kUsage, "argument '{}' is not a number", text);
    // 1e400 would become infinity, "nan" a NaN no recorded call holds: refused (hex: gives any bytes).
    if (!std::isfinite(d))
      return Error::make(Errc::kUsage, "argument '{}' is not a finite double (past +-1.8e308, or inf/nan); give "
                                       "its bytes with hex: if that is meant",
                         text);
    return Arg::f(d);
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
