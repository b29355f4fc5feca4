#!/usr/bin/env python3
"""Writes tests/standin/calls/setup_edges.toml: the call list that captures the race's set-up the
documents give at the edges of their words (cases/standin-setup-edges, scripts/capture-standin) from the
stand-in's snapshot at the pause: degenerate, tiny and large quads, poked surfaces, start records off
the road and outside every sector, settlings under other step units and racer counts.

The quad halves (setup::quad_halves, eax = quad, edx = mesh; F133): a quad and its mesh laid in
scratch, the mesh's vertices poked at 0x668000 (free memory past the paths' graphs): a flat square, a
bent quad (d raised), a wall, a sloped quad, corners named out of order, a quad of sides 100 (large
cross products), a tiny quad (lengths the reciprocal table divides by), a quad whose first half is
degenerate (a b c in a line), a quad whose halves and face normal hold values already. The surface
defaults (setup::surface_defaults; F136, A08): the snapshot's surfaces, every word poked first, and
twice in a row. The grid slot (setup::grid_slot, eax = car, edx = the start record laid in scratch;
F141): each racer on a start record on the ring road (racer i at angle 0.1 − 0.07·⌊i/2⌋ rad, radius
116 or 124), headings of length 1, of length 3, with a z part, backwards; a record off the road's
outer edge and one outside every sector; the record's last 12 bytes holding values. The settling (setup::settle, no
arguments; F142): from the race at the pause (the cars moving), with the step unit poked to 0x1000 and
0x2aaa, with three racers only, with every driver's stuck timer poked, with a car upside down, with the
damage option off; every settling with the controllers pointed at FUN_0041e0d0 (a seam) and no
catch-up record. Values are 16.16 unless said.

    python3 tests/standin/calls/make_setup_edges_calls.py > tests/standin/calls/setup_edges.toml
"""

import math

from call_list import fx, print_call_list, u32, vec, words


def car(r):
    return 0x630838 + 0x558 * r


def driver(r):
    return 0x61F870 + 0xB0 * r


VERTICES = 0x668000  # the laid quads' vertices (free memory)
SURFACES = 0x62BC0C
STEP_UNIT = 0x60BDFC
HUMANS, COMPUTERS = 0x61D5BC, 0x61D5C0
DAMAGE_OPTION = 0x63334C

calls = []


def call(comment, function, args, pokes=(), repeat=1):
    calls.append((comment, function, args, list(pokes), repeat))


# --- The quad halves ---


def quad(corners, normal=(0, 0, 0), halves=None):
    """A quad record (0x3c bytes): its face normal, the halves' normals (0 unless given), the four
    corners' vertex numbers at +0x2c, render kind 0x20, flags 0x08 (ground)."""
    h1, h2 = halves if halves else ((0, 0, 0), (0, 0, 0))
    b = vec(*normal) + vec(*h1) + vec(*h2) + words(0, 0)
    b += "".join(u32(c)[:4] for c in corners)  # u16 each
    b += "20" + "00" + "08" + "00" + "00000000"
    assert len(b) == 0x3C * 2, len(b) // 2
    return "hex:" + b


MESH = "hex:" + (u32(4)[:4] + "0000" + "0100" + "000000000000" + u32(VERTICES) + u32(0) + u32(0) + u32(0))


def vertices(*points):
    return "0x%x=%s" % (VERTICES, "".join(vec(*p) for p in points))


def halves_call(comment, points, corners=(0, 1, 2, 3), **kw):
    call("quad halves: " + comment, "setup::quad_halves", [quad(corners, **kw), MESH], [vertices(*points)])


halves_call("a flat square of side 8", [(0, 0, 0), (8, 0, 0), (8, 8, 0), (0, 8, 0)])
halves_call("a bent quad, d raised: the halves differ", [(0, 0, 0), (8, 0, 0.5), (8, 6, 1), (0, 6, 3)])
halves_call("a wall facing -y", [(0, 0, 0), (0, 0, 3), (8, 0, 3), (8, 0, 0)])
halves_call("a quad on a slope of 1 in 8", [(112, 0, 1), (128, 0, 1), (128, 8, 2), (112, 8, 2)])
halves_call("corners named out of order (3 1 0 2)", [(0, 0, 0), (8, 0, 0), (8, 8, 1), (0, 8, 0)],
            corners=(3, 1, 0, 2))
halves_call("sides of 100: large cross products", [(-50, -50, 0), (50, -50, 2), (50, 50, 0), (-50, 50, -2)])
halves_call("a tiny quad (sides 1/256): lengths the reciprocal table divides by",
            [(0, 0, 0), (1 / 256, 0, 0), (1 / 256, 1 / 256, 0), (0, 1 / 256, 0)])
halves_call("a b c in a line: the first half has no normal", [(0, 0, 0), (4, 0, 0), (8, 0, 0), (4, 6, 0)])
halves_call("the halves and the face normal hold values: the halves rewritten, the face's own kept",
            [(0, 0, 0), (8, 0, 0), (8, 8, 0.5), (0, 8, 0)],
            normal=(0.1, 0.2, 0.9), halves=((1, 1, 1), (-1, -1, -1)))

# --- The surface defaults ---

call("surface defaults over the snapshot's surfaces", "setup::surface_defaults", [])
call("surface defaults over surfaces poked with 0x5a5a5a5a in every word", "setup::surface_defaults", [],
     ["0x%x=%s" % (SURFACES, u32(0x5A5A5A5A) * 48)])
call("surface defaults twice in a row", "setup::surface_defaults", [], repeat=2)

# --- The grid slot ---


def start_record(pos, heading, tail=(0, 0, 0)):
    return "hex:" + vec(*pos) + vec(*heading) + words(*tail)


def slot(i):
    """Racer i's slot on the ring road: its position and the road's direction there."""
    a = 0.1 - 0.07 * (i // 2)
    r = 116 if i % 2 == 0 else 124
    return (r * math.cos(a), r * math.sin(a), 0), (-math.sin(a), math.cos(a), 0)


for i in range(8):
    pos, head = slot(i)
    call("grid slot: racer %d on its slot, heading along the road" % i, "setup::grid_slot",
         ["car[%d]" % i, start_record(pos, head)])
pos, head = slot(2)
call("grid slot: a heading of length 3", "setup::grid_slot",
     ["car[2]", start_record(pos, tuple(3 * h for h in head))])
call("grid slot: a heading with a z part (made level)", "setup::grid_slot",
     ["car[3]", start_record(pos, (head[0], head[1], 0.5))])
call("grid slot: heading backwards", "setup::grid_slot", ["car[4]", start_record(pos, tuple(-h for h in head))])
call("grid slot: the record's last 12 bytes hold values", "setup::grid_slot",
     ["car[5]", start_record(pos, head, tail=(0x7EADBEEF, -1, 0x12345678))])
a = 2 * math.pi * 10.5 / 48  # past ring 10, where nothing lies beyond the road's outer edge
call("grid slot: off the road's outer edge past ring 10 (no floor)", "setup::grid_slot",
     ["car[6]", start_record((135 * math.cos(a), 135 * math.sin(a), 0), (-math.sin(a), math.cos(a), 0))])
call("grid slot: outside every sector", "setup::grid_slot", ["car[7]", start_record((0, 0, 40), (1, 0, 0))])

# --- The settling ---

# Every settling state: each driver's controller (+0xc) pointed at FUN_0041e0d0, the seam that changes
# nothing (the stand-in's scripted controllers are not ported, and a call list runs them), and each
# driver's catch-up record (+0x90) 0, so no car scales its time: whether the settling's car step runs
# the catch-up is open between the two readings (C03; port/CHOICES.md "setup::settle").
SEAM = 0x41E0D0
HELD = ["0x%x=%s" % (driver(r) + 0xC, u32(SEAM)) for r in range(8)] + \
       ["0x%x=%s" % (driver(r) + 0x90, u32(0)) for r in range(8)]


def settle(comment, pokes=()):
    call("settling " + comment, "setup::settle", [], HELD + list(pokes))


settle("from the race at the pause")
settle("with the step unit 0x1000", ["0x%x=%s" % (STEP_UNIT, u32(0x1000))])
settle("with the step unit 0x2aaa", ["0x%x=%s" % (STEP_UNIT, u32(0x2AAA))])
settle("with three racers (one human, two computer cars)", ["0x%x=%s" % (HUMANS, u32(1) + u32(2))])
settle("with every driver's stuck timer poked",
       ["0x%x=%s" % (driver(r) + 0x7C, u32(fx(1.5) if r % 2 else -fx(1.0))) for r in range(8)])
settle("with racer 2 upside down (forward +x, left -y, up -z)",
       ["0x%x=%s" % (car(2) + 0x4A4, vec(1, 0, 0) + vec(0, -1, 0) + vec(0, 0, -1))])
settle("with the damage option off", ["0x%x=%s" % (DAMAGE_OPTION, u32(0))])

print_call_list([
    "The race's set-up at the edges of the documents' words: the calls that capture cases/standin-setup-edges",
    "(scripts/capture-standin) from the stand-in's snapshot at the pause. Written by make_setup_edges_calls.py",
    "(its docstring says what the states are); regenerate this file with it, never by hand.",
], calls, hex_above=0xFFFF)
