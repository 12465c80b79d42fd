#!/usr/bin/env bash
# A long crash campaign: at least N SIGKILLs that land inside a micro-batch, spread over
# the stateless file, Delta and foreachBatch sinks (an idempotent append, and a MERGE
# upsert; tests/stream/crash_test.cc,
# RandomKill.Runs) and the stateful queries — windowed aggregation in append mode,
# update-mode aggregation through foreachBatch, complete-mode aggregation into Delta,
# dropDuplicates into files — each with the memory and the RocksDB state store
# (StatefulRandomKill.Runs), and Kafka -> Delta and Kafka -> Kafka with the exactly-once
# sink against a local broker (tests/kafka, KafkaCrash: every (partition, offset) exactly
# once in Delta, every record once for a read_committed consumer), then the totals of
# kills and of lost, duplicated and mismatched rows. Fails unless every query reached its
# share with 0 lost, 0 duplicated and 0 mismatched.
# Usage: bash scripts/crash-campaign.sh N [all|stateless|stateful|kafka]   (default all;
#        SPATE_PRESET=asan for the sanitizer build, SPATE_CRASH_SEED=<n> to repeat a
#        campaign's kill schedule: it prints its seed)
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:?usage: crash-campaign.sh N (landed kills) [all|stateless|stateful]}
which=${2:-all}
preset=${SPATE_PRESET:-release}

# name of the query in the result line | gtest filter
stateless=("files|Sinks/RandomKill.Runs/0" "delta|Sinks/RandomKill.Runs/1"
  "foreachbatch|Sinks/RandomKill.Runs/2" "merge|Sinks/RandomKill.Runs/3")
kafka=("kafka|KafkaCrash.*")
stateful=()
for q in window update complete dedup; do
  for p in memory rocksdb; do
    stateful+=("$q:$p|Queries/StatefulRandomKill.Runs/${q}_$p")
  done
done
case "$which" in
  all) queries=("${stateless[@]}" "${stateful[@]}" "${kafka[@]}") ;;
  stateless) queries=("${stateless[@]}") ;;
  stateful) queries=("${stateful[@]}") ;;
  kafka) queries=("${kafka[@]}") ;;
  *) echo "unknown query set '$which' (all, stateless, stateful or kafka)" >&2; exit 2 ;;
esac
share=$(((want + ${#queries[@]} - 1) / ${#queries[@]}))
# A new kill schedule each campaign (SPATE_CRASH_SEED=<n> repeats one).
seed=${SPATE_CRASH_SEED:-$(date +%s)}
echo "seed $seed"

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"${SPATE_JOBS:-2}" \
  --target spate_stream_crash_test spate_stream_crash_driver spate_kafka_test \
  spate_kafka_crash_driver >/dev/null
bin=build/$preset/tests
log=$(mktemp /tmp/spate-crash-campaign-XXXXXX.log)

rc=0
landed=0 kills=0 runs=0 lost=0 dup=0 bad=0 window=0
for entry in "${queries[@]}"; do
  name=${entry%%|*}
  filter=${entry#*|}
  start=$SECONDS
  if [ "$name" = kafka ]; then
    # Two queries (Delta, exactly-once Kafka sink), each killed `share` times; the test
    # checks every row once itself and prints the kills that landed inside a batch.
    marker="kafka crash:"
    CI=true SPATE_KAFKA_CRASH_KILLS=$share SPATE_CRASH_SEED=$seed \
      "$bin/spate_kafka_test" --gtest_filter="$filter" >>"$log" 2>&1 || rc=1
  else
    marker="random kills [$name]"
    SPATE_CRASH_LANDED_KILLS=$share SPATE_CRASH_SEED=$seed "$bin/spate_stream_crash_test" \
      "$bin/spate_stream_crash_driver" --gtest_filter="$filter" >>"$log" 2>&1 || rc=1
  fi
  line=$(grep -F "$marker" "$log" | tail -1 || true)
  if [ -z "$line" ]; then
    echo "$name: no result line (see $log)"
    rc=1
    continue
  fi
  echo "$line ($((SECONDS - start)) s)"
  if [ "$name" = kafka ]; then
    read -r k1 l1 k2 l2 < <(sed -E 's/.*delta ([0-9]+) kills \(([0-9]+) inside a batch\), exactly-once kafka sink ([0-9]+) kills \(([0-9]+) inside.*/\1 \2 \3 \4/' <<<"$line")
    landed=$((landed + l1 + l2)) kills=$((kills + k1 + k2))
    continue
  fi
  read -r l k r < <(sed -E 's/.*: ([0-9]+) landed mid-batch of ([0-9]+) kills in ([0-9]+) runs.*/\1 \2 \3/' <<<"$line")
  lo=$(sed -E 's/.*rows lost ([0-9]+).*/\1/' <<<"$line")
  du=$(sed -E 's/.*duplicated ([0-9]+).*/\1/' <<<"$line")
  mi=0 sw=0
  if [[ $line == *mismatched* ]]; then
    mi=$(sed -E 's/.*mismatched ([0-9]+).*/\1/' <<<"$line")
    sw=$(sed -E 's/.*\(([0-9]+) between state commit.*/\1/' <<<"$line")
  fi
  landed=$((landed + l)) kills=$((kills + k)) runs=$((runs + r))
  lost=$((lost + lo)) dup=$((dup + du)) bad=$((bad + mi)) window=$((window + sw))
done
echo "campaign ($which): $landed kills landed mid-batch (of $kills kills, $runs runs;" \
  "wanted $want; $window between a state commit and its commit log)," \
  "rows lost $lost, duplicated $dup, mismatched $bad"
if [ "$rc" != 0 ] || [ "$lost" != 0 ] || [ "$dup" != 0 ] || [ "$bad" != 0 ] ||
  [ "$landed" -lt "$want" ]; then
  echo "campaign FAILED (log: $log)"
  exit 1
fi
rm -f "$log"
