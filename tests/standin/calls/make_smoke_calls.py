#!/usr/bin/env python3
"""Writes tests/standin/calls/smoke.toml: the call list that captures smoke_emit (0x45d44c, smoke::emit)
on its own (cases/standin-smoke, scripts/capture-standin) from the stand-in's snapshot at the pause.

smoke_emit draws two rand() values and writes one particle into the ring at 0x5b0000 (the table of
choices, "step::skid_smoke"): its slot by the ring's count modulo 64, the count and the total after.
The states: a skidding and a sliding wheel's amount (0x8000, 0x10000) at the racers' own wheel
positions as the snapshot holds them; several puffs in a row (repeat: the seed moves on, the ring
fills); the ring's last slot (count 63), a count past 64 and a total about to wrap; a position whose
x and y lie at the ends of the 32-bit range, where the scatter wraps. Values are 16.16 unless said.
The seed is rand()'s own (the thread block the emulator hands the call).

    python3 tests/standin/calls/make_smoke_calls.py > tests/standin/calls/smoke.toml
"""

from call_list import print_call_list, u32, words


def car(r):
    return 0x630838 + 0x558 * r


POINT = 0xD8  # a car point's size: wheel w's position at car + 0xd8 w
RING = 0x5B0000  # +0 the next slot's count, +4 the total, +0x10 the 64 particles of 16 bytes

calls = []


def call(comment, args, pokes=(), repeat=1):
    calls.append((comment, "smoke::emit", args, list(pokes), repeat))


for r in (0, 3):
    for w in range(4):
        position = car(r) + POINT * w
        call("racer %d wheel %d skidding (amount 0.5)" % (r, w), [position, 0x8000])
call("racer 5 wheel 1 sliding (amount 1)", [car(5) + POINT, 0x10000])
call("five puffs in a row from one wheel: the seed moves on, the ring fills", [car(2), 0x8000], repeat=5)
call("the ring's last slot (count 63): the next puff wraps to slot 0", [car(1), 0x10000],
     ["0x%x=%s" % (RING, u32(63) + u32(63))], repeat=2)
call("a count past 64 (only its low six bits pick the slot)", [car(1), 0x8000],
     ["0x%x=%s" % (RING, u32(130) + u32(130))])
call("the total about to wrap", [car(1), 0x8000], ["0x%x=%s" % (RING, u32(7) + u32(0xFFFFFFFF))], repeat=2)
call("a position at the 32-bit ends: the scatter wraps", [car(6), 0x8000],
     ["0x%x=%s" % (car(6), words(0x7FFFFFF0, -0x7FFFFFF0, 0x10000))], repeat=3)
call("amount 0", [car(4), 0])
call("a negative amount", [car(4) + POINT * 2, -0x8000])

print_call_list([
    "smoke_emit on its own: the calls that capture cases/standin-smoke (scripts/capture-standin) from the",
    "stand-in's snapshot at the pause. Written by make_smoke_calls.py (its docstring says what the states",
    "are); regenerate this file with it, never by hand.",
], calls, hex_above=0xFFFF)
