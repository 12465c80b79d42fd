"""format("nexmark") through the Python package: the tables and their schemas, a batch
read, and a stream that stops and restarts from its checkpoint continuing with the same
events (docs/nexmark.md)."""
import os

import pytest


def _bids(spark, **opts):
    r = spark.read.format("nexmark").option("table", "bid")
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


def test_tables_and_schemas(spark):
    assert _bids(spark, events=1000).columns == [
        "auction", "bidder", "price", "channel", "url", "dateTime", "extra"]
    person = spark.read.format("nexmark").option("table", "person").option("events", 1000).load()
    assert person.columns == ["id", "name", "emailAddress", "creditCard", "city", "state",
                              "dateTime", "extra"]
    auction = spark.read.format("nexmark").option("table", "auction").option("events", 1000).load()
    assert auction.count() == 60 and person.count() == 20 and _bids(spark, events=1000).count() == 920
    assert [r.id for r in person.orderBy("id").limit(3).collect()] == [1000, 1001, 1002]
    schema = dict((f.name, f.dataType.simpleString()) for f in auction.schema.fields)
    assert schema["expires"] == "timestamp" and schema["seller"] == "bigint"


def test_seed_and_rate(spark):
    a = _bids(spark, events=2000, seed=1).collect()
    assert a == _bids(spark, events=2000, seed=1).collect()
    assert a != _bids(spark, events=2000, seed=2).collect()
    # 1000 events a second from startTime: event 1999 (a bid) at 1.999 s.
    last = _bids(spark, events=2000, eventsPerSecond=1000, startTime=0) \
        .selectExpr("max(unix_millis(dateTime)) AS ms").collect()[0].ms
    assert last == 1999


def test_options_are_checked(spark):
    with pytest.raises(Exception, match="table"):
        spark.read.format("nexmark").option("table", "bids").option("events", 10).load()
    with pytest.raises(Exception, match="events"):
        spark.read.format("nexmark").load()
    with pytest.raises(Exception, match="schema"):
        spark.readStream.format("nexmark").schema("a INT").load()


def test_stream_restarts_with_the_next_events(spark, tmp_path):
    chk, out = str(tmp_path / "chk"), str(tmp_path / "out")

    def start():
        return (spark.readStream.format("nexmark").option("events", 10000)
                .option("maxEventsPerTrigger", 2500).option("seed", 9).load()
                .writeStream.format("parquet").option("checkpointLocation", chk)
                .trigger(availableNow=True).start(out))

    # Four batches of 2500 events; offsets/N holds the events consumed after batch N.
    q = start()
    q.awaitTermination()
    offsets = sorted(int(f) for f in os.listdir(os.path.join(chk, "offsets")) if f.isdigit())
    assert offsets == [0, 1, 2, 3]
    with open(os.path.join(chk, "offsets", "1")) as f:
        assert f.read().strip().splitlines()[-1] == "5000"
    streamed = spark.read.parquet(out).collect()
    assert len(streamed) == 9200
    # A restart of the finished query reads nothing new.
    q = start()
    q.awaitTermination()
    assert spark.read.parquet(out).count() == 9200
    expected = _bids(spark, events=10000, seed=9).collect()
    key = lambda r: (r.dateTime, r.auction, r.bidder, r.price, r.extra)  # noqa: E731
    assert sorted(streamed, key=key) == sorted(expected, key=key)


def test_stream_continues_after_restart(spark, tmp_path):
    """Two runs over one checkpoint: the second starts at the first's last offset."""
    chk = str(tmp_path / "chk")
    seen = []

    def run(events):
        def collect(df, batch_id):
            seen.extend(df.collect())
        q = (spark.readStream.format("nexmark").option("maxEventsPerTrigger", 3000)
             .option("events", events).option("seed", 4).load()
             .writeStream.foreachBatch(collect).option("checkpointLocation", chk)
             .trigger(availableNow=True).start())
        q.awaitTermination()

    run(6000)    # a bounded source of 6000 events: batches to 3000, 6000
    run(12000)   # the same query with more events continues at 6000
    key = lambda r: (r.dateTime, r.auction, r.bidder, r.price, r.extra)  # noqa: E731
    expected = _bids(spark, events=12000, seed=4).collect()
    assert len(seen) == len(expected)
    assert sorted(seen, key=key) == sorted(expected, key=key)
