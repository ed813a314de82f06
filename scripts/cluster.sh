#!/usr/bin/env bash
# A local RocketMQ-shaped cluster on 127.0.0.1, from the layouts under config/ (the shapes of
# Apache RocketMQ's distribution/conf folders):
#
#   scripts/cluster.sh start   [LAYOUT] [NODE]   start every node (name servers first), or one node
#   scripts/cluster.sh stop    [LAYOUT] [NODE]   graceful stop (brokers first, then name servers), or one node
#   scripts/cluster.sh restart [LAYOUT] [NODE]   stop, then start
#   scripts/cluster.sh status  [LAYOUT] [NODE]   role, pid, ports, answers?, a slave's lag (bytes) and HA link
#                                                (a slave that does not answer: its master's unacked bytes)
#
# LAYOUT is a folder of config/: 2m-2s-async (the default: 2 masters + 2 slaves, asynchronous
# replication, RocketMQ's usual production shape), 2m-2s-sync (SYNC_MASTER), 2m-noslave (2 masters),
# 2m-2s-failover (2m-2s-sync with automatic failover through etcd).
# Every layout has two name servers, 127.0.0.1:9876 and 127.0.0.1:9877 (NAMESRV_ADDR=
# "127.0.0.1:9876;127.0.0.1:9877"), and the brokers broker-a (10911), broker-a-s (10921),
# broker-b (11911), broker-b-s (11921). Every node serves HTTP (/metrics, /healthz, /readyz, the
# console) on a port of its own (httpListenPort: namesrv-1 8081, namesrv-2 8082, broker-a 8083,
# broker-a-s 8084, broker-b 8085, broker-b-s 8086), printed by start and status as http=PORT;
# the brokers also serve RocketMQ 5.x clients over gRPC (grpcServerPort: 18081, 18082, 18083, 18084;
# grpc=PORT),
# and start ends with the Prometheus scrape targets. NODE is a config file name without .toml (namesrv-1,
# broker-a-s, ...). Without LAYOUT every command acts on the layout that was started last (the
# first time: $RMQ_CLUSTER_LAYOUT or 2m-2s-async), so `scripts/cluster.sh stop broker-a` and
# `scripts/cluster.sh start broker-a` work on a running cluster.
#
# Nodes run from the repository root: stores and logs live where the configs say
# (data/cluster/LAYOUT/NODE/{store,logs}); pid files and stdout/stderr go to
# data/cluster/LAYOUT/NODE.pid and data/cluster/LAYOUT/NODE/stdout.log.
# Uses build/release/rmqnode and rmqadmin ($RMQNODE_BIN / $RMQADMIN_BIN; built by
# scripts/build.sh Release if missing). START_WAIT_SECS (default 30) bounds the wait for a node to
# answer; STOP_WAIT_SECS (default 30) the wait for a graceful stop before SIGKILL.
# RMQ_CLUSTER_CONFIG (default config) and RMQ_CLUSTER_STATE (default data/cluster) move the folder
# of layouts and the folder of pid files / stdout logs.
#
# Failover layouts (brokers with failoverEnable = true, e.g. 2m-2s-failover): the script also runs a
# 3-member etcd on 127.0.0.1, the nodes etcd-1..etcd-N, one per address of the brokers'
# failoverEtcdEndpoints (client port from there, peer port = client port + 1, as etcd's 2379/2380),
# data, pid file and stdout under STATE/LAYOUT/etcd-N; started before the name servers, stopped after
# them (`start LAYOUT etcd-2` / `stop LAYOUT etcd-2` act on one member). `status` then shows each
# member (answers, leader or follower), each broker's current role (master / slave, from its runtime
# info, not its file) and per group the master, epoch and in-sync set. Brokers stop current slaves
# first. $ETCD_BIN / $ETCDCTL_BIN (default etcd / etcdctl in PATH: Debian etcd-server, etcd-client).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# (tools_cluster_script_test runs a layout of its own on free ports through these two)
confdir=${RMQ_CLUSTER_CONFIG:-config}
state=${RMQ_CLUSTER_STATE:-$repo/data/cluster}
bin=${RMQNODE_BIN:-$repo/build/release/rmqnode}
admin=${RMQADMIN_BIN:-$repo/build/release/rmqadmin}
etcd_bin=${ETCD_BIN:-etcd}
etcdctl_bin=${ETCDCTL_BIN:-etcdctl}
default_layout=${RMQ_CLUSTER_LAYOUT:-2m-2s-async}
start_wait=${START_WAIT_SECS:-30}
stop_wait=${STOP_WAIT_SECS:-30}

die() { echo "cluster.sh: $*" >&2; exit 2; }
usage() { awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0" >&2; exit 2; }

is_layout() { [ -n "$1" ] && [ -d "$confdir/$1" ] && ls "$confdir/$1"/*.toml >/dev/null 2>&1; }

# ------------------------------------------------------------------ reading a node's config
conf_of() { echo "$confdir/$layout/$1.toml"; }
# First `key = value` of a TOML file, quotes stripped (the layouts keep one key per line).
conf_get() {  # node key
  sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*//p" "$(conf_of "$1")" | head -n1 | sed 's/^"\(.*\)"$/\1/'
}
is_namesrv() { case $1 in namesrv*) return 0 ;; *) return 1 ;; esac; }
is_etcd() { case $1 in etcd-[0-9]*) return 0 ;; *) return 1 ;; esac; }
# Name servers first, then masters, then slaves (the start order; stop walks it backwards).
nodes_in_order() {
  # Read once per run for the chosen layout (below): every helper walks the nodes.
  if [ "${order_layout:-}" = "$layout" ]; then echo "$order_cache"; return; fi
  local f n
  for f in "$confdir/$layout"/namesrv*.toml; do [ -e "$f" ] && basename "$f" .toml; done
  for f in "$confdir/$layout"/*.toml; do
    n=$(basename "$f" .toml); is_namesrv "$n" && continue
    [ "$(conf_get "$n" brokerRole)" != SLAVE ] && echo "$n"
  done
  for f in "$confdir/$layout"/*.toml; do
    n=$(basename "$f" .toml); is_namesrv "$n" && continue
    [ "$(conf_get "$n" brokerRole)" = SLAVE ] && echo "$n"
  done
  return 0
}
role_of() {  # etcd | namesrv | SYNC_MASTER | ASYNC_MASTER | SLAVE (the file's role)
  if is_etcd "$1"; then echo etcd; elif is_namesrv "$1"; then echo namesrv; else
    local r; r=$(conf_get "$1" brokerRole); echo "${r:-ASYNC_MASTER}"
  fi
}
port_of() { if is_etcd "$1"; then etcd_client_port "$1"; else conf_get "$1" listenPort; fi; }
addr_of() { echo "127.0.0.1:$(port_of "$1")"; }
http_port_of() {  # httpListenPort, or nothing when the node serves no HTTP
  is_etcd "$1" && return 0
  local h; h=$(conf_get "$1" httpListenPort)
  [ -n "$h" ] && [ "$h" != 0 ] && echo "$h"
  return 0
}
ports_text() {  # the ports a node listens on
  local p h; p=$(port_of "$1"); h=$(http_port_of "$1")
  if is_etcd "$1"; then echo "$p peer=$((p + 1))"; elif is_namesrv "$1"; then echo "$p${h:+ http=$h}"; else
    local ha g; ha=$(conf_get "$1" haListenPort); g=$(conf_get "$1" grpcServerPort); [ "$g" = 0 ] && g=
    echo "$p vip=$((p - 2)) ha=${ha:-$((p + 1))}${h:+ http=$h}${g:+ grpc=$g}"
  fi
}
scrape_targets() {  # the started nodes' HTTP ports as a prometheus.yml targets list
  local n h out=""
  for n in $targets; do
    h=$(http_port_of "$n"); [ -n "$h" ] && out="$out${out:+, }'127.0.0.1:$h'"
  done
  echo "$out"
}
namesrv_addrs() {
  local n out=""
  for n in $(nodes_in_order); do is_namesrv "$n" && out="$out${out:+;}$(addr_of "$n")"; done
  echo "$out"
}
master_of() {  # the brokerId 0 node with the slave's brokerName (failover: the one that is master now)
  local n want; want=$(conf_get "$1" brokerName)
  if is_failover "$1"; then current_master "$want"; return; fi
  for n in $(nodes_in_order); do
    is_namesrv "$n" && continue
    [ "$(conf_get "$n" brokerName)" = "$want" ] && [ "$(conf_get "$n" brokerId)" = 0 ] && { echo "$n"; return; }
  done
  return 0
}

# ------------------------------------------------------------------ failover layouts: etcd, current roles
is_failover() {  # a broker with failoverEnable = true
  ! is_namesrv "$1" && ! is_etcd "$1" && [ "$(conf_get "$1" failoverEnable)" = true ]
}
# failoverEtcdEndpoints of the layout's first failover broker (the key's default when unset); nothing
# for a layout without failover. Read once per run into $etcd_eps (below).
etcd_endpoints() {
  local n e
  for n in $(nodes_in_order); do
    if is_failover "$n"; then e=$(conf_get "$n" failoverEtcdEndpoints); echo "${e:-127.0.0.1:2379}" | tr -d ' '; return; fi
  done
  return 0
}
etcd_members() {  # etcd-1 .. etcd-N, one per endpoint
  local i=0 e
  for e in $(echo "$etcd_eps" | tr ';' ' '); do i=$((i + 1)); echo "etcd-$i"; done
}
etcd_endpoint() { echo "$etcd_eps" | tr ';' '\n' | sed -n "${1#etcd-}p"; }  # etcd-N -> host:port
etcd_client_port() { local e; e=$(etcd_endpoint "$1"); echo "${e##*:}"; }
etcd_initial_cluster() {  # etcd-1=http://host:peer,... (peer port = client port + 1)
  local n e out=""
  for n in $(etcd_members); do e=$(etcd_endpoint "$n"); out+="${out:+,}$n=http://${e%:*}:$((${e##*:} + 1))"; done
  echo "$out"
}
etcdctl_at() {  # endpoint args...: bounded (a stopped member must not hang status)
  local e=$1; shift
  ETCDCTL_API=3 "$etcdctl_bin" --endpoints="$e" --dial-timeout=1s --command-timeout=2s "$@"
}
# `endpoint status -w simple` of every member, one line each (fields: endpoint, ID, version, db size,
# is leader, is learner, raft term, raft index, ...); one etcdctl run per `status`.
etcd_status_lines() {
  local f=${rt_cache:+$rt_cache/etcd-status}
  if [ -n "$f" ] && [ -f "$f" ]; then cat "$f"; return; fi
  local out; out=$(etcdctl_at "$(echo "$etcd_eps" | tr ';' ',')" endpoint status -w simple 2>/dev/null) || true
  [ -z "$f" ] || printf '%s\n' "$out" >"$f"
  printf '%s\n' "$out"
}
etcd_state() {  # "leader (raft term T)" or "follower (raft term T)"; nothing when the member does not answer
  etcd_status_lines | awk -F', ' -v e="$(etcd_endpoint "$1")" \
    '$1 == e {print ($5 == "true" ? "leader" : "follower") " (raft term " $7 ")"}'
}
# The broker of group $1 that says it is master now (the highest epoch if several do); nothing if none.
current_master() {
  local n best="" best_epoch=-1 e
  for n in $(nodes_in_order); do
    is_failover "$n" && [ "$(conf_get "$n" brokerName)" = "$1" ] || continue
    running_pid "$n" >/dev/null || continue
    [ "$(runtime_value "$n" failoverRole)" = master ] || continue
    e=$(runtime_value "$n" failoverEpoch)
    if [ "${e:-0}" -gt "$best_epoch" ]; then best=$n; best_epoch=${e:-0}; fi
  done
  echo "$best"
}
node_of_id() {  # group brokerId -> node name
  local n
  for n in $(nodes_in_order); do
    is_failover "$n" && [ "$(conf_get "$n" brokerName)" = "$1" ] && [ "$(conf_get "$n" brokerId)" = "$2" ] && { echo "$n"; return; }
  done
  echo "id $2"
}
# Per failover group: the master now, its epoch, its in-sync slaves; other brokers that still say master.
groups_status() {
  local g n m epoch ids id names others
  printf '%-11s %-22s %-6s %s\n' GROUP MASTER EPOCH IN-SYNC
  for g in $(for n in $(nodes_in_order); do is_failover "$n" && conf_get "$n" brokerName; done | sort -u); do
    m=$(current_master "$g")
    if [ -z "$m" ]; then printf '%-11s %-22s\n' "$g" "none (no broker of the group answers as master)"; continue; fi
    epoch=$(runtime_value "$m" failoverEpoch); ids=$(runtime_value "$m" failoverInSync); names="" others=""
    for id in $(echo "$ids" | tr ',' ' '); do names+="${names:+, }$(node_of_id "$g" "$id")"; done
    for n in $(nodes_in_order); do
      [ "$n" != "$m" ] && is_failover "$n" && [ "$(conf_get "$n" brokerName)" = "$g" ] && running_pid "$n" >/dev/null || continue
      [ "$(runtime_value "$n" failoverRole)" = master ] && others+=" (also says master: $n, epoch $(runtime_value "$n" failoverEpoch))"
    done
    printf '%-11s %-22s %-6s %s%s\n' "$g" "$m (brokerId $(conf_get "$m" brokerId))" "$epoch" "${names:-none}" "$others"
  done
}

# ------------------------------------------------------------------ processes
pid_file() { echo "$state/$layout/$1.pid"; }
# What the node's command line holds: its config file (an etcd member: its data dir).
cmdline_mark() { if is_etcd "$1"; then echo "$state/$layout/$1/data"; else conf_of "$1"; fi; }
# The node's pid while that pid is still our rmqnode with this node's config (pids are reused).
running_pid() {
  local f pid; f=$(pid_file "$1")
  [ -f "$f" ] || return 1
  pid=$(cat "$f")
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -- "$(cmdline_mark "$1")" >/dev/null || return 1
  echo "$pid"
}
answers() {  # the node answers a request of its kind
  if is_etcd "$1"; then
    etcdctl_at "$(etcd_endpoint "$1")" endpoint health >/dev/null 2>&1
  elif is_namesrv "$1"; then
    "$admin" topicList -n "$(addr_of "$1")" >/dev/null 2>&1
  else
    runtime_info "$1" >/dev/null
  fi
}
# A broker's runtime info (GET_BROKER_RUNTIME_INFO, `rmqadmin brokerStatus`). During `status` it is
# asked once per node ($rt_cache: one consistent view, and a hung node costs one timeout, not five).
runtime_info() {  # node
  local f=${rt_cache:+$rt_cache/$1} out
  if [ -n "$f" ] && [ -f "$f" ]; then cat "$f"; return; fi
  if [ -n "$f" ] && [ -f "$f.none" ]; then return 1; fi
  if out=$("$admin" brokerStatus -b "$(addr_of "$1")" 2>/dev/null); then
    [ -z "$f" ] || printf '%s\n' "$out" >"$f"
    printf '%s\n' "$out"
  else
    [ -z "$f" ] || : >"$f.none"
    return 1
  fi
}
# One value of a broker's runtime info.
runtime_value() {  # node key
  runtime_info "$1" 2>/dev/null | sed -n "s/^$2[[:space:]]*:[[:space:]]*//p" | head -n1
}
# Bytes the slave's commit log is behind its master's (master max offset - slave max offset).
lag_of() {
  local m mo so; m=$(master_of "$1")
  [ -n "$m" ] || { echo "no master in layout"; return; }
  mo=$(runtime_value "$m" commitLogMaxOffset); so=$(runtime_value "$1" commitLogMaxOffset)
  # haConnected: the slave's HA connection to its master is up (it reconnects with a backoff).
  local link; [ "$(runtime_value "$1" haConnected)" = true ] && link=connected || link="not connected"
  if [ -z "$so" ]; then echo "?"; elif [ -z "$mo" ]; then echo "? (master $m down; slave at $so)"; else
    echo "$((mo - so)) bytes behind $m ($link)"
  fi
}

# For a slave that does not answer (stopped, hung): what its master has not had acknowledged, from the
# master's side (haSlaves "addr@ack;..." of its runtime info, the figure of rmqnode_replication_lag_bytes).
master_view_lag() {
  local m mo acks entry out=""; m=$(master_of "$1")
  [ -n "$m" ] || { echo "no master in layout"; return; }
  mo=$(runtime_value "$m" commitLogMaxOffset)
  [ -n "$mo" ] || { echo "? (master $m down too)"; return; }
  acks=$(runtime_value "$m" haSlaves)
  [ -n "$acks" ] || { echo "? (no slave connected to $m)"; return; }
  local IFS=';'
  for entry in $acks; do
    local ack=${entry##*@}; [ "$ack" -ge 0 ] 2>/dev/null || ack=0
    out+="${out:+, }$((mo - ack)) bytes behind $m (master's view of ${entry%@*}: slave does not answer)"
  done
  echo "$out"
}

# Starts the node's process in the background (pid file written); 1 when it was running already.
launch_node() {
  local n=$1 pid args
  if pid=$(running_pid "$n"); then echo "$n already running (pid $pid)"; return 1; fi
  mkdir -p "$state/$layout/$n"
  if is_etcd "$n"; then
    command -v "$etcd_bin" >/dev/null || die "'$etcd_bin' not found: install Debian's etcd-server and etcd-client (scripts/install-deps.sh)"
    local e url peer; e=$(etcd_endpoint "$n"); url="http://$e"; peer="http://${e%:*}:$((${e##*:} + 1))"
    # --initial-cluster* only count the first time (an existing data dir keeps its membership).
    nohup "$etcd_bin" --name "$n" --data-dir "$state/$layout/$n/data" \
      --listen-client-urls "$url" --advertise-client-urls "$url" \
      --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
      --initial-cluster "$(etcd_initial_cluster)" --initial-cluster-state new \
      --initial-cluster-token "rmqnode-$layout" >"$state/$layout/$n/stdout.log" 2>&1 </dev/null &
  else
    case $(role_of "$n") in
      namesrv) args=(--role=namesrv) ;;
      SLAVE) args=(--role=slave) ;;
      *) args=(--role=master) ;;
    esac
    nohup "$bin" "${args[@]}" -c "$(conf_of "$n")" >"$state/$layout/$n/stdout.log" 2>&1 </dev/null &
  fi
  echo "$!" >"$(pid_file "$n")"
}

# Waits until a launched node answers (an etcd member: healthy, i.e. its cluster has a leader).
wait_started() {
  local n=$1 pid waited=0 now=""
  pid=$(cat "$(pid_file "$n")")
  until answers "$n"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$(pid_file "$n")"
      tail -n 20 "$state/$layout/$n/stdout.log" >&2
      die "$n exited during start-up (see $state/$layout/$n/stdout.log)"
    fi
    [ "$waited" -lt $((start_wait * 5)) ] || die "$n (pid $pid) does not answer after ${start_wait}s (see $state/$layout/$n/stdout.log)"
    sleep 0.2; waited=$((waited + 1))
  done
  # A failover broker's role is the group's business: say what it is now (it may still be joining).
  is_failover "$n" && now=" (failover: $(runtime_value "$n" failoverRole) at epoch $(runtime_value "$n" failoverEpoch))"
  printf '%-11s %-12s pid %-7s 127.0.0.1:%s%s\n' "$n" "$(role_of "$n")" "$pid" "$(ports_text "$n")" "$now"
}
start_node() { if launch_node "$1"; then wait_started "$1"; fi; }

stop_node() {
  local n=$1 pid
  if ! pid=$(running_pid "$n"); then rm -f "$(pid_file "$n")"; echo "$n not running"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $((stop_wait * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    echo "$n (pid $pid) killed after ${stop_wait}s"
  else
    echo "stopped $n (pid $pid)"
  fi
  rm -f "$(pid_file "$n")"
}

status_node() {
  local n=$1 pid role ok lag=""
  role=$(role_of "$n")
  if pid=$(running_pid "$n"); then
    if is_etcd "$n"; then
      # It answers when it reports its state (a member without quorum does too: it is up).
      lag=$(etcd_state "$n"); if [ -n "$lag" ]; then ok=yes; else ok=no; fi
    elif answers "$n"; then ok=yes; else ok=no; fi
    if is_etcd "$n"; then
      :
    elif is_failover "$n"; then
      # The role now, from the broker itself; a slave's lag is against the group's master now.
      role=$(runtime_value "$n" failoverRole); role=${role:-?}
      if [ "$role" = master ]; then
        lag="epoch $(runtime_value "$n" failoverEpoch)"
      elif [ "$ok" = yes ]; then lag=$(lag_of "$n"); else lag=$(master_view_lag "$n"); fi
    elif [ "$role" = SLAVE ]; then
      if [ "$ok" = yes ]; then lag=$(lag_of "$n"); else lag=$(master_view_lag "$n"); fi
    fi
  else
    pid=-; ok="stopped"
  fi
  printf '%-11s %-12s %-11s %-8s %-34s %s\n' "$n" "$role" "$pid" "$ok" "127.0.0.1:$(ports_text "$n")" "$lag"
}

# A layout whose nodes run, other than $1 (their ports are the same: one layout at a time).
other_running_layout() {
  local d l n saved=$layout
  for d in "$state"/*/; do
    [ -d "$d" ] || continue
    l=$(basename "$d"); [ "$l" = "$1" ] && continue
    is_layout "$l" || continue
    layout=$l; etcd_eps=$(etcd_endpoints)
    for n in $(etcd_members) $(nodes_in_order); do
      if running_pid "$n" >/dev/null; then layout=$saved; etcd_eps=$(etcd_endpoints); echo "$l"; return; fi
    done
  done
  layout=$saved; etcd_eps=$(etcd_endpoints)
}

# ------------------------------------------------------------------ arguments
cmd=${1:-}; shift || true
case $cmd in start | stop | status | restart) ;; -h | --help | help | "") usage ;; *) die "unknown command '$cmd' (start|stop|status|restart)" ;; esac
layout=""; node=""
if [ $# -gt 0 ] && is_layout "$1"; then layout=$1; shift; fi
if [ $# -gt 0 ]; then node=$1; shift; fi
[ $# -eq 0 ] || die "too many arguments: $*"
if [ -z "$layout" ]; then
  if [ -f "$state/current-layout" ]; then layout=$(cat "$state/current-layout"); else layout=$default_layout; fi
fi
is_layout "$layout" || die "no layout $confdir/$layout (layouts: $(cd "$confdir" && ls -d */ | tr -d / | tr '\n' ' '))"
order_cache=$(nodes_in_order); order_layout=$layout
etcd_eps=$(etcd_endpoints)  # empty: no failover broker, no etcd
# (Not `etcd_members | grep -q`: under pipefail, grep leaving at the first line can fail the pipeline.)
if [ -n "$node" ] && [ ! -f "$(conf_of "$node")" ] && [[ " $(etcd_members | tr '\n' ' ') " != *" $node "* ]]; then
  die "no node '$node' in layout $layout (nodes: $(etcd_members | tr '\n' ' ')$(nodes_in_order | tr '\n' ' '))"
fi
targets=$node
[ -n "$targets" ] || targets=$(etcd_members; nodes_in_order)  # etcd first, then name servers, masters, slaves
# rmqadmin wants name servers even for -b requests: this layout's.
NAMESRV_ADDR=$(namesrv_addrs)
export NAMESRV_ADDR

do_start() {
  if [ ! -x "$bin" ] || [ ! -x "$admin" ]; then scripts/build.sh Release rmqnode rmqadmin; fi
  local other; other=$(other_running_layout "$layout")
  [ -z "$other" ] || die "layout $other is running on the same ports; scripts/cluster.sh stop $other first"
  mkdir -p "$state/$layout"
  echo "$layout" >"$state/current-layout"
  echo "layout $layout ($confdir/$layout), state in ${state#"$repo"/}/$layout"
  local n members="" launched=""
  for n in $targets; do is_etcd "$n" && members+="$n "; done
  # Every etcd member before waiting for any: one alone has no quorum, so it is not healthy.
  for n in $members; do launch_node "$n" && launched+="$n "; done
  for n in $launched; do wait_started "$n"; done
  for n in $targets; do is_etcd "$n" || start_node "$n"; done
  [ -n "$node" ] || echo "NAMESRV_ADDR=\"$(namesrv_addrs)\""
  local t; t=$(scrape_targets)
  [ -z "$t" ] || echo "prometheus.yml: - job_name: rocketmq, metrics_path: /metrics, static_configs: [{targets: [$t]}]"
}
do_stop() {
  local n list first="" rest=""
  list=$(echo "$targets" | tac)  # brokers (slaves, then masters) first, name servers, then etcd last
  if [ -n "$etcd_eps" ] && [ -z "$node" ]; then
    # Failover: the slaves of now first (a master stopped before its slaves would hand the group
    # to one of them, which is stopped next).
    for n in $list; do
      if is_failover "$n" && running_pid "$n" >/dev/null && [ "$(runtime_value "$n" failoverRole)" = slave ]; then
        first+="$n "
      else rest+="$n "; fi
    done
    list="$first $rest"
  fi
  for n in $list; do stop_node "$n"; done
}

case $cmd in
  start) do_start ;;
  stop) do_stop ;;
  restart) do_stop; do_start ;;
  status)
    rt_cache=$(mktemp -d); trap 'rm -rf "$rt_cache"' EXIT
    echo "layout $layout ($confdir/$layout)"
    printf '%-11s %-12s %-11s %-8s %-34s %s\n' NODE ROLE PID ANSWERS PORTS REPLICATION
    for n in $targets; do status_node "$n"; done
    if [ -n "$etcd_eps" ] && [ -z "$node" ]; then echo; groups_status; fi
    ;;
esac
