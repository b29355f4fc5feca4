#include "lockstep/base/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace lockstep {

namespace {

// A whole decimal number, nothing else (no sign, no spaces, no suffix).
bool parse_whole(std::string_view text, std::uint64_t& out) {
  if (text.empty() || text.size() > 12) return false;
  for (char ch : text)
    if (ch < '0' || ch > '9') return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<unsigned> parse_jobs(std::string_view text) {
  std::uint64_t n = 0;
  if (!parse_whole(text, n) || n == 0 || n > kMaxJobs)
    return Error::make(Errc::kUsage, "--jobs takes a whole number of threads from 1 to {}, not \"{}\"", kMaxJobs, text);
  return static_cast<unsigned>(n);
}

Result<Shard> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  std::uint64_t k = 0, n = 0;
  if (slash == std::string_view::npos || !parse_whole(text.substr(0, slash), k) ||
      !parse_whole(text.substr(slash + 1), n) || n == 0 || n > kMaxShards || k == 0 || k > n)
    return Error::make(Errc::kUsage,
                       "--shard takes K/N, shard K of N with 1 <= K <= N <= {} (e.g. 2/4), not \"{}\"", kMaxShards,
                       text);
  return Shard{static_cast<unsigned>(k), static_cast<unsigned>(n)};
}

void parallel_for(unsigned jobs, std::size_t items,
                  const std::function<void(unsigned worker, std::size_t item)>& work) {
  if (jobs <= 1 || items <= 1) {
    for (std::size_t i = 0; i < items; ++i) work(0, i);
    return;
  }
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(jobs, items));
  // Items go out in blocks of consecutive ones: fewer trips to the shared counter, and neighbouring
  // results (often neighbours in memory too) written by one thread. Blocks stay small against the
  // whole (about 16 per thread) so that uneven items still spread.
  const std::size_t block = std::clamp<std::size_t>(items / (std::size_t{threads} * 16), 1, 64);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto run = [&](unsigned worker) {
    while (!stop.load(std::memory_order_relaxed)) {
      const std::size_t first = next.fetch_add(block, std::memory_order_relaxed);
      if (first >= items) return;
      const std::size_t last = std::min(items, first + block);
      try {
        for (std::size_t i = first; i < last && !stop.load(std::memory_order_relaxed); ++i) work(worker, i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned w = 1; w < threads; ++w) pool.emplace_back(run, w);
  run(0);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace lockstep
