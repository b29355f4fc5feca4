// Reading a JSON replay report back (replay_json.cpp), for merging shards and for the baseline:
// private to the replay's reports.
#pragma once

#include <string>

#include "lockstep/base/result.hpp"
#include "lockstep/replay/replay.hpp"

namespace lockstep::harness::detail {

/// A JSON replay report read strictly: its format and version, the corpus it names, every function.
Result<ReplayResult> read_report(const std::string& text, const std::string& name);

}  // namespace lockstep::harness::detail
