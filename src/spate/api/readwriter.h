// Copyright spate authors.
#pragma once

// DataFrameReader (spark.read) and DataFrameWriter (df.write), as in PySpark, for the
// file formats spate has (Parquet, JSON, CSV, text).
//
//   auto df = spark.read().parquet("/data/events");          // file or directory
//   df.write().mode("overwrite").option("compression", "zstd").parquet("/out");
//
// Reading a directory reads every data file below it (names starting with '_' or '.' are
// skipped) and turns `key=value` folders into partition columns. Writing runs the plan
// and streams each partition into its own part file
// (part-00000-<uuid>-c000.snappy.parquet, under col=value folders with partitionBy) under
// <path>/_temporary/<uuid>/, then moves the files into <path> and writes _SUCCESS, so
// readers never see a half-written file; a failed write removes what it wrote.
//
// Thread safety: builders are values used by one thread; the actions (load, parquet,
// save) may run concurrently. Errors throw the exceptions of exceptions.h.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spate/api/dataframe.h"

namespace spate::api {

class DataFrameReader {
 public:
  explicit DataFrameReader(std::shared_ptr<SessionState> session)
      : session_(std::move(session)) {}
  DataFrameReader& format(const std::string& source);
  DataFrameReader& option(const std::string& key, const std::string& value);
  DataFrameReader& options(const std::map<std::string, std::string>& opts);
  DataFrameReader& schema(const StructType& schema);
  /// A DDL string: "a INT, b STRING".
  DataFrameReader& schema(const std::string& ddl);
  /// format("kafka"): a batch read of a topic range (connectors/kafka.h lists the
  /// options; startingOffsets defaults to earliest, endingOffsets to latest).
  DataFrame load() const;
  DataFrame load(const std::string& path) const;
  DataFrame load(const std::vector<std::string>& paths) const;
  DataFrame parquet(const std::string& path) const;
  DataFrame parquet(const std::vector<std::string>& paths) const;
  /// JSON Lines files (multiLine=true: one JSON value per file); the schema is inferred
  /// from the data unless given. See formats/json_source.h for the options.
  DataFrame json(const std::string& path) const;
  DataFrame json(const std::vector<std::string>& paths) const;
  /// Text files: one STRING column `value`, one row per line (wholetext=true: per file).
  DataFrame text(const std::string& path) const;
  DataFrame text(const std::vector<std::string>& paths) const;
  /// CSV files (header, sep, quote, escape, inferSchema, mode, ...: see
  /// formats/csv_source.h and formats/csv/options.h); columns _c0, _c1, ... without
  /// header.
  DataFrame csv(const std::string& path) const;
  DataFrame csv(const std::vector<std::string>& paths) const;
  /// A table of the catalog (spark.read.table), as spark.table(name).
  DataFrame table(const std::string& name) const;

 private:
  std::shared_ptr<SessionState> session_;
  std::string format_ = "parquet";
  std::map<std::string, std::string> options_;
  SchemaPtr schema_;
};

class DataFrameWriter {
 public:
  explicit DataFrameWriter(DataFrame df) : df_(std::move(df)) {}
  /// "error" / "errorifexists" (default), "overwrite", "append", "ignore".
  DataFrameWriter& mode(const std::string& mode);
  DataFrameWriter& format(const std::string& source);
  /// Writes one `col=value` folder level per column (Hive layout, as Spark); the columns
  /// are left out of the files and come back from the folder names on read.
  DataFrameWriter& partitionBy(const std::vector<std::string>& cols);
  template <typename... Names>
  DataFrameWriter& partitionBy(const std::string& first, const Names&... rest) {
    return partitionBy(std::vector<std::string>{first, std::string(rest)...});
  }
  /// compression: none, uncompressed, snappy (default), gzip, zstd, lz4_raw. Also
  /// parquet.block.size (row group bytes) and spate.parquet.rowGroupRows.
  DataFrameWriter& option(const std::string& key, const std::string& value);
  DataFrameWriter& options(const std::map<std::string, std::string>& opts);
  /// format: parquet (default), json, csv, text (formats/text_writers.h lists their
  /// options: compression, dateFormat, timestampFormat, header, sep, quote, ...).
  void save(const std::string& path) const;
  /// format("kafka"): writes every row to Kafka (value, optional key, topic, partition,
  /// headers columns; the `topic` option; mode append or errorifexists) and returns when
  /// the broker acknowledged all of them. Other formats need a path.
  void save() const;
  void parquet(const std::string& path) const;
  void json(const std::string& path) const;
  void csv(const std::string& path) const;
  /// A single STRING column (besides partitionBy columns), one line per row.
  void text(const std::string& path) const;
  /// Writes the DataFrame as a Delta table of the catalog (`t`, `db.t`,
  /// `spark_catalog.db.t`): errorifexists/ignore on an existing table, append adds rows,
  /// overwrite replaces contents and schema (CREATE OR REPLACE TABLE AS SELECT). Option
  /// "path" makes the table external. Only format "delta" (the default here).
  void saveAsTable(const std::string& name) const;
  /// Appends (or with overwrite, replaces) rows of an existing table, by column position.
  void insertInto(const std::string& name, bool overwrite = false) const;

 private:
  DataFrame df_;
  std::string mode_ = "errorifexists";
  bool format_set_ = false;
  std::string format_ = "parquet";
  std::map<std::string, std::string> options_;
  std::vector<std::string> partition_by_;
};

}  // namespace spate::api
