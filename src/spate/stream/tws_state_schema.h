// Copyright spate authors.
#pragma once

// The state schema files of a transformWithState operator, in Spark 4.2's formats, so
// that its state variables can be read as a table (state_data_source.h) and the files say
// what Spark's say:
//   state/<op>/_stateSchema/default/<batchId>_<uuid>  schema file v3: Java
//   writeUTF("v3"),
//       int32 count, then per column family (sorted by name): writeUTF(name), int16 key
//       schema id (0), the key schema's JSON as int32 chunk count + writeUTF chunks,
//       int16 value schema id (0), the value schema's JSON (chunked), the key encoder
//       spec's JSON (chunked), the user key schema's JSON (chunked; "{    }" when none);
//   state/<op>/_metadata/v2/<batchId>  "v2" line, then {"operatorInfo", "stateStoreInfo"
//       (storeName, numColsPrefixKey, numPartitions, stateSchemaFilePaths),
//       "operatorPropertiesJson"} (timeMode, outputMode, stateVariables).
// Both layouts were read from the files real Spark 4.2 wrote. A variable's column family
// is as Spark's: key = the grouping key (a MapState's: struct<key, userKey>), value = the
// variable's schema (with a TTL: struct<value, ttlExpirationMs>). Spark also lists the
// secondary indexes its RocksDB layout keeps ($ttl_*, $min_*, $count_*, $rowCounter_*,
// the timers' timestampToKey); spate keeps none of them, so its files list the variables
// and the timers' keyToTimestamp family only (docs/state.md).
//
// Thread safety: pure functions over a FileSystem. Failure: an unreadable file is
// CANNOT_LOAD_STATE_STORE.UNCATEGORIZED naming it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/io/file_system.h"
#include "spate/types/data_type.h"

namespace spate::stream {

/// Reads the big-endian fields Java's DataOutputStream writes, as Spark's schema files
/// hold them (a short read returns false and leaves the output partial).
class JavaDataReader {
 public:
  explicit JavaDataReader(std::string_view bytes) : b_(bytes) {}
  bool U16(uint32_t* v);
  bool I32(uint32_t* v);
  /// writeUTF: u16 length + bytes, appended to `out`.
  bool Utf(std::string* out);
  /// Spark's long strings: i32 chunk count, then each chunk a writeUTF (at most 1024
  /// chunks).
  bool Chunked(std::string* out);
  bool AtEnd() const { return at_ == b_.size(); }

 private:
  std::string_view b_;
  size_t at_ = 0;
};

/// One state variable as the processor declared it.
struct TwsVariable {
  enum class Type { kValue, kList, kMap, kTimer };
  std::string name;
  Type type = Type::kValue;
  SchemaPtr value;     // the variable's schema (kTimer: none)
  SchemaPtr user_key;  // MapState's key schema
  bool ttl = false;
};

/// Spark's stateVariableType: "ValueState", "ListState", "MapState", "TimerState".
const char* TwsVariableTypeName(TwsVariable::Type t);

/// One column family of a v3 schema file.
struct TwsColumnFamily {
  std::string name;
  SchemaPtr key, value;
  std::string encoder_json;
  SchemaPtr user_key;  // nullptr: none
  bool operator==(const TwsColumnFamily& o) const;
};

/// The column families of `vars` over grouping key `key` (timers: `time_mode`
/// "ProcessingTime" / "EventTime" adds the timers' family), sorted by name as Spark
/// writes them.
std::vector<TwsColumnFamily> TwsColumnFamilies(const SchemaPtr& key,
                                               const std::vector<TwsVariable>& vars,
                                               const std::string& time_mode);

std::string EncodeStateSchemaV3(const std::vector<TwsColumnFamily>& families);
Result<std::vector<TwsColumnFamily>> DecodeStateSchemaV3(std::string_view bytes,
                                                         const std::string& path);

/// Spark's operatorPropertiesJson: {"timeMode","outputMode","stateVariables":[...]} with
/// the variables (and the timers' "$procTimers_keyToTimestamp" /
/// "$eventTimers_keyToTimestamp" TimerState) in the iteration order of the Scala
/// mutable.HashMap Spark keeps them in. `time_mode`: "NoTime", "ProcessingTime",
/// "EventTime"; `output_mode`: "Append", "Update".
std::string TwsOperatorProperties(const std::string& time_mode,
                                  const std::string& output_mode,
                                  const std::vector<TwsVariable>& vars);

/// What a checkpoint records of a transformWithState operator.
struct TwsStateMetadata {
  int64_t batch_id = 0;  // the _metadata/v2 file read
  std::string operator_name;
  std::string properties_json;
  std::vector<TwsColumnFamily> families;
  /// From the properties: each variable's name, type and whether it has a TTL.
  std::vector<TwsVariable> variables;
};

/// Writes the operator's v2 metadata for `batch_id`, and a new v3 schema file when the
/// families differ from the newest one under _stateSchema/default (else that file is
/// named again).
Status WriteTwsStateMetadata(io::FileSystem& fs, const std::string& state_root,
                             int64_t operator_id, const std::string& operator_name,
                             int num_partitions, int64_t batch_id,
                             const std::vector<TwsColumnFamily>& families,
                             const std::string& properties_json);

/// The operator's newest v2 metadata at or before `batch_id` (the newest when nullopt)
/// with the schema file it names (looked up by its name under this checkpoint's
/// _stateSchema/default, so a moved checkpoint still reads); nullopt when there is none.
Result<std::optional<TwsStateMetadata>> ReadTwsStateMetadata(
    io::FileSystem& fs, const std::string& state_root, int64_t operator_id,
    std::optional<int64_t> batch_id);

}  // namespace spate::stream
