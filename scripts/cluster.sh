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
# replication, RocketMQ's usual production shape), 2m-2s-sync (SYNC_MASTER), 2m-noslave (2 masters).
# Every layout has two name servers, 127.0.0.1:9876 and 127.0.0.1:9877 (NAMESRV_ADDR=
# "127.0.0.1:9876;127.0.0.1:9877"), and the brokers broker-a (10911), broker-a-s (10921),
# broker-b (11911), broker-b-s (11921). Every node serves HTTP (/metrics, /healthz, /readyz, the
# console) on a port of its own (httpListenPort: namesrv-1 8081, namesrv-2 8082, broker-a 8083,
# broker-a-s 8084, broker-b 8085, broker-b-s 8086), printed by start and status as http=PORT,
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
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# (tools_cluster_script_test runs a layout of its own on free ports through these two)
confdir=${RMQ_CLUSTER_CONFIG:-config}
state=${RMQ_CLUSTER_STATE:-$repo/data/cluster}
bin=${RMQNODE_BIN:-$repo/build/release/rmqnode}
admin=${RMQADMIN_BIN:-$repo/build/release/rmqadmin}
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
# Name servers first, then masters, then slaves (the start order; stop walks it backwards).
nodes_in_order() {
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
role_of() {  # namesrv | SYNC_MASTER | ASYNC_MASTER | SLAVE
  if is_namesrv "$1"; then echo namesrv; else
    local r; r=$(conf_get "$1" brokerRole); echo "${r:-ASYNC_MASTER}"
  fi
}
port_of() { conf_get "$1" listenPort; }
addr_of() { echo "127.0.0.1:$(port_of "$1")"; }
http_port_of() {  # httpListenPort, or nothing when the node serves no HTTP
  local h; h=$(conf_get "$1" httpListenPort)
  [ -n "$h" ] && [ "$h" != 0 ] && echo "$h"
  return 0
}
ports_text() {  # the ports a node listens on
  local p h; p=$(port_of "$1"); h=$(http_port_of "$1")
  if is_namesrv "$1"; then echo "$p${h:+ http=$h}"; else
    local ha; ha=$(conf_get "$1" haListenPort); echo "$p vip=$((p - 2)) ha=${ha:-$((p + 1))}${h:+ http=$h}"
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
master_of() {  # the brokerId 0 node with the slave's brokerName
  local n want; want=$(conf_get "$1" brokerName)
  for n in $(nodes_in_order); do
    is_namesrv "$n" && continue
    [ "$(conf_get "$n" brokerName)" = "$want" ] && [ "$(conf_get "$n" brokerId)" = 0 ] && { echo "$n"; return; }
  done
  return 0
}

# ------------------------------------------------------------------ processes
pid_file() { echo "$state/$layout/$1.pid"; }
# The node's pid while that pid is still our rmqnode with this node's config (pids are reused).
running_pid() {
  local f pid; f=$(pid_file "$1")
  [ -f "$f" ] || return 1
  pid=$(cat "$f")
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$(conf_of "$1")" || return 1
  echo "$pid"
}
answers() {  # the node answers a request of its kind
  if is_namesrv "$1"; then
    "$admin" topicList -n "$(addr_of "$1")" >/dev/null 2>&1
  else
    "$admin" brokerStatus -b "$(addr_of "$1")" >/dev/null 2>&1
  fi
}
# One value of a broker's runtime info (GET_BROKER_RUNTIME_INFO, `rmqadmin brokerStatus`).
runtime_value() {  # node key
  "$admin" brokerStatus -b "$(addr_of "$1")" 2>/dev/null | sed -n "s/^$2[[:space:]]*:[[:space:]]*//p" | head -n1
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

start_node() {
  local n=$1 pid role args
  if pid=$(running_pid "$n"); then echo "$n already running (pid $pid)"; return 0; fi
  role=$(role_of "$n")
  case $role in
    namesrv) args=(--role=namesrv) ;;
    SLAVE) args=(--role=slave) ;;
    *) args=(--role=master) ;;
  esac
  mkdir -p "$state/$layout/$n"
  nohup "$bin" "${args[@]}" -c "$(conf_of "$n")" >"$state/$layout/$n/stdout.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$(pid_file "$n")"
  local waited=0
  until answers "$n"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$(pid_file "$n")"
      tail -n 20 "$state/$layout/$n/stdout.log" >&2
      die "$n exited during start-up (see $state/$layout/$n/stdout.log)"
    fi
    [ "$waited" -lt $((start_wait * 5)) ] || die "$n (pid $pid) does not answer after ${start_wait}s (see $state/$layout/$n/stdout.log)"
    sleep 0.2; waited=$((waited + 1))
  done
  printf '%-11s %-12s pid %-7s 127.0.0.1:%s\n' "$n" "$role" "$pid" "$(ports_text "$n")"
}

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
    if answers "$n"; then ok=yes; else ok=no; fi
    if [ "$role" = SLAVE ]; then
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
    layout=$l
    for n in $(nodes_in_order); do
      if running_pid "$n" >/dev/null; then layout=$saved; echo "$l"; return; fi
    done
  done
  layout=$saved
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
if [ -n "$node" ] && [ ! -f "$(conf_of "$node")" ]; then
  die "no node '$node' in layout $layout (nodes: $(nodes_in_order | tr '\n' ' '))"
fi
targets=$node
[ -n "$targets" ] || targets=$(nodes_in_order)
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
  local n
  for n in $targets; do start_node "$n"; done
  [ -n "$node" ] || echo "NAMESRV_ADDR=\"$(namesrv_addrs)\""
  local t; t=$(scrape_targets)
  [ -z "$t" ] || echo "prometheus.yml: - job_name: rocketmq, metrics_path: /metrics, static_configs: [{targets: [$t]}]"
}
do_stop() {
  local n list
  list=$(echo "$targets" | tac)  # brokers (slaves, then masters) first, name servers last
  for n in $list; do stop_node "$n"; done
}

case $cmd in
  start) do_start ;;
  stop) do_stop ;;
  restart) do_stop; do_start ;;
  status)
    echo "layout $layout ($confdir/$layout)"
    printf '%-11s %-12s %-11s %-8s %-34s %s\n' NODE ROLE PID ANSWERS PORTS REPLICATION
    for n in $targets; do status_node "$n"; done
    ;;
esac
