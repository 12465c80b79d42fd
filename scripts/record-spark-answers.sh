#!/usr/bin/env bash
# Asks real Spark for every differential case (or those selected by pytest -k arguments)
# and records its answers in tests/differential/answers/ (see tests/differential/answers.py).
# Run it after changing a case module, dsl.py, runner.py, spark_server.py or the pinned Spark
# versions, and commit the recordings with the change; until then the changed modules are
# asked live in every run (correct, only slower).
# Usage: bash scripts/record-spark-answers.sh [pytest args, e.g. -k "strings or math"]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-spark.sh
SPATE_DIFF_LIVE=all SPATE_DIFF_RECORD=1 PYTHONPATH=build/release/python \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/differential/test_differential.py "$@" || {
  echo "record-spark-answers: some cases failed on spate (Spark's answers are recorded all the same)" >&2
}
/usr/bin/python3 tests/differential/answers.py
