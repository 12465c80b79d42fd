"""End-to-end latency of a stateless Kafka -> foreach query at a fixed input rate, in
real-time mode (trigger(realTime=...)) and with the default micro-batch trigger, in one run
against one local broker (issue 17; docs/real-time-mode.md).

  PYTHONPATH=build/release/python python3 bench/real_time_latency.py [events_per_s] [seconds]

A producer process (kafka-python from build/kafka-venv, acks=1, no batching delay) writes
events at the given rate; each record's latency is the time the foreach writer sees it minus
the record's Kafka timestamp (the producer's CreateTime, ms). Printed, never pass/fail.
"""
import os
import subprocess
import sys
import tempfile
import threading
import time

from spate.sql import SparkSession

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PRODUCER = r"""
import sys, time
from kafka import KafkaProducer
p = KafkaProducer(bootstrap_servers=sys.argv[1], acks=1, linger_ms=0)
topic, rate, secs = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
start = time.time(); n = 0
while True:
    now = time.time()
    if now - start >= secs: break
    due = int((now - start) * rate)
    while n < due:
        p.send(topic, value=b"e%d" % n); n += 1
    p.flush()
    time.sleep(0.0005)
p.flush()
print(n)
"""


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def run(spark, bootstrap, topic, trigger, rate, secs):
    lat, lock = [], threading.Lock()

    class Writer:
        def process(self, row):
            ms = time.time() * 1000 - row.timestamp.timestamp() * 1000
            with lock:
                lat.append(ms)

    df = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
          .option("subscribe", topic).option("startingOffsets", "earliest").load())
    w = df.writeStream.foreach(Writer()).option(
        "checkpointLocation", tempfile.mkdtemp(prefix="rtm-lat-"))
    w = w.outputMode("update").trigger(realTime="5 seconds") if trigger == "realTime" else w
    q = w.start()
    time.sleep(1.0)  # the query is polling before the first record
    produced = subprocess.run(
        [os.path.join(ROOT, "build", "kafka-venv", "bin", "python"), "-c", PRODUCER, bootstrap,
         topic, str(rate), str(secs)], capture_output=True, text=True, check=True).stdout.strip()
    deadline = time.time() + 30
    while time.time() < deadline:
        with lock:
            if len(lat) >= int(produced):
                break
        time.sleep(0.05)
    q.stop()
    with lock:
        return int(produced), list(lat)


def main():
    rate = float(sys.argv[1]) if len(sys.argv) > 1 else 500
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 10
    d = tempfile.mkdtemp(prefix="rtm-kafka-")
    bootstrap = subprocess.run(
        ["bash", os.path.join(ROOT, "scripts", "kafka.sh"), "start", "--dir", d, "--port", "0",
         "--owner", str(os.getpid())], capture_output=True, text=True, check=True
    ).stdout.strip().splitlines()[-1]
    spark = SparkSession.builder.getOrCreate()
    try:
        results = {}
        for trigger in ("realTime", "default"):
            topic = "lat-%s-%d" % (trigger, int(time.time()))
            produced, lat = run(spark, bootstrap, topic, trigger, rate, secs)
            results[trigger] = (percentile(lat, 0.5), percentile(lat, 0.99))
            print("%-9s %d events at %.0f/s: seen %d, latency p50 %.1f ms p99 %.1f ms max %.1f ms"
                  % (trigger, produced, rate, len(lat), results[trigger][0], results[trigger][1],
                     max(lat) if lat else float("nan")))
        rt, mb = results["realTime"], results["default"]
        print("micro-batch / real-time: p50 %.1fx, p99 %.1fx" % (mb[0] / rt[0], mb[1] / rt[1]))
        print("load average: %s" % open("/proc/loadavg").read().strip())
    finally:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "kafka.sh"), "stop", "--dir", d],
                       capture_output=True)


if __name__ == "__main__":
    main()
