#!/usr/bin/env python3
"""Writes tests/standin/calls/paths.toml: the call list that captures the race's paths
(cases/standin-paths, scripts/capture-standin) from the stand-in's snapshot at the pause.

Two kinds of state. The race's own: each racer's driver and car as the snapshot holds them, its
tracker on the track's paths (src/track.c: 16 nodes on the ring, the inner lane's link, four spurs;
the link table path_links). And small path graphs laid by pokes at 0x65c000 (free memory of the props'
heap), the link table pointed at them, a racer's tracker and body centre poked: a link of two points
running on to a node whose first link has two points; the same link ending at a node with no link out,
at a node whose only link has no points, and nowhere; an empty link. On them: paths::place's nearest
point by F143's distance (|dx|, |dy| or |4 dz| the larger, the first of equals, an empty table, a table
of links without points, a difference of 0x80000000 whose |x| stays negative); paths::track_node with
and without an end node; paths::track's move along a link, past its end onto the node's first link, no
move (equal distances, the next farther), a lost tracker placed again, no tracker, no wheel down, a
node that leads nowhere; paths::lane_target's line point (along, past the end, no end, no tracker);
catch_up::target in and out of the racers' range (F151's counts, A35), and step::catch_up with a target
number out of range. Values are 16.16 unless said. The rules: the table of choices, "The race's paths".

    python3 tests/standin/calls/make_paths_calls.py > tests/standin/calls/paths.toml
"""

from call_list import fx, print_call_list, u32, vec


def driver(r):
    return 0x61F870 + 0xB0 * r


def car(r):
    return 0x630838 + 0x558 * r


RACER = 1  # the racer whose tracker and car the laid states use (a computer car)
D, C = driver(RACER), car(RACER)
WHEEL = 0xD8  # a car point's size; wheel w's touching byte at car + 0xd8 w + 0x3a

# The laid graph (addresses chosen in free memory).
BASE = 0x65C000
P_A, V_A = BASE + 0x200, BASE + 0x300          # two points (0,0,0), (10,0,0)
P_C, V_C = BASE + 0x600, BASE + 0x640          # two points (30,0,0), (40,0,0)
L_A, N_B, LIST_B, L_C = BASE + 0x400, BASE + 0x500, BASE + 0x540, BASE + 0x580
L_E = BASE + 0x680                              # a link of no points
N_D, L_D = BASE + 0x700, BASE + 0x740           # a node with no link out, a link ending there
N_F, LIST_F, L_F = BASE + 0x780, BASE + 0x7C0, BASE + 0x800  # a node whose only link has no points
L_N = BASE + 0x840                              # a link ending nowhere


def link(addr, end, points, values, count, start=0):
    return "0x%x=%s" % (addr, u32(0) + u32(0) + u32(end) + u32(start) + u32(points) + u32(values) + u32(count))


def node(addr, pos, count, links, value=0):
    return "0x%x=%s" % (addr, vec(*pos) + u32(count) + u32(0) + u32(links) + u32(0) + u32(value))


GRAPH = [
    "0x%x=%s" % (P_A, vec(0, 0, 0) + vec(10, 0, 0)),
    "0x%x=%s" % (V_A, u32(0) + u32(fx(10))),
    "0x%x=%s" % (P_C, vec(30, 0, 0) + vec(40, 0, 0)),
    "0x%x=%s" % (V_C, u32(fx(30)) + u32(fx(40))),
    link(L_A, N_B, P_A, V_A, 2),
    node(N_B, (20, 0, 0), 1, LIST_B, fx(20)),
    "0x%x=%s" % (LIST_B, u32(L_C)),
    link(L_C, 0, P_C, V_C, 2, start=N_B),
    link(L_E, 0, 0, 0, 0),
    node(N_D, (20, 0, 0), 0, 0),
    link(L_D, N_D, P_A, V_A, 2),
    node(N_F, (20, 0, 0), 1, LIST_F),
    "0x%x=%s" % (LIST_F, u32(L_E)),
    link(L_F, N_F, P_A, V_A, 2),
    link(L_N, 0, P_A, V_A, 2),
]


def table(*links):
    return ["path_links=" + u32(len(links)) + "".join(u32(l) for l in links)]


def tracker(l, k):
    return ["0x%x=%s" % (D + 0x2C, u32(l) + u32(k))]


def at(x, y, z):
    return ["0x%x=%s" % (C + 0x498, vec(x, y, z))]


def wheels(*down):
    return ["0x%x=%s" % (C + WHEEL * w + 0x3A, "%02x" % (1 if w in down else 0)) for w in range(4)]


calls = []


def call(comment, function, args, pokes=()):
    calls.append((comment, function, args, list(pokes)))


# ---- paths::place --------------------------------------------------------------------------------
for r in range(8):
    call("place: racer %d as the race holds it (the track's paths)" % r, "paths::place", [driver(r), car(r)])
LAID = GRAPH + table(L_A, L_C)
call("place: nearest by |dx| (the second point)", "paths::place", [D, C], LAID + tracker(0, 0) + at(9, 1, 0))
call("place: nearest by |dy| on the next link", "paths::place", [D, C], LAID + tracker(0, 0) + at(31, -3, 0))
call("place: |4 dz| the larger (a car 2 above the first point, 3 along)", "paths::place", [D, C],
     LAID + tracker(0, 0) + at(3, 0, 2))
call("place: |4 dz| decides between two points (one lower and farther along)", "paths::place", [D, C],
     GRAPH + ["0x%x=%s" % (P_C, vec(0, 6, 0) + vec(0, 0, 1.2))] + table(L_C) + tracker(0, 0) + at(0, 0, 0))
call("place: equal distances: the first in the table's order", "paths::place", [D, C],
     LAID + tracker(0, 0) + at(5, 0, 0))
call("place: equal distances across links: the first link", "paths::place", [D, C],
     GRAPH + table(L_C, L_A) + tracker(0, 0) + at(20, 0, 0))
call("place: behind the first point (negative differences)", "paths::place", [D, C], LAID + tracker(0, 0) + at(-7, -2, -1))
call("place: an empty table: nothing written", "paths::place", [D, C], GRAPH + table() + tracker(L_C, 1) + at(1, 0, 0))
call("place: a table of links without points: nothing written", "paths::place", [D, C],
     GRAPH + table(L_E, L_E) + tracker(L_C, 1) + at(1, 0, 0))
call("place: an empty link before one with points", "paths::place", [D, C], GRAPH + table(L_E, L_C) + tracker(0, 0) + at(41, 0, 0))
call("place: a difference of 0x80000000 (|dx| stays negative and wins)", "paths::place", [D, C],
     GRAPH + ["0x%x=%s" % (P_C, u32(0x7FFFFFFF) + u32(0) + u32(0) + vec(1, 0, 0))] + table(L_C) + tracker(0, 0)
     + ["0x%x=%s" % (C + 0x498, u32(0xFFFFFFFF) + u32(0) + u32(0))])

# ---- paths::track_node ---------------------------------------------------------------------------
call("track_node: a link ending at a node", "paths::track_node", [L_A], GRAPH)
call("track_node: a link ending nowhere", "paths::track_node", [L_N], GRAPH)

# ---- paths::track --------------------------------------------------------------------------------
for r in range(8):
    call("track: racer %d as the race holds it" % r, "paths::track", [driver(r), car(r)])
DOWN = wheels(0, 1, 2, 3)
call("track: no tracker", "paths::track", [D, C], LAID + tracker(0, 0) + DOWN + at(9, 0, 0))
call("track: no wheel down: the tracker stays", "paths::track", [D, C], LAID + tracker(L_A, 0) + wheels() + at(9, 0, 0))
call("track: only wheel 3 down: along the link", "paths::track", [D, C], LAID + tracker(L_A, 0) + wheels(3) + at(6, 0, 0))
call("track: along the link (the next point nearer)", "paths::track", [D, C], LAID + tracker(L_A, 0) + DOWN + at(6, 1, 0))
call("track: equal distances: no move", "paths::track", [D, C], LAID + tracker(L_A, 0) + DOWN + at(5, 0, 0))
call("track: the next farther, within 8: no move", "paths::track", [D, C], LAID + tracker(L_A, 0) + DOWN + at(2, 3, 0))
call("track: the next farther, beyond 8: placed again", "paths::track", [D, C],
     LAID + tracker(L_A, 1) + DOWN + at(9, 0, 2.5))
call("track: lost beyond 8 while the node is farther: found on the other link", "paths::track", [D, C],
     GRAPH + ["0x%x=%s" % (P_C, vec(0, 6, 0) + vec(0, 0, 1.2))] + table(L_A, L_C) + tracker(L_A, 1) + DOWN
     + at(0, 9, 0))
call("track: exactly 8 away: not lost", "paths::track", [D, C], LAID + tracker(L_A, 0) + DOWN + at(-8, 0, 0))
call("track: past the end, the node nearer: onto the node's first link", "paths::track", [D, C],
     LAID + tracker(L_A, 1) + DOWN + at(16, 0, 0))
call("track: past the end, the node farther: stays", "paths::track", [D, C], LAID + tracker(L_A, 1) + DOWN + at(12, 0, 0))
call("track: past the end, a node with no link out: stays", "paths::track", [D, C],
     LAID + tracker(L_D, 1) + DOWN + at(17, 0, 0))
call("track: past the end, the node's only link without points: stays", "paths::track", [D, C],
     LAID + tracker(L_F, 1) + DOWN + at(17, 0, 0))
call("track: past the end of a link ending nowhere, near: stays", "paths::track", [D, C],
     LAID + tracker(L_N, 1) + DOWN + at(14, 0, 0))
call("track: past the end of a link ending nowhere, lost: placed again", "paths::track", [D, C],
     LAID + tracker(L_N, 1) + DOWN + at(35, 0, 0))

# ---- paths::lane_target --------------------------------------------------------------------------
for r in range(8):
    call("lane_target: racer %d as the race holds it" % r, "paths::lane_target", [driver(r)])
call("lane_target: along the link", "paths::lane_target", [D], GRAPH + tracker(L_A, 0))
call("lane_target: past the end: the node", "paths::lane_target", [D], GRAPH + tracker(L_A, 1))
call("lane_target: past the end of a link ending nowhere: 0", "paths::lane_target", [D], GRAPH + tracker(L_N, 1))
call("lane_target: no tracker: 0", "paths::lane_target", [D], tracker(0, 0) + ["0x%x=%s" % (D + 0x5C, u32(0x12345678))])

# ---- catch_up::target ----------------------------------------------------------------------------
for n in (0, 1, 6, 7):
    call("target: racer %d" % n, "catch_up::target", [n])
call("target: 8, one past the last racer: 0", "catch_up::target", [8])
call("target: -1: 0", "catch_up::target", [-1])
call("target: 0x7fffffff: 0", "catch_up::target", [0x7FFFFFFF])
call("target: 0x80000000 (negative): 0", "catch_up::target", [-0x80000000])
call("target: one human and no computer cars: racer 1 is none", "catch_up::target", [1],
     ["racer_counts=" + u32(1) + u32(0)])
call("target: no human, three computer cars: racer 2 is one", "catch_up::target", [2],
     ["racer_counts=" + u32(0) + u32(3)])

# ---- step::catch_up through the target function --------------------------------------------------
CU = 0x4F97C8 + 0x10 * RACER
call("catch_up: a target number out of range: no scaling", "step::catch_up", [C, D], ["0x%x=%s" % (CU, u32(9))])
call("catch_up: a negative target number: no scaling", "step::catch_up", [C, D], ["0x%x=%s" % (CU, u32(-1))])
call("catch_up: racer 1 keeping near racer 0", "step::catch_up", [C, D], ["0x%x=%s" % (CU, u32(0))])
call("catch_up: racer 1 keeping near racer 7 (no tracker: straight)", "step::catch_up", [C, D], ["0x%x=%s" % (CU, u32(7))])


print_call_list([
    "The race's paths: the calls that capture cases/standin-paths (scripts/capture-standin) from the",
    "stand-in's snapshot at the pause. Written by make_paths_calls.py (its docstring says what the states",
    "are and how they are laid); regenerate this file with it, never by hand.",
], calls, hex_above=0xFFFF)
