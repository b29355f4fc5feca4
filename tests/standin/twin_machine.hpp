// What every twin test shares (the stand-in's functions called one by one under lockstep's machine):
// the stand-in's snapshot at its pause at step 2 (the emulated recording: the same on every machine)
// and one machine on it for the whole test program, reset before each test.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "lockstep/harness/machine.hpp"
#include "lockstep/harness/profile.hpp"
#include "lockstep/harness/snapshot.hpp"
#include "standin_process.hpp"

namespace standin_test {

struct TwinMachine : ::testing::Test {
  static inline std::optional<lockstep::harness::Snapshot> snapshot;  // the machine maps it: it outlives the machine
  static inline std::unique_ptr<lockstep::harness::Machine> machine;
  static inline std::string setup_error;

  static void SetUpTestSuite() {
    using namespace lockstep::harness;
    auto scratch = std::filesystem::temp_directory_path() / ("twin_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(scratch);
    auto run = run_standin(Mode::kEmulated, {"--steps", "3"}, 2, scratch);
    std::filesystem::remove_all(scratch);
    if (!run.ok() || !run->snapshot) {
      setup_error = run.ok() ? "no snapshot at the pause" : run.error().message;
      return;
    }
    auto profile = load_profile(STANDIN_PROFILE);
    if (!profile.ok()) {
      setup_error = profile.error().message;
      return;
    }
    snapshot = std::move(*run->snapshot);
    auto m = Machine::create(*snapshot, config_from_profile(*profile));
    if (!m.ok()) {
      setup_error = m.error().message;
      return;
    }
    machine = std::move(*m);
  }
  static void TearDownTestSuite() {
    machine.reset();
    snapshot.reset();
  }
  void SetUp() override {
    ASSERT_TRUE(machine) << setup_error;
    machine->reset();
  }
};

}  // namespace standin_test
