#include "image_option.hpp"

#include <fmt/ostream.h>

#include "lockstep/load/load.hpp"
#include "lockstep/readers/pe32.hpp"
#include "lockstep/profile/symbol_check.hpp"

namespace lockstep::cli {

std::shared_ptr<ImageOption> add_image_option(CLI::App& app) {
  auto image = std::make_shared<ImageOption>();
  image->option = app.add_option("--image", image->path,
                                 "Map this PE32 .EXE over the snapshot: its code and read-only data replace the "
                                 "snapshot's (restoring patched code), writable sections keep the snapshot's bytes");
  return image;
}

Status apply_image_option(const ImageOption& image, harness::Snapshot& snapshot, Io& io) {
  if (image.path.empty()) return {};
  LOCKSTEP_TRY(harness::Pe32Image img, harness::load_pe32(image.path));
  LOCKSTEP_TRY(harness::MapOverReport rep, harness::map_image_over(snapshot, img));
  fmt::print(io.err, "--image {}: {} differing ranges: 0x{:x} bytes restored from the file, 0x{:x} writable bytes "
                     "kept, 0x{:x} bytes added\n",
             image.path, rep.differences.size(), rep.bytes_replaced, rep.bytes_kept, rep.bytes_added);
  std::size_t shown = 0;
  for (const auto& d : rep.differences) {
    if (shown++ == 20) {
      fmt::print(io.err, "  ... ({} more)\n", rep.differences.size() - 20);
      break;
    }
    fmt::print(io.err, "  0x{:08x} +0x{:x} {} {}\n", d.begin, d.size, d.section, d.replaced ? "restored" : "kept");
  }
  return {};
}

Result<int> check_profile_symbols(const std::string& snapshot_path, const harness::Snapshot& snapshot,
                          const ImageOption& image, const harness::Profile& profile, Io& io) {
  auto symbols = harness::snapshot_symbols(snapshot_path, snapshot, image.path);
  if (!symbols.ok()) return symbols.error();
  if (symbols->source.empty()) {
    fmt::print(io.err, "lockstep: note: no symbol table to check {}'s addresses against: {}\n", profile.source,
               symbols->why_none);
    return kExitOk;
  }
  const auto said = harness::check_symbols(profile, symbols->table);
  for (const auto& w : said.warnings) fmt::print(io.err, "lockstep: warning: {}\n", w);
  for (const auto& e : said.errors) fmt::print(io.err, "lockstep: error: {}\n", e);
  if (said.errors.empty()) return kExitOk;
  fmt::print(io.err, "lockstep: {} function(s) of {} lie elsewhere than their symbols say: correct `address` (or "
                     "`original`) in the profile\n",
             said.errors.size(), profile.source);
  return kExitProfileDisagrees;
}

Result<harness::Snapshot> load_snapshot_with_image(const std::string& path, const ImageOption& image, Io& io) {
  LOCKSTEP_TRY(harness::Snapshot snap, harness::load_snapshot(path));
  LOCKSTEP_TRY_STATUS(apply_image_option(image, snap, io));
  return snap;
}

}  // namespace lockstep::cli
