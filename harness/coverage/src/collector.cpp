// The coverage collector: static analysis of each function (listing, branches, conditions) and the
// per-block accounting (coverage.hpp explains the model).
#include <algorithm>
#include <set>

#include "lockstep/coverage/coverage.hpp"

#include <fmt/format.h>

namespace lockstep::harness {

const char* edge_name(Edge e) noexcept { return e == Edge::kTaken ? "taken" : "fallthrough"; }

std::size_t FunctionCoverage::instructions_covered() const noexcept {
  return static_cast<std::size_t>(std::count_if(hits.begin(), hits.end(), [](std::uint64_t h) { return h != 0; }));
}

std::size_t FunctionCoverage::edges_covered() const noexcept {
  std::size_t n = 0;
  for (const BranchSite& b : branches) n += (b.taken != 0) + (b.fell_through != 0);
  return n;
}

const BranchSite* FunctionCoverage::branch_at(GuestAddr address) const noexcept {
  auto it = std::lower_bound(branches.begin(), branches.end(), address,
                             [](const BranchSite& b, GuestAddr a) { return b.address < a; });
  return it != branches.end() && it->address == address ? &*it : nullptr;
}

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

GuestAddr end_of(const Instruction& i) { return i.address + static_cast<GuestAddr>(i.bytes.size()); }

// The instructions the branch at listing[j] depends on, oldest first: walk back through the basic
// block, keeping each instruction that writes something still needed, then needing what it reads.
std::vector<std::size_t> condition_slice(const std::vector<Instruction>& listing, std::size_t j,
                                         const std::set<GuestAddr>& leaders, std::size_t max_steps) {
  std::vector<std::string> needed{"flags"};
  std::vector<std::size_t> slice;
  std::size_t i = j;
  while (i > 0 && !needed.empty() && slice.size() < max_steps) {
    const Instruction& cur = listing[i];
    if (leaders.count(cur.address) && i != j) break;  // the block starts here: other paths join
    const Instruction& prev = listing[i - 1];
    if (end_of(prev) != cur.address) break;           // not straight-line code
    if (prev.is_jump || prev.is_ret) break;
    --i;
    if (prev.is_call) {
      // The condition uses the call's result (eax, or st for an x87 return): the call is the source.
      const bool uses = contains(needed, "eax") || contains(needed, "st");
      if (uses) slice.push_back(i);
      break;
    }
    bool wanted = false;
    for (const std::string& w : prev.regs_written)
      if (contains(needed, w)) wanted = true;
    if (!wanted) continue;
    slice.push_back(i);
    for (const std::string& w : prev.regs_written) std::erase(needed, w);
    for (const std::string& r : prev.regs_read)
      if (r != "esp" && !contains(needed, r)) needed.push_back(r);
  }
  std::reverse(slice.begin(), slice.end());
  return slice;
}

std::uint32_t register_value(const Registers& r, const std::string& name) {
  if (name == "esp") return r.esp;
  auto reg = cases::reg_named(name);
  return reg ? r[*reg] : 0;
}

}  // namespace

Result<std::unique_ptr<CoverageCollector>> CoverageCollector::create(const ReadMemory& read,
                                                                     const std::vector<Target>& targets,
                                                                     const Labeler* labels,
                                                                     const std::function<bool(GuestAddr)>& follow_call) {
  std::unique_ptr<CoverageCollector> c(new CoverageCollector());
  c->labels_ = labels;
  Disassembler dis;
  constexpr std::size_t kMaxInstructions = 20000;
  for (const Target& t : targets) {
    FunctionCoverage f;
    f.entry = t.entry;
    f.name = t.name;
    f.listing = dis.function(read, t.entry, kMaxInstructions, follow_call);
    if (f.listing.empty())
      return Error::make(Errc::kNotFound, "no instruction at 0x{:08x}{}: the address is unmapped or not code", t.entry,
                         t.name.empty() ? "" : " (" + t.name + ")");
    f.truncated = f.listing.size() >= kMaxInstructions;
    f.hits.assign(f.listing.size(), 0);
    std::set<GuestAddr> leaders{t.entry};
    for (const Instruction& i : f.listing) {
      if (i.is_jump && i.target) leaders.insert(*i.target);
      if (i.is_jump || i.is_ret) leaders.insert(end_of(i));
    }
    for (std::size_t k = 0; k < f.listing.size(); ++k) {
      const Instruction& i = f.listing[k];
      if (i.is_jump && !i.target) f.indirect_jumps.push_back(i.address);
      if (!i.is_conditional || !i.target) continue;
      BranchSite b;
      b.address = i.address;
      b.text = i.text();
      b.target = *i.target;
      b.fallthrough = end_of(i);
      for (std::size_t s : condition_slice(f.listing, k, leaders, kMaxSlice)) {
        const Instruction& si = f.listing[s];
        ConditionStep step;
        step.address = si.address;
        step.text = si.text();
        step.has_memory = !si.memory.empty() && !si.is_call;
        if (si.is_call) step.call_target = si.target;
        b.condition.push_back(std::move(step));
      }
      f.branches.push_back(std::move(b));
    }
    c->functions_.push_back(std::move(f));
  }
  // The address index, and the operands to label at run time.
  for (std::uint32_t fi = 0; fi < c->functions_.size(); ++fi) {
    const FunctionCoverage& f = c->functions_[fi];
    for (std::uint32_t k = 0; k < f.listing.size(); ++k) {
      const Instruction& i = f.listing[k];
      // Legacy prefixes come first: a rep / repne (f3 / f2) among them makes a string instruction repeat.
      bool repeats = false;
      for (std::uint8_t b : i.bytes) {
        if (b == 0xf2 || b == 0xf3) repeats = true;
        if (b != 0xf2 && b != 0xf3 && b != 0x66 && b != 0x67 && b != 0x2e && b != 0x3e && b != 0x26 && b != 0x36 &&
            b != 0x64 && b != 0x65 && b != 0xf0)
          break;
      }
      Slot s{i.address, end_of(i), fi, k, -1, repeats && i.mnemonic.rfind("rep", 0) == 0};
      if (const BranchSite* b = f.branch_at(i.address)) s.branch = static_cast<std::int32_t>(b - f.branches.data());
      c->slots_.push_back(s);
    }
    for (std::uint32_t bi = 0; bi < f.branches.size(); ++bi)
      for (std::uint32_t si = 0; si < f.branches[bi].condition.size(); ++si) {
        const ConditionStep& step = f.branches[bi].condition[si];
        if (step.text.rfind("call", 0) == 0) {  // the condition uses this call's result
          c->calls_.emplace(step.address, Operand{fi, bi, si, 0});
          continue;
        }
        if (!step.has_memory) continue;
        auto it = std::lower_bound(f.listing.begin(), f.listing.end(), step.address,
                                   [](const Instruction& x, GuestAddr a) { return x.address < a; });
        for (std::uint32_t oi = 0; oi < it->memory.size(); ++oi)
          c->operands_.emplace(step.address, Operand{fi, bi, si, oi});
      }
  }
  std::stable_sort(c->slots_.begin(), c->slots_.end(),
                   [](const Slot& a, const Slot& b) { return a.address < b.address; });
  return c;
}

std::vector<GuestAddr> CoverageCollector::observed_instructions() const {
  std::set<GuestAddr> out;
  for (const auto& [a, op] : operands_) out.insert(a);
  for (const auto& [a, op] : calls_) out.insert(a);
  return {out.begin(), out.end()};
}

void CoverageCollector::on_block(GuestAddr address, std::uint32_t size) {
  for (const Slot* p : pending_) {
    BranchSite& b = functions_[p->function].branches[static_cast<std::size_t>(p->branch)];
    if (address == b.target) ++b.taken;
    else if (address == b.fallthrough) ++b.fell_through;
  }
  pending_.clear();
  // The next iteration of a rep string instruction that ended the previous block: not a new execution.
  const bool rep_again = last_repeats_ && address == last_insn_;
  const std::uint64_t end = std::uint64_t{address} + size;
  auto it = std::lower_bound(slots_.begin(), slots_.end(), address,
                             [](const Slot& s, GuestAddr a) { return s.address < a; });
  last_repeats_ = false;
  for (; it != slots_.end() && it->address < end; ++it) {
    if (!(rep_again && it->address == address)) ++functions_[it->function].hits[it->index];
    if (it->end == end) {
      last_insn_ = it->address;
      last_repeats_ = it->repeats;
      // The block's last instruction a conditional branch: the next block says which way it went.
      if (it->branch >= 0) pending_.push_back(&*it);
    }
  }
}

void CoverageCollector::on_instruction(GuestAddr address, const Registers& registers) {
  auto [clo, chi] = calls_.equal_range(address);
  for (auto it = clo; it != chi; ++it) {
    ConditionStep& step = functions_[it->second.function].branches[it->second.branch].condition[it->second.step];
    if (step.call_registers.empty()) step.call_registers = {registers.eax, registers.edx, registers.ebx, registers.ecx};
  }
  auto [lo, hi] = operands_.equal_range(address);
  for (auto it = lo; it != hi; ++it) {
    const Operand& op = it->second;
    FunctionCoverage& f = functions_[op.function];
    ConditionStep& step = f.branches[op.branch].condition[op.step];
    if (step.labels.size() >= kMaxLabels) continue;
    auto ins = std::lower_bound(f.listing.begin(), f.listing.end(), address,
                                [](const Instruction& x, GuestAddr a) { return x.address < a; });
    const MemoryOperand& m = ins->memory[op.operand];
    const GuestAddr ea = static_cast<GuestAddr>(register_value(registers, m.base) +
                                                register_value(registers, m.index) * static_cast<std::uint32_t>(m.scale) +
                                                static_cast<std::uint32_t>(m.disp));
    if (!step.first_address) step.first_address = ea;
    std::string label = (m.segment.empty() ? "" : m.segment + ":") +
                        (labels_ ? labels_->name(ea) : fmt::format("0x{:08x}", ea));
    if (!contains(step.labels, label)) step.labels.push_back(std::move(label));
  }
}

void CoverageCollector::end_run(bool faulted) {
  pending_.clear();
  last_repeats_ = false;
  ++runs_;
  if (faulted) ++faulted_;
}

std::uint64_t CoverageCollector::count(GuestAddr branch, Edge e) const noexcept {
  for (const FunctionCoverage& f : functions_)
    if (const BranchSite* b = f.branch_at(branch)) return b->count(e);
  return 0;
}

CoverageReport CoverageCollector::report() const {
  CoverageReport r;
  r.functions = functions_;
  r.runs = runs_;
  r.faulted = faulted_;
  return r;
}

}  // namespace lockstep::harness
