#!/usr/bin/env bash
# Installs real Apache Spark for the differential tests (tests/differential): the pinned
# pyspark and delta-spark (scripts/spark-versions.env) into the virtual environment
# build/spark-venv, and Delta's jars from Maven Central into build/spark-jars, which the
# tests pass to Spark as spark.jars (nothing uses Spark's own resolver at test time), and
# Spark's Kafka connector with its dependencies into build/spark-kafka-jars.
# Idempotent: a second run with the same versions does nothing. Needs Java 17+, Maven and
# /usr/bin/python3 with venv; fails with a message naming what is missing.
# Usage: bash scripts/install-spark.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=spark-versions.env
. scripts/spark-versions.env

VENV=build/spark-venv
JARS=build/spark-jars
KAFKA_JARS=build/spark-kafka-jars
STAMP="pyspark-$PYSPARK_VERSION delta-$DELTA_VERSION"
KAFKA_STAMP="spark-kafka-$PYSPARK_VERSION kafka-clients-$SPARK_KAFKA_CLIENTS_VERSION commons-pool2-$SPARK_COMMONS_POOL2_VERSION"
VENV_STAMP="$STAMP pandas-$PANDAS_VERSION pyarrow-$PYARROW_VERSION protobuf-$PROTOBUF_VERSION"
fail() {
  echo "install-spark: $*" >&2
  exit 1
}

PIPELINE_DEPS="pyyaml==$PYYAML_VERSION grpcio==$GRPCIO_VERSION grpcio-status==$GRPCIO_STATUS_VERSION googleapis-common-protos==$GOOGLEAPIS_COMMON_PROTOS_VERSION zstandard==$ZSTANDARD_VERSION"

if [ "$(cat "$VENV/.installed" 2>/dev/null)" = "$VENV_STAMP" ] &&
   [ "$(cat "$JARS/.installed" 2>/dev/null)" = "$STAMP" ] &&
   [ "$(cat "$VENV/.pipelines" 2>/dev/null)" = "$PIPELINE_DEPS" ] &&
   [ "$(cat "$KAFKA_JARS/.installed" 2>/dev/null)" = "$KAFKA_STAMP" ]; then
  exit 0
fi

command -v java >/dev/null || fail "java not found (Spark $PYSPARK_VERSION needs Java 17+)"
command -v mvn >/dev/null || fail "mvn not found (it fetches Delta's jars from Maven Central)"
[ -x /usr/bin/python3 ] || fail "/usr/bin/python3 not found"

if [ "$(cat "$VENV/.installed" 2>/dev/null)" != "$VENV_STAMP" ]; then
  echo "install-spark: pyspark $PYSPARK_VERSION and delta-spark $DELTA_VERSION into $VENV"
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV" || fail "cannot create $VENV (python3-venv missing?)"
  "$VENV/bin/pip" install -q --disable-pip-version-check wheel ||
    fail "pip cannot install wheel into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    "pyspark==$PYSPARK_VERSION" "delta-spark==$DELTA_VERSION" \
    "pandas==$PANDAS_VERSION" "pyarrow==$PYARROW_VERSION" "protobuf==$PROTOBUF_VERSION" ||
    fail "pip cannot install pyspark==$PYSPARK_VERSION delta-spark==$DELTA_VERSION pandas==$PANDAS_VERSION pyarrow==$PYARROW_VERSION protobuf==$PROTOBUF_VERSION"
  echo "$VENV_STAMP" > "$VENV/.installed"
fi

if [ "$(cat "$VENV/.pipelines" 2>/dev/null)" != "$PIPELINE_DEPS" ]; then
  echo "install-spark: spark-pipelines' packages into $VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install -q --disable-pip-version-check $PIPELINE_DEPS ||
    fail "pip cannot install $PIPELINE_DEPS"
  echo "$PIPELINE_DEPS" > "$VENV/.pipelines"
fi

if [ "$(cat "$JARS/.installed" 2>/dev/null)" != "$STAMP" ]; then
  echo "install-spark: Delta $DELTA_VERSION jars into $JARS"
  rm -rf "$JARS"
  mkdir -p "$JARS"
  # delta-spark's other compile dependencies (delta-kernel-*) serve only the catalog-managed
  # V2 connector; path-based and session-catalog tables need these two.
  for artifact in "io.delta:$DELTA_ARTIFACT:$DELTA_VERSION" "io.delta:delta-storage:$DELTA_VERSION"; do
    mvn -B -q -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
      -Dartifact="$artifact" -DoutputDirectory="$PWD/$JARS" ||
      fail "mvn cannot fetch $artifact from Maven Central"
  done
  echo "$STAMP" > "$JARS/.installed"
fi
if [ "$(cat "$KAFKA_JARS/.installed" 2>/dev/null)" != "$KAFKA_STAMP" ]; then
  echo "install-spark: Spark's Kafka connector ($KAFKA_STAMP) into $KAFKA_JARS"
  rm -rf "$KAFKA_JARS"
  mkdir -p "$KAFKA_JARS"
  # Not transitive: the rest of what the pom names (spark-sql, lz4, snappy, zstd, slf4j,
  # jsr305, scala-parallel-collections) is among pyspark's own jars.
  for artifact in "org.apache.spark:spark-sql-kafka-0-10_2.13:$PYSPARK_VERSION" \
                  "org.apache.spark:spark-token-provider-kafka-0-10_2.13:$PYSPARK_VERSION" \
                  "org.apache.kafka:kafka-clients:$SPARK_KAFKA_CLIENTS_VERSION" \
                  "org.apache.commons:commons-pool2:$SPARK_COMMONS_POOL2_VERSION"; do
    mvn -B -q -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
      -Dartifact="$artifact" -DoutputDirectory="$PWD/$KAFKA_JARS" ||
      fail "mvn cannot fetch $artifact from Maven Central"
  done
  echo "$KAFKA_STAMP" > "$KAFKA_JARS/.installed"
fi
echo "install-spark: ready (pyspark $PYSPARK_VERSION, delta-spark $DELTA_VERSION)"
