#!/usr/bin/env bash
# Installs everything rmqnode needs to build and test, from Debian's packages. Idempotent:
# does nothing when every package is already there.
set -euo pipefail
pkgs=(g++ cmake ninja-build ccache pkg-config libasio-dev libfmt-dev libtomlplusplus-dev doctest-dev
      libmimalloc-dev zlib1g-dev rapidjson-dev libcli11-dev
      libhttp-parser-dev libssl-dev libyaml-cpp-dev
      libprotobuf-dev protobuf-compiler  # RocketMQ 5.x gRPC messages (src/proto/)
      libnghttp2-dev  # HTTP/2 engine of the gRPC port (src/grpc)
      etcd-server etcd-client  # failover coordination: unit_coord runs a real etcd (src/coord/README.md)
      iproute2  # ip netns / veth: the failover partition test (test/integration/netns_link.h)
      chromium fonts-dejavu-core  # the console's browser test (headless, through puppeteer-core)
      clang libclang-rt-dev)  # clang + libFuzzer/sanitizer runtimes: the fuzz build (fuzz/README.md)
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
