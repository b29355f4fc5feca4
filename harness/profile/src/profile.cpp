// The profile reader (schema: harness/docs/profile.md).
#include "lockstep/profile/profile.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"

#include "record_points_reader.hpp"

namespace lockstep::harness {

namespace {

/// Reads one table, tracking the keys it used so that the rest are reported as unknown.
class TableReader {
 public:
  TableReader(const toml::table& t, std::string source, std::string where)
      : t_(t), source_(std::move(source)), where_(std::move(where)) {}

  int line() const { return static_cast<int>(t_.source().begin.line); }
  int line_of(std::string_view key) const {
    const toml::node* n = t_.get(key);
    return n ? static_cast<int>(n->source().begin.line) : line();
  }
  Error error(std::string_view key, std::string msg) const {
    return Error::make(Errc::kMalformed, "{}:{}: {}: {}", source_, line_of(key), where_, msg);
  }
  /// A required key left out, with what to write instead.
  Error missing(std::string_view key, std::string what_to_write) const {
    return Error::make(Errc::kMalformed, "{}:{}: {}: missing key '{}': {}", source_, line(), where_, key, what_to_write);
  }
  bool has(std::string_view key) {
    seen_.insert(std::string(key));
    return t_.contains(key);
  }
  const toml::node* node(std::string_view key) {
    seen_.insert(std::string(key));
    return t_.get(key);
  }

  Result<std::string> str(std::string_view key, bool required, std::string def = {}) {
    const toml::node* n = node(key);
    if (!n) {
      if (required) return Error::make(Errc::kMalformed, "{}:{}: {}: missing key '{}'", source_, line(), where_, key);
      return def;
    }
    if (!n->is_string()) return error(key, fmt::format("'{}' must be a string", key));
    return std::string(*n->value<std::string_view>());
  }

  Result<std::uint32_t> u32(std::string_view key, bool required, std::uint32_t def = 0) {
    const toml::node* n = node(key);
    if (!n) {
      if (required) return Error::make(Errc::kMalformed, "{}:{}: {}: missing key '{}'", source_, line(), where_, key);
      return def;
    }
    if (!n->is_integer()) return error(key, fmt::format("'{}' must be an integer", key));
    const std::int64_t v = *n->value<std::int64_t>();
    if (v < 0 || v > 0xffffffffLL) return error(key, fmt::format("'{}' = {} is outside 0..0xffffffff", key, v));
    return static_cast<std::uint32_t>(v);
  }

  Result<bool> boolean(std::string_view key, bool def) {
    const toml::node* n = node(key);
    if (!n) return def;
    if (!n->is_boolean()) return error(key, fmt::format("'{}' must be true or false", key));
    return *n->value<bool>();
  }

  Result<std::vector<std::string>> strings(std::string_view key) {
    std::vector<std::string> out;
    const toml::node* n = node(key);
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a) return error(key, fmt::format("'{}' must be an array of strings", key));
    for (const toml::node& e : *a) {
      if (!e.is_string()) return error(key, fmt::format("'{}' must hold only strings", key));
      out.emplace_back(*e.value<std::string_view>());
    }
    return out;
  }

  Status finish() const {
    for (const auto& [k, v] : t_) {
      if (!seen_.count(std::string(k.str())))
        return Error::make(Errc::kMalformed, "{}:{}: {}: unknown key '{}'", source_, v.source().begin.line, where_,
                           k.str());
    }
    return {};
  }

  const std::string& source() const { return source_; }
  const std::string& where() const { return where_; }

 private:
  const toml::table& t_;
  std::string source_;
  std::string where_;
  std::set<std::string> seen_;
};

/// Each [[x]] array of tables.
template <typename F>
Status each_table(const toml::table& root, std::string_view key, const std::string& source, F&& f) {
  const toml::node* n = root.get(key);
  if (!n) return {};
  const toml::array* a = n->as_array();
  if (!a || !a->is_array_of_tables())
    return Error::make(Errc::kMalformed, "{}:{}: '{}' must be an array of tables ([[{}]])", source,
                       n->source().begin.line, key, key);
  std::size_t i = 0;
  for (const toml::node& e : *a) {
    TableReader r(*e.as_table(), source, fmt::format("[[{}]] #{}", key, ++i));
    LOCKSTEP_TRY_STATUS(f(r));
    LOCKSTEP_TRY_STATUS(r.finish());
  }
  return {};
}

Status parse_field(const toml::table& t, const std::string& source, const std::string& where, FieldSpec& f) {
  TableReader r(t, source, where);
  LOCKSTEP_TRY(f.offset, r.u32("offset", true));
  LOCKSTEP_TRY(f.name, r.str("name", true));
  LOCKSTEP_TRY(f.struct_name, r.str("struct", false));
  LOCKSTEP_TRY(f.count, r.u32("count", false, 1));
  LOCKSTEP_TRY(f.size, r.u32("size", false, 0));
  LOCKSTEP_TRY(f.chosen, r.boolean("chosen", false));
  if (f.count == 0) return r.error("count", "count must be at least 1");
  if (f.struct_name.empty() && f.size == 0) return r.error("size", fmt::format("field '{}' needs a size (or a struct)", f.name));
  return r.finish();
}

}  // namespace

Result<std::uint32_t> parse_u32(std::string_view s) {
  std::string_view t = s;
  bool neg = false;
  if (!t.empty() && t[0] == '-') { neg = true; t.remove_prefix(1); }
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) { base = 16; t.remove_prefix(2); }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc{} || p != t.data() + t.size())
    return Error::make(Errc::kUsage, "'{}' is not a number (decimal or 0x-hex)", s);
  if (neg ? v > 0x80000000ULL : v > 0xffffffffULL) return Error::make(Errc::kUsage, "'{}' does not fit in 32 bits", s);
  return static_cast<std::uint32_t>(neg ? (0 - v) : v);
}

const FunctionSpec* Profile::function_by_name(std::string_view n) const noexcept {
  for (const FunctionSpec& f : functions)
    if (f.name == n || (!f.original.empty() && f.original == n)) return &f;
  return nullptr;
}
const FunctionSpec* Profile::function_at(GuestAddr a) const noexcept {
  for (const FunctionSpec& f : functions)
    if (f.address == a) return &f;
  return nullptr;
}
Result<const FunctionSpec*> Profile::find_function(std::string_view s) const {
  // An original symbol several functions share (hooks of one recorder) names none of them.
  std::vector<std::string> sharing;
  for (const FunctionSpec& f : functions)
    if (f.name != s && !f.original.empty() && f.original == s) sharing.push_back(f.name);
  if (sharing.size() > 1 && !std::any_of(functions.begin(), functions.end(), [&](const FunctionSpec& f) { return f.name == s; }))
    return Error::make(Errc::kUsage, "{}: original symbol '{}' is shared by {} functions ({}); name one of them", source,
                       s, sharing.size(), fmt::join(sharing, ", "));
  if (const FunctionSpec* f = function_by_name(s)) return f;
  if (auto a = parse_address(s); a.ok()) {
    if (const FunctionSpec* f = function_at(*a)) return f;
    return Error::make(Errc::kNotFound, "{} lists no function at 0x{:08x}", source, *a);
  }
  std::string near;
  for (const FunctionSpec& f : functions)
    if (f.name.find(s) != std::string::npos || s.find(f.name) != std::string::npos) near += " " + f.name;
  return Error::make(Errc::kNotFound, "{} lists no function named '{}'{}", source, s,
                     near.empty() ? "" : " (did you mean:" + near + "?)");
}
const StructSpec* Profile::struct_by_name(std::string_view n) const noexcept {
  for (const StructSpec& s : structs)
    if (s.name == n) return &s;
  return nullptr;
}
const InstanceSpec* Profile::instance_by_name(std::string_view n) const noexcept {
  for (const InstanceSpec& s : instances)
    if (s.name == n) return &s;
  return nullptr;
}
const DriverSpec* Profile::driver_by_name(std::string_view n) const noexcept {
  for (const DriverSpec& s : drivers)
    if (s.name == n) return &s;
  return nullptr;
}
const DriverSpec* Profile::driver_for_record(std::string_view r) const noexcept {
  for (const DriverSpec& s : drivers)
    if (s.record == r) return &s;
  return nullptr;
}

namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

/// Reads a parsed profile into a Profile, one table kind at a time, in the order the kinds refer to
/// each other (drivers name functions, stubs and instances; instances and fields name structs).
/// Keeps the name and address indexes the duplicate checks and lookups use while reading: one hash
/// lookup per entry, so a profile of 100k functions loads in linear time (a scan per entry was
/// quadratic).
class ProfileReader {
 public:
  ProfileReader(const toml::table& root, std::string source) : root_(root), source_(std::move(source)) {
    p_.source = source_;
  }

  Result<Profile> read() {
    LOCKSTEP_TRY_STATUS(check_top_level_keys());
    LOCKSTEP_TRY_STATUS(read_header());
    LOCKSTEP_TRY_STATUS(each_table(root_, "function", source_, [&](TableReader& r) { return read_function(r); }));
    LOCKSTEP_TRY_STATUS(each_table(root_, "stub", source_, [&](TableReader& r) { return read_stub(r); }));
    LOCKSTEP_TRY_STATUS(each_table(root_, "struct", source_, [&](TableReader& r) { return read_struct(r); }));
    LOCKSTEP_TRY_STATUS(check_struct_fields());
    LOCKSTEP_TRY_STATUS(check_no_nesting_cycle());
    LOCKSTEP_TRY_STATUS(check_named_ranges());
    LOCKSTEP_TRY_STATUS(each_table(root_, "instance", source_, [&](TableReader& r) { return read_instance(r); }));
    LOCKSTEP_TRY_STATUS(each_table(root_, "label", source_, [&](TableReader& r) { return read_label(r); }));
    LOCKSTEP_TRY_STATUS(each_table(root_, "driver", source_, [&](TableReader& r) { return read_driver(r); }));
    LOCKSTEP_TRY_STATUS(read_record_points(root_, source_, p_));
    return std::move(p_);
  }

 private:
  Status check_top_level_keys() const {
    static const std::set<std::string_view> kTop = {"profile", "function", "stub", "struct", "instance", "label", "driver", "record"};
    for (const auto& [k, v] : root_)
      if (!kTop.count(k.str()))
        return Error::make(Errc::kMalformed, "{}:{}: unknown top-level key '{}'", source_, v.source().begin.line, k.str());
    return {};
  }

  /// `[profile]`: the name, the description and the FPU defaults.
  Status read_header() {
    const toml::node* n = root_.get("profile");
    if (!n) return {};
    const toml::table* t = n->as_table();
    if (!t) return Error::make(Errc::kMalformed, "{}:{}: [profile] must be a table", source_, n->source().begin.line);
    TableReader r(*t, source_, "[profile]");
    LOCKSTEP_TRY(p_.name, r.str("name", false));
    LOCKSTEP_TRY(p_.description, r.str("description", false));
    LOCKSTEP_TRY(std::uint32_t cw, r.u32("fpu_control_word", false, p_.fpu_control_word));
    if (cw > 0xffff) return r.error("fpu_control_word", "fpu_control_word must fit in 16 bits");
    p_.fpu_control_word = static_cast<std::uint16_t>(cw);
    LOCKSTEP_TRY(p_.mxcsr, r.u32("mxcsr", false, p_.mxcsr));
    return r.finish();
  }

  /// `[[function]]`: address, names, convention, arguments and return.
  Status read_function(TableReader& r) {
    FunctionSpec f;
    f.line = r.line();
    LOCKSTEP_TRY(f.address, r.u32("address", true));
    LOCKSTEP_TRY(f.name, r.str("name", true));
    LOCKSTEP_TRY(f.original, r.str("original", false));
    // No silent defaults: a convention taken for granted puts the arguments in the wrong places (every
    // call faults somewhere else), a return kind taken for granted leaves the result uncompared.
    if (!r.has("convention"))
      return r.missing("convention", fmt::format("write the convention {} was compiled with: convention = \"cdecl\" "
                                                 "(or watcom, stdcall, fastcall, thiscall, custom)", f.name));
    LOCKSTEP_TRY(std::string conv, r.str("convention", true));
    auto c = parse_convention(conv);
    if (!c.ok()) return r.error("convention", c.error().message);
    f.convention.kind = *c;
    LOCKSTEP_TRY(auto regs, r.strings("registers"));
    if (f.convention.kind == Convention::kCustom && regs.empty())
      return r.error("registers", "a custom convention needs 'registers'");
    if (f.convention.kind != Convention::kCustom && !regs.empty())
      return r.error("registers", "'registers' is only for convention = \"custom\"");
    for (const std::string& s : regs) {
      auto rg = parse_reg(s);
      if (!rg.ok()) return r.error("registers", rg.error().message);
      f.convention.registers.push_back(*rg);
    }
    LOCKSTEP_TRY(auto args, r.strings("args"));
    for (const std::string& a : args) {
      LOCKSTEP_TRY(ArgSpec s, read_arg(r, a));
      f.args.push_back(std::move(s));
    }
    if (!r.has("returns"))
      return r.missing("returns", fmt::format("write what {} returns: returns = \"eax\" (or edx:eax, st0), or "
                                              "returns = \"none\" when its result is not compared", f.name));
    LOCKSTEP_TRY(std::string ret, r.str("returns", true));
    auto rk = parse_return_kind(ret);
    if (!rk.ok()) return r.error("returns", rk.error().message);
    f.returns = *rk;
    LOCKSTEP_TRY(f.compare_flags, r.boolean("compare_flags", false));
    LOCKSTEP_TRY(f.doc, r.str("doc", false));
    if (auto [it, fresh] = function_names_.try_emplace(f.name, f.line); !fresh)
      return r.error("name", fmt::format("function name '{}' is already used at line {}", f.name, it->second));
    if (auto [it, fresh] = function_addresses_.try_emplace(f.address, f.name, f.line); !fresh)
      return r.error("address", fmt::format("0x{:08x} is already function '{}' (line {})", f.address, it->second.first,
                                            it->second.second));
    function_address_by_name_.emplace(f.name, f.address);
    if (!f.original.empty()) function_address_by_name_.emplace(f.original, f.address);
    p_.functions.push_back(std::move(f));
    return {};
  }

  /// One "name:kind" of a function's `args`.
  static Result<ArgSpec> read_arg(const TableReader& r, const std::string& a) {
    const auto colon = a.find(':');
    ArgSpec s;
    s.name = a.substr(0, colon);
    if (colon == std::string::npos || colon == 0)
      return r.error("args", fmt::format("argument '{}' must be \"name:kind\" (kind u32, i32, ptr, f32 or f64)", a));
    const std::string kind = a.substr(colon + 1);
    auto t = parse_arg_type(kind);
    if (!t.ok()) return r.error("args", fmt::format("argument '{}': kind '{}' is not u32, i32, ptr, f32 or f64", a, kind));
    s.type = *t;
    return s;
  }

  /// `[[stub]]`: where (address or pointer), what it does instead, and why that is sound.
  Status read_stub(TableReader& r) {
    StubSpec s;
    s.line = r.line();
    LOCKSTEP_TRY(s.name, r.str("name", true));
    const bool has_addr = r.has("address"), has_ptr = r.has("pointer");
    if (has_addr == has_ptr) return r.error("address", "a stub needs exactly one of 'address' or 'pointer'");
    if (has_addr) { LOCKSTEP_TRY(s.address, r.u32("address", true)); }
    else { LOCKSTEP_TRY(s.pointer, r.u32("pointer", true)); }
    LOCKSTEP_TRY(std::string action, r.str("action", true));
    LOCKSTEP_TRY(s.pop, r.u32("pop", false));
    LOCKSTEP_TRY(s.value, r.u32("value", false));
    LOCKSTEP_TRY(std::string handler, r.str("handler", false));
    LOCKSTEP_TRY(s.block_size, r.u32("block_size", false));
    LOCKSTEP_TRY(s.why, r.str("why", true));
    if (blank(s.why)) return r.error("why", "'why' must say why the stub is sound");
    if (s.pop > 0xfffc || s.pop % 2) return r.error("pop", fmt::format("pop = {} is not a ret N operand", s.pop));
    if (action == "ret") {
      s.action = StubSpec::Action::kRet;
      if (r.has("pop") && s.pop) return r.error("pop", "action 'ret' pops nothing; use 'ret_n'");
    } else if (action == "ret_n") {
      s.action = StubSpec::Action::kRetN;
    } else if (action == "value") {
      s.action = StubSpec::Action::kValue;
      if (!r.has("value")) return r.error("action", "action 'value' needs 'value'");
    } else if (action == "handler") {
      if (handler != "tls_block") return r.error("handler", fmt::format("unknown handler '{}' (tls_block)", handler));
      s.action = StubSpec::Action::kTlsBlock;
      if (s.block_size == 0 || s.block_size > (16u << 20))
        return r.error("block_size", "handler tls_block needs block_size between 1 and 16 MiB");
    } else {
      return r.error("action", fmt::format("unknown action '{}' (ret, ret_n, value, handler)", action));
    }
    if (action != "handler" && !handler.empty()) return r.error("handler", "'handler' needs action = \"handler\"");
    if (auto [it, fresh] = stub_names_.try_emplace(s.name, s.line); !fresh)
      return r.error("name", fmt::format("stub name '{}' is already used at line {}", s.name, it->second));
    if (has_addr)
      if (auto [it, fresh] = stub_addresses_.try_emplace(*s.address, s.name, s.line); !fresh)
        return r.error("address", fmt::format("0x{:08x} is already stub '{}' (line {})", *s.address, it->second.first,
                                              it->second.second));
    p_.stubs.push_back(std::move(s));
    return {};
  }

  /// `[[struct]]`: its name, size and fields as written (check_struct_fields() checks them once
  /// every struct is known).
  Status read_struct(TableReader& r) {
    StructSpec s;
    s.line = r.line();
    LOCKSTEP_TRY(s.name, r.str("name", true));
    LOCKSTEP_TRY(s.size, r.u32("size", true));
    if (s.size == 0) return r.error("size", fmt::format("struct '{}' has size 0", s.name));
    const toml::node* fields = r.node("fields");
    if (fields) {
      const toml::array* a = fields->as_array();
      if (!a) return r.error("fields", "'fields' must be an array of inline tables");
      std::size_t i = 0;
      for (const toml::node& e : *a) {
        ++i;
        if (!e.is_table()) return r.error("fields", "'fields' must hold only tables");
        FieldSpec f;
        LOCKSTEP_TRY_STATUS(parse_field(*e.as_table(), source_, fmt::format("{} field #{}", r.where(), i), f));
        s.fields.push_back(std::move(f));
      }
    }
    if (auto [it, fresh] = struct_index_.try_emplace(s.name, p_.structs.size()); !fresh)
      return r.error("name", fmt::format("struct '{}' is already defined at line {}", s.name, p_.structs[it->second].line));
    p_.structs.push_back(std::move(s));
    return {};
  }

  /// Every struct's fields, now that every struct is known: unique names, nested records' sizes,
  /// within the struct, sorted by offset and not overlapping (a byte has one name). Notes which
  /// struct holds which, for check_no_nesting_cycle().
  Status check_struct_fields() {
    holds_.assign(p_.structs.size(), {});
    for (std::size_t si = 0; si < p_.structs.size(); ++si) {
      StructSpec& s = p_.structs[si];
      std::unordered_map<std::string, std::uint32_t> field_names;
      for (FieldSpec& f : s.fields) {
        if (auto [it, fresh] = field_names.try_emplace(f.name, f.offset); !fresh)
          return Error::make(Errc::kMalformed, "{}:{}: struct '{}': field name '{}' is used twice (offsets 0x{:x}, 0x{:x})",
                             source_, s.line, s.name, f.name, it->second, f.offset);
        if (!f.struct_name.empty()) {
          auto in = struct_index_.find(f.struct_name);
          if (in == struct_index_.end())
            return Error::make(Errc::kMalformed, "{}:{}: struct '{}': field '{}' names unknown struct '{}'", source_,
                               s.line, s.name, f.name, f.struct_name);
          const StructSpec* inner = &p_.structs[in->second];
          if (inner == &s)
            return Error::make(Errc::kMalformed, "{}:{}: struct '{}' contains itself", source_, s.line, s.name);
          holds_[si].push_back(in->second);
          if (std::uint64_t{inner->size} * f.count > 0xffffffffu)
            return Error::make(Errc::kMalformed, "{}:{}: struct '{}': field '{}' ({} x {}) is larger than 4 GiB", source_,
                               s.line, s.name, f.name, f.count, f.struct_name);
          f.size = inner->size * f.count;
        } else if (f.size % f.count) {
          return Error::make(Errc::kMalformed, "{}:{}: struct '{}': field '{}' size {} is not a multiple of count {}",
                             source_, s.line, s.name, f.name, f.size, f.count);
        }
        if (std::uint64_t{f.offset} + f.size > s.size)
          return Error::make(Errc::kMalformed, "{}:{}: struct '{}': field '{}' (0x{:x}+0x{:x}) runs past its size 0x{:x}",
                             source_, s.line, s.name, f.name, f.offset, f.size, s.size);
      }
      std::sort(s.fields.begin(), s.fields.end(),
                [](const FieldSpec& a, const FieldSpec& b) { return a.offset < b.offset; });
      for (std::size_t i = 1; i < s.fields.size(); ++i) {
        const FieldSpec& a = s.fields[i - 1];
        const FieldSpec& b = s.fields[i];
        if (std::uint64_t{a.offset} + a.size > b.offset)
          return Error::make(Errc::kMalformed, "{}:{}: struct '{}': fields '{}' (0x{:x}+0x{:x}) and '{}' (0x{:x}) overlap",
                             source_, s.line, s.name, a.name, a.offset, a.size, b.name, b.offset);
      }
    }
    return {};
  }

  /// Nested records form no cycle (A holds B holds A): a depth-first walk over "holds".
  Status check_no_nesting_cycle() const {
    enum Mark : std::uint8_t { kNew, kOnPath, kDone };
    std::vector<Mark> mark(p_.structs.size(), kNew);
    std::vector<std::pair<std::size_t, std::size_t>> stack;  // (struct, next edge)
    for (std::size_t root_struct = 0; root_struct < p_.structs.size(); ++root_struct) {
      if (mark[root_struct] != kNew) continue;
      stack.push_back({root_struct, 0});
      mark[root_struct] = kOnPath;
      while (!stack.empty()) {
        auto& [at, edge] = stack.back();
        if (edge == holds_[at].size()) {
          mark[at] = kDone;
          stack.pop_back();
          continue;
        }
        const std::size_t next = holds_[at][edge++];
        if (mark[next] == kOnPath) {
          std::string path;
          bool on = false;
          for (const auto& [sidx, e] : stack) {
            if (sidx == next) on = true;
            if (on) path += p_.structs[sidx].name + " -> ";
          }
          return Error::make(Errc::kMalformed, "{}:{}: struct '{}': nested records form a cycle: {}{}", source_,
                             p_.structs[next].line, p_.structs[next].name, path, p_.structs[next].name);
        }
        if (mark[next] == kNew) {
          mark[next] = kOnPath;
          stack.push_back({next, 0});
        }
      }
    }
    return {};
  }

  /// The named ranges each struct flattens into (every field, each element of an array and each
  /// nested record with its fields and gaps) stay within kMaxNamedRanges: counted here, before
  /// a labeler makes one name per range (a field of count 2147483648 would be billions of names).
  Status check_named_ranges() const {
    std::vector<std::optional<std::uint64_t>> ranges(p_.structs.size());
    // Depth-first over "holds" (acyclic: checked before); saturates past the limit.
    std::function<std::uint64_t(std::size_t)> count = [&](std::size_t si) -> std::uint64_t {
      if (ranges[si]) return *ranges[si];
      std::uint64_t n = 0;
      for (const FieldSpec& f : p_.structs[si].fields) {
        std::uint64_t each = 1;
        if (!f.struct_name.empty()) each = 2 * count(struct_index_.at(f.struct_name)) + 1;  // fields, gaps, the record
        n = std::min(n + std::min(each, kMaxNamedRanges + 1) * f.count, kMaxNamedRanges + 1);
      }
      ranges[si] = n;
      return n;
    };
    for (std::size_t si = 0; si < p_.structs.size(); ++si)
      if (count(si) > kMaxNamedRanges)
        return Error::make(Errc::kLimit, "{}:{}: struct '{}' names more than {} ranges (its fields, each array "
                                         "element, each nested record's fields): past the limit; name a large array "
                                         "as one field (count = 1)",
                           source_, p_.structs[si].line, p_.structs[si].name, kMaxNamedRanges);
    return {};
  }

  /// `[[instance]]`: records of a known struct at a base address.
  Status read_instance(TableReader& r) {
    InstanceSpec s;
    s.line = r.line();
    LOCKSTEP_TRY(s.name, r.str("name", true));
    LOCKSTEP_TRY(s.struct_name, r.str("struct", true));
    LOCKSTEP_TRY(s.base, r.u32("base", true));
    LOCKSTEP_TRY(s.count, r.u32("count", false, 1));
    auto si = struct_index_.find(s.struct_name);
    if (si == struct_index_.end()) return r.error("struct", fmt::format("unknown struct '{}'", s.struct_name));
    const StructSpec* st = &p_.structs[si->second];
    if (s.count == 0 || std::uint64_t{s.base} + std::uint64_t{st->size} * s.count > (std::uint64_t{1} << 32))
      return r.error("count", "the instances must lie below 4 GiB and count must be at least 1");
    if (auto [it, fresh] = instance_names_.try_emplace(s.name, s.line); !fresh)
      return r.error("name", fmt::format("instance '{}' is already defined at line {}", s.name, it->second));
    p_.instances.push_back(std::move(s));
    return {};
  }

  /// `[[label]]`: a name for bytes at an address.
  Status read_label(TableReader& r) {
    LabelSpec s;
    s.line = r.line();
    LOCKSTEP_TRY(s.name, r.str("name", true));
    LOCKSTEP_TRY(s.address, r.u32("address", true));
    LOCKSTEP_TRY(s.size, r.u32("size", false, 1));
    if (s.size == 0) return r.error("size", "size must be at least 1");
    if (std::uint64_t{s.address} + s.size > (std::uint64_t{1} << 32))
      return r.error("size", fmt::format("label '{}' (0x{:08x}, {} bytes) runs past 4 GiB", s.name, s.address, s.size));
    if (auto [it, fresh] = label_names_.try_emplace(s.name, s.line); !fresh)
      return r.error("name", fmt::format("label '{}' is already defined at line {}", s.name, it->second));
    p_.labels.push_back(std::move(s));
    return {};
  }

  /// `[[driver]]`: the function a state-log record runs, its arguments (instances or numbers) and the
  /// stubs active only while it runs.
  Status read_driver(TableReader& r) {
    DriverSpec d;
    d.line = r.line();
    LOCKSTEP_TRY(d.name, r.str("name", true));
    const toml::node* fn = r.node("function");
    if (!fn) return r.error("function", "missing key 'function'");
    if (fn->is_integer()) {
      LOCKSTEP_TRY(d.function, r.u32("function", true));
    } else if (fn->is_string()) {
      auto f = function_address_by_name_.find(std::string(*fn->value<std::string_view>()));
      if (f == function_address_by_name_.end())
        return r.error("function", fmt::format("no [[function]] named '{}'", *fn->value<std::string_view>()));
      d.function = f->second;
    } else {
      return r.error("function", "'function' must be an address or a [[function]] name");
    }
    LOCKSTEP_TRY(d.record, r.str("record", false, "CTRL"));
    LOCKSTEP_TRY(d.compare, r.str("compare", false, "PHYS"));
    // A misspelt record ("CTLR") would leave no driver on CTRL records and pick another silently.
    for (const auto& [key, tag] : {std::pair{"record", &d.record}, std::pair{"compare", &d.compare}})
      if (std::find(kStateLogRecords.begin(), kStateLogRecords.end(), *tag) == kStateLogRecords.end())
        return r.error(key, fmt::format("'{}' is no state-log record: records are STEP, CTRL, PHYS or FRAM", *tag));
    if (const toml::node* args = r.node("args")) {
      const toml::array* a = args->as_array();
      if (!a) return r.error("args", "'args' must be an array");
      for (const toml::node& e : *a) {
        DriverArg da;
        if (e.is_integer()) {
          const std::int64_t v = *e.value<std::int64_t>();
          if (v < 0 || v > 0xffffffffLL) return r.error("args", fmt::format("argument {} is outside 32 bits", v));
          da.value = static_cast<std::uint32_t>(v);
        } else if (e.is_string()) {
          da.instance = std::string(*e.value<std::string_view>());
          if (!instance_names_.count(da.instance))
            return r.error("args", fmt::format("argument '{}' is no [[instance]]", da.instance));
        } else {
          return r.error("args", "arguments are instance names or numbers");
        }
        d.args.push_back(std::move(da));
      }
    }
    LOCKSTEP_TRY(d.stubs, r.strings("stubs"));
    for (const std::string& s : d.stubs) {
      auto it = std::find_if(p_.stubs.begin(), p_.stubs.end(), [&](const StubSpec& x) { return x.name == s; });
      if (it == p_.stubs.end()) return r.error("stubs", fmt::format("no [[stub]] named '{}'", s));
      it->active = false;  // active only while this driver runs
    }
    if (auto [it, fresh] = driver_names_.try_emplace(d.name, d.line); !fresh)
      return r.error("name", fmt::format("driver '{}' is already defined at line {}", d.name, it->second));
    p_.drivers.push_back(std::move(d));
    return {};
  }

  const toml::table& root_;
  const std::string source_;
  Profile p_;
  std::unordered_map<std::string, int> function_names_, stub_names_, label_names_, driver_names_, instance_names_;
  std::unordered_map<GuestAddr, std::pair<std::string, int>> function_addresses_, stub_addresses_;
  std::unordered_map<std::string, std::size_t> struct_index_;
  std::unordered_map<std::string, GuestAddr> function_address_by_name_;
  std::vector<std::vector<std::size_t>> holds_;  ///< per struct: the structs its fields nest
};

}  // namespace

Result<Profile> parse_profile(std::string_view text, std::string_view source_name) {
  const std::string source(source_name);
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return Error::make(Errc::kMalformed, "{}:{}:{}: {}", source, e.source().begin.line, e.source().begin.column,
                       e.description());
  }
  return ProfileReader(root, source).read();
}

Result<Profile> load_profile(const std::filesystem::path& path) {
  LOCKSTEP_TRY(auto bytes, read_file(path, ProfileLimits{}.max_file_bytes));
  return parse_profile(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path.string());
}

}  // namespace lockstep::harness
