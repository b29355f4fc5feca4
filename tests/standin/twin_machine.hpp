// What every twin test shares (the stand-in's functions called one by one under lockstep's machine):
// the stand-in's snapshot at its pause at step 2 (the emulated recording: the same on every machine),
// one machine on it for the whole test program, reset before each test, and the calls and the word
// reads and writes the tests make on it.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"
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

  /// Calls a stand-in function; its eax, or nothing when the call did not return (a test failure).
  static std::optional<std::uint32_t> call(lockstep::harness::GuestAddr fn, std::vector<lockstep::harness::Arg> args,
                                           lockstep::harness::ReturnKind returns = lockstep::harness::ReturnKind::kNone) {
    lockstep::harness::CallSpec spec;
    spec.function = fn;
    spec.args = std::move(args);
    spec.returns = returns;
    auto out = machine->call(spec);
    EXPECT_TRUE(out.ok() && out->returned())
        << (out.ok() ? lockstep::harness::format_fault(*out->fault) : out.error().message);
    if (!out.ok() || !out->returned()) return std::nullopt;
    return out->value.eax;
  }
  static std::int32_t get(lockstep::harness::GuestAddr a) {
    auto b = machine->read(a, 4);
    EXPECT_TRUE(b.ok());
    std::int32_t v = 0;
    if (b.ok()) std::memcpy(&v, b->data(), 4);
    return v;
  }
  static std::uint8_t get8(lockstep::harness::GuestAddr a) {
    auto b = machine->read(a, 1);
    EXPECT_TRUE(b.ok());
    return b.ok() ? (*b)[0] : 0;
  }
  static void put(lockstep::harness::GuestAddr a, std::int32_t v) {
    std::uint8_t b[4];
    std::memcpy(b, &v, 4);
    ASSERT_TRUE(machine->write(a, b).ok());
  }
  static void put8(lockstep::harness::GuestAddr a, std::uint8_t v) {
    ASSERT_TRUE(machine->write(a, std::span<const std::uint8_t>(&v, 1)).ok());
  }
};

}  // namespace standin_test
