// A store's data slice (data_slice.hpp): a backward walk over the listing's control flow carrying the
// set of locations still to explain — registers by their 32-bit names, the flags, the x87 status
// word, the x87 registers by stack position (st0 = the top) and the stack slots [esp+d] and [ebp+d].
// Each instruction met that gives one of them joins the slice; the locations it read take their place.
#include "lockstep/disasm/data_slice.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace lockstep::harness {
namespace {

using Slot = std::pair<std::string, std::int64_t>;  // ("esp", 8): [esp + 8]

struct Need {
  std::set<std::string> regs;  // "eax", "flags", "fpsw", "st0".."st7"
  std::set<Slot> slots;
  bool empty() const { return regs.empty() && slots.empty(); }
  bool operator<(const Need& o) const { return std::tie(regs, slots) < std::tie(o.regs, o.slots); }
};

std::string st(int i) { return fmt::format("st{}", i); }

std::vector<std::string> operand_tokens(const std::string& operands) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= operands.size() && !operands.empty()) {
    const std::size_t comma = operands.find(", ", pos);
    out.push_back(operands.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 2;
  }
  return out;
}

// The x87 register an operand names ("st(3)" = 3, "st" = 0), or nullopt.
std::optional<int> st_index(const std::string& token) {
  if (token == "st" || token == "st(0)") return 0;
  if (token.size() == 5 && token.starts_with("st(") && token[4] == ')' && token[3] >= '0' && token[3] <= '7')
    return token[3] - '0';
  return std::nullopt;
}

bool is_memory(const std::string& token) { return token.find('[') != std::string::npos; }

// The stack slot of a memory operand, when it is one ([esp + d], [ebp + d], no index, no segment).
std::optional<Slot> stack_slot(const MemoryOperand& m) {
  if (!m.segment.empty() || !m.index.empty() || (m.base != "esp" && m.base != "ebp")) return std::nullopt;
  return Slot{m.base, m.disp};
}

// Whether the instruction writes its first operand, a memory one (a store, or arithmetic in place).
bool writes_memory(const Instruction& i) {
  const auto tokens = operand_tokens(i.operands);
  if (tokens.empty() || !is_memory(tokens[0])) return false;
  static const std::set<std::string> kReadOnly = {"cmp", "test", "bt", "push", "call", "jmp"};
  if (i.mnemonic.starts_with("f")) {
    return i.mnemonic.starts_with("fst") || i.mnemonic.starts_with("fist") || i.mnemonic == "fbstp" ||
           i.mnemonic.starts_with("fnst");
  }
  return !kReadOnly.count(i.mnemonic) && !i.mnemonic.starts_with("j");
}

// Whether the instruction reads its memory operand (a pure store only writes it).
bool reads_memory(const Instruction& i) {
  if (i.memory.empty() || i.mnemonic == "lea" || i.mnemonic.starts_with("nop")) return false;
  static const std::set<std::string> kStoresOnly = {"mov", "movd", "movq", "movss", "movsd", "movaps", "movups",
                                                    "movdqa", "movdqu"};
  if (writes_memory(i)) {
    if (i.mnemonic.starts_with("f") || kStoresOnly.count(i.mnemonic) || i.mnemonic.starts_with("set")) return false;
  }
  return true;
}

// The locations an instruction reads: value registers, address registers (never esp: the stack
// pointer's own arithmetic tells a porter nothing) and a stack slot it loads from.
void add_reads(const Instruction& i, Need& n, bool with_value_registers = true) {
  const auto tokens = operand_tokens(i.operands);
  // xor eax, eax and sub eax, eax give 0 whatever eax held.
  const bool zeroing = (i.mnemonic == "xor" || i.mnemonic == "sub") && tokens.size() == 2 && tokens[0] == tokens[1];
  if (with_value_registers && !zeroing)
    for (const std::string& r : i.regs_read)
      if (r != "esp" && r != "st" && !r.empty()) n.regs.insert(r);
  for (const MemoryOperand& m : i.memory) {
    if (!m.base.empty() && m.base != "esp") n.regs.insert(m.base);
    if (!m.index.empty() && m.index != "esp") n.regs.insert(m.index);
  }
  if (reads_memory(i))
    for (const MemoryOperand& m : i.memory)
      if (auto s = stack_slot(m)) n.slots.insert(*s);
}

// Stack slots relative to esp after an instruction that moved esp by `delta` (after = before + delta):
// [esp + d] after is [esp + d + delta] before.
void shift_esp_slots(Need& n, std::int64_t delta) {
  std::set<Slot> moved;
  for (const Slot& s : n.slots) moved.insert(s.first == "esp" ? Slot{"esp", s.second + delta} : s);
  n.slots = std::move(moved);
}

// Positions of the x87 stack needed after, as a set of indices.
std::set<int> st_needed(const Need& n) {
  std::set<int> out;
  for (int k = 0; k < 8; ++k)
    if (n.regs.count(st(k))) out.insert(k);
  return out;
}
void set_st_needed(Need& n, const std::set<int>& s) {
  for (int k = 0; k < 8; ++k) n.regs.erase(st(k));
  for (int k : s)
    if (k >= 0 && k < 8) n.regs.insert(st(k));
}
// After popping `pops` registers, position k was k + pops before.
std::set<int> before_pops(const std::set<int>& after, int pops, std::optional<int> except = std::nullopt) {
  std::set<int> out;
  for (int k : after)
    if (k != except) out.insert(k + pops);
  return out;
}

// One x87 instruction, backwards: whether it gave a needed location; `n` becomes the need before it.
bool step_x87(const Instruction& i, Need& n) {
  const std::string& mn = i.mnemonic;
  const auto tokens = operand_tokens(i.operands);
  std::vector<int> sts;
  for (const auto& t : tokens)
    if (auto k = st_index(t)) sts.push_back(*k);
  const bool mem = !i.memory.empty();
  std::set<int> s = st_needed(n);
  bool gave = false;
  auto need_memory = [&] { add_reads(i, n, false); };
  auto slot_written = [&]() -> bool {
    if (!mem || !writes_memory(i)) return false;
    const auto slot = stack_slot(i.memory[0]);
    return slot && n.slots.erase(*slot) > 0;
  };
  static const std::set<std::string> kPush = {"fld", "fild", "fbld", "fld1", "fldz", "fldpi", "fldl2e", "fldl2t",
                                              "fldlg2", "fldln2"};
  static const std::set<std::string> kArith = {"fadd", "fsub", "fsubr", "fmul", "fdiv", "fdivr",
                                               "fiadd", "fisub", "fisubr", "fimul", "fidiv", "fidivr"};
  static const std::set<std::string> kArithPop = {"faddp", "fsubp", "fsubrp", "fmulp", "fdivp", "fdivrp",
                                                  "fyl2x", "fyl2xp1", "fpatan"};
  static const std::set<std::string> kUnary = {"fchs", "fabs", "fsqrt", "frndint", "fsin", "fcos", "f2xm1"};
  if (kPush.count(mn)) {
    gave = s.count(0) > 0;
    s = before_pops(s, -1, 0);
    if (gave) {
      if (mn == "fld" && !sts.empty()) s.insert(sts[0]);
      need_memory();
    }
  } else if (mn.starts_with("fst") || mn.starts_with("fist") || mn == "fbstp") {
    const bool pop = mn.back() == 'p';
    if (mem) {
      gave = slot_written();
      if (pop) s = before_pops(s, 1);
      if (gave) { s.insert(0); need_memory(); }
    } else if (!sts.empty()) {  // fst st(i) / fstp st(i): st(i) = st0, then the pop
      const int to = sts[0];
      if (pop) {
        gave = to > 0 && s.count(to - 1) > 0;
        s = before_pops(s, 1, to - 1);
      } else {
        gave = s.erase(to) > 0;
      }
      if (gave) s.insert(0);
    }
  } else if (kArith.count(mn)) {
    int dest = 0, src = -1;
    if (sts.size() == 2) dest = sts[0], src = sts[1];
    else if (sts.size() == 1) src = sts[0];
    gave = s.count(dest) > 0;
    if (gave) {
      if (src >= 0) s.insert(src);
      need_memory();
    }
  } else if (kArithPop.count(mn)) {
    const int dest = sts.empty() ? 1 : sts[0];
    gave = dest > 0 && s.count(dest - 1) > 0;
    s = before_pops(s, 1, dest - 1);
    if (gave) { s.insert(dest); s.insert(0); }
  } else if (kUnary.count(mn)) {
    gave = s.count(0) > 0;
  } else if (mn == "fscale" || mn == "fprem" || mn == "fprem1") {
    gave = s.count(0) > 0;
    if (gave) s.insert(1);
  } else if (mn == "fxch") {
    const int other = sts.empty() ? 1 : sts.back();
    const bool a = s.count(0) > 0, b = s.count(other) > 0;
    gave = a || b;
    s.erase(0), s.erase(other);
    if (a) s.insert(other);
    if (b) s.insert(0);
  } else if (mn.starts_with("fcom") || mn.starts_with("fucom") || mn.starts_with("ficom") || mn == "ftst" ||
             mn == "fxam") {
    const bool comi = mn.find("comi") != std::string::npos;
    const std::string result = comi ? "flags" : "fpsw";
    const int pops = mn.ends_with("pp") ? 2 : (mn.back() == 'p' ? 1 : 0);
    gave = n.regs.erase(result) > 0;
    s = before_pops(s, pops);
    if (gave) {
      s.insert(0);
      if (!mem && mn != "ftst" && mn != "fxam") s.insert(sts.empty() ? 1 : sts.back());
      need_memory();
    }
  } else if (mn == "fnstsw" || mn == "fstsw") {
    gave = mem ? slot_written() : n.regs.erase("eax") > 0;
    if (gave) n.regs.insert("fpsw");
  } else if (mn.starts_with("fnst") || mn.starts_with("fst")) {
    gave = slot_written();  // fnstcw, fnstenv: the control word, no value of the stack
  } else if (mn == "fldcw" || mn == "fwait" || mn == "fninit" || mn == "fnclex" || mn == "ffree" ||
             mn == "fincstp" || mn == "fdecstp" || mn == "fnop" || mn == "fldenv") {
    gave = false;
  } else {
    gave = !s.empty();  // an x87 instruction the walk does not model: taken to give what is needed
  }
  set_st_needed(n, s);
  return gave;
}

// One integer instruction (or a call), backwards.
bool step_integer(const Instruction& i, Need& n) {
  if (i.is_call) {
    // The callee's results: eax, edx (edx:eax), the x87 stack, the flags. Any other register read after
    // the call and not written since is one the callee kept (compiled code reloads what a call
    // clobbers; a compiler that knows its callee keeps ecx across it), so the walk goes on past it.
    bool gave = false;
    for (const std::string r : {"eax", "edx", "flags", "fpsw"}) gave = n.regs.erase(r) > 0 || gave;
    if (!st_needed(n).empty()) gave = true, set_st_needed(n, {});
    return gave;
  }
  const auto tokens = operand_tokens(i.operands);
  const std::string& mn = i.mnemonic;
  bool gave = false;
  for (const std::string& r : i.regs_written)
    if (r != "esp" && n.regs.erase(r) > 0) gave = true;
  if (writes_memory(i)) {
    const auto slot = stack_slot(i.memory[0]);
    if (slot && n.slots.erase(*slot) > 0) gave = true;
  }
  // The stack pointer's moves: slots relative to esp after it are other offsets before it.
  const bool writes_esp = std::find(i.regs_written.begin(), i.regs_written.end(), "esp") != i.regs_written.end();
  if (mn == "push") {
    const bool pushed = n.slots.erase({"esp", 0}) > 0;
    shift_esp_slots(n, -4);
    gave = gave || pushed;
  } else if (mn == "pop") {
    shift_esp_slots(n, 4);
    if (gave) n.slots.insert({"esp", 0});  // the popped value was at the top of the stack before
    return gave;
  } else if ((mn == "sub" || mn == "add") && tokens.size() == 2 && tokens[0] == "esp") {
    const std::int64_t imm = std::strtoll(tokens[1].c_str(), nullptr, 0);
    shift_esp_slots(n, mn == "sub" ? -imm : imm);
    return gave;
  } else if (writes_esp) {
    std::erase_if(n.slots, [](const Slot& s) { return s.first == "esp"; });  // lost track of esp
  }
  if (gave) add_reads(i, n);
  return gave;
}

bool step(const Instruction& i, Need& n) {
  const bool x87 = i.mnemonic.starts_with("f") && i.mnemonic != "fwait" && !i.is_call;
  return x87 ? step_x87(i, n) : step_integer(i, n);
}

// What the writer itself reads: its stored value and its address.
Need writer_need(const Instruction& w) {
  Need n;
  if (w.mnemonic.starts_with("f") && !w.is_call) {
    add_reads(w, n, false);
    if (w.mnemonic == "fnstsw" || w.mnemonic == "fstsw") n.regs.insert("fpsw");
    else if (!w.mnemonic.starts_with("fnst")) n.regs.insert("st0");
  } else if (!w.is_call) {  // a call writes its return address: nothing to follow
    add_reads(w, n);
  }
  return n;
}

void note_from_caller(const Need& n, std::vector<std::string>& out) {
  auto add = [&out](const std::string& what) {
    if (std::find(out.begin(), out.end(), what) == out.end()) out.push_back(what);
  };
  for (const std::string& r : n.regs)
    if (r != "flags" && r != "fpsw") add(r);
  for (const Slot& s : n.slots)
    if (s.first == "esp" && s.second >= 4) add(fmt::format("esp+{}", s.second));
}

}  // namespace

DataSlice data_slice(const std::vector<Instruction>& listing, GuestAddr entry, GuestAddr writer,
                     std::size_t max_instructions) {
  DataSlice out;
  std::map<GuestAddr, std::size_t> index;
  for (std::size_t k = 0; k < listing.size(); ++k) index[listing[k].address] = k;
  const auto at = index.find(writer);
  if (at == index.end()) return out;
  // Each instruction's predecessors: the one falling through into it, the jumps to it.
  std::vector<std::vector<std::size_t>> preds(listing.size());
  for (std::size_t k = 0; k < listing.size(); ++k) {
    const Instruction& i = listing[k];
    const bool falls = !i.is_ret && !(i.is_jump && !i.is_conditional) && i.mnemonic != "hlt" && i.mnemonic != "ud2";
    if (falls && k + 1 < listing.size() && i.address + i.bytes.size() == listing[k + 1].address) preds[k + 1].push_back(k);
    if (i.is_jump && i.target)
      if (auto t = index.find(*i.target); t != index.end()) preds[t->second].push_back(k);
  }
  std::set<std::size_t> slice{at->second};
  std::deque<std::pair<std::size_t, Need>> work;  // (instruction, need after it), nearest first
  std::set<std::pair<std::size_t, Need>> seen;
  auto reached = [&](std::size_t k, const Need& before) {  // `before` is the need before instruction k
    if (before.empty()) return;
    if (listing[k].address == entry) note_from_caller(before, out.from_caller);
    for (std::size_t p : preds[k])
      if (seen.emplace(p, before).second) work.emplace_back(p, before);
  };
  reached(at->second, writer_need(listing[at->second]));
  std::size_t steps = 0;
  while (!work.empty() && ++steps < 20000) {
    auto [k, need] = std::move(work.front());
    work.pop_front();
    if (step(listing[k], need) && slice.insert(k).second && slice.size() >= max_instructions) {
      out.truncated = !work.empty();
      break;
    }
    reached(k, need);
  }
  for (std::size_t k : slice) out.instructions.push_back(listing[k].address);
  return out;
}

ResolvedWriter resolve_writer(const std::vector<Instruction>& listing, GuestAddr recorded, bool written_on_stack) {
  ResolvedWriter out{recorded, false, {}};
  auto at = std::find_if(listing.begin(), listing.end(), [recorded](const Instruction& i) { return i.address == recorded; });
  if (at == listing.end()) return out;
  auto may_write = [](const Instruction& i) {
    const std::string& mn = i.mnemonic;
    return writes_memory(i) || i.is_call || mn.starts_with("push") || mn == "enter" ||
           mn.find("stos") != std::string::npos || mn.find("movs") != std::string::npos || i.is_interrupt;
  };
  if (may_write(*at)) return out;
  auto helper_store = [](const Instruction& i) {
    return writes_memory(i) && (i.mnemonic.starts_with("f") || i.operands.find("xmm") != std::string::npos);
  };
  std::vector<const Instruction*> stores;
  for (auto it = std::next(at); it != listing.end(); ++it) {
    const Instruction& prev = *std::prev(it);
    if (prev.is_jump || prev.is_ret || prev.is_call || prev.address + prev.bytes.size() != it->address) break;
    if (helper_store(*it)) { stores.push_back(&*it); continue; }
    const bool helper_access = it->mnemonic.starts_with("f") || it->operands.find("xmm") != std::string::npos;
    if ((!it->memory.empty() && !helper_access && it->mnemonic != "lea" && !it->mnemonic.starts_with("nop")) ||
        may_write(*it))
      break;  // an integer memory access: eip was brought up to date here
  }
  std::vector<const Instruction*> fitting;
  for (const Instruction* st : stores) {
    const bool on_stack = stack_slot(st->memory[0]).has_value();
    if (stores.size() == 1 || on_stack == written_on_stack) fitting.push_back(st);
  }
  if (fitting.size() == 1) {
    out.address = fitting[0]->address;
    out.moved = true;
  } else {
    for (const Instruction* st : fitting) out.candidates.push_back(st->address);
  }
  return out;
}

std::string format_data_slice(const std::vector<Instruction>& listing, GuestAddr entry, GuestAddr writer,
                              const CodeNamer& name_of) {
  const DataSlice s = data_slice(listing, entry, writer);
  if (s.instructions.empty()) return {};
  std::string out;
  std::optional<std::size_t> last;
  for (std::size_t k = 0; k < listing.size(); ++k) {
    if (!std::binary_search(s.instructions.begin(), s.instructions.end(), listing[k].address)) continue;
    if (last && k != *last + 1) out += "          ...\n";
    std::string line = format_listing({listing[k]}, name_of);
    if (listing[k].address == writer && !line.empty()) line[0] = '>';
    out += line;
    last = k;
  }
  if (s.truncated) out += fmt::format("  (the slice goes on: only its {} nearest instructions are shown)\n", s.instructions.size());
  if (!s.from_caller.empty()) out += fmt::format("  from the caller: {}\n", fmt::join(s.from_caller, ", "));
  return out;
}

}  // namespace lockstep::harness
