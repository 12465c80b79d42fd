// Copyright spate authors.
//
// The Spark SQL recursive-descent parser (see parser.h). One Parser method per grammar
// rule of Spark's SqlBaseParser.g4; the trees are those AstBuilder.scala builds, mapped
// onto spate's unresolved Expr / LogicalPlan. Conventions worth knowing when consuming
// the trees:
//   - SELECT without FROM reads from a kValues with one empty row (Spark's
//   OneRowRelation).
//   - GROUP BY builds kAggregate(group_by, select list); HAVING without GROUP BY builds
//     kFilter(is_having) over kAggregate with no grouping, as AstBuilder does. GROUP BY
//     ALL is a single kColumn {"ALL"} in group_by (as Spark's UnresolvedAttribute("ALL");
//     the analyzer expands it unless a column named ALL exists). GROUP BY () is a
//     kAggregate with empty group_by. ROLLUP / CUBE / GROUPING SETS are Call("rollup" |
//     "cube" | "grouping_sets", ...) whose arguments are the sets, each Call("struct",
//     [exprs]) (a bare expression is a set of one), and inside GROUPING SETS also nested
//     rollup / cube calls; `GROUP BY a, b WITH ROLLUP` is rollup(struct(a), struct(b)).
//   - Named windows (OVER w + WINDOW w AS (...)) are substituted by the parser; a
//     WindowDef with a non-empty ref_name never leaves the parser.
//   - x IS [NOT] TRUE/FALSE -> [not](x <=> true/false); IS [NOT] UNKNOWN -> isnull /
//     isnotnull; IS [NOT] DISTINCT FROM -> [not](x <=> y); NOT BETWEEN / NOT LIKE ->
//     not(...); LIKE ... ESCAPE 'c' adds the escape string as a third argument.
//   - x [NOT] LIKE|ILIKE ANY|SOME|ALL (p, ...) -> like_any / like_all / ilike_any /
//     ilike_all, NOT LIKE ANY = not(like_all), NOT LIKE ALL = not(like_any) (Spark's
//     NotLikeAny / NotLikeAll semantics).
//   - A row constructor (a, b) is Call("struct", ...); VALUES rows written (a, b) are
//     unpacked into columns.
//   - EXTRACT(f FROM x) -> extract('F', x); POSITION(a IN b) -> position(a, b);
//     SUBSTRING(x FROM a FOR b) -> substring(x, a, b); TRIM([BOTH|LEADING|TRAILING] [c]
//     FROM s) -> trim / ltrim / rtrim(s[, c]).
//   - TIMESTAMPADD | DATEADD | DATE_ADD (unit, n, ts) and TIMESTAMPDIFF | DATEDIFF |
//     DATE_DIFF | TIMEDIFF (unit, a, b) with a unit keyword -> the internal calls
//     kTimestampAddCall / kTimestampDiffCall ('unit' as written, n, ts)
//     (compute/datetime_functions.h).
//   - Statement extras: SET -v has key "-v"; SHOW TABLES|VIEWS [FROM db] [LIKE 'p'] puts
//     db in `name`, the pattern in `value` and key = "views" for SHOW VIEWS; SHOW
//     [USER|SYSTEM|ALL] FUNCTIONS [LIKE 'p'] puts the scope in key and the pattern in
//     value; DESCRIBE of a query leaves `name` empty; view column comments are parsed
//     and dropped.
//
// Thread safety: a Parser is single-use and single-threaded; the API functions are
// stateless.

#include "spate/sql/parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "spate/base/text_parse.h"
#include "spate/compute/datetime_functions.h"
#include "spate/compute/datetime_text.h"
#include "spate/sql/lexer.h"
#include "spate/sql/named_arguments.h"
#include "spate/sql/parser_literals.h"

namespace spate::sql {

namespace {

// Bound on nesting (parentheses, NOT/minus chains, subqueries, nested types), so that
// hostile input cannot overflow the stack.
constexpr int kMaxDepth = 600;
// Bound on how many times the parser may retry an ambiguous parenthesis.
constexpr int kMaxBacktracks = 256;
constexpr std::string_view kDocRoot = "https://spark.apache.org/docs/latest";

// Words that end a select item or a table reference: never taken as an implicit alias.
bool IsNoAliasKeyword(std::string_view upper) {
  static const auto* kWords = new std::unordered_set<std::string_view>{
      "FROM",       "WHERE",     "GROUP",       "HAVING", "ORDER",  "LIMIT",   "OFFSET",
      "UNION",      "INTERSECT", "EXCEPT",      "MINUS",  "WINDOW", "SORT",    "CLUSTER",
      "DISTRIBUTE", "LATERAL",   "AS",          "JOIN",   "INNER",  "LEFT",    "RIGHT",
      "FULL",       "CROSS",     "NATURAL",     "SEMI",   "ANTI",   "ON",      "USING",
      "PIVOT",      "UNPIVOT",   "TABLESAMPLE", "INTO",   "FOR",    "WHEN",    "THEN",
      "ELSE",       "END",       "AND",         "OR",     "SELECT", "QUALIFY", "VALUES",
      "WITH",       "IS",        "IN",          "NOT",    "LIKE",   "ILIKE",   "RLIKE",
      "REGEXP",     "BETWEEN",   "ESCAPE",      "OVER",   "FILTER"};
  return kWords->count(upper) > 0;
}

// Words that cannot be a column reference at the start of an expression operand. OFFSET
// is not one: Spark (reserved keywords not enforced) reads `SELECT offset FROM t`, as the
// Kafka source's `offset` column needs.
bool IsNotColumnKeyword(std::string_view upper) {
  static const auto* kWords = new std::unordered_set<std::string_view>{
      "SELECT",  "FROM",      "WHERE",   "GROUP",    "HAVING", "ORDER",  "LIMIT",
      "UNION",   "INTERSECT", "EXCEPT",  "MINUS",    "JOIN",   "ON",     "USING",
      "AS",      "WHEN",      "THEN",    "ELSE",     "AND",    "OR",     "BY",
      "IS",      "IN",        "BETWEEN", "LIKE",     "ILIKE",  "RLIKE",  "REGEXP",
      "INNER",   "CROSS",     "NATURAL", "FULL",     "LEFT",   "RIGHT",  "SEMI",
      "ANTI",    "WITH",      "VALUES",  "DISTINCT", "OVER",   "ESCAPE", "INTO",
      "LATERAL", "TABLE"};
  return kWords->count(upper) > 0;
}

bool IsQueryStart(const Token& t) {
  return t.Is("SELECT") || t.Is("WITH") || t.Is("VALUES") || t.Is("TABLE");
}

// Spark's toSQLId: `a`.`b`.
std::string SqlId(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ".";
    std::string escaped;
    for (char c : parts[i]) {
      escaped += c;
      if (c == '`') escaped += '`';
    }
    out += "`" + escaped + "`";
  }
  return out;
}

// Sets the position of a node the parser has just created and not yet shared.
ExprPtr Positioned(ExprPtr e, int64_t pos) {
  std::const_pointer_cast<Expr>(e)->position = pos;
  return e;
}

std::shared_ptr<Expr> MutableCopy(const ExprPtr& e) { return std::make_shared<Expr>(*e); }

std::shared_ptr<LogicalPlan> NewPlan(PlanKind kind, int64_t pos) {
  auto p = std::make_shared<LogicalPlan>(kind);
  p->position = pos;
  return p;
}

PlanPtr OneRowRelation(int64_t pos) {
  auto p = NewPlan(PlanKind::kValues, pos);
  p->rows.emplace_back();
  return p;
}

ExprPtr SubqueryExpr(ExprKind kind, PlanPtr plan, int64_t pos) {
  auto e = std::make_shared<Expr>(kind);
  e->subquery = std::make_shared<PlanSubquery>(std::move(plan));
  e->position = pos;
  return e;
}

ExprPtr Not(ExprPtr e) { return Expr::Call("not", {std::move(e)}); }

using WindowDefs = std::map<std::string, WindowDef>;

// Replaces named-window references in `e` by their definitions; records the first
// unknown name in *missing. Does not descend into subquery plans.
ExprPtr SubstituteWindowsInExpr(const ExprPtr& e, const WindowDefs& defs,
                                std::string* missing) {
  if (!e) return e;
  bool changed = false;
  std::vector<ExprPtr> children;
  children.reserve(e->children.size());
  for (const ExprPtr& c : e->children) {
    ExprPtr nc = SubstituteWindowsInExpr(c, defs, missing);
    changed |= nc != c;
    children.push_back(std::move(nc));
  }
  ExprPtr filter = SubstituteWindowsInExpr(e->filter, defs, missing);
  changed |= filter != e->filter;
  std::shared_ptr<const WindowDef> window = e->window;
  if (e->kind == ExprKind::kWindow && window && !window->ref_name.empty()) {
    auto it = defs.find(ToLower(window->ref_name));
    if (it != defs.end()) {
      window = std::make_shared<const WindowDef>(it->second);
      changed = true;
    } else if (missing->empty()) {
      *missing = window->ref_name;
    }
  }
  if (!changed) return e;
  auto copy = MutableCopy(e);
  copy->children = std::move(children);
  copy->filter = std::move(filter);
  copy->window = std::move(window);
  if (copy->kind == ExprKind::kSortOrder && !copy->children.empty()) {
    copy->sort.expr = copy->children[0];
  }
  return copy;
}

// Substitutes named windows in the operators of one query level (stopping at relations,
// aliases and CTE definitions).
PlanPtr SubstituteWindowsInPlan(const PlanPtr& plan, const WindowDefs& defs,
                                std::string* missing) {
  switch (plan->kind) {
    case PlanKind::kProject:
    case PlanKind::kAggregate:
    case PlanKind::kFilter:
    case PlanKind::kSort:
    case PlanKind::kDistinct:
    case PlanKind::kLimit:
    case PlanKind::kOffset:
    case PlanKind::kRepartition:
    case PlanKind::kSetOperation:
    case PlanKind::kWith:
      break;
    default:
      return plan;
  }
  auto copy = std::make_shared<LogicalPlan>(*plan);
  for (auto& c : copy->children) c = SubstituteWindowsInPlan(c, defs, missing);
  for (auto& e : copy->exprs) e = SubstituteWindowsInExpr(e, defs, missing);
  copy->condition = SubstituteWindowsInExpr(copy->condition, defs, missing);
  for (auto& s : copy->sort) s.expr = SubstituteWindowsInExpr(s.expr, defs, missing);
  return copy;
}

class DepthScope {
 public:
  explicit DepthScope(int* depth) : depth_(depth) { ++*depth_; }
  ~DepthScope() { --*depth_; }
  DepthScope(const DepthScope&) = delete;
  DepthScope& operator=(const DepthScope&) = delete;

 private:
  int* depth_;
};

// Parses one token stream. Single use.
class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens)
      : text_(text), tokens_(std::move(tokens)) {}
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  Result<Statement> ParseSingleStatement();
  Result<ExprPtr> ParseSingleExpression();
  Result<DataTypePtr> ParseSingleDataType();
  Result<SchemaPtr> ParseSingleSchema();
  Result<std::vector<std::string>> ParseSingleMultipartIdentifier();

 private:
  // --- Token access ---
  const Token& Peek(size_t k = 0) const {
    return tokens_[std::min(pos_ + k, tokens_.size() - 1)];
  }
  const Token& Advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }
  bool MatchKeyword(std::string_view kw) {
    if (!Peek().Is(kw)) return false;
    Advance();
    return true;
  }
  bool MatchOp(std::string_view op) {
    if (!Peek().IsOp(op)) return false;
    Advance();
    return true;
  }
  Status ExpectKeyword(std::string_view kw) {
    if (MatchKeyword(kw)) return Status::OK();
    return SyntaxError(Peek());
  }
  Status ExpectOp(std::string_view op) {
    if (MatchOp(op)) return Status::OK();
    return SyntaxError(Peek(), op == ")" ? ": missing ')'" : "");
  }
  Status ExpectEnd() {
    while (MatchOp(";")) {
    }
    if (AtEnd()) return Status::OK();
    return SyntaxError(Peek());
  }
  std::string TokenText(const Token& t) const {
    if (t.kind == TokenKind::kEnd) return "end of input";
    return "'" + std::string(text_.substr(t.begin, t.end - t.begin)) + "'";
  }
  Status SyntaxError(const Token& t, std::string hint = "") const {
    return Status::Error("PARSE_SYNTAX_ERROR",
                         {{"error", TokenText(t)}, {"hint", std::move(hint)}})
        .WithPosition(t.begin);
  }
  Status CheckDepth() const {
    if (depth_ <= kMaxDepth) return Status::OK();
    // Spark's parser runs out of stack (a StackOverflowError) at such depths.
    return Status::Error("FAILED_TO_PARSE_TOO_COMPLEX").WithPosition(Peek().begin);
  }
  std::string_view SourceBetween(int64_t begin, int64_t end) const {
    return text_.substr(begin, std::max<int64_t>(0, end - begin));
  }
  int64_t PrevEnd() const { return pos_ > 0 ? tokens_[pos_ - 1].end : 0; }
  // True if the token can be an identifier here (word or quoted).
  static bool IsIdentifierToken(const Token& t) {
    return t.kind == TokenKind::kWord || t.kind == TokenKind::kQuotedIdent;
  }

  // --- Identifiers ---
  Result<std::string> ParseIdentifier();
  Result<std::vector<std::string>> ParseMultipartIdentifier();
  Result<std::vector<std::string>> ParseIdentifierList();  // (a, b, c)
  std::optional<std::string> MatchAlias();  // [AS] alias (implicit allowed)

  // --- Statements ---
  Result<Statement> ParseStatementBody();
  Result<Statement> ParseCreateView();
  Result<Statement> ParseDropView();
  Result<Statement> ParseDescribe();
  Result<Statement> ParseExplain();
  Result<Statement> ParseShow();
  Result<Statement> ParseUse();
  Result<Statement> ParseCreateSchema();
  Result<Statement> ParseDropTableOrSchema();
  Result<Statement> ParseCreateTable();
  Status ParseCreateTableBody(Statement* st);
  Result<Statement> ParseCreatePipelineDataset();
  Result<Statement> ParseCreateFlow();
  Result<Statement> ParseInsert();
  Result<PlanPtr> ParseTableFunction(std::vector<std::string> name, int64_t pos);
  Result<PlanPtr> ParseStreamRelation();
  Result<Statement> ParseMerge();
  Result<MergeClause> ParseMergeClause();
  Result<Statement> ParseDeltaCommand();
  Result<std::vector<std::string>> ParseDeltaTarget();
  Result<std::vector<std::pair<std::string, std::string>>> ParsePropertyList();
  Result<std::string> ParsePropertyKey();
  Result<Statement> ParseAlterTable(int64_t begin);
  Result<std::string> ParseStringValue();
  /// IF NOT EXISTS (true when present).
  Result<bool> MatchIfNotExists();

  // --- Queries ---
  Result<PlanPtr> ParseQuery();
  Result<PlanPtr> ParseSetOperations();
  Result<PlanPtr> ParseIntersect();
  Result<PlanPtr> ParseQueryPrimary();
  Result<PlanPtr> ParseQuerySpecification();
  Result<PlanPtr> ParseQueryOrganization(PlanPtr plan);
  Result<std::vector<ExprPtr>> ParseGroupBy();
  Result<ExprPtr> ParseGroupingAnalytics();
  Result<ExprPtr> ParseGroupingSet();
  bool IsGroupingAnalyticsStart() const;
  Status ParseWindowClause(WindowDefs* defs);
  Result<PlanPtr> ApplyWindows(const PlanPtr& plan, const WindowDefs& defs,
                               bool report_missing);
  Result<PlanPtr> ParseFromClause();
  Result<PlanPtr> ParseRelation();
  Result<PlanPtr> ParseRelationPrimary();
  Result<PlanPtr> ParseInlineTable();
  Result<PlanPtr> ParseTableAlias(PlanPtr plan, bool values);
  Result<PlanPtr> ParseParenthesizedQuery();

  // --- Expressions ---
  Result<std::vector<ExprPtr>> ParseNamedExpressionList();
  Result<ExprPtr> ParseNamedExpression();
  Result<std::vector<ExprPtr>> ParseExpressionList();
  Result<ExprPtr> ParseExpression();  // booleanExpression
  Result<ExprPtr> ParseOr();
  Result<ExprPtr> ParseAnd();
  Result<ExprPtr> ParseNot();
  Result<ExprPtr> ParsePredicated();
  Result<ExprPtr> ParsePredicate(ExprPtr value);
  Result<ExprPtr> ParseValueExpression(int min_precedence);
  Result<ExprPtr> ParseUnary();
  Result<ExprPtr> ParsePostfix(ExprPtr base);
  Result<ExprPtr> ParsePrimary();
  Result<ExprPtr> ParseParenthesized();
  Result<ExprPtr> ParseNumberLiteral(bool negative, int64_t pos);
  Result<ExprPtr> ParseStringLiteral();
  Result<ExprPtr> ParseTypedLiteral();
  Result<ExprPtr> ParseIntervalLiteral();
  Result<ExprPtr> ParseCase();
  Result<ExprPtr> ParseCast();
  Result<ExprPtr> ParseSpecialFunction(bool* matched);
  Result<ExprPtr> ParseTimestampUnitCall(bool add);
  Result<ExprPtr> ParseFunctionCall(std::string name, int64_t pos);
  Result<ExprPtr> ParseLambda();
  Result<WindowDef> ParseWindowSpec();
  Result<FrameBound> ParseFrameBound();
  Result<SortSpec> ParseSortItem();
  Result<std::vector<SortSpec>> ParseSortItems();
  bool LooksLikeLambda() const;
  // For "name ( ... )" at the current token: whether `keyword` occurs inside the
  // parentheses at nesting level 0.
  bool HasTopLevelKeyword(std::string_view keyword) const;

  // --- Data types ---
  Result<DataTypePtr> ParseDataType();
  Result<std::vector<Field>> ParseColumnDefinitions(bool struct_fields);
  Result<Field> ParseColumnDefinition(bool struct_fields);

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int backtracks_left_ = kMaxBacktracks;
  // Row constructors "(a, b)" built by ParseParenthesized (VALUES unpacks them), held
  // so that no later node of the statement can reuse the address of one that was dropped
  // (a VALUES row `(2)` taken for an empty row constructor).
  std::unordered_map<const Expr*, ExprPtr> row_constructors_;
};

// ===================================================================================
// Identifiers
// ===================================================================================

Result<std::string> Parser::ParseIdentifier() {
  const Token& t = Peek();
  if (!IsIdentifierToken(t)) return SyntaxError(t);
  Advance();
  return t.text;
}

Result<std::vector<std::string>> Parser::ParseMultipartIdentifier() {
  std::vector<std::string> parts;
  SPATE_ASSIGN_OR_RETURN(std::string first, ParseIdentifier());
  parts.push_back(std::move(first));
  while (Peek().IsOp(".") && IsIdentifierToken(Peek(1))) {
    Advance();
    parts.push_back(Advance().text);
  }
  return parts;
}

Result<std::vector<std::string>> Parser::ParseIdentifierList() {
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  std::vector<std::string> names;
  do {
    SPATE_ASSIGN_OR_RETURN(std::string n, ParseIdentifier());
    names.push_back(std::move(n));
  } while (MatchOp(","));
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  return names;
}

std::optional<std::string> Parser::MatchAlias() {
  if (Peek().Is("AS") && IsIdentifierToken(Peek(1))) {
    Advance();
    return Advance().text;
  }
  const Token& t = Peek();
  if (t.kind == TokenKind::kQuotedIdent || (t.IsWord() && !IsNoAliasKeyword(t.upper))) {
    Advance();
    return t.text;
  }
  return std::nullopt;
}

// ===================================================================================
// Statements
// ===================================================================================

Result<Statement> Parser::ParseSingleStatement() {
  if (AtEnd() || Peek().IsOp(";")) {
    return Status::Error("PARSE_EMPTY_STATEMENT").WithPosition(0);
  }
  SPATE_ASSIGN_OR_RETURN(Statement st, ParseStatementBody());
  SPATE_RETURN_IF_ERROR(ExpectEnd());
  return st;
}

Result<Statement> Parser::ParseStatementBody() {
  const Token& first = Peek();
  int64_t begin = first.begin;
  Statement st;
  if (IsQueryStart(first) || first.IsOp("(")) {
    SPATE_ASSIGN_OR_RETURN(st.plan, ParseQuery());
    st.kind = Statement::Kind::kQuery;
  } else if (first.Is("CREATE") || first.Is("REPLACE")) {
    size_t k = 1;
    if (Peek(k).Is("OR") && Peek(k + 1).Is("REPLACE")) k += 2;
    if (Peek(k).Is("EXTERNAL")) ++k;
    size_t r = (Peek(1).Is("OR") && Peek(2).Is("REFRESH")) ? 3 : 1;
    if (first.Is("CREATE") && ((Peek(r).Is("STREAMING") && Peek(r + 1).Is("TABLE")) ||
                               (Peek(r).Is("MATERIALIZED") && Peek(r + 1).Is("VIEW")))) {
      SPATE_ASSIGN_OR_RETURN(st, ParseCreatePipelineDataset());
    } else if (first.Is("CREATE") && Peek(1).Is("FLOW")) {
      SPATE_ASSIGN_OR_RETURN(st, ParseCreateFlow());
    } else if (first.Is("REPLACE") || Peek(k).Is("TABLE")) {
      SPATE_ASSIGN_OR_RETURN(st, ParseCreateTable());
    } else if (Peek(1).Is("SCHEMA") || Peek(1).Is("DATABASE") ||
               Peek(1).Is("NAMESPACE")) {
      SPATE_ASSIGN_OR_RETURN(st, ParseCreateSchema());
    } else {
      SPATE_ASSIGN_OR_RETURN(st, ParseCreateView());
    }
  } else if (first.Is("DROP")) {
    if (Peek(1).Is("TABLE") || Peek(1).Is("SCHEMA") || Peek(1).Is("DATABASE") ||
        Peek(1).Is("NAMESPACE")) {
      SPATE_ASSIGN_OR_RETURN(st, ParseDropTableOrSchema());
    } else {
      SPATE_ASSIGN_OR_RETURN(st, ParseDropView());
    }
  } else if (first.Is("INSERT")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseInsert());
  } else if (first.Is("MERGE")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseMerge());
  } else if (first.Is("UPDATE") || (first.Is("DELETE") && Peek(1).Is("FROM")) ||
             first.Is("RESTORE") || first.Is("OPTIMIZE") || first.Is("VACUUM")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseDeltaCommand());
  } else if (first.Is("DESC") || first.Is("DESCRIBE")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseDescribe());
  } else if (first.Is("EXPLAIN")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseExplain());
  } else if (first.Is("SHOW")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseShow());
  } else if (first.Is("ALTER")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseAlterTable(begin));
  } else if (first.Is("USE")) {
    SPATE_ASSIGN_OR_RETURN(st, ParseUse());
  } else {
    static const auto* kUnsupported = new std::unordered_set<std::string_view>{
        "DELETE",   "CACHE",   "UNCACHE", "CLEAR",  "REFRESH", "ANALYZE",
        "TRUNCATE", "MSCK",    "LOAD",    "ADD",    "LIST",    "DECLARE",
        "REPAIR",   "COMMENT", "GRANT",   "REVOKE", "CALL",    "EXECUTE"};
    if (first.IsWord() && kUnsupported->count(first.upper) > 0) {
      std::string sql(text_.substr(begin));
      return Status::Error("INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT",
                           {{"sqlText", sql}})
          .WithPosition(begin);
    }
    return SyntaxError(first);
  }
  st.text = std::string(SourceBetween(begin, PrevEnd()));
  return st;
}

Result<Statement> Parser::ParseCreateView() {
  int64_t begin = Peek().begin;
  SPATE_RETURN_IF_ERROR(ExpectKeyword("CREATE"));
  Statement st;
  st.kind = Statement::Kind::kCreateView;
  if (MatchKeyword("OR")) {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("REPLACE"));
    st.replace = true;
  }
  st.global = MatchKeyword("GLOBAL");
  bool temporary = MatchKeyword("TEMPORARY") || MatchKeyword("TEMP");
  if (!Peek().Is("VIEW") || !temporary) {
    if (!temporary && (Peek().Is("VIEW") || Peek().Is("TABLE") || Peek().Is("DATABASE") ||
                       Peek().Is("SCHEMA") || Peek().Is("FUNCTION") ||
                       Peek().Is("NAMESPACE") || Peek().Is("EXTERNAL"))) {
      return Status::Error("INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT",
                           {{"sqlText", std::string(text_.substr(begin))}})
          .WithPosition(begin);
    }
    return SyntaxError(Peek());
  }
  Advance();  // VIEW
  if (Peek().Is("IF")) {
    return SyntaxError(
        Peek(), ": it is not allowed to define a TEMPORARY view with IF NOT EXISTS");
  }
  int64_t name_pos = Peek().begin;
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  if (!st.global && st.name.size() > 1) {
    return Status::Error("TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS",
                         {{"actualName", SqlId(st.name)}})
        .WithPosition(name_pos);
  }
  if (MatchOp("(")) {
    do {
      SPATE_ASSIGN_OR_RETURN(std::string col, ParseIdentifier());
      st.column_names.push_back(std::move(col));
      if (MatchKeyword("COMMENT")) {
        if (Peek().kind != TokenKind::kString) return SyntaxError(Peek());
        Advance();
      }
    } while (MatchOp(","));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  }
  while (true) {
    if (MatchKeyword("COMMENT")) {
      if (Peek().kind != TokenKind::kString) return SyntaxError(Peek());
      Advance();
    } else if (MatchKeyword("TBLPROPERTIES")) {
      SPATE_RETURN_IF_ERROR(ExpectOp("("));
      int depth = 1;
      while (depth > 0 && !AtEnd()) {
        if (Peek().IsOp("(")) ++depth;
        if (Peek().IsOp(")")) --depth;
        Advance();
      }
      if (depth > 0) return SyntaxError(Peek(), ": missing ')'");
    } else {
      break;
    }
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("AS"));
  SPATE_ASSIGN_OR_RETURN(st.plan, ParseQuery());
  return st;
}

Result<Statement> Parser::ParseDropView() {
  int64_t begin = Peek().begin;
  SPATE_RETURN_IF_ERROR(ExpectKeyword("DROP"));
  if (!Peek().Is("VIEW")) {
    if (Peek().Is("TABLE") || Peek().Is("DATABASE") || Peek().Is("SCHEMA") ||
        Peek().Is("FUNCTION") || Peek().Is("NAMESPACE") || Peek().Is("TEMPORARY")) {
      return Status::Error("INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT",
                           {{"sqlText", std::string(text_.substr(begin))}})
          .WithPosition(begin);
    }
    return SyntaxError(Peek());
  }
  Advance();
  Statement st;
  st.kind = Statement::Kind::kDropView;
  if (MatchKeyword("IF")) {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("EXISTS"));
    st.if_exists = true;
  }
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  return st;
}

Result<Statement> Parser::ParseDescribe() {
  Advance();  // DESC | DESCRIBE
  Statement st;
  st.kind = Statement::Kind::kDescribe;
  if (MatchKeyword("QUERY")) {
    SPATE_ASSIGN_OR_RETURN(st.plan, ParseQuery());
    return st;
  }
  if ((Peek().Is("HISTORY") || Peek().Is("DETAIL")) && IsIdentifierToken(Peek(1))) {
    if (Advance().Is("DETAIL")) st.key = "detail";
    st.kind = Statement::Kind::kDescribeHistory;
    SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
    if (MatchKeyword("LIMIT")) {
      const Token& n = Peek();
      if (n.kind != TokenKind::kNumber) return SyntaxError(n);
      Advance();
      st.limit = std::strtoll(n.text.c_str(), nullptr, 10);
    }
    return st;
  }
  if (Peek().Is("FUNCTION") || Peek().Is("DATABASE") || Peek().Is("SCHEMA") ||
      Peek().Is("CATALOG") || Peek().Is("NAMESPACE")) {
    return Status::Error("INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT",
                         {{"sqlText", std::string(text_)}})
        .WithPosition(Peek().begin);
  }
  bool table_keyword = MatchKeyword("TABLE");
  if (MatchKeyword("EXTENDED") || MatchKeyword("FORMATTED")) st.extended = true;
  if (!table_keyword && !st.extended && (IsQueryStart(Peek()) || Peek().IsOp("("))) {
    SPATE_ASSIGN_OR_RETURN(st.plan, ParseQuery());
    return st;
  }
  int64_t pos = Peek().begin;
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  auto rel = NewPlan(PlanKind::kUnresolvedRelation, pos);
  rel->table_name = st.name;
  st.plan = rel;
  return st;
}

Result<Statement> Parser::ParseExplain() {
  Advance();  // EXPLAIN
  Statement st;
  st.kind = Statement::Kind::kExplain;
  for (std::string_view mode : {"EXTENDED", "FORMATTED", "CODEGEN", "COST"}) {
    if (MatchKeyword(mode)) {
      st.explain_mode = ToLower(mode);
      st.extended = mode == "EXTENDED";
      break;
    }
  }
  if (AtEnd()) return SyntaxError(Peek());
  if (Peek().Is("SET") || Peek().Is("RESET")) {
    // SET / RESET take their raw text: parse the rest of the input on its own.
    int64_t begin = Peek().begin;
    SPATE_ASSIGN_OR_RETURN(Statement inner, ParseStatement(text_.substr(begin)));
    while (!AtEnd()) Advance();
    st.inner = std::make_shared<const Statement>(std::move(inner));
    return st;
  }
  SPATE_ASSIGN_OR_RETURN(Statement inner, ParseStatementBody());
  st.inner = std::make_shared<const Statement>(std::move(inner));
  return st;
}

Result<Statement> Parser::ParseShow() {
  Advance();  // SHOW
  Statement st;
  auto parse_pattern = [&]() -> Status {
    bool like = MatchKeyword("LIKE");
    if (Peek().kind == TokenKind::kString) {
      st.value = Advance().text;
    } else if (like) {
      return SyntaxError(Peek());
    }
    return Status::OK();
  };
  if (Peek().Is("TABLES") || Peek().Is("VIEWS")) {
    st.kind = Statement::Kind::kShowTables;
    if (Advance().Is("VIEWS")) st.key = "views";
    if (MatchKeyword("FROM") || MatchKeyword("IN")) {
      SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
    }
    SPATE_RETURN_IF_ERROR(parse_pattern());
    return st;
  }
  if (MatchKeyword("TBLPROPERTIES")) {
    st.kind = Statement::Kind::kShowTblProperties;
    SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
    if (MatchOp("(")) {
      SPATE_ASSIGN_OR_RETURN(std::string key, ParsePropertyKey());
      st.value = std::move(key);
      SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    }
    return st;
  }
  if (Peek().Is("SCHEMAS") || Peek().Is("DATABASES") || Peek().Is("NAMESPACES")) {
    Advance();
    st.kind = Statement::Kind::kShowSchemas;
    SPATE_RETURN_IF_ERROR(parse_pattern());
    return st;
  }
  for (std::string_view scope : {"USER", "SYSTEM", "ALL"}) {
    if (Peek().Is(scope) && Peek(1).Is("FUNCTIONS")) {
      st.key = ToLower(scope);
      Advance();
      break;
    }
  }
  if (MatchKeyword("FUNCTIONS")) {
    st.kind = Statement::Kind::kShowFunctions;
    SPATE_RETURN_IF_ERROR(parse_pattern());
    return st;
  }
  return SyntaxError(Peek());
}

Result<Statement> Parser::ParseUse() {
  Advance();  // USE
  Statement st;
  st.kind = Statement::Kind::kUseDatabase;
  if ((Peek().Is("NAMESPACE") || Peek().Is("DATABASE") || Peek().Is("SCHEMA")) &&
      IsIdentifierToken(Peek(1))) {
    Advance();
  }
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  return st;
}

Result<bool> Parser::MatchIfNotExists() {
  if (!MatchKeyword("IF")) return false;
  SPATE_RETURN_IF_ERROR(ExpectKeyword("NOT"));
  SPATE_RETURN_IF_ERROR(ExpectKeyword("EXISTS"));
  return true;
}

Result<std::string> Parser::ParseStringValue() {
  if (Peek().kind != TokenKind::kString) return SyntaxError(Peek());
  std::string out;
  while (Peek().kind == TokenKind::kString) out += Advance().text;
  return out;
}

// A property key: a string or a dotted identifier.
Result<std::string> Parser::ParsePropertyKey() {
  if (Peek().kind == TokenKind::kString) return Advance().text;
  std::string key;
  SPATE_ASSIGN_OR_RETURN(std::vector<std::string> parts, ParseMultipartIdentifier());
  for (const auto& part : parts) key += (key.empty() ? "" : ".") + part;
  return key;
}

// ALTER TABLE name SET TBLPROPERTIES (k = v, ...) | UNSET TBLPROPERTIES [IF EXISTS] (k,
// ...); other ALTER statements are not supported.
Result<Statement> Parser::ParseAlterTable(int64_t begin) {
  auto unsupported = [&] {
    return Status::Error("INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT",
                         {{"sqlText", std::string(text_.substr(begin))}})
        .WithPosition(begin);
  };
  Advance();  // ALTER
  if (!MatchKeyword("TABLE")) return unsupported();
  Statement st;
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  if (Peek().Is("SET") && Peek(1).Is("TBLPROPERTIES")) {
    Advance();
    Advance();
    st.kind = Statement::Kind::kAlterTableSetProperties;
    SPATE_ASSIGN_OR_RETURN(st.properties, ParsePropertyList());
    return st;
  }
  if (Peek().Is("UNSET") && Peek(1).Is("TBLPROPERTIES")) {
    Advance();
    Advance();
    st.kind = Statement::Kind::kAlterTableUnsetProperties;
    if (Peek().Is("IF") && Peek(1).Is("EXISTS")) {
      Advance();
      Advance();
      st.if_exists = true;
    }
    SPATE_RETURN_IF_ERROR(ExpectOp("("));
    do {
      SPATE_ASSIGN_OR_RETURN(std::string key, ParsePropertyKey());
      st.properties.emplace_back(std::move(key), "");
    } while (MatchOp(","));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    return st;
  }
  return unsupported();
}

// ( key = value, ... ): keys are strings or dotted identifiers, values strings, numbers,
// booleans or identifiers (as Spark's propertyList).
Result<std::vector<std::pair<std::string, std::string>>> Parser::ParsePropertyList() {
  std::vector<std::pair<std::string, std::string>> out;
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  if (MatchOp(")")) return out;
  do {
    SPATE_ASSIGN_OR_RETURN(std::string key, ParsePropertyKey());
    MatchOp("=");
    const Token& v = Peek();
    std::string value;
    if (v.kind == TokenKind::kString || v.kind == TokenKind::kNumber || v.IsWord()) {
      value = Advance().text;
      if (v.IsWord() && (v.Is("TRUE") || v.Is("FALSE"))) value = ToLower(value);
    } else if (v.IsOp("-") && Peek(1).kind == TokenKind::kNumber) {
      Advance();
      value = "-" + Advance().text;
    } else {
      return SyntaxError(v);
    }
    out.emplace_back(std::move(key), std::move(value));
  } while (MatchOp(","));
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  return out;
}

Result<Statement> Parser::ParseCreateSchema() {
  Advance();  // CREATE
  Advance();  // SCHEMA | DATABASE | NAMESPACE
  Statement st;
  st.kind = Statement::Kind::kCreateSchema;
  SPATE_ASSIGN_OR_RETURN(st.if_not_exists, MatchIfNotExists());
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  while (!AtEnd() && !Peek().IsOp(";")) {
    if (MatchKeyword("COMMENT")) {
      SPATE_ASSIGN_OR_RETURN(std::string c, ParseStringValue());
      st.comment = std::move(c);
    } else if (MatchKeyword("LOCATION")) {
      SPATE_ASSIGN_OR_RETURN(std::string l, ParseStringValue());
      st.location = std::move(l);
    } else if (Peek().Is("WITH") &&
               (Peek(1).Is("DBPROPERTIES") || Peek(1).Is("PROPERTIES"))) {
      pos_ += 2;
      SPATE_ASSIGN_OR_RETURN(st.properties, ParsePropertyList());
    } else {
      return SyntaxError(Peek());
    }
  }
  return st;
}

Result<Statement> Parser::ParseDropTableOrSchema() {
  Advance();  // DROP
  Statement st;
  bool table = Advance().Is("TABLE");
  st.kind = table ? Statement::Kind::kDropTable : Statement::Kind::kDropSchema;
  if (MatchKeyword("IF")) {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("EXISTS"));
    st.if_exists = true;
  }
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  if (table) {
    MatchKeyword("PURGE");
  } else if (MatchKeyword("CASCADE")) {
    st.cascade = true;
  } else {
    MatchKeyword("RESTRICT");
  }
  return st;
}

Result<Statement> Parser::ParseCreateTable() {
  Statement st;
  st.kind = Statement::Kind::kCreateTable;
  if (MatchKeyword("REPLACE")) {
    st.create = false;
    st.replace = true;
  } else {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("CREATE"));
    if (MatchKeyword("OR")) {
      SPATE_RETURN_IF_ERROR(ExpectKeyword("REPLACE"));
      st.replace = true;
    }
    MatchKeyword("EXTERNAL");
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("TABLE"));
  SPATE_RETURN_IF_ERROR(ParseCreateTableBody(&st));
  return st;
}

// [IF NOT EXISTS] name [(cols)] [USING | PARTITIONED BY | LOCATION | COMMENT |
// TBLPROPERTIES | OPTIONS ...] [[AS] query].
Status Parser::ParseCreateTableBody(Statement* out) {
  Statement& st = *out;
  SPATE_ASSIGN_OR_RETURN(st.if_not_exists, MatchIfNotExists());
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  if (Peek().IsOp("(")) {
    Advance();
    std::vector<Field> fields;
    do {
      SPATE_ASSIGN_OR_RETURN(Field f, ParseColumnDefinition(false));
      fields.push_back(std::move(f));
    } while (MatchOp(","));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    st.table_schema = std::make_shared<const Schema>(std::move(fields));
  }
  while (!AtEnd() && !Peek().IsOp(";") && !Peek().Is("AS") && !IsQueryStart(Peek()) &&
         !Peek().IsOp("(")) {
    if (MatchKeyword("USING")) {
      SPATE_ASSIGN_OR_RETURN(st.provider, ParseIdentifier());
    } else if (Peek().Is("PARTITIONED") && Peek(1).Is("BY")) {
      pos_ += 2;
      SPATE_RETURN_IF_ERROR(ExpectOp("("));
      do {
        SPATE_ASSIGN_OR_RETURN(std::string col, ParseIdentifier());
        st.partition_columns.push_back(std::move(col));
        // Hive-style `PARTITIONED BY (c INT)` also names the type: not for USING tables.
        if (!Peek().IsOp(",") && !Peek().IsOp(")")) return SyntaxError(Peek());
      } while (MatchOp(","));
      SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    } else if (MatchKeyword("LOCATION")) {
      SPATE_ASSIGN_OR_RETURN(std::string l, ParseStringValue());
      st.location = std::move(l);
    } else if (MatchKeyword("COMMENT")) {
      SPATE_ASSIGN_OR_RETURN(std::string c, ParseStringValue());
      st.comment = std::move(c);
    } else if (MatchKeyword("TBLPROPERTIES")) {
      SPATE_ASSIGN_OR_RETURN(auto props, ParsePropertyList());
      for (auto& kv : props) st.properties.push_back(std::move(kv));
    } else if (Peek().Is("OPTIONS")) {
      Advance();
      SPATE_ASSIGN_OR_RETURN(auto props, ParsePropertyList());
      for (auto& kv : props) st.properties.push_back(std::move(kv));
    } else {
      return SyntaxError(Peek());
    }
  }
  if (MatchKeyword("AS") || IsQueryStart(Peek()) || Peek().IsOp("(")) {
    SPATE_ASSIGN_OR_RETURN(st.plan, ParseQuery());
  }
  return Status::OK();
}

// CREATE [OR REFRESH] STREAMING TABLE | MATERIALIZED VIEW name [(cols)] [clauses] [AS
// query] (Spark 4.1's pipeline datasets): the clauses of CREATE TABLE.
Result<Statement> Parser::ParseCreatePipelineDataset() {
  int64_t pos = Peek().begin;
  SPATE_RETURN_IF_ERROR(ExpectKeyword("CREATE"));
  bool refresh = false;
  if (MatchKeyword("OR")) {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("REFRESH"));
    refresh = true;
  }
  bool streaming = MatchKeyword("STREAMING");
  if (!streaming) SPATE_RETURN_IF_ERROR(ExpectKeyword("MATERIALIZED"));
  SPATE_RETURN_IF_ERROR(ExpectKeyword(streaming ? "TABLE" : "VIEW"));
  Statement st;
  st.kind = streaming ? Statement::Kind::kCreateStreamingTable
                      : Statement::Kind::kCreateMaterializedView;
  st.replace = refresh;
  SPATE_RETURN_IF_ERROR(ParseCreateTableBody(&st));
  if (!streaming && !st.plan) return SyntaxError(Peek());
  (void)pos;
  return st;
}

// CREATE FLOW name [COMMENT 'c'] AS INSERT INTO target BY NAME query.
Result<Statement> Parser::ParseCreateFlow() {
  SPATE_RETURN_IF_ERROR(ExpectKeyword("CREATE"));
  SPATE_RETURN_IF_ERROR(ExpectKeyword("FLOW"));
  Statement st;
  st.kind = Statement::Kind::kCreateFlow;
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  if (MatchKeyword("COMMENT")) {
    SPATE_ASSIGN_OR_RETURN(std::string c, ParseStringValue());
    st.comment = std::move(c);
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("AS"));
  if (!Peek().Is("INSERT")) return SyntaxError(Peek());
  SPATE_ASSIGN_OR_RETURN(Statement insert, ParseInsert());
  st.inner = std::make_shared<const Statement>(std::move(insert));
  return st;
}

Result<Statement> Parser::ParseInsert() {
  Advance();  // INSERT
  Statement st;
  st.kind = Statement::Kind::kInsert;
  if (MatchKeyword("OVERWRITE")) {
    st.overwrite = true;
  } else {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("INTO"));
  }
  MatchKeyword("TABLE");
  SPATE_ASSIGN_OR_RETURN(st.name, ParseMultipartIdentifier());
  if (Peek().IsOp("(") && !IsQueryStart(Peek(1)) && !Peek(1).IsOp("(")) {
    SPATE_ASSIGN_OR_RETURN(st.insert_columns, ParseIdentifierList());
  } else if (Peek().Is("BY") && Peek(1).Is("NAME")) {
    pos_ += 2;
    st.by_name = true;
  }
  if (!IsQueryStart(Peek()) && !Peek().IsOp("(")) return SyntaxError(Peek());
  SPATE_ASSIGN_OR_RETURN(st.plan, ParseQuery());
  return st;
}

// MERGE [WITH SCHEMA EVOLUTION] INTO target [[AS] alias] USING source [[AS] alias]
// ON condition (WHEN ...)+. Only the last clause of each kind may omit its condition
// (Spark's NON_LAST_*_CLAUSE_OMIT_CONDITION).
Result<Statement> Parser::ParseMerge() {
  Advance();  // MERGE
  auto merge = std::make_shared<MergeInto>();
  if (MatchKeyword("WITH")) {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("SCHEMA"));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("EVOLUTION"));
    merge->with_schema_evolution = true;
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("INTO"));
  SPATE_ASSIGN_OR_RETURN(merge->target, ParseMultipartIdentifier());
  if (std::optional<std::string> alias = MatchAlias()) merge->target_alias = *alias;
  SPATE_RETURN_IF_ERROR(ExpectKeyword("USING"));
  SPATE_ASSIGN_OR_RETURN(merge->source, ParseRelationPrimary());
  if (merge->source->kind == PlanKind::kSubqueryAlias) {
    if (!merge->source->column_aliases.empty()) {
      return Status::Error("COLUMN_ALIASES_NOT_ALLOWED", {{"op", "MERGE"}})
          .WithPosition(0);
    }
    merge->source_alias = merge->source->alias;
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("ON"));
  SPATE_ASSIGN_OR_RETURN(merge->condition, ParseExpression());
  if (!Peek().Is("WHEN")) return SyntaxError(Peek());
  while (Peek().Is("WHEN")) {
    int64_t pos = Peek().begin;
    SPATE_ASSIGN_OR_RETURN(MergeClause clause, ParseMergeClause());
    // A clause without a condition must be the last of its kind.
    for (const MergeClause& earlier : merge->clauses) {
      if (earlier.match != clause.match || earlier.condition) continue;
      const char* error = earlier.match == MergeClause::Match::kMatched
                              ? "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION"
                          : earlier.match == MergeClause::Match::kNotMatched
                              ? "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION"
                              : "NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION";
      return Status::Error(error).WithPosition(pos);
    }
    merge->clauses.push_back(std::move(clause));
  }
  Statement st;
  st.kind = Statement::Kind::kMerge;
  st.name = merge->target;
  st.merge = std::move(merge);
  return st;
}

// A Delta command's table: a (multipart) name, delta.`/path`, or a quoted path
// ('/data/t', OPTIMIZE / VACUUM) as {"delta", path}.
Result<std::vector<std::string>> Parser::ParseDeltaTarget() {
  if (Peek().kind == TokenKind::kString) {
    SPATE_ASSIGN_OR_RETURN(std::string path, ParseStringValue());
    return std::vector<std::string>{"delta", path};
  }
  return ParseMultipartIdentifier();
}

// UPDATE t [[AS] a] SET c = e, ... [WHERE cond]
// DELETE FROM t [[AS] a] [WHERE cond]
// RESTORE [TABLE] t [TO] VERSION AS OF n | TIMESTAMP AS OF 'ts'
// OPTIMIZE t|'path' [WHERE pred] [ZORDER BY (c, ...)]
// VACUUM t|'path' [RETAIN n HOURS] [DRY RUN]
Result<Statement> Parser::ParseDeltaCommand() {
  const Token& first = Advance();
  auto cmd = std::make_shared<DeltaCommand>();
  Statement st;
  auto alias = [&] {
    if (Peek().Is("SET") || Peek().Is("WHERE")) return;
    if (std::optional<std::string> a = MatchAlias()) cmd->alias = *a;
  };
  if (first.Is("UPDATE")) {
    st.kind = Statement::Kind::kUpdate;
    SPATE_ASSIGN_OR_RETURN(cmd->target, ParseDeltaTarget());
    alias();
    SPATE_RETURN_IF_ERROR(ExpectKeyword("SET"));
    do {
      SPATE_ASSIGN_OR_RETURN(std::vector<std::string> column, ParseMultipartIdentifier());
      SPATE_RETURN_IF_ERROR(ExpectOp("="));
      SPATE_ASSIGN_OR_RETURN(ExprPtr value, ParseExpression());
      cmd->assignments.emplace_back(std::move(column), std::move(value));
    } while (MatchOp(","));
    if (MatchKeyword("WHERE")) {
      SPATE_ASSIGN_OR_RETURN(cmd->condition, ParseExpression());
    }
  } else if (first.Is("DELETE")) {
    st.kind = Statement::Kind::kDelete;
    SPATE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
    SPATE_ASSIGN_OR_RETURN(cmd->target, ParseDeltaTarget());
    alias();
    if (MatchKeyword("WHERE")) {
      SPATE_ASSIGN_OR_RETURN(cmd->condition, ParseExpression());
    }
  } else if (first.Is("RESTORE")) {
    st.kind = Statement::Kind::kRestore;
    MatchKeyword("TABLE");
    SPATE_ASSIGN_OR_RETURN(cmd->target, ParseDeltaTarget());
    MatchKeyword("TO");
    MatchKeyword("FOR");
    if (MatchKeyword("VERSION") || MatchKeyword("SYSTEM_VERSION")) {
      SPATE_RETURN_IF_ERROR(ExpectKeyword("AS"));
      SPATE_RETURN_IF_ERROR(ExpectKeyword("OF"));
      const Token& v = Peek();
      std::string text = v.text;
      if (v.kind != TokenKind::kNumber && v.kind != TokenKind::kString)
        return SyntaxError(v);
      auto version = ParseInt64(text);
      if (!version) return SyntaxError(v);
      cmd->version = *version;
      Advance();
    } else if (MatchKeyword("TIMESTAMP") || MatchKeyword("SYSTEM_TIME")) {
      SPATE_RETURN_IF_ERROR(ExpectKeyword("AS"));
      SPATE_RETURN_IF_ERROR(ExpectKeyword("OF"));
      SPATE_ASSIGN_OR_RETURN(std::string ts, ParseStringValue());
      cmd->timestamp = std::move(ts);
    } else {
      return SyntaxError(Peek());
    }
  } else if (first.Is("OPTIMIZE")) {
    st.kind = Statement::Kind::kOptimize;
    SPATE_ASSIGN_OR_RETURN(cmd->target, ParseDeltaTarget());
    if (MatchKeyword("WHERE")) {
      SPATE_ASSIGN_OR_RETURN(cmd->condition, ParseExpression());
    }
    if (MatchKeyword("ZORDER")) {
      SPATE_RETURN_IF_ERROR(ExpectKeyword("BY"));
      const bool paren = MatchOp("(");
      do {
        SPATE_ASSIGN_OR_RETURN(std::vector<std::string> c, ParseMultipartIdentifier());
        cmd->zorder_by.push_back(std::move(c));
      } while (MatchOp(","));
      if (paren) SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    }
  } else {
    st.kind = Statement::Kind::kVacuum;
    SPATE_ASSIGN_OR_RETURN(cmd->target, ParseDeltaTarget());
    if (MatchKeyword("RETAIN")) {
      const Token& n = Peek();
      if (n.kind != TokenKind::kNumber) return SyntaxError(n);
      size_t used = 0;  // the number before a type suffix (100D, 100L)
      auto hours = ParseDoublePrefix(n.text, &used);
      if (!hours) return SyntaxError(n);
      cmd->retain_hours = *hours;
      Advance();
      SPATE_RETURN_IF_ERROR(ExpectKeyword("HOURS"));
    }
    if (MatchKeyword("DRY")) {
      SPATE_RETURN_IF_ERROR(ExpectKeyword("RUN"));
      cmd->dry_run = true;
    }
  }
  st.name = cmd->target;
  st.delta = std::move(cmd);
  return st;
}

Result<MergeClause> Parser::ParseMergeClause() {
  SPATE_RETURN_IF_ERROR(ExpectKeyword("WHEN"));
  MergeClause clause;
  if (MatchKeyword("NOT")) {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("MATCHED"));
    clause.match = MergeClause::Match::kNotMatched;
    if (MatchKeyword("BY")) {
      if (MatchKeyword("SOURCE")) {
        clause.match = MergeClause::Match::kNotMatchedBySource;
      } else {
        SPATE_RETURN_IF_ERROR(ExpectKeyword("TARGET"));
      }
    }
  } else {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("MATCHED"));
  }
  if (MatchKeyword("AND")) {
    SPATE_ASSIGN_OR_RETURN(clause.condition, ParseExpression());
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("THEN"));
  const bool insert_clause = clause.match == MergeClause::Match::kNotMatched;
  if (insert_clause) {
    SPATE_RETURN_IF_ERROR(ExpectKeyword("INSERT"));
    clause.action = MergeClause::Action::kInsert;
    if (MatchOp("*")) {
      clause.star = true;
      return clause;
    }
    std::vector<std::vector<std::string>> columns;
    SPATE_RETURN_IF_ERROR(ExpectOp("("));
    do {
      SPATE_ASSIGN_OR_RETURN(std::vector<std::string> column, ParseMultipartIdentifier());
      columns.push_back(std::move(column));
    } while (MatchOp(","));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("VALUES"));
    SPATE_RETURN_IF_ERROR(ExpectOp("("));
    SPATE_ASSIGN_OR_RETURN(std::vector<ExprPtr> values, ParseExpressionList());
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    if (values.size() != columns.size()) {
      return Status::Error(
                 "PARSE_SYNTAX_ERROR",
                 {{"error", "'VALUES'"},
                  {"hint", ": the INSERT clause of MERGE has " +
                               std::to_string(columns.size()) + " columns and " +
                               std::to_string(values.size()) + " values"}})
          .WithPosition(Peek().begin);
    }
    for (size_t i = 0; i < columns.size(); ++i) {
      clause.assignments.emplace_back(std::move(columns[i]), std::move(values[i]));
    }
    return clause;
  }
  if (MatchKeyword("DELETE")) {
    clause.action = MergeClause::Action::kDelete;
    return clause;
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("UPDATE"));
  SPATE_RETURN_IF_ERROR(ExpectKeyword("SET"));
  clause.action = MergeClause::Action::kUpdate;
  if (clause.match == MergeClause::Match::kMatched && MatchOp("*")) {
    clause.star = true;
    return clause;
  }
  do {
    SPATE_ASSIGN_OR_RETURN(std::vector<std::string> column, ParseMultipartIdentifier());
    SPATE_RETURN_IF_ERROR(ExpectOp("="));
    SPATE_ASSIGN_OR_RETURN(ExprPtr value, ParseExpression());
    clause.assignments.emplace_back(std::move(column), std::move(value));
  } while (MatchOp(","));
  return clause;
}

// ===================================================================================
// Queries
// ===================================================================================

Result<PlanPtr> Parser::ParseQuery() {
  DepthScope scope(&depth_);
  SPATE_RETURN_IF_ERROR(CheckDepth());
  int64_t pos = Peek().begin;
  std::vector<std::pair<std::string, PlanPtr>> ctes;
  if (MatchKeyword("WITH")) {
    MatchKeyword("RECURSIVE");
    do {
      int64_t name_pos = Peek().begin;
      SPATE_ASSIGN_OR_RETURN(std::string name, ParseIdentifier());
      std::vector<std::string> columns;
      if (Peek().IsOp("(")) {
        SPATE_ASSIGN_OR_RETURN(columns, ParseIdentifierList());
      }
      MatchKeyword("AS");
      SPATE_RETURN_IF_ERROR(ExpectOp("("));
      SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ParseQuery());
      SPATE_RETURN_IF_ERROR(ExpectOp(")"));
      for (const auto& [existing, unused] : ctes) {
        if (EqualsIgnoreCase(existing, name)) {
          return Status::Error("DUPLICATED_CTE_NAMES",
                               {{"duplicateNames", SqlId({name})}})
              .WithPosition(name_pos);
        }
      }
      if (!columns.empty()) {
        auto alias = NewPlan(PlanKind::kSubqueryAlias, name_pos);
        alias->alias = name;
        alias->column_aliases = std::move(columns);
        alias->children.push_back(std::move(plan));
        plan = alias;
      }
      ctes.emplace_back(std::move(name), std::move(plan));
    } while (MatchOp(","));
  }
  SPATE_ASSIGN_OR_RETURN(PlanPtr body, ParseSetOperations());
  SPATE_ASSIGN_OR_RETURN(body, ParseQueryOrganization(std::move(body)));
  // Named windows left after the WINDOW clauses of this level are undefined.
  SPATE_ASSIGN_OR_RETURN(body, ApplyWindows(body, {}, /*report_missing=*/true));
  if (ctes.empty()) return body;
  auto with = NewPlan(PlanKind::kWith, pos);
  with->ctes = std::move(ctes);
  with->children.push_back(std::move(body));
  return PlanPtr(with);
}

Result<PlanPtr> Parser::ParseSetOperations() {
  SPATE_ASSIGN_OR_RETURN(PlanPtr left, ParseIntersect());
  while (Peek().Is("UNION") || Peek().Is("EXCEPT") || Peek().Is("MINUS")) {
    const Token& op = Advance();
    auto node = NewPlan(PlanKind::kSetOperation, op.begin);
    node->set_op = op.Is("UNION") ? SetOpKind::kUnion : SetOpKind::kExcept;
    if (MatchKeyword("ALL")) {
      node->set_all = true;
    } else {
      MatchKeyword("DISTINCT");
    }
    SPATE_ASSIGN_OR_RETURN(PlanPtr right, ParseIntersect());
    node->children = {std::move(left), std::move(right)};
    left = node;
  }
  return left;
}

Result<PlanPtr> Parser::ParseIntersect() {
  SPATE_ASSIGN_OR_RETURN(PlanPtr left, ParseQueryPrimary());
  while (Peek().Is("INTERSECT")) {
    const Token& op = Advance();
    auto node = NewPlan(PlanKind::kSetOperation, op.begin);
    node->set_op = SetOpKind::kIntersect;
    if (MatchKeyword("ALL")) {
      node->set_all = true;
    } else {
      MatchKeyword("DISTINCT");
    }
    SPATE_ASSIGN_OR_RETURN(PlanPtr right, ParseQueryPrimary());
    node->children = {std::move(left), std::move(right)};
    left = node;
  }
  return left;
}

Result<PlanPtr> Parser::ParseQueryPrimary() {
  const Token& t = Peek();
  if (t.Is("SELECT")) return ParseQuerySpecification();
  if (t.Is("VALUES")) return ParseInlineTable();
  if (t.Is("TABLE")) {
    Advance();
    auto rel = NewPlan(PlanKind::kUnresolvedRelation, Peek().begin);
    SPATE_ASSIGN_OR_RETURN(rel->table_name, ParseMultipartIdentifier());
    return PlanPtr(rel);
  }
  if (t.IsOp("(")) return ParseParenthesizedQuery();
  return SyntaxError(t);
}

Result<PlanPtr> Parser::ParseParenthesizedQuery() {
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ParseQuery());
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  return plan;
}

Result<PlanPtr> Parser::ParseQuerySpecification() {
  int64_t pos = Peek().begin;
  SPATE_RETURN_IF_ERROR(ExpectKeyword("SELECT"));
  // Hints: SELECT /*+ name [(param, ...)] [[,] name ...] */ ... (SqlBaseParser's hint);
  // each statement becomes an UnresolvedHint over the FROM clause, the first outermost.
  std::vector<std::shared_ptr<LogicalPlan>> hints;
  while (Peek().IsOp("/*+")) {
    Advance();
    do {
      if (!Peek().IsWord() && Peek().kind != TokenKind::kQuotedIdent)
        return SyntaxError(Peek());
      auto hint = NewPlan(PlanKind::kHint, Peek().begin);
      hint->hint_name = Advance().text;
      if (MatchOp("(")) {
        do {
          SPATE_ASSIGN_OR_RETURN(ExprPtr param, ParseExpression());
          hint->exprs.push_back(std::move(param));
        } while (MatchOp(","));
        SPATE_RETURN_IF_ERROR(ExpectOp(")"));
      }
      hints.push_back(std::move(hint));
      MatchOp(",");
    } while (!Peek().IsOp("*/") && Peek().kind != TokenKind::kEnd);
    SPATE_RETURN_IF_ERROR(ExpectOp("*/"));
  }
  bool distinct = false;
  if (MatchKeyword("DISTINCT")) {
    distinct = true;
  } else if (Peek().Is("ALL") && !Peek(1).IsOp(",") && !Peek(1).Is("FROM") &&
             Peek(1).kind != TokenKind::kEnd) {
    Advance();
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<ExprPtr> select_list, ParseNamedExpressionList());
  PlanPtr child;
  if (Peek().Is("FROM")) {
    SPATE_ASSIGN_OR_RETURN(child, ParseFromClause());
  } else {
    child = OneRowRelation(pos);
  }
  for (auto it = hints.rbegin(); it != hints.rend(); ++it) {
    (*it)->children.push_back(std::move(child));
    child = *it;
  }
  if (Peek().Is("LATERAL") && Peek(1).Is("VIEW")) return SyntaxError(Peek());
  if (Peek().Is("WHERE")) {
    int64_t where_pos = Advance().begin;
    auto filter = NewPlan(PlanKind::kFilter, where_pos);
    SPATE_ASSIGN_OR_RETURN(filter->condition, ParseExpression());
    filter->children.push_back(std::move(child));
    child = filter;
  }
  std::optional<std::vector<ExprPtr>> group_by;
  int64_t group_pos = Peek().begin;
  if (Peek().Is("GROUP") && Peek(1).Is("BY")) {
    Advance();
    Advance();
    SPATE_ASSIGN_OR_RETURN(group_by, ParseGroupBy());
  }
  ExprPtr having;
  int64_t having_pos = Peek().begin;
  if (MatchKeyword("HAVING")) {
    SPATE_ASSIGN_OR_RETURN(having, ParseExpression());
  }
  PlanPtr plan;
  if (group_by || having) {
    auto agg = NewPlan(PlanKind::kAggregate, group_by ? group_pos : having_pos);
    if (group_by) agg->group_by = std::move(*group_by);
    agg->exprs = std::move(select_list);
    agg->children.push_back(std::move(child));
    plan = agg;
    if (having) {
      auto filter = NewPlan(PlanKind::kFilter, having_pos);
      filter->condition = std::move(having);
      filter->is_having = true;
      filter->children.push_back(std::move(plan));
      plan = filter;
    }
  } else {
    auto project = NewPlan(PlanKind::kProject, pos);
    project->exprs = std::move(select_list);
    project->children.push_back(std::move(child));
    plan = project;
  }
  if (distinct) {
    auto d = NewPlan(PlanKind::kDistinct, pos);
    d->children.push_back(std::move(plan));
    plan = d;
  }
  if (Peek().Is("WINDOW")) {
    WindowDefs defs;
    SPATE_RETURN_IF_ERROR(ParseWindowClause(&defs));
    SPATE_ASSIGN_OR_RETURN(plan, ApplyWindows(plan, defs, false));
  }
  return plan;
}

Result<ExprPtr> Parser::ParseGroupingSet() {
  // '(' [expression, ...] ')' | expression: a parenthesized list is a set unless more of
  // an expression follows it (`(a + 1) * 2`), then it is parsed again as one expression.
  int64_t pos = Peek().begin;
  if (Peek().IsOp("(")) {
    const size_t save = pos_;
    Advance();
    std::vector<ExprPtr> items;
    Status st = Status::OK();
    if (!Peek().IsOp(")")) {
      auto list = ParseExpressionList();
      if (list.ok())
        items = std::move(*list);
      else
        st = list.status();
    }
    if (st.ok() && MatchOp(")") && (Peek().IsOp(",") || Peek().IsOp(")"))) {
      return Positioned(Expr::Call("struct", std::move(items)), pos);
    }
    if (backtracks_left_-- <= 0)
      return st.ok() ? Status::Invalid("grouping set too ambiguous") : st;
    pos_ = save;
  }
  SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression());
  return Positioned(Expr::Call("struct", {std::move(e)}), pos);
}

Result<ExprPtr> Parser::ParseGroupingAnalytics() {
  // ROLLUP (set, ...) | CUBE (set, ...) | GROUPING SETS (element, ...), an element being
  // a set or a nested ROLLUP / CUBE; the caller checked the leading words.
  int64_t pos = Peek().begin;
  std::string kind = ToLower(Advance().text);
  if (kind == "grouping") {
    Advance();
    kind = "grouping_sets";
  }
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  std::vector<ExprPtr> items;
  do {
    if (kind == "grouping_sets" && IsGroupingAnalyticsStart()) {
      SPATE_ASSIGN_OR_RETURN(ExprPtr nested, ParseGroupingAnalytics());
      items.push_back(std::move(nested));
      continue;
    }
    SPATE_ASSIGN_OR_RETURN(ExprPtr set, ParseGroupingSet());
    items.push_back(std::move(set));
  } while (MatchOp(","));
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  return Positioned(Expr::Call(kind, std::move(items)), pos);
}

bool Parser::IsGroupingAnalyticsStart() const {
  return ((Peek().Is("ROLLUP") || Peek().Is("CUBE")) && Peek(1).IsOp("(")) ||
         (Peek().Is("GROUPING") && Peek(1).Is("SETS"));
}

Result<std::vector<ExprPtr>> Parser::ParseGroupBy() {
  std::vector<ExprPtr> exprs;
  // GROUP BY (): a global aggregate.
  if (Peek().IsOp("(") && Peek(1).IsOp(")")) {
    Advance();
    Advance();
    return exprs;
  }
  do {
    if (IsGroupingAnalyticsStart()) {
      SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseGroupingAnalytics());
      exprs.push_back(std::move(e));
      continue;
    }
    SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression());
    exprs.push_back(std::move(e));
  } while (MatchOp(","));
  if (Peek().Is("WITH") && (Peek(1).Is("ROLLUP") || Peek(1).Is("CUBE"))) {
    Advance();
    int64_t pos = Peek().begin;
    std::string kind = ToLower(Advance().text);
    std::vector<ExprPtr> sets;
    for (auto& e : exprs) sets.push_back(Expr::Call("struct", {std::move(e)}));
    exprs = {Positioned(Expr::Call(kind, std::move(sets)), pos)};
  }
  return exprs;
}

Status Parser::ParseWindowClause(WindowDefs* defs) {
  SPATE_RETURN_IF_ERROR(ExpectKeyword("WINDOW"));
  std::map<std::string, std::pair<std::string, WindowDef>>
      raw;  // lower name -> (name, spec)
  std::vector<std::string> order;
  do {
    int64_t pos = Peek().begin;
    SPATE_ASSIGN_OR_RETURN(std::string name, ParseIdentifier());
    SPATE_RETURN_IF_ERROR(ExpectKeyword("AS"));
    WindowDef spec;
    if (IsIdentifierToken(Peek())) {
      spec.ref_name = Advance().text;
    } else {
      SPATE_ASSIGN_OR_RETURN(spec, ParseWindowSpec());
    }
    std::string key = ToLower(name);
    if (raw.count(key) > 0) {
      return Status::Error("INVALID_SQL_SYNTAX.REPETITIVE_WINDOW_DEFINITION",
                           {{"windowName", SqlId({name})}})
          .WithPosition(pos);
    }
    raw.emplace(key, std::make_pair(name, std::move(spec)));
    order.push_back(key);
  } while (MatchOp(","));
  // A definition may name another definition (one level, as Spark).
  for (const std::string& key : order) {
    const WindowDef& spec = raw[key].second;
    if (spec.ref_name.empty()) {
      (*defs)[key] = spec;
      continue;
    }
    auto it = raw.find(ToLower(spec.ref_name));
    if (it == raw.end()) {
      return Status::Error("INVALID_SQL_SYNTAX.UNRESOLVED_WINDOW_REFERENCE",
                           {{"windowName", SqlId({spec.ref_name})}})
          .WithPosition(Peek().begin);
    }
    if (!it->second.second.ref_name.empty()) {
      return Status::Error("INVALID_SQL_SYNTAX.INVALID_WINDOW_REFERENCE",
                           {{"windowName", SqlId({spec.ref_name})}})
          .WithPosition(Peek().begin);
    }
    (*defs)[key] = it->second.second;
  }
  return Status::OK();
}

Result<PlanPtr> Parser::ApplyWindows(const PlanPtr& plan, const WindowDefs& defs,
                                     bool report_missing) {
  std::string missing;
  PlanPtr out = SubstituteWindowsInPlan(plan, defs, &missing);
  if (report_missing && !missing.empty()) {
    return Status::Error("MISSING_WINDOW_SPECIFICATION",
                         {{"windowName", missing}, {"docroot", std::string(kDocRoot)}})
        .WithPosition(plan->position);
  }
  return out;
}

Result<PlanPtr> Parser::ParseQueryOrganization(PlanPtr plan) {
  bool has_order = false;
  bool has_other = false;
  if (Peek().Is("ORDER") && Peek(1).Is("BY")) {
    int64_t pos = Advance().begin;
    Advance();
    auto sort = NewPlan(PlanKind::kSort, pos);
    SPATE_ASSIGN_OR_RETURN(sort->sort, ParseSortItems());
    sort->children.push_back(std::move(plan));
    plan = sort;
    has_order = true;
  }
  if (Peek().Is("CLUSTER") && Peek(1).Is("BY")) {
    int64_t pos = Advance().begin;
    Advance();
    SPATE_ASSIGN_OR_RETURN(std::vector<ExprPtr> exprs, ParseExpressionList());
    auto repartition = NewPlan(PlanKind::kRepartition, pos);
    repartition->exprs = exprs;
    repartition->children.push_back(std::move(plan));
    auto sort = NewPlan(PlanKind::kSort, pos);
    for (auto& e : exprs) sort->sort.push_back(SortSpec{e, true, true});
    sort->global_sort = false;
    sort->children.push_back(std::move(repartition));
    plan = sort;
    has_other = true;
  }
  if (Peek().Is("DISTRIBUTE") && Peek(1).Is("BY")) {
    int64_t pos = Advance().begin;
    Advance();
    auto repartition = NewPlan(PlanKind::kRepartition, pos);
    SPATE_ASSIGN_OR_RETURN(repartition->exprs, ParseExpressionList());
    repartition->children.push_back(std::move(plan));
    plan = repartition;
    has_other = true;
  }
  if (Peek().Is("SORT") && Peek(1).Is("BY")) {
    int64_t pos = Advance().begin;
    Advance();
    auto sort = NewPlan(PlanKind::kSort, pos);
    SPATE_ASSIGN_OR_RETURN(sort->sort, ParseSortItems());
    sort->global_sort = false;
    sort->children.push_back(std::move(plan));
    plan = sort;
    has_other = true;
  }
  if (has_order && has_other) {
    return Status::Error("UNSUPPORTED_FEATURE.COMBINATION_QUERY_RESULT_CLAUSES")
        .WithPosition(plan->position);
  }
  if (Peek().Is("WINDOW")) {
    WindowDefs defs;
    SPATE_RETURN_IF_ERROR(ParseWindowClause(&defs));
    SPATE_ASSIGN_OR_RETURN(plan, ApplyWindows(plan, defs, false));
  }
  ExprPtr limit;
  int64_t limit_pos = Peek().begin;
  if (MatchKeyword("LIMIT")) {
    if (!MatchKeyword("ALL")) {
      SPATE_ASSIGN_OR_RETURN(limit, ParseExpression());
    }
  }
  if (Peek().Is("OFFSET")) {
    int64_t pos = Advance().begin;
    auto offset = NewPlan(PlanKind::kOffset, pos);
    SPATE_ASSIGN_OR_RETURN(offset->count, ParseExpression());
    offset->children.push_back(std::move(plan));
    plan = offset;
  }
  if (limit) {
    auto node = NewPlan(PlanKind::kLimit, limit_pos);
    node->count = std::move(limit);
    node->children.push_back(std::move(plan));
    plan = node;
  }
  return plan;
}

Result<PlanPtr> Parser::ParseFromClause() {
  SPATE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
  SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ParseRelation());
  while (Peek().IsOp(",")) {
    int64_t pos = Advance().begin;
    SPATE_ASSIGN_OR_RETURN(PlanPtr right, ParseRelation());
    auto join = NewPlan(PlanKind::kJoin, pos);
    join->join_type = JoinType::kInner;
    join->children = {std::move(plan), std::move(right)};
    plan = join;
  }
  // LATERAL VIEW [OUTER] generator(args) tableAlias [AS] col [, col ...] (Hive syntax).
  while (Peek().Is("LATERAL") && Peek(1).Is("VIEW")) {
    int64_t pos = Peek().begin;
    pos_ += 2;
    bool outer = MatchKeyword("OUTER");
    int64_t fpos = Peek().begin;
    SPATE_ASSIGN_OR_RETURN(std::vector<std::string> fname, ParseMultipartIdentifier());
    if (!Peek().IsOp("(")) return SyntaxError(Peek());
    std::string name = fname.back();
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool has_outer =
        name.size() > 6 && name.compare(name.size() - 6, 6, "_outer") == 0;
    // stack always makes its n rows: OUTER changes nothing.
    if (outer && !has_outer && name != "stack") name += "_outer";
    SPATE_ASSIGN_OR_RETURN(ExprPtr call, ParseFunctionCall(name, fpos));
    auto lv = NewPlan(PlanKind::kLateralView, pos);
    lv->exprs.push_back(std::move(call));
    // The table alias may be left out before AS (Spark's docs: LATERAL VIEW f(x) AS c).
    if (!Peek().Is("AS")) {
      SPATE_ASSIGN_OR_RETURN(lv->alias, ParseIdentifier());
    }
    if (MatchKeyword("AS") || (IsIdentifierToken(Peek()) &&
                               !(Peek().IsWord() && IsNoAliasKeyword(Peek().upper)))) {
      do {
        SPATE_ASSIGN_OR_RETURN(std::string col, ParseIdentifier());
        lv->column_aliases.push_back(std::move(col));
      } while (MatchOp(","));
    }
    lv->children.push_back(std::move(plan));
    plan = lv;
  }
  return plan;
}

Result<PlanPtr> Parser::ParseRelation() {
  SPATE_ASSIGN_OR_RETURN(PlanPtr left, ParseRelationPrimary());
  while (true) {
    size_t save = pos_;
    int64_t pos = Peek().begin;
    bool natural = MatchKeyword("NATURAL");
    std::optional<JoinType> type;
    if (Peek().Is("JOIN")) {
      type = JoinType::kInner;
    } else if (MatchKeyword("INNER")) {
      type = JoinType::kInner;
    } else if (MatchKeyword("CROSS")) {
      type = JoinType::kCross;
    } else if (MatchKeyword("LEFT")) {
      if (MatchKeyword("SEMI")) {
        type = JoinType::kLeftSemi;
      } else if (MatchKeyword("ANTI")) {
        type = JoinType::kLeftAnti;
      } else {
        MatchKeyword("OUTER");
        type = JoinType::kLeftOuter;
      }
    } else if (MatchKeyword("SEMI")) {
      type = JoinType::kLeftSemi;
    } else if (MatchKeyword("ANTI")) {
      type = JoinType::kLeftAnti;
    } else if (MatchKeyword("RIGHT")) {
      MatchKeyword("OUTER");
      type = JoinType::kRightOuter;
    } else if (MatchKeyword("FULL")) {
      MatchKeyword("OUTER");
      type = JoinType::kFullOuter;
    }
    if (!type) {
      if (natural) return SyntaxError(Peek());
      pos_ = save;
      break;
    }
    SPATE_RETURN_IF_ERROR(ExpectKeyword("JOIN"));
    if (Peek().Is("LATERAL")) return SyntaxError(Peek());
    SPATE_ASSIGN_OR_RETURN(PlanPtr right, ParseRelationPrimary());
    auto join = NewPlan(PlanKind::kJoin, pos);
    join->join_type = *type;
    join->natural = natural;
    if (!natural) {
      if (MatchKeyword("ON")) {
        SPATE_ASSIGN_OR_RETURN(join->condition, ParseExpression());
      } else if (Peek().Is("USING")) {
        Advance();
        SPATE_ASSIGN_OR_RETURN(join->using_columns, ParseIdentifierList());
      }
    }
    join->children = {std::move(left), std::move(right)};
    left = join;
  }
  return left;
}

Result<PlanPtr> Parser::ParseRelationPrimary() {
  DepthScope scope(&depth_);
  SPATE_RETURN_IF_ERROR(CheckDepth());
  const Token& t = Peek();
  int64_t pos = t.begin;
  if (t.Is("STREAM") &&
      (Peek(1).IsOp("(") || (IsIdentifierToken(Peek(1)) &&
                             !(Peek(1).IsWord() && IsNotColumnKeyword(Peek(1).upper))))) {
    return ParseStreamRelation();
  }
  if (t.IsOp("(")) {
    // '(' query ')' or '(' relation ')': decide by the first token after the '(' run,
    // and retry as a relation when a query does not parse ("((SELECT 1) t JOIN u)").
    size_t k = 0;
    while (Peek(k).IsOp("(")) ++k;
    if (IsQueryStart(Peek(k))) {
      size_t save = pos_;
      Result<PlanPtr> query = ParseParenthesizedQuery();
      if (query.ok()) return ParseTableAlias(std::move(query).value(), false);
      if (k == 1 || backtracks_left_-- <= 0) return query.status();
      Status first_error = query.status();
      pos_ = save;
      Advance();
      Result<PlanPtr> rel = ParseRelation();
      if (!rel.ok()) {
        return rel.status().position() > first_error.position() ? rel.status()
                                                                : first_error;
      }
      SPATE_RETURN_IF_ERROR(ExpectOp(")"));
      return ParseTableAlias(std::move(rel).value(), false);
    }
    Advance();
    SPATE_ASSIGN_OR_RETURN(PlanPtr rel, ParseRelation());
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    return ParseTableAlias(std::move(rel), false);
  }
  if (t.Is("VALUES")) return ParseInlineTable();
  if (!IsIdentifierToken(t) || (t.IsWord() && IsNotColumnKeyword(t.upper))) {
    return SyntaxError(t);
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<std::string> name, ParseMultipartIdentifier());
  if (Peek().IsOp("(")) {
    SPATE_ASSIGN_OR_RETURN(PlanPtr fn, ParseTableFunction(std::move(name), pos));
    return ParseTableAlias(std::move(fn), false);
  }
  auto rel = NewPlan(PlanKind::kUnresolvedRelation, pos);
  rel->table_name = std::move(name);
  // Time travel: [FOR] (SYSTEM_VERSION | VERSION) AS OF n, [FOR] (SYSTEM_TIME |
  // TIMESTAMP) AS OF 'ts'.
  {
    size_t k = Peek().Is("FOR") ? 1 : 0;
    const Token& w = Peek(k);
    bool version = w.Is("VERSION") || w.Is("SYSTEM_VERSION");
    bool timestamp = w.Is("TIMESTAMP") || w.Is("SYSTEM_TIME");
    if ((version || timestamp) && Peek(k + 1).Is("AS") && Peek(k + 2).Is("OF")) {
      pos_ += k + 3;
      const Token& v = Peek();
      if (version) {
        if (v.kind == TokenKind::kNumber || v.kind == TokenKind::kString) {
          rel->as_of_version = std::strtoll(Advance().text.c_str(), nullptr, 10);
        } else {
          return SyntaxError(v);
        }
      } else if (v.kind == TokenKind::kString) {
        rel->as_of_timestamp = Advance().text;
      } else {
        return SyntaxError(v);
      }
    }
  }
  return ParseTableAlias(std::move(rel), false);
}

// name '(' [arg (',' arg)*] ')' with arg: expression | identifier '=>' expression.
Result<PlanPtr> Parser::ParseTableFunction(std::vector<std::string> name, int64_t pos) {
  auto fn = NewPlan(PlanKind::kTableFunction, pos);
  for (auto& part : name) part = ToLower(part);
  fn->table_name = std::move(name);
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  bool named = false;
  std::vector<std::string> names;
  if (!Peek().IsOp(")")) {
    do {
      std::string arg_name;
      if (IsIdentifierToken(Peek()) && Peek(1).IsOp("=>")) {
        arg_name = Advance().text;
        Advance();
        named = true;
      }
      SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression());
      fn->exprs.push_back(std::move(e));
      names.push_back(std::move(arg_name));
    } while (MatchOp(","));
  }
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  if (named) fn->arg_names = std::move(names);
  return PlanPtr(std::move(fn));
}

// STREAM name | STREAM '(' name ')' | STREAM fn(args): a table, view or table-valued
// function read as a stream (Spark 4.1).
Result<PlanPtr> Parser::ParseStreamRelation() {
  int64_t pos = Advance().begin;  // STREAM
  bool paren = MatchOp("(");
  SPATE_ASSIGN_OR_RETURN(std::vector<std::string> name, ParseMultipartIdentifier());
  std::shared_ptr<LogicalPlan> rel;
  if (Peek().IsOp("(")) {
    SPATE_ASSIGN_OR_RETURN(PlanPtr fn, ParseTableFunction(std::move(name), pos));
    rel = std::make_shared<LogicalPlan>(*fn);
  } else {
    rel = NewPlan(PlanKind::kUnresolvedRelation, pos);
    rel->table_name = std::move(name);
  }
  if (paren) SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  rel->streaming = true;
  return ParseTableAlias(std::move(rel), false);
}

Result<PlanPtr> Parser::ParseInlineTable() {
  int64_t pos = Peek().begin;
  SPATE_RETURN_IF_ERROR(ExpectKeyword("VALUES"));
  auto values = NewPlan(PlanKind::kValues, pos);
  do {
    SPATE_ASSIGN_OR_RETURN(ExprPtr row, ParseExpression());
    if (row_constructors_.count(row.get()) > 0) {
      values->rows.push_back(row->children);
    } else {
      values->rows.push_back({std::move(row)});
    }
  } while (MatchOp(","));
  return ParseTableAlias(std::move(values), true);
}

Result<PlanPtr> Parser::ParseTableAlias(PlanPtr plan, bool values) {
  int64_t pos = Peek().begin;
  // relation WATERMARK named_expression DELAY OF interval [AS alias]: an event-time
  // watermark on a column of the relation, or on a column the expression adds.
  if (Peek().Is("WATERMARK") && !Peek(1).IsOp(")") && !Peek(1).IsOp(",")) {
    Advance();
    // The expression's name needs AS here: DELAY would read as an alias.
    SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression());
    if (Peek().Is("AS")) {
      Advance();
      auto named = std::make_shared<Expr>(ExprKind::kAlias);
      named->children.push_back(std::move(e));
      SPATE_ASSIGN_OR_RETURN(named->name, ParseIdentifier());
      named->position = pos;
      e = named;
    }
    SPATE_RETURN_IF_ERROR(ExpectKeyword("DELAY"));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("OF"));
    SPATE_ASSIGN_OR_RETURN(ExprPtr delay, ParseValueExpression(0));
    ExprPtr column = e;
    if (e->kind != ExprKind::kColumn) {
      if (e->kind != ExprKind::kAlias || e->name.empty()) {
        return Status::Error("REQUIRES_EXPLICIT_NAME_IN_WATERMARK_CLAUSE",
                             {{"sqlExpr", e->DisplayName()}})
            .WithPosition(pos);
      }
      auto project = NewPlan(PlanKind::kProject, pos);
      project->exprs.push_back(std::make_shared<Expr>(ExprKind::kStar));
      project->exprs.push_back(e);
      project->children.push_back(std::move(plan));
      plan = project;
      auto ref = std::make_shared<Expr>(ExprKind::kColumn);
      ref->name_parts = {e->name};
      column = ref;
    }
    auto wm = NewPlan(PlanKind::kEventTimeWatermark, pos);
    wm->exprs = {std::move(column), std::move(delay)};
    wm->children.push_back(std::move(plan));
    plan = wm;
  }
  std::optional<std::string> alias = MatchAlias();
  if (!alias) return plan;
  std::vector<std::string> columns;
  if (Peek().IsOp("(")) {
    SPATE_ASSIGN_OR_RETURN(columns, ParseIdentifierList());
  }
  if (values && !columns.empty()) {
    auto copy = std::make_shared<LogicalPlan>(*plan);
    copy->column_aliases = columns;
    plan = copy;
  }
  auto node = NewPlan(PlanKind::kSubqueryAlias, pos);
  node->alias = std::move(*alias);
  node->column_aliases = std::move(columns);
  node->children.push_back(std::move(plan));
  return PlanPtr(node);
}

// ===================================================================================
// Expressions
// ===================================================================================

Result<std::vector<ExprPtr>> Parser::ParseNamedExpressionList() {
  std::vector<ExprPtr> out;
  do {
    SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseNamedExpression());
    out.push_back(std::move(e));
  } while (MatchOp(","));
  return out;
}

Result<ExprPtr> Parser::ParseNamedExpression() {
  SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression());
  int64_t pos = Peek().begin;
  if (Peek().Is("AS") && Peek(1).IsOp("(")) {
    Advance();
    SPATE_ASSIGN_OR_RETURN(std::vector<std::string> names, ParseIdentifierList());
    auto alias = std::make_shared<Expr>(ExprKind::kAlias);
    alias->children.push_back(std::move(e));
    alias->name_parts = std::move(names);
    alias->position = pos;
    return ExprPtr(alias);
  }
  if (Peek().Is("AS") && !IsIdentifierToken(Peek(1))) return SyntaxError(Peek(1));
  if (std::optional<std::string> name = MatchAlias()) {
    return Positioned(Expr::Alias(std::move(e), std::move(*name)), pos);
  }
  return e;
}

Result<std::vector<ExprPtr>> Parser::ParseExpressionList() {
  std::vector<ExprPtr> out;
  do {
    SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression());
    out.push_back(std::move(e));
  } while (MatchOp(","));
  return out;
}

Result<ExprPtr> Parser::ParseExpression() { return ParseOr(); }

Result<ExprPtr> Parser::ParseOr() {
  SPATE_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
  while (Peek().Is("OR")) {
    int64_t pos = Advance().begin;
    SPATE_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
    left = Positioned(Expr::Call("or", {std::move(left), std::move(right)}), pos);
  }
  return left;
}

Result<ExprPtr> Parser::ParseAnd() {
  SPATE_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
  while (Peek().Is("AND")) {
    int64_t pos = Advance().begin;
    SPATE_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
    left = Positioned(Expr::Call("and", {std::move(left), std::move(right)}), pos);
  }
  return left;
}

Result<ExprPtr> Parser::ParseNot() {
  DepthScope scope(&depth_);
  SPATE_RETURN_IF_ERROR(CheckDepth());
  const Token& t = Peek();
  int64_t pos = t.begin;
  bool exists_subquery = [&](size_t k) {
    return Peek(k).Is("EXISTS") && Peek(k + 1).IsOp("(") && IsQueryStart(Peek(k + 2));
  }(t.Is("NOT") || t.IsOp("!") ? 1 : 0);
  if (t.Is("NOT") || t.IsOp("!")) {
    Advance();
    if (exists_subquery) {
      SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseNot());
      auto copy = MutableCopy(e);
      copy->negated = !copy->negated;
      copy->position = pos;
      return ExprPtr(copy);
    }
    SPATE_ASSIGN_OR_RETURN(ExprPtr operand, ParseNot());
    return Positioned(Not(std::move(operand)), pos);
  }
  if (exists_subquery) {
    Advance();  // EXISTS
    SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ParseParenthesizedQuery());
    return SubqueryExpr(ExprKind::kExists, std::move(plan), pos);
  }
  return ParsePredicated();
}

Result<ExprPtr> Parser::ParsePredicated() {
  SPATE_ASSIGN_OR_RETURN(ExprPtr value, ParseValueExpression(0));
  return ParsePredicate(std::move(value));
}

Result<ExprPtr> Parser::ParsePredicate(ExprPtr value) {
  int64_t pos = Peek().begin;
  if (Peek().Is("IS")) {
    Advance();
    bool negated = MatchKeyword("NOT");
    const Token& kind = Peek();
    if (MatchKeyword("NULL")) {
      return Positioned(Expr::Call(negated ? "isnotnull" : "isnull", {std::move(value)}),
                        pos);
    }
    if (MatchKeyword("UNKNOWN")) {
      return Positioned(Expr::Call(negated ? "isnotnull" : "isnull", {std::move(value)}),
                        pos);
    }
    if (kind.Is("TRUE") || kind.Is("FALSE")) {
      Advance();
      ExprPtr e = Positioned(
          Expr::Call("<=>",
                     {std::move(value), Expr::Lit(Value::Boolean(kind.Is("TRUE")))}),
          pos);
      return negated ? Positioned(Not(std::move(e)), pos) : e;
    }
    if (MatchKeyword("DISTINCT")) {
      SPATE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
      SPATE_ASSIGN_OR_RETURN(ExprPtr right, ParseValueExpression(0));
      ExprPtr e =
          Positioned(Expr::Call("<=>", {std::move(value), std::move(right)}), pos);
      return negated ? e : Positioned(Not(std::move(e)), pos);
    }
    return SyntaxError(Peek());
  }
  size_t k = Peek().Is("NOT") ? 1 : 0;
  const Token& op = Peek(k);
  bool negated = k == 1;
  if (op.Is("BETWEEN")) {
    pos_ += k + 1;
    SPATE_ASSIGN_OR_RETURN(ExprPtr lower, ParseValueExpression(0));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("AND"));
    SPATE_ASSIGN_OR_RETURN(ExprPtr upper, ParseValueExpression(0));
    ExprPtr e = Positioned(
        Expr::Call("between", {std::move(value), std::move(lower), std::move(upper)}),
        pos);
    return negated ? Positioned(Not(std::move(e)), pos) : e;
  }
  if (op.Is("IN")) {
    pos_ += k + 1;
    SPATE_RETURN_IF_ERROR(ExpectOp("("));
    if (IsQueryStart(Peek())) {
      SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ParseQuery());
      SPATE_RETURN_IF_ERROR(ExpectOp(")"));
      auto e = std::make_shared<Expr>(ExprKind::kInSubquery);
      e->children.push_back(std::move(value));
      e->subquery = std::make_shared<PlanSubquery>(std::move(plan));
      e->negated = negated;
      e->position = pos;
      return ExprPtr(e);
    }
    SPATE_ASSIGN_OR_RETURN(std::vector<ExprPtr> list, ParseExpressionList());
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    return Positioned(Expr::In(std::move(value), std::move(list), negated), pos);
  }
  if (op.Is("LIKE") || op.Is("ILIKE") || op.Is("RLIKE") || op.Is("REGEXP")) {
    pos_ += k + 1;
    std::string name = op.Is("ILIKE") ? "ilike" : op.Is("LIKE") ? "like" : "rlike";
    if (name != "rlike" && (Peek().Is("ANY") || Peek().Is("SOME") || Peek().Is("ALL"))) {
      bool all = Advance().Is("ALL");
      SPATE_RETURN_IF_ERROR(ExpectOp("("));
      SPATE_ASSIGN_OR_RETURN(std::vector<ExprPtr> patterns, ParseExpressionList());
      SPATE_RETURN_IF_ERROR(ExpectOp(")"));
      // NOT LIKE ANY (p..) = NOT (LIKE ALL (p..)); NOT LIKE ALL = NOT (LIKE ANY).
      bool use_all = negated ? !all : all;
      std::vector<ExprPtr> args{std::move(value)};
      for (auto& p : patterns) args.push_back(std::move(p));
      ExprPtr e = Positioned(
          Expr::Call(name + (use_all ? "_all" : "_any"), std::move(args)), pos);
      return negated ? Positioned(Not(std::move(e)), pos) : e;
    }
    SPATE_ASSIGN_OR_RETURN(ExprPtr pattern, ParseValueExpression(0));
    std::vector<ExprPtr> args{std::move(value), std::move(pattern)};
    if (name != "rlike" && Peek().Is("ESCAPE")) {
      Advance();
      if (Peek().kind != TokenKind::kString) return SyntaxError(Peek());
      args.push_back(Expr::Lit(Value::String(Advance().text)));
    }
    ExprPtr e = Positioned(Expr::Call(name, std::move(args)), pos);
    return negated ? Positioned(Not(std::move(e)), pos) : e;
  }
  return value;
}

namespace {

struct BinaryOp {
  std::string name;
  int precedence = -1;
  int num_tokens = 1;
};

}  // namespace

Result<ExprPtr> Parser::ParseValueExpression(int min_precedence) {
  SPATE_ASSIGN_OR_RETURN(ExprPtr left, ParseUnary());
  while (true) {
    const Token& t = Peek();
    BinaryOp op;
    if (t.kind == TokenKind::kOperator) {
      const std::string& s = t.text;
      if (s == ">" && Peek(1).IsOp(">") && Peek(1).begin == t.end) {
        if (Peek(2).IsOp(">") && Peek(2).begin == Peek(1).end) {
          op = {"shiftrightunsigned", 5, 3};
        } else {
          op = {"shiftright", 5, 2};
        }
      } else if (s == "=" || s == "==") {
        op = {"=", 1};
      } else if (s == "<>" || s == "!=") {
        op = {"!=", 1};
      } else if (s == "<=>" || s == "<" || s == "<=" || s == ">" || s == ">=") {
        op = {s, 1};
      } else if (s == "|") {
        op = {"|", 2};
      } else if (s == "^") {
        op = {"^", 3};
      } else if (s == "&") {
        op = {"&", 4};
      } else if (s == "<<") {
        op = {"shiftleft", 5};
      } else if (s == "+" || s == "-" || s == "||") {
        op = {s, 6};
      } else if (s == "*" || s == "/" || s == "%") {
        op = {s, 7};
      }
    } else if (t.Is("DIV")) {
      op = {"div", 7};
    }
    if (op.precedence < 0 || op.precedence < min_precedence) break;
    int64_t pos = t.begin;
    pos_ += op.num_tokens;
    SPATE_ASSIGN_OR_RETURN(ExprPtr right, ParseValueExpression(op.precedence + 1));
    left = Positioned(Expr::Call(op.name, {std::move(left), std::move(right)}), pos);
  }
  return left;
}

Result<ExprPtr> Parser::ParseUnary() {
  DepthScope scope(&depth_);
  SPATE_RETURN_IF_ERROR(CheckDepth());
  const Token& t = Peek();
  int64_t pos = t.begin;
  if (t.IsOp("-") && Peek(1).kind == TokenKind::kNumber) {
    // Spark's `number: MINUS? INTEGER_VALUE ...`: the sign belongs to the literal, so
    // -2147483648 is an INT.
    Advance();
    SPATE_ASSIGN_OR_RETURN(ExprPtr lit, ParseNumberLiteral(/*negative=*/true, pos));
    return ParsePostfix(std::move(lit));
  }
  if (t.IsOp("-") || t.IsOp("+") || t.IsOp("~")) {
    Advance();
    SPATE_ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary());
    std::string name = t.text == "-" ? "negative" : t.text == "+" ? "positive" : "~";
    return Positioned(Expr::Call(name, {std::move(operand)}), pos);
  }
  SPATE_ASSIGN_OR_RETURN(ExprPtr primary, ParsePrimary());
  return ParsePostfix(std::move(primary));
}

Result<ExprPtr> Parser::ParsePostfix(ExprPtr base) {
  if (base->kind == ExprKind::kStar) return base;  // no fields or subscripts on '*'
  while (true) {
    int64_t pos = Peek().begin;
    if (MatchOp("[")) {
      SPATE_ASSIGN_OR_RETURN(ExprPtr key, ParseExpression());
      SPATE_RETURN_IF_ERROR(ExpectOp("]"));
      base = Positioned(Expr::Extract(std::move(base), std::move(key)), pos);
    } else if (Peek().IsOp(".") && IsIdentifierToken(Peek(1))) {
      Advance();
      std::string field = Advance().text;
      if (base->kind == ExprKind::kColumn) {
        auto copy = MutableCopy(base);
        copy->name_parts.push_back(std::move(field));
        base = copy;
      } else {
        base = Positioned(Expr::Field(std::move(base), std::move(field)), pos);
      }
    } else if (MatchOp("::")) {
      SPATE_ASSIGN_OR_RETURN(DataTypePtr type, ParseDataType());
      base = Positioned(Expr::Cast(std::move(base), std::move(type)), pos);
    } else {
      return base;
    }
  }
}

Result<ExprPtr> Parser::ParseNumberLiteral(bool negative, int64_t pos) {
  const Token& t = Advance();
  Result<Value> v = MakeNumericLiteral(t.text, negative);
  if (!v.ok()) return v.status().WithPosition(pos);
  return Positioned(Expr::Lit(std::move(v).value()), pos);
}

Result<ExprPtr> Parser::ParseStringLiteral() {
  int64_t pos = Peek().begin;
  std::string s;
  while (Peek().kind == TokenKind::kString) s += Advance().text;
  return Positioned(Expr::Lit(Value::String(std::move(s))), pos);
}

Result<ExprPtr> Parser::ParseTypedLiteral() {
  const Token& type = Advance();
  int64_t pos = type.begin;
  std::string value;
  while (Peek().kind == TokenKind::kString) value += Advance().text;
  auto invalid = [&](std::string_view type_name) {
    std::string quoted;
    for (char c : value) {
      if (c == '\'') quoted += '\\';
      quoted += c;
    }
    return Status::Error("INVALID_TYPED_LITERAL",
                         {{"valueType", "\"" + std::string(type_name) + "\""},
                          {"value", "'" + quoted + "'"}})
        .WithPosition(pos);
  };
  // A literal read in the session time zone, known only to the analyzer: a CAST of the
  // text the analyzer folds to a constant ("typed_literal", displayed as TYPE '...').
  auto zoned_literal = [&](const DataTypePtr& t, Value instant) {
    auto lit = std::make_shared<Expr>(*Expr::Cast(Expr::Lit(Value::String(value)), t));
    lit->name = "typed_literal";
    lit->literal = std::move(instant);
    return Positioned(lit, pos);
  };
  const bool ltz = type.Is("TIMESTAMP") || type.Is("TIMESTAMP_LTZ");
  if (type.Is("DATE") || ltz || type.Is("TIMESTAMP_NTZ")) {
    // Spark's special values first ('today', 'epoch', ...; convertSpecialDate & co.), at
    // the instant the parser reads them, kept in the node's literal for the analyzer.
    const DataTypePtr& t = type.Is("DATE") ? DataType::Date()
                           : ltz           ? DataType::Timestamp()
                                           : DataType::TimestampNtz();
    EvalContext clock;
    clock.query_start_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
    if (SpecialDatetimeValue(value, t->id(), clock)) {
      return zoned_literal(t, Value::Timestamp(clock.query_start_micros));
    }
  }
  // Then the functions behind CAST, as Spark's AstBuilder (stringToDate,
  // stringToTimestamp, stringToTimestampWithoutTimeZone, which ignores a zone).
  if (type.Is("DATE")) {
    int32_t days = 0;
    if (!CastStringToDate(value, &days)) return invalid("DATE");
    return Positioned(Expr::Lit(Value::Date(days)), pos);
  }
  if (ltz) {
    // Validated in UTC here; the analyzer reads it in the session time zone.
    int64_t micros = 0;
    if (!CastStringToTimestamp(value, EvalContext{}, &micros)) {
      return invalid("TIMESTAMP");
    }
    return zoned_literal(DataType::Timestamp(), Value());
  }
  if (type.Is("TIMESTAMP_NTZ")) {
    int64_t micros = 0;
    if (!CastStringToTimestampNtz(value, &micros)) return invalid("TIMESTAMP_NTZ");
    return Positioned(Expr::Lit(Value::TimestampNtz(micros)), pos);
  }
  if (type.Is("INTERVAL")) {
    Result<Value> v = MakeIntervalFromString(value, SourceBetween(pos, PrevEnd()));
    if (!v.ok()) return v.status().WithPosition(pos);
    return Positioned(Expr::Lit(std::move(v).value()), pos);
  }
  return Status::Error("UNSUPPORTED_TYPED_LITERAL",
                       {{"unsupportedType", "\"" + type.upper + "\""},
                        {"supportedTypes",
                         "\"DATE\", \"TIMESTAMP_NTZ\", \"TIMESTAMP_LTZ\", \"TIMESTAMP\", "
                         "\"INTERVAL\", \"X\""}})
      .WithPosition(pos);
}

Result<ExprPtr> Parser::ParseIntervalLiteral() {
  int64_t pos = Advance().begin;  // INTERVAL
  // INTERVAL 'string' without units: the units are inside the string.
  if (Peek().kind == TokenKind::kString &&
      !(Peek(1).IsWord() && IsIntervalUnit(Peek(1).upper))) {
    --pos_;
    return ParseTypedLiteral();
  }
  auto starts_value = [&](size_t k) {
    size_t v = Peek(k).IsOp("-") || Peek(k).IsOp("+") ? k + 1 : k;
    return (Peek(v).kind == TokenKind::kNumber || Peek(v).kind == TokenKind::kString) &&
           Peek(v + 1).IsWord() && IsIntervalUnit(Peek(v + 1).upper);
  };
  std::vector<IntervalUnitValue> parts;
  while (starts_value(0)) {
    bool minus = false;
    if (Peek().IsOp("-") || Peek().IsOp("+")) minus = Advance().IsOp("-");
    const Token& v = Advance();
    std::string value = v.text;
    if (v.kind == TokenKind::kString) {
      for (char c : value) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
          return Status::Error("INVALID_INTERVAL_FORMAT.INVALID_VALUE",
                               {{"input", value}, {"value", value}})
              .WithPosition(v.begin);
        }
      }
      // Spark: a sign before a quoted value flips the value's own sign.
      std::string trimmed = value;
      while (!trimmed.empty() && trimmed.front() == ' ') trimmed.erase(0, 1);
      if (minus) {
        value = !trimmed.empty() && trimmed.front() == '-' ? trimmed.substr(1)
                                                           : "-" + trimmed;
      } else {
        value = trimmed;
      }
    } else if (minus) {
      value = "-" + value;
    }
    const Token& unit = Advance();
    if (parts.empty() && Peek().Is("TO")) {
      Advance();
      if (!Peek().IsWord() || !IsIntervalUnit(Peek().upper)) return SyntaxError(Peek());
      const Token& to = Advance();
      if (v.kind != TokenKind::kString) {
        return SyntaxError(v, ": the value of from-to unit must be a string");
      }
      std::string raw = minus ? "-" + v.text : v.text;
      Result<Value> lit = MakeUnitToUnitInterval(raw, unit.upper, to.upper,
                                                 SourceBetween(pos, PrevEnd()));
      if (!lit.ok()) return lit.status().WithPosition(pos);
      return Positioned(Expr::Lit(std::move(lit).value()), pos);
    }
    parts.push_back({std::move(value), unit.upper});
  }
  if (parts.empty()) return SyntaxError(Peek());
  Result<Value> lit = MakeMultiUnitInterval(parts, SourceBetween(pos, PrevEnd()));
  if (!lit.ok()) return lit.status().WithPosition(pos);
  return Positioned(Expr::Lit(std::move(lit).value()), pos);
}

Result<ExprPtr> Parser::ParseCase() {
  int64_t pos = Advance().begin;  // CASE
  ExprPtr operand;
  if (!Peek().Is("WHEN")) {
    SPATE_ASSIGN_OR_RETURN(operand, ParseExpression());
  }
  std::vector<ExprPtr> branches;
  while (Peek().Is("WHEN")) {
    int64_t when_pos = Advance().begin;
    SPATE_ASSIGN_OR_RETURN(ExprPtr cond, ParseExpression());
    if (operand) cond = Positioned(Expr::Call("=", {operand, std::move(cond)}), when_pos);
    SPATE_RETURN_IF_ERROR(ExpectKeyword("THEN"));
    SPATE_ASSIGN_OR_RETURN(ExprPtr value, ParseExpression());
    branches.push_back(std::move(cond));
    branches.push_back(std::move(value));
  }
  if (branches.empty()) return SyntaxError(Peek());
  ExprPtr else_value;
  if (MatchKeyword("ELSE")) {
    SPATE_ASSIGN_OR_RETURN(else_value, ParseExpression());
  }
  SPATE_RETURN_IF_ERROR(ExpectKeyword("END"));
  return Positioned(Expr::CaseWhen(std::move(branches), std::move(else_value)), pos);
}

Result<ExprPtr> Parser::ParseCast() {
  const Token& kw = Advance();  // CAST | TRY_CAST
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression());
  SPATE_RETURN_IF_ERROR(ExpectKeyword("AS"));
  SPATE_ASSIGN_OR_RETURN(DataTypePtr type, ParseDataType());
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  return Positioned(Expr::Cast(std::move(e), std::move(type), kw.Is("TRY_CAST")),
                    kw.begin);
}

// EXTRACT / POSITION / SUBSTRING / TRIM with their SQL-standard argument syntax.
Result<ExprPtr> Parser::ParseSpecialFunction(bool* matched) {
  *matched = false;
  const Token& t = Peek();
  int64_t pos = t.begin;
  if (t.Is("EXTRACT") && IsIdentifierToken(Peek(2)) && Peek(3).Is("FROM")) {
    *matched = true;
    pos_ += 2;
    std::string field = ToUpper(Advance().text);
    Advance();  // FROM
    SPATE_ASSIGN_OR_RETURN(ExprPtr source, ParseExpression());
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    return Positioned(
        Expr::Call("extract", {Expr::Lit(Value::String(field)), std::move(source)}), pos);
  }
  const bool add = t.Is("TIMESTAMPADD") || t.Is("DATEADD") || t.Is("DATE_ADD");
  if ((add || t.Is("TIMESTAMPDIFF") || t.Is("DATEDIFF") || t.Is("DATE_DIFF") ||
       t.Is("TIMEDIFF")) &&
      Peek(3).IsOp(",")) {
    SPATE_ASSIGN_OR_RETURN(ExprPtr call, ParseTimestampUnitCall(add));
    if (call) *matched = true;
    return call;
  }
  if (t.Is("POSITION") && HasTopLevelKeyword("IN")) {
    *matched = true;
    pos_ += 2;
    SPATE_ASSIGN_OR_RETURN(ExprPtr needle, ParseValueExpression(0));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("IN"));
    SPATE_ASSIGN_OR_RETURN(ExprPtr haystack, ParseValueExpression(0));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    return Positioned(Expr::Call("position", {std::move(needle), std::move(haystack)}),
                      pos);
  }
  if ((t.Is("SUBSTRING") || t.Is("SUBSTR")) && HasTopLevelKeyword("FROM")) {
    *matched = true;
    pos_ += 2;
    std::vector<ExprPtr> args;
    SPATE_ASSIGN_OR_RETURN(ExprPtr str, ParseValueExpression(0));
    args.push_back(std::move(str));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
    SPATE_ASSIGN_OR_RETURN(ExprPtr start, ParseValueExpression(0));
    args.push_back(std::move(start));
    if (MatchKeyword("FOR")) {
      SPATE_ASSIGN_OR_RETURN(ExprPtr len, ParseValueExpression(0));
      args.push_back(std::move(len));
    }
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    return Positioned(Expr::Call("substring", std::move(args)), pos);
  }
  if (t.Is("TRIM") && HasTopLevelKeyword("FROM")) {
    *matched = true;
    pos_ += 2;
    std::string name = "trim";
    if (Peek().Is("BOTH") || Peek().Is("LEADING") || Peek().Is("TRAILING")) {
      const Token& side = Advance();
      name = side.Is("LEADING") ? "ltrim" : side.Is("TRAILING") ? "rtrim" : "trim";
    }
    ExprPtr chars;
    if (!Peek().Is("FROM")) {
      SPATE_ASSIGN_OR_RETURN(chars, ParseValueExpression(0));
    }
    SPATE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
    SPATE_ASSIGN_OR_RETURN(ExprPtr str, ParseValueExpression(0));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    std::vector<ExprPtr> args{std::move(str)};
    if (chars) args.push_back(std::move(chars));
    return Positioned(Expr::Call(name, std::move(args)), pos);
  }
  return ExprPtr();
}

// Spark's #timestampadd / #timestampdiff rules: name '(' unit ',' expr ',' expr ')' with
// the unit one of the keywords YEAR ... MICROSECOND, or a string literal, which is an
// error. Returns nullptr (nothing consumed) when the call is not of that shape: another
// unit word, another number of arguments; it is then an ordinary call (dateadd(d, 1),
// datediff(a, b); timestampadd(FOO, 1, ts) is UNRESOLVED_ROUTINE, as in Spark).
Result<ExprPtr> Parser::ParseTimestampUnitCall(bool add) {
  const Token& name = Peek();
  const Token& unit = Peek(2);
  const bool quoted = unit.kind == TokenKind::kString;
  if (!quoted && !(unit.IsWord() && IsTimestampUnit(unit.text))) return ExprPtr();
  const size_t save = pos_;
  const int64_t pos = name.begin;
  pos_ += 4;
  auto first = ParseExpression();
  if (first.ok() && MatchOp(",")) {
    auto second = ParseExpression();
    if (second.ok() && MatchOp(")")) {
      if (quoted) {
        return Status::Error(
                   "INVALID_PARAMETER_VALUE.DATETIME_UNIT",
                   {{"parameter", "`unit`"},
                    {"functionName", "`" + name.text + "`"},
                    {"invalidValue", std::string(SourceBetween(unit.begin, unit.end))}})
            .WithPosition(pos);
      }
      return Positioned(Expr::Call(add ? kTimestampAddCall : kTimestampDiffCall,
                                   {Expr::Lit(Value::String(unit.text)),
                                    std::move(*first), std::move(*second)}),
                        pos);
    }
  }
  if (backtracks_left_-- <= 0) return Status::Invalid("function call too ambiguous");
  pos_ = save;
  return ExprPtr();
}

Result<ExprPtr> Parser::ParseFunctionCall(std::string name, int64_t pos) {
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  auto call = std::make_shared<Expr>(ExprKind::kCall);
  call->name = std::move(name);
  call->position = pos;
  if (!Peek().IsOp(")")) {
    if (MatchKeyword("DISTINCT")) {
      call->is_distinct = true;
    } else if (Peek().Is("ALL") && !Peek(1).IsOp(")") && !Peek(1).IsOp(",")) {
      Advance();
    }
    if (Peek().IsOp("*") && Peek(1).IsOp(")")) {
      call->children.push_back(Positioned(Expr::Star(), Advance().begin));
    } else if (EqualsIgnoreCase(call->name, "struct")) {
      // Spark's #struct rule: arguments are named expressions (struct(a AS x, b)).
      do {
        SPATE_ASSIGN_OR_RETURN(ExprPtr arg, ParseNamedExpression());
        call->children.push_back(std::move(arg));
      } while (MatchOp(","));
    } else {
      // Arguments, positional or named (`param => value`), placed by the function's
      // signature (sql/named_arguments.h).
      std::vector<CallArgument> args;
      do {
        CallArgument a;
        a.position = Peek().begin;
        if (IsIdentifierToken(Peek()) && Peek(1).IsOp("=>")) {
          a.name = Advance().text;
          Advance();
        }
        SPATE_ASSIGN_OR_RETURN(a.value, ParseExpression());
        args.push_back(std::move(a));
      } while (MatchOp(","));
      SPATE_ASSIGN_OR_RETURN(call->children,
                             ResolveCallArguments(call->name, std::move(args)));
    }
    if ((Peek().Is("IGNORE") || Peek().Is("RESPECT")) && Peek(1).Is("NULLS")) {
      call->ignore_nulls = Advance().Is("IGNORE");
      Advance();
    }
  }
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  // SQL's two-argument trim / ltrim / rtrim take the characters first (Spark's
  // `this(trimStr, srcStr)`); the call node, as the DataFrame functions build it, holds
  // the string first.
  if (call->children.size() == 2 &&
      (EqualsIgnoreCase(call->name, "trim") || EqualsIgnoreCase(call->name, "ltrim") ||
       EqualsIgnoreCase(call->name, "rtrim")))
    std::swap(call->children[0], call->children[1]);
  // listagg / string_agg without a delimiter: Spark's NULL delimiter, named listagg(s,
  // NULL).
  if (call->children.size() == 1 && call->children[0]->kind != ExprKind::kStar &&
      (EqualsIgnoreCase(call->name, "listagg") ||
       EqualsIgnoreCase(call->name, "string_agg"))) {
    call->children.push_back(Expr::Lit(Value::Null(DataType::Null())));
  }
  // agg(...) WITHIN GROUP (ORDER BY key [, ...]) (percentile_cont, percentile_disc,
  // listagg).
  if (Peek().Is("WITHIN") && Peek(1).Is("GROUP")) {
    Advance();
    Advance();
    SPATE_RETURN_IF_ERROR(ExpectOp("("));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("ORDER"));
    SPATE_RETURN_IF_ERROR(ExpectKeyword("BY"));
    SPATE_ASSIGN_OR_RETURN(call->within_group, ParseSortItems());
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    static const char* const kWithinGroup[] = {"percentile_cont", "percentile_disc",
                                               "listagg", "string_agg"};
    bool supported = false;
    for (const char* n : kWithinGroup) supported |= EqualsIgnoreCase(call->name, n);
    if (!supported) {
      return Status::Error("INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX",
                           {{"prettyName", "`" + ToLower(call->name) + "`"},
                            {"syntax", "WITHIN GROUP (ORDER BY ...)"}})
          .WithPosition(pos);
    }
  } else if (Peek().Is("WITHIN")) {
    return SyntaxError(Peek());
  }
  if (Peek().Is("FILTER") && Peek(1).IsOp("(")) {
    Advance();
    Advance();
    SPATE_RETURN_IF_ERROR(ExpectKeyword("WHERE"));
    SPATE_ASSIGN_OR_RETURN(call->filter, ParseExpression());
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  }
  if ((Peek().Is("IGNORE") || Peek().Is("RESPECT")) && Peek(1).Is("NULLS")) {
    call->ignore_nulls = Advance().Is("IGNORE");
    Advance();
  }
  ExprPtr result = call;
  if (Peek().Is("OVER")) {
    int64_t over_pos = Advance().begin;
    WindowDef spec;
    if (IsIdentifierToken(Peek())) {
      spec.ref_name = Advance().text;
    } else {
      SPATE_ASSIGN_OR_RETURN(spec, ParseWindowSpec());
    }
    result = Positioned(Expr::Window(std::move(result), std::move(spec)), over_pos);
  }
  return result;
}

Result<WindowDef> Parser::ParseWindowSpec() {
  SPATE_RETURN_IF_ERROR(ExpectOp("("));
  WindowDef spec;
  if (IsIdentifierToken(Peek()) && Peek(1).IsOp(")")) {  // OVER (w)
    spec.ref_name = Advance().text;
    Advance();
    return spec;
  }
  if ((Peek().Is("PARTITION") || Peek().Is("DISTRIBUTE")) && Peek(1).Is("BY")) {
    pos_ += 2;
    SPATE_ASSIGN_OR_RETURN(spec.partition_by, ParseExpressionList());
  }
  if ((Peek().Is("ORDER") || Peek().Is("SORT")) && Peek(1).Is("BY")) {
    pos_ += 2;
    SPATE_ASSIGN_OR_RETURN(spec.order_by, ParseSortItems());
  }
  if (Peek().Is("ROWS") || Peek().Is("RANGE")) {
    WindowFrame frame;
    frame.kind =
        Advance().Is("ROWS") ? WindowFrame::Kind::kRows : WindowFrame::Kind::kRange;
    if (MatchKeyword("BETWEEN")) {
      SPATE_ASSIGN_OR_RETURN(frame.lower, ParseFrameBound());
      SPATE_RETURN_IF_ERROR(ExpectKeyword("AND"));
      SPATE_ASSIGN_OR_RETURN(frame.upper, ParseFrameBound());
    } else {
      SPATE_ASSIGN_OR_RETURN(frame.lower, ParseFrameBound());
      frame.upper.type = FrameBound::Type::kCurrentRow;
    }
    spec.frame = std::move(frame);
  }
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  return spec;
}

Result<FrameBound> Parser::ParseFrameBound() {
  FrameBound b;
  if (Peek().Is("UNBOUNDED")) {
    Advance();
    if (MatchKeyword("PRECEDING")) {
      b.type = FrameBound::Type::kUnboundedPreceding;
    } else if (MatchKeyword("FOLLOWING")) {
      b.type = FrameBound::Type::kUnboundedFollowing;
    } else {
      return SyntaxError(Peek());
    }
    return b;
  }
  if (Peek().Is("CURRENT") && Peek(1).Is("ROW")) {
    pos_ += 2;
    b.type = FrameBound::Type::kCurrentRow;
    return b;
  }
  SPATE_ASSIGN_OR_RETURN(b.offset, ParseValueExpression(0));
  if (MatchKeyword("PRECEDING")) {
    b.type = FrameBound::Type::kPreceding;
  } else if (MatchKeyword("FOLLOWING")) {
    b.type = FrameBound::Type::kFollowing;
  } else {
    return SyntaxError(Peek());
  }
  return b;
}

Result<SortSpec> Parser::ParseSortItem() {
  SortSpec s;
  SPATE_ASSIGN_OR_RETURN(s.expr, ParseExpression());
  if (MatchKeyword("DESC")) {
    s.ascending = false;
  } else {
    MatchKeyword("ASC");
  }
  s.nulls_first = s.ascending;
  if (Peek().Is("NULLS") && (Peek(1).Is("FIRST") || Peek(1).Is("LAST"))) {
    Advance();
    s.nulls_first = Advance().Is("FIRST");
  }
  return s;
}

Result<std::vector<SortSpec>> Parser::ParseSortItems() {
  std::vector<SortSpec> out;
  do {
    SPATE_ASSIGN_OR_RETURN(SortSpec s, ParseSortItem());
    out.push_back(std::move(s));
  } while (MatchOp(","));
  return out;
}

bool Parser::HasTopLevelKeyword(std::string_view keyword) const {
  int depth = 0;
  for (size_t k = 1;; ++k) {
    const Token& t = Peek(k);
    if (t.kind == TokenKind::kEnd) return false;
    if (t.IsOp("(") || t.IsOp("[")) {
      ++depth;
    } else if (t.IsOp(")") || t.IsOp("]")) {
      if (--depth == 0) return false;
    } else if (depth == 1 && t.Is(keyword)) {
      return true;
    }
  }
}

bool Parser::LooksLikeLambda() const {
  if (IsIdentifierToken(Peek()) && Peek(1).IsOp("->")) return true;
  if (!Peek().IsOp("(")) return false;
  size_t k = 1;
  while (true) {
    if (!IsIdentifierToken(Peek(k))) return false;
    ++k;
    if (Peek(k).IsOp(")")) return Peek(k + 1).IsOp("->");
    if (!Peek(k).IsOp(",")) return false;
    ++k;
  }
}

Result<ExprPtr> Parser::ParseLambda() {
  int64_t pos = Peek().begin;
  auto lambda = std::make_shared<Expr>(ExprKind::kLambda);
  lambda->position = pos;
  if (MatchOp("(")) {
    do {
      lambda->name_parts.push_back(Advance().text);
    } while (MatchOp(","));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  } else {
    lambda->name_parts.push_back(Advance().text);
  }
  SPATE_RETURN_IF_ERROR(ExpectOp("->"));
  SPATE_ASSIGN_OR_RETURN(ExprPtr body, ParseExpression());
  lambda->children.push_back(std::move(body));
  return ExprPtr(lambda);
}

Result<ExprPtr> Parser::ParseParenthesized() {
  int64_t pos = Peek().begin;
  // '(' query ')' is a scalar subquery. With more parentheses, "((SELECT 1))" and
  // "((SELECT 1) + 1)" are both valid: try the query first and fall back.
  if (IsQueryStart(Peek(1))) {
    SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ParseParenthesizedQuery());
    return SubqueryExpr(ExprKind::kScalarSubquery, std::move(plan), pos);
  }
  size_t k = 1;
  while (Peek(k).IsOp("(")) ++k;
  if (k > 1 && IsQueryStart(Peek(k)) && backtracks_left_ > 0) {
    size_t save = pos_;
    Result<PlanPtr> plan = ParseParenthesizedQuery();
    if (plan.ok())
      return SubqueryExpr(ExprKind::kScalarSubquery, std::move(plan).value(), pos);
    --backtracks_left_;
    pos_ = save;
  }
  Advance();  // (
  SPATE_ASSIGN_OR_RETURN(std::vector<ExprPtr> items, ParseExpressionList());
  SPATE_RETURN_IF_ERROR(ExpectOp(")"));
  if (items.size() == 1) return items[0];
  ExprPtr row = Positioned(Expr::Call("struct", std::move(items)), pos);
  row_constructors_.emplace(row.get(), row);
  return row;
}

Result<ExprPtr> Parser::ParsePrimary() {
  DepthScope scope(&depth_);
  SPATE_RETURN_IF_ERROR(CheckDepth());
  const Token& t = Peek();
  int64_t pos = t.begin;
  switch (t.kind) {
    case TokenKind::kNumber:
      return ParseNumberLiteral(/*negative=*/false, pos);
    case TokenKind::kString:
      return ParseStringLiteral();
    case TokenKind::kHexString: {
      Advance();
      std::optional<std::string> bytes = DecodeHex(t.text);
      if (!bytes) {
        return Status::Error("INVALID_TYPED_LITERAL",
                             {{"valueType", "\"X\""}, {"value", "'" + t.text + "'"}})
            .WithPosition(pos);
      }
      return Positioned(Expr::Lit(Value::Binary(std::move(*bytes))), pos);
    }
    case TokenKind::kOperator:
      if (t.IsOp("(")) {
        if (LooksLikeLambda()) return ParseLambda();
        return ParseParenthesized();
      }
      if (t.IsOp("*")) {
        Advance();
        return Positioned(Expr::Star(), pos);
      }
      return SyntaxError(t);
    case TokenKind::kEnd:
      return SyntaxError(t);
    case TokenKind::kWord:
    case TokenKind::kQuotedIdent:
      break;
  }
  if (t.IsWord()) {
    const std::string& u = t.upper;
    const Token& next = Peek(1);
    if (u == "NULL") {
      Advance();
      return Positioned(Expr::Lit(Value()), pos);
    }
    if (u == "TRUE" || u == "FALSE") {
      Advance();
      return Positioned(Expr::Lit(Value::Boolean(u == "TRUE")), pos);
    }
    if (u == "CASE") return ParseCase();
    if ((u == "CAST" || u == "TRY_CAST") && next.IsOp("(")) return ParseCast();
    if (u == "INTERVAL" &&
        (next.kind == TokenKind::kNumber || next.kind == TokenKind::kString ||
         ((next.IsOp("-") || next.IsOp("+")) &&
          (Peek(2).kind == TokenKind::kNumber || Peek(2).kind == TokenKind::kString)))) {
      return ParseIntervalLiteral();
    }
    if (next.kind == TokenKind::kString) return ParseTypedLiteral();
    if ((u == "CURRENT_USER" || u == "USER" || u == "SESSION_USER") && !next.IsOp("(") &&
        !next.IsOp(".")) {
      // A column of that name wins (events often have a `user` column); otherwise the
      // analyzer falls back to the current user (Spark's literal-function resolution).
      auto col =
          std::make_shared<Expr>(*Expr::Col(std::vector<std::string>{Advance().text}));
      col->name = "current_user";
      return Positioned(col, pos);
    }
    if ((u == "CURRENT_DATE" || u == "CURRENT_TIMESTAMP") && !next.IsOp("(") &&
        !next.IsOp(".")) {
      Advance();
      return Positioned(Expr::Call(ToLower(u), {}), pos);
    }
    if (next.IsOp("(")) {
      bool matched = false;
      SPATE_ASSIGN_OR_RETURN(ExprPtr special, ParseSpecialFunction(&matched));
      if (matched) return special;
    }
  }
  if (LooksLikeLambda()) return ParseLambda();
  // A keyword followed by '(' is a function (left(s, 1)), followed by '.' a qualifier
  // (left.x with FROM a AS left); anywhere else it cannot start an operand.
  if (t.IsWord() && IsNotColumnKeyword(t.upper) && !Peek(1).IsOp("(") &&
      !Peek(1).IsOp(".")) {
    return SyntaxError(t);
  }
  // Column reference a.b.c, star t.*, or function call [db.]f(...).
  std::vector<std::string> parts{Advance().text};
  while (Peek().IsOp(".")) {
    if (IsIdentifierToken(Peek(1))) {
      Advance();
      parts.push_back(Advance().text);
    } else if (Peek(1).IsOp("*")) {
      pos_ += 2;
      return Positioned(Expr::Star(std::move(parts)), pos);
    } else {
      return SyntaxError(Peek(1));
    }
  }
  if (Peek().IsOp("(")) {
    std::string name;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) name += ".";
      name += ToLower(parts[i]);
    }
    return ParseFunctionCall(std::move(name), pos);
  }
  return Positioned(Expr::Col(std::move(parts)), pos);
}

// ===================================================================================
// Data types
// ===================================================================================

Result<DataTypePtr> Parser::ParseDataType() {
  DepthScope scope(&depth_);
  SPATE_RETURN_IF_ERROR(CheckDepth());
  const Token& t = Peek();
  if (!t.IsWord()) return SyntaxError(t);
  const std::string& u = t.upper;
  int64_t pos = t.begin;
  Advance();
  auto unsupported = [&](const std::string& name) {
    return Status::Error("UNSUPPORTED_DATATYPE", {{"typeName", "\"" + name + "\""}})
        .WithPosition(pos);
  };
  // Reads "(n)" or "(n, m)"; false if absent. Numbers must be plain integers.
  auto parse_params = [&](std::vector<int64_t>* params) -> Result<bool> {
    if (!MatchOp("(")) return false;
    do {
      const Token& n = Peek();
      if (n.kind != TokenKind::kNumber || n.text.size() > 9 ||
          n.text.find_first_not_of("0123456789") != std::string::npos) {
        return SyntaxError(n);
      }
      params->push_back(ParseInt64(n.text).value_or(0));
      Advance();
    } while (MatchOp(","));
    SPATE_RETURN_IF_ERROR(ExpectOp(")"));
    return true;
  };
  static const auto* kSimple = new std::map<std::string_view, const DataTypePtr*>{
      {"BOOLEAN", &DataType::Boolean()},
      {"TINYINT", &DataType::Byte()},
      {"BYTE", &DataType::Byte()},
      {"SMALLINT", &DataType::Short()},
      {"SHORT", &DataType::Short()},
      {"INT", &DataType::Int()},
      {"INTEGER", &DataType::Int()},
      {"BIGINT", &DataType::Long()},
      {"LONG", &DataType::Long()},
      {"FLOAT", &DataType::Float()},
      {"REAL", &DataType::Float()},
      {"DOUBLE", &DataType::Double()},
      {"DATE", &DataType::Date()},
      {"TIMESTAMP", &DataType::Timestamp()},
      {"TIMESTAMP_LTZ", &DataType::Timestamp()},
      {"TIMESTAMP_NTZ", &DataType::TimestampNtz()},
      {"STRING", &DataType::String()},
      {"BINARY", &DataType::Binary()},
      {"VOID", &DataType::Null()}};
  auto simple = kSimple->find(u);
  if (simple != kSimple->end()) {
    if (Peek().IsOp("(")) {
      std::vector<int64_t> params;
      SPATE_ASSIGN_OR_RETURN(bool unused, parse_params(&params));
      (void)unused;
      return unsupported(std::string(SourceBetween(pos, PrevEnd())));
    }
    return *simple->second;
  }
  if (u == "DECIMAL" || u == "DEC" || u == "NUMERIC") {
    std::vector<int64_t> params;
    SPATE_ASSIGN_OR_RETURN(bool has_params, parse_params(&params));
    int64_t precision = 10;
    int64_t scale = 0;
    if (has_params) {
      if (params.size() > 2)
        return unsupported(std::string(SourceBetween(pos, PrevEnd())));
      precision = params[0];
      scale = params.size() > 1 ? params[1] : 0;
    }
    if (precision > 38) {
      return Status::Error(
                 "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                 {{"precision", std::to_string(precision)}, {"maxPrecision", "38"}})
          .WithPosition(pos);
    }
    if (scale > precision) {
      return Status::Error("_LEGACY_ERROR_TEMP_1228",
                           {{"scale", std::to_string(scale)},
                            {"precision", std::to_string(precision)}})
          .WithPosition(pos);
    }
    // Spark 4.2 accepts DECIMAL(0) (DecimalType(0, 0)); spate has no zero-digit decimal.
    if (precision < 1) return unsupported(ToUpper(SourceBetween(pos, PrevEnd())));
    return DataType::Decimal(static_cast<int>(precision), static_cast<int>(scale));
  }
  if (u == "CHAR" || u == "CHARACTER" || u == "VARCHAR") {
    std::vector<int64_t> params;
    SPATE_ASSIGN_OR_RETURN(bool has_params, parse_params(&params));
    if (!has_params) {
      return Status::Error("DATATYPE_MISSING_SIZE", {{"type", "\"" + u + "\""}})
          .WithPosition(pos);
    }
    if (params.size() != 1)
      return unsupported(std::string(SourceBetween(pos, PrevEnd())));
    return DataType::String();
  }
  if (u == "INTERVAL") {
    if (!Peek().IsWord() || !IsIntervalUnit(Peek().upper)) return unsupported("INTERVAL");
    std::string from = Advance().upper;
    std::string to = from;
    const Token& to_keyword = Peek();
    if (MatchKeyword("TO")) {
      if (!Peek().IsWord() || !IsIntervalUnit(Peek().upper)) return SyntaxError(Peek());
      to = Advance().upper;
    }
    auto field = [](const std::string& s) -> std::optional<IntervalField> {
      if (s == "YEAR") return IntervalField::kYear;
      if (s == "MONTH") return IntervalField::kMonth;
      if (s == "DAY") return IntervalField::kDay;
      if (s == "HOUR") return IntervalField::kHour;
      if (s == "MINUTE") return IntervalField::kMinute;
      if (s == "SECOND") return IntervalField::kSecond;
      return std::nullopt;
    };
    std::optional<IntervalField> f = field(from);
    std::optional<IntervalField> e = field(to);
    bool year_month =
        f && e && *f <= IntervalField::kMonth && *e <= IntervalField::kMonth;
    bool day_time = f && e && *f >= IntervalField::kDay && *e >= IntervalField::kDay;
    // Spark's grammar has no year-month to day-time range: "INTERVAL MONTH" ends the
    // type.
    if (f && e && !year_month && !day_time) return SyntaxError(to_keyword);
    if (!f || !e || *e < *f || (!year_month && !day_time)) {
      return unsupported(std::string(SourceBetween(pos, PrevEnd())));
    }
    return year_month ? DataType::YearMonthInterval(*f, *e)
                      : DataType::DayTimeInterval(*f, *e);
  }
  if (u == "ARRAY") {
    if (!MatchOp("<"))
      return Status::Error("INCOMPLETE_TYPE_DEFINITION.ARRAY").WithPosition(pos);
    SPATE_ASSIGN_OR_RETURN(DataTypePtr element, ParseDataType());
    SPATE_RETURN_IF_ERROR(ExpectOp(">"));
    return DataType::Array(std::move(element));
  }
  if (u == "MAP") {
    if (!MatchOp("<"))
      return Status::Error("INCOMPLETE_TYPE_DEFINITION.MAP").WithPosition(pos);
    SPATE_ASSIGN_OR_RETURN(DataTypePtr key, ParseDataType());
    SPATE_RETURN_IF_ERROR(ExpectOp(","));
    SPATE_ASSIGN_OR_RETURN(DataTypePtr value, ParseDataType());
    SPATE_RETURN_IF_ERROR(ExpectOp(">"));
    return DataType::Map(std::move(key), std::move(value));
  }
  if (u == "STRUCT") {
    if (MatchOp("<>")) return DataType::Struct({});
    if (!MatchOp("<"))
      return Status::Error("INCOMPLETE_TYPE_DEFINITION.STRUCT").WithPosition(pos);
    std::vector<Field> fields;
    if (!Peek().IsOp(">")) {
      SPATE_ASSIGN_OR_RETURN(fields, ParseColumnDefinitions(/*struct_fields=*/true));
    }
    SPATE_RETURN_IF_ERROR(ExpectOp(">"));
    return DataType::Struct(std::move(fields));
  }
  return unsupported(u);
}

Result<std::vector<Field>> Parser::ParseColumnDefinitions(bool struct_fields) {
  std::vector<Field> fields;
  do {
    SPATE_ASSIGN_OR_RETURN(Field f, ParseColumnDefinition(struct_fields));
    fields.push_back(std::move(f));
  } while (MatchOp(","));
  return fields;
}

Result<Field> Parser::ParseColumnDefinition(bool struct_fields) {
  Field f;
  SPATE_ASSIGN_OR_RETURN(f.name, ParseIdentifier());
  MatchOp(":");
  SPATE_ASSIGN_OR_RETURN(f.type, ParseDataType());
  while (true) {
    if (Peek().Is("NOT") && Peek(1).Is("NULL")) {
      pos_ += 2;
      f.nullable = false;
    } else if (Peek().Is("COMMENT")) {
      Advance();
      if (Peek().kind != TokenKind::kString) return SyntaxError(Peek());
      f.comment.clear();
      while (Peek().kind == TokenKind::kString) f.comment += Advance().text;
    } else {
      break;
    }
  }
  return f;
}

// ===================================================================================
// Entry points
// ===================================================================================

Result<ExprPtr> Parser::ParseSingleExpression() {
  if (AtEnd()) return Status::Error("PARSE_EMPTY_STATEMENT").WithPosition(0);
  SPATE_ASSIGN_OR_RETURN(ExprPtr e, ParseNamedExpression());
  if (!AtEnd()) return SyntaxError(Peek());
  return e;
}

Result<DataTypePtr> Parser::ParseSingleDataType() {
  SPATE_ASSIGN_OR_RETURN(DataTypePtr t, ParseDataType());
  if (!AtEnd()) return SyntaxError(Peek());
  return t;
}

Result<SchemaPtr> Parser::ParseSingleSchema() {
  if (AtEnd()) return std::make_shared<const Schema>();
  if (Peek().Is("STRUCT") && Peek(1).IsOp("<")) {
    size_t save = pos_;
    Result<DataTypePtr> t = ParseDataType();
    if (t.ok() && AtEnd()) return std::make_shared<const Schema>((*t)->fields());
    pos_ = save;
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<Field> fields, ParseColumnDefinitions(false));
  if (!AtEnd()) return SyntaxError(Peek());
  return std::make_shared<const Schema>(std::move(fields));
}

Result<std::vector<std::string>> Parser::ParseSingleMultipartIdentifier() {
  SPATE_ASSIGN_OR_RETURN(std::vector<std::string> parts, ParseMultipartIdentifier());
  if (!AtEnd()) return SyntaxError(Peek());
  return parts;
}

// --- SET / RESET: raw text, as SparkSqlAstBuilder's regular expressions ---

bool IsConfigKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':';
    if (!ok) return false;
  }
  return true;
}

std::string_view TrimBlanks(std::string_view s) {
  auto blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
  };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// `quoted` starting at s[0] == '`': the unescaped identifier and the rest after it.
bool SplitBackquoted(std::string_view s, std::string* ident, std::string_view* rest) {
  ident->clear();
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '`') {
      if (i + 1 < s.size() && s[i + 1] == '`') {
        ident->push_back('`');
        ++i;
        continue;
      }
      *rest = s.substr(i + 1);
      return true;
    }
    ident->push_back(s[i]);
  }
  return false;
}

// The first word of `text` (after blanks and comments), upper-cased, and its end offset.
std::string FirstWord(std::string_view text, size_t* word_begin, size_t* word_end) {
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++i;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) return "";
      i = end + 2;
    } else {
      break;
    }
  }
  size_t b = i;
  while (i < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
    ++i;
  }
  *word_begin = b;
  *word_end = i;
  return ToUpper(text.substr(b, i - b));
}

Result<Statement> ParseSetOrReset(std::string_view text, bool is_set, size_t begin,
                                  size_t end) {
  std::string_view rest = TrimBlanks(text.substr(end));
  while (!rest.empty() && rest.back() == ';')
    rest = TrimBlanks(rest.substr(0, rest.size() - 1));
  Statement st;
  st.kind = is_set ? Statement::Kind::kSetConf : Statement::Kind::kResetConf;
  size_t stop =
      rest.empty() ? end : static_cast<size_t>(rest.data() + rest.size() - text.data());
  st.text = std::string(text.substr(begin, stop - begin));
  auto set_syntax = [&]() {
    return Status::Error(is_set ? "INVALID_SET_SYNTAX" : "INVALID_RESET_COMMAND_FORMAT")
        .WithPosition(static_cast<int64_t>(begin));
  };
  if (rest.empty()) return st;
  if (is_set && rest == "-v") {
    st.key = "-v";
    return st;
  }
  std::string key;
  std::string_view after;
  if (rest.front() == '`') {
    if (!SplitBackquoted(rest, &key, &after)) return set_syntax();
    after = TrimBlanks(after);
  } else {
    size_t eq = is_set ? rest.find('=') : std::string_view::npos;
    std::string_view raw_key = TrimBlanks(rest.substr(0, eq));
    if (is_set && raw_key.size() >= 9 &&
        EqualsIgnoreCase(raw_key.substr(0, 9), "TIME ZONE") &&
        eq == std::string_view::npos) {
      // SET TIME ZONE 'zone'
      Result<std::vector<Token>> tokens = Lexer::Tokenize(rest.substr(9));
      if (!tokens.ok() || tokens->size() != 2 ||
          (*tokens)[0].kind != TokenKind::kString) {
        return set_syntax();
      }
      st.key = "spark.sql.session.timeZone";
      st.value = (*tokens)[0].text;
      return st;
    }
    key = std::string(raw_key);
    after = eq == std::string_view::npos ? std::string_view() : rest.substr(eq);
    if (!IsConfigKey(key)) {
      if (eq != std::string_view::npos) {
        return Status::Error(
                   "INVALID_PROPERTY_KEY",
                   {{"key", "\"" + key + "\""},
                    {"value", "\"" + std::string(TrimBlanks(after.substr(1))) + "\""}})
            .WithPosition(static_cast<int64_t>(begin));
      }
      return set_syntax();
    }
  }
  st.key = key;
  if (after.empty()) return st;
  if (!is_set || after.front() != '=') return set_syntax();
  std::string_view value = TrimBlanks(after.substr(1));
  if (!value.empty() && value.front() == '`') {
    std::string unquoted;
    std::string_view tail;
    if (SplitBackquoted(value, &unquoted, &tail) && TrimBlanks(tail).empty()) {
      st.value = unquoted;
      return st;
    }
  }
  st.value = std::string(value);
  return st;
}

}  // namespace

Result<Statement> ParseStatement(std::string_view text) {
  size_t word_begin = 0;
  size_t word_end = 0;
  std::string first = FirstWord(text, &word_begin, &word_end);
  if (first == "SET" || first == "RESET") {
    return ParseSetOrReset(text, first == "SET", word_begin, word_end);
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer::Tokenize(text));
  Parser parser(text, std::move(tokens));
  return parser.ParseSingleStatement();
}

Result<std::vector<Statement>> ParseScript(std::string_view text) {
  bool unterminated = false;
  std::vector<StatementRange> ranges = SplitStatementRanges(text, &unterminated);
  std::vector<Statement> out;
  for (const StatementRange& r : ranges) {
    Result<Statement> st = ParseStatement(text.substr(r.begin, r.end - r.begin));
    if (!st.ok()) {
      const Status& s = st.status();
      return s.position() >= 0
                 ? s.WithPosition(s.position() + static_cast<int64_t>(r.begin))
                 : s;
    }
    out.push_back(std::move(st).value());
  }
  return out;
}

std::vector<std::string> SplitStatements(std::string_view text) {
  std::vector<std::string> out;
  for (const StatementRange& r : SplitStatementRanges(text)) {
    out.emplace_back(text.substr(r.begin, r.end - r.begin));
  }
  return out;
}

bool NeedsMoreInput(std::string_view text) {
  bool unterminated = false;
  bool ends_with_semicolon = false;
  std::vector<StatementRange> ranges =
      SplitStatementRanges(text, &unterminated, &ends_with_semicolon);
  if (unterminated) return true;
  if (ranges.empty()) return false;
  return !ends_with_semicolon;
}

Result<ExprPtr> ParseExpression(std::string_view text) {
  SPATE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer::Tokenize(text));
  Parser parser(text, std::move(tokens));
  return parser.ParseSingleExpression();
}

Result<DataTypePtr> ParseDataType(std::string_view text) {
  SPATE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer::Tokenize(text));
  Parser parser(text, std::move(tokens));
  return parser.ParseSingleDataType();
}

Result<SchemaPtr> ParseDdlSchema(std::string_view text) {
  SPATE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer::Tokenize(text));
  Parser parser(text, std::move(tokens));
  return parser.ParseSingleSchema();
}

Result<std::vector<std::string>> ParseMultipartIdentifier(std::string_view text) {
  SPATE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer::Tokenize(text));
  Parser parser(text, std::move(tokens));
  return parser.ParseSingleMultipartIdentifier();
}

}  // namespace spate::sql
