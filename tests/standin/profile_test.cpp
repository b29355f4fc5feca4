// POD's profile (harness/profiles/pod.toml) against the stand-in's own constants: the profile loads
// with the harness's loader, and every function and block standin.h names sits where the profile
// says (the linker script is generated from the profile; this catches the header drifting).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#define STANDIN_HOST_CONSTANTS_ONLY 1
extern "C" {
#include "standin.h"
}

#include <toml++/toml.h>

#include "lockstep/profile/profile.hpp"

namespace {

TEST(PodProfile, LoadsWithTheHarnessLoader) {
  auto p = lockstep::harness::load_profile(STANDIN_PROFILE);
  ASSERT_TRUE(p.ok()) << p.error().message;
}

TEST(PodProfile, AgreesWithTheStandinsConstants) {
  auto profile = toml::parse_file(STANDIN_PROFILE);
  std::map<std::uint32_t, std::string> functions;
  for (auto& node : *profile["function"].as_array()) {
    auto& t = *node.as_table();
    functions[static_cast<std::uint32_t>(*t["address"].value<std::int64_t>())] = *t["name"].value<std::string>();
  }
  const std::map<std::string, std::uint32_t> header = {
      {"math::dot16", FN_DOT16}, {"math::cross16", FN_CROSS16}, {"math::scale16_in_place", FN_SCALE16_IN_PLACE},
      {"math::scale16", FN_SCALE16}, {"Tables::length16", FN_LENGTH16}, {"Tables::cos16", FN_COS16},
      {"Tables::sin16", FN_SIN16}, {"body::exp16", FN_EXP16}, {"sound::play", FN_SOUND}, {"rand", FN_RAND},
      {"memmove", FN_MEMMOVE}, {"smoke::emit", FN_SMOKE_EMIT}, {"race::sim_step", FN_SIM_STEP},
      {"controller::human", FN_HUMAN_CONTROLLER}, {"controller::computer", FN_COMPUTER_CONTROLLER},
      {"steplog::step", FN_HOOK_STEP}, {"steplog::ctrl", FN_HOOK_CTRL}, {"steplog::phys", FN_HOOK_PHYS},
      {"steplog::frame", FN_HOOK_FRAME}, {"race::zones", FN_ZONES}, {"race::race_step", FN_RACE_STEP},
      {"race::frame_clock", FN_FRAME_CLOCK}, {"race::countdown", FN_COUNTDOWN}, {"race::pass", FN_RACE_PASS},
      {"timeGetTime", FN_TIME_GET_TIME},
      {"tls_getter", FN_TLS_GETTER}, {"step::step", FN_CAR_STEP}, {"step::catch_up", FN_CATCH_UP},
      {"drive::automatic", FN_AUTOMATIC}, {"drive::gears", FN_GEARS}, {"frames::wheel_axes", FN_WHEEL_AXES},
      {"frames::turn", FN_TURN}, {"drive::engine", FN_ENGINE}, {"drive::torque", FN_TORQUE},
      {"drive::brakes", FN_BRAKES}, {"forces::air", FN_AIR}, {"forces::grip", FN_GRIP},
      {"forces::wheel_drive", FN_WHEEL_DRIVE}, {"suspension::springs", FN_SPRINGS}, {"tyres::tyres", FN_TYRES},
      {"body::integrate", FN_INTEGRATE}, {"suspension::substeps", FN_SUBSTEPS},
      {"suspension::place_points", FN_PLACE_POINTS}, {"collide::track", FN_TRACK},
      {"collide::over_quad", FN_QUAD_TEST}, {"collide::over_triangle", FN_TRI_TEST},
      {"drive::wheel_spin", FN_WHEEL_SPIN}, {"step::skid_smoke", FN_SKID_SMOKE}};
  for (const auto& [name, address] : header) {
    auto it = functions.find(address);
    ASSERT_NE(it, functions.end()) << name << " at 0x" << std::hex << address << " is not in the profile";
    EXPECT_EQ(it->second, name) << "at 0x" << std::hex << address;
  }
  std::map<std::string, std::uint32_t> instances;
  for (auto& node : *profile["instance"].as_array()) {
    auto& t = *node.as_table();
    instances[*t["name"].value<std::string>()] = static_cast<std::uint32_t>(*t["base"].value<std::int64_t>());
  }
  EXPECT_EQ(instances.at("car"), POD_CARS);
  EXPECT_EQ(instances.at("driver"), POD_DRIVERS);
  EXPECT_EQ(instances.at("surface"), POD_SURFACES);
  EXPECT_EQ(instances.at("frame_time"), POD_FRAME);
  EXPECT_EQ(instances.at("catch_up_record"), POD_CATCHUP_RECORDS);
  std::map<std::string, std::uint32_t> labels;
  for (auto& node : *profile["label"].as_array()) {
    auto& t = *node.as_table();
    labels[*t["name"].value<std::string>()] = static_cast<std::uint32_t>(*t["address"].value<std::int64_t>());
  }
  EXPECT_EQ(labels.at("round_constant"), POD_ROUND_M);
  EXPECT_EQ(labels.at("inv65536"), POD_INV65536);
  EXPECT_EQ(labels.at("recip_table_ptr"), POD_RECIP_PTR);
  EXPECT_EQ(labels.at("sqrt_table_ptr"), POD_SQRT_PTR);
  EXPECT_EQ(labels.at("tls_getter_ptr"), POD_TLS_GETTER_PTR);
  EXPECT_EQ(labels.at("time_get_time_ptr"), POD_TIME_GET_TIME_PTR);
  EXPECT_EQ(labels.at("race_clock"), POD_RACE_CLOCK);
  EXPECT_EQ(labels.at("time_trial"), POD_TIME_TRIAL);
  EXPECT_EQ(labels.at("step_unit"), POD_STEP_UNIT);
  EXPECT_EQ(labels.at("pass_frame_time"), POD_PASS_FRAME_TIME);
  EXPECT_EQ(labels.at("clock_last_ms"), POD_CLOCK_LAST);
  EXPECT_EQ(labels.at("scripted_clock"), POD_SCRIPTED_CLOCK);
  EXPECT_EQ(labels.at("chassis_search_counter"), POD_CHASSIS_COUNTER);
  EXPECT_EQ(labels.at("race_block"), POD_RACE_BLOCK);
  EXPECT_EQ(labels.at("sector_count"), POD_SECTOR_COUNT);
  EXPECT_EQ(labels.at("sector_table"), POD_SECTOR_TABLE);
  EXPECT_EQ(labels.at("sines"), POD_SINES);
  EXPECT_EQ(labels.at("tyre_curve"), POD_TYRE_CURVE);
  EXPECT_EQ(labels.at("racer_counts"), POD_HUMAN_COUNT);
  EXPECT_EQ(labels.at("track_heap"), POD_TRACK_HEAP);
}

}  // namespace
