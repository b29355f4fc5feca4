// The recorder (record.hpp; capture/docs/record.md): the profile's recording points planned into
// debug-register slots and checked against the process's maps, then the tracer's hits turned into
// state-log records.
#include "lockstep/capture/record.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/live/tracer.hpp"

#include "record_log.hpp"

namespace lockstep::capture {
namespace {

using harness::RecordPointSpec;
using harness::RecordWhere;

constexpr std::size_t kMaxSkipReasons = 8;
constexpr std::int64_t kMaxBlocksPerEach = 4096;  ///< a block's `each` beyond this is an unreadable record

/// Which debug-register slot each point uses: one per distinct address, in the order the profile
/// names them, and one per return point in each thread (kept free for the return address).
struct PointPlan {
  std::vector<std::uint64_t> addresses;
  std::vector<std::size_t> return_slot;  ///< per point: its reserved slot (return points only)
  std::size_t reserved = 0;
};

Result<PointPlan> plan_points(const harness::Profile& profile) {
  if (profile.record_points.empty())
    return Error::make(Errc::kUsage, "{} has no [[record]] points: nothing to record", profile.source);
  PointPlan plan;
  plan.return_slot.assign(profile.record_points.size(), 0);
  for (std::size_t i = 0; i < profile.record_points.size(); ++i) {
    const RecordPointSpec& p = profile.record_points[i];
    if (std::find(plan.addresses.begin(), plan.addresses.end(), p.address) == plan.addresses.end())
      plan.addresses.push_back(p.address);
    if (p.where == RecordWhere::kReturn) plan.return_slot[i] = plan.reserved++;
  }
  if (plan.addresses.size() + plan.reserved > harness::kDebugRegisterSlots)
    return Error::make(Errc::kUsage,
                       "{}: {} breakpoint addresses and {} return points need {} debug registers; a thread has {} "
                       "(--tags picks the points a recording needs; capture/docs/record.md, \"Breakpoints\")",
                       profile.source, plan.addresses.size(), plan.reserved, plan.addresses.size() + plan.reserved,
                       harness::kDebugRegisterSlots);
  return plan;
}

/// Every point in an executable mapping of `pid`. `started`: the program was just started, so a
/// point outside any mapping may belong to code loaded later (a DLL under Wine): it is let through.
Status check_points_mapped(int pid, const harness::Profile& profile, bool started) {
  auto maps = harness::read_proc_maps(pid);
  // Maps the kernel will not show mean ptrace is refused too: the attach says why (ptrace_scope),
  // and the points are checked again once attached.
  if (!maps.ok() && maps.error().code == Errc::kPermission) return {};
  if (!maps.ok()) return std::move(maps).error();
  for (const RecordPointSpec& p : profile.record_points) {
    auto m = std::find_if(maps->begin(), maps->end(), [&](const harness::MapsEntry& e) {
      return p.address >= e.start && p.address < e.end;
    });
    const std::string what = fmt::format("{}:{}: [[record]] {} at 0x{:08x}", profile.source, p.line, p.tag, p.address);
    if (m == maps->end()) {
      if (started) continue;
      return Error::make(Errc::kUsage, "{} is not mapped in pid {}: no breakpoint set (is this the right process?)",
                         what, pid);
    }
    if (!m->exec)
      return Error::make(Errc::kUsage, "{} lies in a mapping that is not executable ({:x}-{:x} {}): no breakpoint set",
                         what, m->start, m->end, m->path.empty() ? "[anon]" : m->path);
  }
  return {};
}

/// What a point's expressions see at a hit: the thread's registers and the process's memory.
class HitEnvironment final : public harness::RecordEnvironment {
 public:
  HitEnvironment(harness::Tracer& tracer, const harness::TraceRegisters& regs) : tracer_(tracer), regs_(regs) {}
  std::uint64_t reg(std::string_view name) const override {
    const std::uint64_t v = full(name.substr(1));
    return name[0] == 'e' ? (v & 0xffffffffu) : v;
  }
  Result<std::uint64_t> load(std::uint64_t address, unsigned size) const override {
    std::uint8_t b[8] = {};
    LOCKSTEP_TRY_STATUS(tracer_.read(address, std::span(b, size)));
    std::uint64_t v = 0;
    for (unsigned k = 0; k < size; ++k) v |= std::uint64_t{b[k]} << (8 * k);
    return v;
  }

 private:
  std::uint64_t full(std::string_view r) const {
    if (r == "ax") return regs_.ax;
    if (r == "bx") return regs_.bx;
    if (r == "cx") return regs_.cx;
    if (r == "dx") return regs_.dx;
    if (r == "si") return regs_.si;
    if (r == "di") return regs_.di;
    if (r == "bp") return regs_.bp;
    if (r == "sp") return regs_.sp;
    return regs_.ip;
  }
  harness::Tracer& tracer_;
  const harness::TraceRegisters& regs_;
};

RecordKind kind_of(const std::string& tag) {
  if (tag == "STEP") return RecordKind::kStep;
  if (tag == "CTRL") return RecordKind::kCtrl;
  if (tag == "PHYS") return RecordKind::kPhys;
  return RecordKind::kFrame;
}

/// Appends the blocks `specs` name at a hit to `r` (a group's blocks for each i of its `each`, in order).
Status read_blocks(const std::vector<harness::RecordBlockSpec>& specs, HitEnvironment& env, harness::Tracer& tracer,
                   Record& r) {  // where and how big; the bytes are read afterwards, all at once
  for (const harness::RecordBlockSpec& b : specs) {
    std::int64_t n = 1;
    if (b.each) { LOCKSTEP_TRY(n, b.each->evaluate(env)); }
    if (n < 0 || n > kMaxBlocksPerEach) return Error::make(Errc::kMalformed, "each \"{}\" gave {}", b.each->text, n);
    const std::int64_t outer_i = env.i;
    for (std::int64_t k = 0; k < n; ++k) {
      env.i = b.each ? k : outer_i;  // a block without `each` inside a group sees the group's i
      if (b.condition) {
        LOCKSTEP_TRY(std::int64_t keep, b.condition->evaluate(env));
        if (!keep) continue;
      }
      if (!b.group.empty()) {
        LOCKSTEP_TRY_STATUS(read_blocks(b.group, env, tracer, r));
        continue;
      }
      LOCKSTEP_TRY(std::int64_t at, b.at.evaluate(env));
      std::int64_t size = static_cast<std::int64_t>(b.at.natural_size);
      if (b.size) { LOCKSTEP_TRY(size, b.size->evaluate(env)); }
      if (size <= 0) continue;  // an empty list: no block
      if (at < 0 || static_cast<std::uint64_t>(at) + static_cast<std::uint64_t>(size) > (std::uint64_t{1} << 32))
        return Error::make(Errc::kMalformed, "block \"{}\" at 0x{:x} ({} bytes) is not below 4 GiB", b.at.text,
                           static_cast<std::uint64_t>(at), size);
      Block block;  // its bytes are read with the record's other blocks (take_record)
      block.address = static_cast<harness::GuestAddr>(at);
      block.bytes.resize(static_cast<std::size_t>(size));
      r.blocks.push_back(std::move(block));
    }
    env.i = outer_i;
  }
  return {};
}

/// A point's instance at a hit (-1 for a point without one): an error unless it is 0..2^31-1.
Result<std::int64_t> instance_at(const RecordPointSpec& p, HitEnvironment& env) {
  if (!p.instance) return std::int64_t{-1};
  LOCKSTEP_TRY(std::int64_t instance, p.instance->evaluate(env));
  if (instance < 0 || instance > 0x7fffffff)
    return Error::make(Errc::kMalformed, "instance \"{}\" gave {}", p.instance->text, instance);
  return instance;
}

/// A point's record at a hit: its instance (`instance` when the entry of a return point gave it), step and
/// every block read, or why it cannot be had (then nothing of it is written).
Result<Record> take_record(const RecordPointSpec& p, harness::Tracer& tracer, const harness::TraceRegisters& regs,
                           std::int64_t hits, std::optional<std::int64_t> instance) {
  HitEnvironment env(tracer, regs);
  env.hits = hits;
  Record r;
  r.kind = kind_of(p.tag);
  if (instance) {
    env.instance = *instance;
  } else {
    LOCKSTEP_TRY(env.instance, instance_at(p, env));
  }
  r.instance = static_cast<std::int32_t>(env.instance);
  if (p.pass) {  // a FRAM point: its pass number (the profile's loader allows `pass` on FRAM points only)
    LOCKSTEP_TRY(std::int64_t pass, p.pass->evaluate(env));
    if (pass < 0 || pass > 0x7fffffff) return Error::make(Errc::kMalformed, "pass \"{}\" gave {}", p.pass->text, pass);
    r.pass = static_cast<std::int32_t>(pass);
  }
  LOCKSTEP_TRY(std::int64_t step, p.step.evaluate(env));
  if (step < 0 || step > 0xffffffffLL) return Error::make(Errc::kMalformed, "step \"{}\" gave {}", p.step.text, step);
  r.step = static_cast<std::uint32_t>(step);
  LOCKSTEP_TRY_STATUS(read_blocks(p.blocks, env, tracer, r));
  std::vector<harness::Tracer::Piece> pieces;
  for (Block& b : r.blocks) pieces.push_back({b.address, b.bytes});
  LOCKSTEP_TRY_STATUS(tracer.read_pieces(pieces));
  return r;
}

/// The recording after the breakpoints are set: one hit after the other until a stop.
class Session {
 public:
  Session(const harness::Profile& profile, const RecordOptions& options, const PointPlan& plan,
          harness::Tracer& tracer, RecordLog& log, RecordReport& report)
      : profile_(profile), o_(options), plan_(plan), tracer_(tracer), log_(log), report_(report) {}

  Status run() {
    const auto started = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (o_.duration) deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(*o_.duration);
    for (bool done = false; !done;) {
      LOCKSTEP_TRY(harness::TraceEvent e, tracer_.next(deadline));
      LOCKSTEP_TRY(done, handle(e));
    }
    report_.threads = tracer_.threads_seen();
    report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return {};
  }

 private:
  /// One event of the tracer; true when the recording ends with it.
  Result<bool> handle(const harness::TraceEvent& e) {
    using Kind = harness::TraceEvent::Kind;
    if (e.kind == Kind::kHit) return hit(e);
    if (e.kind == Kind::kTimeout) {
      report_.end = RecordReport::End::kTime;
    } else if (e.kind == Kind::kInterrupted) {
      report_.end = RecordReport::End::kInterrupted, report_.signal = e.signal;
    } else {
      report_.exit_status = e.exit_status, report_.signal = e.signal;
      report_.end = e.signal || e.exit_status ? RecordReport::End::kFailed : RecordReport::End::kExited;
    }
    return true;
  }

  /// One breakpoint hit: the points at its address (a return point's entry arms its return), or a
  /// return point's return. True when the recording should stop.
  Result<bool> hit(const harness::TraceEvent& e) {
    for (std::size_t i = 0; i < profile_.record_points.size(); ++i) {
      const RecordPointSpec& p = profile_.record_points[i];
      auto armed = returns_.find({e.tid, i});
      if (armed != returns_.end() && armed->second.first == e.regs.ip) {
        const std::int64_t instance = armed->second.second;
        returns_.erase(armed);
        LOCKSTEP_TRY_STATUS(tracer_.thread_breakpoint(e.tid, plan_.return_slot[i], 0));
        LOCKSTEP_TRY(bool stop, record_point(i, e, instance));
        if (stop) return true;
        continue;
      }
      if (p.address != e.regs.ip) continue;
      if (p.where != RecordWhere::kReturn) {
        LOCKSTEP_TRY(bool stop, record_point(i, e));
        if (stop) return true;
        continue;
      }
      // The entry of a return point: the return address at [esp], and the instance from the
      // arguments as they are now (at the return they are gone).
      HitEnvironment env(tracer_, e.regs);
      auto ret = env.load(e.regs.sp, e.regs.is64 ? 8 : 4);
      auto instance = instance_at(p, env);
      if (!ret.ok() || !instance.ok()) {
        ++report_.points[i].hits;
        note_skip(i, !ret.ok() ? fmt::format("return address at 0x{:x} unreadable", e.regs.sp) : instance.error().message);
        continue;
      }
      LOCKSTEP_TRY_STATUS(tracer_.thread_breakpoint(e.tid, plan_.return_slot[i], *ret));
      returns_[{e.tid, i}] = {*ret, *instance};
    }
    return false;
  }

  Result<bool> record_point(std::size_t i, const harness::TraceEvent& e, std::optional<std::int64_t> instance = {}) {
    PointCount& c = report_.points[i];
    auto r = take_record(profile_.record_points[i], tracer_, e.regs, static_cast<std::int64_t>(c.hits++), instance);
    if (!r.ok()) {
      note_skip(i, r.error().message);
      return false;
    }
    if (o_.steps && log_.past(*r, *o_.steps)) {
      report_.end = RecordReport::End::kSteps;
      return true;
    }
    if (o_.snapshot_at && !report_.snapshot_taken && log_.will_keep(*r) && r->step >= *o_.snapshot_at) {
      LOCKSTEP_TRY(harness::Snapshot s, tracer_.snapshot(o_.snapshot_options));
      LOCKSTEP_TRY_STATUS(harness::save_snapshot(s, o_.snapshot));
      report_.snapshot_taken = true;
      report_.snapshot_step = r->step;
    }
    LOCKSTEP_TRY_STATUS(log_.add(std::move(*r)));
    ++c.records;
    return false;
  }

  void note_skip(std::size_t i, std::string why) {
    ++report_.points[i].skipped;
    ++report_.skipped;
    if (report_.skip_reasons.size() < kMaxSkipReasons)
      report_.skip_reasons.push_back(fmt::format("{} at 0x{:08x} (hit {}): {}", profile_.record_points[i].tag,
                                                 profile_.record_points[i].address, report_.points[i].hits,
                                                 std::move(why)));
  }

  const harness::Profile& profile_;
  const RecordOptions& o_;
  const PointPlan& plan_;
  harness::Tracer& tracer_;
  RecordLog& log_;
  RecordReport& report_;
  /// (thread, point) → the return address armed and the instance its entry gave
  std::map<std::pair<int, std::size_t>, std::pair<std::uint64_t, std::int64_t>> returns_;
};

}  // namespace

bool RecordReport::ended_early() const noexcept {
  return end == End::kFailed || (end == End::kExited && steps_asked);
}

const char* record_end_name(RecordReport::End e) noexcept {
  switch (e) {
    case RecordReport::End::kSteps: return "the steps asked for were recorded";
    case RecordReport::End::kTime: return "the time asked for passed";
    case RecordReport::End::kExited: return "the program exited";
    case RecordReport::End::kFailed: return "the program failed";
    case RecordReport::End::kInterrupted: return "interrupted";
  }
  return "?";
}

namespace {

/// The profile with only the points `tags` names (all of them when `tags` is empty).
Result<harness::Profile> chosen_points(const harness::Profile& profile, const std::vector<std::string>& tags) {
  harness::Profile chosen = profile;
  if (tags.empty()) return chosen;
  for (const std::string& t : tags)
    if (std::none_of(profile.record_points.begin(), profile.record_points.end(),
                     [&](const RecordPointSpec& p) { return p.tag == t; }))
      return Error::make(Errc::kUsage, "{} has no [[record]] point with tag {}", profile.source, t);
  std::erase_if(chosen.record_points, [&](const RecordPointSpec& p) {
    return std::find(tags.begin(), tags.end(), p.tag) == tags.end();
  });
  return chosen;
}

Result<RecordReport> record_chosen(const harness::Profile& profile, const RecordOptions& options);

}  // namespace

Result<RecordReport> record(const harness::Profile& profile, const RecordOptions& options) {
  LOCKSTEP_TRY(harness::Profile chosen, chosen_points(profile, options.tags));
  return record_chosen(chosen, options);
}

namespace {

Result<RecordReport> record_chosen(const harness::Profile& profile, const RecordOptions& options) {
  if ((options.pid > 0) == !options.command.empty())
    return Error::make(Errc::kUsage, "give the process: --pid PID or -- PROGRAM ARGS (one of them)");
  if (options.snapshot_at && options.snapshot.empty())
    return Error::make(Errc::kUsage, "--snapshot-at needs --snapshot FILE");
  LOCKSTEP_TRY(PointPlan plan, plan_points(profile));
  if (options.pid > 0) LOCKSTEP_TRY_STATUS(check_points_mapped(options.pid, profile, false));  // before attaching
  LOCKSTEP_TRY(RecordLog log, RecordLog::open(options.log, options.producer, options.pid > 0));
  if (std::any_of(profile.record_points.begin(), profile.record_points.end(),
                  [](const RecordPointSpec& p) { return p.tag == "STEP"; }))
    log.begin_at_first_step_record();

  std::unique_ptr<harness::Tracer> tracer;
  if (options.pid > 0) {
    LOCKSTEP_TRY(tracer, harness::Tracer::attach(options.pid, options.allow_64bit));
  } else {
    LOCKSTEP_TRY(tracer, harness::Tracer::launch(options.command, options.allow_64bit, options.no_aslr));
  }
  if (Status mapped = check_points_mapped(tracer->pid(), profile, options.pid <= 0); !mapped.ok()) {
    if (options.pid <= 0) ::kill(tracer->pid(), SIGKILL);  // a program lockstep started goes with the refusal
    (void)tracer->detach();
    return std::move(mapped).error();
  }
  RecordReport report;
  report.pid = tracer->pid();
  report.steps_asked = options.steps.has_value();
  for (const RecordPointSpec& p : profile.record_points) report.points.push_back({p.tag, p.address, p.where, 0, 0, 0});
  LOCKSTEP_TRY_STATUS(tracer->set_breakpoints(plan.addresses, plan.reserved));
  Session session(profile, options, plan, *tracer, log, report);
  Status ran = session.run();
  Status detached = tracer->detach();  // on every path: the program runs on
  LOCKSTEP_TRY_STATUS(ran);
  LOCKSTEP_TRY_STATUS(detached);
  LOCKSTEP_TRY_STATUS(log.commit());
  report.records = log.records();
  report.dropped = log.dropped();
  report.log_bytes = log.bytes();
  report.first_step = log.first_step();
  report.last_step = log.last_step();
  return report;
}

}  // namespace

}  // namespace lockstep::capture
