#!/usr/bin/env bash
# Acceptance tests with the official RocketMQ 5.x Node.js client (npm rocketmq-client-nodejs,
# pinned; gRPC) and the 4.x client ali-ons on the same node: 5.x producers, routes, Telemetry,
# NORMAL / FIFO / DELAY / TRANSACTION, ACL, the 5.x consumers on POP (SimpleConsumer, PushConsumer:
# tests/consumer.test.js), and a raw HTTP/2 client for the protocol edges.
# Usage: test/interop5/run.sh <path-to-rmqnode> [tests/<file>.test.js ...] (default: all).
# The node, its config and the clean-up: test/interop/lib/run_suite.sh (shared with the 4.x suite,
# whose harness and ali-ons this suite uses for the 4.x side).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
(cd "$here/../interop" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
exec bash "$here/../interop/lib/run_suite.sh" "$here" "$@"
