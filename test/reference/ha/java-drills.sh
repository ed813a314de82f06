#!/usr/bin/env bash
# java-drills.sh JAVA_HOME_OF_4.9.8 RMQ_BUILD_DIR [MESSAGES=600]
#
# HA interop with Apache RocketMQ 4.9.8, local only (CI has no Java). JAVA_HOME_OF_4.9.8 is the
# folder build-java.sh made (…/anchors/java, with bin/rmq.sh); RMQ_BUILD_DIR holds rmqnode,
# rmqadmin and rmqbench (build/release).
#   A. an Apache 4.9.8 SLAVE follows an rmqnode SYNC_MASTER (rmqnode name server);
#   B. an rmqnode SLAVE follows an Apache 4.9.8 SYNC_MASTER (Java name server).
# Each: MESSAGES sends of 1 KiB, all of which must be SEND_OK (the slave acks them); 64 KiB
# commit-log files so the stream crosses several; the written parts of both commit logs compared
# byte for byte; then the slave stopped, MESSAGES/2 sends while it is down, the slave restarted on
# its store (its first report is its own max offset, not 0) and the same checks again; then the
# master stopped and every message consumed from the slave (after the slave's 10 s metadata sync).
# Prints PASS/FAIL lines; stops everything it starts.
set -uo pipefail
J=$(realpath "${1:?usage: java-drills.sh JAVA_HOME_OF_4.9.8 RMQ_BUILD_DIR [MESSAGES]}")
B=$(realpath "${2:?usage: java-drills.sh JAVA_HOME_OF_4.9.8 RMQ_BUILD_DIR [MESSAGES]}")
N=${3:-600}
FILE=65536
work=$(mktemp -d /tmp/rmq-java-drills.XXXXXX)
pids=()
fails=0
export BROKER_JAVA_OPTS="-Xms512m -Xmx512m -XX:+UseG1GC" NS_JAVA_OPTS="-Xms256m -Xmx256m"

cleanup() {
  for d in "$work"/run-*; do [ -d "$d" ] && RMQ_RUN_DIR=$d "$J/bin/rmq.sh" stop >/dev/null 2>&1; done
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup EXIT
say() { echo "[java-drills $(date +%H:%M:%S)] $*"; }
check() {  # description command...
  local what=$1; shift
  if "$@"; then echo "PASS $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
wait_port() { for _ in $(seq 1 600); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
max_offset() {  # broker addr
  "$B/rmqadmin" brokerStatus -n "$NS" -b "$1" 2>/dev/null | sed -n 's/^commitLogMaxOffset[[:space:]]*:[[:space:]]*//p'
}
# Same bytes in [from, to) of two commit-log folders (files named by their start offset).
same_bytes() {  # dirA dirB from to
  python3 - "$@" <<'EOF'
import os, sys
a, b, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
size = 65536
def read(d):
    out = bytearray()
    pos = lo
    while pos < hi:
        start = pos - pos % size
        p = os.path.join(d, "%020d" % start)
        if not os.path.exists(p):
            break
        with open(p, "rb") as f:
            f.seek(pos - start)
            chunk = f.read(min(start + size, hi) - pos)
        if not chunk:
            break
        out += chunk
        pos += len(chunk)
    return bytes(out)
x, y = read(a), read(b)
if len(x) != hi - lo or len(y) != hi - lo:
    print("  short: %d / %d of %d bytes" % (len(x), len(y), hi - lo)); sys.exit(1)
if x != y:
    i = next(i for i in range(len(x)) if x[i] != y[i]); print("  first difference at %d" % (lo + i)); sys.exit(1)
print("  [%d, %d): %d bytes identical" % (lo, hi, hi - lo))
EOF
}
# A broker of either kind: its store under $work/NAME, 64 KiB commit-log files, name server $NS.
java_broker() {  # name brokerRole brokerName brokerId listenPort
  mkdir -p "$work/run-$1"
  printf '%s\n' "brokerClusterName=DefaultCluster" "brokerName=$3" "brokerId=$4" "brokerRole=$2" \
    "flushDiskType=ASYNC_FLUSH" "brokerIP1=127.0.0.1" "listenPort=$5" "namesrvAddr=$NS" \
    "storePathRootDir=$work/$1/store" "mappedFileSizeCommitLog=$FILE" >"$work/$1.properties"
  RMQ_RUN_DIR="$work/run-$1" BROKER_CONF="$work/$1.properties" "$J/bin/rmq.sh" start-broker
}
rmq_node() {  # name role toml-text
  printf '%s\n' "$3" >"$work/$1.toml"
  "$B/rmqnode" --role="$2" -c "$work/$1.toml" >>"$work/$1.out" 2>&1 &
  pids+=($!)
}
rmq_broker() {  # name brokerRole brokerName brokerId listenPort
  local role=master; [ "$2" = SLAVE ] && role=slave
  rmq_node "$1" "$role" "logDir = \"$work/$1\"
[broker]
brokerName = \"$3\"
brokerId = $4
brokerIP1 = \"127.0.0.1\"
brokerIP2 = \"127.0.0.1\"
listenPort = $5
namesrvAddr = \"$NS\"
[store]
brokerRole = \"$2\"
storePathRootDir = \"$work/$1/store\"
mappedFileSizeCommitLog = $FILE"
}
send_all() {  # topic
  # The first send may come before the slave's first report (5 s): retry until one is SEND_OK.
  for _ in $(seq 1 60); do
    "$B/rmqadmin" sendMessage -n "$NS" -t "$1" -p warm-up 2>/dev/null | grep -q SEND_OK && break
    sleep 0.5
  done
  "$B/rmqbench" producer -n "$NS" --topic "$1" -t 4 -s 1024 -c "$N" >"$work/producer-$1.txt" 2>&1
  grep SUMMARY "$work/producer-$1.txt"
  grep -q "ok $N failed 0" "$work/producer-$1.txt"
}
send_while_down() {  # topic: the slave is stopped; SYNC_MASTER answers SLAVE_NOT_AVAILABLE but stores
  "$B/rmqbench" producer -n "$NS" --topic "$1" -t 2 -s 1024 -c $((N / 2)) >"$work/producer-down-$1.txt" 2>&1
  grep SUMMARY "$work/producer-down-$1.txt"
}
# The rmqnode master's broker.log names the offset a slave asked for first (B: the rmqnode slave's
# log names its commit log end when it connects, the offset its first report carries).
first_report_is() {  # log-file offset
  grep -q "requests offset $2\b" "$1" && echo "  first report $2 (the slave's own end)"
}
caught_up() {  # master slave
  local m s
  for _ in $(seq 1 300); do
    m=$(max_offset "$1"); s=$(max_offset "$2")
    [ -n "$m" ] && [ "$m" = "$s" ] && { echo "  master $m, slave $s"; return 0; }
    sleep 0.2
  done
  echo "  master $m, slave $s"; return 1
}
count_messages() {  # topic: messages a consumer gets from the brokers the route names
  "$B/rmqadmin" consumeMessage -n "$NS" -t "$1" -c 100000 2>>"$work/consume.err" | grep -c -v '^#'
}
consumed_from_slave() {  # topic want
  local got
  sleep 11  # the slave's metadata sync (every 10 s) must have brought the topic
  got=$(count_messages "$1")
  echo "  consumed $got from the slave (the master had $2)"; [ "$got" = "$2" ]
}

# ---------------------------------------------------------------- A: Java slave, rmqnode master
say "A: rmqnode SYNC_MASTER + Apache RocketMQ 4.9.8 SLAVE"
NS=127.0.0.1:29876
rmq_node ns-a namesrv "logDir = \"$work/ns-a\"
[namesrv]
bindAddress = \"127.0.0.1\"
listenPort = 29876
kvConfigPath = \"$work/ns-a/kv.json\"
configStorePath = \"$work/ns-a/ns.properties\""
wait_port 29876
rmq_broker master-a SYNC_MASTER broker-x 0 30911
wait_port 30911 && wait_port 30912
"$B/rmqadmin" updateTopic -n "$NS" -b 127.0.0.1:30911 -t DrillA -r 4 -w 4 >/dev/null
java_broker slave-a SLAVE broker-x 1 31911
check "A: $N sends to the rmqnode SYNC_MASTER all SEND_OK (acked by the Java slave)" send_all DrillA
check "A: Java slave at the master's end" caught_up 127.0.0.1:30911 127.0.0.1:31911
end=$(max_offset 127.0.0.1:30911)
check "A: commit logs byte-identical over [0, $end) ($((end / FILE + 1)) files)" \
  same_bytes "$work/master-a/store/commitlog" "$work/slave-a/store/commitlog" 0 "$end"
# A2: the Java slave stopped and restarted on its own store.
slave_end=$(max_offset 127.0.0.1:31911)
RMQ_RUN_DIR="$work/run-slave-a" "$J/bin/rmq.sh" stop >/dev/null 2>&1
send_while_down DrillA
java_broker slave-a SLAVE broker-x 1 31911
check "A2: restarted Java slave: $N more sends all SEND_OK" send_all DrillA
check "A2: the restarted Java slave's first report was its own max offset $slave_end" \
  first_report_is "$work/master-a/broker.log" "$slave_end"
check "A2: restarted Java slave at the master's end" caught_up 127.0.0.1:30911 127.0.0.1:31911
end=$(max_offset 127.0.0.1:30911)
check "A2: commit logs byte-identical over [0, $end) ($((end / FILE + 1)) files)" \
  same_bytes "$work/master-a/store/commitlog" "$work/slave-a/store/commitlog" 0 "$end"
have=$(count_messages DrillA)  # N + the warm-up sends (stored even when SLAVE_NOT_AVAILABLE)
kill -TERM "${pids[1]}"; wait "${pids[1]}" 2>/dev/null
check "A: master stopped, every message consumed from the Java slave" consumed_from_slave DrillA "$have"
RMQ_RUN_DIR="$work/run-slave-a" "$J/bin/rmq.sh" stop >/dev/null 2>&1
kill -TERM "${pids[0]}"; wait "${pids[0]}" 2>/dev/null
pids=()

# ---------------------------------------------------------------- B: rmqnode slave, Java master
say "B: Apache RocketMQ 4.9.8 SYNC_MASTER + rmqnode SLAVE"
NS=127.0.0.1:29877
mkdir -p "$work/run-ns-b"
NS_PORT=29877 RMQ_RUN_DIR="$work/run-ns-b" "$J/bin/rmq.sh" start-namesrv
java_broker master-b SYNC_MASTER broker-j 0 32911
"$B/rmqadmin" updateTopic -n "$NS" -b 127.0.0.1:32911 -t DrillB -r 4 -w 4 >/dev/null
rmq_broker slave-b SLAVE broker-j 1 33911
wait_port 33911
check "B: $N sends to the Java SYNC_MASTER all SEND_OK (acked by the rmqnode slave)" send_all DrillB
check "B: rmqnode slave at the master's end" caught_up 127.0.0.1:32911 127.0.0.1:33911
end=$(max_offset 127.0.0.1:32911)
check "B: commit logs byte-identical over [0, $end) ($((end / FILE + 1)) files)" \
  same_bytes "$work/master-b/store/commitlog" "$work/slave-b/store/commitlog" 0 "$end"
# B2: the rmqnode slave stopped and restarted on its own store.
slave_end=$(max_offset 127.0.0.1:33911)
kill -TERM "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null
send_while_down DrillB
rmq_broker slave-b SLAVE broker-j 1 33911
wait_port 33911
check "B2: restarted rmqnode slave: $N more sends all SEND_OK" send_all DrillB
check "B2: the restarted rmqnode slave reported its own max offset $slave_end first" \
  grep -q "slave commit log ends at $slave_end\b" "$work/slave-b/broker.log"
check "B2: rmqnode slave at the master's end" caught_up 127.0.0.1:32911 127.0.0.1:33911
end=$(max_offset 127.0.0.1:32911)
check "B2: commit logs byte-identical over [0, $end) ($((end / FILE + 1)) files)" \
  same_bytes "$work/master-b/store/commitlog" "$work/slave-b/store/commitlog" 0 "$end"
have=$(count_messages DrillB)
RMQ_RUN_DIR="$work/run-master-b" "$J/bin/rmq.sh" stop >/dev/null 2>&1
check "B: master stopped, every message consumed from the rmqnode slave" consumed_from_slave DrillB "$have"

if [ "$fails" = 0 ]; then
  say "all passed"; cleanup; trap - EXIT; rm -rf "$work"
else
  say "$fails failure(s); logs in $work"; exit 1
fi
