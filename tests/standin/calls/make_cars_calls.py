#!/usr/bin/env python3
"""Writes tests/standin/calls/cars.toml: the call list that captures car against car and damage
(cases/standin-cars, scripts/capture-standin) from the stand-in's snapshot at the pause.

The recorded race does not run the collision pass yet, so every state here is laid by pokes, named by
the profile's instances and labels (harness/profiles/pod.toml): two cars placed apart, touching and
overlapping, closing and separating, impulses on both sides of 0x2000 (F097), the damage option off,
on, vetoed, both modes, half the impulse at 50,000 - 1, 0, + 1 (F102), parts running out with and
without their chain (F103), and every part bit's wheel hurts (F105). Values are 16.16 unless said.

    python3 tests/standin/calls/make_cars_calls.py > tests/standin/calls/cars.toml
"""
import math
import struct

from call_list import add, fx, print_call_list, u32, vec, words


def u8(v):
    return struct.pack("<B", v).hex()


CAR_SIZE = 0x558
POINT = 0xD8
PART_SIZE = 0xA4
# The stand-in's wheel offsets in the body frame (physics/setup.c): front left, rear left, front
# right, rear right; the wheel centres hang 0.3 below them here.
WHEELS = [(1.3, 0.9), (-1.3, 0.9), (1.3, -0.9), (-1.3, -0.9)]
DT = 0x888  # the frame's time, 1/30 s: frame_time +0x8 (step_dt)


def yaw(deg):
    a = math.radians(deg)
    return (math.cos(a), math.sin(a), 0.0), (-math.sin(a), math.cos(a), 0.0), (0.0, 0.0, 1.0)


def pitch(deg):
    a = math.radians(deg)
    return (math.cos(a), 0.0, math.sin(a)), (0.0, 1.0, 0.0), (-math.sin(a), 0.0, math.cos(a))


def place(racer, centre, axes=None, velocity=(0.0, 0.0, 0.0), sound=None):
    """Pokes that put racer's car and its drawn object at `centre` with the axes `axes` (forward,
    left, up), moving at `velocity`: the body centre, axes and velocity, the wheel and chassis points,
    the object's matrix (the axes as columns) and position (the chassis point less up x 0.6, F089)."""
    f, l, u = axes or yaw(0)
    car = "car[%d]" % racer
    obj = "object[%d]" % racer
    pokes = [
        "%s+0x498=%s" % (car, vec(*centre)),
        "%s+0x4a4=%s%s%s" % (car, vec(*f), vec(*l), vec(*u)),
        "%s+0x4c8=%s" % (car, vec(*velocity)),
    ]
    for i, (ox, oy) in enumerate(WHEELS):
        pokes.append("%s+0x%x=%s" % (car, i * POINT, vec(*add(centre, (ox, f), (oy, l), (-0.3, u)))))
    pokes.append("%s+0x%x=%s" % (car, 4 * POINT, vec(*centre)))
    matrix = [f[0], l[0], u[0], f[1], l[1], u[1], f[2], l[2], u[2]]
    pokes.append("%s+0x48=%s" % (obj, words(*[fx(v) for v in matrix])))
    pokes.append("%s+0x6c=%s" % (obj, vec(*add(centre, (-0.6, u)))))
    if sound is not None:
        pokes.append("%s+0x4f9=%s" % (car, u8(sound)))
    return pokes


# The two cars' scene near (200, 40, 3): far from the stand-in's own cars of racers 2..7.
HERE = (200.0, 40.0, 3.0)
FRAME = ["frame_time[0]+0x8=%s" % u32(DT)]


def scene(offset, axes_b=None, va=(0.0, 0.0, 0.0), vb=(0.0, 0.0, 0.0), sound_a=None, sound_b=None):
    b = add(HERE, (1.0, offset))
    return FRAME + place(0, HERE, velocity=va, sound=sound_a) + place(1, b, axes_b, vb, sound_b)


def damage(option, veto=0):
    return ["damage_option=%s" % u32(option), "damage_veto=%s" % u32(veto)]


def part(racer, j):
    return "part[%d]" % (racer * 22 + j)


calls = []


def call(comment, function, args, pokes=(), repeat=1):
    calls.append((comment, function, args, list(pokes), repeat))


# ---- hulls (F147, F148) ------------------------------------------------------------------------
box8 = words(*[fx(v) for v in (-1.5, -0.25, 0.0, 2.25, 0.5, 1.0, 0.5, -3.0, -0.75,
                                1.0, 0.75, 0.5, -0.5, 0.0, 2.0, 0.0, 0.0, 0.0,
                                3.0, 1.0, -1.0, -2.0, 0.25, 0.25)])
call("a box of eight vertices, both signs on every axis", "world::hull_box", ["hex:" + box8, 8, "hull[170]"])
call("three vertices, all negative", "world::hull_box",
     ["hex:" + vec(-1, -2, -3) + vec(-4, -0.5, -6) + vec(-2, -7, -0.25), 3, "hull[170]"])
call("one vertex: half sizes 0, centre the vertex", "world::hull_box", ["hex:" + vec(5.5, -2.25, 1), 1, "hull[170]"])
call("no vertices: the start values' box", "world::hull_box", ["hex:" + vec(1, 1, 1), 0, "hull[170]"])
call("the extreme words: 32-bit wrapping of max - min and max + min", "world::hull_box",
     ["hex:" + words(0x7FFFFFFF, -0x80000000, 1) + words(-0x80000000, 0x7FFFFFFF, -1), 2, "hull[170]"])
for low, high, why in [(0, 0, "0"), (1, 0, "1"), (3, 0, "3 (rounded down)"), (4, 0, "4"),
                       (0xFFFFFFFF, 0, "2^32 - 1"), (0, 1, "2^32"), (0xFFFFFFFF, 0xFFFFFFFF, "2^64 - 1"),
                       (0x00000001, 0x00040000, "just above 2^50"), (0x12345678, 0x9ABC, "a large odd value")]:
    call("sqrt of %s" % why, "math::sqrt", [low, high])
call("racer 0's body part 0's hull as set up", "world::hull_radius", ["hull[0]"])
call("half sizes 3 and -4: radius 5, z not included", "world::hull_radius", ["hull[170]"],
     ["hull[170]=" + vec(3, -4, 100)])
call("half sizes 0", "world::hull_radius", ["hull[170]"], ["hull[170]=" + vec(0, 0, 0)])
call("the largest half sizes: the squares' sum past 2^63", "world::hull_radius", ["hull[170]"],
     ["hull[170]=" + words(0x7FFFFFFF, -0x80000000, 0)])
call("a body part's hull from its vertices", "world::part_hull", [part(0, 0)], [part(0, 0) + "+0x34=" + u32(0x648000 + 170 * 0x1c)])
call("a damaged set's part", "world::part_hull", [part(2, 9)])
call("a wheel part", "world::part_hull", [part(0, 18)])
call("a part with no vertices", "world::part_hull", [part(3, 1)], [part(3, 1) + "=" + u32(0)])
call("Prisme on racer 0's object: ten part hulls and the whole car's", "world::prisme", ["object[0]"])
call("Prisme with a part of no vertices (wheel 2's): the box of the other nine", "world::prisme", ["object[5]"],
     [part(5, 20) + "=" + u32(0)])
call("Prisme with a front part's vertex pulled out to x = 3, z = -1", "world::prisme", ["object[4]"],
     ["0x%x=%s" % (0x64B000 + (4 * 22 + 4) * 0x60 + 12 * 7, vec(3, 1.2, -1))])

# ---- distance and normal ------------------------------------------------------------------------
call("centres 3, 4, 12 apart", "cars::centre_distance", ["hex:" + vec(1, 2, 3), "hex:" + vec(4, 6, 15)])
call("the same centre", "cars::centre_distance", ["hex:" + vec(7, -7, 1), "hex:" + vec(7, -7, 1)])
call("centres far apart", "cars::centre_distance", ["hex:" + vec(-300, 200, 0), "hex:" + vec(300, -250, 40)])
call("normal along x", "cars::normal", ["hex:" + vec(0, 0, 0), "hex:" + vec(2.5, 0, 0), "contact[0]"])
call("normal on a diagonal, b below a", "cars::normal", ["hex:" + vec(10, 10, 1), "hex:" + vec(7, 14, 0), "contact[0]"])
call("the same centre: the normal is up", "cars::normal", ["hex:" + vec(3, 3, 3), "hex:" + vec(3, 3, 3), "contact[0]"])
call("centres 2^-14 apart: a divisor inside the reciprocal table's range", "cars::normal",
     ["hex:" + words(0, 0, 0), "hex:" + words(4, 0, 0), "contact[0]"])

# ---- the hull test (F090, F091): object[0] at HERE, object[1] placed around it -------------------------
tests = [
    ("apart along x: past the summed radii", (10, 0, 0), None),
    ("apart along y", (0, -6, 0), None),
    ("apart along z", (0, 0, 5), None),
    ("within the radii on each axis but the centres beyond them", (3.5, 3.5, 0), None),
    ("centres within the radii, side by side with a gap: the reach falls short", (0, 3.0, 0), None),
    ("side by side 2.4 apart: the table's length of the distance (2.4 less 3/65536) leaves an overlap of 5/65536", (0, 2.4, 0), None),
    ("side by side 2.4 + 1/65536 apart: reach and distance both 0x26666, overlap exactly 0: no contact", (0, 0x26667 / 65536, 0), None),
    ("side by side, overlapping by 0.2", (0, 2.2, 0), None),
    ("nose to tail, b behind a, overlapping", (-3.8, 0.3, 0), None),
    ("b turned 30 degrees, overlapping at a's front right", (3.0, -1.0, 0), yaw(30)),
    ("b turned 90 degrees across a's nose", (2.9, 0.5, 0.2), yaw(90)),
    ("b pitched 20 degrees, riding onto a's rear", (-3.5, 0, 0.8), pitch(20)),
    ("the same centre", (0, 0, 0), None),
]
for why, off, axes in tests:
    call("hull test: " + why, "cars::hull_test", ["object[0]", "object[1]", "contact[0]"], scene(off, axes))
call("hull test: b's hull radius 0 (a point), inside a", "cars::hull_test", ["object[0]", "object[1]", "contact[0]"],
     scene((0.5, 0.5, 0)) + ["object[1]+0x10=" + words(0, 0, 0, 0, 0, 0, 0)])

# ---- the parts near a contact (F092): racer 0 at HERE, the contact laid in the record ---------------------
def contact(point, spread):
    return ["contact[0]+0x10=" + vec(*point) + vec(*spread)]


for why, local, spread in [
    ("a's front left corner", (1.9, 1.1, 0.6), (0.05, 0.05, 0.05)),
    ("a's rear right, 0.8 up: wheel 3 only (the body part misses by 1/65536: 0.8 > 0.6 + 0.2 in 16.16)", (-1.8, -1.0, 0.8), (0.1, 0.0, 0.2)),
    ("a's left side, middle", (0.0, 1.25, 0.7), (0.0, 0.3, 0.0)),
    ("at wheel 0 (front left), low", (1.3, 0.9, 0.1), (0.02, 0.02, 0.02)),
    ("on the centre line, a wide spread", (0.0, 0.0, 0.6), (1.0, 0.5, 0.1)),
    ("far from every part", (5.0, 0.0, 0.6), (0.1, 0.1, 0.1)),
    ("just outside the front by more than the spread", (2.2, 0.5, 0.6), (0.1, 0.05, 0.0)),
]:
    world = add(HERE, (1.0, (local[0], local[1], local[2] - 0.6)))
    call("parts near: " + why, "cars::mark_parts", ["object[0]", "car[0]", "contact[0]"],
         FRAME + place(0, HERE) + contact(world, spread))
call("parts near: the object turned 90 degrees, a contact at its front left", "cars::mark_parts",
     ["object[0]", "car[0]", "contact[0]"],
     place(0, HERE, yaw(90)) + contact(add(HERE, (1.0, (-1.1, 1.9, 0.0))), (0.05, 0.05, 0.05)))
call("parts near: an object counting eleven parts (the eleventh, racer 1's part 0 by the list after racer 0's, placed by its offset)",
     "cars::mark_parts", ["object[0]", "car[0]", "contact[0]"],
     place(0, HERE) + contact(add(HERE, (1.0, (-1.3, 0.6, -0.6))), (0.02, 0.02, 0.02)) + ["object[0]=" + u32(11)])
call("parts near: an object holding six parts (no wheels)", "cars::mark_parts", ["object[0]", "car[0]", "contact[0]"],
     place(0, HERE) + contact(add(HERE, (1.0, (1.3, 0.9, -0.5))), (0.02, 0.02, 0.02)) + ["object[0]=" + u32(6)])

# ---- the impulse (F093) and its carrying (F094) --------------------------------------------------------
for why, va, vb, masses in [
    ("closing at 5 along x", (5, 0, 0), (0, 0, 0), None),
    ("closing at 20, both moving", (12, 1, 0), (-8, 3, 0), None),
    ("separating", (-3, 0, 0), (2, 0, 0), None),
    ("sliding past: no closing speed", (0, 7, 0), (0, -7, 0), None),
    ("closing at 120 (damage's range)", (120, 0, 0), (0, 0, 0), None),
    ("closing at 20, masses 32 and 48", (20, 0, 0), (0, 0, 0), (32, 48)),
    ("closing, masses 0: no impulse", (20, 0, 0), (0, 0, 0), (0, 0)),
]:
    pokes = FRAME + ["car[0]+0x4c8=" + vec(*va), "car[1]+0x4c8=" + vec(*vb)]
    if masses:
        pokes += ["car[0]+0x520=" + u32(fx(masses[0])), "car[1]+0x520=" + u32(fx(masses[1]))]
    call("impulse: " + why, "cars::impulse", ["car[0]", "car[1]", "hex:" + vec(1, 0, 0)], pokes)
call("impulse: closing on a diagonal normal, a short frame", "cars::impulse", ["car[0]", "car[1]", "hex:" + vec(0.6, 0.8, 0)],
     ["frame_time[0]+0x8=" + u32(0x100), "car[0]+0x4c8=" + vec(9, 9, 0), "car[1]+0x4c8=" + vec(0, 0, 0)])
for why, axes, normal, impulse in [
    ("along the forward axis", yaw(0), (1, 0, 0), 12000),
    ("against the left axis, negative impulse", yaw(0), (0.1, -0.99, 0.0), -30000),
    ("along up", yaw(0), (0, 0.3, 0.95), 5000),
    ("a tie between forward and left: forward", yaw(0), (0.6, 0.6, 0.52915), 20000),
    ("the car turned 30 degrees, the normal along x", yaw(30), (1, 0, 0), 40000),
]:
    call("carry: " + why, "cars::carry", ["car[0]", "hex:" + vec(*normal), impulse, "hex:" + vec(*add(HERE, (1.0, (1.5, -0.8, 0.2))))],
         place(0, HERE, axes))

# ---- one pair (F095-F097) --------------------------------------------------------------------------
SIDE = (0, 2.2, 0)   # b beside a, overlapping by 0.2
NOSE = (3.8, 0.2, 0)  # b ahead of a, overlapping
pairs = [
    ("apart: nothing", scene((0, 8, 0)), [0, 1]),
    ("racer 7 has no drawn object", [], [0, 7]),
    ("racer 7 first: the first car has no drawn object", [], [7, 0]),
    ("overlapping, standing: pushed apart, impulse 0", scene(SIDE), [0, 1]),
    ("overlapping, separating: impulse 0, still pushed", scene(SIDE, va=(0, -2, 0), vb=(0, 3, 0)), [0, 1]),
    ("closing at 5: a weak impulse, neither car's contact bit", scene(SIDE, va=(0, 5, 0)), [0, 1]),
    ("closing at 5, both cars' contact bit set: cleared", scene(SIDE, va=(0, 5, 0), sound_a=0x21, sound_b=0x20), [0, 1]),
    ("closing at 5, only a's bit set: kept", scene(SIDE, va=(0, 5, 0), sound_a=0x20, sound_b=0), [0, 1]),
    ("closing at 20: over 0x2000, bit set in both, a plays slot 7", scene(SIDE, va=(0, 12, 0), vb=(0, -8, 0), sound_a=0, sound_b=0x04), [0, 1]),
    ("closing at 20, both bits already set: kept, no sound", scene(SIDE, va=(0, 20, 0), sound_a=0x20, sound_b=0x20), [0, 1]),
    ("closing at 20, only b's bit set: nothing changes", scene(SIDE, va=(0, 20, 0), sound_a=0, sound_b=0x20), [0, 1]),
    ("nose to tail, b turned 30 degrees, closing at 15", scene(NOSE, yaw(30), va=(15, 0, 0)), [0, 1]),
    ("the pair the other way round (b first)", scene(SIDE, va=(0, 20, 0)), [1, 0]),
    ("overlapping but b has no part near: b's list empty", scene(SIDE, va=(0, 20, 0)) + ["object[1]=" + u32(0)], [0, 1]),
    ("overlapping but a has no part near: a's list empty", scene(SIDE, va=(0, 20, 0)) + ["object[0]=" + u32(0)], [0, 1]),
    ("closing at 120, damage off", scene(SIDE, va=(0, 120, 0)) + damage(0), [0, 1]),
    ("closing at 120, damage on (all six parts)", scene(SIDE, va=(0, 120, 0)) + damage(1), [0, 1]),
    ("closing at 120, damage on (the contact's parts)", scene(SIDE, va=(0, 120, 0)) + damage(2), [0, 1]),
    ("closing at 120, damage on but vetoed", scene(SIDE, va=(0, 120, 0)) + damage(1, 1), [0, 1]),
    ("closing at 120, the contact's parts, a's near parts low: they break", scene(SIDE, va=(0, 120, 0)) + damage(2)
     + [part(0, j) + "+0x3c=" + u32(1000) for j in range(6)], [0, 1]),
]
for why, pokes, args in pairs:
    call("pair: " + why, "cars::pair", args, pokes)
call("pair: closing at 20 three times over, the state carried", "cars::pair", [0, 1],
     scene(SIDE, va=(0, 20, 0)), repeat=3)

# ---- the collision pass (F088) ---------------------------------------------------------------------
call("collisions: the snapshot as it is", "cars::collisions", [])
call("collisions: racers 0 and 1 overlapping and closing", "cars::collisions", [], scene(SIDE, va=(0, 20, 0)))
call("collisions: racers 0 and 1 overlapping, damage on", "cars::collisions", [],
     scene(SIDE, va=(0, 120, 0)) + damage(2))
call("collisions: two racers counted", "cars::collisions", [],
     scene(SIDE, va=(0, 20, 0)) + ["racer_counts=" + u32(1) + u32(1)])
call("collisions: one racer: no pair", "cars::collisions", [], ["racer_counts=" + u32(1) + u32(0)])
call("collisions: no racers", "cars::collisions", [], ["racer_counts=" + u32(0) + u32(0)])

# ---- damage::hit (F098, F102, F103) on racer 0 -------------------------------------------------------
hits = [
    ("option off", damage(0), 0x3F, 400000),
    ("option on, vetoed by [0x633314]", damage(1, 1), 0x3F, 400000),
    ("mode 1, half the strength 49,999 (strength 99,999): nothing", damage(1), 0x3F, 99999),
    ("mode 1, half 49,999 (strength 99,998)", damage(1), 0x3F, 99998),
    ("mode 1, half exactly 50,000: shared by six", damage(1), 0x01, 100000),
    ("mode 1, half 50,001", damage(1), 0x01, 100002),
    ("mode 2, the contact's parts 0x30: shared by two", damage(2), 0x30, 300000),
    ("mode 2, only wheel parts in the mask: nothing", damage(2), 0x3C0, 300000),
    ("mode 2, all ten parts in the mask: the six body parts", damage(2), 0x3FF, 300001),
    ("option 3: as mode 1", damage(3), 0x01, 300000),
    ("a negative strength", damage(1), 0x3F, -400000),
    ("part 0 at 10,000 with its chain, a share of 60,000: becomes set 1's part 0 at 1,950,000", damage(2) + [part(0, 0) + "+0x3c=" + u32(10000)], 0x01, 120000),
    ("part 4 at exactly the share (60,000): 0 is a break", damage(2) + [part(0, 4) + "+0x3c=" + u32(60000)], 0x10, 120000),
    ("part 4 one above the share: 1 left, no break", damage(2) + [part(0, 4) + "+0x3c=" + u32(60001)], 0x10, 120000),
    ("part 1 breaks, its template's health below the excess: at least 0",
     damage(2) + [part(0, 1) + "+0x3c=" + u32(1000), part(0, 7) + "+0x3c=" + u32(5000)], 0x02, 120000),
    ("part 2 breaks without a chain: stays at 0", damage(2) + [part(0, 2) + "+0x3c=" + u32(1000), part(0, 2) + "+0x38=" + u32(0)], 0x04, 200000),
    ("part 3 already at 0, no chain: no break again", damage(2) + [part(0, 3) + "+0x3c=" + u32(0), part(0, 3) + "+0x38=" + u32(0)], 0x08, 200000),
    ("mode 1, every part low: all six break, every wheel hurt", damage(1) + [part(0, j) + "+0x3c=" + u32(100 + j) for j in range(6)], 0, 120000),
    ("a chain of two elements: the second runs too",
     damage(2) + [part(0, 5) + "+0x3c=" + u32(10),
                  "chain_element[5]+0x8=" + u32(0x64A000 + 11 * 12)], 0x20, 100000),
]
for why, pokes, parts, strength in hits:
    call("hit: " + why, "damage::hit", ["car[0]", parts, strength], pokes)
call("hit: the racer without a drawn object (racer 7)", "damage::hit", ["car[7]", 0x3F, 400000], damage(1))
call("hit: racer 0 hit hard four times: set 0, set 1, set 2, then no chain", "damage::hit", ["car[0]", 0x3F, 24000000],
     damage(1), repeat=4)
call("to_template: part 0 becomes set 1's part 0", "damage::to_template", [part(0, 0), part(0, 6)])
call("to_template: set 1's part 5 becomes set 2's (no chain)", "damage::to_template", [part(2, 11), part(2, 17)])

# ---- the wheels a broken part hurts (F105) ----------------------------------------------------------------
for bits in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x3F, 0x00, 0x40]:
    call("wheels hurt by part bits 0x%02x" % bits, "damage::wheels_hurt", ["car[0]", bits])
for w in range(4):
    call("wheel %d hurt" % w, "damage::wheel", ["car[2]", w])
call("wheel 1 hurt, radius 2 and negative grips", "damage::wheel", ["car[0]", 1],
     ["car[0]+0x%x=%s" % (POINT + 0x4C, u32(fx(2))), "car[0]+0x%x=%s" % (POINT + 0xB8, u32(fx(-1.5)) + u32(fx(-0.5)))])
for first in (0, 2):
    call("wheels %d and %d hurt" % (first, first + 1), "damage::axle", ["car[3]", first])


print_call_list([
    "Car against car and damage: the calls that capture cases/standin-cars (scripts/capture-standin)",
    "from the stand-in's snapshot at the pause. Written by make_cars_calls.py (its docstring says what",
    "the states are and how they are laid); regenerate this file with it, never by hand.",
], calls)
