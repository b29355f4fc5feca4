// Work spread over threads (--jobs) and a corpus split between CI jobs (--shard K/N).
//
// lockstep scales past one core with threads, each with its own Unicorn engine or replay memory, and
// past one machine with shards over a CI matrix or a CTest fan-out: every shard runs the same command
// with its own K, and the shards' JSON reports merge into the report of the whole run. Either way the
// output is the same for every N: work items are numbered, and results are put back in item order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "lockstep/base/result.hpp"

namespace lockstep {

/// The most threads --jobs takes (well past any machine lockstep runs on; a typo like 1000000 is an
/// error, not a million threads).
inline constexpr unsigned kMaxJobs = 256;
/// The most shards --shard splits into.
inline constexpr unsigned kMaxShards = 4096;

/// Parses a --jobs value: a whole number 1..kMaxJobs ("0", "-1", "2x", "" are errors, Errc::kUsage).
Result<unsigned> parse_jobs(std::string_view text);

/// One shard of N: item i (0-based, in a fixed order) belongs to shard K (1-based) when i % N == K - 1.
struct Shard {
  unsigned index = 1;  ///< K, 1..count
  unsigned count = 1;  ///< N
  bool holds(std::size_t item) const noexcept { return item % count == index - 1; }
  bool whole() const noexcept { return count == 1; }
};
/// Parses "K/N" (1 <= K <= N <= kMaxShards); anything else is an error (Errc::kUsage).
Result<Shard> parse_shard(std::string_view text);

/// Calls work(worker, item) for every item in [0, items) on `jobs` threads (the calling thread is
/// worker 0; at most `items` threads are used). Items are handed out in ascending order, in small
/// blocks of consecutive items, as workers come free; worker numbers are 0..jobs-1, so per-worker state can live in a vector. An exception
/// thrown by work stops the handing out and is rethrown here once every thread has finished.
void parallel_for(unsigned jobs, std::size_t items, const std::function<void(unsigned worker, std::size_t item)>& work);

}  // namespace lockstep
