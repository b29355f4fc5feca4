// The per-function list of lockstep's JSON files: a corpus manifest's "functions" and a replay
// report's "functions" are both one object per function, in the order given, each beginning with
// the function's "address" (0x and eight lowercase hex digits) and its "name". Header-only over
// nlohmann::json, which its includers (the corpus, the replay report) link themselves.
#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/cases/cpu.hpp"

namespace lockstep::cases {

/// The JSON text of a function's address in those lists: "0x0042a1f0".
inline std::string function_address_json(GuestAddr function) { return fmt::format("0x{:08x}", function); }

/// The list of `entries` (each with `function` and `name` members): one object per entry, its address
/// and name first, then the fields `add_fields(entry, object)` adds, in the order it adds them.
template <class Entries, class AddFields>
nlohmann::ordered_json function_list_json(const Entries& entries, AddFields&& add_fields) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& e : entries) {
    nlohmann::ordered_json o;
    o["address"] = function_address_json(e.function);
    o["name"] = e.name;
    add_fields(e, o);
    list.push_back(std::move(o));
  }
  return list;
}

}  // namespace lockstep::cases
