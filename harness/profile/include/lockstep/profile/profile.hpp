// Profiles: what lockstep knows about one original (harness/docs/profile.md is the schema).
//
// A profile is data: the original's functions and their conventions, the stubs the emulator needs,
// names for bytes (structs, instances, labels) and drivers (which function runs on which state-log
// record). load_profile() refuses unknown keys, wrong types and dangling references with the file's
// line number.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/calls/conventions.hpp"
#include "lockstep/profile/record_points.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

// An argument's kind and name are the shared CPU vocabulary's (lockstep/cases/cpu.hpp).
using cases::arg_type_name;
using cases::ArgSpec;
using cases::ArgType;
using cases::parse_arg_type;

/// The most named ranges one struct may flatten into (its fields, each element of an array, each
/// nested record's fields and gaps): a profile past it is refused (kLimit) when it is loaded, before
/// anything names them. POD's largest struct names a few hundred.
inline constexpr std::uint64_t kMaxNamedRanges = std::uint64_t{1} << 18;

/// The state log's record tags (capture/docs/state-log.md): what a [[driver]]'s `record` and
/// `compare` may name.
inline constexpr std::array<std::string_view, 4> kStateLogRecords{"STEP", "CTRL", "PHYS", "FRAM"};


/// `[[function]]`
struct FunctionSpec {
  GuestAddr address = 0;
  std::string name;       ///< the port's name ("math::dot16"); unique
  std::string original;   ///< "FUN_004d41a0"
  CallingConvention convention;
  std::vector<ArgSpec> args;
  ReturnKind returns = ReturnKind::kNone;
  bool compare_flags = false;
  std::string doc;
  int line = 0;           ///< where it is defined in the profile
};

/// `[[stub]]`: code replaced when the original runs under the emulator.
struct StubSpec {
  enum class Action {
    kRet,       ///< return, popping nothing
    kRetN,      ///< return popping `pop` bytes
    kValue,     ///< eax = value, then return popping `pop`
    kTlsBlock,  ///< handler tls_block: eax = address of a zeroed harness block of block_size bytes
  };
  std::string name;
  std::optional<GuestAddr> address;  ///< the stub sits here ...
  std::optional<GuestAddr> pointer;  ///< ... or at the address stored in the 4 bytes here (in the snapshot)
  Action action = Action::kRet;
  std::uint32_t pop = 0;
  std::uint32_t value = 0;
  std::uint32_t block_size = 0;
  std::string why;
  /// Active from the start. Stubs that a [[driver]] names are inactive until that driver runs.
  bool active = true;
  int line = 0;
};

/// One field of a `[[struct]]`: bytes, or `count` nested records of another struct.
struct FieldSpec {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;        ///< bytes (for a nested struct: the struct's size × count)
  std::string name;
  std::string struct_name;       ///< nested record type, or empty
  std::uint32_t count = 1;       ///< nested records (or array elements of `size / count` bytes)
  bool chosen = false;           ///< not in the documents: a recorded choice
};

struct StructSpec {
  std::string name;
  std::uint32_t size = 0;
  std::vector<FieldSpec> fields;  ///< sorted by offset
  int line = 0;
};

struct InstanceSpec {
  std::string name;        ///< label prefix: car[3]
  std::string struct_name;
  GuestAddr base = 0;
  std::uint32_t count = 1; ///< stride = the struct's size
  int line = 0;
};

struct LabelSpec {
  std::string name;
  GuestAddr address = 0;
  std::uint32_t size = 1;
  int line = 0;
};

/// A driver argument: an instance name (its address for the record's instance) or a number.
struct DriverArg {
  std::string instance;  ///< empty for a number
  std::uint32_t value = 0;
};

/// `[[driver]]`
struct DriverSpec {
  std::string name;
  GuestAddr function = 0;
  std::string record = "CTRL";   ///< the state-log record laid over the snapshot
  std::string compare = "PHYS";  ///< the record memory must equal afterwards
  std::vector<DriverArg> args;
  std::vector<std::string> stubs;  ///< [[stub]] names active only for this driver
  int line = 0;
};

struct Profile {
  std::string source;  ///< the file it was read from
  std::string name;
  std::string description;
  std::uint16_t fpu_control_word = 0x037f;  ///< when the snapshot's thread has no FPU state
  std::uint32_t mxcsr = 0x1f80;
  std::vector<FunctionSpec> functions;
  std::vector<StubSpec> stubs;
  std::vector<StructSpec> structs;
  std::vector<InstanceSpec> instances;
  std::vector<LabelSpec> labels;
  std::vector<DriverSpec> drivers;
  std::vector<RecordPointSpec> record_points;  ///< `[[record]]`: where a recorder writes state-log records

  const FunctionSpec* function_by_name(std::string_view name) const noexcept;
  const FunctionSpec* function_at(GuestAddr address) const noexcept;
  /// By name, "FUN_xxxxxxxx"/original symbol, or a hex/decimal address (which need not be listed:
  /// then kNotFound). Errc::kNotFound names the closest names on failure.
  Result<const FunctionSpec*> find_function(std::string_view name_or_address) const;
  const StructSpec* struct_by_name(std::string_view name) const noexcept;
  const InstanceSpec* instance_by_name(std::string_view name) const noexcept;
  const DriverSpec* driver_by_name(std::string_view name) const noexcept;
  /// The first driver whose record is `record` ("CTRL"), or null.
  const DriverSpec* driver_for_record(std::string_view record) const noexcept;
};

/// Bounds on a profile file, an untrusted input (Errc::kLimit past them). Limits are a struct per file
/// format, as the readers' (Pe32Limits, MinidumpLimits, StateLogLimits): its defaults are the bounds,
/// far above any real file, and a caller or test that needs another passes its own; every reader of
/// a profile's bytes (the loader, the capture's hash, the corpus's recorded profile) takes this one.
struct ProfileLimits {
  std::uint64_t max_file_bytes = std::uint64_t{16} << 20;
};

/// Reads and validates a profile file.
Result<Profile> load_profile(const std::filesystem::path& path);
/// Same, from text; `source` names it in messages ("pod.toml").
Result<Profile> parse_profile(std::string_view text, std::string_view source);

/// Parses a number as profiles and the CLI write them: decimal, 0x-hex, optionally negative.
Result<std::uint32_t> parse_u32(std::string_view s);

}  // namespace lockstep::harness
