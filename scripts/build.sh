#!/usr/bin/env bash
# Usage: scripts/build.sh [Release|Debug|Asan] [targets...]
# Builds into build/<type lower-case>/ (or $BUILD_DIR when set, so parallel builds don't share a tree).
set -euo pipefail
cd "$(dirname "$0")/.."
type=${1:-Release}; shift || true
dir=${BUILD_DIR:-build/$(echo "$type" | tr 'A-Z' 'a-z')}
# Let ccache hit across clones in different folders (CI builds a fresh clone each run).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" >/dev/null
# nproc + 1 jobs: a compile waits on the disk and page faults for part of its time (scripts/README.md "First build").
jobs=$(( $(nproc) + 1 ))
if [ $# -gt 0 ]; then cmake --build "$dir" -j "$jobs" --target "$@"; else cmake --build "$dir" -j "$jobs"; fi
