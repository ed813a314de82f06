#!/usr/bin/env bash
# Local cluster on 127.0.0.1, the shape of RocketMQ's shell-script deployments:
# one name server (9876) and two masters, broker-a (10911) and broker-b (11911).
#   scripts/cluster.sh start|stop|status
# State (configs, stores, logs, pid files) under ./data/cluster. Uses build/release/rmqnode
# (built by scripts/build.sh Release if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/data/cluster
bin=${RMQNODE_BIN:-$PWD/build/release/rmqnode}
ns=127.0.0.1:9876

write_broker_conf() {  # name port
  mkdir -p "$root/$1"
  cat > "$root/$1/broker.toml" <<CONF
brokerClusterName = "DefaultCluster"
brokerName = "$1"
brokerId = 0
brokerIP1 = "127.0.0.1"
listenPort = $2
namesrvAddr = "$ns"
brokerRole = "ASYNC_MASTER"
flushDiskType = "ASYNC_FLUSH"
storePathRootDir = "$root/$1/store"
logDir = "$root/$1/logs"
CONF
}

start_one() {  # name args...
  local name=$1; shift
  if [ -f "$root/$name.pid" ] && kill -0 "$(cat "$root/$name.pid")" 2>/dev/null; then
    echo "$name already running (pid $(cat "$root/$name.pid"))"; return
  fi
  mkdir -p "$root/$name"
  nohup "$bin" "$@" >"$root/$name/stdout.log" 2>&1 &
  echo $! >"$root/$name.pid"
  echo "started $name (pid $!)"
}

case "${1:-}" in
  start)
    [ -x "$bin" ] || scripts/build.sh Release rmqnode rmqadmin
    mkdir -p "$root/namesrv"
    cat > "$root/namesrv/namesrv.toml" <<CONF
listenPort = 9876
kvConfigPath = "$root/namesrv/kvConfig.json"
logDir = "$root/namesrv/logs"
CONF
    start_one namesrv --role=namesrv -c "$root/namesrv/namesrv.toml"
    write_broker_conf broker-a 10911
    write_broker_conf broker-b 11911
    start_one broker-a --role=master -c "$root/broker-a/broker.toml"
    start_one broker-b --role=master -c "$root/broker-b/broker.toml"
    ;;
  stop)
    for n in broker-a broker-b namesrv; do
      if [ -f "$root/$n.pid" ]; then
        pid=$(cat "$root/$n.pid")
        if kill "$pid" 2>/dev/null; then
          for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
          echo "stopped $n"
        fi
        rm -f "$root/$n.pid"
      fi
    done
    ;;
  status)
    for n in namesrv broker-a broker-b; do
      if [ -f "$root/$n.pid" ] && kill -0 "$(cat "$root/$n.pid")" 2>/dev/null; then
        echo "$n running (pid $(cat "$root/$n.pid"))"
      else
        echo "$n stopped"
      fi
    done
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
