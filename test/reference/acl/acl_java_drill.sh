#!/usr/bin/env bash
# Local only (needs the Java reference build, /work/shared/reference/build-java.sh): Apache
# RocketMQ 4.9.8's Java client with AclClientRPCHook against an rmqnode with aclEnable = true.
# Usage: test/reference/acl/acl_java_drill.sh <rmqnode> <rmqadmin> <java-reference-dir (has lib/)>
set -euo pipefail
rmqnode=$(realpath "$1"); rmqadmin=$(realpath "$2"); jdir=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/rmq-acl-java.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
read -r ns broker _ < <(node "$here/../../interop/lib/free_ports.js")
mkdir -p "$work/conf"
cp "$here/../../interop/fixtures/plain_acl.yml" "$work/conf/plain_acl.yml"  # the ali-ons ACL test's accounts
cat >"$work/node.toml" <<TOML
logDir = "$work/logs"
[namesrv]
listenPort = $ns
kvConfigPath = "$work/namesrv/kvConfig.json"
configStorePath = "$work/namesrv/namesrv.properties"
[broker]
brokerIP1 = "127.0.0.1"
listenPort = $broker
namesrvAddr = "127.0.0.1:$ns"
autoCreateTopicEnable = false
aclEnable = true
rocketmqHome = "$work"
[store]
storePathRootDir = "$work/store"
TOML
HOME="$work" "$rmqnode" --role=namesrv,master -c "$work/node.toml" >"$work/node.out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$broker) 2>/dev/null && break; sleep 0.1; done
"$rmqadmin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$broker" -t JavaAclTopic -r 4 -w 4 \
  --access-key RocketMQAdmin --secret-key 12345678
sleep 2
mkdir -p "$work/classes"
javac -cp "$jdir/lib/*" -d "$work/classes" "$here/AclJavaDrill.java"
java --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -cp "$jdir/lib/*:$work/classes" AclJavaDrill "127.0.0.1:$ns" JavaAclTopic RocketMQAdmin 12345678 subOnlyUser 87654321
