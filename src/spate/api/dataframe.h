// Copyright spate authors.
#pragma once

// DataFrame, GroupedData, Row and StructType: the batch API, named as in PySpark.
//
// A DataFrame is an immutable handle on an unresolved logical plan plus its session. It
// is analyzed when created, so mistakes (unknown columns, type errors) throw
// AnalysisException at the call that introduced them, like Spark; actions (collect,
// count, show, ...) execute the plan on all cores. Thread safety: immutable; actions may
// run concurrently from several threads.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/api/column.h"
#include "spate/api/exceptions.h"
#include "spate/sql/bound_plan.h"
#include "spate/sql/logical_plan.h"
#include "spate/stream/group_state.h"
#include "spate/stream/stateful_processor.h"

namespace spate::api {

struct SessionState;
class DataFrameWriter;
class DataStreamWriter;

/// A schema builder (pyspark.sql.types.StructType).
class StructType {
 public:
  StructType() = default;
  explicit StructType(std::vector<Field> fields) : fields_(std::move(fields)) {}
  /// add("a", "int"), add("b", DataType::String(), false).
  StructType& add(const std::string& name, const std::string& ddl_type,
                  bool nullable = true);
  StructType& add(const std::string& name, const DataTypePtr& type, bool nullable = true);
  StructType& add(Field field);
  /// Parses a DDL string ("a INT, b STRING"); throws ParseException.
  static StructType fromDDL(const std::string& ddl);

  const std::vector<Field>& fields() const { return fields_; }
  std::vector<std::string> fieldNames() const;
  std::string simpleString() const;
  std::string treeString() const;
  SchemaPtr ToSchema() const { return std::make_shared<const Schema>(fields_); }
  bool operator==(const StructType& o) const;

 private:
  std::vector<Field> fields_;
};

/// One result row (pyspark.sql.Row): values by position or by field name.
class Row {
 public:
  Row() = default;
  // A list of values converts to a Row.
  // NOLINTNEXTLINE(google-explicit-constructor)
  Row(std::vector<Value> values, SchemaPtr schema = nullptr)
      : values_(std::move(values)), schema_(std::move(schema)) {}
  size_t size() const { return values_.size(); }
  const Value& operator[](size_t i) const { return values_.at(i); }
  /// Value of the field `name`; throws if there is no such field.
  const Value& operator[](const std::string& name) const;
  const std::vector<Value>& values() const { return values_; }
  bool isNullAt(size_t i) const { return values_.at(i).is_null(); }
  int64_t getLong(size_t i) const { return values_.at(i).i64(); }
  double getDouble(size_t i) const { return values_.at(i).f64(); }
  std::string getString(size_t i) const { return values_.at(i).ToString(); }
  /// "Row(k=1, v='a')" as PySpark prints it.
  std::string toString() const;
  bool operator==(const Row& o) const { return values_ == o.values_; }

 private:
  std::vector<Value> values_;
  SchemaPtr schema_;
};

class GroupedData;
class DataFrame;
class DataFrameStatFunctions;

class DataFrame {
 public:
  DataFrame(std::shared_ptr<SessionState> session, const sql::PlanPtr& plan);

  // -- transformations --
  DataFrame select(const std::vector<Column>& cols) const;
  DataFrame select(const std::vector<std::string>& cols) const;
  template <typename... T>
  DataFrame select(const T&... cols) const {
    return select(std::vector<Column>{ToColumn(cols)...});
  }
  DataFrame selectExpr(const std::vector<std::string>& exprs) const;
  template <typename... T>
  DataFrame selectExpr(const T&... exprs) const {
    return selectExpr(std::vector<std::string>{std::string(exprs)...});
  }
  DataFrame filter(const Column& condition) const;
  DataFrame filter(const std::string& condition) const;
  DataFrame where(const Column& condition) const { return filter(condition); }
  DataFrame where(const std::string& condition) const { return filter(condition); }
  DataFrame withColumn(const std::string& name, const Column& col) const;
  DataFrame withColumns(const std::vector<std::pair<std::string, Column>>& cols) const;
  DataFrame withColumnRenamed(const std::string& existing, const std::string& name) const;
  /// Renames several columns at once ({existing, new} pairs; unknown names are ignored).
  DataFrame withColumnsRenamed(
      const std::vector<std::pair<std::string, std::string>>& renames) const;
  DataFrame drop(const std::vector<std::string>& cols) const;
  DataFrame drop(const std::string& col) const {
    return drop(std::vector<std::string>{col});
  }
  DataFrame alias(const std::string& alias) const;
  GroupedData groupBy(const std::vector<Column>& cols) const;
  GroupedData groupBy(const std::vector<std::string>& cols) const;
  template <typename... T>
  GroupedData groupBy(const T&... cols) const;
  DataFrame agg(const std::vector<Column>& exprs) const;
  /// Multi-dimensional aggregates (GROUP BY CUBE / ROLLUP / GROUPING SETS): one group per
  /// grouping set, the keys outside the set NULL; grouping(c) / grouping_id() in agg()
  /// tell which. cube: every subset of `cols`; rollup: the prefixes of `cols`.
  GroupedData cube(const std::vector<Column>& cols) const;
  GroupedData cube(const std::vector<std::string>& cols) const;
  GroupedData rollup(const std::vector<Column>& cols) const;
  GroupedData rollup(const std::vector<std::string>& cols) const;
  /// groupingSets(sets, cols): `cols` are the keys, each set a list of some of them.
  GroupedData groupingSets(const std::vector<std::vector<Column>>& sets,
                           const std::vector<Column>& cols) const;
  /// join(other, on, how): on = column names (USING), a Column condition, or nothing
  /// (cross product when how is "inner"/"cross"); how as PySpark's strings.
  DataFrame join(const DataFrame& other, const std::vector<std::string>& on,
                 const std::string& how = "inner") const;
  DataFrame join(const DataFrame& other, const std::string& on,
                 const std::string& how = "inner") const {
    return join(other, std::vector<std::string>{on}, how);
  }
  DataFrame join(const DataFrame& other, const Column& on,
                 const std::string& how = "inner") const;
  DataFrame join(const DataFrame& other) const;
  DataFrame crossJoin(const DataFrame& other) const;
  DataFrame orderBy(const std::vector<Column>& cols) const;
  DataFrame orderBy(const std::vector<std::string>& cols) const;
  template <typename... T>
  DataFrame orderBy(const T&... cols) const {
    return orderBy(std::vector<Column>{ToColumn(cols)...});
  }
  DataFrame sort(const std::vector<Column>& cols) const { return orderBy(cols); }
  template <typename... T>
  DataFrame sort(const T&... cols) const {
    return orderBy(std::vector<Column>{ToColumn(cols)...});
  }
  DataFrame limit(int64_t n) const;
  DataFrame offset(int64_t n) const;
  DataFrame union_(const DataFrame& other) const;  // `union` is a C++ keyword
  DataFrame unionAll(const DataFrame& other) const { return union_(other); }
  DataFrame unionByName(const DataFrame& other, bool allowMissingColumns = false) const;
  DataFrame intersect(const DataFrame& other) const;
  DataFrame intersectAll(const DataFrame& other) const;
  DataFrame subtract(const DataFrame& other) const;
  DataFrame exceptAll(const DataFrame& other) const;
  DataFrame distinct() const;
  DataFrame dropDuplicates(const std::vector<std::string>& subset = {}) const;
  /// Streaming: drops a row whose key was seen while the key's event time is within the
  /// watermark (Spark 3.5's dropDuplicatesWithinWatermark); batch: dropDuplicates.
  DataFrame dropDuplicatesWithinWatermark(
      const std::vector<std::string>& subset = {}) const;
  /// Event-time watermark on `eventTime` (a timestamp column) with `delayThreshold` (an
  /// interval string such as "10 minutes"): streaming stateful operators drop rows older
  /// than the watermark and evict state past it. Does nothing in a batch query.
  DataFrame withWatermark(const std::string& eventTime,
                          const std::string& delayThreshold) const;
  DataFrame drop_duplicates(const std::vector<std::string>& subset = {}) const {
    return dropDuplicates(subset);
  }
  /// A Bernoulli sample: each row kept with probability `fraction` (without replacement),
  /// or repeated a Poisson(`fraction`) number of times (with replacement). The draw of a
  /// row is a hash of `seed` and the row's monotonically_increasing_id(), so a seed gives
  /// the same rows on the same input (not the rows Spark's XORShiftRandom picks); no
  /// seed: a random one.
  DataFrame sample(double fraction) const {
    return Sample(false, fraction, std::nullopt);
  }
  DataFrame sample(double fraction, int64_t seed) const {
    return Sample(false, fraction, seed);
  }
  DataFrame sample(bool withReplacement, double fraction) const {
    return Sample(withReplacement, fraction, std::nullopt);
  }
  DataFrame sample(bool withReplacement, double fraction, int64_t seed) const {
    return Sample(withReplacement, fraction, seed);
  }
  /// Splits the rows by `weights` (normalized to sum 1): disjoint DataFrames covering all
  /// rows, each row's share drawn as in sample().
  std::vector<DataFrame> randomSplit(const std::vector<double>& weights,
                                     std::optional<int64_t> seed = std::nullopt) const;
  /// df.replace / df.na.replace: values equal to a key become its value, in the columns
  /// of the keys' kind (numeric keys: numeric columns, strings: string columns, booleans:
  /// boolean columns), restricted to `subset` when given. Keys must all be of one kind;
  /// a value may be NULL. The replacement is cast to the column's type.
  DataFrame replace(const std::vector<std::pair<Value, Value>>& replacements,
                    const std::vector<std::string>& subset = {}) const;
  /// One JSON string per row, in a column `value` (Spark Connect's toJSON: spate has no
  /// RDDs).
  DataFrame toJSON() const;
  /// This DataFrame as a scalar subquery (its one column, at most one row; NULL without
  /// rows) or an EXISTS subquery, for use in another DataFrame's expressions.
  /// Uncorrelated: the DataFrame is analyzed on its own (spate has no Column.outer()).
  Column scalar() const;
  Column exists() const;
  /// df.stat (DataFrameStatFunctions).
  DataFrameStatFunctions stat() const;
  /// A hint on this DataFrame (Dataset.hint): the join strategies "broadcast" /
  /// "broadcastjoin" / "mapjoin", "shuffle_merge" / "mergejoin" / "merge",
  /// "shuffle_hash", "shuffle_replicate_nl" (names case-insensitive). Without
  /// parameters the whole DataFrame is hinted; parameters (string literals: lit("t"))
  /// name the relations inside it to hint. Another name is ignored with Spark's warning
  /// ("Unrecognized hint", sql/hints.h). A join then honours a hint on its side (a
  /// broadcast hash join that builds that side) where the join type allows it.
  DataFrame hint(const std::string& name,
                 const std::vector<Column>& parameters = {}) const;
  DataFrame coalesce(int num_partitions) const;
  DataFrame repartition(int num_partitions) const;
  DataFrame repartition(int num_partitions, const std::vector<Column>& cols) const;
  DataFrame repartition(const std::vector<Column>& cols) const {
    return repartition(0, cols);
  }

  // -- actions --
  std::vector<Row> collect() const;
  int64_t count() const;
  /// First row; throws if the DataFrame is empty... PySpark returns None: here nullopt.
  std::optional<Row> first() const;
  std::optional<Row> head() const { return first(); }
  std::vector<Row> head(int64_t n) const { return take(n); }
  std::vector<Row> take(int64_t n) const;
  std::vector<Row> tail(int64_t n) const;
  bool isEmpty() const;
  /// Prints Spark's show() grid to stdout (truncate: 0 = off, k = cut at k chars).
  void show(int n = 20, int truncate = 20, bool vertical = false) const;
  void show(int n, bool truncate, bool vertical = false) const {
    show(n, truncate ? 20 : 0, vertical);
  }
  /// The text show() prints (without the extra newline println adds).
  std::string showString(int n = 20, int truncate = 20, bool vertical = false) const;
  void printSchema() const;
  /// All result batches, for bulk consumers (Arrow export, CLI).
  std::vector<BatchPtr> collectBatches() const;
  /// df.write: a DataFrameWriter (readwriter.h).
  DataFrameWriter write() const;
  /// df.writeStream: a DataStreamWriter (streaming.h); only on streaming DataFrames.
  DataStreamWriter writeStream() const;

  // -- metadata --
  StructType schema() const;
  std::vector<std::string> columns() const;
  std::vector<std::pair<std::string, std::string>> dtypes() const;
  /// True when the plan reads a stream (spark.readStream); batch actions on it are
  /// refused as in Spark.
  bool isStreaming() const;
  /// df["name"]: a column bound to this DataFrame (disambiguates self-joins).
  Column operator[](const std::string& name) const;
  Column col(const std::string& name) const { return (*this)[name]; }
  /// Spark's colRegex: "`regex`" selects, where a select list expands it, every column
  /// whose whole name matches the Java regex (case-insensitively unless
  /// spark.sql.caseSensitive); "t.`regex`" only those of the relation aliased t. A name
  /// without backticks is col(colName). Used elsewhere than a select list it is
  /// INVALID_USAGE_OF_STAR_OR_REGEX when the query is analyzed.
  Column colRegex(const std::string& colName) const;
  void createOrReplaceTempView(const std::string& name) const;
  void createTempView(const std::string& name) const;
  void createGlobalTempView(const std::string& name) const;
  void createOrReplaceGlobalTempView(const std::string& name) const;
  /// Prints the plan: mode "simple" (physical), "extended" (all stages), "formatted".
  void explain(bool extended = false) const;
  void explain(const std::string& mode) const;
  std::string explainString(const std::string& mode = "simple") const;

  const sql::PlanPtr& plan() const { return plan_; }
  const sql::BoundPlanPtr& analyzed() const { return bound_; }
  const std::shared_ptr<SessionState>& session() const { return session_; }

 private:
  static Column ToColumn(const Column& c) { return c; }
  static Column ToColumn(const std::string& s) { return functions::col(s); }
  static Column ToColumn(const char* s) { return functions::col(s); }
  DataFrame With(const sql::PlanPtr& plan) const { return DataFrame(session_, plan); }
  DataFrame Sample(bool withReplacement, double fraction,
                   std::optional<int64_t> seed) const;
  DataFrame SetOp(const DataFrame& other, sql::SetOpKind kind, bool all,
                  bool by_name = false, bool allow_missing = false) const;

  std::shared_ptr<SessionState> session_;
  sql::PlanPtr plan_;
  sql::BoundPlanPtr bound_;
  int64_t id_;
};

/// The result of groupBy (pyspark.sql.GroupedData).
class GroupedData {
 public:
  GroupedData(DataFrame df, std::vector<Column> keys)
      : df_(std::move(df)), keys_(std::move(keys)) {}
  /// Grouping sets (cube, rollup, groupingSets): each set the indexes of its keys in
  /// `keys`, of which the first `num_output_keys` are output columns (the others only
  /// grouped by).
  GroupedData(DataFrame df, std::vector<Column> keys,
              std::vector<std::vector<size_t>> sets, size_t num_output_keys = SIZE_MAX)
      : df_(std::move(df)),
        keys_(std::move(keys)),
        sets_(std::move(sets)),
        has_sets_(true),
        num_output_keys_(num_output_keys) {}
  DataFrame agg(const std::vector<Column>& exprs) const;
  template <typename... T>
  DataFrame agg(const Column& first, const T&... rest) const {
    return agg(std::vector<Column>{first, rest...});
  }
  DataFrame count() const;
  DataFrame sum(const std::vector<std::string>& cols = {}) const;
  DataFrame avg(const std::vector<std::string>& cols = {}) const;
  DataFrame mean(const std::vector<std::string>& cols = {}) const { return avg(cols); }
  DataFrame min(const std::vector<std::string>& cols = {}) const;
  DataFrame max(const std::vector<std::string>& cols = {}) const;
  /// transformWithState (Spark 4): per grouping key a stream::StatefulProcessor made by
  /// `factory` (one per partition and batch; see spate/stream/stateful_processor.h) turns
  /// the key's new rows, its state and its timers into rows of `output_schema`.
  /// `output_mode`: "append" or "update"; `time_mode`: "None", "ProcessingTime" or
  /// "EventTime". `operator_name`: its name in progress (the GroupState APIs built on it
  /// pass "flatMapGroupsWithState").
  DataFrame transformWithState(
      stream::StatefulProcessorFactory factory, const StructType& output_schema,
      const std::string& output_mode, const std::string& time_mode = "None",
      const std::string& operator_name = "transformWithStateExec") const;
  /// flatMapGroupsWithState / applyInPandasWithState: per grouping key `fn` gets the
  /// key's new rows and its GroupState (a value of `state_schema`, a timeout per
  /// `timeout`: "NoTimeout", "ProcessingTimeTimeout", "EventTimeTimeout"; see
  /// spate/stream/group_state.h) and returns rows of `output_schema`.
  DataFrame flatMapGroupsWithState(stream::GroupStateFunction fn,
                                   const StructType& output_schema,
                                   const StructType& state_schema,
                                   const std::string& output_mode,
                                   const std::string& timeout = "NoTimeout") const;
  /// With an initial state: a batch DataFrame grouped by keys of the input's key types.
  /// In the query's first batch a key's row of `initial_state` is its state (its columns
  /// named as `state_schema`'s fields); a key found only there is called with no rows
  /// unless spark.sql.streaming.flatMapGroupsWithState.skipEmittingInitialStateKeys is
  /// true.
  DataFrame flatMapGroupsWithState(stream::GroupStateFunction fn,
                                   const StructType& output_schema,
                                   const StructType& state_schema,
                                   const std::string& output_mode,
                                   const std::string& timeout,
                                   const GroupedData& initial_state) const;
  /// mapGroupsWithState: `fn` returns exactly one row per call; a streaming query must
  /// use Update output mode and no aggregation (Spark's rules).
  using MapGroupsFunction = std::function<stream::ProcessorRow(
      const stream::ProcessorRow& key, const std::vector<stream::ProcessorRow>& rows,
      stream::GroupState& state)>;
  DataFrame mapGroupsWithState(MapGroupsFunction fn, const StructType& output_schema,
                               const StructType& state_schema,
                               const std::string& timeout = "NoTimeout") const;
  DataFrame mapGroupsWithState(MapGroupsFunction fn, const StructType& output_schema,
                               const StructType& state_schema, const std::string& timeout,
                               const GroupedData& initial_state) const;
  /// transformWithState with an initial state (a batch DataFrame grouped by keys of the
  /// input's key types): in the query's first batch the processor's handleInitialState
  /// runs once per row of it (the whole row), before any input.
  DataFrame transformWithState(stream::StatefulProcessorFactory factory,
                               const StructType& output_schema,
                               const std::string& output_mode,
                               const std::string& time_mode,
                               const GroupedData& initial_state) const;

 private:
  DataFrame Numeric(const std::string& fn, const std::vector<std::string>& cols) const;
  DataFrame TransformWithState(stream::StatefulProcessorFactory factory,
                               const StructType& output_schema,
                               const std::string& output_mode,
                               const std::string& time_mode,
                               const std::string& operator_name,
                               const GroupedData* initial_state) const;
  DataFrame WithGroupState(stream::GroupStateFunction fn, const StructType& output_schema,
                           const StructType& state_schema, const std::string& output_mode,
                           const std::string& timeout, const GroupedData* initial_state,
                           bool map_groups) const;
  // The initial state's rows for the node: the grouping keys (checked against the input's
  // key types), then `columns` (all of them when empty) cast to `types` where given.
  std::shared_ptr<const stream::InitialState> InitialStateOf(
      const GroupedData& initial, const std::vector<std::string>& columns,
      const std::vector<DataTypePtr>& types, bool group_state) const;
  // agg() over grouping sets: the union of one aggregate per set.
  DataFrame AggGroupingSets(const std::vector<Column>& exprs) const;
  DataFrame df_;
  std::vector<Column> keys_;
  std::vector<std::vector<size_t>> sets_;
  bool has_sets_ = false;
  size_t num_output_keys_ = SIZE_MAX;
};

/// df.stat (pyspark.sql.DataFrameStatFunctions).
class DataFrameStatFunctions {
 public:
  explicit DataFrameStatFunctions(DataFrame df) : df_(std::move(df)) {}
  /// Pearson correlation of two numeric columns (NaN when undefined); method "pearson"
  /// only.
  double corr(const std::string& col1, const std::string& col2,
              const std::string& method = "pearson") const;
  /// Sample covariance of two numeric columns.
  double cov(const std::string& col1, const std::string& col2) const;
  /// Contingency table: column `col1_col2` (the values of col1 as strings), then one
  /// bigint column per distinct value of col2 (sorted), the pair counts.
  DataFrame crosstab(const std::string& col1, const std::string& col2) const;
  /// Quantiles of numeric columns (NULLs ignored; an empty column gives no values) with
  /// relative error `relativeError` (0: exact).
  std::vector<std::vector<double>> approxQuantile(
      const std::vector<std::string>& cols, const std::vector<double>& probabilities,
      double relativeError) const;
  /// One row: per column `<col>_freqItems`, the values (NULL included) found in more than
  /// `support` of the rows. Exact, where Spark's one-pass algorithm may add less frequent
  /// values (docs/spark-differences.md D21).
  DataFrame freqItems(const std::vector<std::string>& cols, double support = 0.01) const;
  /// A stratified sample: the rows whose `col` equals a key of `fractions`, each kept
  /// with that key's fraction (drawn as DataFrame::sample); rows of other values are
  /// dropped.
  DataFrame sampleBy(const Column& col,
                     const std::vector<std::pair<Value, double>>& fractions,
                     int64_t seed) const;
  DataFrame sampleBy(const std::string& col,
                     const std::vector<std::pair<Value, double>>& fractions,
                     int64_t seed) const {
    return sampleBy(functions::col(col), fractions, seed);
  }

 private:
  DataFrame df_;
};

template <typename... T>
GroupedData DataFrame::groupBy(const T&... cols) const {
  return groupBy(std::vector<Column>{ToColumn(cols)...});
}

namespace functions {
/// Marks `df` to be broadcast in joins (functions.broadcast: df.hint("broadcast")).
DataFrame broadcast(const DataFrame& df);
}  // namespace functions

}  // namespace spate::api
