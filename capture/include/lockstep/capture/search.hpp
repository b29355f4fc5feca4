// Searching for a state that takes an untaken edge of the original: starting from a
// function's captured cases, mutate input bytes until the original, re-run from the mutated state,
// follows the wanted edge of the wanted conditional branch. A concrete search: every candidate is run
// under Unicorn, so integer and x87 comparisons are handled alike (symbolic tools have no usable x87
// semantics).
//
// Which bytes: the game's state first (fields of the profile's instances: car[3]+0x440), then unnamed
// words (stack, heap), then labelled tables and constants last (poking a constant makes a state no
// game reaches, and a port that compiles the constant in cannot follow it). Within each, nearest first:
//  1. the fields the branch's condition reads (the memory operands of its instructions, at the
//     addresses seen at run time), and the bytes the arguments of a call whose result it compares
//     point at (eax, edx, ebx, ecx at the call);
//  2. then every other input field of the case, by distance in memory from those addresses (input
//     order when the condition reads no memory).
// A field is a field of the profile (Labeler::field) when one names the byte, else its aligned
// 4-byte word; the argument registers eax, edx, ebx, ecx (Watcom's) are fields too when they hold a
// value rather than a pointer (a mapped address), tried right after the condition's own operands (a
// function whose input is a value in a register, such as an angle, has nothing else to mutate). The
// record a compared call's pointer argument points into (its first 0x40 bytes) counts as the
// condition's own operand. A register mutation is recorded in the case's entry registers and
// marked in Case::poked_registers. Each field gets a fixed set of mutations by size: for 4-byte words (16.16 and
// integers) 0, ±1, -v, v/2, 2v, v/16, 16v, v±1, INT_MIN, INT_MAX; for 8-byte words (doubles) 0, -v,
// v/2, 2v, v/10, 10v, ±1, ±1e6; for 1- and 2-byte fields 0, 1, all ones, v^1; for a field of several
// words (a vector) the same scalings applied to every word at once, then each word alone. When the
// single mutations are spent, random combinations of two or three mutations of the first fields
// (a fixed-seed generator: a search is reproducible).
//
// Start cases: the function's cases that reach the branch (run it at all), nearest to taking the
// wanted edge first is not knowable without a distance, so in corpus order, at most `start_cases`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/coverage_run.hpp"
#include "lockstep/cases/case_file.hpp"
#include "lockstep/coverage/coverage.hpp"
#include "lockstep/profile/labels.hpp"

namespace lockstep::capture {

struct EdgeGoal {
  harness::GuestAddr branch = 0;  ///< the conditional branch instruction
  harness::Edge edge = harness::Edge::kTaken;
};
/// "0x41b0a4:taken" / "0x41b0a4:fallthrough" (addresses as Labeler::resolve or numbers).
Result<EdgeGoal> parse_edge_goal(std::string_view text);

struct SearchOptions {
  std::uint32_t budget = 5000;      ///< runs of the original, all phases together
  std::uint32_t start_cases = 8;    ///< cases that reach the branch to start from
  std::uint64_t seed = 1;           ///< for the random combinations
  /// Also mutate labelled tables and constants (last). Off by default: a state with a changed
  /// constant is one no game reaches, and a port that compiles the constant in cannot follow it.
  bool mutate_constants = false;
  /// The limits of each run (block budget, timeout) on the machines the search makes itself.
  harness::MachineConfig machine;
};

struct SearchResult {
  bool found = false;
  bool already_taken = false;       ///< an unmutated case takes the edge: nothing to search
  std::uint32_t runs = 0;           ///< runs spent
  std::uint32_t reaching_cases = 0; ///< start cases found that reach the branch
  std::uint32_t start_case = 0;     ///< the case id the found state came from
  std::vector<cases::Poke> pokes;   ///< the mutation that took the edge (memory)
  std::uint16_t poked_registers = 0;  ///< entry registers it set (cases::register_bit); values in found_case->in
  std::string how;                  ///< "car[0]+0x1a0 point[0].velocity: x0 (3 words)"
  /// The found state as a case: the original's rerun (inputs and writes as observed), marked poked,
  /// its note saying which edge it takes. Ready for add_cases.
  std::optional<cases::Case> found_case;
};

/// Runs the search on `runner` (made for the function `file` holds, with the branch inside it).
/// Errors: kNotFound when the branch is not a conditional branch of the function.
Result<SearchResult> search_edge(CaseRunner& runner, const cases::CaseFile& file, const EdgeGoal& goal,
                                 const harness::Labeler* labels, const SearchOptions& options = {});

/// One edge of a batch search.
struct EdgeSearch {
  EdgeGoal goal;
  std::string branch;               ///< "jl 0x41b0c2"
  SearchResult result;
  /// Taken by a state found earlier in the same batch (no search of its own).
  bool covered_by_earlier = false;
};

/// Every untaken edge of the function (over its cases in `file`), searched in address order; an edge
/// a state found earlier in the batch already takes is not searched again, nor one of a branch no
/// case reaches (its result: not found, no reaching case, no run). The found cases are in
/// each EdgeSearch's result (ready for add_cases). `runner` must be made for the function.
Result<std::vector<EdgeSearch>> search_untaken_edges(CaseRunner& runner, const cases::CaseFile& file,
                                                     const harness::Labeler* labels, const SearchOptions& options = {});

/// One function's untaken-edge search (search_untaken_edges on a machine of its own).
struct FunctionSearch {
  harness::GuestAddr function = 0;
  std::string name;
  std::size_t edges_total = 0;  ///< the function's conditional-branch edges
  std::vector<EdgeSearch> searches;
};

/// search_untaken_edges for each of `files`, each function on its own machine (made for `driver`),
/// the functions spread over `jobs` threads. Results in the order of `files`, the same for any number
/// of threads (each search is deterministic: its seed, its budget); an error is the first function's.
Result<std::vector<FunctionSearch>> search_untaken_edges_of(const harness::Snapshot& snapshot,
                                                            const harness::Profile& profile, const std::string& driver,
                                                            const std::vector<const cases::CaseFile*>& files,
                                                            const harness::Labeler* labels,
                                                            const SearchOptions& options, unsigned jobs = 1);

}  // namespace lockstep::capture
