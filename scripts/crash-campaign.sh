#!/usr/bin/env bash
# A long crash campaign: at least N SIGKILLs that land inside a micro-batch, spread over
# the file, Delta and foreachBatch sinks (tests/stream/crash_test.cc, RandomKill.Runs),
# then the totals of kills and of lost and duplicated rows. Fails unless every sink
# reached its share with 0 lost and 0 duplicated.
# Usage: bash scripts/crash-campaign.sh N   (SPATE_PRESET=asan for the sanitizer build)
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:?usage: crash-campaign.sh N (landed kills)}
preset=${SPATE_PRESET:-release}
sinks=(files delta foreachbatch)
share=$(((want + ${#sinks[@]} - 1) / ${#sinks[@]}))

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"${SPATE_JOBS:-2}" \
  --target spate_stream_crash_test spate_stream_crash_driver >/dev/null
bin=build/$preset/tests
log=$(mktemp /tmp/spate-crash-campaign-XXXXXX.log)

rc=0
landed=0 kills=0 runs=0 lost=0 dup=0
for i in "${!sinks[@]}"; do
  sink=${sinks[$i]}
  start=$SECONDS
  if ! SPATE_CRASH_LANDED_KILLS=$share "$bin/spate_stream_crash_test" \
      "$bin/spate_stream_crash_driver" --gtest_filter="Sinks/RandomKill.Runs/$i" \
      >>"$log" 2>&1; then
    rc=1
  fi
  line=$(grep "^random kills \[$sink\]" "$log" | tail -1)
  if [ -z "$line" ]; then
    echo "$sink: no result line (see $log)"
    rc=1
    continue
  fi
  echo "$line ($((SECONDS - start)) s)"
  read -r l k r lo du < <(sed -E 's/.*: ([0-9]+) landed mid-batch of ([0-9]+) kills in ([0-9]+) runs; rows lost ([0-9]+), duplicated ([0-9]+).*/\1 \2 \3 \4 \5/' <<<"$line")
  landed=$((landed + l)) kills=$((kills + k)) runs=$((runs + r))
  lost=$((lost + lo)) dup=$((dup + du))
done
echo "campaign: $landed kills landed mid-batch (of $kills kills, $runs runs; wanted $want)," \
  "rows lost $lost, duplicated $dup"
if [ "$rc" != 0 ] || [ "$lost" != 0 ] || [ "$dup" != 0 ] || [ "$landed" -lt "$want" ]; then
  echo "campaign FAILED (log: $log)"
  exit 1
fi
rm -f "$log"
