// lockstep call SNAPSHOT --profile P --fn NAME|ADDR [--arg ...] [--poke ADDR=VALUE ...] [--json]:
// runs one original function under the Unicorn machine and prints what it read and wrote, named by
// the profile's labels, or the fault report (exit 3).
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/numbers.hpp"
#include "lockstep/cases/arguments.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"

#include "command.hpp"
#include "image_option.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

using namespace lockstep::harness;

struct CallOptions {
  std::string snapshot;
  std::string profile;
  std::string fn;
  std::vector<std::string> args;
  std::vector<std::string> pokes;
  std::string convention;
  std::string returns;
  bool json = false;
  std::size_t thread = 0;
  MachineConfig limits;  ///< --budget, --timeout
};

nlohmann::json runs_json(const std::vector<ByteRun>& runs, const Labeler& labels) {
  nlohmann::json a = nlohmann::json::array();
  for (const ByteRun& r : runs) {
    std::string hex;
    for (std::uint8_t b : r.bytes) hex += fmt::format("{:02x}", b);
    a.push_back({{"address", fmt::format("0x{:08x}", r.addr)}, {"name", labels.name(r.addr)}, {"bytes", hex}});
  }
  return a;
}

nlohmann::json regs_json(const Registers& r) {
  auto h = [](std::uint32_t v) { return fmt::format("0x{:08x}", v); };
  return {{"eax", h(r.eax)}, {"ebx", h(r.ebx)}, {"ecx", h(r.ecx)}, {"edx", h(r.edx)}, {"esi", h(r.esi)},
          {"edi", h(r.edi)}, {"ebp", h(r.ebp)}, {"esp", h(r.esp)}, {"eip", h(r.eip)}, {"eflags", h(r.eflags)},
          {"fpu_control", fmt::format("0x{:04x}", r.x87.control)}, {"fpu_status", fmt::format("0x{:04x}", r.x87.status)}};
}

// `lockstep call --json`: the call, its registers, effects and fault.
nlohmann::json call_json(const std::string& name, const CallSpec& spec, const CallOutcome& out, const Labeler& labels) {
  nlohmann::json j;
  j["function"] = name;
  j["address"] = fmt::format("0x{:08x}", spec.function);
  j["convention"] = convention_name(spec.convention.kind);
  j["returned"] = out.returned();
  j["blocks"] = out.blocks;
  j["registers_in"] = regs_json(out.record.in);
  j["registers_out"] = regs_json(out.record.out);
  if (out.returned()) j["return"] = format_return(out.value);
  const Effects& e = out.record.effects;
  j["entry_esp"] = fmt::format("0x{:08x}", e.entry_esp);
  j["inputs"] = runs_json(e.inputs, labels);
  j["stale_stack_reads"] = runs_json(e.stale_stack_reads, labels);
  j["outputs"] = runs_json(e.outputs, labels);
  j["frame_write_bytes"] = byte_count(e.frame_writes);
  if (out.fault) {
    j["fault"] = {{"kind", stop_kind_name(out.fault->kind)}, {"message", out.fault->message},
                  {"eip", fmt::format("0x{:08x}", out.fault->eip)}, {"instruction", out.fault->instruction},
                  {"report", format_fault(*out.fault)}};
  }
  return j;
}

Result<int> run_call(Io& io, const CallOptions& o, const ImageOption& image) {
  LOCKSTEP_TRY(Profile profile, load_profile(o.profile));
  LOCKSTEP_TRY(Snapshot snap, load_snapshot_with_image(o.snapshot, image, io));
  LOCKSTEP_TRY(const int symbols_agree, check_profile_symbols(o.snapshot, snap, image, profile, io));
  if (symbols_agree != kExitOk) return symbols_agree;
  const Labeler labels(profile);

  CallSpec spec;
  const FunctionSpec* fn = nullptr;
  if (auto f = profile.find_function(o.fn); f.ok()) {
    fn = *f;
    spec.function = fn->address;
    spec.convention = fn->convention;
    spec.returns = fn->returns;
  } else {
    // An address the profile does not list: Watcom's convention unless told otherwise.
    auto a = parse_address(o.fn);
    if (!a.ok()) return std::move(f).error();
    spec.function = *a;
    spec.convention.kind = Convention::kWatcom;
    spec.returns = ReturnKind::kEax;
  }
  if (!o.convention.empty()) {
    LOCKSTEP_TRY(spec.convention.kind, parse_convention(o.convention));
    if (spec.convention.kind == Convention::kCustom && spec.convention.registers.empty())
      return Error::make(Errc::kUsage, "--convention custom needs a [[function]] entry listing its registers");
  }
  if (!o.returns.empty()) { LOCKSTEP_TRY(spec.returns, parse_return_kind(o.returns)); }
  for (std::size_t i = 0; i < o.args.size(); ++i) {
    const ArgType t = fn && i < fn->args.size() ? fn->args[i].type : ArgType::kU32;
    auto a = parse_call_arg(o.args[i], t, labels);
    if (!a.ok()) return std::move(a).error().wrap("--arg {}", i + 1);
    spec.args.push_back(std::move(*a));
  }
  if (fn && spec.args.size() != fn->args.size())
    fmt::print(io.err, "lockstep: warning: {} takes {} argument(s), {} given\n", fn->name, fn->args.size(),
               spec.args.size());

  MachineConfig cfg = config_from_profile(profile);
  cfg.thread = o.thread;
  apply_run_limits(o.limits, cfg);
  LOCKSTEP_TRY(auto machine, Machine::create(snap, cfg));
  for (const std::string& p : o.pokes) {
    LOCKSTEP_TRY(cases::Poke poke, parse_poke(p, labels));
    LOCKSTEP_TRY_STATUS(machine->write(poke.address, poke.bytes));
  }
  LOCKSTEP_TRY(CallOutcome out, machine->call(spec));

  const std::string name = fn ? fn->name : fmt::format("0x{:08x}", spec.function);
  if (o.json) {
    io.out << call_json(name, spec, out, labels).dump(2) << "\n";
  } else {
    fmt::print(io.out, "{} (0x{:08x}, {}): {} after {} blocks\n", name, spec.function,
               convention_name(spec.convention.kind), out.returned() ? "returned" : "FAULTED", out.blocks);
    if (out.returned()) fmt::print(io.out, "  {}; the callee popped {} bytes\n", format_return(out.value), out.popped);
    // What the call did against what the convention says it pops (capture checks every case so).
    std::vector<PlacedArg> placed;
    for (const Arg& a : spec.args) placed.push_back({a.kind == Arg::Kind::kF64, 0, 0.0});
    if (auto plan = plan_call(spec.convention, placed); plan.ok() && out.returned()) {
      const std::uint32_t expected = plan->callee_pops;
      if (out.popped != static_cast<std::int64_t>(expected))
        fmt::print(io.err, "lockstep: warning: {} is called as {}, which pops {} bytes here, but the callee popped {}: "
                           "is its convention {}?\n",
                   name, convention_name(spec.convention.kind), expected, out.popped,
                   out.popped == 0 ? "cdecl" : "stdcall (or fastcall, watcom)");
    }
    if (fn && !fn->args.empty()) {
      // The arguments by the profile's names, where the convention put them and whether the call read them.
      cases::Case c;
      c.name = fn->name;
      c.in = out.record.in;
      for (const ByteRun& r : out.record.effects.inputs) c.inputs.set(r.addr, r.bytes);
      io.out << "  arguments:\n";
      for (const std::string& line : cases::describe_arguments(c, cases::Signature{spec.convention, fn->args, fn->returns}))
        io.out << "    " << line << "\n";
    }
    io.out << format_effects(out.record.effects, labels);
    if (out.fault) io.out << format_fault(*out.fault);
  }
  return out.returned() ? kExitOk : kExitGuestFault;
}

Action setup_call(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto o = std::make_shared<CallOptions>();
  app.add_option("snapshot", o->snapshot, "Snapshot file (lockstep, minidump or ELF core), or a PE32 or ELF32 executable alone")->required();
  app.add_option("--profile", o->profile, "Profile (TOML) naming functions, stubs and labels")->required();
  app.add_option("--fn", o->fn, "Function: a profile name, its original symbol, or an address")->required();
  app.add_option("--arg", o->args,
                 "Argument, in order: a number, an address (car[3], car[3]+0x440, car[3].engine_speed), a typed "
                 "value (fx:-200.0, f32:0.5, i16:-3, f64:1.5), or hex:00aa.. (a block laid in scratch memory, "
                 "passed by address)");
  app.add_option("--poke", o->pokes, "ADDR=VALUE: written before the call (ADDR as for --arg, or a field: tank[1].fuel; VALUE hex bytes or typed: u32:7 f32:0.01 fx:-200.0)");
  app.add_option("--convention", o->convention, "Override: watcom, cdecl, stdcall, fastcall, thiscall");
  app.add_option("--returns", o->returns, "Override: none, eax, edx:eax, st0");
  add_unsigned_option(app, "--thread", o->thread, "Snapshot thread whose registers and stack the call uses (default 0)");
  add_run_limits(app, o->limits, "the call");
  app.add_flag("--json", o->json, "Print JSON");
  auto image = add_image_option(app);
  return [o, image](Io& io) -> Result<int> {
    auto r = run_call(io, *o, *image);
    return r;
  };
}

}  // namespace

Command call_command() {
  return {"call", "Run one original function under the emulator and print its effects", setup_call};
}

}  // namespace lockstep::cli
