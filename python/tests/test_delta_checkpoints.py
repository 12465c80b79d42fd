"""Delta checkpoint formats from Python and SQL (issue 18): the session's
spark.databricks.delta.checkpoint.partSize makes multi-part checkpoints, a table created
with delta.checkpointPolicy = 'v2' gets V2 checkpoints with sidecars; the table reads the
same from the checkpoint alone."""
import json
import os


def _only_the_checkpoint(path, version):
    for v in range(version + 1):
        os.remove(os.path.join(path, "_delta_log", f"{v:020d}.json"))


def test_multi_part_checkpoint_from_the_session_conf(spark, tmp_path):
    path = str(tmp_path / "mp")
    spark.conf.set("spark.databricks.delta.checkpoint.partSize", "4")
    try:
        for i in range(11):
            spark.range(i * 2, i * 2 + 2).write.format("delta").mode("append").save(path)
    finally:
        spark.conf.unset("spark.databricks.delta.checkpoint.partSize")
    log = os.listdir(os.path.join(path, "_delta_log"))
    parts = sorted(n for n in log if n.startswith("00000000000000000010.checkpoint."))
    with open(os.path.join(path, "_delta_log", "_last_checkpoint")) as f:
        last = json.load(f)
    assert last["version"] == 10 and last["parts"] == len(parts) > 1
    assert parts[0] == f"00000000000000000010.checkpoint.0000000001.{len(parts):010d}.parquet"
    _only_the_checkpoint(path, 10)
    assert spark.read.format("delta").load(path).count() == 22


def test_v2_checkpoint_of_a_table_created_in_sql(spark, tmp_path):
    path = str(tmp_path / "v2")
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT) USING delta "
              "TBLPROPERTIES ('delta.checkpointPolicy' = 'v2')")
    for i in range(10):
        spark.sql(f"INSERT INTO delta.`{path}` VALUES ({i})")
    log = os.path.join(path, "_delta_log")
    tops = [n for n in os.listdir(log) if n.startswith("00000000000000000010.checkpoint.")]
    assert len(tops) == 1 and tops[0].endswith(".json")
    with open(os.path.join(log, tops[0])) as f:
        actions = [json.loads(line) for line in f]
    assert "checkpointMetadata" in actions[0]
    sidecars = [a["sidecar"]["path"] for a in actions if "sidecar" in a]
    assert sorted(sidecars) == sorted(os.listdir(os.path.join(log, "_sidecars")))
    protocol = next(a["protocol"] for a in actions if "protocol" in a)
    assert protocol["readerFeatures"] == ["v2Checkpoint"]
    with open(os.path.join(log, "_last_checkpoint")) as f:
        assert json.load(f)["v2Checkpoint"]["path"] == tops[0]
    _only_the_checkpoint(path, 10)
    assert sorted(r.id for r in spark.read.format("delta").load(path).collect()) == list(range(10))


def _paced_checkpoints(path, versions):
    """The checkpoints spate's pacing rule gives from the files on disk (a checkpoint at an
    interval multiple once the commit bytes since the last one reach its size), and the
    ones written."""
    log = os.path.join(path, "_delta_log")
    expected, written = [], []
    checkpoint_bytes, since = -1, 0
    for v in range(1, versions + 1):
        since += os.path.getsize(os.path.join(log, f"{v:020d}.json"))
        cp = os.path.join(log, f"{v:020d}.checkpoint.parquet")
        if os.path.exists(cp):
            written.append(v)
        if v % 10 == 0 and (checkpoint_bytes < 0 or since >= checkpoint_bytes):
            expected.append(v)
            since = 0
            if os.path.exists(cp):
                checkpoint_bytes = os.path.getsize(cp)
    return expected, written


def test_checkpoints_paced_by_their_size_from_sql(spark, tmp_path):
    # spate.delta.checkpoint.pacedAboveBytes = 0: every checkpoint paced (the default,
    # 256 KiB, leaves a small table's checkpoints every 10 commits, as Delta).
    paced, plain = str(tmp_path / "paced"), str(tmp_path / "plain")
    for path in (paced, plain):
        spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, s STRING) USING delta")
    spark.sql("SET spate.delta.checkpoint.pacedAboveBytes = 0")
    try:
        for i in range(80):
            spark.sql(f"INSERT INTO delta.`{paced}` VALUES ({i}, 'x')")
    finally:
        spark.conf.unset("spate.delta.checkpoint.pacedAboveBytes")
    for i in range(80):
        spark.sql(f"INSERT INTO delta.`{plain}` VALUES ({i}, 'x')")
    expected, written = _paced_checkpoints(paced, 80)
    assert written == expected
    assert 10 in written and len(written) < 8  # some interval multiples skipped
    assert _paced_checkpoints(plain, 80)[1] == list(range(10, 81, 10))
    with open(os.path.join(paced, "_delta_log", "_last_checkpoint")) as f:
        assert json.load(f)["version"] == written[-1]
    _only_the_checkpoint(paced, written[-1])
    assert spark.read.format("delta").load(paced).count() == 80
