// Where the machine puts its own pages, planned without Unicorn: the GDT, the sentinel page every call
// returns to, scratch memory for argument blocks, the tls_block stubs' blocks and, only when the
// snapshot or its thread needs one, the LDT — in one free range of the 32-bit space, with an unmapped
// guard page after the sentinel, after scratch and after the TLS blocks, so that running off one
// area faults instead of landing in the next (harness/docs/machine.md, "Memory").
#pragma once

#include <cstdint>

namespace lockstep::harness::machine_detail {

inline constexpr std::uint32_t kPageSize = 0x1000;

/// The areas as page offsets from the start of the range; a size is in pages.
struct HarnessPages {
  std::uint32_t gdt = 0;       ///< one page
  std::uint32_t sentinel = 0;  ///< one page
  std::uint32_t scratch = 0, scratch_pages = 0;
  std::uint32_t tls = 0, tls_pages = 0;
  std::uint32_t ldt = 0, ldt_pages = 0;  ///< ldt_pages 0: no LDT (and no page for it)
  std::uint32_t total = 0;     ///< pages of the whole range, guard pages included
};

/// The plan for `scratch_bytes` of scratch, `tls_bytes` of TLS blocks and an LDT of `ldt_entries`
/// descriptors (0: none). Scratch and the TLS blocks get at least a page each; the LDT's pages come
/// last, so a snapshot without one keeps the same layout.
HarnessPages plan_harness_pages(std::uint32_t scratch_bytes, std::uint32_t tls_bytes, std::uint32_t ldt_entries) noexcept;

}  // namespace lockstep::harness::machine_detail
