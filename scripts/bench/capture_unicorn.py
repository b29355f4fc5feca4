#!/usr/bin/python3
"""The capture of `lockstep capture`, done through Unicorn's Python binding (python3-unicorn 2.0.1).

scripts/bench-capture times this against the C++ command on the same inputs (the aim: the C++ capture
at least 10x faster than this). Standard library + unicorn only.

    capture_unicorn.py SNAPSHOT STEPLOG --profile P --fn NAME|ADDR ... [--every N] [--max M]
                       [--driver NAME] [--digest FILE] [--no-top-frame]

What it reproduces, step for step, of lockstep's capture (capture/src/capture.cpp, driver.cpp and the
Unicorn machine, harness/machine/src/machine.cpp; docs: harness/docs/machine.md,
harness/docs/snapshot-format.md, capture/docs/state-log.md):

- Inputs: the LKSNAP snapshot (header, zlib info block, every region inflated; CRC-32s checked), the
  LKSTLOG state log (every record's CRC-32 checked), the TOML profile (functions, stubs, drivers,
  instances, the FPU control word).
- The machine: every snapshot page mapped with the union of its regions' protections, runs of pages
  with the same protection and owner coalesced into one mapping; the stack extended by 0x40000 bytes
  when free; the harness pages at the first free range from 0x10000000 (GDT, sentinel filled with int3,
  guard, 1 MiB scratch, guard, TLS blocks) — the same addresses as the C++ machine, so the TLS block a
  stub hands out and the sentinel (return address) are the same bytes in both captures; a GDT with flat
  code/data descriptors at the thread's selectors, fs/gs based at fs_base/gs_base, a DPL 0 SS at a free
  index (Unicorn's FS_BASE register is not used: it does not work in 32-bit mode); x87 state from the
  snapshot's thread (or the profile's control word); exits at the sentinel (uc_ctl_set_exits).
- Hooks as the C++ machine registers them: MEM_READ and MEM_WRITE (the recorder), MEM_INVALID, INTR,
  INSN_INVALID, SYSCALL/SYSENTER, one BLOCK hook (block budget of 100,000,000 and watched returns), a
  CODE hook on each watched function's entry and one on each stub's address.
- Stubs: every [[stub]] of the profile (address or pointer; ret / ret_n / value / tls_block), the ones a
  [[driver]] names switched on only for that driver, by hook (no guest byte patched).
- Per driver run (every CTRL record, or every Nth with --every): memory restored page by page from the
  snapshot (only the pages written since the last run, as with recording on), the record's blocks laid
  over it, the driver's function called with the Watcom convention (eax, edx, ebx, ecx, then the stack)
  from esp = (thread esp - 0x100) & ~15 minus the return address.
- The recorder's semantics, byte by byte: for every recording frame, a byte read before it was written
  is an input with the value read (only on snapshot and harness-data pages: the GDT and stub pages are
  ignored); a written byte is an output with its final value; bytes below the frame's entry esp inside
  the stack are stale-stack reads / frame writes; the return-address slot is no input; Unicorn 2.0.1's
  triple report of a page-crossing read (unicorn-engine/unicorn#1876) is filtered the same way.
- Nested capture: at a watched function's entry its registers (general + x87) are read, sampling
  decides whether it records (--max per function per run), its return address is read from the stack;
  it returns when its return address starts a block with esp above its entry esp; calls still open
  when the run ends close there. Complete recording calls become cases (registers in/out, inputs,
  writes, frame-write count, origin: record index, step, instance, call index).
- By default the machine's own top-level frame is recorded too, as the C++ Machine does for every call
  (its CallOutcome record, which capture does not use): --no-top-frame leaves that work out.

What it leaves out (work the C++ command does and this script does not): the snapshot's content
SHA-256, the corpus files (encoding, zlib compression, atomic writes, manifest), the disassembly of each
function's code attached to its case file, and the fault reports' details (a fault here is only
counted). None of those changes the cases.

--digest FILE writes the digest tests/bench/corpus_digest.cpp prints for a corpus (same text, same
SHA-256s), so scripts/bench-capture can check both captures made the same cases. Timings go to stdout
as `time <phase> <seconds>` lines: load (profile, snapshot, state log), capture (machine set-up, every
driver run, the cases: what lockstep::capture::capture() does), digest (the check only).
"""

import argparse
import hashlib
import struct
import sys
import time
import tomllib
import zlib
from pathlib import Path

import unicorn
from unicorn import x86_const as X

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
import state_log  # noqa: E402  (scripts/lib: the state log reader the scripts share)

PAGE = 0x1000
PAGE_COUNT = 1 << 20
PRESENT = 0x80
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4

# Page owners (machine.cpp PageKind).
UNMAPPED, SNAPSHOT_PAGE, HARNESS_INTERNAL, HARNESS_DATA = 0, 1, 2, 3

# MachineConfig defaults (harness/docs/machine.md).
STACK_GAP = 0x100
STACK_EXTENSION = 0x40000
SCRATCH_SIZE = 0x100000
BLOCK_BUDGET = 100_000_000

GENERAL = (X.UC_X86_REG_EAX, X.UC_X86_REG_EBX, X.UC_X86_REG_ECX, X.UC_X86_REG_EDX, X.UC_X86_REG_ESI,
           X.UC_X86_REG_EDI, X.UC_X86_REG_EBP, X.UC_X86_REG_ESP, X.UC_X86_REG_EIP, X.UC_X86_REG_EFLAGS)
WATCOM_REGS = (X.UC_X86_REG_EAX, X.UC_X86_REG_EDX, X.UC_X86_REG_EBX, X.UC_X86_REG_ECX)


class BadInput(Exception):
    pass


def align_up(v, a):
    return (v + a - 1) & ~(a - 1)


# ---- inputs ---------------------------------------------------------------------------------------

class Thread:
    pass


def load_snapshot(path):
    """Regions [(base, size, prot, bytes)] sorted by base, and thread 0 (snapshot-format.md)."""
    data = open(path, "rb").read()
    if len(data) < 48 or data[:8] != b"LKSNAP\r\n":
        raise BadInput(f"{path}: not a lockstep snapshot (magic)")
    version, flags, region_count, thread_count, total, info_size, info_stored, info_crc, header_crc = \
        struct.unpack_from("<IIIIQIIII", data, 8)
    if version not in (1, 2) or flags != 0:
        raise BadInput(f"{path}: version {version} flags {flags}: only versions 1 and 2 are read")
    if zlib.crc32(data[:44]) != header_crc:
        raise BadInput(f"{path}: header CRC-32 differs")
    stored = data[48:48 + info_stored]
    if len(stored) != info_stored or zlib.crc32(stored) != info_crc:
        raise BadInput(f"{path}: info block truncated or CRC-32 differs")
    info = zlib.decompress(stored)
    if len(info) != info_size:
        raise BadInput(f"{path}: info block inflates to {len(info)} bytes, not {info_size}")
    off = 0
    table = []
    for i in range(region_count):
        base, size, prot, data_crc, stored_size, stored_crc, name_len = struct.unpack_from("<IIB3xIIII", info, off)
        off += 28 + name_len
        table.append((base, size, prot, data_crc, stored_size, stored_crc))
    threads = []
    for i in range(thread_count):
        t = Thread()
        (t.tid, t.eax, t.ebx, t.ecx, t.edx, t.esi, t.edi, t.ebp, t.esp, t.eip, t.eflags,
         t.cs, t.ds, t.es, t.fs, t.gs, t.ss, t.fs_base, t.gs_base,
         t.fcw, t.fsw, t.ftw, t.x87_valid, t.mxcsr) = struct.unpack_from("<11I6H2I3HBxI", info, off)
        t.st = [info[off + 76 + 10 * k: off + 86 + 10 * k] for k in range(8)]
        off += 156
        threads.append(t)
    if not threads:
        raise BadInput(f"{path}: no thread")
    if version >= 2 and struct.unpack_from("<I", info, off)[0] != 0:
        raise BadInput(f"{path}: the snapshot has LDT entries; this script builds no LDT")
    regions = []
    pos = 48 + info_stored
    for base, size, prot, data_crc, stored_size, stored_crc in table:
        blob = data[pos:pos + stored_size]
        if len(blob) != stored_size or zlib.crc32(blob) != stored_crc:
            raise BadInput(f"{path}: region at 0x{base:08x} truncated or its stored CRC-32 differs")
        raw = zlib.decompress(blob)
        if len(raw) != size or zlib.crc32(raw) != data_crc:
            raise BadInput(f"{path}: region at 0x{base:08x} does not inflate to its {size} bytes")
        regions.append((base, size, prot, raw))
        pos += stored_size
    if pos != len(data):
        raise BadInput(f"{path}: {len(data) - pos} trailing bytes")
    return regions, threads[0]


def load_state_log(path, kind):
    """The records of one kind, in log order: [(step, instance, pass, [(address, bytes)])] (state-log.md,
    versions 1 and 2: scripts/lib/state_log.py)."""
    try:
        records = state_log.read_records(path)
    except state_log.BadLog as e:
        raise BadInput(str(e)) from e
    return [(step, instance, pass_, blocks) for tag, step, instance, pass_, blocks in records if tag == kind]


class Profile:
    def __init__(self, path):
        with open(path, "rb") as f:
            t = tomllib.load(f)
        p = t.get("profile", {})
        self.fpu_control = p.get("fpu_control_word", 0x037f)
        self.mxcsr = p.get("mxcsr", 0x1f80)
        self.functions = t.get("function", [])
        self.by_name = {f["name"]: f for f in self.functions}
        self.by_address = {f["address"]: f for f in self.functions}
        self.stubs = [dict(s) for s in t.get("stub", [])]
        self.drivers = t.get("driver", [])
        self.structs = {s["name"]: s for s in t.get("struct", [])}
        self.instances = {i["name"]: i for i in t.get("instance", [])}
        for s in self.stubs:
            s["active"] = True
        for d in self.drivers:
            for name in d.get("stubs", []):
                for s in self.stubs:
                    if s["name"] == name:
                        s["active"] = False  # active only while that driver runs

    def function(self, text):
        if text in self.by_name:
            return self.by_name[text]["address"]
        try:
            return int(text, 0)
        except ValueError:
            raise BadInput(f"no [[function]] named '{text}' in the profile") from None

    def driver(self, name):
        for d in self.drivers:
            if (name and d["name"] == name) or (not name and d.get("record", "CTRL") == "CTRL"):
                return d
        raise BadInput(f"the profile has no [[driver]] {name or 'on CTRL records'}")

    def driver_args(self, driver, instance):
        words = []
        for a in driver.get("args", []):
            if isinstance(a, int):
                words.append(a)
                continue
            inst = self.instances[a]
            index = instance if inst.get("count", 1) > 1 else 0
            words.append(inst["base"] + index * self.structs[inst["struct"]]["size"])
        return words


# ---- the machine ----------------------------------------------------------------------------------

class Frame:
    __slots__ = ("function", "ret", "entry_esp", "depth", "recording", "regs_in", "state", "written")

    def __init__(self, function, ret, entry_esp, depth, recording, regs_in):
        self.function = function
        self.ret = ret
        self.entry_esp = entry_esp
        self.depth = depth
        self.recording = recording
        self.regs_in = regs_in
        self.state = {}       # address -> value read before any write, or None (written first)
        self.written = set()  # addresses written


def descriptor(base, access):
    limit = 0xfffff
    d = limit & 0xffff
    d |= (base & 0xffffff) << 16
    d |= access << 40
    d |= ((limit >> 16) & 0xf) << 48
    d |= 0xc << 52
    d |= (base >> 24) << 56
    return d


class Machine:
    def __init__(self, regions, thread, profile, watched, record_top_frame):
        self.regions = regions
        self.thread = thread
        self.profile = profile
        self.record_top_frame = record_top_frame
        self.page_prot = bytearray(PAGE_COUNT)
        self.page_kind = bytearray(PAGE_COUNT)
        self.pristine = {}
        self.dirty = set()
        self.frames = []
        self.recording = []
        self.blocks = 0
        self.pending = None
        self.call_counts = {}
        self.observer = None
        self.skip = None  # (a, b, size, left) of a page-crossing read's duplicate reports
        self._setup(watched)

    # -- set-up --

    def _free_range(self, n):
        zeros = bytes(n)
        for start in (0x10000, 0x10):
            at = self.page_prot.find(zeros, start, PAGE_COUNT - 1)
            if at >= 0:
                return at
        raise BadInput(f"no free 0x{n * PAGE:x}-byte range for the harness")

    def _claim(self, first, n, prot, kind):
        for p in range(first, first + n):
            self.page_prot[p] = prot | PRESENT
            self.page_kind[p] = kind

    def _setup(self, watched):
        t = self.thread
        for base, size, prot, _ in self.regions:
            for p in range(base // PAGE, (base + size - 1) // PAGE + 1):
                self.page_prot[p] |= PRESENT | (prot & 7)
                self.page_kind[p] = SNAPSHOT_PAGE
        stack = next((r for r in self.regions if r[0] <= t.esp < r[0] + r[1]), None)
        if stack is None:
            raise BadInput(f"the thread's esp 0x{t.esp:08x} lies in no region")
        self.stack_low = stack[0] & ~(PAGE - 1)
        n = STACK_EXTENSION // PAGE
        low = self.stack_low // PAGE
        if low > n and not any(self.page_prot[low - n:low]):
            self._claim(low - n, n, PROT_READ | PROT_WRITE, HARNESS_DATA)
            self.stack_low -= n * PAGE

        tls_bytes = sum(align_up(max(s.get("block_size", 0), 16), 16) for s in self.profile.stubs
                        if s.get("action") == "handler")
        scratch_pages = align_up(max(SCRATCH_SIZE, PAGE), PAGE) // PAGE
        tls_pages = align_up(max(tls_bytes, PAGE), PAGE) // PAGE
        gdt_page = self._free_range(1 + 1 + 1 + scratch_pages + 1 + tls_pages)
        sentinel_page = gdt_page + 1
        scratch_page = sentinel_page + 2
        tls_page = scratch_page + scratch_pages + 1
        self._claim(gdt_page, 1, PROT_READ | PROT_WRITE, HARNESS_INTERNAL)
        self._claim(sentinel_page, 1, PROT_READ | PROT_EXEC, HARNESS_INTERNAL)
        self._claim(scratch_page, scratch_pages, PROT_READ | PROT_WRITE, HARNESS_DATA)
        self._claim(tls_page, tls_pages, PROT_READ | PROT_WRITE, HARNESS_DATA)
        self.gdt = gdt_page * PAGE
        self.sentinel = sentinel_page * PAGE

        # Stubs: pointers resolved through the snapshot; a target outside it gets an int3 page.
        tls_next = tls_page * PAGE
        stub_pages = []
        self.stubs = []
        for s in self.profile.stubs:
            if "address" in s:
                at = s["address"]
            else:
                word = self.snapshot_bytes(s["pointer"], 4)
                if word is None:
                    raise BadInput(f"stub '{s['name']}': its pointer 0x{s['pointer']:08x} is not in the snapshot")
                at = struct.unpack("<I", word)[0]
            rt = {"name": s["name"], "at": at, "active": s["active"], "action": s.get("action", "ret"),
                  "pop": s.get("pop", 0), "value": s.get("value", 0), "tls_block": 0}
            if rt["action"] == "handler":
                rt["tls_block"] = tls_next
                tls_next += align_up(max(s["block_size"], 16), 16)
            p = at // PAGE
            if not self.page_prot[p] & PRESENT:
                self._claim(p, 1, PROT_READ | PROT_EXEC, HARNESS_INTERNAL)
                stub_pages.append(p)
            elif not self.page_prot[p] & PROT_EXEC:
                raise BadInput(f"stub '{s['name']}' at 0x{at:08x} is in non-executable memory")
            self.stubs.append(rt)

        uc = self.uc = unicorn.Uc(unicorn.UC_ARCH_X86, unicorn.UC_MODE_32)
        p = 0
        prot_bytes = self.page_prot
        while p < PAGE_COUNT:
            if not prot_bytes[p] & PRESENT:
                p += 1
                continue
            q = p
            while q < PAGE_COUNT and prot_bytes[q] == prot_bytes[p] and self.page_kind[q] == self.page_kind[p]:
                q += 1
            uc.mem_map(p * PAGE, (q - p) * PAGE, prot_bytes[p] & 7)
            p = q
        for base, size, prot, raw in self.regions:
            uc.mem_write(base, raw)
        uc.mem_write(self.sentinel, b"\xcc" * PAGE)
        for sp in stub_pages:
            uc.mem_write(sp * PAGE, b"\xcc" * PAGE)
            self.pristine[sp] = b"\xcc" * PAGE
        self.pristine[sentinel_page] = b"\xcc" * PAGE

        # GDT (machine.cpp setup): flat code/data at the thread's selectors, fs/gs at their bases.
        cs, ds, es, fs, gs = t.cs, t.ds, t.es, t.fs, t.gs
        if cs >> 3 == 0:
            cs = 0x23
        if ds >> 3 == 0:
            ds = 0x2b
        if es >> 3 == 0:
            es = ds
        gdt = [0] * (PAGE // 8)
        used = [False] * (PAGE // 8)
        used[0] = True

        def put(sel, d):
            idx = sel >> 3
            if sel & 4 or (used[idx] and gdt[idx] != d):
                raise BadInput(f"selector 0x{sel:04x} cannot be given a descriptor")
            gdt[idx] = d
            used[idx] = True

        def free_index():
            for i in range(1, PAGE // 8):
                if not used[i] and i not in (cs >> 3, ds >> 3, es >> 3, fs >> 3, gs >> 3, t.ss >> 3):
                    return i
            return 0

        put(cs, descriptor(0, 0xfb))
        put(ds, descriptor(0, 0xf3))
        put(es, descriptor(0, 0xf3))
        if fs >> 3 == 0 and t.fs_base:
            fs = (free_index() << 3) | 3
        if fs >> 3:
            put(fs, descriptor(t.fs_base, 0xf3))
        if gs >> 3 == 0 and t.gs_base:
            gs = (free_index() << 3) | 3
        if gs >> 3:
            put(gs, descriptor(t.gs_base, 0xf3))
        ss = free_index() << 3
        put(ss, descriptor(0, 0x93))
        gdt_bytes = struct.pack(f"<{PAGE // 8}Q", *gdt)
        uc.mem_write(self.gdt, gdt_bytes)
        self.pristine[gdt_page] = gdt_bytes
        uc.reg_write(X.UC_X86_REG_GDTR, (0, self.gdt, PAGE - 1, 0))
        for reg, sel in ((X.UC_X86_REG_SS, ss), (X.UC_X86_REG_CS, cs), (X.UC_X86_REG_DS, ds),
                         (X.UC_X86_REG_ES, es), (X.UC_X86_REG_FS, fs), (X.UC_X86_REG_GS, gs)):
            uc.reg_write(reg, sel)

        # Hooks, in the C++ machine's order.
        uc.hook_add(unicorn.UC_HOOK_MEM_READ, self._on_read)
        uc.hook_add(unicorn.UC_HOOK_MEM_WRITE, self._on_write)
        uc.hook_add(unicorn.UC_HOOK_MEM_INVALID, self._on_invalid)
        uc.hook_add(unicorn.UC_HOOK_INTR, self._on_intr)
        uc.hook_add(unicorn.UC_HOOK_INSN_INVALID, self._on_insn_invalid)
        for insn in (X.UC_X86_INS_SYSCALL, X.UC_X86_INS_SYSENTER):
            uc.hook_add(unicorn.UC_HOOK_INSN, self._on_syscall, None, 1, 0, insn)
        uc.hook_add(unicorn.UC_HOOK_BLOCK, self._on_block)
        for w in watched:
            uc.hook_add(unicorn.UC_HOOK_CODE, self._on_watched, None, w, w)
        for s in self.stubs:
            uc.hook_add(unicorn.UC_HOOK_CODE, self._on_stub, s, s["at"], s["at"])
        uc.ctl_exits_enabled(True)
        uc.ctl_set_exits([self.sentinel])
        self.write_registers(self.initial_registers())
        self.baseline = uc.context_save()

    def snapshot_bytes(self, addr, n):
        for base, size, _, raw in self.regions:
            if base <= addr and addr + n <= base + size:
                return raw[addr - base:addr - base + n]
        return None

    def pristine_page(self, p):
        page = self.pristine.get(p)
        if page is None:
            buf = bytearray(PAGE)
            if self.page_kind[p] == SNAPSHOT_PAGE:
                lo, hi = p * PAGE, p * PAGE + PAGE
                for base, size, _, raw in self.regions:
                    a, b = max(lo, base), min(hi, base + size)
                    if a < b:
                        buf[a - lo:b - lo] = raw[a - base:b - base]
            page = self.pristine[p] = bytes(buf)
        return page

    # -- registers --

    def initial_registers(self):
        t = self.thread
        r = {X.UC_X86_REG_EAX: t.eax, X.UC_X86_REG_EBX: t.ebx, X.UC_X86_REG_ECX: t.ecx, X.UC_X86_REG_EDX: t.edx,
             X.UC_X86_REG_ESI: t.esi, X.UC_X86_REG_EDI: t.edi, X.UC_X86_REG_EBP: t.ebp, X.UC_X86_REG_ESP: t.esp,
             X.UC_X86_REG_EIP: t.eip, X.UC_X86_REG_EFLAGS: (t.eflags & 0x00000cd5) | 0x202}
        if t.x87_valid:
            x87 = (t.fcw, t.fsw, t.ftw, t.mxcsr, list(t.st))
        else:
            x87 = (self.profile.fpu_control, 0, 0xffff, self.profile.mxcsr, [bytes(10)] * 8)
        return r, x87

    def read_registers(self):
        uc = self.uc
        general = tuple(uc.reg_read(r) for r in GENERAL)
        cw = uc.reg_read(X.UC_X86_REG_FPCW)
        sw = uc.reg_read(X.UC_X86_REG_FPSW)
        tag = uc.reg_read(X.UC_X86_REG_FPTAG)
        mxcsr = uc.reg_read(X.UC_X86_REG_MXCSR)
        top = (sw >> 11) & 7
        st = []
        for i in range(8):
            mantissa, exponent = uc.reg_read(X.UC_X86_REG_FP0 + ((top + i) & 7))
            st.append(mantissa.to_bytes(8, "little") + exponent.to_bytes(2, "little"))
        return general, (cw, sw, tag, mxcsr, st)

    def write_registers(self, regs):
        general, (cw, sw, tag, mxcsr, st) = regs
        uc = self.uc
        for reg, v in general.items():
            uc.reg_write(reg, v)
        uc.reg_write(X.UC_X86_REG_FPCW, cw)
        uc.reg_write(X.UC_X86_REG_FPSW, sw)
        top = (sw >> 11) & 7
        for i in range(8):
            v = st[i]
            uc.reg_write(X.UC_X86_REG_FP0 + ((top + i) & 7),
                         (int.from_bytes(v[:8], "little"), int.from_bytes(v[8:10], "little")))
        uc.reg_write(X.UC_X86_REG_FPTAG, tag)
        uc.reg_write(X.UC_X86_REG_MXCSR, mxcsr)

    # -- memory --

    def reset(self):
        uc = self.uc
        for p in self.dirty:
            uc.mem_write(p * PAGE, self.pristine_page(p))
            if self.page_prot[p] & PROT_EXEC:
                uc.ctl_remove_cache(p * PAGE, p * PAGE + PAGE)
        self.dirty.clear()
        uc.context_restore(self.baseline)

    def host_write(self, addr, data):
        for p in range(addr // PAGE, (addr + len(data) - 1) // PAGE + 1):
            if not self.page_prot[p] & PRESENT:
                raise BadInput(f"cannot write 0x{len(data):x} bytes at 0x{addr:08x}: page 0x{p * PAGE:08x} is not mapped")
            self.dirty.add(p)
            if self.page_prot[p] & PROT_EXEC:
                self.uc.ctl_remove_cache(p * PAGE, p * PAGE + PAGE)
        self.uc.mem_write(addr, bytes(data))

    # -- hooks --

    def _on_read(self, uc, access, addr, size, value, user):
        recording = self.recording
        if not recording:
            return
        # Unicorn 2.0.1 reports a page-crossing read three times (unicorn-engine/unicorn#1876): the exact one, then the
        # two aligned loads of its slow path, which would add bytes the instruction never read.
        skip = self.skip
        if skip is not None:
            a, b, ssize, left = skip
            if addr == (a if left == 2 else b) and size == ssize:
                self.skip = (a, b, ssize, left - 1) if left > 1 else None
                return
            self.skip = None
        if size > 1 and (addr & (PAGE - 1)) + size > PAGE:
            a = addr & ~(size - 1)
            self.skip = (a, a + size, size, 2)
        kind = self.page_kind
        end = addr + size
        if kind[addr >> 12] in (SNAPSHOT_PAGE, HARNESS_DATA) and kind[(end - 1) >> 12] in (SNAPSHOT_PAGE, HARNESS_DATA):
            keep = range(addr, end)
        else:
            keep = [a for a in range(addr, end) if kind[a >> 12] in (SNAPSHOT_PAGE, HARNESS_DATA)]
        data = None
        for f in recording:
            state = f.state
            for a in keep:
                if a not in state:
                    if data is None:
                        data = uc.mem_read(addr, size)
                    state[a] = data[a - addr]

    def _on_write(self, uc, access, addr, size, value, user):
        kind = self.page_kind
        first, last = addr >> 12, (addr + size - 1) >> 12
        if kind[first] != UNMAPPED:
            self.dirty.add(first)
        if last != first and kind[last] != UNMAPPED:
            self.dirty.add(last)
        recording = self.recording
        if not recording:
            return
        if kind[first] != HARNESS_INTERNAL and kind[last] != HARNESS_INTERNAL:
            keep = range(addr, addr + size)
        else:
            keep = [a for a in range(addr, addr + size) if kind[a >> 12] not in (UNMAPPED, HARNESS_INTERNAL)]
        for f in recording:
            state = f.state
            written = f.written
            for a in keep:
                if a not in state:
                    state[a] = None
                written.add(a)

    def _stop(self, what):
        if self.pending is None:
            self.pending = what
            self.uc.emu_stop()

    def _on_invalid(self, uc, access, addr, size, value, user):
        if self.pending is None:
            self.pending = f"invalid memory access (type {access}) of {size} bytes at 0x{addr:08x}"
        return False

    def _on_intr(self, uc, intno, user):
        self._stop(f"interrupt 0x{intno:x}")

    def _on_insn_invalid(self, uc, user):
        if self.pending is None:
            self.pending = "invalid instruction"
        return False

    def _on_syscall(self, uc, user):
        self._stop("syscall")

    def _on_block(self, uc, address, size, user):
        self.blocks += 1
        if self.blocks > BLOCK_BUDGET:
            self._stop("budget exceeded")
            return
        frames = self.frames
        # A watched call has returned when its return address starts a block with esp above its entry.
        while frames and frames[-1].depth > 0 and frames[-1].ret == address:
            if uc.reg_read(X.UC_X86_REG_ESP) <= frames[-1].entry_esp:
                break
            self.leave_nested(True)

    def _on_watched(self, uc, address, size, user):
        esp = uc.reg_read(X.UC_X86_REG_ESP)
        self.call_counts[address] = self.call_counts.get(address, 0) + 1
        regs_in = self.read_registers()
        rec = self.observer is not None and self.observer.on_enter(address)
        ret = struct.unpack("<I", uc.mem_read(esp, 4))[0]
        depth = 1
        for f in self.frames:
            depth = max(depth, f.depth + 1)
        self.push_frame(Frame(address, ret, esp, depth, rec, regs_in))

    def _on_stub(self, uc, address, size, s):
        if not s["active"]:
            return
        esp = uc.reg_read(X.UC_X86_REG_ESP)
        ret = struct.unpack("<I", uc.mem_read(esp, 4))[0]
        action = s["action"]
        if action == "value":
            uc.reg_write(X.UC_X86_REG_EAX, s["value"])
        elif action == "handler":
            uc.reg_write(X.UC_X86_REG_EAX, s["tls_block"])
        uc.reg_write(X.UC_X86_REG_ESP, esp + 4 + (0 if action == "ret" else s["pop"]))
        uc.reg_write(X.UC_X86_REG_EIP, ret)  # Unicorn 2 leaves the block and continues there

    # -- frames --

    def push_frame(self, f):
        self.frames.append(f)
        if f.recording:
            self.recording.append(f)

    def effects(self, f):
        """(inputs {addr: value}, writes {addr: value}, frame bytes written), as effects_of + to_case."""
        low, esp = self.stack_low, f.entry_esp
        inputs = {a: v for a, v in f.state.items() if v is not None and not esp <= a < esp + 4}
        writes = {}
        frame_writes = 0
        run = []
        for a in sorted(f.written):
            if low <= a < esp:
                frame_writes += 1
                continue
            if run and a != run[-1] + 1:
                self._final_values(run, writes)
                run = []
            run.append(a)
        if run:
            self._final_values(run, writes)
        return inputs, writes, frame_writes

    def _final_values(self, run, writes):
        data = self.uc.mem_read(run[0], len(run))
        for a, v in zip(run, data):
            writes[a] = v

    def finish(self, f, complete):
        out = self.read_registers()
        eff = self.effects(f) if f.recording else None
        return f, out, complete, eff

    def leave_nested(self, complete):
        f = self.frames.pop()
        if f.recording:
            self.recording = [g for g in self.frames if g.recording]
            if self.observer is not None:
                self.observer.on_leave(self.finish(f, complete))

    # -- a call --

    def call(self, function, words):
        regs = WATCOM_REGS
        stack = b"".join(struct.pack("<I", w) for w in words[len(regs):])
        top = (self.thread.esp - STACK_GAP) & ~15
        entry_esp = top - (len(stack) + 4)
        self.host_write(entry_esp, struct.pack("<I", self.sentinel) + stack)
        self.uc.context_restore(self.baseline)
        general, x87 = self.initial_registers()
        for reg, w in zip(regs, words):
            general[reg] = w
        general[X.UC_X86_REG_ESP] = entry_esp
        general[X.UC_X86_REG_EIP] = function
        self.write_registers((general, x87))

        regs_in = self.read_registers()
        self.frames = []
        self.recording = []
        self.pending = None
        self.blocks = 0
        if self.record_top_frame:
            self.push_frame(Frame(function, self.sentinel, entry_esp, 0, True, regs_in))
        error = None
        try:
            self.uc.emu_start(function, 0, 0, 0)
        except unicorn.UcError as e:
            error = e
        after = self.read_registers()
        after_esp, after_eip = after[0][7], after[0][8]
        fault = self.pending or (str(error) if error else None)
        if fault is None and after_eip != self.sentinel:
            fault = f"emulation ended at 0x{after_eip:08x}, not at the sentinel"
        while self.frames and self.frames[-1].depth > 0:
            f = self.frames[-1]
            self.leave_nested(fault is None and f.ret == self.sentinel and after_esp > f.entry_esp)
        if self.frames:
            self.finish(self.frames[-1], fault is None)  # the machine's own record of the call
        self.frames = []
        self.recording = []
        return fault


# ---- capture --------------------------------------------------------------------------------------

class Collector:
    """CaseCollector: sampling per run, cases per function in the order their calls ended."""

    def __init__(self, functions, max_per_run):
        self.max = max_per_run
        self.cases = {fn: [] for fn in functions}
        self.incomplete = 0

    def begin_run(self, record_index, step, instance):
        self.origin = (record_index, step, instance)
        self.taken = {}
        self.calls = {}

    def on_enter(self, fn):
        if fn not in self.cases:
            return False
        taken = self.taken.get(fn, 0)
        if self.max and taken >= self.max:
            return False
        self.taken[fn] = taken + 1
        return True

    def on_leave(self, finished):
        f, out, complete, eff = finished
        cases = self.cases.get(f.function)
        if cases is None:
            return
        if not complete:
            self.incomplete += 1
            return
        call_index = self.calls.get(f.function, 0)
        self.calls[f.function] = call_index + 1
        inputs, writes, frame_writes = eff
        cases.append((len(cases), self.origin, call_index, f.regs_in, out, inputs, writes, frame_writes))


def regs_text(regs):
    general, (cw, sw, tag, mxcsr, st) = regs
    # corpus_digest's order: eax ebx ecx edx esi edi ebp esp eip eflags (GENERAL's order)
    return " ".join(f"{v:08x}" for v in general) + f" {cw:04x} {sw:04x} {tag:04x} {mxcsr:08x} " + \
        " ".join(s.hex() for s in st)


def runs_text(m):
    parts = []
    base = None
    buf = bytearray()
    for a in sorted(m):
        if base is not None and a == base + len(buf):
            buf.append(m[a])
            continue
        if base is not None:
            parts.append(f"{base:08x}:{buf.hex()}")
        base, buf = a, bytearray([m[a]])
    if base is not None:
        parts.append(f"{base:08x}:{buf.hex()}")
    return " ".join(parts)


def digest(collector, profile):
    lines = []
    total = hashlib.sha256()
    n_total = 0
    for fn in sorted(collector.cases):
        h = hashlib.sha256()
        n_in = n_w = 0
        cases = collector.cases[fn]
        for cid, (record_index, step, instance), call_index, rin, rout, inputs, writes, frame_writes in cases:
            h.update((f"{fn:08x} {cid} {record_index} {step} {instance} {call_index} | {regs_text(rin)} | "
                      f"{regs_text(rout)} | i {runs_text(inputs)} | w {runs_text(writes)} | f {frame_writes}\n").encode())
            n_in += len(inputs)
            n_w += len(writes)
        name = profile.by_address.get(fn, {}).get("name", "")
        line = f"{fn:08x} {name} cases {len(cases)} inputs {n_in} writes {n_w} sha256 {h.hexdigest()}\n"
        total.update(line.encode())
        lines.append(line)
        n_total += len(cases)
    lines.append(f"total cases {n_total} sha256 {total.hexdigest()}\n")
    return "".join(lines)


def main():
    ap = argparse.ArgumentParser(description="lockstep's capture through Unicorn's Python binding (benchmark)")
    ap.add_argument("snapshot")
    ap.add_argument("steplog")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--fn", action="append", required=True, help="function name or address; repeatable")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--max", type=int, default=0)
    ap.add_argument("--driver", default="")
    ap.add_argument("--digest", help="write the corpus digest (tests/bench/corpus_digest.cpp's text) here")
    ap.add_argument("--no-top-frame", action="store_true",
                    help="do not record the machine's own top-level frame (work the C++ machine does)")
    a = ap.parse_args()
    if a.every < 1 or a.max < 0:
        ap.error("--every takes a positive number, --max a number >= 0")

    t0 = time.perf_counter()
    try:
        profile = Profile(a.profile)
        regions, thread = load_snapshot(a.snapshot)
        driver = profile.driver(a.driver)
        records = load_state_log(a.steplog, driver.get("record", "CTRL"))
        functions = []
        for text in a.fn:
            fn = profile.function(text)
            if fn not in functions:
                functions.append(fn)
        function = driver["function"]
        if isinstance(function, str):
            function = profile.function(function)
        t1 = time.perf_counter()
        # The capture phase starts here, as lockstep::capture::capture() does: machine set-up included.
        machine = Machine(regions, thread, profile, functions, not a.no_top_frame)
    except (BadInput, OSError, zlib.error, struct.error, KeyError, tomllib.TOMLDecodeError) as e:
        print(f"capture_unicorn: {e}", file=sys.stderr)
        return 2
    for name in driver.get("stubs", []):
        for s in machine.stubs:
            if s["name"] == name:
                s["active"] = True
                if s["at"] in functions:
                    print(f"capture_unicorn: 0x{s['at']:08x} is stubbed by driver '{driver['name']}'", file=sys.stderr)
                    return 2
    collector = Collector(functions, a.max)
    machine.observer = collector

    runs = faulted = 0
    for index, (step, instance, _pass, blocks) in enumerate(records):
        if index % a.every:
            continue
        runs += 1
        collector.begin_run(index, step, max(instance, 0))
        machine.reset()
        for addr, data in blocks:
            machine.host_write(addr, data)
        fault = machine.call(function, profile.driver_args(driver, instance))
        if fault:
            faulted += 1
            print(f"capture_unicorn: step {step} instance {instance}: {fault}", file=sys.stderr)
    t2 = time.perf_counter()

    cases = sum(len(c) for c in collector.cases.values())
    print(f"driver {driver['name']}: {runs} of {len(records)} runs captured" + (f", {faulted} faulted" if faulted else ""))
    for fn in sorted(collector.cases):
        print(f"  0x{fn:08x} {profile.by_address.get(fn, {}).get('name', ''):<28} {len(collector.cases[fn])} cases")
    print(f"{cases} cases captured")
    if collector.incomplete:
        print(f"{collector.incomplete} calls cut short by a fault were not kept")
    if a.digest:
        with open(a.digest, "w") as f:
            f.write(digest(collector, profile))
    t3 = time.perf_counter()
    print(f"time load {t1 - t0:.3f}")
    print(f"time capture {t2 - t1:.3f}")
    print(f"time digest {t3 - t2:.3f}")
    print(f"cases {cases}")
    return 3 if faulted else 0


if __name__ == "__main__":
    sys.exit(main())
