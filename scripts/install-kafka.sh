#!/usr/bin/env bash
# Fetches the Apache Kafka broker (kafka_<scala> with its runtime dependencies, version
# pinned in scripts/kafka-versions.env) from Maven Central with the machine's Maven into
# build/kafka-jars. The broker runs in KRaft mode from those jars (scripts/kafka.sh); no
# Kafka distribution archive is needed. Also installs kafka-python (PyPI, pinned there too)
# into the virtual environment build/kafka-venv for the interop tests. Idempotent: a second
# run with the same versions does nothing. Needs Java 17+, mvn and /usr/bin/python3 with
# venv; fails with a message naming what is missing.
# Usage: bash scripts/install-kafka.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=kafka-versions.env
. scripts/kafka-versions.env
JARS=build/kafka-jars
VENV=build/kafka-venv
STAMP="kafka_$KAFKA_SCALA-$KAFKA_VERSION"
fail() {
  echo "install-kafka: $*" >&2
  exit 1
}
if [ "$(cat "$VENV/.installed" 2>/dev/null)" != "kafka-python-$KAFKA_PYTHON_VERSION" ]; then
  echo "install-kafka: kafka-python $KAFKA_PYTHON_VERSION into $VENV"
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV" || fail "cannot create $VENV (python3-venv missing?)"
  "$VENV/bin/pip" install -q --disable-pip-version-check "kafka-python==$KAFKA_PYTHON_VERSION" ||
    fail "pip cannot install kafka-python==$KAFKA_PYTHON_VERSION"
  echo "kafka-python-$KAFKA_PYTHON_VERSION" >"$VENV/.installed"
fi
if [ "$(cat "$JARS/.installed" 2>/dev/null)" = "$STAMP" ]; then
  exit 0
fi
command -v java >/dev/null || fail "java not found (the Kafka $KAFKA_VERSION broker needs Java 17+)"
command -v mvn >/dev/null || fail "mvn not found (it fetches the broker's jars from Maven Central)"
echo "install-kafka: Kafka $KAFKA_VERSION broker jars into $JARS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>spate.local</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_$KAFKA_SCALA</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
rm -rf "$JARS"
mkdir -p "$JARS"
(cd "$work" && mvn -B -q -Dstyle.color=never \
  org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$OLDPWD/$JARS") ||
  fail "mvn cannot fetch org.apache.kafka:kafka_$KAFKA_SCALA:$KAFKA_VERSION from Maven Central"
ls "$JARS"/kafka_"$KAFKA_SCALA"-"$KAFKA_VERSION".jar >/dev/null 2>&1 ||
  fail "kafka_$KAFKA_SCALA-$KAFKA_VERSION.jar missing in $JARS after mvn"
echo "$STAMP" >"$JARS/.installed"
echo "install-kafka: ready (Kafka $KAFKA_VERSION)"
