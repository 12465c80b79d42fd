"""Kafka queries on spate and on real Spark's Kafka source (spark-sql-kafka-0-10, from
build/spark-kafka-jars) against one broker started for the module by scripts/kafka.sh: batch
reads with starting/endingOffsets JSON; streams with subscribe / assign / subscribePattern,
startingOffsets earliest / latest / JSON, maxOffsetsPerTrigger, includeHeaders, AvailableNow
and processAllAvailable into Delta must give the same rows and schema, the same progress
offsets and metrics, and the same checkpoint files (offsets/N's source offsets, sources/0/0).
The sink: df.write.format("kafka") by each engine, read back by both. The hand-over: a
stream's checkpoint started by one engine and continued by the other.

The topics are written once by kcat (the same records, timestamps included, for both
engines). Known differences are pinned in PINS (docs/spark-differences.md). The module fails
under CI=true when the broker, kcat or the connector's jars are missing."""

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

import compare
import dsl
import kafka_steps
import runner
from conftest import KAFKA_JARS, ROOT, WORK, missing_peer
from test_differential import DOCUMENTED, _spate_modules

KAFKA_WORK = os.path.join(WORK, "kafka")


def _produce(bootstrap, topic, partition, lines, headers=()):
    args = ["kcat", "-b", bootstrap, "-P", "-t", topic, "-p", str(partition), "-K", "\t",
            "-X", "enable.idempotence=true"]
    for h in headers:
        args += ["-H", h]
    subprocess.run(args, input="".join(x + "\n" for x in lines), text=True, check=True)


def _orders(n0, n):
    return ["o%d\t{\"order_id\":\"o%d\",\"amount\":%d.5}" % (i, i, i) for i in range(n0, n0 + n)]


@pytest.fixture(scope="module")
def broker():
    if not any(f.endswith(".jar") for f in os.listdir(KAFKA_JARS)) if os.path.isdir(KAFKA_JARS) else True:
        missing_peer(f"Spark's Kafka connector is not in {KAFKA_JARS} (run scripts/install-spark.sh)")
    d = os.path.join(KAFKA_WORK, "broker")
    shutil.rmtree(KAFKA_WORK, ignore_errors=True)
    os.makedirs(d)
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "kafka.sh"), "start", "--dir", d,
                        "--port", "0", "--partitions", "2", "--owner", str(os.getpid())],
                       capture_output=True, text=True)
    if r.returncode != 0:
        missing_peer("the Kafka broker did not start: " + r.stderr[-3000:])
    b = r.stdout.strip().splitlines()[-1]
    _produce(b, "dk-orders", 0, _orders(0, 4), headers=["h=1", "source=kcat"])
    _produce(b, "dk-orders", 0, _orders(4, 2) + ["\tno-key"])
    _produce(b, "dk-orders", 1, _orders(10, 5))
    _produce(b, "dk-other", 0, ["a\t1", "b\t2"])
    _produce(b, "dk-other", 1, ["c\t3"])
    for side in ("spate", "spark"):
        _produce(b, f"dk-hand-{side}", 0, _orders(0, 5))
        _produce(b, f"dk-hand-{side}", 1, _orders(20, 4))
    yield b
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "kafka.sh"), "stop", "--dir", d],
                   capture_output=True)


def _spate(spate_session, name, args):
    c = dsl.Case(f"kafka/{name}", kafka_steps.program(name, args))
    env = runner.new_env(spate_session, _spate_modules(), c, os.path.join(WORK, "spate", "asked"),
                         "spate")
    return runner.run(c, env)


def _spark(oracle, name, args):
    return oracle.ask({"op": "kafka", "step": name, "args": args})


def _both(oracle, spate_session, name, args):
    """The step on both engines at once (Spark in its server, spate here)."""
    with ThreadPoolExecutor(1) as pool:
        theirs = pool.submit(_spark, oracle, name, args)
        ours = _spate(spate_session, name, args)
        return ours, theirs.result()


def _plain(v):
    """A normalized value (runner.normalize tags maps) as plain JSON again."""
    if isinstance(v, list) and len(v) == 2 and v[0] == "map":
        return {k: _plain(x) for k, x in v[1]}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


# Known differences (docs/spark-differences.md), by test id.
PINS = {}


def _check(test_id, ours, theirs):
    d = compare.first_difference(ours, theirs, ordered=False, show=True)
    errs = "".join(f"\n--- {side} error: {r['error']['message']}\n{r['error'].get('trace', '')}"
                   for side, r in (("spate", ours), ("spark", theirs)) if "error" in r)
    why = compare.pin_failure(test_id, d, PINS.get(test_id), DOCUMENTED, errs)
    if why:
        pytest.fail(why, pytrace=False)


ORDERS_JSON = json.dumps({"dk-orders": {"0": 2, "1": -2}})
READS = {
    "batch/subscribe_headers": ("batch", {"subscribe": "dk-orders", "includeHeaders": "true"}),
    "batch/offsets_json": ("batch", {"subscribe": "dk-orders", "startingOffsets": ORDERS_JSON,
                                     "endingOffsets": json.dumps({"dk-orders": {"0": 5, "1": -1}})}),
    "batch/assign": ("batch", {"assign": json.dumps({"dk-orders": [1], "dk-other": [0, 1]})}),
    "batch/pattern": ("batch", {"subscribePattern": "dk-o.*", "endingOffsets": "latest"}),
    "stream/subscribe_earliest": ("stream", {"subscribe": "dk-orders", "startingOffsets": "earliest"}),
    "stream/assign_json": ("stream", {"assign": json.dumps({"dk-orders": [0, 1]}),
                                      "startingOffsets": json.dumps({"dk-orders": {"0": 3, "1": -2}})}),
    "stream/subscribe_json_max_offsets": ("stream", {"subscribe": "dk-orders", "startingOffsets": ORDERS_JSON,
                                                     "maxOffsetsPerTrigger": "4"}),
    "stream/pattern_max_offsets": ("stream", {"subscribePattern": "dk-o.*", "startingOffsets": "earliest",
                                              "maxOffsetsPerTrigger": "5"}),
    "stream/headers_process_all_available": ("stream", {"subscribe": "dk-orders", "includeHeaders": "true",
                                                        "startingOffsets": "earliest",
                                                        "maxOffsetsPerTrigger": "6"}, "processAllAvailable"),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_read(read, broker, oracle, spate_session):
    step, options, *trigger = READS[read]
    args = {"bootstrap": broker, "options": options}
    if trigger:
        args["trigger"] = trigger[0]
    ours, theirs = _both(oracle, spate_session, step, args)
    _check(read, ours, theirs)


def test_stream_latest(broker, oracle, spate_session):
    ours, theirs = _both(oracle, spate_session, "stream_latest", {"bootstrap": broker, "topic": "dk-latest"})
    _check("stream/latest", ours, theirs)


def test_sink_read_back_by_both(broker, oracle, spate_session):
    """df.write.format("kafka") by each engine; both engines read each topic back, and the
    two topics hold the same records."""
    for by in ("spate", "spark"):
        args = {"bootstrap": broker, "topic": f"dk-sink-{by}"}
        written = _spate(spate_session, "sink_write", args) if by == "spate" else \
            _spark(oracle, "sink_write", args)
        assert written == {"value": True}, (by, written)
        ours, theirs = _both(oracle, spate_session, "sink_read", args)
        _check(f"sink/written_by_{by}", ours, theirs)
    # Without the offsets: Spark's local[2] writes the DataFrame's two partitions at once,
    # so the order of a Kafka partition's records is its tasks' race.
    columns = ["key", "value", "partition", "timestampType", "headers"]
    by_spate, by_spark = (_spark(oracle, "sink_read", {"bootstrap": broker, "topic": f"dk-sink-{by}",
                                                      "columns": columns}) for by in ("spate", "spark"))
    _check("sink/spate_vs_spark_writer", by_spate, by_spark)


@pytest.mark.parametrize("first", ["spate", "spark"])
def test_handover(first, broker, oracle, spate_session):
    """A rate-limited Kafka -> Delta stream run by `first` (AvailableNow), more records, then
    the same checkpoint and table continued by the other engine: every record once."""
    second = "spark" if first == "spate" else "spate"
    topic = f"dk-hand-{first}"
    base = os.path.join(KAFKA_WORK, f"handover-{first}")
    shutil.rmtree(base, ignore_errors=True)
    args = {"bootstrap": broker, "topic": topic, "chk": os.path.join(base, "chk"),
            "out": os.path.join(base, "out")}
    run = {"spate": lambda: _spate(spate_session, "handover", args),
           "spark": lambda: _spark(oracle, "handover", args)}
    one = run[first]()
    assert "value" in one, one
    _produce(broker, topic, 0, _orders(5, 3))
    _produce(broker, topic, 1, _orders(24, 2))
    two = run[second]()
    assert "value" in two, two
    p1, p2 = _plain(one["value"]["progress"]), _plain(two["value"]["progress"])
    assert p1[0]["startOffset"] is None and p2[0]["startOffset"] == p1[-1]["endOffset"], (p1, p2)
    assert p2[-1]["endOffset"] == {topic: {"0": 8, "1": 6}}, p2
    ours, theirs = _both(oracle, spate_session, "delta_rows", args)
    _check(f"handover/{first}_then_{second}", ours, theirs)
    rows = sorted(tuple(r) for r in ours["value"]["rows"]["df"]["rows"])
    want = sorted([(0, i, "{\"order_id\":\"o%d\",\"amount\":%d.5}" % (i, i)) for i in range(8)] +
                  [(1, i, "{\"order_id\":\"o%d\",\"amount\":%d.5}" % (20 + i, 20 + i)) for i in range(6)])
    assert rows == want
