#!/usr/bin/env bash
# The console in a real browser: installs the pinned puppeteer-core (npm ci into the git-ignored
# node_modules/), then runs tests/*.test.js, which start rmqnode with its HTTP port on and drive
# the console with Debian's chromium. Screenshots go to <artifacts dir> (default build/test-artifacts/console).
# Usage: test/console/run.sh <path-to-rmqnode> [artifacts dir]. Exit 77 (ctest: skipped) only when
# Chromium is missing or cannot start.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 <path-to-rmqnode> [artifacts dir]" >&2
  exit 2
fi
export RMQNODE_BIN=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
export CONSOLE_ARTIFACTS=$(realpath -m "${2:-$here/../../build/test-artifacts/console}")
export CHROMIUM_BIN=${CHROMIUM_BIN:-$(command -v chromium || true)}
if [ -z "$CHROMIUM_BIN" ]; then
  echo "console browser test SKIPPED: no chromium on PATH (scripts/install-deps.sh installs Debian's chromium)"
  exit 77
fi
if ! out=$(timeout 60 "$CHROMIUM_BIN" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --dump-dom \
             'data:text/html,<p>ok</p>' 2>&1) || [[ "$out" != *"<p>ok</p>"* ]]; then
  echo "console browser test SKIPPED: $CHROMIUM_BIN cannot start: $(echo "$out" | grep -v '^$' | tail -n 3)"
  exit 77
fi
cd "$here"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
mkdir -p "$CONSOLE_ARTIFACTS"
status=0
node --test --test-concurrency=1 --test-force-exit --test-reporter=spec tests/ || status=$?
echo "console: screenshots in $CONSOLE_ARTIFACTS"
exit "$status"
