// Result<T>: what every fallible library call at a layer boundary returns: errors are values, guest faults are stop reasons, our own bugs are asserts.
//
// Input errors (a truncated file, a bad magic, an unreadable process) are Results; bugs in lockstep
// itself are asserts; a guest fault inside emulated code is a stop reason of the machine, not an Error.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace lockstep {

/// What went wrong, coarsely: the CLI maps each to an exit code (see exit_code_for()).
enum class Errc {
  kIo,            ///< the OS refused: open, read, write, rename failed
  kTruncated,     ///< input ended before a structure it announced
  kBadMagic,      ///< not the format the reader expected
  kBadVersion,    ///< a version this build does not read
  kMalformed,     ///< a field's value is impossible (overlap, wrap, offset past the end, ...)
  kLimit,         ///< a count or size past a named limit (kept to avoid huge allocations)
  kChecksum,      ///< stored and computed checksums differ
  kUnsupported,   ///< valid input that this build does not handle (yet)
  kNotFound,      ///< a named thing (function, region, case, pid) is not there
  kUsage,         ///< the caller passed arguments that make no sense
  kPermission,    ///< the OS denied access (ptrace_scope, /proc permissions)
  kGuestFault,    ///< emulated code faulted (only where a fault is an error for the caller)
  kMismatch,      ///< a comparison failed (check-steps, replay)
};

const char* errc_name(Errc c) noexcept;

/// Process exit codes, documented in the README ("Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitMismatch = 1,     ///< ran fine, but original and port (or recording) differ
  kExitBadInput = 2,     ///< bad input file or bad usage
  kExitGuestFault = 3,   ///< the original's code faulted under the emulator
  kExitEnvironment = 4,  ///< the OS refused (permissions, a process that went away, I/O)
  kExitInternal = 5,     ///< a bug in lockstep
  kExitNotFound = 6,     ///< a search ran to its budget without finding what it looked for
  kExitUnchecked = 7,    ///< ran, nothing differed, but the verdict is vacuous: a function with cases and
                         ///< no binding, or with no cases, not excluded with a reason; or no case checked
  kExitProfileDisagrees = 8,  ///< the profile contradicts the original: a declared calling convention the
                              ///< captured calls did not follow, an address its `original` symbol is not at
  kExitProgramEnded = 9,  ///< a recorded program exited or crashed before the recording's end (the log is whole)
};

int exit_code_for(Errc c) noexcept;

struct Error {
  Errc code;
  std::string message;  ///< names what is wrong and where: "snapshot.lks: region 3 at offset 0x1c4: ..."

  template <typename... Args>
  static Error make(Errc code, fmt::format_string<Args...> f, Args&&... args) {
    return Error{code, fmt::format(f, std::forward<Args>(args)...)};
  }
  /// Prefixes context: err.wrap("reading {}", path) → "reading x: <message>".
  template <typename... Args>
  Error wrap(fmt::format_string<Args...> f, Args&&... args) const {
    return Error{code, fmt::format(f, std::forward<Args>(args)...) + ": " + message};
  }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}        // NOLINT(google-explicit-constructor)

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { assert(!ok()); return std::get<1>(v_); }
  Error&& error() && { assert(!ok()); return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

/// Result<void>.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : err_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const Error& error() const& { assert(!ok_); return err_; }
  Error&& error() && { assert(!ok_); return std::move(err_); }

 private:
  Error err_{};
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace lockstep

/// Propagates an error: LOCKSTEP_TRY(auto x, read_thing()); or LOCKSTEP_TRY_STATUS(do_thing());
#define LOCKSTEP_CONCAT_INNER(a, b) a##b
#define LOCKSTEP_CONCAT(a, b) LOCKSTEP_CONCAT_INNER(a, b)
#define LOCKSTEP_TRY(decl, expr)                                        \
  auto LOCKSTEP_CONCAT(_lockstep_r_, __LINE__) = (expr);                \
  if (!LOCKSTEP_CONCAT(_lockstep_r_, __LINE__).ok())                    \
    return std::move(LOCKSTEP_CONCAT(_lockstep_r_, __LINE__)).error();  \
  decl = std::move(LOCKSTEP_CONCAT(_lockstep_r_, __LINE__)).value()
#define LOCKSTEP_TRY_STATUS(expr)                                                   \
  do {                                                                              \
    auto LOCKSTEP_CONCAT(_lockstep_s_, __LINE__) = (expr);                          \
    if (!LOCKSTEP_CONCAT(_lockstep_s_, __LINE__).ok())                              \
      return std::move(LOCKSTEP_CONCAT(_lockstep_s_, __LINE__)).error();            \
  } while (0)
