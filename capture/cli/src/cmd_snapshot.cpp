// lockstep snapshot: take a whole-process snapshot and write it as a lockstep snapshot file.
//   lockstep snapshot --pid PID -o FILE     a running process (live, ptrace)
//   lockstep snapshot --from FILE -o FILE   convert a minidump, ELF core, PE32 image or snapshot file
//   ... [--image EXE]                       map the original's .EXE over it first
// Each source is one option and one branch of acquire(); a new source (e.g. --from FILE, converting
// a minidump or ELF core) adds an option to setup_snapshot() and a branch there.
#include <memory>

#include <fmt/ostream.h>

#include "lockstep/live/live.hpp"
#include "lockstep/load/load.hpp"

#include "command.hpp"
#include "image_option.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct SnapshotArgs {
  std::uint32_t pid = 0;       ///< --pid: a running process
  std::string output;          ///< -o
  bool allow_64bit = false;    ///< --allow-64bit (LiveSnapshotOptions::allow_64bit)
  bool no_ldt = false;         ///< --no-ldt (LiveSnapshotOptions::read_ldt off)
  int zlib_level = harness::SnapshotWriteOptions{}.zlib_level;
  CLI::Option* pid_opt = nullptr;
  std::string from;            ///< --from: a file in any format load_snapshot() reads
  CLI::Option* from_opt = nullptr;
};

/// The snapshot from whichever source was given (exactly one).
Result<harness::Snapshot> acquire(const SnapshotArgs& a) {
  const int sources = (a.pid_opt->count() > 0 ? 1 : 0) + (a.from_opt->count() > 0 ? 1 : 0);
  if (sources != 1) return Error::make(Errc::kUsage, "give the snapshot's source: --pid PID or --from FILE");
  if (a.from_opt->count() > 0) return harness::load_snapshot(a.from);  // the format from the file's magic
  harness::LiveSnapshotOptions live;
  live.allow_64bit = a.allow_64bit;
  live.read_ldt = !a.no_ldt;
  return harness::snapshot_live(static_cast<int>(a.pid), live);
}

Action setup_snapshot(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto a = std::make_shared<SnapshotArgs>();
  a->pid_opt = add_unsigned_option(app, "--pid", a->pid,
                                   "Snapshot this running process (every thread is stopped while it is read, then "
                                   "resumed)",
                                   1, std::numeric_limits<int>::max());
  a->from_opt = app.add_option("--from", a->from, "Convert this file: a Windows minidump, an ELF core of a 32-bit "
                                                 "process, a PE32 image alone, or a lockstep snapshot (detected "
                                                 "from its first bytes)");
  auto image = add_image_option(app);
  app.add_option("-o,--output", a->output, "Write the snapshot here (lockstep's snapshot file, atomically)")
      ->required();
  app.add_flag("--allow-64bit", a->allow_64bit,
               "Accept a 64-bit process: its memory below 4 GiB and the low 32 bits of its registers (lossy)");
  app.add_flag("--no-ldt", a->no_ldt,
               "Run nothing inside the process: its LDT is not read (Wine's FS selectors then have no base)");
  app.add_option_function<std::string>(
         "--zlib-level",
         [a](const std::string& text) {  // strictly: not " 5", "0x5" or "5.0"
           if (text.size() != 1 || text[0] < '0' || text[0] > '9')
             throw CLI::ValidationError("--zlib-level", fmt::format("'{}' is not a level from 0 to 9", text));
           a->zlib_level = text[0] - '0';
         },
         fmt::format("Compression level, 0 (none) to 9 (smallest); default {}", a->zlib_level))
      ->type_name("0-9");
  return [a, image](Io& io) -> Result<int> {
    auto snap = acquire(*a);
    if (!snap.ok()) return snap.error();
    if (auto st = apply_image_option(*image, *snap, io); !st.ok()) return st.error();
    harness::SnapshotWriteOptions w;
    w.zlib_level = a->zlib_level;
    if (auto st = harness::save_snapshot(*snap, a->output, w); !st.ok()) return st.error();
    fmt::print(io.out, "{}: {} regions ({} bytes), {} threads, {} notes, from {}\n", a->output, snap->regions.size(),
               snap->total_bytes(), snap->threads.size(), snap->meta.notes.size(), snap->meta.source);
    return kExitOk;
  };
}

}  // namespace

Command snapshot_command() {
  return {"snapshot", "Take a whole-process snapshot and write it to a file", setup_snapshot};
}

}  // namespace lockstep::cli
