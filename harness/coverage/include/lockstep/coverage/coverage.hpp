// Branch coverage of the original: which instructions of chosen functions ran, and which edge of each
// conditional branch was taken how many times, over re-run cases or whole driver runs.
//
// Functions are found by recursive disassembly from their entry (Disassembler::function: fall-through
// and direct jumps). A call is followed only into code no profile function starts at (the function's
// private helpers, such as the C body behind the stand-in's thunk at a POD address); a named callee
// is its own function. An indirect jump (a
// switch's jump table) ends its path: the instructions only a table reaches are not listed, and the
// jump is counted in FunctionCoverage::indirect_jumps so a report can say so.
//
// Collection works on translated blocks (Machine's BlockObserver): a block [address, address+size)
// marks each listed instruction inside it as executed once; a block that ends with a conditional
// branch is followed by a block starting at the branch's target (taken) or right after it (fallthrough).
// An instruction that faults mid-block is counted as executed (Unicorn reports the block before it
// runs); runs that fault are rare and reported by whoever drives the runs. A rep string instruction
// runs as one block per iteration (QEMU re-enters it): those re-entries are not counted again.
//
// The condition of a branch: the instruction that last set the flags before it in the same basic
// block, followed back through `sahf` / `test ah, imm` / `fnstsw ax` to the x87 compare behind them,
// then back through the instructions that computed the compared registers (within the block, at most
// kMaxSlice instructions). Its memory operands are labelled at run time: a code hook at each of those
// instructions computes the effective address from the registers and names it (Labeler), so an
// untaken edge reads `jl 0x41b0c2 ; cmp eax, dword ptr [esi + 0x39]  car[2]+0x111 point[1].sliding`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/machine/machine.hpp"

namespace lockstep::harness {

/// A conditional branch's two ways out.
enum class Edge : std::uint8_t { kTaken, kFallthrough };
const char* edge_name(Edge e) noexcept;  ///< "taken", "fallthrough"

/// One instruction the branch's condition depends on.
struct ConditionStep {
  GuestAddr address = 0;
  std::string text;                 ///< "cmp eax, dword ptr [esi + 0x39]"
  bool has_memory = false;          ///< it reads (or writes) memory
  /// Names of the memory operand's addresses seen at run time (distinct, first kMaxLabels), e.g.
  /// "car[2]+0x111 point[1].sliding"; empty when the instruction never ran.
  std::vector<std::string> labels;
  /// The first effective address seen (for the search: where the compared value lives).
  std::optional<GuestAddr> first_address;
  /// A call whose result (eax / st0) the condition uses: its target, when direct.
  std::optional<GuestAddr> call_target;
  /// For a call: eax, edx, ebx, ecx the first time it ran (Watcom passes arguments in them; a
  /// search tries the bytes they point at first).
  std::vector<std::uint32_t> call_registers;
};

struct BranchSite {
  GuestAddr address = 0;            ///< the jcc
  std::string text;                 ///< "jl 0x41b0c2"
  GuestAddr target = 0;             ///< where the taken edge goes
  GuestAddr fallthrough = 0;        ///< the next instruction
  std::uint64_t taken = 0;          ///< times the taken edge was followed
  std::uint64_t fell_through = 0;   ///< times the fallthrough edge was followed
  /// The condition, oldest instruction first (the flag setter last but for the jcc itself).
  std::vector<ConditionStep> condition;
  std::uint64_t count(Edge e) const noexcept { return e == Edge::kTaken ? taken : fell_through; }
  GuestAddr destination(Edge e) const noexcept { return e == Edge::kTaken ? target : fallthrough; }
};

struct FunctionCoverage {
  GuestAddr entry = 0;
  std::string name;                     ///< the profile's name, or "" when it has none
  std::vector<Instruction> listing;     ///< ascending by address
  std::vector<std::uint64_t> hits;      ///< per listing entry: times executed
  std::vector<BranchSite> branches;     ///< ascending by address
  std::vector<GuestAddr> indirect_jumps;  ///< jmp reg / jmp [table]: targets not followed
  bool truncated = false;               ///< the listing hit the disassembler's instruction limit

  std::size_t instructions_covered() const noexcept;
  std::size_t edges_total() const noexcept { return 2 * branches.size(); }
  std::size_t edges_covered() const noexcept;
  const BranchSite* branch_at(GuestAddr address) const noexcept;
};

struct CoverageReport {
  std::vector<FunctionCoverage> functions;  ///< in the order asked for
  std::uint64_t runs = 0;                   ///< calls or driver runs observed
  std::uint64_t faulted = 0;                ///< of which stopped on a guest fault
  std::uint64_t diverged = 0;               ///< re-run cases whose effects differ from the recording
  std::string source;                       ///< "corpus cases/standin (21430 cases)" or "driver car_step over 1600 runs"
};

/// Collects coverage of a fixed set of functions from a machine's blocks.
class CoverageCollector final : public BlockObserver, public InstructionObserver {
 public:
  inline static constexpr std::size_t kMaxSlice = 8;
  inline static constexpr std::size_t kMaxLabels = 4;

  struct Target {
    GuestAddr entry = 0;
    std::string name;
  };
  /// Disassembles every function from its entry through `read`. kNotFound when an entry cannot be
  /// disassembled (unmapped or invalid bytes). `labels` (may be null) must outlive the collector.
  /// `follow_call` (may be empty): direct calls into which a function's listing extends (its private
  /// helpers; coverage_run passes "the profile names no function there").
  static Result<std::unique_ptr<CoverageCollector>> create(const ReadMemory& read, const std::vector<Target>& targets,
                                                           const Labeler* labels,
                                                           const std::function<bool(GuestAddr)>& follow_call = {});

  /// The instructions whose operands are labelled at run time: put them in
  /// MachineConfig::observed_instructions of the machine this collector watches.
  std::vector<GuestAddr> observed_instructions() const;

  void on_block(GuestAddr address, std::uint32_t size) override;
  void on_instruction(GuestAddr address, const Registers& registers) override;
  /// Call between runs: a branch's edge is never inferred across two runs.
  void end_run(bool faulted = false);

  /// Edge counts so far (for a search: compare before and after a run).
  std::uint64_t count(GuestAddr branch, Edge e) const noexcept;

  CoverageReport report() const;
  const std::vector<FunctionCoverage>& functions() const noexcept { return functions_; }

 private:
  CoverageCollector() = default;
  struct Slot {           // one listed instruction (in one function)
    GuestAddr address;
    std::uint32_t end;    // address + length
    std::uint32_t function;
    std::uint32_t index;  // into listing / hits
    std::int32_t branch;  // index into branches, or -1
    bool repeats;         // a rep / repne string instruction: QEMU re-enters it once per iteration
  };
  struct Operand {        // a memory operand of an observed instruction: which step it labels
    std::uint32_t function, branch, step, operand;
  };
  std::vector<FunctionCoverage> functions_;
  std::vector<Slot> slots_;                       // ascending by address
  std::multimap<GuestAddr, Operand> operands_;    // observed instruction -> operands to label
  std::multimap<GuestAddr, Operand> calls_;       // observed call -> the step it is
  const Labeler* labels_ = nullptr;
  std::vector<const Slot*> pending_;              // the branch(es) ending the previous block (one per
                                                  // function listing that instruction)
  GuestAddr last_insn_ = 0;                       // the previous block's last instruction
  bool last_repeats_ = false;                     // ... and whether it is a rep string instruction
  std::uint64_t runs_ = 0, faulted_ = 0;
};

}  // namespace lockstep::harness
