// standin_ldgen: writes the stand-in's linker script from POD's profile, so the profile and the binary
// cannot disagree about where a function or a data block lies ("one source").
//
//   standin_ldgen PROFILE.toml LD_VERBOSE.txt OUT.ld
//
// LD_VERBOSE.txt is the output of `gcc -m32 -static -Wl,--verbose` (the default script sits between
// two lines of '='). The output is that script with the stand-in's output sections spliced in front:
// each region below is one output section at its fixed address; inside it every [[function]] (input
// section .pod.fn.XXXXXXXX) and every [[label]] / [[instance]] (.pod.d.NAME initialised,
// .bss.pod.NAME zero) is placed with `. = address - region`. Two items that overlap make ld refuse to
// move the location counter backwards; a .pod.* section the profile does not place lands in
// .pod.unplaced, which an ASSERT requires to be empty. The stand-in's own code marked STANDIN_CODE
// (input section .pod.code) follows the last function of POD's code range, so that adding it leaves
// the C runtime's sections, and the addresses the race stores in the cars (the torque curve's), where
// they were.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace {

enum class Kind { kCode, kData, kNoBits };

// The stand-in's address space below the C runtime (which the default script puts at 0x08048000).
// Chosen in port/CHOICES.md ("Addresses and layout"): POD's code range, its data range, then zero
// pages for the large blocks, the step-log hooks' page (000's code cave at 0x74c240), the TLS getter's
// page and the track's heap.
struct Region {
  const char* section;
  std::uint32_t begin, end;
  Kind kind;
};
constexpr Region kRegions[] = {
    {".pod.text", 0x401000, 0x4e9000, Kind::kCode},
    {".pod.data", 0x4e9000, 0x4fa000, Kind::kData},
    {".pod.bss1", 0x4fa000, 0x74c000, Kind::kNoBits},
    {".pod.hooks", 0x74c000, 0x74d000, Kind::kCode},
    {".pod.bss2", 0x74d000, 0x7f0000, Kind::kNoBits},
    {".pod.sys", 0x7f0000, 0x7f1000, Kind::kCode},
    {".pod.bss3", 0x7f1000, 0x900000, Kind::kNoBits},
};
constexpr std::uint32_t kUnplacedAddress = 0x900000;
// Where .pod.code lands: after every function placed in POD's code range.
constexpr const char* kOwnCodeRegion = ".pod.text";

struct Item {
  std::uint32_t address = 0;
  std::uint64_t size = 0;  // 0 for functions (their size is whatever the code is)
  std::string what;        // for messages and comments
  std::string input;       // the input-section pattern (functions); the data name (labels, instances)
  bool function = false;
};

int fail(const std::string& message) {
  std::cerr << "standin_ldgen: " << message << "\n";
  return 2;
}

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

const Region* region_of(std::uint32_t address) {
  for (const Region& r : kRegions)
    if (address >= r.begin && address < r.end) return &r;
  return nullptr;
}

template <typename T>
bool get(const toml::table& t, const char* key, T& out) {
  auto v = t[key].value<T>();
  if (!v) return false;
  out = *v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return fail("usage: standin_ldgen PROFILE.toml LD_VERBOSE.txt OUT.ld");

  toml::table profile;
  try {
    profile = toml::parse_file(argv[1]);
  } catch (const toml::parse_error& e) {
    std::ostringstream m;
    m << argv[1] << ": " << e.description() << " at line " << e.source().begin.line;
    return fail(m.str());
  }

  std::vector<Item> items;
  if (auto* fns = profile["function"].as_array()) {
    for (auto& node : *fns) {
      auto* t = node.as_table();
      std::int64_t address = 0;
      std::string name;
      if (!t || !get(*t, "address", address) || !get(*t, "name", name))
        return fail(std::string(argv[1]) + ": a [[function]] without address or name");
      char sec[32];
      std::snprintf(sec, sizeof sec, ".pod.fn.%08llx", static_cast<unsigned long long>(address));
      items.push_back({static_cast<std::uint32_t>(address), 0, "function " + name,
                       std::string("KEEP(*(") + sec + "))", true});
    }
  }
  // Struct sizes, for instances.
  std::vector<std::pair<std::string, std::int64_t>> struct_sizes;
  if (auto* structs = profile["struct"].as_array()) {
    for (auto& node : *structs) {
      auto* t = node.as_table();
      std::string name;
      std::int64_t size = 0;
      if (t && get(*t, "name", name) && get(*t, "size", size)) struct_sizes.emplace_back(name, size);
    }
  }
  auto data_item = [&](const std::string& name, std::int64_t address, std::int64_t size, const char* kind) {
    return Item{static_cast<std::uint32_t>(address), static_cast<std::uint64_t>(size),
                std::string(kind) + " " + name, name, false};
  };
  if (auto* labels = profile["label"].as_array()) {
    for (auto& node : *labels) {
      auto* t = node.as_table();
      std::string name;
      std::int64_t address = 0, size = 0;
      if (!t || !get(*t, "name", name) || !get(*t, "address", address) || !get(*t, "size", size))
        return fail(std::string(argv[1]) + ": a [[label]] without name, address or size");
      items.push_back(data_item(name, address, size, "label"));
    }
  }
  if (auto* instances = profile["instance"].as_array()) {
    for (auto& node : *instances) {
      auto* t = node.as_table();
      std::string name, st;
      std::int64_t base = 0, count = 0;
      if (!t || !get(*t, "name", name) || !get(*t, "struct", st) || !get(*t, "base", base) ||
          !get(*t, "count", count))
        return fail(std::string(argv[1]) + ": an [[instance]] without name, struct, base or count");
      auto it = std::find_if(struct_sizes.begin(), struct_sizes.end(), [&](auto& p) { return p.first == st; });
      if (it == struct_sizes.end()) return fail("instance " + name + ": no [[struct]] " + st);
      items.push_back(data_item(name, base, it->second * count, "instance"));
    }
  }

  // Every item must lie inside one region of the right kind.
  for (const Item& item : items) {
    const Region* r = region_of(item.address);
    if (!r) return fail(item.what + " at " + hex(item.address) + " lies outside the stand-in's regions");
    if (item.function != (r->kind == Kind::kCode))
      return fail(item.what + " at " + hex(item.address) + " lies in " + r->section + ", a " +
                  (r->kind == Kind::kCode ? "code" : "data") + " region");
    if (item.address + item.size > r->end)
      return fail(item.what + " at " + hex(item.address) + " (" + hex(item.size) + " bytes) runs past " +
                  r->section + "'s end " + hex(r->end));
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.address < b.address; });

  std::ostringstream pod;
  pod << "\n  /* ---- the stand-in at POD's addresses, generated by standin_ldgen from " << argv[1] << " ---- */\n";
  for (const Region& r : kRegions) {
    // SUBALIGN: the address is the profile's, whatever alignment the compiler gave a section (gcc
    // aligns a large array to 32; cross16 starts at an odd address).
    pod << "  " << r.section << " " << hex(r.begin) << (r.kind == Kind::kNoBits ? " (NOLOAD)" : "") << " : SUBALIGN("
        << (r.kind == Kind::kCode ? 1 : 4) << ")\n  {\n";
    for (const Item& item : items) {
      if (item.address < r.begin || item.address >= r.end) continue;
      // In a NOLOAD region an initialised input section would lose its bytes: accept only .bss.pod.
      std::string input = item.input;
      // A label may also name a plain C variable: the stand-in is compiled with -fdata-sections, so
      // `vec3 NAME[n];` sits in .bss.NAME (.data.NAME when initialised) and is placed here by name.
      if (!item.function)
        input = r.kind == Kind::kNoBits
                    ? "KEEP(*(.bss.pod." + item.input + ")) KEEP(*(.bss." + item.input + "))"
                    : "KEEP(*(.pod.d." + item.input + ")) KEEP(*(.bss.pod." + item.input + ")) KEEP(*(.data." +
                          item.input + ")) KEEP(*(.bss." + item.input + "))";
      pod << "    . = " << hex(item.address - r.begin) << "; /* " << hex(item.address) << " " << item.what
          << " */\n    " << input << "\n";
    }
    // The stand-in's own code that must not move the C runtime's sections (.pod.code: STANDIN_CODE in
    // standin.h) goes after the last function of POD's code range.
    if (std::string(r.section) == kOwnCodeRegion) pod << "    . = ALIGN(16);\n    KEEP(*(.pod.code))\n";
    pod << "    . = " << hex(r.end - r.begin) << ";\n  }" << (r.kind == Kind::kCode ? " =0xcccccccc" : "") << "\n";
  }
  pod << "  .pod.unplaced " << hex(kUnplacedAddress) << " : { *(.pod.*) *(.bss.pod.*) }\n";
  pod << "  ASSERT(SIZEOF(.pod.unplaced) == 0, \"a .pod.* section has no [[function]], [[label]] or "
         "[[instance]] in the profile\")\n";
  pod << "  /* ---- end of the stand-in's sections ---- */\n";

  std::ifstream verbose(argv[2]);
  if (!verbose) return fail(std::string("cannot read ") + argv[2]);
  std::string line, script;
  int bars = 0;
  while (std::getline(verbose, line)) {
    if (line.rfind("=====", 0) == 0) {
      ++bars;
      continue;
    }
    if (bars == 1) script += line + "\n";
  }
  if (bars < 2 || script.empty()) return fail(std::string(argv[2]) + ": no default linker script between '=' lines");
  const std::string anchor = "SECTIONS\n{";
  auto at = script.find(anchor);
  if (at == std::string::npos) return fail(std::string(argv[2]) + ": no 'SECTIONS {' in the default script");
  script.insert(at + anchor.size(), pod.str());

  std::ofstream out(argv[3], std::ios::trunc);
  out << "/* Generated by standin_ldgen: do not edit (edit harness/profiles/pod.toml). */\n" << script;
  if (!out) return fail(std::string("cannot write ") + argv[3]);
  return 0;
}
