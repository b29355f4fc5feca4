// `--image EXE` for every command that takes a snapshot: maps the original's PE32 image over the
// snapshot after loading it (code and read-only data from the file, writable sections from the
// snapshot; see lockstep/harness/pe32.hpp map_image_over). One helper so every command spells the
// option, its help and its report the same way.
#pragma once

#include <memory>
#include <string>

#include "lockstep/base/result.hpp"
#include "lockstep/harness/snapshot.hpp"

#include "command.hpp"

namespace lockstep::cli {

struct ImageOption {
  std::string path;         ///< empty: no --image given
  CLI::Option* option = nullptr;
};

/// Adds `--image EXE` to `app`. Keep the returned pointer alive in the command's action.
std::shared_ptr<ImageOption> add_image_option(CLI::App& app);

/// Maps the image over `snapshot` when --image was given (nothing otherwise) and prints a one-line
/// summary of the differences to io.err. Errors: the image's (bad file) and map_image_over's (the
/// module at another base: kUnsupported naming both bases).
Status apply_image_option(const ImageOption& image, harness::Snapshot& snapshot, Io& io);

/// load_snapshot(path) (any format), then apply_image_option().
Result<harness::Snapshot> load_snapshot_with_image(const std::string& path, const ImageOption& image, Io& io);

}  // namespace lockstep::cli
