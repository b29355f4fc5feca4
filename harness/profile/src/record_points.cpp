// Recording points: the `[[record]]` reader and the expressions' parser and evaluator
// (record_points.hpp; schema: harness/docs/profile.md, "[[record]]").
#include "lockstep/profile/record_points.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "record_points_reader.hpp"

namespace lockstep::harness {
namespace {

using Node = RecordExpr::Node;
using Op = RecordExpr::Node::Op;

constexpr int kMaxExprNodes = 256;  ///< an expression longer than this is refused (no runaway profile)

const std::set<std::string_view>& register_names() {
  static const std::set<std::string_view> names = {"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp", "eip",
                                                   "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "rip"};
  return names;
}

/// Recursive descent over one expression: sum := product (('+'|'-') product)*, product := atom
/// ('*' atom)*, atom := number | '(' sum ')' | load '(' sum ')' | index '(' sum ',' instance ')'
/// | register | instance | hits | i | name ['[' sum ']'].
class ExprParser {
 public:
  ExprParser(std::string_view text, const Profile& profile) : s_(text), p_(profile) {}

  Result<RecordExpr> parse() {
    RecordExpr e;
    e.text = std::string(s_);
    LOCKSTEP_TRY(int root, sum(e));
    skip();
    if (pos_ != s_.size()) return fail(fmt::format("unexpected '{}'", s_.substr(pos_)));
    e.natural_size = root == natural_root_ ? natural_ : 0;
    return e;
  }

 private:
  Error fail(std::string what) const {
    return Error::make(Errc::kMalformed, "expression \"{}\": {}", s_, what);
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  Result<int> add(RecordExpr& e, Node n) {
    if (static_cast<int>(e.nodes.size()) >= kMaxExprNodes) return fail("too long");
    e.nodes.push_back(std::move(n));
    return static_cast<int>(e.nodes.size()) - 1;
  }
  Result<int> binary(RecordExpr& e, Op op, int a, int b) {
    Node n;
    n.op = op, n.a = a, n.b = b;
    return add(e, std::move(n));
  }
  Result<int> sum(RecordExpr& e) {
    LOCKSTEP_TRY(int left, product(e));
    for (;;) {
      if (eat('+')) {
        LOCKSTEP_TRY(int right, product(e));
        LOCKSTEP_TRY(left, binary(e, Op::kAdd, left, right));
      } else if (eat('-')) {
        LOCKSTEP_TRY(int right, product(e));
        LOCKSTEP_TRY(left, binary(e, Op::kSub, left, right));
      } else {
        return left;
      }
    }
  }
  Result<int> product(RecordExpr& e) {
    LOCKSTEP_TRY(int left, atom(e));
    while (eat('*')) {
      LOCKSTEP_TRY(int right, atom(e));
      LOCKSTEP_TRY(left, binary(e, Op::kMul, left, right));
    }
    return left;
  }
  std::string_view word() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' ||
                                s_[pos_] == ':' || s_[pos_] == '.'))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }
  Result<int> atom(RecordExpr& e);
  Result<int> load(RecordExpr& e, std::string_view fn);
  Result<int> index(RecordExpr& e);
  Result<int> name(RecordExpr& e, std::string_view w);

  std::string_view s_;
  const Profile& p_;
  std::size_t pos_ = 0;
  int natural_root_ = -2;         ///< the node a bare name produced, and the bytes it spans
  std::uint64_t natural_ = 0;
};

Result<int> ExprParser::atom(RecordExpr& e) {
  if (eat('(')) {
    LOCKSTEP_TRY(int inner, sum(e));
    if (!eat(')')) return fail("missing ')'");
    return inner;
  }
  const std::string_view w = word();
  if (w.empty()) return fail(pos_ < s_.size() ? fmt::format("unexpected '{}'", s_[pos_]) : "ends too early");
  if (std::isdigit(static_cast<unsigned char>(w[0]))) {
    const bool hex = w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X');
    std::uint64_t v = 0;
    const char* first = w.data() + (hex ? 2 : 0);
    auto [end, ec] = std::from_chars(first, w.data() + w.size(), v, hex ? 16 : 10);
    if (ec != std::errc() || end != w.data() + w.size() || v > 0xffffffffffffULL)
      return fail(fmt::format("'{}' is not a number", w));
    Node n;
    n.value = static_cast<std::int64_t>(v);
    return add(e, std::move(n));
  }
  static const std::set<std::string_view> loads = {"u8", "u16", "u32", "u64", "i8", "i16", "i32"};
  if (loads.count(w)) return load(e, w);
  if (w == "index") return index(e);
  if (register_names().count(w)) {
    Node n;
    n.op = Op::kRegister;
    n.name = std::string(w);
    e.reads_registers = true;
    return add(e, std::move(n));
  }
  Node v;
  if (w == "instance") v.op = Op::kInstance;
  else if (w == "hits") v.op = Op::kHits;
  else if (w == "i") v.op = Op::kIndexVar;
  else return name(e, w);
  return add(e, std::move(v));
}

Result<int> ExprParser::load(RecordExpr& e, std::string_view fn) {
  if (!eat('(')) return fail(fmt::format("{} needs '(' address ')'", fn));
  LOCKSTEP_TRY(int address, sum(e));
  if (!eat(')')) return fail("missing ')'");
  Node n;
  n.op = Op::kLoad;
  n.is_signed = fn[0] == 'i';
  int bits = 0;
  std::from_chars(fn.data() + 1, fn.data() + fn.size(), bits);
  n.value = bits / 8;
  n.a = address;
  return add(e, std::move(n));
}

Result<int> ExprParser::index(RecordExpr& e) {
  if (!eat('(')) return fail("index needs '(' pointer ',' instance ')'");
  LOCKSTEP_TRY(int pointer, sum(e));
  if (!eat(',')) return fail("index needs '(' pointer ',' instance ')'");
  const std::string_view inst = word();
  const InstanceSpec* is = p_.instance_by_name(inst);
  if (!is) return fail(fmt::format("index: '{}' is no [[instance]]", inst));
  if (!eat(')')) return fail("missing ')'");
  Node n;
  n.op = Op::kIndex;
  n.value = is->base;
  n.stride = p_.struct_by_name(is->struct_name)->size;
  n.count = is->count;
  n.name = is->name;
  n.a = pointer;
  return add(e, std::move(n));
}

/// An instance (its base; with [E] element E) or a label (its address).
Result<int> ExprParser::name(RecordExpr& e, std::string_view w) {
  if (const InstanceSpec* is = p_.instance_by_name(w)) {
    const std::uint32_t stride = p_.struct_by_name(is->struct_name)->size;
    Node base;
    base.value = is->base;
    LOCKSTEP_TRY(int at, add(e, std::move(base)));
    if (!eat('[')) {
      natural_root_ = at, natural_ = std::uint64_t{stride} * is->count;
      return at;
    }
    LOCKSTEP_TRY(int element, sum(e));
    if (!eat(']')) return fail("missing ']'");
    Node st;
    st.value = stride;
    LOCKSTEP_TRY(int size, add(e, std::move(st)));
    LOCKSTEP_TRY(int offset, binary(e, Op::kMul, element, size));
    LOCKSTEP_TRY(int sum_at, binary(e, Op::kAdd, at, offset));
    natural_root_ = sum_at, natural_ = stride;
    return sum_at;
  }
  for (const LabelSpec& l : p_.labels)
    if (l.name == w) {
      Node n;
      n.value = l.address;
      LOCKSTEP_TRY(int at, add(e, std::move(n)));
      natural_root_ = at, natural_ = l.size;
      return at;
    }
  return fail(fmt::format("'{}' is no register, variable (instance, hits, i), [[instance]] or [[label]]", w));
}

Result<std::int64_t> eval_node(const RecordExpr& e, int at, const RecordEnvironment& env) {
  const Node& n = e.nodes[static_cast<std::size_t>(at)];
  switch (n.op) {
    case Op::kNumber: return n.value;
    case Op::kRegister: return static_cast<std::int64_t>(env.reg(n.name));
    case Op::kInstance: return env.instance;
    case Op::kHits: return env.hits;
    case Op::kIndexVar: return env.i;
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul: {
      LOCKSTEP_TRY(std::int64_t a, eval_node(e, n.a, env));
      LOCKSTEP_TRY(std::int64_t b, eval_node(e, n.b, env));
      // Unsigned arithmetic: wraps like the machine's instead of being undefined.
      const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
      return static_cast<std::int64_t>(n.op == Op::kAdd ? ua + ub : n.op == Op::kSub ? ua - ub : ua * ub);
    }
    case Op::kLoad: {
      LOCKSTEP_TRY(std::int64_t address, eval_node(e, n.a, env));
      const unsigned size = static_cast<unsigned>(n.value);
      LOCKSTEP_TRY(std::uint64_t v, env.load(static_cast<std::uint64_t>(address), size));
      if (!n.is_signed || size == 8) return static_cast<std::int64_t>(v);
      const unsigned shift = 64 - 8 * size;
      return static_cast<std::int64_t>(v << shift) >> shift;
    }
    case Op::kIndex: {
      LOCKSTEP_TRY(std::int64_t pointer, eval_node(e, n.a, env));
      const std::int64_t offset = pointer - n.value;
      if (offset < 0 || offset % n.stride != 0 || offset / n.stride >= n.count)
        return Error::make(Errc::kMalformed,
                           "\"{}\": 0x{:x} is not the start of an element of {} (0x{:x}, {} of 0x{:x} bytes)", e.text,
                           static_cast<std::uint64_t>(pointer), n.name, n.value, n.count, n.stride);
      return offset / n.stride;
    }
  }
  return Error::make(Errc::kMalformed, "\"{}\": bad expression node", e.text);
}

/// The few keys a `[[record]]` table holds, each read once, the rest reported as unknown.
class RecordTable {
 public:
  RecordTable(const toml::table& t, const std::string& source, std::size_t n)
      : t_(t), where_(fmt::format("{}:{}: [[record]] #{}", source, t.source().begin.line, n)) {}
  Error error(std::string_view key, std::string msg) const {
    const toml::node* n = t_.get(key);
    return Error::make(Errc::kMalformed, "{} (line {}): {}", where_, n ? n->source().begin.line : t_.source().begin.line,
                       msg);
  }
  const toml::node* node(std::string_view key) {
    seen_.insert(std::string(key));
    return t_.get(key);
  }
  /// The string under `key`, "" when absent (no key of a [[record]] may be an empty string).
  Result<std::string> str(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::string{};
    if (!n->is_string() || n->value<std::string_view>()->empty())
      return error(key, fmt::format("'{}' must be a non-empty string", key));
    return std::string(*n->value<std::string_view>());
  }
  Status finish() const {
    for (const auto& [k, v] : t_)
      if (!seen_.count(std::string(k.str()))) return error(k.str(), fmt::format("unknown key '{}'", k.str()));
    return {};
  }
  const toml::table& table() const { return t_; }

 private:
  const toml::table& t_;
  std::string where_;
  std::set<std::string> seen_;
};

Result<RecordExpr> expression(RecordTable& r, std::string_view key, std::string_view text, const Profile& p) {
  auto e = ExprParser(text, p).parse();
  if (!e.ok()) return r.error(key, e.error().message);
  return e;
}

/// One entry of `blocks`: "EXPR", "EXPR:SIZE" or { at, size, each, if }.
Result<RecordBlockSpec> read_block(RecordTable& r, const toml::node& n, const Profile& p) {
  RecordBlockSpec b;
  if (n.is_string()) {
    const std::string_view text = *n.value<std::string_view>();
    const std::size_t colon = text.rfind(':');
    const bool sized = colon != std::string_view::npos && text.find("::") == std::string_view::npos;
    LOCKSTEP_TRY(b.at, expression(r, "blocks", sized ? text.substr(0, colon) : text, p));
    if (sized) { LOCKSTEP_TRY(b.size, expression(r, "blocks", text.substr(colon + 1), p)); }
  } else if (const toml::table* t = n.as_table()) {
    for (const auto& [k, v] : *t) {
      const std::string_view key = k.str();
      if (key == "blocks") {
        const toml::array* list = v.as_array();
        if (!list || list->empty()) return r.error("blocks", "a group's 'blocks' must be a non-empty array");
        for (const toml::node& inner : *list) {
          LOCKSTEP_TRY(RecordBlockSpec g, read_block(r, inner, p));
          b.group.push_back(std::move(g));
        }
        continue;
      }
      if (key != "at" && key != "size" && key != "each" && key != "if")
        return r.error("blocks", fmt::format("a block's unknown key '{}' (at, size, each, if, blocks)", key));
      if (!v.is_string()) return r.error("blocks", fmt::format("a block's '{}' must be an expression string", key));
      LOCKSTEP_TRY(RecordExpr e, expression(r, "blocks", *v.value<std::string_view>(), p));
      if (key == "at") b.at = std::move(e);
      else if (key == "size") b.size = std::move(e);
      else if (key == "each") b.each = std::move(e);
      else b.condition = std::move(e);
    }
    if (!b.group.empty()) {
      if (!b.at.nodes.empty() || b.size)
        return r.error("blocks", "a block group has 'blocks' (and 'each', 'if'), not 'at' or 'size'");
      return b;
    }
    if (b.at.nodes.empty()) return r.error("blocks", "a block table needs 'at' (or 'blocks', a group)");
  } else {
    return r.error("blocks", "a block is \"EXPR\", \"EXPR:SIZE\" or { at = .., size = .., each = .., if = .. }");
  }
  if (!b.size && !b.at.natural_size)
    return r.error("blocks", fmt::format("block \"{}\" needs a size (\"{}:SIZE\"): it is no instance or label",
                                         b.at.text, b.at.text));
  return b;
}

// A CTRL or PHYS record is about one instance, a FRAM record about one pass of the frame loop, a STEP
// record about neither (capture/docs/state-log.md): each kind takes exactly the key its fields need.
Status read_instance_and_pass(RecordTable& r, const Profile& p, RecordPointSpec& s) {
  LOCKSTEP_TRY(auto instance, r.str("instance"));
  if (!instance.empty()) { LOCKSTEP_TRY(s.instance, expression(r, "instance", instance, p)); }
  LOCKSTEP_TRY(auto pass, r.str("pass"));
  if (!pass.empty()) { LOCKSTEP_TRY(s.pass, expression(r, "pass", pass, p)); }
  const bool car_record = s.tag == "CTRL" || s.tag == "PHYS", frame_record = s.tag == "FRAM";
  if (car_record != s.instance.has_value())
    return r.error("instance", car_record ? "a CTRL or PHYS record needs 'instance' (its instance field)"
                                          : fmt::format("a {} record has no instance (its instance field is -1){}", s.tag,
                                                        frame_record ? ": a FRAM record's pass number is 'pass'" : ""));
  if (frame_record != s.pass.has_value())
    return r.error("pass", frame_record ? "a FRAM record needs 'pass' (its pass number, e.g. \"hits\")"
                                        : fmt::format("a {} record has no pass number: only a FRAM record takes 'pass'", s.tag));
  return {};
}

Result<RecordPointSpec> read_point(RecordTable& r, const Profile& p) {
  RecordPointSpec s;
  s.line = static_cast<int>(r.table().source().begin.line);
  LOCKSTEP_TRY(auto tag, r.str("tag"));
  static const std::set<std::string, std::less<>> kTags = {"STEP", "CTRL", "PHYS", "FRAM"};
  if (!kTags.count(tag))
    return r.error("tag", "'tag' must be one of STEP, CTRL, PHYS, FRAM (capture/docs/state-log.md)");
  s.tag = tag;
  const toml::node* at = r.node("at");
  if (!at) return r.error("at", "missing key 'at' (an address or a [[function]] name)");
  if (at->is_integer()) {
    const std::int64_t v = *at->value<std::int64_t>();
    if (v <= 0 || v > 0xffffffffLL) return r.error("at", fmt::format("'at' = {} is outside 1..0xffffffff", v));
    s.address = static_cast<GuestAddr>(v);
  } else if (at->is_string()) {
    auto f = p.find_function(*at->value<std::string_view>());
    if (!f.ok()) return r.error("at", f.error().message);
    s.address = (*f)->address, s.function = (*f)->name, s.where = RecordWhere::kEntry;
  } else {
    return r.error("at", "'at' must be an address or a [[function]] name");
  }
  LOCKSTEP_TRY(auto point, r.str("point"));
  if (!point.empty()) {
    if (point == "address") s.where = RecordWhere::kAddress;
    else if (point == "entry") s.where = RecordWhere::kEntry;
    else if (point == "return") s.where = RecordWhere::kReturn;
    else return r.error("point", "'point' must be \"address\", \"entry\" or \"return\"");
  }
  LOCKSTEP_TRY_STATUS(read_instance_and_pass(r, p, s));
  LOCKSTEP_TRY(auto step, r.str("step"));
  if (step.empty()) return r.error("step", "missing key 'step': how the step number is counted (an expression)");
  LOCKSTEP_TRY(s.step, expression(r, "step", step, p));
  const toml::node* blocks = r.node("blocks");
  const toml::array* list = blocks ? blocks->as_array() : nullptr;
  if (!list || list->empty()) return r.error("blocks", "'blocks' must be a non-empty array");
  for (const toml::node& b : *list) {
    LOCKSTEP_TRY(RecordBlockSpec block, read_block(r, b, p));
    s.blocks.push_back(std::move(block));
  }
  LOCKSTEP_TRY(s.doc, r.str("doc"));
  LOCKSTEP_TRY_STATUS(r.finish());
  return s;
}

}  // namespace

Result<std::int64_t> RecordExpr::evaluate(const RecordEnvironment& env) const {
  if (nodes.empty()) return Error::make(Errc::kMalformed, "empty expression");
  return eval_node(*this, static_cast<int>(nodes.size()) - 1, env);
}

Status read_record_points(const toml::table& root, const std::string& source, Profile& profile) {
  const toml::node* n = root.get("record");
  if (!n) return {};
  const toml::array* a = n->as_array();
  if (!a || !a->is_array_of_tables())
    return Error::make(Errc::kMalformed, "{}:{}: 'record' must be an array of tables ([[record]])", source,
                       n->source().begin.line);
  std::size_t i = 0;
  for (const toml::node& e : *a) {
    RecordTable r(*e.as_table(), source, ++i);
    LOCKSTEP_TRY(RecordPointSpec s, read_point(r, profile));
    profile.record_points.push_back(std::move(s));
  }
  return {};
}

}  // namespace lockstep::harness
