#include "harness_pages.hpp"

#include <algorithm>

namespace lockstep::harness::machine_detail {

namespace {
std::uint32_t pages_for(std::uint64_t bytes) { return static_cast<std::uint32_t>((bytes + kPageSize - 1) / kPageSize); }
}  // namespace

HarnessPages plan_harness_pages(std::uint32_t scratch_bytes, std::uint32_t tls_bytes, std::uint32_t ldt_entries) noexcept {
  HarnessPages p;
  p.gdt = 0;
  p.sentinel = p.gdt + 1;
  p.scratch = p.sentinel + 2;  // a guard page after the sentinel
  p.scratch_pages = pages_for(std::max(scratch_bytes, kPageSize));
  p.tls = p.scratch + p.scratch_pages + 1;
  p.tls_pages = pages_for(std::max(tls_bytes, kPageSize));
  p.ldt_pages = pages_for(std::uint64_t{ldt_entries} * 8);
  p.ldt = p.ldt_pages ? p.tls + p.tls_pages + 1 : 0;
  p.total = p.tls + p.tls_pages + (p.ldt_pages ? 1 + p.ldt_pages : 0);
  return p;
}

}  // namespace lockstep::harness::machine_detail
