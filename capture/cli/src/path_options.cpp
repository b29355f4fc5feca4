#include "path_options.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"

namespace lockstep::cli {

namespace fs = std::filesystem;

namespace {

// Names of path options across the commands (positionals by their own names).
constexpr std::array<std::string_view, 12> kInputNames{"snapshot", "steplog", "corpus",     "reports",
                                                       "file",     "--profile", "--calls",  "--baseline",
                                                       "--snapshot", "--from",  "--image",  "--run"};
constexpr std::array<std::string_view, 6> kOutputNames{"--json", "--junit", "--html", "-o", "--out", "--output"};

bool named(const CLI::Option& opt, std::string_view name) {
  if (name.starts_with("-")) return opt.check_name(std::string(name));
  return opt.get_positional() && opt.get_name() == name;  // --run's "SNAPSHOT STEPLOG" is an option
}

struct PathValue {
  std::string option;  ///< how the user spelled the option ("--json")
  fs::path path;
};

/// The identities of `p` and each folder above it (links resolved), nearest first.
std::vector<FileIdentity> identities_up(const fs::path& p) {
  std::vector<FileIdentity> out;
  std::error_code ec;
  fs::path at = fs::weakly_canonical(fs::absolute(p, ec), ec);
  while (true) {
    if (auto id = file_identity(at)) out.push_back(*id);
    if (at == at.parent_path() || at.empty()) break;
    at = at.parent_path();
  }
  return out;
}

/// True for what is written in place rather than replaced (a device, a FIFO, a socket).
bool written_in_place(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string shown(const PathValue& v) { return fmt::format("{} {}", v.option, v.path.string()); }

Status check_output(const PathValue& out, const std::vector<PathValue>& inputs) {
  if (written_in_place(out.path)) return {};
  const std::vector<FileIdentity> out_up = identities_up(out.path);
  const std::optional<FileIdentity> out_id = file_identity(out.path);
  for (const PathValue& in : inputs) {
    const std::optional<FileIdentity> in_id = file_identity(in.path);
    if (!in_id) continue;  // the command reports a missing input itself
    if (out_id && *out_id == *in_id)
      return Error::make(Errc::kUsage, "{} is the same file as the input {}: an output never replaces an input of "
                                       "its command; write it elsewhere",
                         shown(out), shown(in));
    if (std::find(out_up.begin() + (out_id ? 1 : 0), out_up.end(), *in_id) != out_up.end() &&
        fs::is_directory(in.path))
      return Error::make(Errc::kUsage, "{} lies inside the input folder of {}: writing there could replace its "
                                       "files; write it elsewhere",
                         shown(out), shown(in));
    if (out_id && fs::is_directory(out.path)) {
      const std::vector<FileIdentity> in_up = identities_up(in.path);
      if (std::find(in_up.begin() + 1, in_up.end(), *out_id) != in_up.end())
        return Error::make(Errc::kUsage, "{} holds the input {}: the output folder is replaced whole; write it "
                                         "elsewhere",
                           shown(out), shown(in));
    }
  }
  return {};
}

/// Where two outputs land: the file's identity when it exists, else the path it would get.
std::string output_key(const fs::path& p) {
  if (auto id = file_identity(p)) return fmt::format("id {}:{}", id->device, id->inode);
  std::error_code ec;
  return "path " + fs::weakly_canonical(fs::absolute(p, ec), ec).string();
}

}  // namespace

PathRole path_role(const CLI::Option& opt) {
  if (opt.get_expected_max() == 0) return PathRole::kNone;  // a flag
  for (std::string_view n : kOutputNames)
    if (named(opt, n)) return PathRole::kOutput;
  for (std::string_view n : kInputNames)
    if (named(opt, n)) return PathRole::kInput;
  return PathRole::kNone;
}

Status check_option_values(const CLI::App& command) {
  std::vector<PathValue> inputs, outputs;
  for (const CLI::Option* opt : command.get_options()) {
    if (opt->count() == 0 || opt->get_expected_max() == 0) continue;  // not given, or a flag
    const std::string name = opt->get_name();
    for (const std::string& v : opt->results()) {
      if (v.empty())
        return Error::make(Errc::kUsage, "{} was given an empty value (an unset variable?); give one, or leave the "
                                         "option out",
                           name);
      const PathRole role = path_role(*opt);
      if (role == PathRole::kInput) inputs.push_back({name, v});
      if (role == PathRole::kOutput) outputs.push_back({name, v});
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    LOCKSTEP_TRY_STATUS(check_output(outputs[i], inputs));
    if (written_in_place(outputs[i].path)) continue;
    for (std::size_t k = 0; k < i; ++k)
      if (output_key(outputs[i].path) == output_key(outputs[k].path))
        return Error::make(Errc::kUsage, "{} and {} name one file: the second would replace the first",
                           shown(outputs[k]), shown(outputs[i]));
  }
  return {};
}

}  // namespace lockstep::cli
