#!/usr/bin/env bash
# Installs deps, builds, and starts a development node (name server + master in one process)
# on 127.0.0.1:9876 (name server) and 127.0.0.1:10911 (broker), store under ./data; HTTP on
# http://127.0.0.1:8080 (/metrics for Prometheus, /healthz, /readyz, the console); RocketMQ 5.x
# clients (gRPC, TLS or plaintext) on 127.0.0.1:8081.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Only the node: the tools' own 34 sources (rmqadmin, rmqbench: the heaviest files, ~12 CPU-s each) are
# not needed to run it (`scripts/build.sh Release rmqadmin rmqbench`). Sources compiled in batches and
# asio compiled once (CMakeLists.txt RMQ_UNITY_BUILD, RMQ_ASIO_SEPARATE): scripts/README.md "First build".
scripts/build.sh Release rmqnode
exec build/release/rmqnode --role=namesrv,master --config config/dev.toml "$@"
