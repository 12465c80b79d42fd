#!/usr/bin/env bash
# Integration tests of the `spate sql` command: output formats, scripts, stdin sessions,
# errors and exit codes. Usage: cli_test.sh <path-to-spate>
set -u
SPATE=$1
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {  # name, expected, actual
  if [ "$2" == "$3" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    printf 'FAILED: %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3"
  fi
}

out=$("$SPATE" sql -S -e "SELECT 1 AS a, 'x' AS b, NULL AS c")
check "table output" "$(printf '+---+---+----+\n|a  |b  |c   |\n+---+---+----+\n|1  |x  |NULL|\n+---+---+----+')" "$out"

out=$("$SPATE" sql -S --output tsv -e "SELECT id, CASE WHEN id = 1 THEN NULL ELSE id * 1.5 END AS v FROM range(3)")
check "tsv output" "$(printf '0\t0.0\n1\tNULL\n2\t3.0')" "$out"

out=$("$SPATE" sql -S --output tsv --header -e "SELECT 1 AS a, 2 AS b")
check "tsv header" "$(printf 'a\tb\n1\t2')" "$out"

out=$("$SPATE" sql -S --output json -e "SELECT 1 AS a, 'q\"x' AS s, CAST(NULL AS INT) AS n, 2.5 AS d")
check "json output" '{"a":1,"s":"q\"x","n":null,"d":2.5}' "$out"

out=$("$SPATE" sql -S --output tsv -e "SELECT k, count(*), sum(v) FROM (SELECT id % 3 AS k, id AS v FROM range(1000000)) GROUP BY k ORDER BY k")
check "aggregation over range" "$(printf '0\t333334\t166666833333\n1\t333333\t166666166667\n2\t333333\t166666500000')" "$out"

printf 'CREATE TEMP VIEW t AS SELECT id FROM range(5);\n-- a comment; with a semicolon\nSELECT sum(id)\n  FROM t;\n' > "$tmp/script.sql"
out=$("$SPATE" sql -S --output tsv -f "$tmp/script.sql")
check "-f script with comments and multi-line statements" "10" "$out"

out=$(printf 'SELECT 1\n + 1 AS two;\n.mode tsv\nSELECT 3;\nquit;\nSELECT 4;\n' | "$SPATE" sql -S)
check "stdin session" "$(printf '+---+\n|two|\n+---+\n|2  |\n+---+\n3')" "$out"

err=$("$SPATE" sql -S -e "SELECT 1/0" 2>&1 >/dev/null)
code=$?
check "divide by zero exit code" "1" "$code"
check "divide by zero message" "[DIVIDE_BY_ZERO] Division by zero. Use \`try_divide\` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22012" "$err"

err=$("$SPATE" sql -S -e "SELECT idd FROM range(2)" 2>&1 >/dev/null)
check "unresolved column" "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name \`idd\` cannot be resolved. Did you mean one of the following? [\`id\`]. SQLSTATE: 42703 (line 1, pos 7)" "$err"

err=$("$SPATE" sql -S -e "SELEC 1" 2>&1 >/dev/null)
check "parse error" "$(printf '%s\n\n== SQL ==\nSELEC 1\n^^^' "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601 (line 1, pos 0)")" "$err"

out=$("$SPATE" sql -S --conf spark.sql.ansi.enabled=false --output tsv -e "SELECT 1/0")
check "--conf ansi off" "NULL" "$out"

out=$("$SPATE" sql -S --output tsv -e "SET spark.sql.shuffle.partitions=3; SELECT count(*) FROM range(10) a JOIN range(10) b ON a.id = b.id")
check "SET then query" "$(printf 'spark.sql.shuffle.partitions\t3\n10')" "$out"

"$SPATE" sql -S -e "SELECT 1; SELECT nope; SELECT 3" >/dev/null 2>&1
check "script stops at first error" "1" "$?"

# `spate demo`: the streaming pipeline into the local warehouse, run twice from the same
# folder (it resets its own folder and table).
mkdir -p "$tmp/demo"
for run in 1 2; do
  out=$(cd "$tmp/demo" && "$SPATE" demo --events 10000 --events-per-file 20)
  check "demo exit code (run $run)" "0" "$?"
  check "demo reads nothing twice (run $run)" "bronze_events has 200 rows (200 events landed, none read twice)" \
    "$(grep 'none read twice' <<< "$out")"
  check "demo third run has no batch (run $run)" "  no new data: no batch ran" "$(grep 'no batch ran' <<< "$out")"
  check "demo batches (run $run)" "6" "$(grep -c '^  batch ' <<< "$out")"
done
check "demo table in the warehouse" "yes" "$([ -d "$tmp/demo/spate-warehouse/bronze_events/_delta_log" ] && echo yes)"
out=$(cd "$tmp/demo" && "$SPATE" sql -S --output tsv -e "SELECT count(*) FROM bronze_events")
check "demo table readable from spate sql" "200" "$out"

# `spate checkpoint describe` on the demo's checkpoint (a real stateless file -> Delta run:
# two runs with data, 10 files landed, six batches).
chk="$tmp/demo/spate-demo/checkpoints/bronze_events"
out=$("$SPATE" checkpoint describe "$chk")
check "describe exit code" "0" "$?"
check "describe query id" "  query id:              $(sed 's/.*"id":"\([^"]*\)".*/\1/' "$chk/metadata")" \
  "$(grep 'query id:' <<< "$out")"
check "describe last committed batch" "  last committed batch:  5" "$(grep 'last committed batch' <<< "$out")"
check "describe source log" "     log sources/0: 10 entries, latest batch 5" "$(grep 'log sources/0' <<< "$out")"
check "describe stateless" "  (none: a stateless query)" "$(grep 'stateless' <<< "$out")"
out=$("$SPATE" checkpoint describe "file://$chk")
check "describe of a file:// URI" "  last committed batch:  5" "$(grep 'last committed batch' <<< "$out")"
out=$("$SPATE" checkpoint describe --json "$chk")
check "describe --json" '"lastCommittedBatch" : 5,' "$(grep -o '"lastCommittedBatch" : 5,' <<< "$out")"
err=$("$SPATE" checkpoint describe "$tmp/no-such-checkpoint" 2>&1 >/dev/null)
check "describe of a missing folder exit code" "1" "$?"
check "describe of a missing folder" "Error: [SPATE_STREAMING_INVALID] $tmp/no-such-checkpoint is not a streaming checkpoint: it has no metadata, offsets or commits SQLSTATE: 42000" "$err"

# `spate checkpoint check`: a PySpark job run by `spate submit` makes the checkpoint; the
# same script, changed by its arguments, is checked (its query is handed over, not started).
mkdir -p "$tmp/ck/in"
printf '{"k":"a","v":1}\n{"k":"b","v":2}\n' > "$tmp/ck/in/f0.json"
cat > "$tmp/ck/job.py" <<'PY'
import sys
from pyspark.sql import SparkSession
root, variant, mode = sys.argv[1], sys.argv[2], sys.argv[3]
spark = SparkSession.builder.getOrCreate()
df = spark.readStream.schema("k STRING, v LONG").json(root + "/in")
df = df.groupBy("k").count() if variant == "agg" else df.groupBy("k", "v").count()
(df.writeStream.format("noop").outputMode(mode).option("checkpointLocation", root + "/chk")
   .trigger(availableNow=True).start().awaitTermination())
PY
"$SPATE" submit "$tmp/ck/job.py" "$tmp/ck" agg update 2>/dev/null
check "check: the original ran" "yes" "$([ -f "$tmp/ck/chk/commits/0" ] && echo yes)"
out=$("$SPATE" checkpoint check "$tmp/ck/chk" --query "$tmp/ck/job.py" -- "$tmp/ck" agg update)
check "check unchanged exit code" "0" "$?"
check "check unchanged" "safe     unchanged" "$(grep 'unchanged' <<< "$out")"
out=$("$SPATE" checkpoint check "$tmp/ck/chk" --query "$tmp/ck/job.py" -- "$tmp/ck" agg complete)
check "check output mode exit code" "1" "$?"
check "check output mode" "WARNING  output_mode_changed" "$(grep 'output_mode_changed' <<< "$out")"
out=$("$SPATE" checkpoint check "$tmp/ck/chk" --query "$tmp/ck/job.py" -- "$tmp/ck" keys update)
check "check keys exit code" "2" "$?"
check "check keys" "REFUSED  state_key_schema_changed  [STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE]" \
  "$(grep 'state_key_schema_changed' <<< "$out")"
out=$("$SPATE" checkpoint check "$tmp/ck/chk" --query "$tmp/ck/job.py" --json -- "$tmp/ck" keys update)
check "check --json" '"exitCode" : 2,' "$(grep -o '"exitCode" : 2,' <<< "$out")"
echo "SELECT 1;" > "$tmp/ck/q.sql"
err=$("$SPATE" checkpoint check "$tmp/ck/chk" --query "$tmp/ck/q.sql" 2>&1)
check "check of a SQL file exit code" "3" "$?"
check "check of a SQL file" "yes" "$(grep -q 'defines no streaming table' <<< "$err" && echo yes)"
out=$("$SPATE" checkpoint replay "$tmp/ck/chk" --batch 0 --query "$tmp/ck/job.py" -- "$tmp/ck" agg update)
check "replay exit code" "0" "$?"
check "replay rows (noop: shown, not compared)" "$(printf '  a | 1\n  b | 1')" "$(grep -E '^  [ab] \| ' <<< "$out")"
err=$("$SPATE" checkpoint replay "$tmp/ck/chk" --batch 5 --query "$tmp/ck/job.py" -- "$tmp/ck" agg update 2>&1)
check "replay of a batch that is not committed exit code" "3" "$?"

# --ui: the monitoring server on loopback (any free port here).
err=$("$SPATE" sql --ui --ui-port 0 -e "SELECT 1" 2>&1 >/dev/null)
check "--ui prints the address" "yes" "$(grep -qE '^Spark Web UI available at http://127\.0\.0\.1:[0-9]+$' <<< "$err" && echo yes)"

printf '%d passed, %d failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
