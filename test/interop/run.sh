#!/usr/bin/env bash
# Interop tests with a real third-party RocketMQ 4.x client (the npm package ali-ons, pure JS,
# remoting). Usage: test/interop/run.sh <path-to-rmqnode> [tests/<file>.test.js ...] (default: all).
# The node, its config and the clean-up: lib/run_suite.sh.
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/lib/run_suite.sh" "$here" "$@"
