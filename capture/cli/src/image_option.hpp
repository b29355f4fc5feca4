// `--image EXE` for every command that takes a snapshot: maps the original's PE32 image over the
// snapshot after loading it (code and read-only data from the file, writable sections from the
// snapshot; see lockstep/readers/pe32.hpp map_image_over). One helper so every command spells the
// option, its help and its report the same way.
#pragma once

#include <memory>
#include <string>

#include "lockstep/base/result.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"

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

/// The profile's `original` symbols against the snapshot's symbol table, when it has one
/// (harness/symbols.hpp snapshot_symbols: the file itself, --image, or the executable its metadata
/// names): kExitOk when they agree or there is no table, else kExitProfileDisagrees after printing each
/// disagreement to io.err. A symbol table that cannot be read is its error's code.
Result<int> check_profile_symbols(const std::string& snapshot_path, const harness::Snapshot& snapshot,
                          const ImageOption& image, const harness::Profile& profile, Io& io);

/// load_snapshot(path) (any format), then apply_image_option().
Result<harness::Snapshot> load_snapshot_with_image(const std::string& path, const ImageOption& image, Io& io);

}  // namespace lockstep::cli
