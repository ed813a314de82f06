#!/usr/bin/env bash
# Usage: scripts/fuzz.sh TARGET|all [SECONDS] [replay]
# Builds the libFuzzer targets (clang, ASan+UBSan; build/fuzz/, or $BUILD_DIR) and, for TARGET or
# every target: replays the committed seeds in fuzz/corpus/TARGET/, then fuzzes for SECONDS
# (default 60; 0 or `replay` = replay only). New inputs go to build/fuzz/corpus/TARGET/ (not
# committed), crashes to build/fuzz/crashes/. Exits non-zero on the first crash, leak or UB.
# RMQ_FUZZ_RUNS=N (what scripts/test.sh and CI use): instead of SECONDS, run exactly N mutated
# inputs per target from seed 1 and the committed corpus only, so a given commit always tries the
# same inputs: CI cannot go red by luck. Longer, random runs are this script's job, not CI's.
# fuzz/README.md explains the targets and how to turn a crash into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET|all [SECONDS] [replay]}
secs=${2:-60}
if [ "${3:-}" = replay ] || [ "$secs" = 0 ]; then secs=0; unset RMQ_FUZZ_RUNS; fi
dir=${BUILD_DIR:-build/fuzz}
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
jobs=$(nproc); [ "$jobs" -gt 2 ] && jobs=2
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRMQ_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ >/dev/null
if [ "$target" = all ]; then
  targets=$(tr ';' ' ' <"$dir/fuzz_targets.txt")
  cmake --build "$dir" -j "$jobs" --target fuzz_targets
else
  targets=$target
  cmake --build "$dir" -j "$jobs" --target "fuzz_$target"
fi
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$dir/crashes"
for t in $targets; do
  seeds=fuzz/corpus/$t
  work=$dir/corpus/$t
  mkdir -p "$work"
  bin=$dir/fuzz/fuzz_$t
  common=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$dir/crashes/$t-" -print_final_stats=1)
  echo "== fuzz_$t: replay $(ls "$seeds" | wc -l) committed inputs"
  "$bin" "${common[@]}" -runs=0 "$seeds" >"$dir/crashes/$t.log" 2>&1 ||
    { tail -n 60 "$dir/crashes/$t.log"; echo "fuzz_$t: a committed input fails"; exit 1; }
  if [ -n "${RMQ_FUZZ_RUNS:-}" ]; then
    echo "== fuzz_$t: fuzzing $RMQ_FUZZ_RUNS inputs from seed 1"
    work=$(mktemp -d)
    budget=(-seed=1 -runs="$RMQ_FUZZ_RUNS" -max_total_time=120)
  elif [ "$secs" -gt 0 ]; then
    echo "== fuzz_$t: fuzzing ${secs}s"
    budget=(-max_total_time="$secs")
  else
    continue
  fi
  "$bin" "${common[@]}" "${budget[@]}" "$work" "$seeds" >"$dir/crashes/$t.log" 2>&1 ||
    { tail -n 60 "$dir/crashes/$t.log"; echo "fuzz_$t: crash (input in $dir/crashes/$t-*)"; exit 1; }
  grep -E "^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ +DONE)" "$dir/crashes/$t.log" | tr '\n' ' '; echo
  if [ -n "${RMQ_FUZZ_RUNS:-}" ]; then rm -rf "$work"; fi
done
