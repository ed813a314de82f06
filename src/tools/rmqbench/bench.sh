#!/usr/bin/env bash
# The benchmark run of issue 4/5: the loopback echo limit, then for ASYNC_FLUSH and SYNC_FLUSH a
# fresh `rmqnode --role=namesrv,master` (temp store, free loopback ports): start-up time, 1 KiB
# sync sends with 1, 16 and 64 workers, consume TPS, long-poll wake-up latency (store-to-consume
# at 100 msg/s), broker RSS. Prints the SUMMARY lines; stops every process it starts.
# Mode `repl` (issues 8, 23) instead: for ASYNC_MASTER and SYNC_MASTER, a name server + master
# process and a SLAVE process on the same machine; 1 KiB sync sends with 16 producers to an 8-queue
# topic for 10 s unless [seconds] is given; prints TPS, p50/p99, each process's CPU-us per message,
# share of a core and context switches per message, and SYNC_MASTER's TPS as a percentage of
# ASYNC_MASTER's; REPL_ROUNDS=N repeats the pair N times, the order alternating (median ratio);
# REPL_LAG=1 also samples the slave's lag (master commitLogMaxOffset - slave's, rmqadmin every 0.5 s,
# slave read first so a sample is an upper bound): max/p50/avg.
# Mode `conns` (issue 10): a fresh name server + broker process; for each count in CONNS_COUNTS
# (default "1000 3000 10000") `rmqbench conns` opens that many idle connections, then that many with
# one parked long poll each, and prints the broker's RssAnon growth per connection and, CONNS_WATCH
# (default 10) s after closing them, what it holds still.
# Mode `soak` (issue 10): one broker under mixed load for SOAK_SECONDS (default 600): 1 KiB sends
# at SOAK_TPS (default 2000/s), a push consumer, and 1000 connections with a parked long poll each;
# the broker's RssAnon is sampled every 5 s; prints the samples' first/min/max/last.
# Mode `failover` (issue 19): the cost of automatic failover. SYNC_MASTER + a slave (two processes,
# the master with the name server), 1 KiB sync sends with 16 producers, failover off vs on (on: both
# brokers with failoverEnable and a one-member etcd on this machine, as a single box runs it);
# FAILOVER_ROUNDS (default 3) alternating pairs, fresh processes each; prints each run's TPS and
# the etcd member's CPU, the on/off ratio of each pair and their median.
# Mode `timer` (issue 22): timer-message enqueue rate vs plain sends, delivery lag at 10,000
# timers/s, broker RSS with TIMER_PENDING (default 1,000,000) pending timers.
# Mode `grpc` (issue 20): one dev node serving remoting and gRPC; 1 KiB sync sends with 16 workers
# from `rmqbench producer` (remoting, our 4.x client) and `rmqbench grpc-producer` (the 5.x
# SendMessage over HTTP/2, 2 connections) to one 8-queue topic, alternating GRPC_ROUNDS (default 2)
# times; prints each run and the gRPC/remoting TPS and p99 ratios (goal: TPS >= 80 %, p99 <= 1.5x).
# Mode `pop` (issue 21): one dev node serving remoting and gRPC; a preloaded 8-queue topic of 1 KiB
# messages consumed for $secs s by the 4.x push consumer (`rmqbench consumer`, 20 threads) and by the
# 5.x POP consumer (`rmqbench pop-consumer`, 16 workers over 2 connections, batch 32, one AckMessage
# per batch), each run a fresh group from the first message, alternating POP_ROUNDS (default 2)
# times: POP/push TPS (goal >= 70 %). Then the redelivery delay: producer at 2000 msg/s, the POP
# consumer leaving every 10th message un-acked (invisible 2 s), for max($secs, 10) s (goal p99 <= 1 s).
# Then memory: POP_PARK (default 10000) receives parked on an empty topic over 20 connections, the
# broker's RssAnon growth per parked receive (goal <= 8 KB; raise `ulimit -n` before).
# Mode `manytopics` (issue 23 §2): MANY_CONNS parked long polls and MANY_TOPICS topics at once on one
# dev node (10,000 each): creation rate, registration body size and time, start-up, route latency, RssAnon.
# Usage: src/tools/rmqbench/bench.sh <build-dir> [seconds per run, default 5] [all|repl|failover|conns|soak|timer|grpc|pop|manytopics, default all]
# (build it first: BUILD_DIR=build/release scripts/build.sh Release rmqnode rmqadmin rmqbench)
set -euo pipefail
build=$(realpath "${1:?usage: bench.sh <build-dir> [seconds] [mode]}")
secs=${2:-5}
mode=${3:-all}
if [ "$mode" = repl ] && [ -z "${2:-}" ]; then secs=10; fi  # issue 23: 10 s runs
bench="$build/rmqbench"; admin="$build/rmqadmin"; node_bin="$build/rmqnode"
for b in "$bench" "$admin" "$node_bin"; do [ -x "$b" ] || { echo "missing $b" >&2; exit 2; }; done

work=$(mktemp -d /tmp/rmq-bench.XXXXXX)
pid=""
slave_pid=""
stop_pid() {  # pid
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
    kill -TERM "$1"; for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true
  fi
}
etcd_pid=""
stop_node() { stop_pid "$slave_pid"; slave_pid=""; stop_pid "$pid"; pid=""; stop_pid "$etcd_pid"; etcd_pid=""; }
trap 'stop_node; rm -rf "$work"' EXIT

# A free port p whose p-2 (VIP) and p+1 (HA) are free too.
free_port() {
  python3 - <<'EOF'
import socket
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
for _ in range(100):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    if 1030 < p < 65000 and free(p - 2) and free(p + 1):
        print(p); break
EOF
}

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# A dev node (name server + master) in $1 on fresh ports: sets ns, bp and pid, waits for its ports.
start_dev_node() {  # dir [store-line] [broker-line]
  ns=$(free_port); bp=$(free_port)
  node_toml "$1/node.toml" "$1" "$ns" "$bp" "${2:-}" "${3:-}"
  HOME="$1" "$node_bin" --role=namesrv,master --config "$1/node.toml" >"$1/out.txt" 2>&1 &
  pid=$!
  wait_ports "$pid" "$ns" "$bp"
}
wait_ports() {  # pid port...
  local p=$1; shift
  for port in "$@"; do
    until (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; do
      kill -0 "$p" 2>/dev/null || { echo "rmqnode $p exited"; exit 1; }
      sleep 0.01
    done
  done
}
max_offset() {  # broker address -> commitLogMaxOffset ("" when it does not answer)
  "$admin" brokerStatus -n "127.0.0.1:$ns" -b "$1" 2>/dev/null | sed -n 's/^commitLogMaxOffset *: *//p'
}

# Starts $dir/master.toml (name server + master) and $dir/slave/slave.toml on ns/mp/sp, creates
# BenchTopic8Q (retried: a failover master takes its role from etcd a moment after start) and sends
# until a send is SEND_OK and the slave is at the master's end (SYNC_MASTER: the slave follows once a
# send succeeds; ASYNC: once its offset moved; failover: the slave is in the in-sync set).
start_pair() {
  HOME="$dir" "$node_bin" --role=namesrv,master --config "$dir/master.toml" >"$dir/out.txt" 2>&1 &
  pid=$!
  wait_ports "$pid" "$ns" "$mp" $((mp + 1))
  HOME="$dir/slave" "$node_bin" --role=slave --config "$dir/slave/slave.toml" >"$dir/slave/out.txt" 2>&1 &
  slave_pid=$!
  wait_ports "$slave_pid" "$sp"
  for _ in $(seq 1 100); do
    "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$mp" -t BenchTopic8Q -r 8 -w 8 >/dev/null 2>&1 && break
    sleep 0.1
  done
  for _ in $(seq 1 300); do
    "$admin" sendMessage -n "127.0.0.1:$ns" -t BenchTopic8Q -p warm-up 2>/dev/null | grep -q SEND_OK &&
      [ "$(max_offset "127.0.0.1:$sp")" = "$(max_offset "127.0.0.1:$mp")" ] && return 0
    sleep 0.1
  done
  # A slave learns its master's HA address from its registration answer: one that registered
  # before its master waits for its next registration (registerNameServerPeriod), and SYNC_MASTER
  # sends fail SLAVE_NOT_AVAILABLE meanwhile (counted as failed in the SUMMARY line).
  echo "== warning: the slave does not follow its master 30 s after start; the run's figures include that"
}

# The config of a name server + broker process (--role=namesrv,master) with its files under DIR;
# STORE_LINE is one more [store] key, BROKER_LINE one more [broker] key.
node_toml() {  # file dir namesrv-port broker-port store-line broker-line
  cat >"$1" <<EOF
logDir = "$2/logs"
[namesrv]
bindAddress = "127.0.0.1"
listenPort = $3
kvConfigPath = "$2/namesrv/kvConfig.json"
configStorePath = "$2/namesrv/namesrv.properties"
[broker]
brokerName = "bench-broker"
brokerIP1 = "127.0.0.1"
listenPort = $4
namesrvAddr = "127.0.0.1:$3"
${6:-}
[store]
storePathRootDir = "$2/store"
$5
EOF
}

if [ "$mode" = repl ]; then
  # Issue 23's setup: 16 producers x 1 KiB sync sends for $secs s (10 unless given) to an 8-queue
  # topic; a name server + master process and a SLAVE process on this machine; ASYNC_MASTER vs
  # SYNC_MASTER. REPL_ROUNDS pairs, fresh processes each, the order alternating (A S, S A, ...):
  # the load of a shared machine drifts between runs. Besides TPS each run prints what holds up
  # under load better: each process's CPU per message and share of a core, and its context
  # switches per message. REPL_LAG=1 also samples the slave's lag every 0.5 s with two rmqadmin
  # calls (off by default: the sampling takes CPU from the runs it measures).
  rounds=${REPL_ROUNDS:-1}
  ratios=()
  hz=$(getconf CLK_TCK)
  ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
  switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt/ {n += $2} END {print n + 0}'; }
  for round in $(seq 1 "$rounds"); do
    declare -A tps
    order="ASYNC_MASTER SYNC_MASTER"; [ $((round % 2)) -eq 0 ] && order="SYNC_MASTER ASYNC_MASTER"
    for role in $order; do
      dir="$work/$role-$round"; mkdir -p "$dir/slave"
      ns=$(free_port); mp=$(free_port); sp=$(free_port)
      node_toml "$dir/master.toml" "$dir" "$ns" "$mp" "brokerRole = \"$role\""
      cat >"$dir/slave/slave.toml" <<EOF
logDir = "$dir/slave/logs"
[broker]
brokerName = "bench-broker"
brokerId = 1
brokerIP1 = "127.0.0.1"
listenPort = $sp
namesrvAddr = "127.0.0.1:$ns"
[store]
storePathRootDir = "$dir/slave/store"
brokerRole = "SLAVE"
EOF
      start_pair
      m0=$(ticks "$pid"); s0=$(ticks "$slave_pid"); mc0=$(switches "$pid"); sc0=$(switches "$slave_pid")
      load=$(cut -d' ' -f1-3 /proc/loadavg)
      /usr/bin/time -f "CLIENT %e %U %S %w %c" -o "$dir/client-time.txt" \
        "$bench" producer -n "127.0.0.1:$ns" --topic BenchTopic8Q -t 16 -s 1024 -d "$secs" >"$dir/producer.txt" &
      bpid=$!
      lags=()
      while [ "${REPL_LAG:-0}" = 1 ] && kill -0 "$bpid" 2>/dev/null; do
        # Slave first: the master's offset read after it makes each sample an upper bound of the lag
        # (the other order gave negative lags, one rmqadmin call taking ~0.1 s under load).
        sl=$(max_offset "127.0.0.1:$sp"); m=$(max_offset "127.0.0.1:$mp")
        [ -n "$m" ] && [ -n "$sl" ] && lags+=($((m - sl)))
        sleep 0.5
      done
      wait "$bpid"
      m1=$(ticks "$pid"); s1=$(ticks "$slave_pid"); mc1=$(switches "$pid"); sc1=$(switches "$slave_pid")
      line=$(grep SUMMARY "$dir/producer.txt")
      echo "== $role + SLAVE, round $round, load $load: $line"
      tps[$role]=$(echo "$line" | sed -E 's/.*TPS ([0-9.]+).*/\1/')
      # Per message over the client's whole run (start-up included): ok / its elapsed time.
      awk -v r="$role" -v line="$line" -v hz="$hz" -v m=$((m1 - m0)) -v s=$((s1 - s0)) -v mc=$((mc1 - mc0)) \
        -v sc=$((sc1 - sc0)) -v client="$(sed -n 's/^CLIENT //p' "$dir/client-time.txt")" 'BEGIN {
        split(client, c, " "); secs = c[1]; cpu = c[2] + c[3]
        ok = line; sub(/.* ok /, "", ok); ok = int(ok); if (ok < 1) ok = 1
        printf "SUMMARY cpu %s: CPU-us/msg master %.1f slave %.1f client %.1f (all %.1f); %% of a core master %.0f slave %.0f client %.0f; context switches/msg master %.2f slave %.2f client %.2f\n",
          r, m / hz * 1e6 / ok, s / hz * 1e6 / ok, cpu * 1e6 / ok, (m / hz + s / hz + cpu) * 1e6 / ok,
          100 * m / hz / secs, 100 * s / hz / secs, 100 * cpu / secs, mc / ok, sc / ok, (c[4] + c[5]) / ok }'
      if [ ${#lags[@]} -gt 0 ]; then
        printf '%s\n' "${lags[@]}" | sort -n | awk -v r="$role" '{a[NR]=$1; s+=$1} END {printf "SUMMARY lag %s: samples %d, max %d B, p50 %d B, avg %.0f B\n", r, NR, a[NR], a[int((NR+1)/2)], s/NR}'
      fi
      end=$(date +%s)
      until [ "$(max_offset "127.0.0.1:$mp")" = "$(max_offset "127.0.0.1:$sp")" ] || [ $(( $(date +%s) - end )) -gt 30 ]; do sleep 0.1; done
      echo "== $role: slave at the master's end $(( $(date +%s) - end )) s after the load (master $(max_offset "127.0.0.1:$mp"), slave $(max_offset "127.0.0.1:$sp"))"
      stop_node
    done
    awk -v a="${tps[ASYNC_MASTER]}" -v s="${tps[SYNC_MASTER]}" 'BEGIN {printf "SUMMARY repl: SYNC_MASTER TPS %.0f = %.1f %% of ASYNC_MASTER TPS %.0f (goal >= 80 %%)\n", s, 100 * s / a, a}'
    ratios+=("$(awk -v a="${tps[ASYNC_MASTER]}" -v s="${tps[SYNC_MASTER]}" 'BEGIN {printf "%.1f", 100 * s / a}')")
  done
  if [ "$rounds" -gt 1 ]; then
    printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {printf "SUMMARY repl rounds: %d, SYNC/ASYNC %% each:", NR; for (i = 1; i <= NR; i++) printf " %s", a[i]; printf "; median %s %%\n", a[int((NR+1)/2)]}'
  fi
  exit 0
fi

if [ "$mode" = failover ]; then
  command -v etcd >/dev/null || { echo "failover mode needs etcd (Debian etcd-server: scripts/install-deps.sh)"; exit 2; }
  ratios=()
  ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
  for round in $(seq 1 "${FAILOVER_ROUNDS:-3}"); do
    declare -A tps
    for fo in off on; do
      dir="$work/failover-$fo-$round"; mkdir -p "$dir/slave"
      ns=$(free_port); mp=$(free_port); sp=$(free_port)
      slave_role=SLAVE; master_id=0; slave_id=1; failover_lines=""
      if [ "$fo" = on ]; then
        ec=$(free_port); ep=$(free_port)
        etcd --name bench --data-dir "$dir/etcd" --listen-client-urls "http://127.0.0.1:$ec" \
          --advertise-client-urls "http://127.0.0.1:$ec" --listen-peer-urls "http://127.0.0.1:$ep" \
          --initial-advertise-peer-urls "http://127.0.0.1:$ep" --initial-cluster "bench=http://127.0.0.1:$ep" \
          --log-level error >"$dir/etcd.txt" 2>&1 &
        etcd_pid=$!
        wait_ports "$etcd_pid" "$ec"
        # Failover groups number their brokers from 1 (brokerId 0 is what the master registers as);
        # the slave's configured role only says it does not create the group.
        slave_role=SYNC_MASTER; master_id=1; slave_id=2
        failover_lines="failoverEnable = true
failoverEtcdEndpoints = \"127.0.0.1:$ec\""
      fi
      node_toml "$dir/master.toml" "$dir" "$ns" "$mp" "brokerRole = \"SYNC_MASTER\""
      python3 - "$dir/master.toml" "$master_id" "$failover_lines" <<'EOF'
import sys
path, broker_id, extra = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read().replace("[broker]\n", "[broker]\nbrokerId = %s\n%s\n" % (broker_id, extra), 1)
open(path, "w").write(text)
EOF
      cat >"$dir/slave/slave.toml" <<EOF
logDir = "$dir/slave/logs"
[broker]
brokerName = "bench-broker"
brokerId = $slave_id
brokerIP1 = "127.0.0.1"
listenPort = $sp
namesrvAddr = "127.0.0.1:$ns"
$failover_lines
[store]
storePathRootDir = "$dir/slave/store"
brokerRole = "$slave_role"
EOF
      start_pair
      e0=0; [ -n "$etcd_pid" ] && e0=$(ticks "$etcd_pid")
      line=$("$bench" producer -n "127.0.0.1:$ns" --topic BenchTopic8Q -t 16 -s 1024 -d "$secs" | grep SUMMARY)
      etcd_cpu=""
      if [ -n "$etcd_pid" ]; then
        etcd_cpu=$(awk -v t=$(( $(ticks "$etcd_pid") - e0 )) -v s="$secs" -v hz="$(getconf CLK_TCK)" \
          'BEGIN {printf ", etcd CPU %.1f %% of a core", 100 * t / hz / s}')
      fi
      echo "== failover $fo, SYNC_MASTER + slave, round $round: $line$etcd_cpu"
      tps[$fo]=$(echo "$line" | sed -E 's/.*TPS ([0-9.]+).*/\1/')
      stop_node
    done
    ratios+=("$(awk -v a="${tps[off]}" -v b="${tps[on]}" 'BEGIN {printf "%.1f", 100 * b / a}')")
    echo "SUMMARY failover round $round: on ${tps[on]} TPS = ${ratios[-1]} % of off ${tps[off]} TPS"
  done
  printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {printf "SUMMARY failover rounds: %d, on/off %% each:", NR; for (i = 1; i <= NR; i++) printf " %s", a[i]; printf "; median %s %% (goal >= 95 %%)\n", a[int((NR+1)/2)]}'
  exit 0
fi

if [ "$mode" = soak ]; then
  soak=${SOAK_SECONDS:-600}
  dir="$work/soak"; mkdir -p "$dir"
  start_dev_node "$dir"
  "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t BenchSoak -r 8 -w 8 >/dev/null
  "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t BenchConns -r 4 -w 4 >/dev/null
  sleep 1
  "$bench" producer -n "127.0.0.1:$ns" --topic BenchSoak -t 4 -s 1024 -d "$soak" --tps "${SOAK_TPS:-2000}" >"$dir/producer.txt" 2>&1 &
  p1=$!
  "$bench" consumer -n "127.0.0.1:$ns" --topic BenchSoak --group bench_soak -d "$soak" >"$dir/consumer.txt" 2>&1 &
  p2=$!
  "$bench" conns -b "127.0.0.1:$bp" --pid "$pid" -c 1000 --park --topic BenchConns --queues 4 --settle $((soak - 10)) >"$dir/conns.txt" 2>&1 &
  p3=$!
  start=$(date +%s)
  while kill -0 "$p1" 2>/dev/null; do
    echo "$(( $(date +%s) - start )) $(awk '/RssAnon/ {print $2}' /proc/$pid/status)" >>"$dir/rss.txt"
    sleep 5
  done
  wait "$p1" "$p2" "$p3" || true
  grep -h SUMMARY "$dir/producer.txt" "$dir/consumer.txt" "$dir/conns.txt"
  awk 'NR==1 {f=$2; mn=$2; mx=$2} {if ($2<mn) mn=$2; if ($2>mx) mx=$2; l=$2; if ($1>=60 && !m) m=$2} END {printf "SUMMARY soak %d samples: broker RssAnon first %d KiB, at 1 min %d KiB, min %d, max %d, last %d KiB\n", NR, f, m, mn, mx, l}' "$dir/rss.txt"
  cp "$dir/rss.txt" "${SOAK_RSS_OUT:-/dev/null}" 2>/dev/null || true
  stop_node
  exit 0
fi

if [ "$mode" = grpc ]; then
  dir="$work/grpc"; mkdir -p "$dir"
  gp=$(free_port)
  start_dev_node "$dir" "" "grpcServerPort = $gp"
  wait_ports "$pid" "$gp"
  "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t BenchTopic8Q -r 8 -w 8 >/dev/null
  sleep 1
  tps() { sed -E 's/.*TPS ([0-9.]+).*/\1/' <<<"$1"; }
  p99() { sed -E 's/.* p99 ([0-9.]+) .*/\1/' <<<"$1"; }
  for round in $(seq 1 "${GRPC_ROUNDS:-2}"); do
    remoting=$("$bench" producer -n "127.0.0.1:$ns" --topic BenchTopic8Q -t 16 -s 1024 -d "$secs" | grep SUMMARY)
    grpc=$("$bench" grpc-producer --endpoint "127.0.0.1:$gp" --topic BenchTopic8Q -t 16 -s 1024 -d "$secs" --connections 2 | grep SUMMARY)
    echo "round $round remoting: $remoting"
    echo "round $round gRPC:     $grpc"
    awk -v r="$round" -v a="$(tps "$remoting")" -v b="$(tps "$grpc")" -v pa="$(p99 "$remoting")" -v pb="$(p99 "$grpc")" \
      'BEGIN {printf "SUMMARY grpc round %d: gRPC %.0f TPS = %.1f %% of remoting %.0f TPS (goal >= 80 %%); p99 %s vs %s ms = %.2fx (goal <= 1.5x)\n", r, b, 100 * b / a, a, pb, pa, (pa > 0 ? pb / pa : 0)}'
  done
  echo "broker RssAnon $(awk '/RssAnon/ {print $2}' /proc/$pid/status) KiB"
  stop_node
  exit 0
fi

if [ "$mode" = pop ]; then
  dir="$work/pop"; mkdir -p "$dir"
  gp=$(free_port)
  start_dev_node "$dir" "" "grpcServerPort = $gp"
  wait_ports "$pid" "$gp"
  for t in BenchPop8Q BenchPopRedeliver BenchPopPark; do
    "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t "$t" -r 8 -w 8 >/dev/null
  done
  sleep 1
  rounds=${POP_ROUNDS:-2}
  # Enough for every run to find messages until its end (a run reads at most ~60k msg/s here).
  preload=$(( ${POP_PRELOAD_RATE:-60000} * secs ))
  "$bench" producer -n "127.0.0.1:$ns" --topic BenchPop8Q -t 32 -s 1024 -c "$preload" | grep SUMMARY
  tps() { sed -E 's/.*TPS ([0-9.]+).*/\1/' <<<"$1"; }
  for round in $(seq 1 "$rounds"); do
    push=$("$bench" consumer -n "127.0.0.1:$ns" --topic BenchPop8Q --group "bench_push_$round" --from first -d "$secs" | grep SUMMARY)
    popl=$("$bench" pop-consumer --endpoint "127.0.0.1:$gp" --topic BenchPop8Q --group "bench_pop_$round" -t 16 \
      --connections 2 --batch 32 -d "$secs" | grep "SUMMARY receive")
    echo "round $round push (4.x): $push"
    echo "round $round POP (5.x):  $popl"
    awk -v r="$round" -v a="$(tps "$push")" -v b="$(tps "$popl")" \
      'BEGIN {printf "SUMMARY pop round %d: POP receive+ack %.0f msg/s = %.1f %% of the 4.x push consumer %.0f msg/s (goal >= 70 %%)\n", r, b, 100 * b / a, a}'
  done
  rsecs=$(( secs > 10 ? secs : 10 ))
  "$bench" producer -n "127.0.0.1:$ns" --topic BenchPopRedeliver -t 4 -s 1024 -d "$rsecs" --tps 2000 >"$dir/redeliver-producer.txt" &
  ppid=$!
  "$bench" pop-consumer --endpoint "127.0.0.1:$gp" --topic BenchPopRedeliver --group bench_pop_redeliver -t 8 \
    --connections 2 --batch 16 --invisible 2000 --poll 1000 --no-ack-every 10 -d $(( rsecs + 4 )) | grep "SUMMARY pop redelivery"
  wait "$ppid"; grep SUMMARY "$dir/redeliver-producer.txt"
  ( ulimit -n "$(ulimit -Hn)"; "$bench" pop-consumer --endpoint "127.0.0.1:$gp" --topic BenchPopPark --group bench_pop_park \
      --park "${POP_PARK:-10000}" --connections 20 --pid "$pid" --settle 8 | grep -E "SUMMARY|park:" )
  stop_node
  exit 0
fi

if [ "$mode" = timer ]; then
  # Issue 22. One fresh dev node: (1) 1 KiB sync sends with 16 workers, plain vs timer messages due
  # in 60 s (enqueue rate, goal >= 80 %); (2) 10,000 timers/s for $secs s, all due 15 s after their
  # send, then their delivery lag p50/p99 (timer-lag); (3) broker RssAnon before and with
  # TIMER_PENDING (default 1,000,000) pending timers (256 B bodies, due in 1 h).
  dir="$work/timer"; mkdir -p "$dir"
  start_dev_node "$dir"
  for t in BenchPlain BenchTimer BenchLag BenchPending; do
    "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t "$t" -r 8 -w 8 >/dev/null
  done
  sleep 1
  rss() { awk '/RssAnon/ {print $2}' /proc/$pid/status; }
  rss0=$(rss)
  plain=$("$bench" producer -n "127.0.0.1:$ns" --topic BenchPlain -t 16 -s 1024 -d "$secs" | grep SUMMARY)
  timer=$("$bench" producer -n "127.0.0.1:$ns" --topic BenchTimer -t 16 -s 1024 -d "$secs" --timer-ms 60000 | grep SUMMARY)
  echo "$plain"; echo "$timer"
  tps() { sed -E 's/.*TPS ([0-9.]+).*/\1/' <<<"$1"; }
  awk -v a="$(tps "$plain")" -v b="$(tps "$timer")" 'BEGIN {printf "SUMMARY timer enqueue: %.0f TPS = %.1f %% of plain sends %.0f TPS (goal >= 80 %%)\n", b, 100 * b / a, a}'
  lagn=$((10000 * secs))
  "$bench" producer -n "127.0.0.1:$ns" --topic BenchLag -t 16 -s 256 -c "$lagn" --tps 10000 --timer-ms 15000 | grep SUMMARY
  "$bench" timer-lag -n "127.0.0.1:$ns" --topic BenchLag -c "$lagn" --timeout $((secs + 60))
  pending=${TIMER_PENDING:-1000000}
  pendingNow() { "$admin" brokerStatus -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" | awk '/timerPendingCount/ {print $3}'; }
  pending1=$(pendingNow)
  rss1=$(rss)
  "$bench" producer -n "127.0.0.1:$ns" --topic BenchPending -t 32 -s 256 -c "$pending" --batch 1 --timer-ms 3600000 | grep SUMMARY
  sleep 2
  rss2=$(rss)
  "$admin" brokerStatus -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" | grep -E "timerPendingCount|timerIndexBytes"
  pending2=$(pendingNow)
  added=$((pending2 - pending1))
  echo "SUMMARY timer pending $pending2 ($added added): broker RssAnon start $rss0 KiB, before $rss1 KiB, with them pending $rss2 KiB ($(( (rss2 - rss1) * 1024 / (added > 0 ? added : 1) )) B per added timer)"
  stop_node
  exit 0
fi

if [ "$mode" = conns ]; then
  # A fresh process per run: freed memory stays with the allocator, so a second run on the same
  # process would start from a warm RssAnon.
  for n in ${CONNS_COUNTS:-1000 3000 10000}; do
    for park in "" --park; do
      dir="$work/conns-$n$park"; mkdir -p "$dir"
      start_dev_node "$dir"
      "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t BenchConns -r 4 -w 4 >/dev/null
      "$bench" conns -b "127.0.0.1:$bp" --pid "$pid" -c "$n" $park --topic BenchConns --queues 4 \
        --watch "${CONNS_WATCH:-10}" | grep SUMMARY
      stop_node
    done
  done
  grep -h "open-file limit" "$dir"/logs/*.log 2>/dev/null | head -1
  exit 0
fi

if [ "$mode" = manytopics ]; then
  # Issue 23 §2: MANY_CONNS (10000) parked long polls and MANY_TOPICS (10000) topics at once on one
  # dev node. Topic creation rate, full-registration body and time (the broker's log), start-up
  # time with the table (a restart on the same store), route query latency alone and with the
  # connections open, RssAnon. Raise `ulimit -n` first.
  nconns=${MANY_CONNS:-10000}; ntopics=${MANY_TOPICS:-10000}
  dir="$work/manytopics"; mkdir -p "$dir"
  start_dev_node "$dir"
  echo "RssAnon idle: $(sed -n 's/^RssAnon: *//p' "/proc/$pid/status")"
  "$bench" topics -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" --count "$ntopics" --every $((ntopics / 5)) -q 8 --prefix ManyT |
    grep -E "topics|total"
  echo "RssAnon with $ntopics topics: $(sed -n 's/^RssAnon: *//p' "/proc/$pid/status")"
  stop_node
  t0=$(date +%s%N)
  start_dev_node "$dir"
  echo "start-up with $ntopics topics (restart, ports open): $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t BenchConns -r 8 -w 8 >/dev/null
  sleep 2
  grep -h "registered .* topics" "$dir"/logs/*.log | tail -2
  "$bench" route -n "127.0.0.1:$ns" --existing --topic ManyT$(printf %06d $((ntopics / 2))) -c 1 -d "$secs" | grep SUMMARY
  "$bench" conns -b "127.0.0.1:$bp" --pid "$pid" -c "$nconns" --park --topic BenchConns --queues 8 \
    --settle $((secs + 6)) --watch 10 >"$dir/conns.txt" 2>&1 &
  conns_pid=$!
  sleep 5  # the connections are open and parked while the route queries run
  "$bench" route -n "127.0.0.1:$ns" --existing --topic ManyT$(printf %06d $((ntopics / 2))) -c 1 -d "$secs" | grep SUMMARY
  wait "$conns_pid" || true
  grep -E "SUMMARY|first error" "$dir/conns.txt"
  stop_node
  exit 0
fi

echo "== loopback echo limit (in-process remoting server, 1 KiB send-shaped frames, 1 connection)"
for t in 1 16 64; do "$bench" echo -t "$t" -s 1024 -d "$secs" --server-threads 2 | grep SUMMARY; done

for flush in ASYNC_FLUSH SYNC_FLUSH; do
  dir="$work/$flush"; mkdir -p "$dir"
  ns=$(free_port); bp=$(free_port)
  node_toml "$dir/node.toml" "$dir" "$ns" "$bp" "flushDiskType = \"$flush\""
  t0=$(date +%s%N)
  HOME="$dir" "$node_bin" --role=namesrv,master --config "$dir/node.toml" >"$dir/out.txt" 2>&1 &
  pid=$!
  until (exec 3<>/dev/tcp/127.0.0.1/"$bp") 2>/dev/null && (exec 3<>/dev/tcp/127.0.0.1/"$ns") 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "rmqnode exited:"; cat "$dir/out.txt"; exit 1; }
    sleep 0.005
  done
  t1=$(date +%s%N)
  echo "== $flush: rmqnode ports accepting after $(( (t1 - t0) / 1000000 )) ms (pid $pid)"
  "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t BenchTopic8Q -r 8 -w 8 >/dev/null
  # An empty topic for the wake-up run (a new group on a queue starting at 0 reads from 0, §8.6).
  "$admin" updateTopic -n "127.0.0.1:$ns" -b "127.0.0.1:$bp" -t BenchWake -r 4 -w 4 >/dev/null
  sleep 1
  sent=0
  for t in 1 16 64; do
    line=$("$bench" producer -n "127.0.0.1:$ns" --topic BenchTopic8Q -t "$t" -s 1024 -d "$secs" | grep SUMMARY)
    echo "$line"
    sent=$(( sent + $(echo "$line" | sed -E 's/.*ok ([0-9]+) .*/\1/') + 1 ))
  done
  echo "== $flush: consume all $sent messages from the first offset"
  "$bench" consumer -n "127.0.0.1:$ns" --topic BenchTopic8Q --group bench_all --from first -c "$sent" -d 120 | grep SUMMARY
  echo "== $flush: long-poll wake-up: consumer parked, producer at 100 msg/s; 'store' = store-to-consume"
  "$bench" consumer -n "127.0.0.1:$ns" --topic BenchWake --group bench_wake --from last -d $(( secs + 4 )) > "$dir/wake.txt" &
  cpid=$!
  sleep 3
  "$bench" producer -n "127.0.0.1:$ns" --topic BenchWake -t 1 -s 1024 -d "$secs" --tps 100 | grep SUMMARY
  wait "$cpid" || true
  grep SUMMARY "$dir/wake.txt"
  echo "== $flush: broker RSS $(grep VmRSS /proc/$pid/status | awk '{print $2, $3}'), peak $(grep VmHWM /proc/$pid/status | awk '{print $2, $3}')"
  stop_node
done
