// Copyright spate authors.
#pragma once

// Apache Kafka source and sink (Spark's kafka-0-10-sql connector), over librdkafka.
//
// Source (`readStream.format("kafka")`, `read.format("kafka")`): options as Spark's
// KafkaSourceProvider — kafka.bootstrap.servers (required) and every other `kafka.*`
// option handed to librdkafka with the prefix removed; exactly one of subscribe /
// subscribePattern / assign; startingOffsets (earliest, latest, or per-partition JSON
// with -2 = earliest, -1 = latest), startingOffsetsByTimestamp / startingTimestamp, the
// ending forms (batch reads), maxOffsetsPerTrigger, minOffsetsPerTrigger +
// maxTriggerDelay, minPartitions, maxRecordsPerPartition, failOnDataLoss, includeHeaders,
// groupIdPrefix, kafkaConsumer.pollTimeoutMs, fetchOffset.numRetries / retryIntervalMs;
// beyond Spark, commitOffsetsToGroup (end offsets of committed batches to kafka.group.id,
// for lag monitoring only). Rows have Spark's schema: key BINARY, value BINARY, topic
// STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, timestampType INT [, headers
// ARRAY<STRUCT<key:STRING,value:BINARY>>].
//
// Offsets are Spark's KafkaSourceOffset JSON ({"orders":{"0":41254102,"1":41242411}},
// topics in the order Scala's HashMap iterates them, as Spark's JsonUtils writes them);
// the initial offsets are kept in <checkpoint>/sources/<i>/0 as Spark writes them (a zero
// byte, "v1\n", the JSON), so a restart starts where the first run decided to. A batch is
// the offset range [start, end) of each partition; each (partition, range) is one split,
// read by its own consumer with assign() at the range's start: the same batch re-run
// after a restart reads exactly the same records. A streaming source pools the consumers
// of finished splits (one per partition, with the offset their queue delivers next) for
// the next batch's split of that partition. Partitions that appear later are read from
// their earliest offset; the progress reports the uncapped latest offsets and Spark's
// min/max/avgOffsetsBehindLatest metrics.
//
// Sink (`writeStream.format("kafka")`, `write.format("kafka")`): columns value (required,
// STRING or BINARY), key (STRING or BINARY), topic (STRING; the `topic` option wins),
// partition (INT), headers; at-least-once: every record of a batch is delivered (flush,
// delivery reports checked) before the batch counts as written. exactlyOnce=true (beyond
// Spark): one Kafka transaction per batch, transactional.id from the query id, the batch
// id committed inside it as a group offset of a marker topic, so a replayed batch that
// reached Kafka is skipped and read_committed consumers see each row once.
//
// Ownership: sources and sinks are owned by the query (shared_ptr); the source holds a
// metadata/offset consumer and its consumer pool, the sink a producer (exactly-once: plus
// a consumer reading the marker offsets), for their lifetime. Thread safety: a source is
// driven by its query thread; the batch DataSource it returns may be read from several
// threads (one consumer per split); the sink's producer is shared by the partitions
// writing a batch (librdkafka handles are thread-safe). Failure: option errors are
// IllegalArgumentException-style Status values with Spark's messages; broker errors name
// the topic-partition; data loss (offsets aged out, a partition gone) fails with Spark's
// message unless failOnDataLoss=false.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/base/json.h"
#include "spate/columnar/data_source.h"
#include "spate/sql/bound_plan.h"
#include "spate/stream/source.h"

namespace spate::connectors::kafka {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  bool operator<(const TopicPartition& o) const {
    return topic != o.topic ? topic < o.topic : partition < o.partition;
  }
  bool operator==(const TopicPartition& o) const {
    return topic == o.topic && partition == o.partition;
  }
  /// Kafka's TopicPartition.toString: "orders-0".
  std::string ToString() const { return topic + "-" + std::to_string(partition); }
};
using PartitionOffsets = std::map<TopicPartition, int64_t>;

/// Spark's Kafka schema (KafkaRecordToRowConverter.kafkaSchema).
SchemaPtr KafkaSchema(bool include_headers);

/// Spark's JsonUtils.partitionOffsets as a Json (topic and partition order of the
/// Scala 2.13 mutable.HashMaps Spark serialises).
Json OffsetsToJson(const PartitionOffsets& offsets);
/// Parses {"t":{"0":5}}; else Spark's "Expected e.g. {...}, got ..." message.
Result<PartitionOffsets> OffsetsFromJson(const Json& json);
Result<PartitionOffsets> ParseOffsetsText(const std::string& text);
/// The `assign` option: {"topicA":[0,1],"topicB":[2,4]}.
Result<std::vector<TopicPartition>> ParsePartitionsText(const std::string& text);
/// Iteration order of a Scala 2.13 mutable.HashMap filled with keys whose hashes are
/// `hashes`, in that insertion order (indices into `hashes`).
std::vector<size_t> ScalaHashMapOrder(const std::vector<int32_t>& hashes);
/// Java's String.hashCode (UTF-16 code units).
int32_t JavaStringHash(const std::string& utf8);

/// Validates the streaming options; returns the schema and the factory of the source.
Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeKafkaSourceFactory(
    const std::map<std::string, std::string>& options);

/// `read.format("kafka").load()`: validates the batch options, resolves the offset range
/// (startingOffsets default earliest, endingOffsets default latest) and returns the rows'
/// source.
Result<DataSourcePtr> MakeKafkaRelation(
    const std::map<std::string, std::string>& options);

/// `writeStream.format("kafka")` for a query whose rows have `schema` (checked as Spark's
/// KafkaWriter.validateQuery does, before the query starts).
Result<stream::SinkPtr> MakeKafkaSink(const std::map<std::string, std::string>& options,
                                      const Schema& schema);

/// `write.format("kafka").save()`: writes every row of `plan` (mode: append or
/// errorifexists as in Spark; others fail) and returns after all are acknowledged.
Status WriteKafka(const sql::BoundPlanPtr& plan, const exec::ExecOptions& exec_options,
                  const std::map<std::string, std::string>& options,
                  const std::string& mode);

}  // namespace spate::connectors::kafka
