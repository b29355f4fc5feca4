// The port alone, whole racer turns (verification level 3): for every CTRL record of a fresh stand-in
// recording, the snapshot with the record's blocks laid over it goes into a pod::FlatMemory — the
// memory a game would give the port — and pod::step::racer_step_from_controls runs the rest of the
// car step (all 32 stages), upside-down, the pose and the wheels' roll; every byte of the matching
// PHYS record must come out. No emulator and no case file are involved: this is the port
// against the stand-in's own recording.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "../standin/port_memory.hpp"
#include "../standin/standin_process.hpp"
#include "lockstep/capture/state_log.hpp"
#include "pod/addresses.hpp"
#include "pod/memory.hpp"
#include "pod/step.hpp"

namespace {

using lockstep::capture::Record;
using lockstep::capture::RecordKind;

TEST(PortWholeSteps, EveryRecordedCarStepOfTheStandInComesOutOfThePort) {
  const auto scratch = std::filesystem::temp_directory_path() / ("lockstep_port_steps_" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  const auto log_path = scratch / "steps.log";
  // Auto: the port follows the step log, which both modes record identically (recording_modes_test).
  auto run = standin_test::run_standin(standin_test::Mode::kAuto, {"--log", log_path.string(), "--steps", "120"}, 20,
                                       scratch);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->exit_status, 0) << run->err;
  ASSERT_TRUE(run->snapshot.has_value());
  auto log = lockstep::capture::read_state_log(log_path);
  ASSERT_TRUE(log.ok()) << log.error().message;

  std::map<std::pair<std::uint32_t, std::int32_t>, const Record*> phys;
  for (const auto& r : log->records)
    if (r.kind == RecordKind::kPhys) phys[{r.step, r.instance}] = &r;

  std::size_t steps = 0, matched = 0, changed = 0;
  std::string first_mismatch;
  for (const auto& ctrl : log->records) {
    if (ctrl.kind != RecordKind::kCtrl) continue;
    ++steps;
    auto it = phys.find({ctrl.step, ctrl.instance});
    ASSERT_NE(it, phys.end()) << "no PHYS record for step " << ctrl.step << " racer " << ctrl.instance;
    // The game's memory (port_memory.hpp), fresh for every racer turn: the snapshot's regions and the
    // port's scratch pages, then the CTRL record's blocks.
    pod::FlatMemory m;
    standin_test::map_port_memory(m, *run->snapshot);
    for (const auto& b : ctrl.blocks) m.write_bytes(b.address, b.bytes.data(), b.bytes.size());
    const auto racer = static_cast<std::uint32_t>(ctrl.instance);
    pod::step::Scratch s = standin_test::port_scratch();
    pod::step::racer_step_from_controls(m, pod::addr::kRaceCars + racer * 0x558,
                                        pod::addr::kDrivers + racer * pod::addr::kDriverSize, s);
    bool same = true;
    for (const auto& b : it->second->blocks) {
      std::vector<std::uint8_t> got(b.bytes.size());
      m.read_bytes(b.address, got.data(), got.size());
      for (std::size_t i = 0; i < got.size() && same; ++i)
        if (got[i] != b.bytes[i]) {
          same = false;
          if (first_mismatch.empty())
            first_mismatch = "step " + std::to_string(ctrl.step) + " racer " + std::to_string(ctrl.instance) +
                             ": first differing byte at " + std::to_string(b.address + i);
        }
    }
    matched += same ? 1 : 0;
    // Not vacuous: the step must have changed something the PHYS record holds.
    for (const auto& b : it->second->blocks) {
      const auto* before = ctrl.find(b.address, static_cast<std::uint32_t>(b.bytes.size()));
      if (before && before->address == b.address && before->bytes != b.bytes) {
        ++changed;
        break;
      }
    }
  }
  RecordProperty("steps", static_cast<int>(steps));
  RecordProperty("matched", static_cast<int>(matched));
  std::printf("port whole steps: %zu of %zu racer turns equal their PHYS record\n", matched, steps);
  EXPECT_EQ(steps, 8u * 120u);
  EXPECT_EQ(matched, steps) << first_mismatch;
  EXPECT_EQ(changed, steps) << "every car step changes its car (CTRL and PHYS differ)";
  std::filesystem::remove_all(scratch);
}

}  // namespace
