// What the parts of a live snapshot share (private to the live snapshot): the freezer
// (thread_freezer.hpp) holds the threads, thread_registers.cpp reads their registers,
// syscall_injector.cpp the LDT, memory_reader.cpp the mappings; live.cpp puts them together.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/live/live.hpp"
#include "lockstep/snapshot/snapshot.hpp"

#include "ptrace_process.hpp"

namespace lockstep::harness::ptrace_process {

inline constexpr std::uint64_t kFourGiB = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kPage = 4096;

inline Error os_error(Errc code, int err, std::string msg) {
  return Error{code, msg + ": " + std::strerror(err)};
}

/// The kernel's special mappings that cannot be read through /proc/PID/mem.
inline bool is_special_unreadable(const std::string& path) {
  return path == "[vvar]" || path == "[vvar_vclock]" || path == "[vsyscall]";
}

inline std::string region_name(const MapsEntry& m) { return m.path.empty() ? "[anon]" : m.path; }

/// One thread's registers, FPU state and segment bases (thread_registers.cpp).
Result<Thread> read_thread(int pid, int tid, bool allow_64bit, std::vector<std::string>& notes);

/// Reads the process's LDT by running modify_ldt inside the stopped thread `tid` (syscall_injector.cpp).
Result<std::vector<LdtEntry>> read_ldt(StoppedThreads& freezer, int pid, int tid, const std::vector<MapsEntry>& maps,
                                       std::vector<std::string>& notes);

/// Buffers for the mappings' bytes, allocated and touched before the process is stopped: the page
/// faults of a fresh buffer (most of the cost of reading a big mapping) then happen while it runs.
/// Keyed by [start, end); a mapping that changed meanwhile simply gets a new buffer.
using PreparedBuffers = std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<std::uint8_t>>;

PreparedBuffers prepare_buffers(const std::vector<MapsEntry>& maps, std::uint64_t max_total);

/// Reads every readable mapping below 4 GiB of `maps` into `s` as regions (the limit of
/// options.max_total_bytes holds), notes what is skipped and why, and lists the mapped files as
/// modules (memory_reader.cpp).
Status read_memory(int pid, const std::vector<MapsEntry>& maps, const LiveSnapshotOptions& options,
                   PreparedBuffers& prepared, Snapshot& s);

}  // namespace lockstep::harness::ptrace_process
