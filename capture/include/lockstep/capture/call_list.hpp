// Cases from explicit calls: when there is no step log (a porter holding only the original's EXE or
// DLL), a small TOML file lists the calls to make — function, arguments, pokes — and each call, with
// the nested calls of every profile function inside it (or of the functions chosen with --fn),
// becomes cases (capture/docs/call-list.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/capture.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::capture {

/// One [[call]] of a call list, as written (resolved against the profile by capture_calls).
struct ExplicitCall {
  std::string function;            ///< a [[function]] of the profile: its name, symbol or address
  std::vector<std::string> args;   ///< as `lockstep call --arg` takes them ("0x18000", "car[0]", "f64:1.5", "hex:..")
  std::vector<std::string> pokes;  ///< as `--poke` takes them ("0x40a000=01020304")
  std::uint32_t repeat = 1;        ///< the same call made this many times in a row (state carried over: 1..10000)
  int line = 0;                    ///< where the [[call]] table starts, for messages
};

struct CallList {
  std::string source;  ///< the file's name in messages
  std::vector<ExplicitCall> calls;
  /// SHA-256 (64 hex digits) of the file read_call_list parsed (the command a corpus records names
  /// it); empty for a list parsed from text.
  std::string sha256;
};

/// Bounds on a call list, an untrusted input (Errc::kLimit past them): the defaults are far above any
/// real list; a caller or test that needs another passes its own.
struct CallListLimits {
  std::size_t max_calls = 100000;                       ///< [[call]] tables
  std::uint64_t max_file_bytes = std::uint64_t{64} << 20;
};

/// Parses a call list strictly: only [[call]] tables, only their keys, each of the right type; an
/// error names the file and line ("calls.toml:7: [[call]] #2: unknown key 'arg'"). Errc::kMalformed.
Result<CallList> parse_call_list(std::string_view text, std::string_view source, const CallListLimits& limits = {});
/// Reads and parses a call list file, and hashes the bytes it read (CallList::sha256).
Result<CallList> read_call_list(const std::filesystem::path& path, const CallListLimits& limits = {});

struct CallsCaptureOptions {
  /// Thread, block budget, timeout; the FPU default and the stubs come from the profile.
  harness::MachineConfig machine;
  /// Identity of the snapshot, written into every case's origin.
  std::string snapshot_sha256;
  /// The functions whose calls become cases, nested ones included. Empty: every [[function]] of the
  /// profile that no active [[stub]] replaces; then only functions with cases get a case file.
  std::vector<harness::GuestAddr> functions;
  /// Check each function's cases against its declared convention (conventions_check.hpp).
  bool check_conventions = true;
};

/// A call of the list that stopped on a guest fault (its cases are not kept).
struct CallFault {
  std::size_t index = 0;  ///< which [[call]] (0-based)
  int line = 0;
  std::string message;    ///< the fault's one-line message ("KERNEL32.dll!GetTickCount: add a [[stub]] ...")
};

struct CallsCaptureReport {
  /// files (ascending by address: one per chosen function, or per profile function with cases), counts
  CaptureReport capture;
  std::vector<CallFault> faults;  ///< in list order
  /// Functions watched that no call reached (0 cases), ascending by address: each gets a line.
  std::vector<harness::GuestAddr> uncalled;
};

/// Makes every call of the list on a machine restored to the snapshot before each [[call]] (repeats
/// of one call run back to back, the state carried over), and records every call of the watched
/// functions (CallsCaptureOptions::functions; nested ones included) as cases. A case's origin record is "CALL", its record_index the
/// [[call]]'s index, its step the repeat; cases list the call's pokes. An argument, poke or function
/// the profile cannot resolve is an error naming the line (Errc::kUsage / kNotFound / kMalformed).
Result<CallsCaptureReport> capture_calls(const harness::Snapshot& snapshot, const harness::Profile& profile,
                                         const CallList& list, const CallsCaptureOptions& options);

}  // namespace lockstep::capture
