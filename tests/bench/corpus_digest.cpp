// corpus_digest CORPUS: prints a digest of a corpus that scripts/bench/capture_unicorn.py computes
// the same way from its own capture, so scripts/bench-capture can check that the Python capture did
// the same work as `lockstep capture` before it reports a speed ratio.
//
// corpus_digest --capture SNAPSHOT STEPLOG PROFILE [--every N] [--max M] [--repeat R] [--write DIR] FN...: runs
// lockstep::capture::capture() in this process R times (default 1) on the same inputs and prints,
// before the digest of the last run's cases, `time load S` (profile, snapshot, state log) and one
// `time capture S` line per run: the capture alone (machine set-up, every driver run, the cases and
// the code bytes attached to them) without the corpus writing (encoding, zlib, files) that
// `lockstep capture` adds, which is what the Python capture's "capture" phase measures too. With
// --write DIR it then writes the last run's cases as a corpus there and prints `time write S`.
//
// Output, one line per function (ascending by address, empty functions included), then a total:
//
//   <fn:08x> <name> cases <n> inputs <bytes> writes <bytes> sha256 <hex>
//   total cases <n> sha256 <hex of the function lines>
//
// The per-function SHA-256 is over one text line per case, in file order ("\n"-terminated):
//
//   <fn:08x> <id> <record_index> <step> <racer> <call_index> | <in> | <out> | i <runs> | w <runs> | f <n>
//
// where <in>/<out> are eax ebx ecx edx esi edi ebp esp eip eflags (8 hex digits each), the x87 control,
// status and tag words (4 each), MXCSR (8) and ST(0)..ST(7) (20 hex digits each, bytes in memory
// order); <runs> are the byte map's runs as <base:08x>:<hex bytes>, space-separated; f is the count of
// frame bytes written. Exit codes: 0, 2 bad input (the corpus cannot be read).
//
// corpus_digest --same DIR_A DIR_B: whether two corpus folders hold the same contents, decoded: the
// same file names, every case file with the same header and the same body once inflated (whatever
// compressor, level or library wrote it), every other file (manifest.json, ...) byte for byte. It
// prints each difference; exit 0 the same, 1 different, 2 bad input. scripts/capture-standin --check
// compares a regenerated corpus with the checked-in one this way.
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <span>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/result.hpp"
#include "lockstep/capture/capture.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cases/case_file.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/profile/profile.hpp"

namespace {

using namespace lockstep;

std::string regs_text(const cases::Registers& r) {
  std::string s = fmt::format("{:08x} {:08x} {:08x} {:08x} {:08x} {:08x} {:08x} {:08x} {:08x} {:08x} {:04x} {:04x} {:04x} {:08x}",
                              r.eax, r.ebx, r.ecx, r.edx, r.esi, r.edi, r.ebp, r.esp, r.eip, r.eflags, r.x87.control,
                              r.x87.status, r.x87.tag, r.x87.mxcsr);
  for (const auto& st : r.x87.st) {
    s += ' ';
    s += to_hex(st);
  }
  return s;
}

std::string runs_text(const cases::ByteMap& m) {
  std::string s;
  for (const auto& run : m.runs()) {
    if (!s.empty()) s += ' ';
    s += fmt::format("{:08x}:{}", run.base, to_hex(run.bytes));
  }
  return s;
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

void print_digest(const std::vector<cases::CaseFile>& files) {
  Sha256 total;
  std::uint64_t total_cases = 0;
  for (const cases::CaseFile& f : files) {
    Sha256 h;
    std::uint64_t inputs = 0, writes = 0;
    for (const cases::Case& c : f.cases) {
      const std::string line =
          fmt::format("{:08x} {} {} {} {} {} | {} | {} | i {} | w {} | f {}\n", c.function, c.id, c.origin.record_index,
                      c.origin.step, c.origin.instance, c.origin.call_index, regs_text(c.in), regs_text(c.out),
                      runs_text(c.inputs), runs_text(c.writes), c.frame_bytes_written);
      h.update(as_bytes(line));
      inputs += c.inputs.byte_count();
      writes += c.writes.byte_count();
    }
    const std::string fn_line = fmt::format("{:08x} {} cases {} inputs {} writes {} sha256 {}\n", f.function, f.name,
                                            f.cases.size(), inputs, writes, to_hex(h.finish()));
    total.update(as_bytes(fn_line));
    total_cases += f.cases.size();
    std::fputs(fn_line.c_str(), stdout);
  }
  std::fputs(fmt::format("total cases {} sha256 {}\n", total_cases, to_hex(total.finish())).c_str(), stdout);
}

int fail(const Error& e) {
  std::fprintf(stderr, "corpus_digest: %s\n", e.message.c_str());
  return exit_code_for(e.code);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

bool parse_count(const char* text, std::uint32_t& out) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(text, &end, 10);
  if (!*text || *end || v > 0xffffffffUL) return false;
  out = static_cast<std::uint32_t>(v);
  return true;
}

int run_capture(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: corpus_digest --capture SNAPSHOT STEPLOG PROFILE [--every N] [--max M] [--repeat R] [--write DIR] FN...\n");
    return kExitBadInput;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto profile = harness::load_profile(argv[4]);
  if (!profile.ok()) return fail(profile.error());
  auto snapshot = harness::load_snapshot(argv[2]);
  if (!snapshot.ok()) return fail(snapshot.error());
  auto log = capture::read_state_log(argv[3]);
  if (!log.ok()) return fail(log.error());
  capture::CaptureOptions opt;
  std::uint32_t repeat = 1;
  std::string write_dir;
  for (int i = 5; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--write") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "corpus_digest: --write needs a folder\n");
        return kExitBadInput;
      }
      write_dir = argv[++i];
      continue;
    }
    if (a == "--every" || a == "--max" || a == "--repeat") {
      std::uint32_t v = 0;
      if (i + 1 >= argc || !parse_count(argv[i + 1], v) || (a != "--max" && v == 0)) {
        std::fprintf(stderr, "corpus_digest: %s needs a positive number\n", a.c_str());
        return kExitBadInput;
      }
      (a == "--every" ? opt.sampling.every : a == "--max" ? opt.sampling.max : repeat) = v;
      ++i;
      continue;
    }
    auto spec = profile->find_function(a);
    if (!spec.ok()) return fail(spec.error());
    opt.functions.push_back((*spec)->address);
  }
  std::printf("time load %.3f\n", seconds_since(t0));
  std::optional<capture::CaptureReport> rep;
  for (std::uint32_t r = 0; r < repeat; ++r) {
    const auto t1 = std::chrono::steady_clock::now();
    auto run = capture::capture(*snapshot, *log, *profile, opt);
    if (!run.ok()) return fail(run.error());
    std::printf("time capture %.3f\n", seconds_since(t1));
    rep = std::move(run).value();
  }
  if (!write_dir.empty()) {
    // The corpus writing `lockstep capture` does after the capture (manifest counts, encoding, zlib,
    // atomic files), timed alone.
    cases::Manifest m;
    m.profile = profile->name;
    const auto t2 = std::chrono::steady_clock::now();
    if (auto w = cases::write_corpus(write_dir, m, rep->files); !w.ok()) return fail(w.error());
    std::printf("time write %.3f\n", seconds_since(t2));
  }
  if (rep->faulted) std::printf("faulted runs %llu\n", static_cast<unsigned long long>(rep->faulted));
  print_digest(rep->files);
  return rep->faulted ? kExitGuestFault : kExitOk;
}

}  // namespace

// A case file's header (the compressed size left out) and its inflated body.
Result<std::vector<std::uint8_t>> decoded_case_file(const std::filesystem::path& path) {
  LOCKSTEP_TRY(auto bytes, read_file(path, cases::CaseFileLimits{}.max_body_bytes));
  // The header (cases/docs/case-format.md): magic 8, version 4, function 4, count 4, flags 4, body size 8,
  // body crc32 4, compressed size 4; the compressed body follows.
  constexpr std::size_t kHeader = 40, kBodySizeAt = 24, kStoredSizeAt = 36;
  if (bytes.size() < kHeader)
    return Error::make(Errc::kTruncated, "{}: {} bytes, shorter than a case file's header", path.string(), bytes.size());
  std::uint64_t body_size = 0;
  std::memcpy(&body_size, bytes.data() + kBodySizeAt, 8);
  if (body_size > cases::CaseFileLimits{}.max_body_bytes)
    return Error::make(Errc::kLimit, "{}: body of {} bytes, past the limit", path.string(), body_size);
  LOCKSTEP_TRY(auto body, zlib_decompress(std::span(bytes).subspan(kHeader), body_size, path.string()));
  std::vector<std::uint8_t> out(bytes.begin(), bytes.begin() + kStoredSizeAt);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

int run_same(const std::filesystem::path& a, const std::filesystem::path& b) {
  namespace fs = std::filesystem;
  auto names = [](const fs::path& dir) -> Result<std::set<std::string>> {
    std::set<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.insert(it->path().filename());
    if (ec) return Error::make(Errc::kNotFound, "cannot list {}: {}", dir.string(), ec.message());
    return out;
  };
  auto na = names(a);
  if (!na.ok()) return fail(na.error());
  auto nb = names(b);
  if (!nb.ok()) return fail(nb.error());
  bool same = true;
  for (const auto& n : *na)
    if (!nb->count(n)) same = false, std::printf("only in %s: %s\n", a.c_str(), n.c_str());
  for (const auto& n : *nb)
    if (!na->count(n)) same = false, std::printf("only in %s: %s\n", b.c_str(), n.c_str());
  for (const auto& n : *na) {
    if (!nb->count(n)) continue;
    const bool case_file = n.ends_with(".lkcases");
    auto ca = case_file ? decoded_case_file(a / n) : read_file(a / n);
    if (!ca.ok()) return fail(ca.error());
    auto cb = case_file ? decoded_case_file(b / n) : read_file(b / n);
    if (!cb.ok()) return fail(cb.error());
    if (*ca != *cb) same = false, std::printf("differs%s: %s\n", case_file ? " (decoded)" : "", n.c_str());
  }
  return same ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--capture") return run_capture(argc, argv);
  if (argc == 4 && std::string(argv[1]) == "--same") return run_same(argv[2], argv[3]);
  if (argc != 2) {
    std::fprintf(stderr, "usage: corpus_digest CORPUS_DIR\n"
                         "       corpus_digest --same DIR_A DIR_B\n"
                         "       corpus_digest --capture SNAPSHOT STEPLOG PROFILE [--every N] [--max M] [--repeat R] [--write DIR] FN...\n");
    return kExitBadInput;
  }
  auto corpus = cases::read_corpus(argv[1]);
  if (!corpus.ok()) return fail(corpus.error());
  print_digest(corpus->files);
  return kExitOk;
}
