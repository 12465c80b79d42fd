// Copyright spate authors.
#pragma once

// Unresolved expressions: what the SQL parser and the DataFrame API (Column) build.
// The analyzer resolves names and types and turns an Expr into a BoundExpr
// (bound_expr.h), which evaluates over batches.
//
// Every SQL operator and function is a kCall with a lowercase name: "+", "-", "*", "/",
// "%", "div", "=", "==" is normalised to "=", "<=>", "!=" / "<>" normalised to "!=",
// "<", "<=", ">", ">=", "and", "or", "not", "negative" (unary minus), "positive",
// "isnull", "isnotnull", "like", "ilike", "rlike", "between" (3 args), "||" (concat),
// "&", "|", "^", "~" (bitwise), and named functions ("count", "sum", "coalesce", ...).
// count(*) is kCall "count" with a single kStar child.
//
// Ownership: immutable trees shared through ExprPtr. Thread safety: immutable, shareable.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/types/data_type.h"
#include "spate/types/value.h"

namespace spate {

class Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class ExprKind : uint8_t {
  kLiteral,   // value
  kColumn,    // name_parts: ["a"], ["t", "a"], ["w", "start"] (resolution decides)
  kStar,      // name_parts = qualifier (possibly empty): *, t.*, j.*; with a `name`, the
              // columns whose names match that Java regex (DataFrame.colRegex)
  kAlias,     // children[0] AS name (name_parts for multi-alias, e.g. posexplode)
  kCall,      // name(children...), with distinct / filter / is_try flags
  kCast,      // CAST(children[0] AS type); is_try for try_cast; name "typed_literal"
              // for TIMESTAMP '...' literals, folded by the analyzer in the session zone
  kCaseWhen,  // children = [cond1, val1, cond2, val2, ...] + else_value if has_else
  kIn,        // children[0] IN (children[1..])
  kExtractValue,    // children[0][children[1]] or children[0].name (name in `name`)
  kWindow,          // children[0] OVER window
  kSortOrder,       // children[0] ASC|DESC NULLS FIRST|LAST (only inside ORDER BY lists)
  kScalarSubquery,  // (SELECT ...) as a value; plan in `subquery` (opaque here)
  kExists,          // EXISTS (SELECT ...)
  kInSubquery,      // children[0] IN (SELECT ...)
  kLambda,          // (x, y) -> body: name_parts = params, children[0] = body
};

/// A window frame boundary: UNBOUNDED PRECEDING, n PRECEDING, CURRENT ROW,
/// n FOLLOWING, UNBOUNDED FOLLOWING.
struct FrameBound {
  enum class Type : uint8_t {
    kUnboundedPreceding,
    kPreceding,
    kCurrentRow,
    kFollowing,
    kUnboundedFollowing
  };
  Type type = Type::kCurrentRow;
  ExprPtr offset;  // for kPreceding / kFollowing
};

struct WindowFrame {
  enum class Kind : uint8_t { kRows, kRange };
  Kind kind = Kind::kRows;
  FrameBound lower;
  FrameBound upper;
};

struct SortSpec {
  ExprPtr expr;
  bool ascending = true;
  /// Spark's default: NULLS FIRST for ASC, NULLS LAST for DESC.
  bool nulls_first = true;
};

/// An unresolved window definition (OVER (...)); the public API's WindowSpec builds one.
/// (Named WindowDef so that the API can use PySpark's name WindowSpec.)
struct WindowDef {
  std::vector<ExprPtr> partition_by;
  std::vector<SortSpec> order_by;
  std::optional<WindowFrame> frame;  // absent = Spark's default frame
  std::string ref_name;  // OVER w with WINDOW w AS (...) (resolved by the parser)
};

/// Opaque handle to a parsed subquery plan (sql::LogicalPlan); compute does not look
/// inside.
struct SubqueryHandle {
  virtual ~SubqueryHandle() = default;
};

class Expr {
 public:
  ExprKind kind;
  Value literal;                        // kLiteral
  std::vector<std::string> name_parts;  // kColumn / kStar / kAlias (multi) / kLambda
  std::string name;  // kCall function name (lowercase), kAlias name, kExtractValue field
  std::vector<ExprPtr> children;
  DataTypePtr cast_type;               // kCast
  bool is_distinct = false;            // kCall: count(DISTINCT x)
  bool is_try = false;                 // kCast: try_cast
  bool has_else = false;               // kCaseWhen
  bool negated = false;                // kIn/kInSubquery: NOT IN; kExists: NOT EXISTS
  bool ignore_nulls = false;           // kCall: first(x) IGNORE NULLS
  ExprPtr filter;                      // kCall: agg(x) FILTER (WHERE filter)
  std::vector<SortSpec> within_group;  // kCall: agg(x) WITHIN GROUP (ORDER BY ...)
  std::shared_ptr<const WindowDef> window;  // kWindow
  SortSpec sort;                            // kSortOrder
  std::shared_ptr<const SubqueryHandle>
      subquery;           // kScalarSubquery / kExists / kInSubquery
  int64_t position = -1;  // char offset in the SQL text, for error messages
  /// kColumn created by DataFrame["name"]: resolve only among attributes tagged with this
  /// DataFrame id (-1 = any).
  int64_t plan_id = -1;

  explicit Expr(ExprKind k) : kind(k) {}

  // Factories used by the parser and the DataFrame API.
  static ExprPtr Lit(Value v);
  static ExprPtr Col(std::vector<std::string> parts);
  static ExprPtr Col(const std::string& name);  // splits nothing: "a.b" is one part
  static ExprPtr Star(std::vector<std::string> qualifier = {});
  /// The columns (of relation `qualifier`, if given) whose names match `regex` as a
  /// whole (Spark's UnresolvedRegex).
  static ExprPtr RegexStar(std::string regex, std::vector<std::string> qualifier = {});
  static ExprPtr Alias(ExprPtr child, std::string name);
  static ExprPtr Call(std::string name, std::vector<ExprPtr> args, bool distinct = false);
  static ExprPtr Cast(ExprPtr child, DataTypePtr type, bool is_try = false);
  static ExprPtr CaseWhen(std::vector<ExprPtr> branches, ExprPtr else_value);
  static ExprPtr In(ExprPtr value, std::vector<ExprPtr> list, bool negated = false);
  static ExprPtr Extract(ExprPtr child, ExprPtr key);           // child[key]
  static ExprPtr Field(ExprPtr child, std::string field_name);  // child.field
  /// Column.withField / dropFields (Spark's UpdateFields): kCall "update_fields" with
  /// children {struct, op...}, each op a kCall "withfield" (name_parts = {field},
  /// children = {value}) or "dropfield" (name_parts = {field}, no children), applied in
  /// order. A nested path sets the outer field to an update_fields of Field(struct,
  /// name).
  static ExprPtr UpdateFields(ExprPtr structure, std::vector<ExprPtr> ops);
  static ExprPtr WithFieldOp(std::string field, ExprPtr value);
  static ExprPtr DropFieldOp(std::string field);
  static ExprPtr Window(ExprPtr function, WindowDef spec);
  static ExprPtr Sort(ExprPtr child, bool ascending, bool nulls_first);

  /// A copy of this node with other children.
  ExprPtr WithChildren(std::vector<ExprPtr> children) const;

  /// Spark's auto-generated column name for this expression, e.g. "(a + 1)", "count(1)",
  /// "sum(v)", "CAST(x AS INT)", "CASE WHEN (x > 1) THEN a ELSE b END", "start" for
  /// w.start.
  std::string DisplayName() const;
  /// SQL-ish text used in error messages and EXPLAIN (quotes identifiers with backticks).
  std::string ToString() const;
};

}  // namespace spate
