// Reads breakpad's minidump_dump output (tests/readers/data/breakpad/minidump2.dump.out) into blocks of
// "key = value" fields, so tests compare lockstep's reader with the values breakpad printed rather
// than with numbers copied by hand.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace lockstep::testing {

/// One block of the dump: a non-indented title line ("MDRawThread", "thread[0]", "Memory") followed by
/// indented "key = value" lines; a hex line ("0x0011...") after "Stack"/"Memory" is stored as "hex".
struct DumpBlock {
  std::string title;
  std::map<std::string, std::string> fields;

  bool has(const std::string& k) const { return fields.count(k) != 0; }
  /// The number at the start of a field ("0x45d35f73 2007-02-14 ..." → 0x45d35f73; "100" → 100).
  std::uint64_t num(const std::string& k) const {
    const std::string& v = fields.at(k);
    return std::stoull(v.substr(0, v.find(' ')), nullptr, 0);
  }
  /// A quoted string field without its quotes.
  std::string str(const std::string& k) const {
    std::string v = fields.at(k);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
  }
  /// A hex-dump field ("0x00ff..." → bytes).
  std::vector<std::uint8_t> bytes(const std::string& k) const {
    std::string v = fields.at(k);
    if (v.rfind("0x", 0) == 0) v = v.substr(2);
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < v.size(); i += 2) out.push_back(static_cast<std::uint8_t>(std::stoul(v.substr(i, 2), nullptr, 16)));
    return out;
  }
};

inline std::vector<DumpBlock> parse_dump_out(const std::string& path) {
  std::ifstream in(path);
  std::vector<DumpBlock> blocks;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      if (line.rfind("0x", 0) == 0 && !blocks.empty()) {
        blocks.back().fields["hex"] = line;
        continue;
      }
      blocks.push_back(DumpBlock{line, {}});
      continue;
    }
    if (blocks.empty()) continue;
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq);
    key.erase(0, key.find_first_not_of(' '));
    key.erase(key.find_last_not_of(' ') + 1);
    blocks.back().fields[key] = line.substr(eq + 3);
  }
  return blocks;
}

}  // namespace lockstep::testing
