// The access recorder: per recording call (a frame: the harness's call and every watched call inside
// it that the observer takes), which bytes it read before writing them and their values, which it
// wrote and by which instruction; and what that makes of a call (its Effects). The machine's memory
// hooks call note_read and note_write on every access, so both are here, inline. Private to the
// machine, whose Impl is one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <unicorn/unicorn.h>

#include "access_shadow.hpp"
#include "address_space.hpp"
#include "lockstep/calls/recorder.hpp"

namespace lockstep::harness::machine_detail {

struct Frame {
  Frame(ShadowPool& pool) : shadow(pool) {}
  GuestAddr function = 0;
  GuestAddr ret = 0;
  GuestAddr entry_esp = 0;
  std::uint32_t depth = 0;
  std::uint64_t call_index = 0;
  bool recording = false;
  Registers in;
  Shadow shadow;
};

struct AccessRecorder {
  explicit AccessRecorder(AddressSpace& memory) : mem(memory) {}
  AccessRecorder(const AccessRecorder&) = delete;
  AccessRecorder& operator=(const AccessRecorder&) = delete;

  AddressSpace& mem;
  /// The stack mapping [stack_low, stack_high): bytes in [stack_low, a call's entry esp) are its own
  /// frame's (or stale reads below it).
  GuestAddr stack_low = 0, stack_high = 0;
  ShadowPool pool;
  std::vector<std::unique_ptr<Frame>> frames;  // innermost last
  std::vector<Frame*> recording;               // frames with recording == true

  // Unicorn 2.0.1 reports a page-crossing read three times (unicorn-engine/unicorn#1876, measured): first exactly
  // (addr, size), then the two aligned loads its slow path really does, (addr & ~(size-1), size) and
  // the next one. Those two would add bytes the instruction never read, so they are skipped.
  std::uint64_t skip_a = 0, skip_b = 0;
  int skip_size = 0, skip_left = 0;

  /// Whether every one of the n flag bytes at `flags` is non-zero (read or written already): then an
  /// access there changes nothing. Whole words for the common sizes.
  static bool all_noted(const std::uint8_t* flags, std::uint32_t n) noexcept {
    auto no_zero_byte = [](std::uint64_t w, std::uint64_t ones) {
      return ((w - ones) & ~w & (ones << 7)) == 0;
    };
    switch (n) {
      case 1: return flags[0] != 0;
      case 2: { std::uint16_t w; std::memcpy(&w, flags, 2); return no_zero_byte(w, 0x0101); }
      case 4: { std::uint32_t w; std::memcpy(&w, flags, 4); return no_zero_byte(w, 0x01010101); }
      case 8: { std::uint64_t w; std::memcpy(&w, flags, 8); return no_zero_byte(w, 0x0101010101010101); }
      default:
        for (std::uint32_t i = 0; i < n; ++i)
          if (!flags[i]) return false;
        return true;
    }
  }

  /// Bytes [off, off + n) of one page read: those no frame has seen yet become its inputs.
  void note_read_in_page(std::uint32_t page, std::uint32_t off, std::uint32_t n) {
    const std::uint8_t kind = mem.page_kind[page];
    if (kind != kSnapshotPage && kind != kHarnessData) return;
    const std::uint8_t* host = mem.host_page[page] + off;
    for (Frame* f : recording) {
      ShadowPage* sp = f->shadow.get(page);
      std::uint8_t* flags = sp->flags.data() + off;
      // Most reads are of bytes the call has read or written before (its stack slots, the record it
      // works on): nothing to note.
      if (all_noted(flags, n)) continue;
      sp->touch(off, n);
      std::uint8_t* value = sp->value.data() + off;
      for (std::uint32_t i = 0; i < n; ++i)
        if (!flags[i]) {
          flags[i] = kByteRead;
          value[i] = host[i];
        }
    }
  }

  void note_read(std::uint64_t addr, int size) {
    if (skip_left) {
      const std::uint64_t want = skip_left == 2 ? skip_a : skip_b;
      if (addr == want && size == skip_size) {
        --skip_left;
        return;
      }
      skip_left = 0;
    }
    const std::uint32_t off = static_cast<std::uint32_t>(addr & (kPageSize - 1));
    const std::uint32_t page = static_cast<std::uint32_t>((addr >> 12) & (kPageCount - 1));
    if (off + static_cast<std::uint32_t>(size) <= kPageSize) {
      note_read_in_page(page, off, static_cast<std::uint32_t>(size));
      return;
    }
    skip_a = addr & ~static_cast<std::uint64_t>(size - 1);
    skip_b = skip_a + static_cast<std::uint64_t>(size);
    skip_size = size;
    skip_left = 2;
    note_read_in_page(page, off, kPageSize - off);
    note_read_in_page((page + 1) & (kPageCount - 1), 0, off + static_cast<std::uint32_t>(size) - kPageSize);
  }

  /// The lowest entry esp of the recording frames: a write in [stack_low, writer_floor) is in every
  /// recording frame's own stack frame (a push, a local), which no case compares, so its writer is
  /// never shown and need not be read.
  GuestAddr writer_floor = 0;

  /// Bytes [off, off + n) of one page written by the instruction at `eip`.
  void note_write_in_page(std::uint32_t page, std::uint32_t off, std::uint32_t n, std::uint32_t eip) {
    const std::uint8_t kind = mem.page_kind[page];
    if (kind == kUnmapped) return;
    mem.mark_dirty(page);
    if (kind == kHarnessInternal) return;
    for (Frame* f : recording) {
      ShadowPage* sp = f->shadow.get(page);
      sp->touch(off, n);
      std::uint8_t* flags = sp->flags.data() + off;
      std::uint32_t* writer = sp->writer.data() + off;
      for (std::uint32_t i = 0; i < n; ++i) {
        flags[i] |= kByteWritten;
        writer[i] = eip;
      }
    }
  }

  void note_write(std::uint64_t addr, int size) {
    // The writing instruction's address: Unicorn 2 brings eip up to date before each memory access
    // while a memory hook exists (its FAQ: "the PC is sync-ed exactly before any read/write
    // events"), so reading it here costs one register read per write and no per-instruction hook.
    // Read only when the bytes can be some recording frame's outputs.
    std::uint32_t eip = 0;
    if (!recording.empty() && (addr < stack_low || addr >= writer_floor))
      uc_reg_read(mem.uc, UC_X86_REG_EIP, &eip);
    const std::uint32_t off = static_cast<std::uint32_t>(addr & (kPageSize - 1));
    const std::uint32_t page = static_cast<std::uint32_t>((addr >> 12) & (kPageCount - 1));
    if (off + static_cast<std::uint32_t>(size) <= kPageSize) {
      note_write_in_page(page, off, static_cast<std::uint32_t>(size), eip);
      return;
    }
    note_write_in_page(page, off, kPageSize - off, eip);
    note_write_in_page((page + 1) & (kPageCount - 1), 0, off + static_cast<std::uint32_t>(size) - kPageSize, eip);
  }

  Effects effects_of(const Frame& f) const {
    Effects e;
    e.entry_esp = f.entry_esp;
    e.stack_low = stack_low;
    e.stack_high = stack_high;
    std::vector<std::uint32_t> pages;
    pages.reserve(f.shadow.pages().size());
    for (const auto& [p, s] : f.shadow.pages()) pages.push_back(p);
    std::sort(pages.begin(), pages.end());
    auto append = [](std::vector<ByteRun>& runs, GuestAddr a, std::uint8_t v) {
      if (runs.empty() || runs.back().end() != a) runs.push_back(ByteRun{a, {}});
      runs.back().bytes.push_back(v);
    };
    const std::uint64_t esp = f.entry_esp;
    for (std::uint32_t p : pages) {
      const ShadowPage& sp = *f.shadow.pages().at(p);
      const std::uint8_t* host = mem.host_page[p];
      const std::uint64_t base = std::uint64_t{p} * kPageSize;
      for (std::uint32_t i = 0; i < kPageSize; ++i) {
        // Most of a page is untouched: skip the chunks no access reached, then eight flag bytes at a
        // time.
        if (i % ShadowPage::kChunk == 0 && !(sp.touched >> (i / ShadowPage::kChunk) & 1)) {
          i += ShadowPage::kChunk - 1;
          continue;
        }
        if ((i & 7) == 0) {
          std::uint64_t word;
          std::memcpy(&word, sp.flags.data() + i, 8);
          if (word == 0) {
            i += 7;
            continue;
          }
        }
        const std::uint8_t fl = sp.flags[i];
        if (!fl) continue;
        const std::uint64_t a = base + i;
        const bool below = a >= stack_low && a < esp;
        const bool return_slot = a >= esp && a < esp + 4;
        if ((fl & kByteRead) && !return_slot)
          append(below ? e.stale_stack_reads : e.inputs, static_cast<GuestAddr>(a), sp.value[i]);
        if (fl & kByteWritten) {
          append(below ? e.frame_writes : e.outputs, static_cast<GuestAddr>(a), host[i]);
          if (!below) {
            const std::uint32_t w = sp.writer[i];
            if (e.output_writers.empty() || e.output_writers.back().end() != a || e.output_writers.back().writer != w)
              e.output_writers.push_back(WriterRun{static_cast<GuestAddr>(a), 0, w});
            ++e.output_writers.back().length;
          }
        }
      }
    }
    return e;
  }

  void rebuild_recording() {
    recording.clear();
    writer_floor = ~GuestAddr{0};
    for (auto& f : frames)
      if (f->recording) {
        recording.push_back(f.get());
        writer_floor = std::min(writer_floor, f->entry_esp);
      }
  }

  void push_frame(GuestAddr function, GuestAddr ret, GuestAddr esp, std::uint32_t depth, std::uint64_t index,
                  bool rec, const Registers& in) {
    auto f = std::make_unique<Frame>(pool);
    f->function = function;
    f->ret = ret;
    f->entry_esp = esp;
    f->depth = depth;
    f->call_index = index;
    f->recording = rec;
    f->in = in;
    frames.push_back(std::move(f));
    if (rec) {
      recording.push_back(frames.back().get());
      writer_floor = std::min(writer_floor, esp);
    }
  }
};

}  // namespace lockstep::harness::machine_detail
