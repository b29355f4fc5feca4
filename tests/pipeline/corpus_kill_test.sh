#!/usr/bin/env bash
# kill -9 at many instants of real `lockstep capture` runs into an existing corpus. After every kill
# the corpus must be the old one or the new one, byte for byte, and load (replay exits 0 or 1, never
# 2); after a completed run nothing is left beside it (no temp file, no unfinished folder).
#
#   corpus_kill_test.sh BUILD_DIR [KILLS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
kills="${2:-24}"
lockstep="$build/port/lockstep/lockstep"
profile="$root/harness/profiles/pod.toml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$root/scripts/record-standin" --mode emulated --build "$build" --no-build --steps 24 --pause-at 8 "$work/rec" >/dev/null
capture() { "$lockstep" capture "$work/rec/snapshot.lks" "$work/rec/steps.log" --profile "$profile" --quiet "$@"; }
# The old corpus and the new one differ in every file (other sampling, more functions). Each lies at
# the depth of the corpus the killed runs write ($work/t/corpus), because a manifest records the
# profile's path relative to its corpus when the two share a tree (here: wherever $work and the
# source tree share a top folder, such as /tmp).
mkdir -p "$work/old" "$work/new"
old_args=(--fn math::dot16 --fn tyres::tyres --every 3 --max 2)
new_args=(--fn math::dot16 --fn tyres::tyres --fn forces::grip --fn Tables::length16 --every 1 --max 0)
capture "${old_args[@]}" -o "$work/old/corpus" >/dev/null
capture "${new_args[@]}" -o "$work/new/corpus" >/dev/null
if diff -rq "$work/old/corpus" "$work/new/corpus" >/dev/null; then echo "FAIL: the old and new corpora are the same"; exit 1; fi

# A completed run over the old corpus: the new corpus, and nothing beside it.
mkdir "$work/t" && cp -r "$work/old/corpus" "$work/t/corpus"
start=$(date +%s%N)
capture "${new_args[@]}" -o "$work/t/corpus" >/dev/null
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
diff -r "$work/t/corpus" "$work/new/corpus" >/dev/null || { echo "FAIL: a completed capture did not give the new corpus"; exit 1; }
left=$(ls -A "$work/t" | grep -v '^corpus$' || true)
[ -z "$left" ] || { echo "FAIL: left beside the corpus after a completed run: $left"; exit 1; }
echo "a complete capture takes ${took_ms} ms; killing $kills runs at instants spread over it"

old=0 new=0
for i in $(seq 1 "$kills"); do
  rm -rf "$work/t" && mkdir "$work/t" && cp -r "$work/old/corpus" "$work/t/corpus"
  # Instants from 40% to 160% of a run: the corpus is written at the end, so most land near it,
  # some after the run ended (the new corpus).
  delay_ms=$(( took_ms * (40 + 120 * i / kills) / 100 ))
  # lockstep itself in the background (not through a shell function: its subshell would be killed
  # and lockstep left running).
  "$lockstep" capture "$work/rec/snapshot.lks" "$work/rec/steps.log" --profile "$profile" --quiet "${new_args[@]}" \
    -o "$work/t/corpus" >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if diff -r "$work/t/corpus" "$work/old/corpus" >/dev/null; then
    old=$((old + 1)); got=old
  elif diff -r "$work/t/corpus" "$work/new/corpus" >/dev/null; then
    new=$((new + 1)); got=new
  else
    echo "FAIL: kill $i at ${delay_ms} ms left a corpus that is neither the old nor the new one:"
    diff -rq "$work/t/corpus" "$work/old/corpus" || true
    exit 1
  fi
  rc=0
  "$lockstep" replay "$work/t/corpus" >/dev/null 2>&1 || rc=$?
  if [ "$rc" -gt 1 ]; then echo "FAIL: kill $i at ${delay_ms} ms: replay of the ($got) corpus exits $rc"; exit 1; fi
  # What the killed run left beside it is removed by the next run into the same corpus.
  capture "${old_args[@]}" -o "$work/t/corpus" >/dev/null
  left=$(ls -A "$work/t" | grep -v '^corpus$' || true)
  [ -z "$left" ] || { echo "FAIL: kill $i: the next run left $left beside the corpus"; exit 1; }
  diff -r "$work/t/corpus" "$work/old/corpus" >/dev/null || { echo "FAIL: kill $i: the next run did not write the old corpus"; exit 1; }
done
echo "$kills kills: the old corpus $old times, the new one $new times, never a mix"
