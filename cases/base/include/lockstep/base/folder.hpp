// Folders written whole: a corpus, an HTML report. Every file goes into a fresh sibling folder
// (NAME.new.<pid>), which then takes the old folder's place in one step, so a full disk, a signal or a
// failed write leaves the old folder as it was, never a mix of old and new files.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "lockstep/base/result.hpp"

namespace lockstep {

/// Writes the folder `dir` whole. `fill(next)` writes every file into the empty folder `next`; then
/// `next` is flushed and swapped into `dir`'s place (RENAME_EXCHANGE: at every instant `dir` is the old
/// folder or the new one) and the old one removed. A failure of `fill` or of the swap removes `next`
/// and leaves `dir` untouched. A symlink to a folder is written through: the folder it names is
/// replaced, the link stays. `dir` naming a file (or a link to nothing) is refused (kUsage). Regular
/// files of the old folder for which `carry(name)` is true are copied into the new one first.
/// Folders left by killed writers (NAME.new.<pid>, NAME.old.<pid> of a process that is gone) are removed.
Status replace_folder(const std::filesystem::path& dir, const std::function<Status(const std::filesystem::path&)>& fill,
                      const std::function<bool(const std::string&)>& carry = {});

}  // namespace lockstep
