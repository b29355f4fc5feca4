// Naming for the mismatch report: fields by the profile's labels, listings of the corpus's code,
// the writer of a byte with its data slice, arguments by the profile's signatures.
#include "lockstep/replay/replay.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <span>

#include <fmt/format.h>

#include "lockstep/disasm/data_slice.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/profile/labels.hpp"

namespace lockstep::harness {

Namer corpus_namer(const cases::Corpus& corpus, const Labeler* labels, std::size_t max_instructions) {
  Namer n;
  if (labels)
    n.field = [labels](std::uint32_t a) -> std::optional<FieldName> {
      const FieldRef f = labels->field(a);
      return FieldName{f.start, f.size, f.text()};
    };
  auto dis = std::make_shared<Disassembler>();
  // The listing of function fn from the code bytes its case file carries (empty when it has none).
  auto listing = [&corpus, dis, max_instructions](std::uint32_t fn) -> std::vector<Instruction> {
    for (const auto& f : corpus.files) {
      if (f.function != fn || f.code.empty()) continue;
      // The entry's code and its private helpers' (version 3), the calls into which are followed.
      auto range_at = [&f](std::uint32_t addr) -> std::pair<std::uint32_t, std::span<const std::uint8_t>> {
        if (addr >= f.code_base && addr - f.code_base < f.code.size()) return {f.code_base, f.code};
        for (const auto& r : f.helper_code)
          if (addr >= r.base && addr - r.base < r.bytes.size()) return {r.base, r.bytes};
        return {0, {}};
      };
      ReadMemory read = [range_at](std::uint32_t addr, std::uint32_t size) {
        std::vector<std::uint8_t> out;
        const auto [base, bytes] = range_at(addr);
        if (bytes.empty()) return out;
        const std::size_t off = addr - base, k = std::min<std::size_t>(size, bytes.size() - off);
        out.assign(bytes.begin() + static_cast<std::ptrdiff_t>(off), bytes.begin() + static_cast<std::ptrdiff_t>(off + k));
        return out;
      };
      auto helper = [&f](std::uint32_t target) {
        for (const auto& r : f.helper_code)
          if (target >= r.base && target - r.base < r.bytes.size()) return true;
        return false;
      };
      return dis->function(read, fn, max_instructions, helper);
    }
    return {};
  };
  // A call's target by the profile's name for it, else by its case file's.
  CodeNamer name_of = [&corpus, labels](std::uint32_t target) {
    std::string name = labels ? labels->function_name(target) : std::string();
    for (const auto& f : corpus.files)
      if (name.empty() && f.function == target) name = f.name;
    return name;
  };
  n.disassembly = [listing, name_of](std::uint32_t fn) { return format_listing(listing(fn), name_of); };
  n.writer_context = [&corpus, listing, name_of](std::uint32_t fn, std::uint32_t writer, bool on_stack) {
    // The function's own code, else the corpus function it called that holds the writer.
    std::uint32_t owner = fn;
    std::vector<Instruction> code = listing(fn);
    auto holds = [writer](const std::vector<Instruction>& l) {
      return std::any_of(l.begin(), l.end(), [writer](const Instruction& i) { return i.address == writer; });
    };
    for (std::size_t k = 0; k < corpus.files.size() && !holds(code); ++k) {
      owner = corpus.files[k].function;
      if (owner != fn) code = listing(owner);
    }
    if (!holds(code)) return std::string();
    const ResolvedWriter w = resolve_writer(code, writer, on_stack);
    std::string slice = format_data_slice(code, owner, w.address, name_of);
    std::string head = fmt::format("written last by 0x{:08x}", w.address);
    if (owner != fn) head += fmt::format(" in {}, a function it called", name_of(owner));
    if (w.moved)
      head += fmt::format(" (the capture noted 0x{:08x}: an x87 or SSE store leaves the emulator's instruction pointer "
                          "at the last integer memory access before it)", writer);
    else if (!w.candidates.empty())
      head += fmt::format(" (an instruction that writes no memory: the store is one of the x87 or SSE stores after it, "
                          "at 0x{:08x})", fmt::join(w.candidates, ", 0x"));
    return head + ":\n" + slice;
  };
  return n;
}

void name_arguments(Namer& namer, const Profile& profile) {
  auto all = std::make_shared<const std::map<std::uint32_t, cases::Signature>>(signatures(profile));
  namer.signature = [all](std::uint32_t fn) -> const cases::Signature* {
    auto it = all->find(fn);
    return it == all->end() ? nullptr : &it->second;
  };
}

}  // namespace lockstep::harness
