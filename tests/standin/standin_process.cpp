#include "standin_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lockstep/live/live.hpp"
#include "lockstep/load/load.hpp"

namespace standin_test {

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// fork + exec with stdout and stderr into files; returns the child's pid.
pid_t spawn(const std::vector<std::string>& argv, const std::filesystem::path& out, const std::filesystem::path& err) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (o < 0 || e < 0) _exit(126);
  dup2(o, 1);
  dup2(e, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(errno == ENOEXEC ? 125 : 127);
}

}  // namespace

bool native_i386() {
  static int cached = -1;
  if (cached < 0) {
    auto dir = std::filesystem::temp_directory_path();
    pid_t pid = spawn({STANDIN_EXE, "--help"}, dir / "standin-probe.out", dir / "standin-probe.err");
    int status = 0;
    waitpid(pid, &status, 0);
    cached = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : 0;
  }
  return cached == 1;
}

std::string native_unavailable_reason() {
  if (native_i386()) return {};
  return "this kernel does not execute i386 programs (exec of the stand-in fails: no IA-32 emulation), so "
         "the stand-in can only run under the project's i386 runner here";
}

lockstep::Result<Run> run_standin(Mode mode, const std::vector<std::string>& args, std::optional<int> pause_at,
                                  const std::filesystem::path& scratch, const std::string& pause_flag) {
  if (mode == Mode::kNative && !native_i386())
    return lockstep::Error::make(lockstep::Errc::kUnsupported, "native run asked for: {}", native_unavailable_reason());
  Run run;
  run.emulated = mode == Mode::kEmulated || (mode == Mode::kAuto && !native_i386());
  std::vector<std::string> argv;
  const auto snap_path = scratch / "pause.lks";
  if (run.emulated) {
    argv = {STANDIN_RUN_EXE, "--quiet"};
    if (pause_at) argv.insert(argv.end(), {"--snapshot", snap_path.string()});
  }
  argv.push_back(STANDIN_EXE);
  argv.insert(argv.end(), args.begin(), args.end());
  if (pause_at) argv.insert(argv.end(), {pause_flag, std::to_string(*pause_at)});

  const auto out = scratch / "stdout", err = scratch / "stderr";
  pid_t pid = spawn(argv, out, err);
  if (pid < 0) return lockstep::Error::make(lockstep::Errc::kIo, "fork: {}", std::strerror(errno));
  int status = 0;
  if (pause_at && !run.emulated) {
    // native: wait for the program's own SIGSTOP, snapshot it live, let it run on
    waitpid(pid, &status, WUNTRACED);
    if (!WIFSTOPPED(status))
      return lockstep::Error::make(lockstep::Errc::kNotFound, "the stand-in ended before pausing (status {})", status);
    auto snap = lockstep::harness::snapshot_live(pid);
    kill(pid, SIGCONT);
    if (!snap.ok()) {
      waitpid(pid, &status, 0);
      return std::move(snap).error();
    }
    run.snapshot = std::move(*snap);
  }
  waitpid(pid, &status, 0);
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = slurp(out);
  run.err = slurp(err);
  if (pause_at && run.emulated && run.exit_status == 0) {
    auto snap = lockstep::harness::load_snapshot(snap_path);
    if (!snap.ok()) return std::move(snap).error();
    run.snapshot = std::move(*snap);
  }
  return run;
}

}  // namespace standin_test
