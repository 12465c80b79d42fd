#!/usr/bin/env bash
# A local single-node Apache Kafka broker (KRaft: broker + controller in one JVM) on
# loopback, for the tests and for trying spate's Kafka source and sink by hand.
#
#   bash scripts/kafka.sh start [--dir DIR] [--port PORT] [--owner PID] [--partitions N]
#                               [--keep-data]
#       formats a fresh DIR/data (a new cluster id: topics of an earlier run are gone), starts the
#       broker, waits until it answers a metadata request and prints its bootstrap address
#       (127.0.0.1:PORT) on stdout. PORT 0 (the default for tests) picks a free port.
#       --owner PID: the broker is stopped when process PID exits (tests pass their own).
#       --partitions N: partitions of automatically created topics (default 1).
#       --keep-data: restart a broker stopped before with its data and port (a broker
#       restart: topics and offsets survive).
#       A second listener, SASL_PLAINTEXT with mechanism PLAIN and the one user
#       "spate" / "spate-secret" (a local test credential), is on the port written to
#       DIR/sasl_bootstrap: the tests' authenticated connections.
#   bash scripts/kafka.sh stop [--dir DIR]       stops it (SIGTERM, then SIGKILL after 10 s)
#   bash scripts/kafka.sh status [--dir DIR]     prints the bootstrap address if running
#
#
# A cluster of N KRaft nodes (each a broker and a controller; a static controller quorum of all
# N on loopback; topics and the internal topics replicated N times, min.insync.replicas 2;
# brokers fenced 3 s after their last heartbeat, so a killed leader is replaced within
# seconds) for the leader-change tests:
#   bash scripts/kafka.sh start --brokers N [--dir DIR] [--owner PID] [--partitions N]
#       prints the bootstrap list 127.0.0.1:P1,...,127.0.0.1:PN (free ports) once every node is
#       registered; node K lives in DIR/node-K (server.properties, data, broker.log, broker.pid,
#       port).
#   bash scripts/kafka.sh stop --node K [--kill] [--dir DIR]   stops node K (--kill: SIGKILL)
#   bash scripts/kafka.sh start --node K [--dir DIR] [--owner PID]
#       restarts node K with its data and ports, once it answers a metadata request
#   bash scripts/kafka.sh stop [--dir DIR]   stops every node; status prints the bootstrap list
#
# DIR defaults to build/kafka-local, PORT to 9092. The broker's jars come from
# scripts/install-kafka.sh (run here when missing). The broker log is DIR/broker.log;
# DIR/bootstrap holds the address, DIR/broker.pid the JVM's pid. Exits non-zero with the
# reason (and the log's tail) when the broker cannot start within 60 s.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cmd=${1:-}
[ -n "$cmd" ] && shift
dir="$root/build/kafka-local"
port=9092
owner=""
partitions=1
keep=0
brokers=1
node=""
hard=0
while [ $# -gt 0 ]; do
  case "$1" in
    --brokers) brokers=$2; shift 2 ;;
    --node) node=$2; shift 2 ;;
    --kill) hard=1; shift ;;
    --dir) dir=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --owner) owner=$2; shift 2 ;;
    --partitions) partitions=$2; shift 2 ;;
    --keep-data) keep=1; shift ;;
    *) echo "kafka.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
fail() {
  echo "kafka.sh: $*" >&2
  exit 1
}
free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
running() {
  [ -f "$dir/broker.pid" ] && kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null
}
# A metadata request answered by the broker (kcat, Debian's, on the same librdkafka).
ready() {
  timeout 5 kcat -b "$1" -L -m 2 >/dev/null 2>&1
}

# kcat, the broker's jars (installed when missing) and DIR as an absolute path.
prepare() {
  command -v kcat >/dev/null || fail "kcat not found (scripts/install-deps.sh installs it)"
  bash "$root/scripts/install-kafka.sh" >&2
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
}
# A cluster node's JVM (node K of DIR/node-K), watched by --owner like the single node.
launch_node() {
  local nd="$dir/node-$1" cp="$root/build/kafka-jars/*"
  setsid java -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Djava.awt.headless=true -cp "$cp" kafka.Kafka "$nd/server.properties" \
    >>"$nd/broker.log" 2>&1 </dev/null &
  echo $! >"$nd/broker.pid"
  if [ -n "$owner" ]; then
    local bpid
    bpid=$(cat "$nd/broker.pid")
    setsid bash -c "while kill -0 $owner 2>/dev/null && kill -0 $bpid 2>/dev/null; do sleep 1; done;
      kill $bpid 2>/dev/null; sleep 10; kill -9 $bpid 2>/dev/null" >/dev/null 2>&1 </dev/null &
  fi
}
node_running() {
  [ -f "$dir/node-$1/broker.pid" ] && kill -0 "$(cat "$dir/node-$1/broker.pid")" 2>/dev/null
}
# Stops the JVM whose pid is in FILE: SIGTERM (SIGKILL with --kill), SIGKILL after 10 s.
stop_pidfile() {
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  if [ "$hard" = 1 ]; then
    kill -9 "$pid" 2>/dev/null || true
  else
    kill "$pid" 2>/dev/null || true
  fi
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$1"; return 0; }
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$1"
}
stop_node() {
  stop_pidfile "$dir/node-$1/broker.pid"
}
# Waits until the node on PORT answers and the cluster's metadata lists WANT brokers.
wait_brokers() {
  local port=$1 want=$2 what=$3
  for _ in $(seq 1 240); do
    if timeout 5 kcat -b "127.0.0.1:$port" -L -m 2 2>/dev/null | grep -q "^ $want brokers:"; then
      return 0
    fi
    sleep 0.5
  done
  fail "$what did not come up within 120 s: $(tail -20 "$dir/node-1/broker.log")"
}

if [ -n "$node" ] || [ "$brokers" -gt 1 ] || { [ "$cmd" != start ] && [ -f "$dir/cluster" ]; }; then
  # The cluster mode.
  case "$cmd" in
    start)
      if [ -n "$node" ]; then
        [ -f "$dir/node-$node/server.properties" ] || fail "no node $node in $dir"
        if ! node_running "$node"; then
          launch_node "$node"
        fi
        wait_brokers "$(cat "$dir/node-$node/port")" "$(cat "$dir/cluster")" "node $node"
        cat "$dir/bootstrap"
        exit 0
      fi
      prepare
      for k in $(seq 1 "$brokers"); do stop_node "$k"; done
      rm -rf "$dir"/node-*
      voters="" boot=""
      for k in $(seq 1 "$brokers"); do
        mkdir -p "$dir/node-$k"
        free_port >"$dir/node-$k/port"
        free_port >"$dir/node-$k/cport"
        voters="$voters${voters:+,}$k@127.0.0.1:$(cat "$dir/node-$k/cport")"
        boot="$boot${boot:+,}127.0.0.1:$(cat "$dir/node-$k/port")"
      done
      isr=$(( brokers > 2 ? 2 : 1 ))
      cp="$root/build/kafka-jars/*"
      cluster_id=$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
      for k in $(seq 1 "$brokers"); do
        nd="$dir/node-$k"
        cat >"$nd/server.properties" <<PROPS
process.roles=broker,controller
node.id=$k
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(cat "$nd/port"),CONTROLLER://127.0.0.1:$(cat "$nd/cport")
advertised.listeners=PLAINTEXT://127.0.0.1:$(cat "$nd/port")
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$nd/data
num.partitions=$partitions
default.replication.factor=$brokers
min.insync.replicas=$isr
auto.create.topics.enable=true
offsets.topic.replication.factor=$brokers
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=$brokers
transaction.state.log.min.isr=$isr
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=$brokers
share.coordinator.state.topic.min.isr=$isr
group.initial.rebalance.delay.ms=0
broker.session.timeout.ms=3000
broker.heartbeat.interval.ms=500
replica.lag.time.max.ms=5000
PROPS
        java -cp "$cp" kafka.tools.StorageTool format -t "$cluster_id" -c "$nd/server.properties" \
          >"$nd/format.log" 2>&1 || fail "formatting node $k failed: $(tail -5 "$nd/format.log")"
      done
      echo "$brokers" >"$dir/cluster"
      echo "$boot" >"$dir/bootstrap"
      for k in $(seq 1 "$brokers"); do launch_node "$k"; done
      wait_brokers "$(cat "$dir/node-1/port")" "$brokers" "the $brokers-node cluster"
      echo "$boot"
      ;;
    stop)
      if [ -n "$node" ]; then
        stop_node "$node"
      else
        for k in $(seq 1 "$(cat "$dir/cluster" 2>/dev/null || echo 0)"); do stop_node "$k"; done
      fi
      ;;
    status)
      for k in $(seq 1 "$(cat "$dir/cluster" 2>/dev/null || echo 0)"); do
        node_running "$k" && { cat "$dir/bootstrap"; exit 0; }
      done
      echo "kafka.sh: not running" >&2
      exit 1
      ;;
    *)
      echo "usage: bash scripts/kafka.sh start|stop|status --brokers N | --node K [--kill] [--dir DIR] [--owner PID] [--partitions N]" >&2
      exit 2
      ;;
  esac
  exit 0
fi

case "$cmd" in
  start)
    rm -f "$dir/cluster"
    if running; then
      cat "$dir/bootstrap"
      exit 0
    fi
    prepare
    if [ "$keep" = 1 ] && [ -f "$dir/data/meta.properties" ] && [ -f "$dir/bootstrap" ]; then
      port=$(cut -d: -f2 "$dir/bootstrap")
    else
    keep=0
    [ "$port" = "0" ] && port=$(free_port)
    cport=$(free_port)
    sport=$(free_port)
    echo "127.0.0.1:$sport" >"$dir/sasl_bootstrap"
    cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport,SASL_PLAINTEXT://127.0.0.1:$sport
advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASL_PLAINTEXT://127.0.0.1:$sport
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_spate="spate-secret";
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=$partitions
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
keep=0
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
keep=0
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.flush.interval.messages=1000000
PROPS
    fi
    cp="$root/build/kafka-jars/*"
    if [ "$keep" = 0 ]; then
      rm -rf "$dir/data"
      java -cp "$cp" kafka.tools.StorageTool format -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" \
        -c "$dir/server.properties" >"$dir/format.log" 2>&1 ||
        fail "formatting the storage failed: $(tail -5 "$dir/format.log")"
    fi
    # Own session, so that the caller's process group signals do not reach the JVM
    # before `stop` (the --owner watchdog and `stop` end it).
    setsid java -Xms128m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
      -Djava.awt.headless=true -cp "$cp" kafka.Kafka "$dir/server.properties" \
      >"$dir/broker.log" 2>&1 </dev/null &
    echo $! >"$dir/broker.pid"
    echo "127.0.0.1:$port" >"$dir/bootstrap"
    if [ -n "$owner" ]; then
      bpid=$(cat "$dir/broker.pid")
      setsid bash -c "while kill -0 $owner 2>/dev/null && kill -0 $bpid 2>/dev/null; do sleep 1; done;
        kill $bpid 2>/dev/null; sleep 10; kill -9 $bpid 2>/dev/null" >/dev/null 2>&1 </dev/null &
    fi
    for _ in $(seq 1 120); do
      if ready "127.0.0.1:$port"; then
        echo "127.0.0.1:$port"
        exit 0
      fi
      running || fail "the broker exited during start-up: $(tail -20 "$dir/broker.log")"
      sleep 0.5
    done
    fail "the broker did not answer on 127.0.0.1:$port within 60 s: $(tail -20 "$dir/broker.log")"
    ;;
  stop)
    running || exit 0
    stop_pidfile "$dir/broker.pid"
    ;;
  status)
    running || { echo "kafka.sh: not running" >&2; exit 1; }
    cat "$dir/bootstrap"
    ;;
  *)
    echo "usage: bash scripts/kafka.sh start|stop|status [--dir DIR] [--port PORT] [--owner PID] [--partitions N] [--keep-data]" >&2
    exit 2
    ;;
esac
