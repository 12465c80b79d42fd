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
while [ $# -gt 0 ]; do
  case "$1" in
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

case "$cmd" in
  start)
    if running; then
      cat "$dir/bootstrap"
      exit 0
    fi
    command -v kcat >/dev/null || fail "kcat not found (scripts/install-deps.sh installs it)"
    bash "$root/scripts/install-kafka.sh" >&2
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
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
    pid=$(cat "$dir/broker.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || { rm -f "$dir/broker.pid"; exit 0; }
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/broker.pid"
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
