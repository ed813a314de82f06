#!/usr/bin/env bash
# compare.sh JAVA_REF_DIR RMQ_BUILD_DIR [OUT_DIR]   (local only: needs the Java reference build)
# The same Java 4.9.8 client program (SendPullCompare.java: a plain send, a batch, a delayed send,
# a send with 14 user properties, then a pull of every queue) against an Apache RocketMQ 4.9.8
# broker and against rmqnode, both SYNC_FLUSH with an empty store; then every record of both
# commit logs dumped (dump_records.py: times, hosts and ids masked). Writes java.client.txt,
# rmqnode.client.txt, java.records.txt, rmqnode.records.txt to OUT_DIR and prints both diffs.
set -uo pipefail
J=$(realpath "${1:?usage: compare.sh JAVA_REF_DIR RMQ_BUILD_DIR [OUT_DIR]}")
B=$(realpath "${2:?usage: compare.sh JAVA_REF_DIR RMQ_BUILD_DIR [OUT_DIR]}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/rmq-props-compare.XXXXXX)
out=${3:-$work}
mkdir -p "$out"
pid=""
export BROKER_JAVA_OPTS="-Xms512m -Xmx512m -XX:+UseG1GC" NS_JAVA_OPTS="-Xms256m -Xmx256m"
cleanup() {
  for d in "$work"/run-*; do [ -d "$d" ] && RMQ_RUN_DIR=$d "$J/bin/rmq.sh" stop >/dev/null 2>&1; done
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
}
trap cleanup EXIT
trap "exit 1" INT TERM
wait_port() { for _ in $(seq 1 600); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
mkdir -p "$work/classes"
javac -nowarn -cp "$J/lib/*" -d "$work/classes" "$here/SendPullCompare.java" 2>&1 | grep -v '^Note:'
client() {  # namesrv out-file
  java --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    -cp "$J/lib/*:$work/classes" SendPullCompare "$1" CmpTopic 2>"$2.err" | grep -v RocketmqRemoting >"$2"
}

# ---- Java 4.9.8: name server 39876, broker 40911, SYNC_FLUSH
mkdir -p "$work/run-ns" "$work/run-broker"
NS_PORT=39876 RMQ_RUN_DIR="$work/run-ns" "$J/bin/rmq.sh" start-namesrv
printf '%s\n' "brokerClusterName=DefaultCluster" "brokerName=broker-j" "brokerId=0" "brokerRole=ASYNC_MASTER" \
  "flushDiskType=SYNC_FLUSH" "brokerIP1=127.0.0.1" "listenPort=40911" "namesrvAddr=127.0.0.1:39876" \
  "storePathRootDir=$work/java/store" "autoCreateTopicEnable=false" >"$work/java.properties"
RMQ_RUN_DIR="$work/run-broker" BROKER_CONF="$work/java.properties" "$J/bin/rmq.sh" start-broker
"$B/rmqadmin" updateTopic -n 127.0.0.1:39876 -b 127.0.0.1:40911 -t CmpTopic -r 4 -w 4 >/dev/null
sleep 2
client 127.0.0.1:39876 "$out/java.client.txt"
RMQ_RUN_DIR="$work/run-broker" "$J/bin/rmq.sh" stop >/dev/null 2>&1
RMQ_RUN_DIR="$work/run-ns" "$J/bin/rmq.sh" stop >/dev/null 2>&1
python3 "$here/dump_records.py" "$work/java/store/commitlog" >"$out/java.records.txt"

# ---- rmqnode: name server 39877, broker 41911, SYNC_FLUSH
cat >"$work/node.toml" <<TOML
logDir = "$work/rmq"
[namesrv]
listenPort = 39877
kvConfigPath = "$work/rmq/kv.json"
configStorePath = "$work/rmq/ns.properties"
[broker]
brokerName = "broker-j"
brokerIP1 = "127.0.0.1"
listenPort = 41911
namesrvAddr = "127.0.0.1:39877"
autoCreateTopicEnable = false
[store]
flushDiskType = "SYNC_FLUSH"
storePathRootDir = "$work/rmq/store"
TOML
HOME="$work" "$B/rmqnode" --role=namesrv,master -c "$work/node.toml" >"$work/rmq.out" 2>&1 &
pid=$!
sleep 0.5; kill -0 "$pid" 2>/dev/null || { echo "rmqnode did not start (port busy?)"; cat "$work/rmq.out"; exit 1; }
wait_port 41911
"$B/rmqadmin" updateTopic -n 127.0.0.1:39877 -b 127.0.0.1:41911 -t CmpTopic -r 4 -w 4 >/dev/null
sleep 2
client 127.0.0.1:39877 "$out/rmqnode.client.txt"
kill -TERM "$pid"; wait "$pid" 2>/dev/null; pid=""
python3 "$here/dump_records.py" "$work/rmq/store/commitlog" >"$out/rmqnode.records.txt"

echo "== client view (java vs rmqnode)"; diff "$out/java.client.txt" "$out/rmqnode.client.txt" && echo "identical"
echo "== records (java vs rmqnode)"; diff "$out/java.records.txt" "$out/rmqnode.records.txt" && echo "identical"
