#include "lockstep/base/folder.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lockstep/base/io.hpp"

namespace lockstep {

namespace fs = std::filesystem;

namespace {

Error os_error(std::string_view what, const fs::path& p) {
  return Error::make(errno == EACCES || errno == EPERM ? Errc::kPermission : Errc::kIo, "{} {}: {}", what, p.string(),
                     std::strerror(errno));
}

Status fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_error("cannot open folder", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return os_error("cannot flush folder", dir);
  return {};
}

/// Regular files of the old folder that `carry` keeps: copied into the new folder.
Status carry_files(const fs::path& from, const fs::path& to, const std::function<bool(const std::string&)>& carry) {
  std::error_code ec;
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!carry(name) || !it->is_regular_file()) continue;
    std::error_code cp;
    fs::copy_file(it->path(), to / name, cp);
    if (cp) return Error::make(Errc::kIo, "cannot keep {} in the new folder: {}", it->path().string(), cp.message());
  }
  if (ec) return Error::make(Errc::kIo, "cannot list folder {}: {}", from.string(), ec.message());
  return {};
}

/// Puts the finished folder `next` where `dir` is. RENAME_EXCHANGE swaps the two names in one step;
/// the old folder ends up at `next` and is removed. A file system without it gets two renames (a
/// kill between them leaves the old folder at DIR.old.<pid>, which the next write removes).
Status swap_into_place(const fs::path& next, const fs::path& dir, bool dir_exists) {
  if (!dir_exists) {
    if (::rename(next.c_str(), dir.c_str()) != 0) return os_error("cannot move the new folder into", dir);
    return {};
  }
  if (::renameat2(AT_FDCWD, next.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS) return os_error("cannot swap the new folder into", dir);
    fs::path old = dir;
    old.replace_filename(dir.filename().string() + ".old." + std::to_string(::getpid()));
    if (::rename(dir.c_str(), old.c_str()) != 0) return os_error("cannot move the old folder aside from", dir);
    if (::rename(next.c_str(), dir.c_str()) != 0) {
      auto err = os_error("cannot move the new folder into", dir);
      ::rename(old.c_str(), dir.c_str());
      return err;
    }
    std::error_code ec;
    fs::remove_all(old, ec);
    return {};
  }
  std::error_code ec;
  fs::remove_all(next, ec);  // now the old folder
  return {};
}

/// `dir` itself, or the folder a symlink `dir` names (written through, the link kept).
Result<fs::path> folder_target(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(dir, ec))) return dir;
  const fs::path target = fs::canonical(dir, ec);
  if (ec)
    return Error::make(Errc::kUsage, "{} is a symbolic link to nothing ({}); give a folder or a link to one",
                       dir.string(), ec.message());
  return target;
}

}  // namespace

Status replace_folder(const fs::path& dir_in, const std::function<Status(const fs::path&)>& fill,
                      const std::function<bool(const std::string&)>& carry) {
  fs::path named = dir_in.lexically_normal();
  if (named.filename().empty()) named = named.parent_path();  // "out/" → "out"
  if (named.empty() || named.filename() == "." || named.filename() == "..")
    return Error::make(Errc::kUsage, "{}: give the folder by name (e.g. reports/coverage)", dir_in.string());
  LOCKSTEP_TRY(fs::path dir, folder_target(named));
  std::error_code ec;
  const auto status = fs::status(dir, ec);
  const bool exists = fs::exists(status);
  if (exists && !fs::is_directory(status))
    return Error::make(Errc::kUsage, "{} is not a folder; this output is written as a folder", dir.string());
  if (!dir.parent_path().empty()) {
    fs::create_directories(dir.parent_path(), ec);
    if (ec) return Error::make(Errc::kIo, "cannot create folder {}: {}", dir.parent_path().string(), ec.message());
  }
  // What killed writers left beside it: unfinished new folders, old ones not yet removed.
  remove_stale_temps(dir, ".new.");
  remove_stale_temps(dir, ".old.");

  fs::path next = dir;
  next.replace_filename(dir.filename().string() + ".new." + std::to_string(::getpid()));
  fs::remove_all(next, ec);
  if (!fs::create_directory(next, ec) || ec)
    return Error::make(Errc::kIo, "cannot create folder {}: {}", next.string(), ec ? ec.message() : "it exists");
  auto fail = [&next](Error e) {
    std::error_code rm;
    fs::remove_all(next, rm);
    return e;
  };
  if (auto s = fill(next); !s.ok()) return fail(std::move(s).error());
  if (exists && carry)
    if (auto s = carry_files(dir, next, carry); !s.ok()) return fail(std::move(s).error());
  if (auto s = fsync_dir(next); !s.ok()) return fail(std::move(s).error());
  if (auto s = swap_into_place(next, dir, exists); !s.ok()) return fail(std::move(s).error());
  return fsync_dir(dir.parent_path().empty() ? fs::path(".") : dir.parent_path());
}

}  // namespace lockstep
