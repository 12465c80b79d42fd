"""Leader changes on a real three-broker Kafka cluster (scripts/kafka.sh start --brokers 3:
KRaft, replication factor 3, min.insync.replicas 2) under a running Kafka -> Delta stream: the
partitions' leaders are stopped (SIGKILL and SIGTERM in turn) and restarted while a producer
writes, and the Delta table must end with every produced record exactly once. Every other
kill waits for a running trigger, the rest land at any instant; the kills that landed inside
a micro-batch (between a trigger's start and its end in the progress) are counted and at
least one is asserted. Its own ctest (kafka/cluster), about 75 s. Fails when the cluster cannot start and CI=true."""
import datetime
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import missing_peer

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KAFKA_SH = os.path.join(ROOT, "scripts", "kafka.sh")
KILLS = int(os.environ.get("SPATE_KAFKA_LEADER_KILLS", "4"))
CHUNK = 400


@pytest.fixture(scope="module")
def cluster():
    d = tempfile.mkdtemp(prefix="spate-kafka3-")
    r = subprocess.run(["bash", KAFKA_SH, "start", "--brokers", "3", "--dir", d, "--partitions", "2",
                        "--owner", str(os.getpid())], capture_output=True, text=True)
    if r.returncode != 0:
        missing_peer("the three-broker Kafka cluster did not start: " + r.stderr[-3000:])
    yield d, r.stdout.strip().splitlines()[-1]
    subprocess.run(["bash", KAFKA_SH, "stop", "--dir", d], capture_output=True)
    shutil.rmtree(d, ignore_errors=True)


def leaders(bootstrap, topic):
    """{partition: leader node id} from a metadata request (-1 while there is none)."""
    r = subprocess.run(["kcat", "-b", bootstrap, "-L", "-J", "-t", topic], capture_output=True,
                       text=True, timeout=30)
    if r.returncode != 0:
        return {}
    meta = json.loads(r.stdout)
    return {p["partition"]: p["leader"] for t in meta["topics"] for p in t.get("partitions", [])}


def produce(bootstrap, topic, ids):
    """Records keyed and valued by their id (key hash picks the partition), acks=all with an
    idempotent producer: kcat exits non-zero if a record was not delivered."""
    subprocess.run(["kcat", "-b", bootstrap, "-P", "-t", topic, "-K", "\t", "-X", "acks=all",
                    "-X", "enable.idempotence=true", "-X", "message.timeout.ms=60000"],
                   input="".join(f"{i}\t{i}\n" for i in ids), text=True, check=True, timeout=120,
                   capture_output=True)


def test_leader_changes_under_a_kafka_to_delta_stream(spark, cluster, tmp_path):
    d, bootstrap = cluster
    topic = "orders-3x"
    produce(bootstrap, topic, range(CHUNK))
    out, chk = str(tmp_path / "bronze"), str(tmp_path / "chk")
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
         .option("subscribe", topic).option("startingOffsets", "earliest")
         .option("maxOffsetsPerTrigger", 300).load()
         .selectExpr("CAST(value AS STRING) AS id", "partition", "offset")
         .writeStream.format("delta").option("checkpointLocation", chk).start(out))
    produced = list(range(CHUNK))
    stop = threading.Event()
    errors = []

    def producer():
        n = CHUNK
        try:
            while not stop.is_set():
                produce(bootstrap, topic, range(n, n + CHUNK))
                produced.extend(range(n, n + CHUNK))
                n += CHUNK
                time.sleep(0.2)
        except Exception as e:  # reported by the test
            errors.append(e)

    progress = []

    def keep_progress():
        seen = set()
        while not stop.is_set() or q.isActive:
            for p in q.recentProgress:
                if p["batchId"] not in seen and p["numInputRows"]:
                    seen.add(p["batchId"])
                    progress.append(p)
            if stop.is_set():
                break
            time.sleep(0.5)

    threads = [threading.Thread(target=producer), threading.Thread(target=keep_progress)]
    for t in threads:
        t.start()
    kills = []
    try:
        for k in range(KILLS):
            time.sleep(1.5)
            before = leaders(bootstrap, topic)
            node = before[k % len(before)]
            mode = ["--kill"] if k % 2 == 0 else []
            if k % 2 == 0:  # every other kill aimed at a running trigger, the rest at any instant
                for _ in range(2000):
                    if q.status["message"] == "Processing new data":
                        break
                    time.sleep(0.002)
            at = time.time()
            subprocess.run(["bash", KAFKA_SH, "stop", "--node", str(node), "--dir", d] + mode,
                           check=True, timeout=60)
            for _ in range(120):  # a new leader for every partition node led
                now = leaders(bootstrap, topic)
                if now and all(now.get(p, -1) not in (-1, node) for p, n in before.items() if n == node):
                    break
                time.sleep(0.25)
            else:
                pytest.fail(f"no new leader after node {node} stopped: {now}")
            kills.append({"node": node, "at": at, "mode": "SIGKILL" if mode else "SIGTERM",
                          "elected_s": round(time.time() - at, 2)})
            time.sleep(1.5)
            subprocess.run(["bash", KAFKA_SH, "start", "--node", str(node), "--dir", d, "--owner",
                            str(os.getpid())], check=True, timeout=150, capture_output=True)
    finally:
        stop.set()
        threads[0].join()
    assert not errors, errors
    q.processAllAvailable()
    threads[1].join()
    for p in q.recentProgress:
        if p["numInputRows"] and p["batchId"] not in {x["batchId"] for x in progress}:
            progress.append(p)
    q.stop()
    assert q.exception() is None

    rows = spark.read.format("delta").load(out).collect()
    ids = sorted(int(r.id) for r in rows)
    assert len(ids) == len(set(ids)), "duplicated rows"
    assert ids == sorted(produced), f"lost {len(set(produced) - set(ids))} rows"
    assert len({(r.partition, r.offset) for r in rows}) == len(rows)

    def window(p):
        start = datetime.datetime.strptime(p["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        return start, start + p["durationMs"]["triggerExecution"] / 1000.0
    windows = [window(p) for p in progress]
    mid = [k for k in kills if any(s <= k["at"] <= e for s, e in windows)]
    print(f"leader changes: {len(kills)} ({kills}); inside a batch: {len(mid)}; "
          f"rows {len(ids)} in {len(progress)} batches")
    assert len(kills) == KILLS
    assert len(mid) >= 1, (kills, windows)
