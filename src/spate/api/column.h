// Copyright spate authors.
#pragma once

// Column: an expression over a DataFrame's columns, built with operators and methods
// named as in PySpark (alias, cast, isNull, isin, between, like, getField, withField,
// asc/desc, over, ...). A Column is an immutable value wrapping an unresolved expression;
// it is resolved when a DataFrame uses it. Thread safety: immutable; safe to share.

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "spate/compute/expr.h"

namespace spate::api {

class WindowSpec;

/// Types that become literals when mixed with Columns (PySpark's automatic lit()).
template <typename T>
concept LiteralType = std::is_arithmetic_v<std::remove_cvref_t<T>> ||
    std::is_convertible_v<T, std::string_view>;

Value ToValue(bool v);
Value ToValue(int v);
Value ToValue(int64_t v);
Value ToValue(long long v);
Value ToValue(double v);
Value ToValue(float v);
Value ToValue(std::string_view v);
inline Value ToValue(const char* v) { return ToValue(std::string_view(v)); }
inline Value ToValue(const std::string& v) { return ToValue(std::string_view(v)); }

class Column {
 public:
  explicit Column(ExprPtr expr) : expr_(std::move(expr)) {}
  const ExprPtr& expr() const { return expr_; }

  Column alias(const std::string& name) const;
  Column name(const std::string& n) const { return alias(n); }
  Column as(const std::string& n) const { return alias(n); }
  /// cast(DataType) or cast("int"), cast("decimal(10,2)").
  Column cast(const DataTypePtr& type) const;
  Column cast(std::string_view type) const;
  Column astype(std::string_view type) const { return cast(type); }
  Column try_cast(std::string_view type) const;

  Column isNull() const;
  Column isNotNull() const;
  Column isin(const std::vector<Column>& values) const;
  template <LiteralType... T>
  Column isin(T... values) const {
    return isin(std::vector<Column>{Column::Lit(ToValue(values))...});
  }
  Column between(const Column& lower, const Column& upper) const;
  template <LiteralType A, LiteralType B>
  Column between(A lower, B upper) const {
    return between(Lit(ToValue(lower)), Lit(ToValue(upper)));
  }
  Column like(std::string_view pattern) const;
  Column ilike(std::string_view pattern) const;
  Column rlike(std::string_view pattern) const;
  Column eqNullSafe(const Column& other) const;
  Column getField(const std::string& name) const;
  Column getItem(const Column& key) const;
  template <LiteralType T>
  Column getItem(T key) const {
    return getItem(Lit(ToValue(key)));
  }
  Column operator[](const std::string& field) const { return getField(field); }
  /// This struct with field `fieldName` set to `col` (Spark's Column.withField): every
  /// field of that name (case-insensitively unless spark.sql.caseSensitive) is replaced,
  /// or the field is appended when there is none. A dotted path ("a.b.c", backticks
  /// quote a name with dots) sets a field of nested structs, which must exist. NULL
  /// where the struct is NULL. Errors when the query is analyzed, as Spark:
  /// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE (not a struct), FIELD_NOT_FOUND (a missing
  /// struct on the path); an invalid path throws ParseException here.
  Column withField(const std::string& fieldName, const Column& col) const;
  /// This struct without the fields `fieldNames` (Spark's Column.dropFields); paths as in
  /// withField; a missing last field is no change. Dropping every field is
  /// DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS; no name at all throws here.
  Column dropFields(const std::vector<std::string>& fieldNames) const;
  template <std::convertible_to<std::string>... S>
  Column dropFields(const S&... fieldNames) const {
    return dropFields(std::vector<std::string>{std::string(fieldNames)...});
  }

  Column asc() const;
  Column asc_nulls_first() const;
  Column asc_nulls_last() const;
  Column desc() const;
  Column desc_nulls_first() const;
  Column desc_nulls_last() const;

  /// A window function evaluated over `window`.
  Column over(const WindowSpec& window) const;
  /// CASE WHEN chains: F::when(c, v).when(c2, v2).otherwise(v3).
  Column when(const Column& condition, const Column& value) const;
  template <LiteralType T>
  Column when(const Column& condition, T value) const {
    return when(condition, Lit(ToValue(value)));
  }
  Column otherwise(const Column& value) const;
  template <LiteralType T>
  Column otherwise(T value) const {
    return otherwise(Lit(ToValue(value)));
  }

  Column bitwiseAND(const Column& o) const;
  Column bitwiseOR(const Column& o) const;
  Column bitwiseXOR(const Column& o) const;

  /// "Column<'(a + 1)'>" as PySpark prints a Column.
  std::string toString() const;

  static Column Lit(Value v) { return Column(Expr::Lit(std::move(v))); }

 private:
  ExprPtr expr_;
};

Column operator+(const Column& a, const Column& b);
Column operator-(const Column& a, const Column& b);
Column operator*(const Column& a, const Column& b);
Column operator/(const Column& a, const Column& b);
Column operator%(const Column& a, const Column& b);
Column operator==(const Column& a, const Column& b);
Column operator!=(const Column& a, const Column& b);
Column operator<(const Column& a, const Column& b);
Column operator<=(const Column& a, const Column& b);
Column operator>(const Column& a, const Column& b);
Column operator>=(const Column& a, const Column& b);
Column operator&&(const Column& a, const Column& b);
Column operator||(const Column& a, const Column& b);
Column operator&(const Column& a, const Column& b);  // PySpark's & is logical AND
Column operator|(const Column& a, const Column& b);  // PySpark's | is logical OR
Column operator!(const Column& a);
Column operator~(const Column& a);  // PySpark's ~ is NOT
Column operator-(const Column& a);

#define SPATE_COLUMN_LITERAL_OPS(op)         \
  template <LiteralType T>                   \
  Column operator op(const Column& a, T b) { \
    return a op Column::Lit(ToValue(b));     \
  }                                          \
  template <LiteralType T>                   \
  Column operator op(T a, const Column& b) { \
    return Column::Lit(ToValue(a)) op b;     \
  }
SPATE_COLUMN_LITERAL_OPS(+)
SPATE_COLUMN_LITERAL_OPS(-)
SPATE_COLUMN_LITERAL_OPS(*)
SPATE_COLUMN_LITERAL_OPS(/)
SPATE_COLUMN_LITERAL_OPS(%)
SPATE_COLUMN_LITERAL_OPS(==)
SPATE_COLUMN_LITERAL_OPS(!=)
SPATE_COLUMN_LITERAL_OPS(<)
SPATE_COLUMN_LITERAL_OPS(<=)
SPATE_COLUMN_LITERAL_OPS(>)
SPATE_COLUMN_LITERAL_OPS(>=)
SPATE_COLUMN_LITERAL_OPS(&&)
SPATE_COLUMN_LITERAL_OPS(||)
#undef SPATE_COLUMN_LITERAL_OPS

/// A window specification (pyspark.sql.WindowSpec); immutable, methods return new specs.
class WindowSpec {
 public:
  WindowSpec() = default;
  WindowSpec partitionBy(const std::vector<Column>& cols) const;
  WindowSpec partitionBy(const std::vector<std::string>& cols) const;
  WindowSpec orderBy(const std::vector<Column>& cols) const;
  WindowSpec orderBy(const std::vector<std::string>& cols) const;
  /// Offsets relative to the current row; Window::unboundedPreceding/unboundedFollowing
  /// and Window::currentRow as in PySpark.
  WindowSpec rowsBetween(int64_t start, int64_t end) const;
  WindowSpec rangeBetween(int64_t start, int64_t end) const;
  const WindowDef& definition() const { return def_; }

 private:
  WindowDef def_;
};

/// Entry points for window specs (pyspark.sql.Window).
struct Window {
  static constexpr int64_t unboundedPreceding = std::numeric_limits<int64_t>::min();
  static constexpr int64_t unboundedFollowing = std::numeric_limits<int64_t>::max();
  static constexpr int64_t currentRow = 0;
  static WindowSpec partitionBy(const std::vector<Column>& cols) {
    return WindowSpec().partitionBy(cols);
  }
  static WindowSpec partitionBy(const std::vector<std::string>& cols) {
    return WindowSpec().partitionBy(cols);
  }
  static WindowSpec orderBy(const std::vector<Column>& cols) {
    return WindowSpec().orderBy(cols);
  }
  static WindowSpec orderBy(const std::vector<std::string>& cols) {
    return WindowSpec().orderBy(cols);
  }
  static WindowSpec rowsBetween(int64_t s, int64_t e) {
    return WindowSpec().rowsBetween(s, e);
  }
  static WindowSpec rangeBetween(int64_t s, int64_t e) {
    return WindowSpec().rangeBetween(s, e);
  }
};

/// pyspark.sql.functions: `namespace F = spate::functions;` then F::col("a"),
/// F::sum(...).
namespace functions {
Column col(const std::string& name);
Column column(const std::string& name);
Column lit(Value v);
template <LiteralType T>
Column lit(T v) {
  return Column::Lit(ToValue(v));
}
/// Parses a SQL expression string (functions.expr); throws ParseException.
Column expr(const std::string& sql);
/// A call of any registered SQL function by name (functions.call_function).
Column call_function(const std::string& name, const std::vector<Column>& args);
/// A call of a user-defined function registered by name (functions.call_udf); Spark's
/// call_udf resolves built-ins by that name too, so it is call_function.
Column call_udf(const std::string& name, const std::vector<Column>& args);
/// `args` plus, when `options` is not empty, the options argument of from_json /
/// from_csv / to_json / to_csv: map('key1', 'value1', ...).
std::vector<Column> WithOptionsArgument(
    std::vector<Column> args, const std::map<std::string, std::string>& options);

Column count(const Column& c);
Column count(const std::string& name);  // "*" counts rows
Column countDistinct(const std::vector<Column>& cols);
Column count_distinct(const std::vector<Column>& cols);
Column sum(const Column& c);
Column sum(const std::string& name);
Column sum_distinct(const Column& c);
Column avg(const Column& c);
Column avg(const std::string& name);
Column mean(const Column& c);
Column mean(const std::string& name);
Column min(const Column& c);
Column min(const std::string& name);
Column max(const Column& c);
Column max(const std::string& name);
Column first(const Column& c, bool ignorenulls = false);
Column last(const Column& c, bool ignorenulls = false);
Column any_value(const Column& c, bool ignorenulls = false);

Column when(const Column& condition, const Column& value);
template <LiteralType T>
Column when(const Column& condition, T value) {
  return when(condition, Column::Lit(ToValue(value)));
}
Column coalesce(const std::vector<Column>& cols);
Column isnull(const Column& c);
Column isnotnull(const Column& c);
Column negate(const Column& c);
Column asc(const std::string& name);
Column desc(const std::string& name);
Column asc_nulls_first(const std::string& name);
Column asc_nulls_last(const std::string& name);
Column desc_nulls_first(const std::string& name);
Column desc_nulls_last(const std::string& name);

Column row_number();
Column rank();
Column dense_rank();
Column percent_rank();
Column cume_dist();
Column ntile(int n);
Column lag(const Column& c, int offset = 1, const Column* default_value = nullptr);
Column lead(const Column& c, int offset = 1, const Column* default_value = nullptr);
/// nth_value(c, offset[, ignoreNulls]): the offset-th row (from 1) of the window frame.
Column nth_value(const Column& c, int64_t offset, bool ignore_nulls = false);
}  // namespace functions

}  // namespace spate::api

// Math, string, regexp, hash and misc functions of the `functions` namespace.
#include "spate/api/scalar_functions.h"  // IWYU pragma: export

// Collection functions, generators and collection/statistical aggregates.
#include "spate/api/collection_functions.h"  // IWYU pragma: export

// Date/time functions.
#include "spate/api/datetime_functions.h"  // IWYU pragma: export

// JSON functions.
#include "spate/api/json_functions.h"  // IWYU pragma: export

// CSV functions.
#include "spate/api/csv_functions.h"  // IWYU pragma: export
