#!/usr/bin/env bash
# Crash drill (openchaos style) — a tool, bounded in time, not part of CI. See scripts/README.md.
#
#   scripts/drill.sh [--flush ASYNC_FLUSH|SYNC_FLUSH] [--role ASYNC_MASTER|SYNC_MASTER] [--seconds N]
#                    [--tps N] [--faults "kill9 stop restart diskfull slaveloss"] [--hold S] [--out DIR] [--smoke]
#   scripts/drill.sh --failover [--faults "failover-kill failover-stop failover-etcd-leader"] [--stop-hold S]
#                    [--java DIR] ...
#   scripts/drill.sh --pop [--faults "kill9 restart kill9"] ...
#
# Runs a name server, a master (broker-a) and its slave (broker-a-s) on 127.0.0.1 through
# scripts/cluster.sh (a layout generated under DIR, ports 29876 / 30911 / 30921 by default:
# DRILL_PORT_BASE moves them), a producer (`rmqbench drill-produce`: unique ids, one send-log line
# per answer) and a consumer (`rmqbench drill-consume`: pulls every queue from offset 0), and
# injects the faults one after the other while the producer runs, each held --hold seconds:
#   kill9     kill -9 the master, start it again
#   stop      SIGSTOP the master, SIGCONT it
#   restart   graceful restart of the master (SIGTERM, start)
#   diskfull  fill the master's store (a tmpfs, needs root) to the brim, then free it
#   slaveloss kill -9 the slave, start it again
#   diskeio   (not in the default set; root) a real block device that fails: the master's store is an
#             ext4 file system on a loop device; the device's size limit is cut to an eighth, so the
#             kernel fails every write beyond it with EIO (fsync / msync see it, ext4 aborts its
#             journal and turns read-only); after the hold the master is killed, the limit lifted,
#             the file system checked (fsck -y) and mounted again, and the master started on it.
#             Data written before the fault is kept (the backing file is never cut). Device-mapper
#             (dmsetup error/flakey) would do the same, but containers without dm-mod cannot use it.
# and, through the nodes' fault points (RMQNODE_FAULTS flag files, src/store/README.md), not in the
# default set:
#   eio       the commit log's msync fails with EIO (flush_eio), then works again
#   stall     the dispatcher stalls (dispatch_stall): consumers see nothing new, then everything
#   hadrop    the master drops its slave's connection at every frame (ha_drop), then stops doing so
# Failover drills (--failover, or any failover-* fault; not mixed with the faults above): the same
# two brokers with failoverEnable (brokerIds 1 and 2, SYNC_MASTER unless --role says otherwise) and a
# 3-member etcd (client ports DRILL_PORT_BASE + 2379 / 12379 / 22379, started by cluster.sh); each
# fault hits whichever broker is master at that moment, and the drill waits until the group is whole
# again (the old master back as an in-sync slave) before the next one:
#   failover-kill         kill -9 the master; after --hold start it again (it rejoins as a slave)
#   failover-stop         SIGSTOP the master for --stop-hold seconds (default 15), SIGCONT: it must
#                         demote itself (the drill prints when it says slave)
#   failover-etcd-leader  kill -9 the master, 1 s later (its lease not yet expired) kill -9 the etcd
#                         leader; after --hold restart both
# Per fault: when the slave said master, and (checker) `failover_ms`: the first SEND_OK on the group
# after the fault, lost and duplicated ids of that fault's window. With --java DIR (an Apache RocketMQ
# 4.x build with DIR/lib/*.jar, e.g. the one shared/reference/build-java.sh makes; or
# $RMQ_JAVA_REFERENCE) the unchanged Java producer runs beside ours (scripts/java/DrillJavaProbe.java,
# 2 threads, sync 1 KiB sends to DrillJava with the client's defaults) and the table gets its time from
# the fault to its first SEND_OK on broker-a: its route refresh (30 s) shows there. After the run a fresh consumer reads
# every queue from offset 0 again (recv-final.log): "lost" there = acknowledged, not consumable afterwards.
# Then the consumer drains, and `rmqbench drill-check` counts lost acknowledged messages,
# duplicates, per-queue order violations and per-fault recovery times (first SEND_OK after the
# fault ended). Prints one table row; everything is kept in DIR (logs, stores, send/recv logs).
# Exit code: the checker's (0 = nothing acknowledged lost, no order violation).
# --smoke: 20 s, 2 faults (stop, kill9), 3 s holds — a quick check that the machinery works.
# POP drill (--pop; issue 21): the master also serves gRPC (port DRILL_PORT_BASE + 8081) and
# `rmqbench drill-pop-consume` runs beside the pull consumer: 4 RocketMQ 5.x POP consumers (gRPC
# ReceiveMessage + AckMessage, invisible 3 s) acking what they receive 100 ms later, except every 50th first
# delivery (never acked) and every 20th (acked 0.5 s after its invisible time: refused, redelivered).
# Default faults "kill9 restart kill9" (--smoke: kill9 only). `drill-check --pop` then proves every
# acknowledged send was delivered to the POP group at least once, that no message whose ack was
# answered OK came again, and explains every redelivery (skipped, late, in flight at the kill, ack
# lost at the kill, ack too late); one more table row (pop.md).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
flush=ASYNC_FLUSH role="" seconds=150 tps=200 hold=8 stop_hold=15
faults="kill9 stop restart diskfull slaveloss"
failover_faults="failover-kill failover-stop failover-etcd-leader"
out="" failover="" pop="" faults_given="" java_ref=${RMQ_JAVA_REFERENCE:-}
while [ $# -gt 0 ]; do
  case $1 in
    --flush) flush=$2; shift 2 ;;
    --role) role=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --tps) tps=$2; shift 2 ;;
    --faults) faults=$2; faults_given=1; shift 2 ;;
    --hold) hold=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --smoke) seconds=20; faults="stop kill9"; hold=3; smoke=1; shift ;;
    --pop) pop=1; shift ;;
    --failover) failover=1; faults=$failover_faults; shift ;;
    --stop-hold) stop_hold=$2; shift 2 ;;
    --java) java_ref=$2; shift 2 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "drill.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$pop" ] && [ -z "$faults_given" ]; then
  if [ -n "${smoke:-}" ]; then faults="kill9"; else faults="kill9 restart kill9"; fi
fi
case $flush in ASYNC_FLUSH|SYNC_FLUSH) ;; *) echo "drill.sh: --flush ASYNC_FLUSH|SYNC_FLUSH" >&2; exit 2 ;; esac
if [[ " $faults" == *" failover-"* ]]; then
  failover=1
  for f in $faults; do
    case $f in failover-*) ;; *) echo "drill.sh: $f cannot run with failover drills (their layout has failover on)" >&2; exit 2 ;; esac
  done
fi
[ -z "$pop" ] || [ -z "$failover" ] || { echo "drill.sh: --pop does not go with failover drills" >&2; exit 2; }
role=${role:-${failover:+SYNC_MASTER}}; role=${role:-ASYNC_MASTER}
case $role in ASYNC_MASTER|SYNC_MASTER) ;; *) echo "drill.sh: --role ASYNC_MASTER|SYNC_MASTER" >&2; exit 2 ;; esac
out=${out:-$repo/data/drill/${failover:+failover-}${pop:+pop-}$flush-$role}
if [ -n "$java_ref" ]; then
  [ -n "$failover" ] || { echo "drill.sh: --java goes with failover drills" >&2; exit 2; }
  ls "$java_ref"/lib/rocketmq-client-*.jar >/dev/null 2>&1 || { echo "drill.sh: no rocketmq-client jar in $java_ref/lib" >&2; exit 2; }
  command -v javac >/dev/null || { echo "drill.sh: --java needs a JDK (javac)" >&2; exit 2; }
fi
bin=${RMQNODE_BIN:-$repo/build/release/rmqnode}
admin=${RMQADMIN_BIN:-$repo/build/release/rmqadmin}
bench=${RMQBENCH_BIN:-$repo/build/release/rmqbench}
for b in "$bin" "$admin" "$bench"; do [ -x "$b" ] || { echo "drill.sh: $b missing (scripts/build.sh Release rmqnode rmqadmin rmqbench)" >&2; exit 2; }; done
base=${DRILL_PORT_BASE:-20000}
ns_port=$((base + 9876)) master_port=$((base + 10911)) slave_port=$((base + 10921)) grpc_port=$((base + 8081))
export NAMESRV_ADDR=127.0.0.1:$ns_port
etcd_endpoints="127.0.0.1:$((base + 2379));127.0.0.1:$((base + 12379));127.0.0.1:$((base + 22379))"

rm -rf "$out"; mkdir -p "$out/config/drill" "$out/state"
layout_dir=$out/config/drill
cat >"$layout_dir/namesrv-1.toml" <<EOF
[process]
logDir = "$out/namesrv-1/logs"
[namesrv]
listenPort = $ns_port
bindAddress = "127.0.0.1"
kvConfigPath = "$out/namesrv-1/kvConfig.json"
configStorePath = "$out/namesrv-1/namesrv.properties"
EOF
broker_toml() {  # name id role port [grpc port]
  local failover_lines="" grpc_line=""
  [ -z "${5:-}" ] || grpc_line="grpcServerPort = $5"
  [ -z "$failover" ] || failover_lines="failoverEnable = true
failoverEtcdEndpoints = \"$etcd_endpoints\""
  cat <<EOF
[process]
logDir = "$out/$1/logs"
[broker]
brokerClusterName = "DefaultCluster"
brokerName = "broker-a"
brokerId = $2
brokerIP1 = "127.0.0.1"
brokerIP2 = "127.0.0.1"
listenPort = $4
namesrvAddr = "$NAMESRV_ADDR"
autoCreateTopicEnable = true
autoCreateSubscriptionGroup = true
$failover_lines
$grpc_line
[store]
storePathRootDir = "$out/$1/store"
brokerRole = "$3"
flushDiskType = "$flush"
mappedFileSizeCommitLog = 16777216
cleanResourceInterval = 1000
EOF
}
# Failover: every broker has its own id > 0 (the master registers as 0 while it is master).
master_id=0 slave_id=1
[ -z "$failover" ] || { master_id=1; slave_id=2; }
broker_toml broker-a "$master_id" "$role" "$master_port" "${pop:+$grpc_port}" >"$layout_dir/broker-a.toml"
broker_toml broker-a-s "$slave_id" SLAVE "$slave_port" >"$layout_dir/broker-a-s.toml"
export RMQ_CLUSTER_CONFIG=$out/config RMQ_CLUSTER_STATE=$out/state STOP_WAIT_SECS=15
cluster() {  # command (the node in $node, or all)
  if [ -n "${node:-}" ]; then scripts/cluster.sh "$1" drill "$node"; else scripts/cluster.sh "$1" drill; fi >>"$out/cluster.log" 2>&1
}

mounted="" loopdev=""
cleanup() {
  set +e
  [ -n "${producer_pid:-}" ] && kill "$producer_pid" 2>/dev/null
  [ -n "${consumer_pid:-}" ] && kill "$consumer_pid" 2>/dev/null
  [ -n "${pop_pid:-}" ] && kill "$pop_pid" 2>/dev/null
  [ -n "${java_pid:-}" ] && kill "$java_pid" 2>/dev/null
  for p in $(cat "$out"/state/drill/*.pid 2>/dev/null); do kill -CONT "$p" 2>/dev/null; done
  node="" cluster stop
  [ -n "$mounted" ] && umount -l "$mounted"
  [ -n "$loopdev" ] && losetup -d "$loopdev"
}
trap cleanup EXIT

# Sets a loop device's size limit in bytes (0 = its whole backing file) and makes the kernel apply
# it at once (LOOP_SET_STATUS64 + LOOP_SET_CAPACITY); the backing file itself is not touched.
loop_limit() {  # device bytes
  python3 - "$1" "$2" <<'PY'
import fcntl, os, struct, sys
LOOP_SET_STATUS64, LOOP_GET_STATUS64, LOOP_SET_CAPACITY = 0x4C04, 0x4C05, 0x4C07
fd = os.open(sys.argv[1], os.O_RDWR)
info = bytearray(232)                              # struct loop_info64
fcntl.ioctl(fd, LOOP_GET_STATUS64, info, True)
struct.pack_into("=Q", info, 32, int(sys.argv[2]))  # lo_sizelimit
fcntl.ioctl(fd, LOOP_SET_STATUS64, bytes(info))
fcntl.ioctl(fd, LOOP_SET_CAPACITY, 0)
os.close(fd)
PY
}

if [[ " $faults " == *" diskeio "* ]]; then  # the master's store on a loop device (diskfull fills it too)
  mkdir -p "$out/broker-a/store"
  truncate -s 160M "$out/disk.img"
  if [ "$(id -u)" = 0 ] && loopdev=$(losetup -f --show "$out/disk.img") && mkfs.ext4 -q "$loopdev" &&
     mount "$loopdev" "$out/broker-a/store"; then
    mounted=$out/broker-a/store
  else
    echo "drill.sh: cannot set up a loop device (needs root and /dev/loop*): diskeio skipped" >&2
    faults=${faults//diskeio/}
  fi
fi
if [[ " $faults " == *" diskfull "* ]] && [ -z "$mounted" ]; then
  mkdir -p "$out/broker-a/store"
  if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=160m tmpfs "$out/broker-a/store"; then
    mounted=$out/broker-a/store
  else
    echo "drill.sh: cannot mount a tmpfs (needs root): diskfull skipped" >&2
    faults=${faults//diskfull/}
  fi
fi

# Fault points: armed while their flag file exists (both nodes get the variable; only the master's
# code paths matter for hadrop, and a slave stalls / fails flushes along with its master).
export RMQNODE_FAULTS="flush_eio@$out/eio.flag,dispatch_stall@$out/stall.flag,ha_drop@$out/hadrop.flag"
node="" cluster start

pid_of() { cat "$out/state/drill/$1.pid"; }
now_ms() { date +%s%3N; }

# ---- failover drills: the group's state as its brokers and etcd report it
addr_of() { if [ "$1" = broker-a ]; then echo "127.0.0.1:$master_port"; else echo "127.0.0.1:$slave_port"; fi; }
id_of() { if [ "$1" = broker-a ]; then echo "$master_id"; else echo "$slave_id"; fi; }
other_of() { if [ "$1" = broker-a ]; then echo broker-a-s; else echo broker-a; fi; }
rt() {  # node key: one value of its runtime info (bounded: a stopped broker answers nothing)
  timeout 5 "$admin" brokerStatus -b "$(addr_of "$1")" 2>/dev/null | sed -n "s/^$2[[:space:]]*:[[:space:]]*//p" | head -n1
}
master_now() { local n; for n in broker-a broker-a-s; do [ "$(rt "$n" failoverRole)" = master ] && { echo "$n"; return; }; done; return 0; }
# Polls until the node says `role`; prints the ms since `since` (or "none" after `limit` s).
wait_role() {  # node role limit since
  local t0; t0=$(now_ms)
  until [ "$(rt "$1" failoverRole)" = "$2" ]; do
    [ $(( $(now_ms) - t0 )) -lt $(( $3 * 1000 )) ] || { echo none; return; }
    sleep 0.1
  done
  echo $(( $(now_ms) - $4 ))
}
in_sync() { [[ ",$(rt "$1" failoverInSync)," == *",$(id_of "$2"),"* ]]; }  # master slave
wait_in_sync() {  # master slave limit since
  local t0; t0=$(now_ms)
  until in_sync "$1" "$2"; do
    [ $(( $(now_ms) - t0 )) -lt $(( $3 * 1000 )) ] || { echo none; return; }
    sleep 0.2
  done
  echo $(( $(now_ms) - $4 ))
}
etcd_leader() {  # etcd-N that says it is the Raft leader
  local i
  for i in 1 2 3; do
    ETCDCTL_API=3 timeout 5 etcdctl --endpoints="$(echo "$etcd_endpoints" | cut -d';' -f"$i")" --dial-timeout=1s \
      --command-timeout=2s endpoint status -w simple 2>/dev/null | awk -F', ' '$5 == "true" {found=1} END {exit !found}' &&
      { echo "etcd-$i"; return; }
  done
  return 0
}
sleep_until() { local left=$(( $1 - $(now_ms) )); [ "$left" -le 0 ] || sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"; }

if [ -n "$failover" ]; then
  # broker-a creates the group (epoch 1); the topic goes to it; its slave must be in sync before a fault.
  [ "$(wait_role broker-a master 60 "$(now_ms)")" != none ] || { echo "drill.sh: broker-a did not become master" >&2; exit 1; }
fi
"$admin" updateTopic -c DefaultCluster -t DrillTopic -r 4 -w 4 >>"$out/cluster.log" 2>&1
sleep 2  # the route reaches the name server
if [ -n "$failover" ] && [ "$(wait_in_sync broker-a broker-a-s 60 "$(now_ms)")" = none ]; then
  echo "drill.sh: broker-a-s not in sync with broker-a after 60 s" >&2; exit 1
fi
: >"$out/faults.log"
fault() {  # name: inject, hold, heal; logs "F name start end" (end = when healed)
  local start end filler
  start=$(now_ms)
  case $1 in
    kill9) kill -9 "$(pid_of broker-a)"; sleep "$hold"; node=broker-a cluster start ;;
    stop) kill -STOP "$(pid_of broker-a)"; sleep "$hold"; kill -CONT "$(pid_of broker-a)" ;;
    restart) node=broker-a cluster stop; sleep "$hold"; node=broker-a cluster start ;;
    diskfull)
      filler=$mounted/filler
      dd if=/dev/zero of="$filler" bs=1M count=1000 >/dev/null 2>&1 || true  # until ENOSPC
      sleep "$hold"; rm -f "$filler" ;;
    slaveloss) kill -9 "$(pid_of broker-a-s)"; sleep "$hold"; node=broker-a-s cluster start ;;
    eio|stall|hadrop) touch "$out/$1.flag"; sleep "$hold"; rm -f "$out/$1.flag" ;;
    diskeio)
      loop_limit "$loopdev" $((20 << 20))  # 20 MiB of 160: writes beyond fail with EIO
      sleep "$hold"
      kill -9 "$(pid_of broker-a)"; sleep 1
      umount "$mounted" || umount -l "$mounted"
      loop_limit "$loopdev" 0
      fsck.ext4 -fy "$loopdev" >>"$out/fsck.log" 2>&1 || true  # 1 = errors corrected
      mount "$loopdev" "$mounted"
      node=broker-a cluster start ;;
    *) echo "drill.sh: unknown fault $1" >&2; exit 2 ;;
  esac
  end=$(now_ms)
  echo "F $1 $start $end" >>"$out/faults.log"
  echo "  fault $1: held $(( (end - start) / 1000 )) s"
}

# A failover fault hits whichever broker is master now, and ends once the group is whole again.
failover_fault() {  # name; logs "F name start end broker-a" (end = the old master started / continued)
  local m s start end elected back etcd_member="" epoch
  m=$(master_now)
  [ -n "$m" ] || { echo "  fault $1: skipped, no broker says master"; return; }
  s=$(other_of "$m"); epoch=$(rt "$m" failoverEpoch)
  in_sync "$m" "$s" || echo "  fault $1: note: $s is not in $m's in-sync set (no election possible)"
  local victim; victim=$(pid_of "$m")
  [ "$1" != failover-etcd-leader ] || etcd_member=$(etcd_leader)
  # The fault's start is taken just after the signal (kill is a builtin): a send issued after it
  # can only be acknowledged by a new master.
  case $1 in
    failover-kill) kill -9 "$victim"; start=$(now_ms) ;;
    failover-stop) kill -STOP "$victim"; start=$(now_ms) ;;
    failover-etcd-leader)
      kill -9 "$victim"; start=$(now_ms)
      sleep 1  # the lease (2 s) still runs: its expiry and the election meet etcd's own leader election
      [ -z "$etcd_member" ] || kill -9 "$(pid_of "$etcd_member")" ;;
    *) echo "drill.sh: unknown fault $1" >&2; exit 2 ;;
  esac
  elected=$(wait_role "$s" master 60 "$start")
  if [ "$1" = failover-stop ]; then
    sleep_until $((start + stop_hold * 1000))
    kill -CONT "$(pid_of "$m")"
  else
    sleep_until $((start + hold * 1000))
    [ -z "$etcd_member" ] || node=$etcd_member cluster start
    node=$m cluster start
  fi
  end=$(now_ms)
  echo "F $1 $start $end broker-a" >>"$out/faults.log"
  local after_role after_epoch demoted
  after_role=$(rt "$m" failoverRole); after_epoch=$(rt "$m" failoverEpoch)
  demoted=$(wait_role "$m" slave 60 "$end")
  back=$(wait_in_sync "$s" "$m" 90 "$end")
  echo "  fault $1: $m (master, epoch $epoch)${etcd_member:+ and etcd leader $etcd_member} down; $s master after $elected ms" \
       "(epoch $(rt "$s" failoverEpoch)); $m back: first answer '$after_role' at epoch $after_epoch, slave after $demoted ms," \
       "in sync after $back ms"
  echo "$1 elected_ms=$elected demoted_ms=$demoted in_sync_ms=$back" >>"$out/failover.log"
}

echo "drill: $flush + $role${failover:+ with failover}, ${seconds}s at $tps msg/s, faults: $faults (hold ${hold}s), in $out"
java_pid=""
if [ -n "$java_ref" ]; then
  mkdir -p "$out/java"
  javac -cp "$java_ref/lib/*" -d "$out/java" "$repo/scripts/java/DrillJavaProbe.java"
  "$admin" updateTopic -c DefaultCluster -t DrillJava -r 4 -w 4 >>"$out/cluster.log" 2>&1
  sleep 2  # the route reaches the name server
  # 35 s beyond the run: the last fault's group gets one more route poll (30 s) of the Java client.
  java -cp "$java_ref/lib/*:$out/java" DrillJavaProbe "$NAMESRV_ADDR" DrillJava $((seconds + 35)) 2 20 "$out/java-send.log" \
    >"$out/java-probe.out" 2>&1 &
  java_pid=$!
fi
"$bench" drill-consume --log "$out/recv.log" --stop-file "$out/stop" -d $((seconds + 240)) >"$out/consumer.out" 2>&1 &
consumer_pid=$!
pop_pid=""
if [ -n "$pop" ]; then
  "$bench" drill-pop-consume --endpoint "127.0.0.1:$grpc_port" --log "$out/pop.log" --stop-file "$out/stop" -t 4 \
    --invisible 3000 --skip-every 50 --late-every 20 --process-ms 100 -d $((seconds + 240)) >"$out/pop-consumer.out" 2>&1 &
  pop_pid=$!
fi
"$bench" drill-produce --log "$out/send.log" -t 4 --tps "$tps" -d "$seconds" --run drill >"$out/producer.out" 2>&1 &
producer_pid=$!
set -- $faults
gap=$(( seconds / ($# + 1) ))
for f in $faults; do
  sleep "$(( gap > hold ? gap - hold : 1 ))"
  kill -0 "$producer_pid" 2>/dev/null || break
  case $f in failover-*) failover_fault "$f" ;; *) fault "$f" ;; esac
done
wait "$producer_pid" || true; producer_pid=""
[ -z "$java_pid" ] || { wait "$java_pid" || true; java_pid=""; }
touch "$out/stop"
wait "$consumer_pid" || true; consumer_pid=""
[ -z "$pop_pid" ] || { wait "$pop_pid" || true; pop_pid=""; }

if [ -n "$failover" ]; then
  # What is consumable afterwards: a fresh pass over every queue from offset 0 (the live consumer
  # may have read, from a master that was then deposed, a tail the group cut later).
  "$bench" drill-consume --log "$out/recv-final.log" --group drill_final --stop-file "$out/stop" --quiet 5 -d 300 \
    >"$out/consumer-final.out" 2>&1 || true
  rc=0
  "$bench" drill-check --send "$out/send.log" --recv "$out/recv.log" >"$out/check-live.txt" || true
  "$bench" drill-check --send "$out/send.log" --recv "$out/recv-final.log" --faults "$out/faults.log" >"$out/check.txt" || rc=$?
  cat "$out/check.txt"
  v() { sed -n "s/^$1=//p" "$out/check.txt"; }
  echo "live consumer: lost=$(sed -n 's/^lost=//p' "$out/check-live.txt") duplicates=$(sed -n 's/^duplicates=//p' "$out/check-live.txt")"
  # The Java producer: first SEND_OK on broker-a after each fault's start (ms), "-" without --java.
  java_ms() {  # fault start ms
    [ -f "$out/java-send.log" ] || { echo -; return; }
    awk -v t="$1" '$1 == "S" && $3 == "broker-a" && $4 == "SEND_OK" && $2 > t { d = $2 - t; if (!m || d < m) m = d } END { print m ? m : "none" }' "$out/java-send.log"
  }
  echo "| fault | slave says master (ms) | first SEND_OK on broker-a (ms) | Java client: first SEND_OK (ms) | old master says slave (ms) | back in sync (ms) | lost | duplicated |" | tee "$out/row.md"
  echo "|---|---|---|---|---|---|---|---|" | tee -a "$out/row.md"
  i=0
  while read -r name el de ins; do  # the checker prints its lines in the order of faults.log, as here
    i=$((i + 1))
    fo=$(sed -n "s/^failover_ms [^=]*=\([^ ]*\).*/\1/p" "$out/check.txt" | sed -n "${i}p")
    loss=$(sed -n "s/^fault_loss [^ ]* lost=\([0-9]*\) duplicates=\([0-9]*\)/\1 \2/p" "$out/check.txt" | sed -n "${i}p")
    start=$(awk -v i="$i" '$1 == "F" { if (++n == i) print $3 }' "$out/faults.log")
    echo "| $name | ${el#elected_ms=} | $fo | $(java_ms "$start") | ${de#demoted_ms=} | ${ins#in_sync_ms=} | ${loss% *} | ${loss#* } |"
  done <"$out/failover.log" | tee -a "$out/row.md"
  [ ! -f "$out/java-send.log" ] || echo "java producer (DrillJava): $(grep -c '^S .* SEND_OK ' "$out/java-send.log") SEND_OK, $(grep -c '^S ' "$out/java-send.log") answered, $(grep -c '^E ' "$out/java-send.log") exceptions reached the application"
  echo "| all ($flush, $role) | sent $(v sent) | acked $(v acked) | lost $(v lost) | duplicates $(v duplicates) | order violations $(v order_violations) | unacked but stored $(v unacked_received) |" | tee -a "$out/row.md"
  exit $rc
fi

rc=0
"$bench" drill-check --send "$out/send.log" --recv "$out/recv.log" --faults "$out/faults.log" ${pop:+--pop "$out/pop.log"} \
  >"$out/check.txt" || rc=$?
cat "$out/check.txt"
v() { sed -n "s/^$1=//p" "$out/check.txt"; }
if [ -n "$pop" ]; then
  delay=$(sed -n 's/^pop_redelivery_delay_ms .*p99=\([0-9]*\).*/\1/p' "$out/check.txt")
  echo "| POP ($flush, $role, $faults) | sent $(v sent) | acked $(v acked) | POP lost $(v pop_lost) | deliveries $(v pop_deliveries) | redelivered $(v pop_redeliveries): skipped $(v pop_redelivered_skipped), late $(v pop_redelivered_late), in flight at kill $(v pop_redelivered_in_flight_at_kill), ack lost at kill $(v pop_redelivered_ack_lost_at_kill), ack too late $(v pop_redelivered_ack_too_late) | acked then redelivered $(v pop_redelivered_acked_redelivered) | unexplained $(v pop_redelivered_unexplained) | redelivery p99 $delay ms |" | tee "$out/pop.md"
fi
rec=$(sed -n 's/^recovery_ms \([a-z0-9]*\)=\([^ ]*\).*/\1 \2/p' "$out/check.txt" | tr '\n' ',' | sed 's/,$//; s/,/, /g')
echo "| $flush | $role | $(v sent) | $(v acked) | $(v lost) | $(v duplicates) | $(v order_violations) | $(v unacked_received) | $(v max_ack_gap_ms) | $rec |" | tee "$out/row.md"
exit $rc
