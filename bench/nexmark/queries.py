"""The Nexmark queries as Structured Streaming queries, in SQL and in PySpark.

One module for the benchmark (bench/nexmark/run.py) and the tests
(tests/differential/test_nexmark.py). It imports neither engine: every function gets the
session `spark` and the functions module `F` of the engine it runs on (pyspark or spate),
so the same text runs on real Spark and on spate.

The inputs are three DataFrames `bid`, `auction`, `person` (streams or tables) with the
columns of spate's `format("nexmark")` source (docs/nexmark.md), each with a watermark on
`dateTime` (`with_watermarks`), and registered as temporary views of those names for the
SQL forms. Queries follow the Nexmark suite as Flink's nexmark repository writes them
(q0-q22), rewritten where Spark's SQL differs (HOP/TUMBLE/SESSION table functions ->
window()/session_window(); SPLIT_INDEX -> split()[i]); the ones Structured Streaming cannot
run are in UNSUPPORTED with the reason (docs/nexmark.md has Spark's errors).

QUERIES[name] = Query(sql, dataframe builder or None, output mode, inputs, kind) where
kind says how a streaming result compares with the batch evaluation of the same query:
"all" (every row: stateless queries, joins), "closed" (windowed rows whose window closed
under the final watermark), "final" (complete mode: the final table).
"""

from collections import namedtuple

Query = namedtuple("Query", "sql df mode inputs kind")

WATERMARK = "1 second"


def with_watermarks(frames):
    """The inputs with the watermark every query uses (event time is in order)."""
    return {k: v.withWatermark("dateTime", WATERMARK) for k, v in frames.items()}


# ---- PySpark forms ----------------------------------------------------------------------

def q0_df(F, t):
    return t["bid"].select("auction", "bidder", "price", "dateTime", "extra")


def q1_df(F, t):
    return t["bid"].select("auction", "bidder", F.expr("0.908 * price").alias("price"),
                           "dateTime", "extra")


def q2_df(F, t):
    return t["bid"].where(F.col("auction") % 123 == 0).select("auction", "price")


def q3_df(F, t):
    a, p = t["auction"].alias("A"), t["person"].alias("P")
    return (a.join(p, F.col("A.seller") == F.col("P.id"))
            .where((F.col("A.category") == 10) & F.col("P.state").isin("OR", "ID", "CA"))
            .select("P.name", "P.city", "P.state", F.col("A.id").alias("id")))


def q5_df(F, t):
    # Bids per auction per sliding window (10 s every 2 s), and the windows' largest
    # count: the auctions with the most bids in each window.
    counts = (t["bid"].groupBy(F.window("dateTime", "10 seconds", "2 seconds"), "auction")
              .agg(F.count("*").alias("num")))
    best = (counts.groupBy(F.col("window").alias("w"))
            .agg(F.max("num").alias("maxn")))
    return (counts.join(best, (counts["window"] == best["w"]) & (counts["num"] >= best["maxn"]))
            .select("auction", "num", F.col("window.start").alias("starttime")))


def q7_df(F, t):
    # The highest bid of each 10 s window: the windows' max price joined back to the bids
    # of that window with that price (Flink's q7). The window is matched by a range on the
    # bids' dateTime against window_time (the window's end - 1 µs, which keeps the
    # watermark): an interval join, so both sides' state is dropped under the watermark.
    maxes = (t["bid"].groupBy(F.window("dateTime", "10 seconds"))
             .agg(F.max("price").alias("maxprice"))
             .select(F.window_time("window").alias("wt"), "maxprice"))
    b = t["bid"]
    return (b.join(maxes, (b["price"] == maxes["maxprice"]) &
                   (b["dateTime"] > maxes["wt"] - F.expr("INTERVAL 10 SECONDS")) &
                   (b["dateTime"] <= maxes["wt"]))
            .select("auction", "price", "bidder", "dateTime", "extra"))


def q8_df(F, t):
    # New users who opened an auction in the 10 s window they registered in.
    p = t["person"].select("id", "name", F.window("dateTime", "10 seconds").alias("pw"))
    a = t["auction"].select("seller", F.window("dateTime", "10 seconds").alias("aw"))
    return (p.join(a, (p["id"] == a["seller"]) & (p["pw"] == a["aw"]), "left_semi")
            .select("id", "name", F.col("pw.start").alias("starttime")))


def q11_df(F, t):
    return (t["bid"].groupBy("bidder", F.session_window("dateTime", "10 seconds"))
            .agg(F.count("*").alias("bid_count"))
            .select("bidder", "bid_count", F.col("session_window.start").alias("starttime"),
                    F.col("session_window.end").alias("endtime")))


# ---- SQL forms (over the temporary views bid, auction, person) -----------------------

SQL = {
    "q0": "SELECT auction, bidder, price, dateTime, extra FROM bid",
    "q1": "SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid",
    "q2": "SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0",
    "q3": """SELECT P.name, P.city, P.state, A.id
             FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
             WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')""",
    "q5": """WITH counts AS (
               SELECT auction, count(*) AS num, window
               FROM bid GROUP BY window(dateTime, '10 seconds', '2 seconds'), auction),
             best AS (SELECT window AS w, max(num) AS maxn FROM counts GROUP BY window)
             SELECT auction, num, window.start AS starttime
             FROM counts JOIN best ON counts.window = best.w AND counts.num >= best.maxn""",
    "q7": """WITH w AS (
               SELECT window, max(price) AS maxprice
               FROM bid GROUP BY window(dateTime, '10 seconds')),
             maxes AS (SELECT window_time(window) AS wt, maxprice FROM w)
             SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra
             FROM bid B JOIN maxes
               ON B.price = maxes.maxprice
              AND B.dateTime > maxes.wt - INTERVAL 10 SECONDS AND B.dateTime <= maxes.wt""",
    "q8": """WITH p AS (SELECT id, name, window(dateTime, '10 seconds') AS pw FROM person),
             a AS (SELECT seller, window(dateTime, '10 seconds') AS aw FROM auction)
             SELECT id, name, pw.start AS starttime
             FROM p LEFT SEMI JOIN a ON p.id = a.seller AND p.pw = a.aw""",
    "q10": """SELECT auction, bidder, price, dateTime, extra,
                     date_format(dateTime, 'yyyy-MM-dd') AS dt,
                     date_format(dateTime, 'HH:mm') AS hm
              FROM bid""",
    "q11": """SELECT bidder, count(*) AS bid_count,
                     session_window.start AS starttime, session_window.end AS endtime
              FROM bid GROUP BY bidder, session_window(dateTime, '10 seconds')""",
    "q13": """SELECT B.auction, B.bidder, B.price, B.dateTime, S.value
              FROM bid B JOIN side_input S ON B.auction % 10000 = S.key""",
    "q14": """SELECT auction, bidder, 0.908 * price AS price,
                     CASE WHEN hour(dateTime) >= 8 AND hour(dateTime) <= 18 THEN 'dayTime'
                          WHEN hour(dateTime) <= 6 OR hour(dateTime) >= 20 THEN 'nightTime'
                          ELSE 'otherTime' END AS bidTimeType,
                     dateTime, extra,
                     length(extra) - length(replace(extra, 'c', '')) AS c_counts
              FROM bid
              WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000""",
    "q17": """SELECT auction, date_format(dateTime, 'yyyy-MM-dd') AS day,
                     count(*) AS total_bids,
                     count(*) FILTER (WHERE price < 10000) AS rank1_bids,
                     count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
                     count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
                     min(price) AS min_price, max(price) AS max_price,
                     avg(price) AS avg_price, sum(price) AS sum_price
              FROM bid GROUP BY auction, date_format(dateTime, 'yyyy-MM-dd')""",
    "q20": """SELECT auction, bidder, price, channel, url, B.dateTime, B.extra,
                     itemName, description, initialBid, reserve, A.dateTime AS adateTime,
                     expires, seller, category, A.extra AS aextra
              FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
              WHERE A.category = 10""",
    "q21": """SELECT auction, bidder, price, channel,
                     CASE WHEN lower(channel) = 'apple' THEN '0'
                          WHEN lower(channel) = 'google' THEN '1'
                          WHEN lower(channel) = 'facebook' THEN '2'
                          WHEN lower(channel) = 'baidu' THEN '3'
                          ELSE regexp_extract(url, '(&|^)channel_id=([^&]*)', 2)
                     END AS channel_id
              FROM bid
              WHERE regexp_extract(url, '(&|^)channel_id=([^&]*)', 2) <> ''
                 OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')""",
    "q22": """SELECT auction, bidder, price, channel,
                     split(url, '/')[3] AS dir1, split(url, '/')[4] AS dir2,
                     split(url, '/')[5] AS dir3
              FROM bid""",
}

DF = {"q0": q0_df, "q1": q1_df, "q2": q2_df, "q3": q3_df, "q5": q5_df, "q7": q7_df,
      "q8": q8_df, "q11": q11_df}

_INPUTS = {"q3": ("auction", "person"), "q8": ("person", "auction"),
           "q20": ("bid", "auction")}
_KIND = {"q5": "closed", "q7": "closed", "q11": "closed", "q17": "final"}

# For "closed" queries: the end (µs since the epoch) of the window a result row belongs
# to, from the row as a dict of column -> value (timestamps as ISO text, UTC).
_TEN_S = 10_000_000


def _us(iso):
    import datetime
    t = datetime.datetime.fromisoformat(iso).replace(tzinfo=datetime.timezone.utc)
    return int(round(t.timestamp() * 1e6))


WINDOW_END = {
    "q5": lambda r: _us(r["starttime"]) + _TEN_S,
    "q7": lambda r: _us(r["dateTime"]) // _TEN_S * _TEN_S + _TEN_S,
    "q11": lambda r: _us(r["endtime"]),
}
_MODE = {"q17": "complete"}

QUERIES = {name: Query(sql, DF.get(name), _MODE.get(name, "append"),
                       _INPUTS.get(name, ("bid",)), _KIND.get(name, "all"))
           for name, sql in SQL.items()}

# What Structured Streaming cannot run: the query (UNSUPPORTED_SQL) in its natural output
# mode, and the words of Spark 4.2's error that spate's error also has.
UNSUPPORTED = {
    "q4": ("complete", "between two streaming DataFrames/Datasets is not supported in "
                       "Complete output mode"),
    "q6": ("append", "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"),
    "q9": ("append", "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"),
    "q15": ("complete", "Distinct aggregations are not supported on streaming DataFrames"),
    "q16": ("complete", "Distinct aggregations are not supported on streaming DataFrames"),
    "q18": ("append", "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"),
    "q19": ("append", "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"),
}

# The queries above in Spark SQL as Flink writes them; both engines refuse them
# (tests/differential/test_nexmark.py checks the error class is Spark's).
UNSUPPORTED_SQL = {
    "q4": """SELECT Q.category, AVG(Q.final) FROM (
               SELECT MAX(B.price) AS final, A.category
               FROM auction A, bid B
               WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
               GROUP BY A.id, A.category) Q
             GROUP BY Q.category""",
    "q6": """SELECT Q.seller, AVG(Q.final) OVER (PARTITION BY Q.seller ORDER BY Q.dateTime
                                                  ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
             FROM (SELECT MAX(B.price) AS final, A.seller, B.dateTime
                   FROM auction AS A, bid AS B
                   WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
                   GROUP BY A.id, A.seller, B.dateTime) AS Q""",
    "q9": """SELECT * FROM (
               SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY price DESC,
                                                         bdateTime ASC) AS rownum
               FROM (SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bdateTime
                     FROM auction A, bid B
                     WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires))
             WHERE rownum <= 1""",
    "q15": """SELECT date_format(dateTime, 'yyyy-MM-dd') AS day, count(*) AS total_bids,
                     count(DISTINCT bidder) AS total_bidders
              FROM bid GROUP BY date_format(dateTime, 'yyyy-MM-dd')""",
    "q16": """SELECT channel, date_format(dateTime, 'yyyy-MM-dd') AS day,
                     count(DISTINCT auction) AS total_auctions
              FROM bid GROUP BY channel, date_format(dateTime, 'yyyy-MM-dd')""",
    "q18": """SELECT auction, bidder, price, channel, url, dateTime, extra FROM (
                SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction
                                             ORDER BY dateTime DESC) AS rank_number
                FROM bid) WHERE rank_number <= 1""",
    "q19": """SELECT * FROM (
                SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC)
                       AS rank_number FROM bid) WHERE rank_number <= 10""",
}


def register(spark, frames):
    """Registers the inputs (and q13's side input) as temporary views."""
    for name, df in frames.items():
        df.createOrReplaceTempView(name)
    spark.range(10000).selectExpr("id AS key", "CAST(id * 7 AS STRING) AS value") \
        .createOrReplaceTempView("side_input")


def build(spark, F, name, frames, form="sql"):
    """The query `name` over `frames` (already watermarked and registered)."""
    q = QUERIES[name]
    if form == "df":
        return q.df(F, frames)
    return spark.sql(q.sql)


def final_watermark_ms(max_event_ms):
    """The watermark after the last batch (max event time minus the delay)."""
    return max_event_ms - 1000
