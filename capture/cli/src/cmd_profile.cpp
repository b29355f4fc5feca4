// lockstep profile from-symbols FILE -o P.toml: a first profile from an executable's symbol table, a
// Ghidra export or an IDA .map. lockstep profile export P.toml --ghidra G.py --ida I.py: scripts that
// name the profile's functions, structs and labels in the disassembler.
// Exit code 0, 2 bad input or usage, 4 an output that cannot be written.
#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"
#include "lockstep/calls/conventions.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/profile/profile_symbols.hpp"

#include "command.hpp"

namespace lockstep::cli {
namespace {

struct FromSymbolsArgs {
  std::string input, format = "auto", output, name = "original", description, convention, returns;
  std::vector<std::string> segments;  ///< N=ADDRESS
};

Result<std::map<std::uint32_t, harness::GuestAddr>> segment_bases(const std::vector<std::string>& specs) {
  std::map<std::uint32_t, harness::GuestAddr> out;
  for (const auto& s : specs) {
    const auto eq = s.find('=');
    if (eq == std::string::npos)
      return Error::make(Errc::kUsage, "--segment '{}': write SEGMENT=ADDRESS (e.g. 1=0x401000)", s);
    auto seg = harness::parse_u32(s.substr(0, eq));
    auto base = harness::parse_u32(s.substr(eq + 1));
    if (!seg.ok() || !base.ok()) return Error::make(Errc::kUsage, "--segment '{}': numbers, e.g. 1=0x401000", s);
    out[*seg] = *base;
  }
  return out;
}

Result<int> run_from_symbols(const FromSymbolsArgs& a, Io& io) {
  auto format = harness::parse_symbol_file_format(a.format);
  if (!format.ok()) return format.error();
  auto bases = segment_bases(a.segments);
  if (!bases.ok()) return bases.error();
  harness::ProfileDraftOptions opt;
  opt.name = a.name;
  opt.description = a.description;
  if (!a.convention.empty()) {
    if (auto c = harness::parse_convention(a.convention); !c.ok()) return c.error().wrap("--convention");
    opt.convention = a.convention;
  }
  if (!a.returns.empty()) {
    if (auto r = harness::parse_return_kind(a.returns); !r.ok()) return r.error().wrap("--returns");
    opt.returns = a.returns;
  }
  auto symbols = harness::load_symbol_file(a.input, {.format = *format, .segment_bases = *bases, .limits = {}});
  if (!symbols.ok()) return symbols.error();
  const std::string text = harness::draft_profile(*symbols, opt);
  std::size_t functions = 0, labels = 0;
  for (const auto& s : symbols->symbols) (s.kind == harness::SymbolKind::kFunction ? functions : labels)++;
  if (opt.convention && opt.returns) {
    // A draft that names both must load as it is: checked before it is written.
    if (auto p = harness::parse_profile(text, a.output); !p.ok())
      return p.error().wrap("the drafted profile does not load (a bug in lockstep)");
  }
  if (auto s = write_file_atomic(a.output, text); !s.ok()) return s.error();
  fmt::print(io.out, "{}: {} function symbols and {} data symbols from {} ({})\n", a.output, functions, labels,
             a.input, harness::symbol_source_name(symbols->sources.front()));
  if (!opt.convention || !opt.returns)
    fmt::print(io.err,
               "lockstep: the profile does not load until every convention = \"{0}\" and returns = \"{0}\" is "
               "filled in (or run again with --convention and --returns, then check each function)\n",
               harness::kUnknownPlaceholder);
  return kExitOk;
}

struct ExportArgs {
  std::string profile, ghidra, ida;
};

Result<int> run_export(const ExportArgs& a, Io& io) {
  if (a.ghidra.empty() && a.ida.empty())
    return Error::make(Errc::kUsage, "nothing to export: give --ghidra FILE.py and/or --ida FILE.py");
  auto p = harness::load_profile(a.profile);
  if (!p.ok()) return p.error();
  if (!a.ghidra.empty()) {
    if (auto s = write_file_atomic(a.ghidra, harness::ghidra_script(*p)); !s.ok()) return s.error();
    fmt::print(io.out, "{}: a Ghidra script naming {} functions, {} structs, {} instances, {} labels\n", a.ghidra,
               p->functions.size(), p->structs.size(), p->instances.size(), p->labels.size());
  }
  if (!a.ida.empty()) {
    if (auto s = write_file_atomic(a.ida, harness::ida_script(*p)); !s.ok()) return s.error();
    fmt::print(io.out, "{}: an IDA script naming {} functions, {} structs, {} instances, {} labels\n", a.ida,
               p->functions.size(), p->structs.size(), p->instances.size(), p->labels.size());
  }
  return kExitOk;
}

Action setup_profile(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  app.require_subcommand(1);
  auto from = std::make_shared<FromSymbolsArgs>();
  CLI::App* f = app.add_subcommand("from-symbols", "A first profile from symbols: ELF/PE, Ghidra CSV/XML, IDA .map");
  f->add_option("symbols", from->input, "An ELF or PE file, a Ghidra CSV or XML export, an IDA .map")->required();
  f->add_option("-o,--output", from->output, "The profile to write (TOML)")->required();
  f->add_option("--format", from->format, "auto (default: by content and extension), executable, ghidra-csv, "
                                          "ghidra-xml, ida-map");
  f->add_option("--segment", from->segments, "IDA .map: SEGMENT=ADDRESS, the base of a segment; repeatable");
  f->add_option("--name", from->name, "The profile's name (default \"original\")");
  f->add_option("--description", from->description, "The profile's one-line description");
  f->add_option("--convention", from->convention,
                "Write this convention for every function (symbols do not know it; default: the placeholder "
                "\"unknown\", which must be filled in)");
  f->add_option("--returns", from->returns, "Write this return kind for every function (default: \"unknown\")");
  auto exp = std::make_shared<ExportArgs>();
  CLI::App* e = app.add_subcommand("export", "Scripts naming a profile's functions, structs and labels in Ghidra, IDA");
  e->add_option("profile", exp->profile, "The profile (TOML)")->required();
  e->add_option("--ghidra", exp->ghidra, "Write a Ghidra script (Python) here");
  e->add_option("--ida", exp->ida, "Write an IDA script (IDAPython) here");
  return [from, exp, f](Io& io) -> Result<int> { return f->parsed() ? run_from_symbols(*from, io) : run_export(*exp, io); };
}

}  // namespace

Command profile_command() {
  return {"profile", "Profiles and symbols: start one from symbols, export one to Ghidra or IDA", setup_profile};
}

}  // namespace lockstep::cli
