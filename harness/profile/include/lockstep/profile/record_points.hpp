// Recording points (a profile's `[[record]]` tables, harness/docs/profile.md): where a recorder
// attached to the running original writes a state-log record, which record (tag, step, instance)
// and which blocks of memory it holds. The values are small expressions over the thread's registers,
// the profile's names and the process's memory ("i32(frame_time+0xc)", "car[instance]",
// "index(esi, car)"), parsed and checked when the profile is read, evaluated at each hit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/cpu.hpp"

namespace lockstep::harness {

using cases::GuestAddr;

/// What an expression reads while it is evaluated at a hit.
class RecordEnvironment {
 public:
  virtual ~RecordEnvironment() = default;
  /// A register by name as the expression wrote it ("eax" the low 32 bits, "rax" all 64).
  virtual std::uint64_t reg(std::string_view name) const = 0;
  /// `size` bytes (1, 2, 4 or 8) at `address`, little-endian; an error when unreadable.
  virtual Result<std::uint64_t> load(std::uint64_t address, unsigned size) const = 0;
  std::int64_t instance = -1;  ///< the record's instance (known once `instance` is evaluated)
  std::int64_t hits = 0;    ///< how many times this point was hit before
  std::int64_t i = 0;       ///< the index of a block's `each`
};

/// One parsed expression: + - * over numbers, registers (eax..edi, ebp, esp, eip and their 64-bit
/// names), the variables instance, hits and i, the profile's instances (car = its base, car[E] = element
/// E) and labels, parentheses, loads u8/u16/u32/u64/i8/i16/i32(E), and index(E, instance): the
/// element of `instance` a pointer E points at (an error if it points at none or into the middle
/// of one).
class RecordExpr {
 public:
  struct Node {
    enum class Op { kNumber, kRegister, kInstance, kHits, kIndexVar, kAdd, kSub, kMul, kLoad, kIndex };
    Op op = Op::kNumber;
    std::int64_t value = 0;       ///< kNumber; kLoad: bytes; kIndex: the instance's base
    std::uint32_t stride = 0;     ///< kIndex
    std::uint32_t count = 0;      ///< kIndex
    bool is_signed = false;       ///< kLoad: i8/i16/i32
    std::string name;             ///< kRegister; kIndex: the instance
    int a = -1, b = -1;           ///< operands
  };

  std::string text;                  ///< as written in the profile
  std::vector<Node> nodes;           ///< the root is the last
  std::uint64_t natural_size = 0;    ///< bytes an address of a bare name spans (car[3]: 0x558), or 0
  bool reads_registers = false;      ///< names a register (not allowed where no thread is stopped)

  Result<std::int64_t> evaluate(const RecordEnvironment& env) const;
};

/// Where a point's breakpoint sits.
enum class RecordWhere {
  kAddress,  ///< an instruction's address
  kEntry,    ///< a function's first instruction
  kReturn,   ///< where a function returns to its caller: the record is taken when it has returned
};

/// One block of a record: `size` bytes at `at` (the name's own size when `size` is absent), for each
/// i in 0..each-1 when `each` is given, and only where `condition` is not 0. A block whose size
/// comes out 0 or negative is left out of the record. A group (`blocks` instead of `at`) gives its
/// blocks in order for each i: interleaved lists (instance 0's two blocks, then instance 1's, ...).
struct RecordBlockSpec {
  RecordExpr at;
  std::optional<RecordExpr> size, each, condition;
  std::vector<RecordBlockSpec> group;
};

/// `[[record]]`
struct RecordPointSpec {
  std::string tag;                       ///< STEP, CTRL, PHYS or FRAM (capture/docs/state-log.md)
  GuestAddr address = 0;                 ///< the breakpoint (kReturn: the function's entry)
  RecordWhere where = RecordWhere::kAddress;
  std::string function;                  ///< the [[function]] named by `at`, if it named one
  /// The record's instance field (none: -1). A return point's is taken at the entry, from the
  /// arguments; its step and blocks at the return.
  std::optional<RecordExpr> instance;
  /// A FRAM record's pass number (none for the other kinds: -1).
  std::optional<RecordExpr> pass;
  RecordExpr step;                       ///< the record's step field
  std::vector<RecordBlockSpec> blocks;
  std::string doc;
  int line = 0;
};

}  // namespace lockstep::harness
