"""Kafka source and sink from Python against a real Apache Kafka broker (one KRaft broker per
test session, started by scripts/kafka.sh on a free loopback port; automatically created
topics get 2 partitions) with Debian's kcat as the independent client. The session fails
when the broker cannot start and CI=true; it is skipped otherwise."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid

import pytest

from conftest import missing_peer
from spate.errors import AnalysisException, IllegalArgumentException
from spate.sql import functions as F

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def kafka():
    d = tempfile.mkdtemp(prefix="spate-kafka-py-")
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "kafka.sh"), "start", "--dir", d,
                        "--port", "0", "--partitions", "2", "--owner", str(os.getpid())],
                       capture_output=True, text=True)
    if r.returncode != 0:
        missing_peer("the Kafka broker did not start: " + r.stderr[-3000:])
    yield r.stdout.strip().splitlines()[-1]
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "kafka.sh"), "stop", "--dir", d],
                   capture_output=True)
    shutil.rmtree(d, ignore_errors=True)


def topic_name(prefix):
    return prefix + "-" + uuid.uuid4().hex[:8]


def kcat_produce(bootstrap, topic, partition, lines, headers=()):
    args = ["kcat", "-b", bootstrap, "-P", "-t", topic, "-p", str(partition), "-K", "\t", "-Z",
            "-X", "enable.idempotence=true"]  # retries cannot reorder a partition
    for h in headers:
        args += ["-H", h]
    subprocess.run(args, input="".join(l + "\n" for l in lines), text=True, check=True)


def kcat_consume(bootstrap, topic, fmt):
    r = subprocess.run(["kcat", "-b", bootstrap, "-C", "-t", topic, "-e", "-q", "-Z", "-f", fmt],
                       capture_output=True, text=True, check=True)
    return sorted(l for l in r.stdout.split("\n") if l)


def test_batch_read_is_exact(spark, kafka):
    t = topic_name("py-in")
    kcat_produce(kafka, t, 0, ["k1\tv1", "k2\tv2"], headers=["h=1"])
    kcat_produce(kafka, t, 1, ["k3\tv3", "\tno-key"])
    expected = kcat_consume(kafka, t, "%p|%o|%T|%k|%s\\n")
    df = (spark.read.format("kafka").option("kafka.bootstrap.servers", kafka)
          .option("subscribe", t).option("includeHeaders", "true").load())
    assert [f.name for f in df.schema.fields] == [
        "key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers"]
    assert df.schema.simpleString() == (
        "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,"
        "timestamp:timestamp,timestampType:int,headers:array<struct<key:string,value:binary>>>")
    rows = df.selectExpr("partition", "offset", "CAST(unix_millis(timestamp) AS STRING) AS ts",
                         "CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v",
                         "headers").collect()
    got = sorted("%d|%d|%s|%s|%s" % (r.partition, r.offset, r.ts,
                                     "NULL" if r.k is None else r.k, r.v) for r in rows)
    assert got == expected
    with_headers = [r for r in rows if r.partition == 0]
    assert all(r.headers[0].key == "h" and bytes(r.headers[0].value) == b"1"
               for r in with_headers)
    assert all(r.headers is None for r in rows if r.partition == 1)


def test_batch_options_errors(spark, kafka):
    with pytest.raises(IllegalArgumentException, match="starting offset can't be latest"):
        (spark.read.format("kafka").option("kafka.bootstrap.servers", kafka)
         .option("subscribe", "x").option("startingOffsets", "latest").load())
    with pytest.raises(IllegalArgumentException, match="One of the following options must be"):
        spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).load()


def test_write_then_kcat_reads_back(spark, kafka):
    t = topic_name("py-out")
    df = spark.createDataFrame([("a", "1", 0), (None, "2", 1)], "key STRING, value STRING, partition INT")
    df.write.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", t).save()
    assert kcat_consume(kafka, t, "%p|%k|%s\\n") == ["0|a|1", "1|NULL|2"]
    with pytest.raises(AnalysisException, match="Required attribute 'value' not found"):
        (spark.createDataFrame([(1,)], "n INT").write.format("kafka")
         .option("kafka.bootstrap.servers", kafka).option("topic", t).save())


def test_stream_to_delta_rate_limited_with_restart(spark, kafka, tmp_path):
    t = topic_name("py-orders")
    kcat_produce(kafka, t, 0, ["k\t%d" % i for i in range(5)])
    kcat_produce(kafka, t, 1, ["k\t%d" % i for i in range(100, 103)])
    out, chk = str(tmp_path / "bronze"), str(tmp_path / "chk")

    def start():
        return (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
                .option("subscribe", t).option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", 3).load()
                .selectExpr("partition", "offset", "CAST(value AS STRING) AS v")
                .writeStream.format("delta").option("checkpointLocation", chk).start(out))

    q = start()
    q.processAllAvailable()
    progress = q.recentProgress
    q.stop()
    assert len(progress) >= 3
    src = progress[0]["sources"][0]
    assert src["description"] == "KafkaV2[Subscribe[%s]]" % t
    assert src["startOffset"] == "null"  # PySpark 4: offsets as JSON text
    assert json.loads(src["latestOffset"]) == {t: {"0": 5, "1": 3}}
    assert set(src["metrics"]) == {"avgOffsetsBehindLatest", "maxOffsetsBehindLatest",
                                   "minOffsetsBehindLatest"}
    assert all(p["numInputRows"] <= 3 for p in progress)
    kcat_produce(kafka, t, 1, ["k\t103"])
    q = start()
    q.processAllAvailable()
    q.stop()
    rows = sorted((r.partition, r.offset, r.v) for r in spark.read.format("delta").load(out).collect())
    want = sorted([(0, i, str(i)) for i in range(5)] + [(1, i, str(100 + i)) for i in range(4)])
    assert rows == want
    with open(os.path.join(chk, "offsets", "0")) as f:
        # 3 offsets spread over 5 + 3 behind: floor(1.875) = 1 and floor(1.125) = 1.
        assert json.loads(f.read().splitlines()[-1]) == {t: {"0": 1, "1": 1}}


def test_bronze_pipeline(spark, kafka, tmp_path):
    """The article's bronze layer: Kafka JSON orders parsed with from_json, the Kafka
    timestamp kept as kafka_ts and the ingestion time as _ingested_at."""
    t = topic_name("py-orders-json")
    kcat_produce(kafka, t, 0, ['o1\t{"order_id":"o1","amount":12.5,"country":"DE"}',
                               'o2\t{"order_id":"o2","amount":3.0,"country":"FR"}'])
    schema = "order_id STRING, amount DOUBLE, country STRING"
    bronze = str(tmp_path / "bronze")
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
         .option("subscribe", t).option("startingOffsets", "earliest").load()
         .select(F.from_json(F.col("value").cast("string"), schema).alias("o"),
                 F.col("timestamp").alias("kafka_ts"))
         .select("o.*", "kafka_ts")
         .withColumn("_ingested_at", F.current_timestamp())
         .writeStream.format("delta").option("checkpointLocation", str(tmp_path / "chk"))
         .start(bronze))
    q.processAllAvailable()
    q.stop()
    rows = spark.read.format("delta").load(bronze).orderBy("order_id").collect()
    assert [(r.order_id, r.amount, r.country) for r in rows] == [("o1", 12.5, "DE"), ("o2", 3.0, "FR")]
    assert all(r.kafka_ts is not None and r._ingested_at is not None for r in rows)


def test_exactly_once_sink_skips_a_replayed_batch(spark, kafka, tmp_path):
    src, out = topic_name("py-eos-in"), topic_name("py-eos-out")
    kcat_produce(kafka, src, 0, ["a\t1", "b\t2", "c\t3"])
    chk = str(tmp_path / "chk")

    def run():
        q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
             .option("subscribe", src).option("startingOffsets", "earliest").load()
             .selectExpr("key", "value")
             .writeStream.format("kafka").option("kafka.bootstrap.servers", kafka)
             .option("topic", out).option("exactlyOnce", "true")
             .option("checkpointLocation", chk).start())
        q.processAllAvailable()
        q.stop()

    run()
    commits = sorted(int(n) for n in os.listdir(os.path.join(chk, "commits")) if n.isdigit())
    os.remove(os.path.join(chk, "commits", str(commits[-1])))  # the batch is replayed
    run()
    assert kcat_consume(kafka, out, "%k=%s\\n") == ["a=1", "b=2", "c=3"]


def test_kafka_bronze_example(kafka, tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "kafka_bronze.py"),
                        kafka, str(tmp_path)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert "batch 0: KafkaV2[Subscribe[orders]] rows=" in r.stdout
    assert sum(int(l.split("rows=")[1].split()[0]) for l in r.stdout.splitlines()
               if l.startswith("batch ")) == 12
    assert "behind latest after the last batch: 0" in r.stdout
    assert """+-------------------+-------+------+
|              start|revenue|orders|
+-------------------+-------+------+
|2024-05-01 10:00:00|   33.0|     3|
|2024-05-01 10:05:00|   27.0|     2|
|2024-05-01 10:10:00|   48.0|     3|
|2024-05-01 10:15:00|   37.0|     2|
|2024-05-01 10:20:00|   41.0|     2|
+-------------------+-------+------+""" in r.stdout


KAFKA_PYTHON = os.path.join(ROOT, "build", "kafka-venv", "bin", "python")


def kafka_python(script, bootstrap, arg):
    """Runs `script` with kafka-python (PyPI, pure Python: no librdkafka) in build/kafka-venv;
    returns its JSON output."""
    if not os.path.exists(KAFKA_PYTHON):
        missing_peer("kafka-python is not installed in build/kafka-venv "
                     "(bash scripts/install-kafka.sh)")
    r = subprocess.run([KAFKA_PYTHON, "-c", script, bootstrap, json.dumps(arg)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


KP_PRODUCE = """
import json, sys
from kafka import KafkaProducer
p = KafkaProducer(bootstrap_servers=sys.argv[1])
for r in json.loads(sys.argv[2]):
    p.send(r["topic"], value=None if r["value"] is None else r["value"].encode(),
           key=None if r["key"] is None else r["key"].encode(), partition=r["partition"],
           timestamp_ms=r["ts"], headers=[(k, v.encode()) for k, v in r["headers"]]).get(timeout=60)
p.flush()
print("[]")
"""

KP_CONSUME = """
import json, sys
from kafka import KafkaConsumer, TopicPartition
arg = json.loads(sys.argv[2])
c = KafkaConsumer(bootstrap_servers=sys.argv[1], enable_auto_commit=False,
                  auto_offset_reset="earliest", consumer_timeout_ms=5000)
c.assign([TopicPartition(arg["topic"], p) for p in range(arg["partitions"])])
out = []
for m in c:
    out.append([m.partition, m.offset, None if m.key is None else m.key.decode(),
                None if m.value is None else m.value.decode(),
                [[k, v.decode()] for k, v in m.headers]])
print(json.dumps(sorted(out)))
"""


def test_kafka_python_interop(spark, kafka):
    """Records produced by kafka-python are read exactly; what spate writes kafka-python
    reads back exactly (keys, values, NULLs, headers, partitions, timestamps)."""
    t = topic_name("py-interop-in")
    records = [
        {"topic": t, "partition": 0, "key": "k1", "value": "v1", "ts": 1700000000123,
         "headers": [["h1", "x"], ["h2", "yz"]]},
        {"topic": t, "partition": 1, "key": None, "value": "v2", "ts": 1700000000456, "headers": []},
        {"topic": t, "partition": 1, "key": "k3", "value": None, "ts": 1700000000789, "headers": []},
    ]
    kafka_python(KP_PRODUCE, kafka, records)
    rows = (spark.read.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", t)
            .option("includeHeaders", "true").load()
            .selectExpr("partition", "offset", "CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v",
                        "unix_millis(timestamp) AS ts", "timestampType", "headers")
            .orderBy("partition", "offset").collect())

    def hs(headers):
        return None if headers is None else ["%s=%s" % (h.key, bytes(h.value).decode()) for h in headers]

    assert [(r.partition, r.offset, r.k, r.v, r.ts, r.timestampType, hs(r.headers)) for r in rows] == [
        (0, 0, "k1", "v1", 1700000000123, 0, ["h1=x", "h2=yz"]),
        (1, 0, None, "v2", 1700000000456, 0, None),
        (1, 1, "k3", None, 1700000000789, 0, None),
    ]
    out = topic_name("py-interop-out")
    (spark.createDataFrame([("a", "1", 0), (None, "2", 1), ("c", None, 1)],
                           "key STRING, value STRING, partition INT")
     .selectExpr("key", "value", "partition",
                 "array(named_struct('key', 'src', 'value', CAST('spate' AS BINARY))) AS headers")
     .write.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", out).save())
    got = kafka_python(KP_CONSUME, kafka, {"topic": out, "partitions": 2})
    assert got == [[0, 0, "a", "1", [["src", "spate"]]], [1, 0, None, "2", [["src", "spate"]]],
                   [1, 1, "c", None, [["src", "spate"]]]]


EXPECTED_KAFKA_PARSE = """parsed columns: event_id string, user string, action string, amount bigint, offset bigint
+--------+----+------+------+------+
|event_id|user|action|amount|offset|
+--------+----+------+------+------+
|      e1| ana|   buy|    30|     1|
|      e2| ben|  view|     0|     2|
|      e3| ana|   buy|    12|     3|
+--------+----+------+------+------+

source: KafkaV2[Subscribe[events]] endOffset: {"events": {"0": 4, "1": 0}}
+------+---+------+
|action|  n|amount|
+------+---+------+
|   buy|  2|    42|
|  view|  1|     0|
+------+---+------+

"""


def test_kafka_parse_example(kafka, tmp_path):
    """The course's 11.12 parse (examples/python/kafka_parse.py, unmodified PySpark run as
    `spate submit` runs it; real spark-submit prints the same) against the broker (whose new
    topics have 2 partitions: partition 1 stays empty)."""
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-m", "spate.submit",
                        os.path.join(ROOT, "examples", "python", "kafka_parse.py"), kafka,
                        str(tmp_path)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == EXPECTED_KAFKA_PARSE


def test_real_time_mode_foreach(spark, kafka, tmp_path):
    """trigger(realTime=...): records reach a Python foreach writer while the batch (an hour
    long) is still open; the writer is opened once for the batch and closed when it ends
    (stop), then the batch's offsets are logged (docs/real-time-mode.md)."""
    import threading
    import time
    topic = topic_name("rtm")
    kcat_produce(kafka, topic, 0, ["k0\tv0"])
    seen, calls, lock = [], [], threading.Lock()

    class Writer:
        def open(self, partition_id, epoch_id):
            calls.append(("open", partition_id, epoch_id))
            return True

        def process(self, row):
            with lock:
                seen.append(row.value)

        def close(self, error):
            calls.append(("close", error))

    spark.conf.set("spark.sql.streaming.realTimeMode.minBatchDuration", "100")
    try:
        df = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
              .option("subscribe", topic).option("startingOffsets", "earliest").load()
              .selectExpr("CAST(value AS STRING) AS value"))
        chk = str(tmp_path / "chk")
        q = (df.writeStream.foreach(Writer()).outputMode("update")
             .option("checkpointLocation", chk).trigger(realTime="1 hour").start())

        def wait_for(n):
            deadline = time.time() + 120
            while time.time() < deadline:
                with lock:
                    if len(seen) >= n:
                        return
                time.sleep(0.01)
            raise AssertionError("foreach saw %r" % seen)

        wait_for(1)
        kcat_produce(kafka, topic, 1, ["k1\tv1", "k2\tv2"])
        wait_for(3)
        assert q.recentProgress == []  # the batch is still open
        assert not os.path.exists(os.path.join(chk, "offsets", "0"))
        q.stop()
        assert sorted(seen) == ["v0", "v1", "v2"]
        assert calls == [("open", 0, 0), ("close", None)]
        with open(os.path.join(chk, "offsets", "0")) as f:
            logged = json.loads(f.read().splitlines()[-1])
        assert logged == {topic: {"0": 1, "1": 2}}
        # Spark's start checks: output mode first.
        with pytest.raises(AnalysisException, match="STREAMING_REAL_TIME_MODE.OUTPUT_MODE_NOT_SUPPORTED"):
            df.writeStream.format("console").option("checkpointLocation", str(tmp_path / "c2")) \
                .trigger(realTime="5 seconds").start()
        with pytest.raises(Exception, match="INVALID_STREAMING_REAL_TIME_MODE_TRIGGER_INTERVAL"):
            df.writeStream.format("console").outputMode("update") \
                .option("checkpointLocation", str(tmp_path / "c3")).trigger(realTime="50 milliseconds").start()
    finally:
        spark.conf.unset("spark.sql.streaming.realTimeMode.minBatchDuration")


def test_real_time_mode_kafka_to_kafka(spark, kafka, tmp_path):
    """Kafka -> Kafka in real-time mode: records reach the output topic while the (hour-long)
    batch is open; the exactly-once sink (one transaction per batch) is refused."""
    import time
    src, dst = topic_name("rtm-in"), topic_name("rtm-out")
    kcat_produce(kafka, src, 0, ["a\t1", "b\t2"])
    spark.conf.set("spark.sql.streaming.realTimeMode.minBatchDuration", "100")
    try:
        df = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
              .option("subscribe", src).option("startingOffsets", "earliest").load()
              .selectExpr("key", "CAST(CAST(value AS STRING) AS INT) * 10 AS v")
              .selectExpr("key", "CAST(v AS STRING) AS value"))
        q = (df.writeStream.format("kafka").option("kafka.bootstrap.servers", kafka)
             .option("topic", dst).outputMode("update")
             .option("checkpointLocation", str(tmp_path / "chk"))
             .trigger(realTime="1 hour").start())
        got, deadline = [], time.time() + 120
        while time.time() < deadline:
            got = kcat_consume(kafka, dst, "%k=%s\n") if subprocess.run(
                ["kcat", "-b", kafka, "-L", "-t", dst], capture_output=True,
                text=True).stdout.count("partition ") else []
            if len(got) == 2:
                break
            time.sleep(0.2)
        assert q.recentProgress == []  # the batch is still open
        q.stop()
        assert got == ["a=10", "b=20"]
        with pytest.raises(Exception, match="STREAMING_REAL_TIME_MODE.SINK_NOT_SUPPORTED"):
            (df.writeStream.format("kafka").option("kafka.bootstrap.servers", kafka)
             .option("topic", dst).option("exactlyOnce", "true").outputMode("update")
             .option("checkpointLocation", str(tmp_path / "chk2"))
             .trigger(realTime="5 seconds").start())
    finally:
        spark.conf.unset("spark.sql.streaming.realTimeMode.minBatchDuration")
