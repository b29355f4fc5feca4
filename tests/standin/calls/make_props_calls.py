#!/usr/bin/env python3
"""Writes tests/standin/calls/props.toml: the call list that captures the props (cases/standin-props,
scripts/capture-standin) from the stand-in's snapshot at the pause.

Every state is laid by pokes, named by the profile's labels and instances (harness/profiles/pod.toml),
so the calls do not depend on which props the race holds at the pause: a list of props written at
0x658000 (records), 0x65a000 (hulls) and 0x65b000 (contact points), [0x62129c] and [0x621298] pointed
at it, their hit flags laid. Their records follow the props' entries of the table of choices (the prop
record, the contact point, the environment's format). The faces come from the stand-in's track:
its sector table at 0x800000 (the first block of the track's heap, src/track.c), sector s at
0x800000 + 0x3c s, the road from radius 112 to 128 at height 0 in sectors 0 and 1, triangles in
sectors 2 and 3, sector 24 out of play. The states: a type read with and without points and a chain;
the centre of mass; the list built from an environment (the stand-in's own, one prop outside every
sector, more than 32 props); a prop on the ground, against a wall, in the air, beyond the ground's
reach, over a triangle, in a sector out of play; impulses leaving health, taking it to 0 with and
without a chain, on a prop already at 0, negative; a car hitting a prop and missing it; props
touching side by side and stacked either way (slants either side of 0.885, F114); motion falling,
resting on 2 and on 3 points (F120), spinning on the ground (F119), held by friction and sliding
(F117), against a wall, held by a neighbour, fallen 8 below its sector (F121); removal closing the
list up; whole collision passes. Values are 16.16 unless said.

    python3 tests/standin/calls/make_props_calls.py > tests/standin/calls/props.toml
"""
import math
import struct

from call_list import add, fx, print_call_list, u32, vec, words


def u8s(*v):
    return bytes(v).hex()


DT = 0x888  # the step's time, 1/30 s: frame_time +0x8
FRAME = ["frame_time[0]+0x8=%s" % u32(DT)]
SECTORS = 0x800000
SECTOR_SIZE = 0x3C


def sector(s):
    return SECTORS + SECTOR_SIZE * s


PROPS = 0x658000   # the laid list's records
HULLS = 0x65A000   # one hull per laid prop, 0x20 apart
POINTS = 0x65B000  # each laid prop's points, 0x200 apart (up to 8 points)
CHAINS = 0x65F000  # chain elements
TEMPLATES = 0x65F100  # template records the chains turn props into
TO_TEMPLATE = 0x4545A8


def identity():
    return (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)


def yaw(deg):
    a = math.radians(deg)
    return (math.cos(a), math.sin(a), 0.0), (-math.sin(a), math.cos(a), 0.0), (0.0, 0.0, 1.0)


def roll(deg):
    a = math.radians(deg)
    return (1.0, 0.0, 0.0), (0.0, math.cos(a), math.sin(a)), (0.0, -math.sin(a), math.cos(a))


def matrix(axes):
    """Axes (forward, left, up) as the columns of a matrix stored row by row."""
    f, l, u = axes
    return [f[0], l[0], u[0], f[1], l[1], u[1], f[2], l[2], u[2]]


# Shapes: (half sizes, hull centre, points as (radius, offset, mass)), offsets from the centre of mass.
def box_points(half=0.3, radius=0.05, mass=0.5):
    return [(radius, (sx * half, sy * half, sz * half), mass) for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)]


BOX = dict(half=(0.3, 0.3, 0.3), centre=(0.0, 0.0, 0.0), points=box_points(), mass=4.0, inertia=(0.25, 0.25, 0.25),
           friction=0.6, health=3000)
CONE = dict(half=(0.25, 0.25, 0.4), centre=(0.0, 0.0, 0.306),
            points=[(0.05, (0.25, 0.0, -0.094), 0.25), (0.05, (-0.125, 0.2165, -0.094), 0.25),
                    (0.05, (-0.125, -0.2165, -0.094), 0.25), (0.05, (0.0, 0.0, 0.706), 0.1)],
            mass=0.85, inertia=(0.05, 0.05, 0.05), friction=0.5, health=3000)
STICK = dict(half=(0.5, 0.05, 0.05), centre=(0.0, 0.0, 0.0),
             points=[(0.05, (-0.45, 0.0, 0.0), 1.0), (0.05, (0.45, 0.0, 0.0), 1.0)],
             mass=2.0, inertia=(0.1, 0.3, 0.3), friction=0.6, health=3000)

BOX_REST = 0.35    # a box's centre of mass resting on flat ground (half 0.3 + point radius 0.05)
CONE_REST = 0.144  # a cone's (its base points 0.094 below, radius 0.05)


def radius_of(half):
    return math.sqrt(half[0] ** 2 + half[1] ** 2)


def prop(k, shape, position, axes=None, velocity=(0, 0, 0), spin=(0, 0, 0), force=(0, 0, 0), torque=(0, 0, 0),
         sec=1, health=None, chain=0, rest_face=0, rest_point=(0, 0, 0), wall_face=0, wall_point=(0, 0, 0), held=0):
    """Pokes laying prop record k of the laid list (its hull and points too)."""
    rec = PROPS + 0xD0 * k
    hull = HULLS + 0x20 * k
    pts = POINTS + 0x200 * k
    m = matrix(axes or identity())
    body = bytearray(0xD0)

    def put(off, data):
        body[off:off + len(data)] = data

    put(0x00, struct.pack("<I", 1 + k))
    put(0x1C, struct.pack("<i", fx(shape["mass"])))
    put(0x20, struct.pack("<i", fx(shape["friction"])))
    put(0x24, bytes.fromhex(vec(*shape["inertia"])))
    put(0x30, struct.pack("<i", len(shape["points"])))
    put(0x34, struct.pack("<I", hull))
    put(0x38, struct.pack("<I", chain))
    put(0x3C, struct.pack("<i", shape["health"] if health is None else health))
    put(0x40, bytes.fromhex(words(*[fx(v) for v in m])))
    put(0x64, bytes.fromhex(vec(*rest_point)))
    put(0x70, struct.pack("<I", rest_face))
    put(0x74, bytes.fromhex(vec(*force)))
    put(0x80, bytes.fromhex(vec(*torque)))
    put(0x8C, bytes.fromhex(vec(*velocity)))
    put(0x98, bytes.fromhex(vec(*position)))
    put(0xA4, bytes.fromhex(vec(*spin)))
    put(0xB4, struct.pack("<I", wall_face))
    put(0xB8, struct.pack("<I", pts))
    put(0xBC, bytes.fromhex(vec(*wall_point)))
    put(0xC8, struct.pack("<I", held))
    pokes = ["0x%x=%s" % (rec, body.hex()),
             "0x%x=%s" % (hull, vec(*shape["half"]) + u32(fx(radius_of(shape["half"]))) + vec(*shape["centre"]))]
    point_bytes = ""
    for radius, offset, mass in shape["points"]:
        p = bytearray(0x40)
        p[0:4] = struct.pack("<i", fx(radius))
        p[4:16] = bytes.fromhex(vec(*offset))
        p[0x1C:0x20] = struct.pack("<i", fx(mass))
        p[0x38:0x3C] = struct.pack("<I", sector(sec))
        point_bytes += p.hex()
    if point_bytes:
        pokes.append("0x%x=%s" % (pts, point_bytes))
    return pokes


def listed(count, flags):
    """The laid list: count props at PROPS, their hit flags."""
    pokes = ["prop_list=" + u32(PROPS), "prop_count=" + u32(count)]
    return pokes + (["prop_hit_flags=" + u8s(*flags)] if flags else [])


def on_ring(angle, radius, z):
    return (radius * math.cos(angle), radius * math.sin(angle), z)


ROAD = 0.35          # rad: sector 1, on the road's quads
TRI = 0.65           # rad: sector 2, the triangles


def road(lane=0.0, z=BOX_REST, angle=ROAD):
    return on_ring(angle, 120.0 + lane, z)


def prop_no(k):
    return "0x%x" % (PROPS + 0xD0 * k)


calls = []


def call(comment, function, args, pokes=(), repeat=1):
    calls.append((comment, function, args, list(pokes), repeat))


# ---- props::kind and props::centre: a type read from bytes ---------------------------------------
def type_bytes(shape, chain=0, object_word=7):
    b = words(object_word) + vec(*shape["half"]) + u32(fx(radius_of(shape["half"]))) + vec(*shape["centre"])
    b += words(fx(shape["mass"])) + vec(*shape["inertia"]) + words(shape["health"], fx(shape["friction"])) + u32(chain)
    b += words(len(shape["points"]))
    for radius, offset, mass in shape["points"]:
        b += words(fx(radius)) + vec(*offset) + words(fx(mass))
    return b


FREE = 0x65C000
TYPE_AT = 0x65E000
call("kind: a box type (eight corners), its hull and points into the free memory", "props::kind",
     ["hex:" + type_bytes(BOX), "0x%x" % TYPE_AT, "0x%x" % FREE])
call("kind: a cone with a chain word", "props::kind", ["hex:" + type_bytes(CONE, chain=CHAINS), "0x%x" % TYPE_AT, "0x%x" % FREE])
call("kind: a type of no points (the hull only)", "props::kind",
     ["hex:" + type_bytes(dict(BOX, points=[])), "0x%x" % TYPE_AT, "0x%x" % FREE])
# centre: the offsets as the file gives them, from the shape's origin (the base), not yet centred
BASE_CONE = dict(CONE, points=[(r, (o[0], o[1], o[2] + 0.094), m) for r, o, m in CONE["points"]], centre=(0, 0, 0.4))
call("centre: a cone from its base (points 0.25 x 3 on the base, 0.1 at the apex)", "props::centre", [prop_no(0)],
     prop(0, BASE_CONE, road(z=0)))
call("centre: a box already centred (the sum 0)", "props::centre", [prop_no(0)], prop(0, BOX, road()))
LOPSIDED = dict(BOX, points=[(0.05, (0.6, 0.0, 0.0), 3.0), (0.05, (-0.6, 0.2, -0.3), 1.0)], mass=4.0)
call("centre: two points of unequal mass, off every axis", "props::centre", [prop_no(0)], prop(0, LOPSIDED, road()))
call("centre: the mass 0: nothing moves", "props::centre", [prop_no(0)], prop(0, dict(BOX, mass=0.0), road()))
call("centre: the mass negative: nothing moves", "props::centre", [prop_no(0)], prop(0, dict(BOX, mass=-1.0), road()))


# ---- props::build: an environment laid in the environment's bytes -----------------------------------
def env_prop(type_no, position, axes=None, macro=0):
    return words(type_no) + u32(macro) + vec(*position) + words(*[fx(v) for v in matrix(axes or identity())])


def environment(types, props):
    b = words(len(types)) + "".join(types) + words(len(props)) + "".join(props)
    return "prop_environment=" + b


ENV_FREE = "0x%x" % 0x652000
two_types = [type_bytes(CONE), type_bytes(BOX, chain=CHAINS)]
call("build: two types, three props (one turned, one with a macro list word)", "props::build",
     ["prop_environment", ENV_FREE],
     [environment(two_types, [env_prop(0, road(-3, CONE_REST)), env_prop(1, road(2), yaw(30), macro=0x1234),
                              env_prop(0, road(4, CONE_REST, TRI))])])
call("build: a prop outside every sector's bounds: its points in the first sector", "props::build",
     ["prop_environment", ENV_FREE],
     [environment(two_types, [env_prop(1, (500.0, 500.0, 0.0))])])
call("build: a type of no points: no sector search", "props::build", ["prop_environment", ENV_FREE],
     [environment([type_bytes(dict(BOX, points=[]))], [env_prop(0, road())])])
call("build: 34 props: at most 32 built", "props::build", ["prop_environment", ENV_FREE],
     [environment([type_bytes(STICK)], [env_prop(0, road(-7 + 0.4 * k, 0.05)) for k in range(34)])])
call("build: no types, no props", "props::build", ["prop_environment", ENV_FREE], [environment([], [])])

# ---- props::faces --------------------------------------------------------------------------------
faces = [
    ("a box resting on the road: ground, no wall", prop(0, BOX, road())),
    ("a box 0.3 from the outer wall: ground and wall", prop(0, BOX, road(7.7))),
    ("a box 0.3 from the inner wall", prop(0, BOX, road(-7.7))),
    ("a box in the air, 2 above the road: nothing", prop(0, BOX, road(z=2.0))),
    ("a box just within its hull's radius above the road", prop(0, BOX, road(z=0.424))),
    ("a box sunk 2 into the road: still the ground (2.29 below)", prop(0, BOX, road(z=-2.0))),
    ("a box 2.5 below the road: too far below", prop(0, BOX, road(z=-2.5))),
    ("a box on the triangles of sector 2 (its first point's sector 1: found among the neighbours)",
     prop(0, BOX, road(z=BOX_REST, angle=TRI))),
    ("a box on the triangles, its points in sector 2", prop(0, BOX, road(z=BOX_REST, angle=TRI), sec=2)),
    ("a box over the gap's open side: no face", prop(0, BOX, on_ring(1.374, 131.0, 1.0), sec=5)),
    ("a box whose first point's sector is out of play (the ledge, no neighbours)",
     prop(0, BOX, on_ring(1.374, 146.0, -4.6), sec=24)),
    ("a type of no points: nothing searched, zeros written", prop(0, dict(BOX, points=[]), road())),
    ("a box beyond the outer wall (behind it, the wall's plane facing away)", prop(0, BOX, road(8.6))),
]
for why, pokes in faces:
    call("faces: " + why, "props::faces", [prop_no(0)], pokes)

# ---- props::impulse (F112) -------------------------------------------------------------------------
CHAIN_POKES = ["0x%x=%s" % (CHAINS, u32(TO_TEMPLATE) + u32(TEMPLATES) + u32(0)),
               "0x%x=%s" % (CHAINS + 12, u32(TO_TEMPLATE) + u32(TEMPLATES + 0xD0) + u32(0)),
               "0x%x=%s" % (TEMPLATES + 0x34, u32(HULLS + 0x20 * 7) + u32(0) + u32(2000)),
               "0x%x=%s" % (TEMPLATES + 0xD0 + 0x34, u32(HULLS + 0x20 * 6) + u32(0) + u32(500))]
N_X = "hex:" + vec(1, 0, 0)
N_SLANT = "hex:" + vec(0.6, 0, 0.8)


def at(*p):
    return "hex:" + vec(*p)


here = road()
impulses = [
    ("4000 along x at the box's corner: force, torque, health 3000 - 2000", N_X, 4000, (here[0] - 0.3, here[1] + 0.3, 0.5), {}),
    ("a slanted normal, 1000", N_SLANT, 1000, (here[0], here[1], 0.6), {}),
    ("exactly the health's double (6000): health 0, no chain", N_X, 6000, here, {}),
    ("8000 without a chain: health 0", N_X, 8000, here, {}),
    ("8000 with a chain: the template's health 2000 less the excess 1000", N_X, 8000, here, dict(chain=CHAINS)),
    ("20000 with a chain: the template's 2000 less 7000: at least 0", N_X, 20000, here, dict(chain=CHAINS)),
    ("8000 with a chain of two elements: both run", N_X, 8000, here, dict(chain=CHAINS + 24)),
    ("on a prop already at 0: stays 0, the chain not run", N_X, 8000, here, dict(health=0, chain=CHAINS)),
    ("a negative impulse: its size comes off the health", N_X, -4000, here, {}),
    ("the impulse 0x80000000: its size stays negative, the health rises", N_X, -0x80000000, here, {}),
    ("0: nothing off", N_X, 0, here, {}),
]
for why, n, j, point, kw in impulses:
    pokes = prop(0, BOX, here, **kw) + CHAIN_POKES
    if kw.get("chain") == CHAINS + 24:
        pokes.append("0x%x=%s" % (CHAINS + 24, u32(TO_TEMPLATE) + u32(TEMPLATES) + u32(CHAINS + 12)))
    call("impulse: " + why, "props::impulse", [prop_no(0), n, j, at(*point)], pokes)

# ---- props::car_hit (F111): racer 0's car and object placed by pokes near a prop -----------------------
CAR_SIZE = 0x558
POINT = 0xD8
WHEELS = [(1.3, 0.9), (-1.3, 0.9), (1.3, -0.9), (-1.3, -0.9)]


def place_car(racer, centre, axes=None, velocity=(0.0, 0.0, 0.0)):
    """racer's car and drawn object at `centre` (as make_cars_calls.py places them)."""
    f, l, u = axes or identity()
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
    pokes.append("%s+0x48=%s" % (obj, words(*[fx(v) for v in matrix((f, l, u))])))
    pokes.append("%s+0x6c=%s" % (obj, vec(*add(centre, (-0.6, u)))))
    return pokes


HERE = (200.0, 40.0, 3.0)  # off the track, as make_cars_calls.py's scene
PROP_AT = (202.2, 40.3, 2.7)  # a box just touching racer 0's front right corner when the car is at HERE


def hit_scene(dx=0.0, velocity=(0.0, 0.0, 0.0), prop_velocity=(0, 0, 0), damage=0, shape=BOX, axes=None):
    pokes = FRAME + place_car(0, HERE, velocity=velocity)
    pokes += prop(0, shape, (PROP_AT[0] + dx, PROP_AT[1], PROP_AT[2]), axes=axes, velocity=prop_velocity)
    pokes += listed(1, [0]) + ["damage_option=" + u32(damage), "damage_veto=" + u32(0)]
    return pokes


def hit_at(offset, **kw):
    pokes = hit_scene(**kw)
    at = (HERE[0] + offset[0], HERE[1] + offset[1], HERE[2] + offset[2])
    return pokes + ["0x%x=%s" % (PROPS + 0x98, vec(*at))]


hits = [
    ("apart: no contact", hit_scene(dx=3.0), 0),
    ("apart along y", hit_at((0, 3.0, 0)), 0),
    ("apart along z", hit_at((0, 0, 3.0)), 0),
    ("within the radii on each axis, the centres beyond them", hit_at((2.2, 1.8, -0.3)), 0),
    ("beside the car with a gap of 0.2: the reach falls short", hit_at((0, 1.7, -0.3)), 0),
    ("behind the car's rear left, the car reversing at 8", hit_at((-2.18, 1.2, -0.3), velocity=(-8, 0, 0)), 0),
    ("under the car's rear right, below its centre", hit_at((-1.9, -1.3, -0.7), velocity=(-8, -3, 0)), 0),
    ("touching, the masses' sum not positive: impulse 0",
     hit_scene(dx=-0.1, velocity=(10, 0, 0), shape=dict(BOX, mass=-40.0)), 0),
    ("racer 7 has no drawn object", hit_scene(), 7),
    ("touching, both standing: pushed apart, impulse 0, the prop hit", hit_scene(dx=-0.1), 0),
    ("the car closing at 10", hit_scene(dx=-0.1, velocity=(10, 0, 0)), 0),
    ("the car closing at 30, the prop turned 45 degrees", hit_scene(dx=-0.2, velocity=(30, 0, 0), axes=yaw(45)), 0),
    ("the prop moving away faster than the car: impulse 0", hit_scene(dx=-0.1, velocity=(5, 0, 0), prop_velocity=(9, 0, 0)), 0),
    ("closing at 80, damage on (all six parts)", hit_scene(dx=-0.1, velocity=(80, 0, 0), damage=1), 0),
    ("touching but the object has no parts near (its part count 0)",
     hit_scene(dx=-0.1, velocity=(10, 0, 0)) + ["object[0]=" + u32(0)], 0),
    ("a cone under the car's nose", hit_scene(dx=-0.3, velocity=(10, 0, 0), shape=CONE), 0),
]
for why, pokes, racer in hits:
    call("car_hit: " + why, "props::car_hit", [racer, 0], pokes)

# ---- props::knock (F113, F114): prop 0 knocks the others ---------------------------------------------
K = road()
GROUND_Q = 0  # no face: the props' rest faces laid as the slant record or 0
knocks = [
    ("side by side, overlapping, prop 0 moving towards prop 1; neither has a rest face",
     prop(0, BOX, K, velocity=(3, 0, 0)) + prop(1, BOX, (K[0] + 0.58, K[1], K[2])), 2),
    ("side by side, prop 0 on the ground's face, prop 1 none: 1 takes 0's",
     prop(0, BOX, K, velocity=(3, 0, 0), rest_face=0x4F9440, rest_point=(K[0], K[1], 0)) + prop(1, BOX, (K[0] + 0.58, K[1], K[2])), 2),
    ("side by side, prop 1 on a face, prop 0 none: 0 takes 1's",
     prop(0, BOX, K) + prop(1, BOX, (K[0] + 0.58, K[1], K[2]), rest_face=0x4F9440, rest_point=(1, 2, 3)), 2),
    ("side by side, both on faces: nothing handed on",
     prop(0, BOX, K, rest_face=0x4F9440) + prop(1, BOX, (K[0] + 0.58, K[1], K[2]), rest_face=0x4F9440), 2),
    ("prop 1 on prop 0 (the normal's slant 1): 1 rests on the slant record",
     prop(0, BOX, K) + prop(1, BOX, (K[0], K[1], K[2] + 0.58)), 2),
    ("prop 0 on prop 1: 0 rests on the slant record, the normal turned up",
     prop(0, BOX, (K[0], K[1], K[2] + 0.58)) + prop(1, BOX, K), 2),
    ("prop 1 on prop 0's edge, the slant just under 0.885 (27.8 degrees from up)",
     prop(0, BOX, K) + prop(1, BOX, add(K, (0.59, (math.sin(math.radians(27.8)), 0, math.cos(math.radians(27.8)))))), 2),
    ("prop 1 on prop 0's edge, the slant just over 0.885 (27.0 degrees from up)",
     prop(0, BOX, K) + prop(1, BOX, add(K, (0.59, (math.sin(math.radians(27.0)), 0, math.cos(math.radians(27.0)))))), 2),
    ("three props: 1 apart, 2 touching", prop(0, BOX, K, velocity=(0, 4, 0)) + prop(1, BOX, (K[0] + 3, K[1], K[2]))
     + prop(2, BOX, (K[0], K[1] + 0.58, K[2])), 3),
    ("one prop alone", prop(0, BOX, K), 1),
    ("prop 1 behind prop 0 on x, below it, prop 0 backing into it",
     prop(0, BOX, K, velocity=(-3, -1, 0)) + prop(1, BOX, (K[0] - 0.55, K[1] - 0.1, K[2] - 0.15)), 2),
    ("apart along x", prop(0, BOX, K) + prop(1, BOX, (K[0] + 1.0, K[1], K[2])), 2),
    ("apart along y", prop(0, BOX, K) + prop(1, BOX, (K[0], K[1] + 1.0, K[2])), 2),
    ("apart along z", prop(0, BOX, K) + prop(1, BOX, (K[0], K[1], K[2] + 1.0)), 2),
    ("diagonal, within the radii on each axis, the centres beyond them",
     prop(0, BOX, K) + prop(1, BOX, (K[0] + 0.7, K[1] + 0.7, K[2] + 0.2)), 2),
    ("turned 45 degrees beside, a gap between the boxes", prop(0, BOX, K) + prop(1, BOX, (K[0] + 0.78, K[1], K[2]), yaw(45)), 2),
    ("touching, prop 1 coming at prop 0: separating along the normal, impulse 0",
     prop(0, BOX, K) + prop(1, BOX, (K[0] + 0.58, K[1], K[2]), velocity=(4, 0, 0)), 2),
    ("touching, both masses 0: impulse 0",
     prop(0, dict(BOX, mass=0.0), K, velocity=(3, 0, 0)) + prop(1, dict(BOX, mass=0.0), (K[0] + 0.58, K[1], K[2])), 2),
]
for why, pokes, count in knocks:
    call("knock: " + why, "props::knock", [0], FRAME + pokes + listed(count, [1] + [0] * (count - 1)))
call("knock: prop 1 of three knocks 0 and 2 (both touching it)", "props::knock", [1],
     FRAME + prop(0, BOX, (K[0] - 0.58, K[1], K[2])) + prop(1, BOX, K, velocity=(0, 0, -2)) + prop(2, BOX, (K[0], K[1], K[2] + 0.58))
     + listed(3, [0, 1, 0]))

# ---- props::motion (F115-F121) -----------------------------------------------------------------------
SINK = 0.25  # a box's centre 0.1 below its rest: its four bottom corners' push (depth x mass / dt^2) holds its weight
motions = [
    ("a box in the air: falls, no faces", prop(0, BOX, road(z=3.0))),
    ("a box in the air, spinning", prop(0, BOX, road(z=3.0), spin=(1, 0.5, 2))),
    ("a box resting on four corners, still: settles (F120)", prop(0, BOX, road(z=SINK))),
    ("a box resting on four corners, moving at 2: not slow", prop(0, BOX, road(z=SINK), velocity=(2, 0, 0))),
    ("a box resting, spinning about up at 1 rad/s: damped x 0.916, not slow (F119)", prop(0, BOX, road(z=SINK), spin=(0, 0, 1))),
    ("a cone resting on its three base points: settles", prop(0, CONE, road(z=CONE_REST - 0.057))),
    ("a cone 0.01 into the road: its weight wins, falling faster than 0.5", prop(0, CONE, road(z=CONE_REST - 0.01))),
    ("a stick resting on its two points: never settles", prop(0, STICK, road(z=0.0))),
    ("a box on the ground pushed along by 50: friction holds it (F117)", prop(0, BOX, road(z=SINK), force=(50, 0, 0))),
    ("a box on the ground pushed along by 200: it slides", prop(0, BOX, road(z=SINK), force=(200, 0, 0))),
    ("a box on the ground with a torque", prop(0, BOX, road(z=SINK), torque=(0, 3, 1))),
    ("a box sunk 0.2 into the road: pushed out hard", prop(0, BOX, road(z=0.15))),
    ("a box tilted 20 degrees on the road: two corners down", prop(0, BOX, road(z=0.3), axes=roll(20))),
    ("a box against the outer wall, on the road", prop(0, BOX, road(7.72, SINK))),
    ("a box held by a neighbour (the slant record): no faces searched, no removal",
     prop(0, BOX, road(z=-12.0), held=1, rest_face=0x4F9440, rest_point=road(z=-12.3)) + ["prop_slant[0]=" + vec(0, 0, 1) + vec(*road(z=-12.3))]),
    ("a box 12 below sector 1 (floor -2): removed (F121), the list closes up",
     prop(0, BOX, road(z=-12.0)) + prop(1, CONE, road(3, CONE_REST))),
    ("a box 9.9 below sector 1's floor: not yet", prop(0, BOX, road(z=-11.9))),
    ("a type of no points: no planes, no removal", prop(0, dict(BOX, points=[]), road(z=-20.0))),
]
for why, pokes in motions:
    count = 2 if "closes up" in why else 1
    call("motion: " + why, "props::motion", [0], FRAME + pokes + listed(count, [1] * count))
call("motion: a box dropped from 1 above the road, twelve steps", "props::motion", [0],
     FRAME + prop(0, BOX, road(z=1.35)) + listed(1, [1]), repeat=12)
call("motion: prop 1 of two, on the triangles", "props::motion", [1],
     FRAME + prop(0, BOX, road()) + prop(1, BOX, road(z=SINK, angle=TRI), sec=2) + listed(2, [0, 1]))

# ---- props::remove (F121) ------------------------------------------------------------------------------
three = prop(0, BOX, road(-2)) + prop(1, CONE, road(0, CONE_REST)) + prop(2, STICK, road(2, 0.05))
for i, why in [(0, "the first of three"), (1, "the middle one"), (2, "the last")]:
    call("remove: " + why, "props::remove", [i], three + listed(3, [1, 0, 1]))
call("remove: the only prop", "props::remove", [0], prop(0, BOX, road()) + listed(1, [1]))
call("remove: an empty list (count 0)", "props::remove", [0], listed(0, []))

# ---- the collision pass with props (cars::collisions, 000 "Props") --------------------------------------
call("collisions: the snapshot as it is", "cars::collisions", [])
call("collisions: no props", "cars::collisions", [], listed(0, []))
call("collisions: no racers, a hit prop falling", "cars::collisions", [],
     FRAME + ["racer_counts=" + u32(0) + u32(0)] + prop(0, BOX, road(z=2.0)) + listed(1, [1]))
call("collisions: props none of them hit, the cars far away", "cars::collisions", [],
     FRAME + prop(0, BOX, road(z=2.0)) + prop(1, BOX, road(2, 2.0)) + listed(2, [0, 0]))
scene = hit_scene(dx=-0.1, velocity=(10, 0, 0))
call("collisions: racer 0 hitting a box, which then moves", "cars::collisions", [], scene)
call("collisions: racer 0 hitting a box beside another", "cars::collisions", [],
     FRAME + place_car(0, HERE, velocity=(10, 0, 0)) + prop(0, BOX, (PROP_AT[0] - 0.1, PROP_AT[1], PROP_AT[2]))
     + prop(1, BOX, (PROP_AT[0] + 0.48, PROP_AT[1], PROP_AT[2])) + listed(2, [0, 0]))
call("collisions: a prop removed in the pass: the next one is skipped", "cars::collisions", [],
     FRAME + prop(0, BOX, road(z=-12.0)) + prop(1, BOX, road(z=3.0)) + prop(2, BOX, road(3, 3.0)) + listed(3, [1, 1, 1]))
call("collisions: two falling props, three passes", "cars::collisions", [],
     FRAME + prop(0, BOX, road(z=1.0)) + prop(1, CONE, road(2, 0.6)) + listed(2, [1, 1]), repeat=3)


print_call_list([
    "The props: the calls that capture cases/standin-props (scripts/capture-standin) from the stand-in's",
    "snapshot at the pause. Written by make_props_calls.py (its docstring says what the states are and how",
    "they are laid); regenerate this file with it, never by hand.",
], calls)
