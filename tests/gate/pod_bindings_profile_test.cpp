// POD's addresses and names typed once: every binding of pod::bindings::all() runs the function
// harness/profiles/pod.toml lists at its address, under the same name, and every function of the
// profile has a binding but the ones below, left unbound on purpose.
#include <gtest/gtest.h>

#include "lockstep/testing/bindings_check.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

TEST(PodBindings, MatchTheProfile) {
  lockstep::testing::expect_bindings_match_profile(
      pod::bindings::all(), POD_PROFILE,
      {
          {"race::sim_step", "the whole simulation step: the recording's driver runs it; its cases are the racers' "
                       "racer_step cases, which are bound"},
          {"race::race_step", "runs the simulation steps, whose racers' controllers are the stand-in's scripted ones "
                              "(not POD's, not ported); the whole-race follow checks it with their outputs laid "
                              "from the CTRL records (tests/pipeline/port_race_test)"},
          {"race::pass", "runs race_step (as race::race_step); checked by the whole-race follow"},
          {"timeGetTime", "the stand-in's scripted millisecond clock, the system's part: the port's frame_clock "
                          "takes the milliseconds as an argument (its binding plays the clock from the case)"},
          {"steplog::frame", "the stand-in's step-log hook (the FRAME record): the recorder's, not the game's"},
          {"sound::play", "makes a system call: stubbed under the emulator, and the port reports its sound "
                          "slots instead of playing them"},
          {"memmove", "Watcom's C library: the port copies with its own code, and the capture sees the "
                      "bytes it moves as its callers' effects"},
          {"controller::human", "the stand-in's scripted controller: the car step's driver stubs it (the CTRL "
                                "record holds what it wrote); not part of the physics the port covers"},
          {"controller::computer", "the stand-in's scripted controller for computer cars: stubbed like "
                                   "controller::human"},
          {"steplog::step", "the stand-in's step-log hook (the STEP record): the recorder's, not the game's"},
          {"steplog::ctrl", "the stand-in's step-log hook (the CTRL record): the recorder's, not the game's"},
          {"steplog::phys", "the stand-in's step-log hook (the PHYS record): the recorder's, not the game's"},
          {"tls_getter", "the thread's C library block: a harness stub under the emulator; the bindings "
                         "find the block from the case (thread_block)"},
      });
}

}  // namespace
