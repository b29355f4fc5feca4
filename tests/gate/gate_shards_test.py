#!/usr/bin/env python3
"""The gate's --shard K/N: run unsharded and as N shards, and check that the shards' reports together
hold exactly the unsharded run's tests with the same outcomes (each test in one shard only).

    gate_shards_test.py GATE_TEST N [gate flags...]
"""
import json
import os
import subprocess
import sys
import tempfile


def outcomes(gate, args, out):
    """Runs the gate and returns {test name: (result, failed)} from its JSON report."""
    rc = subprocess.run([gate, *args, f"--gtest_output=json:{out}"], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    if rc not in (0, 1):
        sys.exit(f"gate_shards_test: {gate} {' '.join(args)} exited {rc}")
    with open(out) as f:
        report = json.load(f)
    tests = {}
    for suite in report.get("testsuites", []):
        for t in suite.get("testsuite", []):
            tests[f"{suite['name']}.{t['name']}"] = (t.get("result"), bool(t.get("failures")))
    return rc, tests


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    gate, n, flags = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        rc_all, whole = outcomes(gate, flags, os.path.join(tmp, "all.json"))
        merged, rcs = {}, []
        for k in range(1, n + 1):
            rc, part = outcomes(gate, [*flags, "--shard", f"{k}/{n}"], os.path.join(tmp, f"{k}.json"))
            rcs.append(rc)
            if not part:
                sys.exit(f"gate_shards_test: shard {k}/{n} ran no test")
            twice = merged.keys() & part.keys()
            if twice:
                sys.exit(f"gate_shards_test: {sorted(twice)[:3]} ran in two shards")
            merged.update(part)
    if merged != whole:
        missing = sorted(whole.keys() - merged.keys())[:3]
        extra = sorted(merged.keys() - whole.keys())[:3]
        changed = sorted(k for k in whole.keys() & merged.keys() if whole[k] != merged[k])[:3]
        sys.exit(f"gate_shards_test: the shards differ from the unsharded run: missing {missing}, extra {extra}, "
                 f"other outcome {changed}")
    if max(rcs) != rc_all:
        sys.exit(f"gate_shards_test: the unsharded run exits {rc_all}, the shards {rcs}")
    if len(whole) < n:
        sys.exit(f"gate_shards_test: only {len(whole)} tests for {n} shards: nothing shown")
    print(f"gate_shards_test: {len(whole)} tests, {n} shards, same tests and outcomes")


if __name__ == "__main__":
    main()
