#!/usr/bin/env bash
# lag_drill.sh JAVA_REF_DIR RMQ_BUILD_DIR   (local only: needs the Java reference build)
# A committed consumer offset past the queue's end (queue 0 of LagTopic holds 3 messages, group
# lag_cg commits 10; queue 1 holds 2, committed 1), against Apache RocketMQ 4.9.8 and against
# rmqnode: what Java's mqadmin consumerProgress / brokerConsumeStats and our rmqadmin
# consumerProgress print, and the raw GET_CONSUME_STATS / GET_BROKER_CONSUME_STATS bodies.
set -uo pipefail
J=$(realpath "${1:?usage: lag_drill.sh JAVA_REF_DIR RMQ_BUILD_DIR}")
B=$(realpath "${2:?usage: lag_drill.sh JAVA_REF_DIR RMQ_BUILD_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/rmq-lag-drill.XXXXXX)
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
javac -nowarn -cp "$J/lib/*" -d "$work/classes" "$here/CommitOffset.java" 2>&1 | grep -v '^Note:'
jrun() { java --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -cp "$J/lib/*:$work/classes" "$@" 2>/dev/null | grep -v RocketmqRemoting; }
mqadmin() { "$J/bin/rmq.sh" run org.apache.rocketmq.tools.command.MQAdminStartup "$@" 2>&1 | grep -v "RocketmqRemoting\|^\\s*at \|^SLF4J"; }
drill() {  # namesrv broker-addr
  "$B/rmqadmin" updateTopic -n "$1" -b "$2" -t LagTopic -r 2 -w 2 >/dev/null
  sleep 2
  for i in 1 2 3; do "$B/rmqadmin" sendMessage -n "$1" -t LagTopic -p "m$i" -b broker-l -i 0 >/dev/null; done
  for i in 1 2; do "$B/rmqadmin" sendMessage -n "$1" -t LagTopic -p "n$i" -b broker-l -i 1 >/dev/null; done
  jrun CommitOffset "$1" LagTopic lag_cg 0 10
  jrun CommitOffset "$1" LagTopic lag_cg 1 1
  # consumerProgress finds the group's brokers through the route of %RETRY%lag_cg, which the
  # broker creates on the consumer's heartbeat and registers with the name server soon after.
  for _ in $(seq 1 80); do "$B/rmqadmin" topicRoute -n "$1" -t %RETRY%lag_cg >/dev/null 2>&1 && break; sleep 0.5; done
  echo "--- Java mqadmin consumerProgress -g lag_cg"; mqadmin consumerProgress -n "$1" -g lag_cg
  echo "--- Java mqadmin brokerConsumeStats -b $2"; mqadmin brokerConsumeStats -n "$1" -b "$2"
  echo "--- rmqadmin consumerProgress -g lag_cg"; "$B/rmqadmin" consumerProgress -n "$1" -g lag_cg
}

echo "===== Apache RocketMQ 4.9.8"
mkdir -p "$work/run-ns" "$work/run-broker"
NS_PORT=39886 RMQ_RUN_DIR="$work/run-ns" "$J/bin/rmq.sh" start-namesrv >/dev/null
printf '%s\n' "brokerClusterName=DefaultCluster" "brokerName=broker-l" "brokerId=0" "brokerIP1=127.0.0.1" \
  "listenPort=40921" "namesrvAddr=127.0.0.1:39886" "storePathRootDir=$work/java/store" \
  "autoCreateTopicEnable=false" >"$work/java.properties"
RMQ_RUN_DIR="$work/run-broker" BROKER_CONF="$work/java.properties" "$J/bin/rmq.sh" start-broker >/dev/null
drill 127.0.0.1:39886 127.0.0.1:40921
RMQ_RUN_DIR="$work/run-broker" "$J/bin/rmq.sh" stop >/dev/null 2>&1
RMQ_RUN_DIR="$work/run-ns" "$J/bin/rmq.sh" stop >/dev/null 2>&1

echo "===== rmqnode"
cat >"$work/node.toml" <<TOML
logDir = "$work/rmq"
[namesrv]
listenPort = 39887
kvConfigPath = "$work/rmq/kv.json"
configStorePath = "$work/rmq/ns.properties"
[broker]
brokerName = "broker-l"
brokerIP1 = "127.0.0.1"
listenPort = 41921
namesrvAddr = "127.0.0.1:39887"
autoCreateTopicEnable = false
[store]
storePathRootDir = "$work/rmq/store"
TOML
HOME="$work" "$B/rmqnode" --role=namesrv,master -c "$work/node.toml" >"$work/rmq.out" 2>&1 &
pid=$!
sleep 0.5; kill -0 "$pid" 2>/dev/null || { echo "rmqnode did not start (port busy?)"; cat "$work/rmq.out"; exit 1; }
wait_port 41921
drill 127.0.0.1:39887 127.0.0.1:41921
