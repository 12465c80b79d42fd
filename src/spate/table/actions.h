// Copyright spate authors.
#pragma once

// Delta Lake log actions (delta-io/delta PROTOCOL.md, "Actions"): the JSON objects, one
// per line, of `_delta_log/<version %020d>.json`, and the rows of Parquet checkpoints.
//
//   {"commitInfo":{...}}   {"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
//   {"metaData":{"id":..,"format":{"provider":"parquet","options":{}},"schemaString":..,
//                "partitionColumns":[..],"configuration":{..},"createdTime":..}}
//   {"add":{"path":..,"partitionValues":{..},"size":..,"modificationTime":..,
//           "dataChange":true,"stats":"{\"numRecords\":..}"}}
//   {"remove":{"path":..,"deletionTimestamp":..,"dataChange":true,
//              "extendedFileMetadata":true,"partitionValues":{..},"size":..}}
//   {"txn":{"appId":..,"version":..,"lastUpdated":..}}
//
// Unknown actions and unknown fields are ignored on read (forward compatibility, as the
// protocol requires); a line that is not JSON is an error naming the file and line.
//
// Thread safety: plain values. Failure: ParseCommit returns DELTA-style errors
// (kDataCorruption) naming the file.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/json.h"
#include "spate/base/status.h"
#include "spate/types/data_type.h"

namespace spate::table {

struct Protocol {
  int min_reader_version = 1;
  int min_writer_version = 2;
  /// Only for reader version 3 / writer version 7.
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;

  Json ToJson() const;
  static Protocol FromJson(const Json& j);
  bool operator==(const Protocol& o) const;
};

struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::string format_provider = "parquet";
  std::map<std::string, std::string> format_options;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
  std::optional<int64_t> created_time;

  Json ToJson() const;
  static Metadata FromJson(const Json& j);
  /// The parsed schemaString (every column, partition columns included).
  Result<SchemaPtr> ParseSchema() const;
};

struct DeletionVectorDescriptor {
  std::string storage_type;  // "u", "i" or "p"
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;
  /// storageType + pathOrInlineDv (+ "@" + offset): the DV's identity in log replay.
  std::string UniqueId() const;
  Json ToJson() const;
  static DeletionVectorDescriptor FromJson(const Json& j);
};

using PartitionValues = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct AddFile {
  /// A URI relative to the table root (percent-encoded), or absolute.
  std::string path;
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;
  std::optional<std::map<std::string, std::string>> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;

  Json ToJson() const;
  static AddFile FromJson(const Json& j);
  /// Replay key: path + DV id.
  std::string Key() const;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<PartitionValues> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  std::optional<DeletionVectorDescriptor> deletion_vector;

  Json ToJson() const;
  static RemoveFile FromJson(const Json& j);
  std::string Key() const;
};

/// The remove action of active file `file` at `deletion_timestamp` (ms), with Delta's
/// extended file metadata: its path, partition values, size and deletion vector (the same
/// replay key). Not its stats: a caller that writes them copies `file.stats`.
RemoveFile RemoveOf(const AddFile& file, int64_t deletion_timestamp, bool data_change);

struct SetTransaction {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;

  Json ToJson() const;
  static SetTransaction FromJson(const Json& j);
};

/// commitInfo is free-form provenance; the fields spate reads and writes are typed, the
/// rest are kept in `raw` (what DESCRIBE HISTORY shows).
struct CommitInfo {
  std::optional<int64_t> timestamp;
  std::string operation;
  /// Values are JSON-encoded strings as Delta writes them ("[]", "\"Append\"", "true").
  std::map<std::string, std::string> operation_parameters;
  /// Parameters Delta writes as JSON booleans, not strings (UNSET TBLPROPERTIES'
  /// `ifExists`): their "true" / "false" values are written as true / false (and read
  /// back into this set).
  std::set<std::string> boolean_parameters;
  std::optional<int64_t> read_version;
  std::optional<std::string> isolation_level;
  std::optional<bool> is_blind_append;
  std::map<std::string, std::string> operation_metrics;
  std::optional<std::string> user_metadata;
  std::optional<std::string> engine_info;
  std::optional<std::string> txn_id;
  Json raw = Json::Object();

  Json ToJson() const;
  static CommitInfo FromJson(const Json& j);
};

/// One action of a commit.
struct Action {
  enum class Kind : uint8_t {
    kProtocol,
    kMetadata,
    kAdd,
    kRemove,
    kTxn,
    kCommitInfo,
    kCdc,
    kDomainMetadata,
    kOther,  // a known-but-unused action (checkpointMetadata, sidecar): kept as raw
  };
  Kind kind = Kind::kOther;
  Protocol protocol;
  Metadata metadata;
  AddFile add;
  RemoveFile remove;
  SetTransaction txn;
  CommitInfo commit_info;
  Json raw;  // the action's body for kCdc/kDomainMetadata/kOther

  static Action Of(Protocol p);
  static Action Of(Metadata m);
  static Action Of(AddFile a);
  static Action Of(RemoveFile r);
  static Action Of(SetTransaction t);
  static Action Of(CommitInfo c);

  /// {"add":{...}} etc.
  Json ToJson() const;
  /// nullopt for unknown actions (ignored).
  static std::optional<Action> FromJson(const Json& line);
};

/// Serialises actions as newline-delimited JSON (a commit file's content).
std::string SerializeActions(const std::vector<Action>& actions);
/// Parses a commit file; `file` names it in errors.
Result<std::vector<Action>> ParseActions(std::string_view text, const std::string& file);

/// Spark's relative URI form of a file path ("day=a b/x" -> "day=a%20b/x").
std::string EncodePathUri(std::string_view path);
/// Decodes %XX escapes ("day=a%20b/x" -> "day=a b/x").
std::string DecodePathUri(std::string_view uri);

/// Partition values as a JSON object (null for nullopt).
Json PartitionValuesToJson(const PartitionValues& pv);
PartitionValues PartitionValuesFromJson(const Json& j);

}  // namespace spate::table
