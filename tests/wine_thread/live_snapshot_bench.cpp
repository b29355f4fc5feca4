// How long a live snapshot stops the game: the Wine-style test original (17 threads, an LDT entry
// per thread) with 0..N MiB of filled heap is snapshotted repeatedly; for each size the time from
// the first thread's stop to the last thread's release (LiveSnapshotTiming) is reported, and the
// cost per MB as the slope between the smallest and largest size; then what reading the LDT adds
// (snapshots with and without it, alternating, in the same run). A benchmark: run by hand, never a
// timed test.
//
//   lockstep_live_snapshot_bench [--runs N] [--mib A,B,C...] [--program PATH]
//
// The i386 build is used where the kernel runs it, else the 64-bit build (allow_64bit).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lockstep/live/live.hpp"

extern char** environ;

namespace {

struct Child {
  pid_t pid = -1;
  int in = -1, out = -1;

  bool start(const std::string& program, const std::string& mode, unsigned mib) {
    int i[2], o[2];
    if (::pipe2(i, O_CLOEXEC) || ::pipe2(o, O_CLOEXEC)) return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, i[0], 0);
    posix_spawn_file_actions_adddup2(&fa, o[1], 1);
    const std::string m = std::to_string(mib);
    const char* argv[] = {program.c_str(), mode.c_str(), m.c_str(), nullptr};
    const int rc = ::posix_spawn(&pid, program.c_str(), &fa, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(i[0]);
    ::close(o[1]);
    in = i[1];
    out = o[0];
    return rc == 0;
  }
  /// Waits for "ready" (or the end of the output).
  bool ready() {
    std::string buf;
    char tmp[4096];
    for (;;) {
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, 60000) <= 0) return false;
      const ssize_t n = ::read(out, tmp, sizeof tmp);
      if (n <= 0) return false;
      buf.append(tmp, static_cast<std::size_t>(n));
      if (buf.find("ready\n") != std::string::npos) return true;
    }
  }
  int finish() {
    ::close(in);
    char tmp[4096];
    while (::read(out, tmp, sizeof tmp) > 0) {}
    ::close(out);
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  std::vector<unsigned> sizes = {0, 16, 64, 128};
  std::string program;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--mib" && i + 1 < argc) {
      sizes.clear();
      for (std::string s = argv[++i]; !s.empty();) {
        const auto c = s.find(',');
        sizes.push_back(static_cast<unsigned>(std::stoul(s.substr(0, c))));
        s = c == std::string::npos ? "" : s.substr(c + 1);
      }
    } else if (a == "--program" && i + 1 < argc) {
      program = argv[++i];
    } else {
      std::fprintf(stderr, "usage: lockstep_live_snapshot_bench [--runs N] [--mib A,B,...] [--program PATH]\n");
      return 2;
    }
  }
  bool is64 = false;
  if (program.empty()) {
    Child probe;
    program = WINE_THREAD32;
    if (!probe.start(program, "--wait", 0) || !probe.ready()) {
      if (probe.pid > 0) probe.finish();
      program = WINE_THREAD64;
      is64 = true;
    } else {
      probe.finish();
    }
  } else {
    is64 = program.find("64") != std::string::npos;
  }
  fmt::print("live snapshots of {} ({}), {} runs per size\n", program, is64 ? "64-bit, allow_64bit" : "i386", runs);
  fmt::print("{:>8} {:>8} {:>12} {:>14} {:>14} {:>12}\n", "heap MiB", "threads", "bytes", "stopped ms (med)",
             "stopped ms (max)", "ms per MB");
  std::vector<std::pair<double, double>> points;  // (MB read, median ms)
  for (unsigned mib : sizes) {
    Child c;
    if (!c.start(program, "--wait", mib) || !c.ready()) {
      std::fprintf(stderr, "cannot start %s --wait %u\n", program.c_str(), mib);
      return 4;
    }
    std::vector<double> ms;
    std::size_t threads = 0;
    std::uint64_t bytes = 0;
    for (int r = 0; r < runs; ++r) {
      lockstep::harness::LiveSnapshotTiming t;
      lockstep::harness::LiveSnapshotOptions opt;
      opt.allow_64bit = is64;
      opt.hash_executable = false;
      opt.timing = &t;
      auto s = lockstep::harness::snapshot_live(c.pid, opt);
      if (!s.ok()) {
        std::fprintf(stderr, "snapshot: %s\n", s.error().message.c_str());
        c.finish();
        return 4;
      }
      ms.push_back(t.stopped_seconds * 1e3);
      threads = t.threads;
      bytes = t.bytes;
    }
    const int rc = c.finish();
    if (rc != 0) {
      std::fprintf(stderr, "the program ended with status %d after the snapshots (its own checks failed)\n", rc);
      return 1;
    }
    const double mb = static_cast<double>(bytes) / 1e6, med = median(ms);
    points.emplace_back(mb, med);
    fmt::print("{:>8} {:>8} {:>12} {:>14.2f} {:>14.2f} {:>12.3f}\n", mib, threads, bytes, med,
               *std::max_element(ms.begin(), ms.end()), med / mb);
  }
  // What reading the LDT (three system calls run inside the main thread) adds to the stop: the
  // smallest process, snapshots with and without it alternating.
  {
    Child c;
    if (!c.start(program, "--wait", sizes.front()) || !c.ready()) return 4;
    std::vector<double> with, without;
    for (int r = 0; r < 2 * runs; ++r) {
      lockstep::harness::LiveSnapshotTiming t;
      lockstep::harness::LiveSnapshotOptions opt;
      opt.allow_64bit = is64;
      opt.hash_executable = false;
      opt.read_ldt = r % 2 == 0;
      opt.timing = &t;
      if (!lockstep::harness::snapshot_live(c.pid, opt).ok()) return 4;
      (opt.read_ldt ? with : without).push_back(t.stopped_seconds * 1e3);
    }
    if (c.finish() != 0) return 1;
    fmt::print("LDT read: stopped {:.3f} ms with it, {:.3f} ms without (medians, {} MiB heap): {:.2f}x\n", median(with),
               median(without), sizes.front(), median(with) / median(without));
  }
  // Buffers prepared before the stop against allocated during it, on the largest size, alternating.
  {
    Child c;
    if (!c.start(program, "--wait", sizes.back()) || !c.ready()) return 4;
    std::vector<double> before, during;
    for (int r = 0; r < 2 * runs; ++r) {
      lockstep::harness::LiveSnapshotTiming t;
      lockstep::harness::LiveSnapshotOptions opt;
      opt.allow_64bit = is64;
      opt.hash_executable = false;
      opt.prepare_buffers = r % 2 == 0;
      opt.timing = &t;
      if (!lockstep::harness::snapshot_live(c.pid, opt).ok()) return 4;
      (opt.prepare_buffers ? before : during).push_back(t.stopped_seconds * 1e3);
    }
    if (c.finish() != 0) return 1;
    fmt::print("buffers: stopped {:.2f} ms when prepared before the stop, {:.2f} ms when allocated during it (medians, "
               "{} MiB heap): {:.2f}x\n",
               median(before), median(during), sizes.back(), median(during) / median(before));
  }
  // process_vm_readv against /proc/PID/mem for the memory, on the largest size, alternating.
  {
    Child c;
    if (!c.start(program, "--wait", sizes.back()) || !c.ready()) return 4;
    std::vector<double> vm, mem;
    for (int r = 0; r < 2 * runs; ++r) {
      lockstep::harness::LiveSnapshotTiming t;
      lockstep::harness::LiveSnapshotOptions opt;
      opt.allow_64bit = is64;
      opt.hash_executable = false;
      opt.use_process_vm_readv = r % 2 == 0;
      opt.timing = &t;
      if (!lockstep::harness::snapshot_live(c.pid, opt).ok()) return 4;
      (opt.use_process_vm_readv ? vm : mem).push_back(t.stopped_seconds * 1e3);
    }
    if (c.finish() != 0) return 1;
    fmt::print("memory read: stopped {:.2f} ms with process_vm_readv, {:.2f} ms with /proc/PID/mem (medians, {} MiB "
               "heap): {:.2f}x\n",
               median(vm), median(mem), sizes.back(), median(mem) / median(vm));
  }
  if (points.size() >= 2 && points.back().first > points.front().first) {
    const double slope = (points.back().second - points.front().second) / (points.back().first - points.front().first);
    fmt::print("marginal stop time: {:.3f} ms per MB (between {:.1f} and {:.1f} MB read)\n", slope,
               points.front().first, points.back().first);
  }
  return 0;
}
