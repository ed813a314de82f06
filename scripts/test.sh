#!/usr/bin/env bash
# The one test command (README, .ci/run): install deps, build Release and run every test
# (unit, integration against real rmqnode processes, interop with a real JavaScript client),
# then the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer, then every fuzz
# target (clang, libFuzzer, ASan+UBSan) replays its committed corpus and fuzzes briefly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh Release
# -j3: the integration shards and the interop suites mostly wait on processes and sockets, so
# they run side by side (CMakeLists.txt: RMQ_INTEGRATION_SHARDS); RMQ_CTEST_JOBS=1 for one at a time.
(cd build/release && ctest --output-on-failure --timeout 900 -j "${RMQ_CTEST_JOBS:-3}")
scripts/build.sh Asan unit_tests
for t in build/asan/unit_*; do
  if [ -x "$t" ] && [ -f "$t" ]; then
    echo "== $t (ASan+UBSan)"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$t"
  fi
done
# RMQ_FUZZ_RUNS inputs per target from a fixed seed (default 3000: the same inputs for the same
# commit, so CI is reproducible); scripts/fuzz.sh TARGET SECONDS for longer, random runs.
RMQ_FUZZ_RUNS=${RMQ_FUZZ_RUNS:-3000} scripts/fuzz.sh all
