// Copyright spate authors.
#pragma once

// Auto Loader: Databricks' `cloudFiles` streaming source, built on the file stream source
// (file_source.h: the same listing, source log and rate limits, so a restart neither
// loses nor duplicates files) with Databricks' schema handling on top:
//
//  - cloudFiles.format: json | csv | parquet (the file source's batch readers).
//  - The schema: the user's (.schema(...)); else the newest version stored under
//    cloudFiles.schemaLocation (`_schemas/<n>`: "v1" then {"dataSchemaJson": ...,
//    "partitionSchemaJson": ...}, Spark's StructType JSON); else inferred from the files
//    in the path when the stream is defined (load()) — its first 1000 files or 50 GB by
//    name, partition folders included — and stored as `_schemas/0`. Inference without a
//    schema location fails. JSON and CSV columns are STRING unless
//    cloudFiles.inferColumnTypes=true (JSON keeps its structs and arrays, with STRING
//    leaves: primitivesAsString); cloudFiles.schemaHints ("a INT, b.c STRING", DDL types,
//    dotted paths into structs; a hint for a missing column adds it) override the
//    inferred types, at inference and at each evolution.
//  - cloudFiles.schemaEvolutionMode (default addNewColumns without a user schema, none
//    with one): before a batch is read, addNewColumns and failOnNewColumns infer the
//    batch's files (JSON, Parquet: together, then one by one only when there are new
//    fields, to name the first file; CSV: one by one) and compare them with the schema
//    (names case-insensitive, struct fields too). New fields: addNewColumns stores the
//    evolved schema (new fields appended) as the next `_schemas/<n>` and fails the query
//    with UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_RECORD_WITH_FILE_PATH; a restart (load()
//    again) reads that version and runs the failed batch again with it. failOnNewColumns
//    fails the same way without storing anything. rescue never changes the schema; none
//    ignores new fields.
//  - The rescued data column (JSON and CSV: json_source.h, csv/parser.h, the readers'
//    rescuedDataColumn option; not Parquet): `_rescued_data`
//    by default without a user schema unless the mode is none, and in rescue mode;
//    cloudFiles.rescuedDataColumn (or rescuedDataColumn) names it (and adds it in any
//    mode).
//  - cloudFiles.maxFilesPerTrigger (default 1000, as Databricks),
//  cloudFiles.maxBytesPerTrigger
//    (a byte string: 10g, 512m, 1024), cloudFiles.includeExistingFiles (default true),
//    cloudFiles.maxFileAge (default: none — files are remembered for good, so a late file
//    with an old modification time is still taken; the file source's default is 7 days).
//  - Other options (header, multiLine, pathGlobFilter, ...) go to the format's reader.
//
// Ownership: the factory's closures share the FileSystem. Thread safety: a source runs on
// its query's thread; the schema location is written put-if-absent (two writers of one
// version agree on the first). Failure: option errors at load(); schema-location files
// that do not parse are data corruption naming the file.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/connectors/file_source.h"

namespace spate::connectors {

enum class SchemaEvolutionMode : uint8_t {
  kAddNewColumns,
  kRescue,
  kFailOnNewColumns,
  kNone
};

struct AutoLoaderOptions {
  std::string format;  // json | csv | parquet
  std::string path;
  std::string schema_location;  // "" when not set
  bool infer_column_types = false;
  std::string schema_hints;
  SchemaEvolutionMode mode = SchemaEvolutionMode::kAddNewColumns;
  std::string rescued_column;  // "" when there is none
  bool include_existing_files = true;
  bool user_schema = false;
  /// The initial inference samples the first files of the path (by name) up to this many
  /// files / bytes, whichever comes first (Databricks:
  /// spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles = 1000 / .numBytes =
  /// 50 GB; set by the api from those confs).
  int64_t sample_files = 1000;
  int64_t sample_bytes = 50ll << 30;
  /// The session time zone (the file listing's modifiedBefore / modifiedAfter).
  std::string time_zone = "UTC";
  /// The options of the file source and the format's reader: every option without the
  /// cloudFiles. prefix, maxFilesPerTrigger / maxBytesPerTrigger (in bytes), and
  /// rescuedDataColumn when there is a rescued column.
  std::map<std::string, std::string> reader_options;
};

/// Validates the options of readStream.format("cloudFiles") (unknown cloudFiles.* keys,
/// values, format) and fills the defaults.
Result<AutoLoaderOptions> ParseAutoLoaderOptions(
    const std::map<std::string, std::string>& options, std::string path,
    bool has_user_schema);

/// A byte string ("10g", "512m", "100k", "1024", "10gb") as bytes; errors name `what`.
Result<int64_t> ParseByteString(
    const std::string& text, const std::string& what = "cloudFiles.maxBytesPerTrigger");

/// The newest schema version under `location`/_schemas (nullopt when there is none).
Result<std::optional<std::pair<int64_t, SchemaPtr>>> ReadLatestSchemaVersion(
    io::FileSystem& fs, const std::string& location);
/// Stores `schema` as `location`/_schemas/<version> unless that version exists.
Status WriteSchemaVersion(io::FileSystem& fs, const std::string& location,
                          int64_t version, const Schema& schema);

/// `schema` with the hints' types ("a INT, b.c STRING").
Result<SchemaPtr> ApplySchemaHints(const Schema& schema, const std::string& hints);

/// `schema` with the fields of `seen` it lacks (names case-insensitive; inside structs
/// present in both, too) appended; `added` gets their dotted names.
SchemaPtr AddNewFields(const Schema& schema, const Schema& seen,
                       std::vector<std::string>* added);

/// Infers the schema of a list of files with the format's reader (nullptr: no records).
using FileSchemaInferrer =
    std::function<Result<SchemaPtr>(const std::vector<std::string>& paths)>;

struct AutoLoaderStream {
  SchemaPtr schema;  // what the stream's DataFrame has (the rescued column last)
  stream::SourceFactory factory;
};

/// Resolves the schema (user / schema location / inference from `options.path`, see the
/// file comment) and returns the source. `reader` reads a batch's files (the file
/// source's FileBatchReader), `infer` infers files (inferColumnTypes already applied).
Result<AutoLoaderStream> MakeAutoLoaderStream(io::FileSystemPtr fs,
                                              const AutoLoaderOptions& options,
                                              SchemaPtr user_schema,
                                              FileBatchReader reader,
                                              FileSchemaInferrer infer);

}  // namespace spate::connectors
