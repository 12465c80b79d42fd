// Copyright spate authors.
#pragma once

// SparkSession: the entry point of the C++ API, named and shaped as PySpark's.
//
//   auto spark = spate::api::SparkSession::builder().appName("demo").getOrCreate();
//   auto df = spark.range(10).selectExpr("id % 3 AS k", "id AS v")
//                  .groupBy("k").agg({F::sum("v").alias("total")});
//   df.show();
//
// Ownership: SparkSession is a cheap handle sharing one session state (conf, catalog,
// memory accounting); copies refer to the same session. DataFrames keep their session
// alive. Thread safety: a session may be used from several threads; conf and catalog are
// internally locked. Errors are thrown as the exceptions of exceptions.h.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/api/dataframe.h"

namespace spate::api {

/// Shared state of one session.
struct SessionState;
class DataFrameReader;
class DataStreamReader;
class StreamingQueryManager;

/// spark.conf (pyspark.sql.conf.RuntimeConfig).
class RuntimeConfig {
 public:
  explicit RuntimeConfig(std::shared_ptr<SessionState> state)
      : state_(std::move(state)) {}
  void set(const std::string& key, const std::string& value);
  void set(const std::string& key, const char* value) { set(key, std::string(value)); }
  void set(const std::string& key, bool value) {
    set(key, std::string(value ? "true" : "false"));
  }
  void set(const std::string& key, int64_t value) { set(key, std::to_string(value)); }
  /// Throws SQL_CONF_NOT_FOUND for unknown unset keys.
  std::string get(const std::string& key) const;
  std::string get(const std::string& key, const std::string& default_value) const;
  void unset(const std::string& key);
  bool isModifiable(const std::string& key) const;

 private:
  std::shared_ptr<SessionState> state_;
};

class SparkSession {
 public:
  class Builder {
   public:
    Builder& appName(const std::string& name);
    Builder& master(const std::string& master);
    Builder& config(const std::string& key, const std::string& value);
    Builder& config(const std::string& key, const char* value) {
      return config(key, std::string(value));
    }
    Builder& config(const std::string& key, bool value);
    Builder& config(const std::string& key, int64_t value);
    /// The active session (created on first use) with this builder's settings applied.
    SparkSession getOrCreate();

   private:
    std::map<std::string, std::string> options_;
  };

  static Builder builder();
  /// A new session with its own conf and temp views (SparkSession.newSession()).
  SparkSession newSession() const;

  RuntimeConfig conf() const { return RuntimeConfig(state_); }
  /// Runs a SQL statement: queries return their result lazily; commands (SET, CREATE
  /// VIEW, DESCRIBE, EXPLAIN, SHOW ...) run now and return their output rows.
  DataFrame sql(const std::string& query) const;
  DataFrame range(int64_t end) const;
  DataFrame range(int64_t start, int64_t end, int64_t step = 1,
                  int num_partitions = 0) const;
  /// Rows of values matching `schema` (DDL string "a INT, b STRING" or StructType).
  DataFrame createDataFrame(const std::vector<std::vector<Value>>& rows,
                            const StructType& schema) const;
  DataFrame createDataFrame(const std::vector<std::vector<Value>>& rows,
                            const std::string& ddl) const;
  DataFrame createDataFrame(const std::vector<Row>& rows, const StructType& schema) const;
  /// Rows with column names; types are inferred from the values.
  DataFrame createDataFrame(const std::vector<std::vector<Value>>& rows,
                            const std::vector<std::string>& names) const;
  DataFrame table(const std::string& name) const;
  /// spark.read: a DataFrameReader for files (readwriter.h).
  DataFrameReader read() const;
  /// spark.readStream: a DataStreamReader (streaming.h).
  DataStreamReader readStream() const;
  /// spark.streams: the session's active streaming queries and listeners (streaming.h).
  StreamingQueryManager streams() const;
  const std::string& version() const;
  /// The monitoring server's address ("http://127.0.0.1:4040") while it runs
  /// (SparkContext.uiWebUrl): started by getOrCreate() when spark.ui.enabled=true
  /// (docs/observability.md); nullopt otherwise.
  std::optional<std::string> uiWebUrl() const;
  /// Stops the session's active streaming queries and the monitoring server.
  void stop() const;

  const std::shared_ptr<SessionState>& state() const { return state_; }
  explicit SparkSession(std::shared_ptr<SessionState> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<SessionState> state_;
};

}  // namespace spate::api
