// The port alone follows the stand-in's whole race, pass by pass: the stand-in runs paused at the start
// of pass 0 (--pause-at-pass 0, a snapshot of the whole process) with its state log; the snapshot goes
// into a pod::FlatMemory — the memory a game gives the port — and pod::Race runs every pass from it
// with the milliseconds the stand-in's clock gave (recovered from the FRAME records' frame-clock word,
// 0x60be10: each pass's value less the one before). Every block of every FRAME record must equal the
// port's bytes at the end of the same pass; the first difference is reported by pass, address and
// field (the profile's names). No emulator and no case file: the port against the stand-in's own run.
// The millisecond clock is the system's, not the game's: the stand-in's (a scripted timeGetTime) keeps
// its state in memory, which each pass lays as the FRAME record shows it.
//
// The controllers: the stand-in's are scripted (not POD's, and not ported), so each racer's
// controller here lays what the stand-in's wrote in that step — the bytes of the racer's driver block
// and of its car's +0x4ec (the controller's word, port/CHOICES.md) that differ between the step's
// STEP record and the racer's CTRL record. Everything else the port computes: the catch-up, the car
// steps, upside-down, the poses, the collision pass (cars and props), the damage, the race's paths
// (the trackers, the put-back mark, the lane targets), the clocks, the countdown. That the laid bytes
// never hold the paths' words is checked: the trackers are the port's own.
//
// Three races are followed: the stand-in's race (2,000 passes), its damage race (--race damage-veto:
// damage mode 2, the veto word [0x633314] held by the human's controller for two windows of steps, so
// it is laid with that controller's output) and its time trial (--race time-trial: no steps while the
// countdown runs, F154), each a recording of its own and small.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../standin/controller_output.hpp"
#include "../standin/port_memory.hpp"
#include "../standin/standin_process.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "pod/addresses.hpp"
#include "pod/game.hpp"
#include "pod/memory.hpp"

namespace {

using lockstep::capture::Record;
using lockstep::capture::RecordKind;

constexpr int kRacers = 8;
constexpr std::uint32_t kControllerWord = 0x4ec;  // car +0x4ec: written by the controller (000)
/// The stand-in's scripted millisecond clock (its timeGetTime; profile label scripted_clock).
constexpr pod::GuestAddr kScriptedClock = 0x7f1000;
constexpr std::uint32_t kScriptedClockSize = 8;
/// The damage veto (000: damage only while it is 0; its writer is not described).
constexpr std::uint32_t kDamageVeto = 0x633314;
/// The small races' length: past the countdown, the grid's contacts and the pile-up near step 300.
constexpr std::size_t kSmallRacePasses = 380;

using Output = standin_test::ControllerOutput;


/// What following one race found.
struct Followed {
  std::size_t passes = 0, matched = 0, steps = 0, contacts = 0, put_backs = 0, tracker_moves = 0;
  std::size_t countdown_passes = 0, countdown_steps = 0;  ///< passes (and their steps) before "GO!"
  int props_at_start = 0, props_at_end = 0;
  std::string missing, first_difference, laid_paths_word;
};

/// The port follows the race the stand-in runs with `race_args`, pass by pass (above).
void follow(const std::string& name, const std::vector<std::string>& race_args, Followed& f) {
  const auto scratch =
      std::filesystem::temp_directory_path() / ("lockstep_port_race_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  const auto log_path = scratch / "race.log";
  // Auto: the port follows the state log, which both modes record identically.
  std::vector<std::string> args = {"--log", log_path.string()};
  args.insert(args.end(), race_args.begin(), race_args.end());
  auto run = standin_test::run_standin(standin_test::Mode::kAuto, args, 0, scratch, "--pause-at-pass");
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->exit_status, 0) << run->err;
  ASSERT_TRUE(run->snapshot.has_value());
  auto profile = lockstep::harness::load_profile(LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  const lockstep::harness::Labeler names(*profile);

  // The game's memory (port_memory.hpp): every region of the snapshot and the port's scratch pages (the
  // smoke rand() draws is no FRAME block, F169).
  ASSERT_FALSE(standin_test::scratch_pages_taken(*run->snapshot)) << "the scratch pages are in the stand-in's image";
  pod::FlatMemory m;
  standin_test::map_port_memory(m, *run->snapshot);
  pod::Race race(m, standin_test::port_scratch());
  const int props_at_start = race.props();
  f.props_at_start = props_at_start;
  std::vector<pod::PropState> props_before;
  for (int i = 0; i < props_at_start; ++i) props_before.push_back(race.prop(i));

  // The controllers' outputs of the pass being read, by (step, racer).
  std::map<std::pair<std::int32_t, int>, Output> outputs;
  std::string& missing = f.missing;
  for (int r = 0; r < kRacers; ++r)
    race.set_controller(r, [&, r](pod::Memory& mem, pod::GuestAddr, pod::GuestAddr) {
      const std::int32_t step = mem.i32(pod::addr::kFrameTime + 0xc);
      const auto it = outputs.find({step, r});
      if (it == outputs.end()) {
        if (missing.empty())
          missing = "the port ran racer " + std::to_string(r) + "'s turn in step " + std::to_string(step) +
                    ", which the stand-in's log does not hold";
        return;
      }
      for (const auto& [a, v] : it->second) mem.put_u8(a, v);
    });

  auto reader = lockstep::capture::StateLogReader::open(log_path);
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  std::optional<Record> step_record;
  std::uint32_t last_clock = m.u32(pod::addr::kLastClock);
  std::size_t &passes = f.passes, &matched = f.matched, &steps = f.steps, &contacts = f.contacts,
              &put_backs = f.put_backs, &tracker_moves = f.tracker_moves;
  std::string& laid_paths_word = f.laid_paths_word;
  // Each driver's tracker (+0x2c link, +0x30 point) as the port left it at the last pass's end.
  const auto trackers = [&] {
    std::vector<std::pair<std::uint32_t, std::int32_t>> t;
    for (int r = 0; r < kRacers; ++r) {
      const pod::Driver d(m, pod::addr::kDrivers + static_cast<std::uint32_t>(r) * pod::addr::kDriverSize);
      t.emplace_back(d.get(pod::Driver::tracker_link), d.get(pod::Driver::tracker_point));
    }
    return t;
  };
  auto trackers_before = trackers();
  std::string& first_difference = f.first_difference;
  std::int32_t clock_at_end = 0;
  while (first_difference.empty() && missing.empty()) {
    auto next = reader->next();
    ASSERT_TRUE(next.ok()) << next.error().message;
    if (!next->has_value()) break;
    Record& rec = **next;
    if (rec.kind == RecordKind::kStep) {
      step_record = std::move(rec);
      continue;
    }
    if (rec.kind == RecordKind::kCtrl) {
      ASSERT_TRUE(step_record && step_record->step == rec.step) << "a CTRL record without its step's STEP record";
      const auto racer = static_cast<std::uint32_t>(rec.instance);
      Output& out = outputs[{static_cast<std::int32_t>(rec.step), rec.instance}];
      standin_test::add_changed_bytes(*step_record, rec, pod::addr::kDrivers + racer * pod::addr::kDriverSize,
                                      pod::addr::kDriverSize, out);
      standin_test::add_changed_bytes(*step_record, rec,
                                      pod::addr::kRaceCars + racer * pod::addr::kRaceCarSize + kControllerWord, 4, out);
      // the damage veto, which the damage race's human controller holds (the other races leave it 0)
      standin_test::add_changed_bytes(*step_record, rec, kDamageVeto, 4, out);
      for (const auto& [a, v] : out) {
        const std::uint32_t offset = (a - pod::addr::kDrivers) % pod::addr::kDriverSize;
        const bool paths_word = a >= pod::addr::kDrivers && a < pod::addr::kDrivers + kRacers * pod::addr::kDriverSize &&
                                ((offset >= 0x2c && offset < 0x34) || (offset >= 0x58 && offset < 0x60));
        if (paths_word && laid_paths_word.empty()) {
          std::ostringstream o;
          o << "the stand-in's controller of racer " << rec.instance << " in step " << rec.step << " wrote driver +0x"
            << std::hex << offset << " (a tracker, the put-back mark or the line point: the paths pass's, not a controller's)";
          laid_paths_word = o.str();
        }
      }
      continue;
    }
    if (rec.kind != RecordKind::kFrame) continue;
    // One pass: the milliseconds since the last pass, as the stand-in's clock gave them.
    const auto clock = rec.bytes_at(pod::addr::kLastClock, 4);
    ASSERT_TRUE(clock.ok()) << "FRAME record " << rec.pass << " holds no frame-clock word (0x60be10)";
    const std::uint32_t now = (*clock)[0] | (*clock)[1] << 8 | (*clock)[2] << 16 | std::uint32_t{(*clock)[3]} << 24;
    // The clock itself is the system's (the stand-in's scripted timeGetTime keeps its state at 0x7f1000):
    // the port takes its value as an argument, and its state is laid as the stand-in's clock left it.
    if (const auto* state = rec.find(kScriptedClock, kScriptedClockSize))
      m.write_bytes(state->address, state->bytes.data(), state->bytes.size());
    const bool counting_down = race.phase() != pod::Phase::kRacing;
    const pod::race::PassOut out = race.pass(now - last_clock);
    if (counting_down) {
      ++f.countdown_passes;
      f.countdown_steps += out.steps.size();
    }
    last_clock = now;
    ++passes;
    steps += out.steps.size();
    for (const auto& sim : out.steps) {
      contacts += sim.contacts.size();
      for (const auto& turn : sim.turns) put_backs += turn.put_back ? 1 : 0;
    }
    const auto now_trackers = trackers();
    for (std::size_t r = 0; r < now_trackers.size(); ++r) tracker_moves += now_trackers[r] != trackers_before[r] ? 1 : 0;
    trackers_before = now_trackers;
    outputs.clear();
    for (const auto& b : rec.blocks) {
      std::vector<std::uint8_t> got(b.bytes.size());
      if (!m.mapped(b.address, static_cast<std::uint32_t>(got.size()))) {
        first_difference = "FRAME block at " + names.name(b.address) + " is not in the snapshot";
        break;
      }
      m.read_bytes(b.address, got.data(), got.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != b.bytes[i]) {
          const auto a = static_cast<pod::GuestAddr>(b.address + i);
          std::ostringstream o;
          o << "pass " << rec.pass << " (after " << rec.step << " steps): first difference at 0x" << std::hex << a
            << " " << names.field(a).text() << " (byte " << names.name(a) << "): port 0x" << int(got[i])
            << ", stand-in 0x" << int(b.bytes[i]);
          first_difference = o.str();
          break;
        }
      if (!first_difference.empty()) break;
    }
    if (first_difference.empty()) ++matched;
    EXPECT_EQ(static_cast<std::uint32_t>(race.steps()), rec.step) << "pass " << rec.pass;
    clock_at_end = race.race_clock();
  }
  // The props: how many are left, and how many of those stand elsewhere than at the start (a removal
  // closes the list up, so a prop is matched by its record's place only when none was removed).
  const int props_at_end = race.props();
  f.props_at_end = props_at_end;
  int props_moved = 0;
  for (int i = 0; i < props_at_end && props_at_end == props_at_start; ++i)
    if (race.prop(i).position != props_before[static_cast<std::size_t>(i)].position) ++props_moved;
  std::printf("port race (%s): props %d at the start, %d at the end%s\n", name.c_str(), props_at_start, props_at_end,
              props_at_end == props_at_start ? (", " + std::to_string(props_moved) + " moved").c_str() : "");
  std::printf("port race (%s): %zu of %zu passes equal their FRAME record (%zu simulation steps, %zu car contacts, "
              "%zu put-backs, %zu tracker changes seen at a pass's end, race clock %d)\n",
              name.c_str(), matched, passes, steps, contacts, put_backs, tracker_moves, clock_at_end);
  EXPECT_EQ(race.racers(), kRacers);
  EXPECT_EQ(race.phase(), pod::Phase::kRacing);
  std::filesystem::remove_all(scratch);
}

/// What every followed race must show: every pass equal, the controllers' outputs found, no paths word
/// laid, and the paths pass moving the trackers.
void expect_followed(const Followed& f, std::size_t passes) {
  EXPECT_TRUE(f.missing.empty()) << f.missing;
  EXPECT_TRUE(f.first_difference.empty()) << f.first_difference;
  EXPECT_GE(f.passes, passes);
  EXPECT_EQ(f.matched, f.passes);
  EXPECT_TRUE(f.laid_paths_word.empty()) << f.laid_paths_word;
  EXPECT_GT(f.tracker_moves, f.passes / 10) << "the port's paths pass moves the trackers along";
}

TEST(PortRace, TheWholeRaceFollowedByThePortAlone) {
  Followed f;
  follow("standard", {}, f);
  RecordProperty("passes", static_cast<int>(f.passes));
  RecordProperty("matched", static_cast<int>(f.matched));
  expect_followed(f, 2000);
  EXPECT_GT(f.steps, f.passes) << "some passes split a long frame into several steps (F154)";
  EXPECT_GT(f.contacts, 0u) << "the cars meet";
  if (f.props_at_start > 0) {
    EXPECT_LT(f.props_at_end, f.props_at_start) << "the stand-in's race removes a prop (F121)";
  }
}

// The damage race: damage mode 2 (the contact's parts, A31) with the veto held for two windows.
TEST(PortRace, TheDamageRaceWithItsVetoFollowedByThePortAlone) {
  Followed f;
  follow("damage-veto", {"--race", "damage-veto", "--passes", std::to_string(kSmallRacePasses)}, f);
  expect_followed(f, kSmallRacePasses);
  EXPECT_GT(f.contacts, 0u) << "the cars meet";
}

// The time trial: the countdown runs no simulation step (F154), then the race as before.
TEST(PortRace, TheTimeTrialFollowedByThePortAlone) {
  Followed f;
  follow("time-trial", {"--race", "time-trial", "--passes", std::to_string(kSmallRacePasses)}, f);
  expect_followed(f, kSmallRacePasses);
  EXPECT_GT(f.countdown_passes, 0u);
  EXPECT_EQ(f.countdown_steps, 0u) << "a time trial runs no step while the countdown runs";
  EXPECT_GT(f.steps, 0u);
}

}  // namespace
