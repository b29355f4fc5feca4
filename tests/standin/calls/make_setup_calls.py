#!/usr/bin/env python3
"""Writes tests/standin/calls/setup.toml: the call list that captures the start's four functions
(cases/standin-setup, scripts/capture-standin) from the stand-in's snapshot at the pause: the surface
defaults (0x4985e8), a quad's half normals (0x4247f8), a car on its grid slot (0x4236f0) and the
settling (0x49b9d4). Their rules: tests/standin/README.md, "The start".

The states: the surface defaults over the race's surfaces and over surfaces poked to other values;
quads laid by pokes in free memory (0x65c000: a mesh whose vertex array follows it, a quad after
that): level and slanted squares, a non-planar quad (its halves differ), a quad on its side (a
wall), one with two corners on the same vertex (half a b c of zero area: a zero normal), one with
coordinates a thousand units out, and corners in another order; a car on start records laid there
too: on the road at the grid and further round, a heading with a z component and one not of unit
length (the place levels and scales it), trailing words set, a position above every sector; the
settling on the race's state at the pause, with another step unit (fewer, longer steps), with one
racer only and with none. Values are 16.16 unless said.

    python3 tests/standin/calls/make_setup_calls.py > tests/standin/calls/setup.toml
"""

import math

from call_list import fx, print_call_list, u32, vec, words

FREE = 0x65C000         # free memory (as the paths' calls use it)
MESH = FREE             # a mesh record: +0x0c the vertex array's address
VERTS = FREE + 0x100    # its vertices, 12 bytes each
QUAD = FREE + 0x400     # a quad record (0x3c bytes): +0x2c the corners a b c d (u16)
START = FREE + 0x800    # a start record (0x24 bytes): +0 position, +0x0c heading
SURFACES = 0x62BC0C     # 16 surfaces of 12 bytes
STEP_UNIT = 0x60BDFC
HUMANS, COMPUTERS = 0x61D5BC, 0x61D5C0


def car(r):
    return 0x630838 + 0x558 * r


calls = []


def call(comment, function, args, pokes=()):
    calls.append((comment, function, args, list(pokes)))


# ---- the surface defaults ----------------------------------------------------------------------
call("surface defaults over the race's surfaces", "setup::surface_defaults", [])
call("surface defaults over surfaces poked to other values (every word written)", "setup::surface_defaults", [],
     ["0x%x=%s" % (SURFACES, words(*[0x12345 + 7 * i for i in range(48)]))])


# ---- the quad halves ---------------------------------------------------------------------------
def quad_call(comment, vertices, corners=(0, 1, 2, 3)):
    pokes = ["0x%x=%s" % (MESH + 0x0C, u32(VERTS)),
             "0x%x=%s" % (VERTS, "".join(vec(*v) for v in vertices)),
             # the quad: its normals poked to a marker (the halves' are written over), its corners
             "0x%x=%s" % (QUAD, words(*([0x7777] * 11))),
             "0x%x=%s" % (QUAD + 0x2C, "".join("%04x" % ((c & 0xFF) << 8 | c >> 8) for c in corners))]
    call(comment, "setup::quad_halves", [QUAD, MESH], pokes)


quad_call("a level square (both halves up)", [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0)])
quad_call("a level square, corners the other way round (both halves down)", [(0, 0, 0), (0, 2, 0), (2, 2, 0), (2, 0, 0)])
quad_call("a slanted square (a 30 degree slope)",
          [(0, 0, 0), (4, 0, 0), (4, 4 * math.cos(math.pi / 6), 2), (0, 4 * math.cos(math.pi / 6), 2)])
quad_call("a non-planar quad (corner d raised: the halves differ)", [(0, 0, 0), (3, 0, 0), (3, 3, 0), (0, 3, 1.5)])
quad_call("a wall quad (on its side)", [(0, 0, 0), (0, 0, 1.5), (5, 0, 1.5), (5, 0, 0)])
quad_call("two corners on one vertex (half a b c of zero area)", [(0, 0, 0), (0, 0, 0), (2, 2, 0), (0, 2, 0)])
quad_call("a small quad (a tenth of a unit)", [(0, 0, 0), (0.1, 0, 0), (0.1, 0.1, 0.01), (0, 0.1, 0)])
quad_call("a quad a thousand units out", [(1000, -1000, 20), (1004, -1000, 20), (1004, -996, 21), (1000, -996, 20)])
quad_call("corners in another order (c a d b)", [(0, 0, 0), (2, 0, 0), (2, 2, 0.5), (0, 2, 0)], (2, 0, 3, 1))


# ---- the grid slot -----------------------------------------------------------------------------
def start_call(comment, r, position, heading, trailing=(0, 0, 0)):
    pokes = ["0x%x=%s" % (START, vec(*position) + vec(*heading) + words(*trailing))]
    call(comment, "setup::grid_slot", [car(r), START], pokes)


a = 0.1
start_call("racer 0 on the front row's inner slot", 0, (116 * math.cos(a), 116 * math.sin(a), 0),
           (-math.sin(a), math.cos(a), 0))
a = 0.1 - 2 * 0.07
start_call("racer 5 on the third row's outer slot", 5, (121.1 * math.cos(a), 121.1 * math.sin(a), 0),
           (-math.sin(a), math.cos(a), 0))
a = 1.3
start_call("racer 2 a quarter of the way round, heading the other way", 2, (120 * math.cos(a), 120 * math.sin(a), 0),
           (math.sin(a), -math.cos(a), 0))
start_call("racer 3 with a heading that climbs (its z is not read)", 3, (120, 1, 0), (0, 0.8, 0.6))
start_call("racer 4 with a heading three units long", 4, (118, 2, 0), (0, 3, 0))
start_call("racer 6 with the record's trailing words set", 6, (122, 3, 0), (0, 1, 0), (0x11111, -1, 0x7FFFFFFF))
start_call("racer 7 (no drawn object) on a slot", 7, (119, 4, 0), (-0.6, 0.8, 0))
start_call("racer 1 above every sector (the place finds no sector by the hint)", 1, (120, 0, 60), (0, 1, 0))


# ---- the settling ------------------------------------------------------------------------------
# No settling here: under the stand-in's scripted controllers (no port's to replay) and its catch-up
# records, a settling's case says more about them than about the settling. Its cases are in
# setup_edges.toml, with the controllers at the seam and every catch-up record taken away; the one
# disagreement these calls showed (the stand-in's settling runs the catch-up, the port's does not) is
# a choice in port/CHOICES.md (setup::settle).

print_call_list([
    "The start's four functions: the calls that capture cases/standin-setup (scripts/capture-standin) from",
    "the stand-in's snapshot at the pause. Written by make_setup_calls.py (its docstring says what the",
    "states are); regenerate this file with it, never by hand.",
], calls, hex_above=0xFFFF)
