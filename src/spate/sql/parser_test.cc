// Copyright spate authors.
#include "spate/sql/parser.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "spate/sql/lexer.h"
#include "spate/testing/status_matchers.h"

namespace spate::sql {
namespace {

// Expr::ToString of a parsed expression, or the error.
std::string Expr(std::string_view sql) {
  Result<ExprPtr> r = ParseExpression(sql);
  if (!r.ok()) return "ERROR " + r.status().ToString();
  return (*r)->ToString();
}

ExprPtr ExprOf(std::string_view sql) {
  Result<ExprPtr> r = ParseExpression(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

Value LiteralOf(std::string_view sql) {
  ExprPtr e = ExprOf(sql);
  if (!e) return Value();
  EXPECT_EQ(e->kind, ExprKind::kLiteral) << sql;
  return e->literal;
}

std::string TypeOf(std::string_view sql) { return LiteralOf(sql).type()->Sql(); }

Statement Parse(std::string_view sql) {
  Result<Statement> r = ParseStatement(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  return r.ok() ? *r : Statement{};
}

std::string Tree(std::string_view sql) {
  Result<Statement> r = ParseStatement(sql);
  if (!r.ok()) return "ERROR " + r.status().ToString();
  if (!r->plan) return "NO PLAN";
  return r->plan->TreeString();
}

Status Error(std::string_view sql) {
  Result<Statement> r = ParseStatement(sql);
  EXPECT_FALSE(r.ok()) << sql;  // the callers check the class
  return r.ok() ? Status::OK() : r.status();
}

std::string TypeString(std::string_view text) {
  Result<DataTypePtr> r = ParseDataType(text);
  if (!r.ok()) return "ERROR " + r.status().ToString();
  return (*r)->SimpleString();
}

// --- Lexer -------------------------------------------------------------------------

TEST(ParserTest, LexerTokenKinds) {
  Result<std::vector<Token>> r =
      Lexer::Tokenize("SELECT `a b`, 'x\\n', 1.5e3, X'41' <=> -- c\n /* /* n */ */ ;");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& t = *r;
  ASSERT_EQ(t.size(), 11u);
  EXPECT_TRUE(t[0].Is("SELECT"));
  EXPECT_EQ(t[1].kind, TokenKind::kQuotedIdent);
  EXPECT_EQ(t[1].text, "a b");
  EXPECT_EQ(t[3].kind, TokenKind::kString);
  EXPECT_EQ(t[3].text, "x\n");
  EXPECT_EQ(t[5].kind, TokenKind::kNumber);
  EXPECT_EQ(t[5].text, "1.5e3");
  EXPECT_EQ(t[7].kind, TokenKind::kHexString);
  EXPECT_EQ(t[7].text, "41");
  EXPECT_TRUE(t[8].IsOp("<=>"));
  EXPECT_TRUE(t[9].IsOp(";"));
  EXPECT_EQ(t[10].kind, TokenKind::kEnd);
}

TEST(ParserTest, LexerBackquoteEscapeAndPositions) {
  Result<std::vector<Token>> r = Lexer::Tokenize("  `a``b` x");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].text, "a`b");
  EXPECT_EQ((*r)[0].begin, 2);
  EXPECT_EQ((*r)[1].begin, 9);
}

TEST(ParserTest, LexerStringEscapes) {
  EXPECT_EQ(LiteralOf("'a\\tb\\'c\\\\d'").str(), "a\tb'c\\d");
  EXPECT_EQ(LiteralOf("'\\u0041\\u00e9'").str(), "A\xc3\xa9");
  EXPECT_EQ(LiteralOf("\"dq\\\"x\"").str(), "dq\"x");
  EXPECT_EQ(LiteralOf("r'raw\\n'").str(), "raw\\n");
}

TEST(ParserTest, LexerUnclosedComment) {
  Status s = Error("SELECT 1 /* open");
  EXPECT_EQ(s.error_class(), "UNCLOSED_BRACKETED_COMMENT");
}

TEST(ParserTest, LexerUnterminatedString) {
  Status s = Error("SELECT 'abc");
  EXPECT_EQ(s.error_class(), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(s.position(), 7);
}

// --- Literals ----------------------------------------------------------------------

TEST(ParserTest, IntegerLiteralTypes) {
  EXPECT_EQ(TypeOf("1"), "INT");
  EXPECT_EQ(TypeOf("2147483647"), "INT");
  EXPECT_EQ(TypeOf("2147483648"), "BIGINT");
  EXPECT_EQ(TypeOf("-2147483648"), "INT");
  EXPECT_EQ(TypeOf("-2147483649"), "BIGINT");
  EXPECT_EQ(TypeOf("9223372036854775808"), "DECIMAL(19,0)");
  EXPECT_EQ(LiteralOf("-2147483648").i64(), -2147483648LL);
}

TEST(ParserTest, SuffixedLiterals) {
  EXPECT_EQ(TypeOf("1L"), "BIGINT");
  EXPECT_EQ(TypeOf("1S"), "SMALLINT");
  EXPECT_EQ(TypeOf("1Y"), "TINYINT");
  EXPECT_EQ(TypeOf("1D"), "DOUBLE");
  EXPECT_EQ(TypeOf("1.5F"), "FLOAT");
  EXPECT_EQ(TypeOf("1.5BD"), "DECIMAL(2,1)");
  EXPECT_EQ(TypeOf("-128Y"), "TINYINT");
}

TEST(ParserTest, SuffixedLiteralOutOfRange) {
  Result<ExprPtr> r = ParseExpression("128Y");
  ASSERT_ERROR_CLASS(r, "INVALID_NUMERIC_LITERAL_RANGE");
  EXPECT_NE(r.status().message().find("tinyint"), std::string::npos);
}

TEST(ParserTest, DecimalLiteralPrecisionAndScale) {
  EXPECT_EQ(TypeOf("1.5"), "DECIMAL(2,1)");
  EXPECT_EQ(TypeOf("123.45"), "DECIMAL(5,2)");
  EXPECT_EQ(TypeOf("0.001"), "DECIMAL(3,3)");
  EXPECT_EQ(TypeOf(".5"), "DECIMAL(1,1)");
  EXPECT_EQ(TypeOf("1."), "DECIMAL(1,0)");
  Value v = LiteralOf("-12.50");
  EXPECT_EQ(v.type()->Sql(), "DECIMAL(4,2)");
  EXPECT_EQ(static_cast<int64_t>(v.i128()), -1250);
}

TEST(ParserTest, ExponentLiteralIsDouble) {
  EXPECT_EQ(TypeOf("1e3"), "DOUBLE");
  EXPECT_DOUBLE_EQ(LiteralOf("1e3").f64(), 1000.0);
  EXPECT_DOUBLE_EQ(LiteralOf("1.5E-2").f64(), 0.015);
}

// Separated by a space, quoted strings concatenate; a doubled quote inside one is one
// quote character (Spark 4.2: 'It''s' is "It's", "a""b" is a"b), except in a raw string
// (r'a''b' is two raw literals: "ab").
TEST(ParserTest, AdjacentStringsConcatenate) {
  EXPECT_EQ(LiteralOf("'a' 'b'").str(), "ab");
  EXPECT_EQ(LiteralOf("'It''s'").str(), "It's");
  EXPECT_EQ(LiteralOf("'It''s' 'x'").str(), "It'sx");
  EXPECT_EQ(LiteralOf("''''").str(), "'");
  EXPECT_EQ(LiteralOf("'ab'''").str(), "ab'");
  EXPECT_EQ(LiteralOf("'a\\'''b'").str(), "a''b");
  EXPECT_EQ(LiteralOf("\"don\"\"t\"").str(), "don\"t");
  EXPECT_EQ(LiteralOf("r'don''t'").str(), "dont");
}

TEST(ParserTest, BooleanNullAndHexLiterals) {
  EXPECT_EQ(TypeOf("TRUE"), "BOOLEAN");
  EXPECT_TRUE(LiteralOf("NULL").is_null());
  EXPECT_EQ(TypeOf("NULL"), "VOID");
  Value b = LiteralOf("X'4142'");
  EXPECT_EQ(b.type()->Sql(), "BINARY");
  EXPECT_EQ(b.str(), "AB");
}

TEST(ParserTest, DateAndTimestampLiterals) {
  Value d = LiteralOf("DATE '2024-01-01'");
  EXPECT_EQ(d.type()->Sql(), "DATE");
  EXPECT_EQ(d.i64(), 19723);
  // TIMESTAMP literals are read in the session zone, so the parser leaves a typed literal
  // (a CAST of the text) that the analyzer folds.
  auto ts = ParseExpression("TIMESTAMP '2024-01-01 10:00:00'");
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ((*ts)->kind, ExprKind::kCast);
  EXPECT_EQ((*ts)->name, "typed_literal");
  EXPECT_EQ((*ts)->cast_type->Sql(), "TIMESTAMP");
  EXPECT_EQ((*ts)->DisplayName(), "TIMESTAMP '2024-01-01 10:00:00'");
  EXPECT_ERROR_CLASS(ParseExpression("TIMESTAMP '2024-13-01 10:00:00'"),
                     "INVALID_TYPED_LITERAL");
  Value ntz = LiteralOf("TIMESTAMP_NTZ '1970-01-02'");
  EXPECT_EQ(ntz.type()->Sql(), "TIMESTAMP_NTZ");
  EXPECT_EQ(ntz.i64(), 86400LL * 1000000);
}

// Spark's special values ('today', 'epoch', ...) are read at the instant of parsing, in
// the session time zone the analyzer knows: a typed literal whose literal is that
// instant.
TEST(ParserTest, SpecialDatetimeValuesKeepTheParseInstant) {
  for (const char* text : {"DATE 'today'", "TIMESTAMP ' Epoch '", "TIMESTAMP_LTZ 'now'",
                           "TIMESTAMP_NTZ 'yesterday UTC'", "DATE 'tomorrow +01:00'"}) {
    auto e = ParseExpression(text);
    ASSERT_TRUE(e.ok()) << text;
    EXPECT_EQ((*e)->kind, ExprKind::kCast) << text;
    EXPECT_EQ((*e)->name, "typed_literal") << text;
    EXPECT_EQ((*e)->literal.type()->id(), TypeId::kTimestamp) << text;
    EXPECT_GT((*e)->literal.i64(), 0) << text;
  }
  EXPECT_EQ((*ParseExpression("DATE 'today'"))->DisplayName(), "DATE 'today'");
  // Other text is read as before: a plain DATE literal, a TIMESTAMP without an instant.
  EXPECT_EQ(LiteralOf("DATE '2024-01-01'").i64(), 19723);
  EXPECT_TRUE((*ParseExpression("TIMESTAMP '2024-01-01'"))->literal.is_null());
  for (const char* text : {"DATE 'now UTC'", "DATE 'today utc'", "TIMESTAMP 'noon'",
                           "TIMESTAMP_NTZ 'epoch1'"}) {
    EXPECT_ERROR_CLASS(ParseExpression(text), "INVALID_TYPED_LITERAL") << text;
  }
}

// DATE / TIMESTAMP / TIMESTAMP_NTZ literals read their text as CAST does (Spark's
// AstBuilder calls stringToDate / stringToTimestamp / stringToTimestampWithoutTimeZone);
// each case was checked on Spark 4.2.
TEST(ParserTest, TypedLiteralsReadTextAsCast) {
  EXPECT_EQ(LiteralOf("DATE '2024-1-5'").i64(), 19727);
  EXPECT_EQ(LiteralOf("DATE '\t\x01 2024-01-01\x7f'").i64(), 19723);
  EXPECT_EQ(LiteralOf("DATE '+2024-01-01'").i64(), 19723);
  EXPECT_EQ(LiteralOf("DATE '2024-01-01 junk'").i64(), 19723);
  EXPECT_EQ(LiteralOf("DATE '5881580-07-11'").i64(), std::numeric_limits<int32_t>::max());
  const int64_t ten = (19723LL * 86400 + 36000) * 1000000;
  EXPECT_EQ(LiteralOf("TIMESTAMP_NTZ '2024-01-01 10:00:00+01:00'").i64(), ten);
  EXPECT_EQ(LiteralOf("TIMESTAMP_NTZ '2024-01-01 10:00:00 Europe/Paris'").i64(), ten);
  EXPECT_EQ(LiteralOf("TIMESTAMP_NTZ '2024-01-01T10:00:00.1234567891'").i64(),
            ten + 123456);
  EXPECT_EQ(LiteralOf("TIMESTAMP_NTZ '2024-01-01 10'").i64(), ten);
  for (const char* ok : {"TIMESTAMP '2024-01-01 10:00:00 America/Los_Angeles'",
                         "TIMESTAMP '2024-01-01 10:00:00+01:00:30'",
                         "TIMESTAMP '10:00:00'", "TIMESTAMP '123456-01-01'"}) {
    EXPECT_TRUE(ParseExpression(ok).ok()) << ok;
  }
  for (const char* bad :
       {"DATE '2024-01-01junk'", "DATE '12345678-01-01'", "DATE '5881580-07-12'",
        "TIMESTAMP '2024-01-01Z'", "TIMESTAMP '2024-01-01 +01:00'",
        "TIMESTAMP '2024-01-01T10:00:00z'", "TIMESTAMP '1234567-01-01'",
        "TIMESTAMP '2024-01-01 10:00:00 utc'", "TIMESTAMP_NTZ '10:00:00'",
        "TIMESTAMP_NTZ '2024-01-01 10:00:00 junk'"}) {
    EXPECT_ERROR_CLASS(ParseExpression(bad), "INVALID_TYPED_LITERAL") << bad;
  }
}

TEST(ParserTest, InvalidTypedLiteral) {
  Result<ExprPtr> r = ParseExpression("DATE '2024-13-01'");
  ASSERT_ERROR_CLASS(r, "INVALID_TYPED_LITERAL");
  EXPECT_EQ(r.status().message(),
            "The value of the typed literal \"DATE\" is invalid: '2024-13-01'.");
}

TEST(ParserTest, UnsupportedTypedLiteral) {
  Result<ExprPtr> r = ParseExpression("FOO 'x'");
  ASSERT_ERROR_CLASS(r, "UNSUPPORTED_TYPED_LITERAL");
}

TEST(ParserTest, DayTimeIntervalLiterals) {
  Value v = LiteralOf("INTERVAL 10 MINUTES");
  EXPECT_EQ(v.type()->SimpleString(), "interval minute");
  EXPECT_EQ(v.i64(), 600LL * 1000000);
  Value q = LiteralOf("INTERVAL '10' MINUTE");
  EXPECT_EQ(q.i64(), 600LL * 1000000);
  Value m = LiteralOf("INTERVAL 1 DAY 2 HOURS");
  EXPECT_EQ(m.type()->SimpleString(), "interval day to hour");
  EXPECT_EQ(m.i64(), 26LL * 3600 * 1000000);
  Value s = LiteralOf("INTERVAL 1.5 SECONDS");
  EXPECT_EQ(s.i64(), 1500000);
  Value neg = LiteralOf("INTERVAL -2 DAYS");
  EXPECT_EQ(neg.i64(), -2LL * 86400 * 1000000);
}

TEST(ParserTest, UnitToUnitIntervalLiterals) {
  Value dt = LiteralOf("INTERVAL '1 02:03:04' DAY TO SECOND");
  EXPECT_EQ(dt.type()->SimpleString(), "interval day to second");
  EXPECT_EQ(dt.i64(), ((86400LL + 2 * 3600 + 3 * 60 + 4) * 1000000));
  Value ym = LiteralOf("INTERVAL '2-3' YEAR TO MONTH");
  EXPECT_EQ(ym.type()->SimpleString(), "interval year to month");
  EXPECT_EQ(ym.i64(), 27);
  Value hm = LiteralOf("INTERVAL '-10:30' HOUR TO MINUTE");
  EXPECT_EQ(hm.i64(), -(10LL * 60 + 30) * 60 * 1000000);
}

TEST(ParserTest, YearMonthIntervalAndMixedUnits) {
  Value m = LiteralOf("INTERVAL 3 MONTHS");
  EXPECT_EQ(m.type()->SimpleString(), "interval month");
  EXPECT_EQ(m.i64(), 3);
  Value y = LiteralOf("INTERVAL 1 YEAR 2 MONTHS");
  EXPECT_EQ(y.i64(), 14);
  Result<ExprPtr> r = ParseExpression("INTERVAL 1 MONTH 2 HOURS");
  ASSERT_ERROR_CLASS(r, "PARSE_SYNTAX_ERROR");
  EXPECT_NE(r.status().message().find("cannot mix year-month and day-time"),
            std::string::npos);
}

TEST(ParserTest, IntervalStringLiteralAndFractionError) {
  Value v = LiteralOf("INTERVAL '1 day 2 hours'");
  EXPECT_EQ(v.i64(), 26LL * 3600 * 1000000);
  Result<ExprPtr> r = ParseExpression("INTERVAL 1.5 HOURS");
  ASSERT_ERROR_CLASS(r, "INVALID_INTERVAL_FORMAT.INVALID_FRACTION");
}

TEST(ParserTest, IntervalMismatchedFormat) {
  Result<ExprPtr> r = ParseExpression("INTERVAL '1 02:03' DAY TO SECOND");
  ASSERT_ERROR_CLASS(r, "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING");
}

// --- Expressions -------------------------------------------------------------------

TEST(ParserTest, ArithmeticPrecedence) {
  EXPECT_EQ(Expr("1 + 2 * 3"), "(1 + (2 * 3))");
  EXPECT_EQ(Expr("(1 + 2) * 3"), "((1 + 2) * 3)");
  EXPECT_EQ(Expr("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(Expr("a / b % c"), "((a / b) % c)");
  EXPECT_EQ(Expr("a DIV b"), "(a div b)");
}

TEST(ParserTest, BitwiseAndConcatPrecedence) {
  EXPECT_EQ(Expr("a | b & c"), "(a | (b & c))");
  EXPECT_EQ(Expr("a ^ b | c"), "((a ^ b) | c)");
  EXPECT_EQ(Expr("a || b + c"), "(concat(a, b) + c)") << "|| and + share a level";
  EXPECT_EQ(Expr("a + b || c"), "concat((a + b), c)");
  EXPECT_EQ(ExprOf("a || b")->name, "||");
  EXPECT_EQ(Expr("~a"), "~a");
  EXPECT_EQ(Expr("a << 2"), "shiftleft(a, 2)");
  EXPECT_EQ(Expr("a >> 2"), "shiftright(a, 2)");
  EXPECT_EQ(Expr("a >>> 2"), "shiftrightunsigned(a, 2)");
}

TEST(ParserTest, ComparisonOperatorsNormalised) {
  EXPECT_EQ(ExprOf("a == b")->name, "=");
  EXPECT_EQ(ExprOf("a <> b")->name, "!=");
  EXPECT_EQ(ExprOf("a != b")->name, "!=");
  EXPECT_EQ(Expr("a <=> b"), "(a <=> b)");
  EXPECT_EQ(Expr("a >= b + 1"), "(a >= (b + 1))");
}

TEST(ParserTest, BooleanPrecedence) {
  EXPECT_EQ(Expr("a OR b AND c"), "(a OR (b AND c))");
  EXPECT_EQ(Expr("NOT a AND b"), "((NOT a) AND b)");
  EXPECT_EQ(Expr("NOT a = b"), "(NOT (a = b))");
  EXPECT_EQ(Expr("a = 1 OR NOT b > 2 AND c"), "((a = 1) OR ((NOT (b > 2)) AND c))");
  EXPECT_EQ(Expr("!a"), "(NOT a)");
}

TEST(ParserTest, UnaryMinus) {
  EXPECT_EQ(Expr("-a"), "(- a)");
  EXPECT_EQ(Expr("- -1"), "(- -1)");
  EXPECT_EQ(Expr("a - -1"), "(a - -1)");
  EXPECT_EQ(Expr("+a"), "(+ a)");
  EXPECT_EQ(ExprOf("-a")->name, "negative");
}

TEST(ParserTest, BetweenAndNotBetween) {
  EXPECT_EQ(Expr("x BETWEEN 1 AND 2 AND y"), "((x BETWEEN 1 AND 2) AND y)");
  EXPECT_EQ(Expr("x NOT BETWEEN 1 AND 2"), "(NOT (x BETWEEN 1 AND 2))");
}

TEST(ParserTest, InList) {
  EXPECT_EQ(Expr("x IN (1, 2, 3)"), "(x IN (1, 2, 3))");
  ExprPtr e = ExprOf("x NOT IN (1, 2)");
  EXPECT_EQ(e->kind, ExprKind::kIn);
  EXPECT_TRUE(e->negated);
}

TEST(ParserTest, InSubqueryAndExists) {
  ExprPtr in = ExprOf("x IN (SELECT a FROM t)");
  EXPECT_EQ(in->kind, ExprKind::kInSubquery);
  auto sub = std::dynamic_pointer_cast<const PlanSubquery>(in->subquery);
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->plan->kind, PlanKind::kProject);
  ExprPtr ex = ExprOf("NOT EXISTS (SELECT 1 FROM t WHERE t.a = b)");
  EXPECT_EQ(ex->kind, ExprKind::kExists);
  EXPECT_TRUE(ex->negated);
  EXPECT_EQ(ExprOf("EXISTS (SELECT 1)")->kind, ExprKind::kExists);
}

TEST(ParserTest, ScalarSubquery) {
  ExprPtr e = ExprOf("(SELECT max(a) FROM t) + 1");
  EXPECT_EQ(e->children[0]->kind, ExprKind::kScalarSubquery);
  ExprPtr nested = ExprOf("((SELECT 1) + 1)");
  EXPECT_EQ(nested->name, "+");
  ExprPtr paren_query = ExprOf("((SELECT 1))");
  EXPECT_EQ(paren_query->kind, ExprKind::kScalarSubquery);
  ExprPtr union_query = ExprOf("((SELECT 1) UNION (SELECT 2))");
  EXPECT_EQ(union_query->kind, ExprKind::kScalarSubquery);
}

TEST(ParserTest, LikeFamily) {
  EXPECT_EQ(Expr("a LIKE 'x%'"), "a LIKE 'x%'");
  EXPECT_EQ(Expr("a NOT LIKE 'x%'"), "(NOT a LIKE 'x%')");
  EXPECT_EQ(Expr("a ILIKE 'x'"), "a ILIKE 'x'");
  EXPECT_EQ(Expr("a RLIKE '^x'"), "a RLIKE '^x'");
  EXPECT_EQ(Expr("a REGEXP '^x'"), "a RLIKE '^x'");
  ExprPtr esc = ExprOf("a LIKE 'x!%' ESCAPE '!'");
  ASSERT_EQ(esc->children.size(), 3u);
  EXPECT_EQ(esc->children[2]->literal.str(), "!");
  EXPECT_EQ(ExprOf("a LIKE ANY ('x', 'y')")->name, "like_any");
  EXPECT_EQ(Expr("a NOT LIKE ANY ('x')"), "(NOT like_all(a, 'x'))");
}

TEST(ParserTest, IsPredicates) {
  EXPECT_EQ(Expr("a IS NULL"), "(a IS NULL)");
  EXPECT_EQ(Expr("a IS NOT NULL"), "(a IS NOT NULL)");
  EXPECT_EQ(Expr("a IS TRUE"), "(a <=> TRUE)");
  EXPECT_EQ(Expr("a IS NOT FALSE"), "(NOT (a <=> FALSE))");
  EXPECT_EQ(Expr("a IS DISTINCT FROM b"), "(NOT (a <=> b))");
  EXPECT_EQ(Expr("a IS NOT DISTINCT FROM b"), "(a <=> b)");
  EXPECT_EQ(Expr("a = b IS NULL"), "((a = b) IS NULL)");
}

TEST(ParserTest, CaseWhen) {
  EXPECT_EQ(Expr("CASE WHEN x > 1 THEN 'a' ELSE 'b' END"),
            "CASE WHEN (x > 1) THEN 'a' ELSE 'b' END");
  EXPECT_EQ(Expr("CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' END"),
            "CASE WHEN (x = 1) THEN 'a' WHEN (x = 2) THEN 'b' END");
  EXPECT_EQ(ExprOf("CASE WHEN a THEN 1 END")->has_else, false);
}

TEST(ParserTest, CastForms) {
  EXPECT_EQ(Expr("CAST(x AS INT)"), "CAST(x AS INT)");
  EXPECT_EQ(Expr("TRY_CAST(x AS DECIMAL(10, 2))"), "TRY_CAST(x AS DECIMAL(10,2))");
  EXPECT_EQ(Expr("x::bigint"), "CAST(x AS BIGINT)");
  EXPECT_EQ(Expr("-x::int"), "(- CAST(x AS INT))");
  EXPECT_EQ(Expr("'1'::int + 1"), "(CAST('1' AS INT) + 1)");
}

TEST(ParserTest, FunctionCalls) {
  EXPECT_EQ(Expr("coalesce(a, 1)"), "coalesce(a, 1)");
  EXPECT_EQ(Expr("UPPER(a)"), "upper(a)");
  EXPECT_EQ(Expr("count(DISTINCT a)"), "count(DISTINCT a)");
  ExprPtr star = ExprOf("count(*)");
  ASSERT_EQ(star->children.size(), 1u);
  EXPECT_EQ(star->children[0]->kind, ExprKind::kStar);
  EXPECT_EQ(star->DisplayName(), "count(1)");
  EXPECT_EQ(Expr("now()"), "now()");
  EXPECT_EQ(Expr("left(s, 2)"), "left(s, 2)");
}

TEST(ParserTest, AggregateFilterAndIgnoreNulls) {
  EXPECT_EQ(Expr("sum(x) FILTER (WHERE x > 0)"), "sum(x) FILTER (WHERE (x > 0))");
  EXPECT_TRUE(ExprOf("first(x) IGNORE NULLS")->ignore_nulls);
  EXPECT_TRUE(ExprOf("first(x IGNORE NULLS)")->ignore_nulls);
  EXPECT_FALSE(ExprOf("first(x) RESPECT NULLS")->ignore_nulls);
  EXPECT_EQ(ExprOf("first(x, true)")->children.size(), 2u);
}

TEST(ParserTest, WindowFunctions) {
  EXPECT_EQ(Expr("row_number() OVER (PARTITION BY a ORDER BY b DESC)"),
            "row_number() OVER (PARTITION BY a ORDER BY b DESC NULLS LAST)");
  EXPECT_EQ(
      Expr("sum(x) OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
      "sum(x) OVER (ORDER BY t ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND "
      "CURRENT ROW)");
  EXPECT_EQ(Expr("avg(x) OVER (ORDER BY t RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING)"),
            "avg(x) OVER (ORDER BY t ASC NULLS FIRST RANGE BETWEEN 1 PRECEDING AND 2 "
            "FOLLOWING)");
  ExprPtr single = ExprOf("sum(x) OVER (ROWS 3 PRECEDING)");
  EXPECT_EQ(single->window->frame->upper.type, FrameBound::Type::kCurrentRow);
  EXPECT_EQ(Expr("sum(x) OVER ()"), "sum(x) OVER ()");
}

TEST(ParserTest, NamedWindowIsSubstituted) {
  Statement st = Parse(
      "SELECT sum(x) OVER w, avg(x) OVER (w2) FROM t WINDOW w AS (PARTITION BY k ORDER "
      "BY ts), "
      "w2 AS w");
  ASSERT_TRUE(st.plan);
  const auto& exprs = st.plan->exprs;
  ASSERT_EQ(exprs.size(), 2u);
  EXPECT_EQ(exprs[0]->ToString(),
            "sum(x) OVER (PARTITION BY k ORDER BY ts ASC NULLS FIRST)");
  EXPECT_EQ(exprs[1]->ToString(),
            "avg(x) OVER (PARTITION BY k ORDER BY ts ASC NULLS FIRST)");
  EXPECT_TRUE(exprs[0]->window->ref_name.empty());
}

TEST(ParserTest, MissingNamedWindow) {
  Status s = Error("SELECT sum(x) OVER w FROM t");
  EXPECT_EQ(s.error_class(), "MISSING_WINDOW_SPECIFICATION");
  Status dup = Error("SELECT 1 FROM t WINDOW w AS (), w AS ()");
  EXPECT_EQ(dup.error_class(), "INVALID_SQL_SYNTAX.REPETITIVE_WINDOW_DEFINITION");
}

TEST(ParserTest, NamedWindowAfterOrderBy) {
  Statement st = Parse("SELECT rank() OVER w FROM t ORDER BY 1 WINDOW w AS (ORDER BY x)");
  EXPECT_EQ(st.plan->TreeString(),
            "'Sort [1 ASC NULLS FIRST], true\n"
            "+- 'Project [rank() OVER (ORDER BY x ASC NULLS FIRST)]\n"
            "   +- 'UnresolvedRelation [t], [], false");
}

TEST(ParserTest, ColumnReferencesAndFields) {
  ExprPtr e = ExprOf("a.b.c");
  EXPECT_EQ(e->kind, ExprKind::kColumn);
  EXPECT_EQ(e->name_parts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ExprOf("w.start")->DisplayName(), "start");
  EXPECT_EQ(ExprOf("`a.b`")->name_parts, (std::vector<std::string>{"a.b"}));
  EXPECT_EQ(ExprOf("`a``b`")->name_parts, (std::vector<std::string>{"a`b"}));
}

TEST(ParserTest, SubscriptsAndFieldsOnExpressions) {
  EXPECT_EQ(Expr("a[0]"), "a[0]");
  EXPECT_EQ(Expr("m['k']"), "m['k']");
  EXPECT_EQ(Expr("a[0].b"), "a[0].b");
  EXPECT_EQ(Expr("f(x).y"), "f(x).y");
  EXPECT_EQ(ExprOf("a[1]")->kind, ExprKind::kExtractValue);
}

TEST(ParserTest, Stars) {
  EXPECT_EQ(ExprOf("*")->kind, ExprKind::kStar);
  ExprPtr q = ExprOf("j.*");
  EXPECT_EQ(q->kind, ExprKind::kStar);
  EXPECT_EQ(q->name_parts, (std::vector<std::string>{"j"}));
  EXPECT_EQ(Expr("db.t.*"), "db.t.*");
  // Spark parses these and refuses them in analysis (INVALID_USAGE_OF_STAR_OR_REGEX).
  EXPECT_ERROR_CLASS(ParseExpression("*.a"), "PARSE_SYNTAX_ERROR");
  EXPECT_ERROR_CLASS(ParseExpression("t.*[0]"), "PARSE_SYNTAX_ERROR");
}

TEST(ParserTest, Lambdas) {
  ExprPtr e = ExprOf("transform(arr, x -> x + 1)");
  ASSERT_EQ(e->children.size(), 2u);
  EXPECT_EQ(e->children[1]->kind, ExprKind::kLambda);
  EXPECT_EQ(e->children[1]->name_parts, (std::vector<std::string>{"x"}));
  ExprPtr two = ExprOf("aggregate(arr, 0, (acc, y) -> acc + y)");
  EXPECT_EQ(two->children[2]->name_parts, (std::vector<std::string>{"acc", "y"}));
  EXPECT_EQ(two->children[2]->children[0]->ToString(), "(acc + y)");
  EXPECT_EQ(ExprOf("exists(arr, x -> x > 1)")->kind, ExprKind::kCall);
}

TEST(ParserTest, RowConstructorIsStruct) {
  EXPECT_EQ(Expr("(1, 'a')"), "struct(1, 'a')");
  EXPECT_EQ(Expr("(a, b) IN ((1, 2))"), "(struct(a, b) IN (struct(1, 2)))");
}

TEST(ParserTest, CurrentDateWithoutParens) {
  EXPECT_EQ(Expr("current_date"), "current_date()");
  EXPECT_EQ(Expr("CURRENT_TIMESTAMP"), "current_timestamp()");
  EXPECT_EQ(Expr("current_date()"), "current_date()");
}

TEST(ParserTest, SpecialSyntaxFunctions) {
  EXPECT_EQ(Expr("EXTRACT(YEAR FROM d)"), "extract('YEAR', d)");
  EXPECT_EQ(Expr("POSITION('a' IN s)"), "position('a', s)");
  EXPECT_EQ(Expr("SUBSTRING(s FROM 2 FOR 3)"), "substring(s, 2, 3)");
  EXPECT_EQ(Expr("substring(s, 2)"), "substring(s, 2)");
  EXPECT_EQ(Expr("TRIM(BOTH 'x' FROM s)"), "trim(s, 'x')");
  EXPECT_EQ(Expr("TRIM(LEADING FROM s)"), "ltrim(s)");
  EXPECT_EQ(Expr("trim(s)"), "trim(s)");
}

TEST(ParserTest, TimestampAddAndDiffWithUnitKeywords) {
  // The unit keyword is kept as written; DATEADD / DATE_ADD are TIMESTAMPADD, DATEDIFF /
  // DATE_DIFF / TIMEDIFF TIMESTAMPDIFF, all named as Spark names them.
  EXPECT_EQ(Expr("timestampadd(Hour, 2, ts)"), "__spate_timestampAdd('Hour', 2, ts)");
  EXPECT_EQ(ExprOf("DATE_ADD(MONTH, n + 1, ts)")->DisplayName(),
            "timestampadd(MONTH, (n + 1), ts)");
  EXPECT_EQ(ExprOf("dateadd(dayofyear, 1, ts)")->DisplayName(),
            "timestampadd(dayofyear, 1, ts)");
  for (const char* name : {"TIMESTAMPDIFF", "datediff", "Date_Diff", "timediff"}) {
    EXPECT_EQ(ExprOf(std::string(name) + "(WEEK, a, b)")->DisplayName(),
              "timestampdiff(WEEK, a, b)")
        << name;
  }
  // Other shapes are ordinary calls: two arguments, four, a unit that is no keyword, a
  // quoted identifier.
  EXPECT_EQ(Expr("date_add(d, 1)"), "date_add(d, 1)");
  EXPECT_EQ(Expr("datediff(DAY, d)"), "datediff(DAY, d)");
  EXPECT_EQ(Expr("timestampadd(DAY, 1, ts, 5)"), "timestampadd(DAY, 1, ts, 5)");
  EXPECT_EQ(Expr("timestampadd(YEARS, 1, ts)"), "timestampadd(YEARS, 1, ts)");
  EXPECT_EQ(Expr("timestampadd(`HOUR`, 1, ts)"), "timestampadd(HOUR, 1, ts)");
  EXPECT_EQ(Expr("date_add('2024-01-01', 1)"), "date_add('2024-01-01', 1)");
  // Nested calls parse once each way.
  EXPECT_EQ(Expr("timestampadd(DAY, 1, timestampadd(DAY, 2, ts))"),
            "__spate_timestampAdd('DAY', 1, __spate_timestampAdd('DAY', 2, ts))");
  // A quoted unit is an error naming the function as written and the literal.
  auto quoted = ParseExpression("Date_Add(\"x\", 1, ts)");
  EXPECT_ERROR_CLASS(quoted, "INVALID_PARAMETER_VALUE.DATETIME_UNIT");
  EXPECT_ERROR_HAS(quoted, "in `Date_Add` is invalid");
  EXPECT_ERROR_HAS(quoted, "but got the string literal \"x\".");
  EXPECT_ERROR_HAS(ParseExpression("timestampdiff(R'DAY', a, b)"),
                   "got the string literal R'DAY'.");
  // ... but not with another number of arguments.
  EXPECT_EQ(Expr("datediff('2024-01-05', '2024-01-01')"),
            "datediff('2024-01-05', '2024-01-01')");
}

TEST(ParserTest, NonReservedKeywordsAsColumns) {
  EXPECT_EQ(Expr("key"), "key");
  EXPECT_EQ(Expr("value + 1"), "(value + 1)");
  EXPECT_EQ(Expr("date"), "date");
  EXPECT_EQ(Expr("end"), "end");
  EXPECT_EQ(Expr("w.end"), "w.end");
  EXPECT_EQ(Expr("interval"), "interval");
  // date(x) / timestamp(x) are calls of the cast-alias functions, named as the CAST.
  EXPECT_EQ(Expr("date(ts)"), "CAST(ts AS DATE)");
  EXPECT_EQ(Expr("timestamp(ts)"), "CAST(ts AS TIMESTAMP)");
}

TEST(ParserTest, ExpressionAliases) {
  ExprPtr a = ExprOf("a + 1 AS b");
  EXPECT_EQ(a->kind, ExprKind::kAlias);
  EXPECT_EQ(a->name, "b");
  EXPECT_EQ(ExprOf("a b")->name, "b");
  ExprPtr multi = ExprOf("posexplode(x) AS (p, v)");
  EXPECT_EQ(multi->name_parts, (std::vector<std::string>{"p", "v"}));
}

TEST(ParserTest, DisplayNames) {
  EXPECT_EQ(ExprOf("a + 1")->DisplayName(), "(a + 1)");
  EXPECT_EQ(ExprOf("sum(v)")->DisplayName(), "sum(v)");
  EXPECT_EQ(ExprOf("CAST(x AS INT)")->DisplayName(), "CAST(x AS INT)");
}

TEST(ParserTest, ExpressionPositions) {
  ExprPtr e = ExprOf("a  +  bc");
  EXPECT_EQ(e->position, 3);
  EXPECT_EQ(e->children[1]->position, 6);
}

// --- Queries -----------------------------------------------------------------------

TEST(ParserTest, SimpleSelect) {
  EXPECT_EQ(Tree("SELECT a, b + 1 AS c FROM t WHERE a > 1"),
            "'Project [a, (b + 1) AS c]\n"
            "+- 'Filter (a > 1)\n"
            "   +- 'UnresolvedRelation [t], [], false");
}

TEST(ParserTest, SelectWithoutFrom) {
  EXPECT_EQ(Tree("SELECT 1"),
            "'Project [1]\n"
            "+- OneRowRelation");
  Statement st = Parse("SELECT 1");
  EXPECT_EQ(st.plan->child()->kind, PlanKind::kValues);
  EXPECT_EQ(st.plan->child()->rows.size(), 1u);
}

TEST(ParserTest, GroupByAndHaving) {
  EXPECT_EQ(Tree("SELECT k, count(*) AS n FROM t GROUP BY k HAVING count(*) > 1"),
            "'UnresolvedHaving (count(1) > 1)\n"
            "+- 'Aggregate [k], [k, count(1) AS n]\n"
            "   +- 'UnresolvedRelation [t], [], false");
  Statement st = Parse("SELECT k FROM t GROUP BY k HAVING k > 1");
  EXPECT_TRUE(st.plan->is_having);
}

TEST(ParserTest, AggregatesWithoutGroupByStayProject) {
  Statement st = Parse("SELECT count(*) FROM t");
  EXPECT_EQ(st.plan->kind, PlanKind::kProject);
  Statement having = Parse("SELECT sum(x) FROM t HAVING sum(x) > 0");
  EXPECT_EQ(having.plan->kind, PlanKind::kFilter);
  EXPECT_EQ(having.plan->child()->kind, PlanKind::kAggregate);
  EXPECT_TRUE(having.plan->child()->group_by.empty());
}

TEST(ParserTest, GroupByOrdinalsAllAndEmpty) {
  Statement ord = Parse("SELECT a, sum(b) FROM t GROUP BY 1");
  ASSERT_EQ(ord.plan->group_by.size(), 1u);
  EXPECT_EQ(ord.plan->group_by[0]->literal.i64(), 1);
  Statement all = Parse("SELECT a, sum(b) FROM t GROUP BY ALL");
  ASSERT_EQ(all.plan->group_by.size(), 1u);
  EXPECT_EQ(all.plan->group_by[0]->kind, ExprKind::kColumn);
  EXPECT_EQ(ToUpper(all.plan->group_by[0]->name_parts[0]), "ALL");
  Statement empty = Parse("SELECT sum(b) FROM t GROUP BY ()");
  EXPECT_EQ(empty.plan->kind, PlanKind::kAggregate);
  EXPECT_TRUE(empty.plan->group_by.empty());
}

TEST(ParserTest, GroupByRollupCubeAndGroupingSets) {
  auto group_by = [](const std::string& sql) {
    const Statement st = Parse(sql);
    std::string out;
    for (const auto& e : st.plan->group_by)
      out += (out.empty() ? "" : " | ") + e->ToString();
    return out;
  };
  EXPECT_EQ(group_by("SELECT a FROM t GROUP BY ROLLUP(a, b)"),
            "rollup(struct(a), struct(b))");
  EXPECT_EQ(group_by("SELECT a FROM t GROUP BY a, b WITH CUBE"),
            "cube(struct(a), struct(b))");
  EXPECT_EQ(group_by("SELECT a FROM t GROUP BY GROUPING SETS ((a, b), a, ())"),
            "grouping_sets(struct(a, b), struct(a), struct())");
  // A parenthesized list is a set; a parenthesized expression that goes on is one
  // expression.
  EXPECT_EQ(group_by("SELECT a FROM t GROUP BY CUBE((a, b), (a + 1) * 2, (c))"),
            "cube(struct(a, b), struct(((a + 1) * 2)), struct(c))");
  // Mixed and nested forms.
  EXPECT_EQ(group_by("SELECT a FROM t GROUP BY a, ROLLUP(b, c), GROUPING SETS "
                     "(ROLLUP(d), CUBE(e), ())"),
            "a | rollup(struct(b), struct(c)) | "
            "grouping_sets(rollup(struct(d)), cube(struct(e)), struct())");
  EXPECT_EQ(Error("SELECT a FROM t GROUP BY ROLLUP(a").error_class(),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(Error("SELECT a FROM t GROUP BY GROUPING SETS a").error_class(),
            "PARSE_SYNTAX_ERROR");
}

TEST(ParserTest, WindowTimeGroupBy) {
  EXPECT_EQ(
      Tree("SELECT window(ts, '5 minutes') AS w, count(*) FROM events "
           "GROUP BY window(ts, '5 minutes')"),
      "'Aggregate [window(ts, '5 minutes')], [window(ts, '5 minutes') AS w, count(1)]\n"
      "+- 'UnresolvedRelation [events], [], false");
}

TEST(ParserTest, SelectDistinct) {
  EXPECT_EQ(Tree("SELECT DISTINCT a FROM t"),
            "'Distinct\n"
            "+- 'Project [a]\n"
            "   +- 'UnresolvedRelation [t], [], false");
  EXPECT_EQ(Parse("SELECT ALL a FROM t").plan->kind, PlanKind::kProject);
}

TEST(ParserTest, OrderByLimitOffset) {
  EXPECT_EQ(Tree("SELECT a FROM t ORDER BY a DESC NULLS FIRST, b LIMIT 10 OFFSET 5"),
            "'Limit 10\n"
            "+- 'Offset 5\n"
            "   +- 'Sort [a DESC NULLS FIRST, b ASC NULLS FIRST], true\n"
            "      +- 'Project [a]\n"
            "         +- 'UnresolvedRelation [t], [], false");
  Statement st = Parse("SELECT a FROM t ORDER BY a DESC");
  EXPECT_FALSE(st.plan->sort[0].nulls_first);
  EXPECT_EQ(Parse("SELECT a FROM t LIMIT ALL").plan->kind, PlanKind::kProject);
}

TEST(ParserTest, SortByIsLocal) {
  Statement st = Parse("SELECT a FROM t SORT BY a");
  EXPECT_EQ(st.plan->kind, PlanKind::kSort);
  EXPECT_FALSE(st.plan->global_sort);
  Status s = Error("SELECT a FROM t ORDER BY a SORT BY a");
  EXPECT_EQ(s.error_class(), "UNSUPPORTED_FEATURE.COMBINATION_QUERY_RESULT_CLAUSES");
}

TEST(ParserTest, TableNamesAndAliases) {
  EXPECT_EQ(Tree("SELECT * FROM db.t AS x"),
            "'Project [*]\n"
            "+- 'SubqueryAlias x\n"
            "   +- 'UnresolvedRelation [db, t], [], false");
  EXPECT_EQ(Parse("SELECT * FROM t x").plan->child()->alias, "x");
  Statement cols = Parse("SELECT * FROM t AS x(a, b)");
  EXPECT_EQ(cols.plan->child()->column_aliases, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Parse("SELECT * FROM `my db`.`t`").plan->child()->table_name,
            (std::vector<std::string>{"my db", "t"}));
}

TEST(ParserTest, DerivedTables) {
  EXPECT_EQ(Tree("SELECT * FROM (SELECT a FROM t) s"),
            "'Project [*]\n"
            "+- 'SubqueryAlias s\n"
            "   +- 'Project [a]\n"
            "      +- 'UnresolvedRelation [t], [], false");
  EXPECT_EQ(Parse("SELECT * FROM (SELECT 1)").plan->child()->kind, PlanKind::kProject);
  EXPECT_EQ(Parse("SELECT * FROM ((SELECT 1) x JOIN u)").plan->child()->kind,
            PlanKind::kJoin);
}

TEST(ParserTest, InlineTable) {
  EXPECT_EQ(Tree("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(id, name)"),
            "'Project [*]\n"
            "+- 'SubqueryAlias t, [id, name]\n"
            "   +- 'UnresolvedInlineTable [id, name], [[1, 'a'], [2, 'b']]");
  Statement top = Parse("VALUES 1, 2");
  EXPECT_EQ(top.plan->kind, PlanKind::kValues);
  EXPECT_EQ(top.plan->rows.size(), 2u);
  EXPECT_EQ(top.plan->rows[0].size(), 1u);
  Statement single = Parse("VALUES (1)");
  EXPECT_EQ(single.plan->rows[0].size(), 1u);
  // A row `(2)` after a dropped row constructor `(1, 1)` is a row of one value (the
  // constructor's node was freed and its address reused for the literal 2, which then
  // read as an empty row).
  EXPECT_EQ(Tree("SELECT * FROM VALUES (1, 1) AS t(a, b) CROSS JOIN VALUES (2) AS e(e)"),
            "'Project [*]\n"
            "+- 'Join Cross\n"
            "   :- 'SubqueryAlias t, [a, b]\n"
            "   :  +- 'UnresolvedInlineTable [a, b], [[1, 1]]\n"
            "   +- 'SubqueryAlias e, [e]\n"
            "      +- 'UnresolvedInlineTable [e], [[2]]");
}

TEST(ParserTest, TableFunctions) {
  Statement st = Parse("SELECT id FROM range(10)");
  const PlanPtr& fn = st.plan->child();
  EXPECT_EQ(fn->kind, PlanKind::kTableFunction);
  EXPECT_EQ(fn->table_name, (std::vector<std::string>{"range"}));
  EXPECT_EQ(fn->exprs.size(), 1u);
  EXPECT_EQ(
      Parse("SELECT * FROM RANGE(0, 100, 1, 4) r").plan->child()->child()->exprs.size(),
      4u);
  EXPECT_EQ(Tree("SELECT * FROM range(1, 10, 2)"),
            "'Project [*]\n"
            "+- 'UnresolvedTableValuedFunction [range], [1, 10, 2], false");
}

TEST(ParserTest, StreamRelationsAndNamedTableFunctionArguments) {
  for (const char* sql : {"SELECT * FROM STREAM t", "SELECT * FROM STREAM(t)",
                          "SELECT * FROM STREAM db.t AS x"}) {
    Statement st = Parse(sql);
    PlanPtr rel = st.plan->child();
    if (rel->kind == PlanKind::kSubqueryAlias) rel = rel->child();
    EXPECT_EQ(rel->kind, PlanKind::kUnresolvedRelation) << sql;
    EXPECT_TRUE(rel->streaming) << sql;
  }
  EXPECT_FALSE(Parse("SELECT * FROM stream").plan->child()->streaming);
  Statement rf = Parse(
      "SELECT * FROM STREAM read_files('/in', format => 'json', schema => 'a INT')");
  const PlanPtr& fn = rf.plan->child();
  EXPECT_EQ(fn->kind, PlanKind::kTableFunction);
  EXPECT_TRUE(fn->streaming);
  EXPECT_EQ(fn->arg_names, (std::vector<std::string>{"", "format", "schema"}));
  EXPECT_TRUE(Parse("SELECT * FROM read_files('/in')").plan->child()->arg_names.empty());
}

TEST(ParserTest, PipelineDatasets) {
  auto error = [](const char* sql) { return ParseStatement(sql).status().error_class(); };
  Statement st = Parse(
      "CREATE STREAMING TABLE bronze COMMENT 'raw' TBLPROPERTIES ('q' = 'b') AS "
      "SELECT * FROM STREAM read_files('/in', format => 'json')");
  EXPECT_EQ(st.kind, Statement::Kind::kCreateStreamingTable);
  EXPECT_EQ(st.name, (std::vector<std::string>{"bronze"}));
  EXPECT_EQ(st.comment, "raw");
  ASSERT_EQ(st.properties.size(), 1u);
  EXPECT_TRUE(st.plan != nullptr);
  Statement target = Parse("CREATE STREAMING TABLE t");
  EXPECT_EQ(target.kind, Statement::Kind::kCreateStreamingTable);
  EXPECT_TRUE(target.plan == nullptr);
  Statement mv = Parse("CREATE OR REFRESH MATERIALIZED VIEW g AS SELECT count(*) FROM s");
  EXPECT_EQ(mv.kind, Statement::Kind::kCreateMaterializedView);
  EXPECT_TRUE(mv.replace);
  EXPECT_EQ(error("CREATE MATERIALIZED VIEW g"), "PARSE_SYNTAX_ERROR");
  Statement flow =
      Parse("CREATE FLOW f AS INSERT INTO t BY NAME SELECT * FROM STREAM(s)");
  EXPECT_EQ(flow.kind, Statement::Kind::kCreateFlow);
  ASSERT_TRUE(flow.inner != nullptr);
  EXPECT_EQ(flow.inner->kind, Statement::Kind::kInsert);
  EXPECT_TRUE(flow.inner->by_name);
  EXPECT_EQ(flow.inner->name, (std::vector<std::string>{"t"}));
}

TEST(ParserTest, JoinTypes) {
  auto join_type = [](std::string_view sql) {
    Statement st = Parse(sql);
    return st.plan ? st.plan->child()->join_type : JoinType::kInner;
  };
  EXPECT_EQ(join_type("SELECT * FROM a JOIN b ON a.x = b.x"), JoinType::kInner);
  EXPECT_EQ(join_type("SELECT * FROM a INNER JOIN b ON a.x = b.x"), JoinType::kInner);
  EXPECT_EQ(join_type("SELECT * FROM a LEFT JOIN b ON a.x = b.x"), JoinType::kLeftOuter);
  EXPECT_EQ(join_type("SELECT * FROM a LEFT OUTER JOIN b ON a.x = b.x"),
            JoinType::kLeftOuter);
  EXPECT_EQ(join_type("SELECT * FROM a RIGHT OUTER JOIN b ON a.x = b.x"),
            JoinType::kRightOuter);
  EXPECT_EQ(join_type("SELECT * FROM a FULL JOIN b ON a.x = b.x"), JoinType::kFullOuter);
  EXPECT_EQ(join_type("SELECT * FROM a FULL OUTER JOIN b ON a.x = b.x"),
            JoinType::kFullOuter);
  EXPECT_EQ(join_type("SELECT * FROM a LEFT SEMI JOIN b ON a.x = b.x"),
            JoinType::kLeftSemi);
  EXPECT_EQ(join_type("SELECT * FROM a SEMI JOIN b ON a.x = b.x"), JoinType::kLeftSemi);
  EXPECT_EQ(join_type("SELECT * FROM a LEFT ANTI JOIN b ON a.x = b.x"),
            JoinType::kLeftAnti);
  EXPECT_EQ(join_type("SELECT * FROM a ANTI JOIN b ON a.x = b.x"), JoinType::kLeftAnti);
  EXPECT_EQ(join_type("SELECT * FROM a CROSS JOIN b"), JoinType::kCross);
}

TEST(ParserTest, JoinTreeAndUsing) {
  EXPECT_EQ(Tree("SELECT * FROM a JOIN b ON a.x = b.x LEFT JOIN c USING (y, z)"),
            "'Project [*]\n"
            "+- 'Join UsingJoin(LeftOuter, [y, z])\n"
            "   :- 'Join Inner, (a.x = b.x)\n"
            "   :  :- 'UnresolvedRelation [a], [], false\n"
            "   :  +- 'UnresolvedRelation [b], [], false\n"
            "   +- 'UnresolvedRelation [c], [], false");
}

TEST(ParserTest, CommaJoinAndNatural) {
  Statement comma = Parse("SELECT * FROM a, b");
  EXPECT_EQ(comma.plan->child()->kind, PlanKind::kJoin);
  EXPECT_EQ(comma.plan->child()->join_type, JoinType::kInner);
  EXPECT_FALSE(comma.plan->child()->condition);
  Statement natural = Parse("SELECT * FROM a NATURAL LEFT JOIN b");
  EXPECT_TRUE(natural.plan->child()->natural);
  EXPECT_EQ(natural.plan->child()->join_type, JoinType::kLeftOuter);
}

TEST(ParserTest, SetOperationPrecedence) {
  EXPECT_EQ(Tree("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3"),
            "'Union Distinct\n"
            ":- 'Project [1]\n"
            ":  +- OneRowRelation\n"
            "+- 'Intersect Distinct\n"
            "   :- 'Project [2]\n"
            "   :  +- OneRowRelation\n"
            "   +- 'Project [3]\n"
            "      +- OneRowRelation");
  Statement st =
      Parse("SELECT a FROM t UNION ALL SELECT b FROM u EXCEPT SELECT c FROM v");
  EXPECT_EQ(st.plan->set_op, SetOpKind::kExcept);
  EXPECT_EQ(st.plan->child()->set_op, SetOpKind::kUnion);
  EXPECT_TRUE(st.plan->child()->set_all);
  EXPECT_EQ(Parse("SELECT 1 MINUS SELECT 2").plan->set_op, SetOpKind::kExcept);
  EXPECT_TRUE(Parse("SELECT 1 INTERSECT ALL SELECT 2").plan->set_all);
}

TEST(ParserTest, OrderByAppliesToSetOperation) {
  Statement st = Parse("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 3");
  EXPECT_EQ(st.plan->kind, PlanKind::kLimit);
  EXPECT_EQ(st.plan->child()->kind, PlanKind::kSort);
  EXPECT_EQ(st.plan->child()->child()->kind, PlanKind::kSetOperation);
  Statement paren =
      Parse("(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u)");
  EXPECT_EQ(paren.plan->kind, PlanKind::kSetOperation);
  EXPECT_EQ(paren.plan->children[0]->kind, PlanKind::kLimit);
}

TEST(ParserTest, CommonTableExpressions) {
  Statement st =
      Parse("WITH c AS (SELECT 1 AS a), d (x, y) AS (SELECT 1, 2) SELECT * FROM c");
  ASSERT_EQ(st.plan->kind, PlanKind::kWith);
  ASSERT_EQ(st.plan->ctes.size(), 2u);
  EXPECT_EQ(st.plan->ctes[0].first, "c");
  EXPECT_EQ(st.plan->ctes[1].second->kind, PlanKind::kSubqueryAlias);
  EXPECT_EQ(st.plan->ctes[1].second->column_aliases,
            (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(Tree("WITH c AS (SELECT 1) SELECT * FROM c"),
            "CTE [c]\n"
            ":  +- 'SubqueryAlias c\n"
            ":     +- 'Project [1]\n"
            ":        +- OneRowRelation\n"
            "+- 'Project [*]\n"
            "   +- 'UnresolvedRelation [c], [], false");
  Status dup = Error("WITH a AS (SELECT 1), a AS (SELECT 2) SELECT 1");
  EXPECT_EQ(dup.error_class(), "DUPLICATED_CTE_NAMES");
}

TEST(ParserTest, TableShorthand) {
  Statement st = Parse("TABLE db.t");
  EXPECT_EQ(st.plan->kind, PlanKind::kUnresolvedRelation);
  EXPECT_EQ(st.plan->table_name, (std::vector<std::string>{"db", "t"}));
}

TEST(ParserTest, DistributeAndClusterBy) {
  Statement d = Parse("SELECT a FROM t DISTRIBUTE BY a");
  EXPECT_EQ(d.plan->kind, PlanKind::kRepartition);
  Statement c = Parse("SELECT a FROM t CLUSTER BY a");
  EXPECT_EQ(c.plan->kind, PlanKind::kSort);
  EXPECT_EQ(c.plan->child()->kind, PlanKind::kRepartition);
}

TEST(ParserTest, KeywordsAsColumnNamesInQueries) {
  EXPECT_EQ(Tree("SELECT key, value, date FROM t"),
            "'Project [key, value, date]\n"
            "+- 'UnresolvedRelation [t], [], false");
  EXPECT_EQ(Parse("SELECT w.start, w.end FROM t").plan->exprs[1]->ToString(), "w.end");
  EXPECT_EQ(Tree("SELECT window.start, window.end, count(*) FROM events "
                 "GROUP BY window(ts, '5 minutes')"),
            "'Aggregate [window(ts, '5 minutes')], [window.start, window.end, count(1)]\n"
            "+- 'UnresolvedRelation [events], [], false");
  EXPECT_EQ(Parse("SELECT left.x FROM a AS left JOIN b AS right ON left.x = right.x")
                .plan->exprs[0]
                ->ToString(),
            "left.x");
}

TEST(ParserTest, SubqueryInWhereKeepsPlan) {
  Statement st =
      Parse("SELECT * FROM t WHERE a IN (SELECT b FROM u) AND EXISTS (SELECT 1)");
  ExprPtr cond = st.plan->child()->condition;
  EXPECT_EQ(cond->name, "and");
  EXPECT_EQ(cond->children[0]->kind, ExprKind::kInSubquery);
  EXPECT_EQ(cond->children[1]->kind, ExprKind::kExists);
}

TEST(ParserTest, PlanPositions) {
  Statement st = Parse("SELECT a FROM t WHERE b");
  EXPECT_EQ(st.plan->position, 0);
  EXPECT_EQ(st.plan->child()->position, 16);
  EXPECT_EQ(st.plan->child()->child()->position, 14);
}

// --- Statements --------------------------------------------------------------------

TEST(ParserTest, StatementTextIsTrimmed) {
  Statement st = Parse("  SELECT 1 ;  ");
  EXPECT_EQ(st.kind, Statement::Kind::kQuery);
  EXPECT_EQ(st.text, "SELECT 1");
  EXPECT_EQ(Parse("-- c\nSELECT 2 -- tail").text, "SELECT 2");
}

TEST(ParserTest, SetStatements) {
  Statement all = Parse("SET");
  EXPECT_EQ(all.kind, Statement::Kind::kSetConf);
  EXPECT_EQ(all.key, "");
  EXPECT_FALSE(all.value);
  Statement v = Parse("SET -v");
  EXPECT_EQ(v.key, "-v");
  Statement kv = Parse("SET spark.sql.shuffle.partitions = 4;");
  EXPECT_EQ(kv.key, "spark.sql.shuffle.partitions");
  EXPECT_EQ(kv.value, "4");
  EXPECT_EQ(kv.text, "SET spark.sql.shuffle.partitions = 4");
  Statement raw = Parse("set spark.app.name=my app  ");
  EXPECT_EQ(raw.value, "my app");
  Statement show = Parse("SET spark.sql.ansi.enabled");
  EXPECT_EQ(show.key, "spark.sql.ansi.enabled");
  EXPECT_FALSE(show.value);
  Statement quoted = Parse("SET `odd key`=`v;1`");
  EXPECT_EQ(quoted.key, "odd key");
  EXPECT_EQ(quoted.value, "v;1");
  Statement tz = Parse("SET TIME ZONE 'America/New_York'");
  EXPECT_EQ(tz.key, "spark.sql.session.timeZone");
  EXPECT_EQ(tz.value, "America/New_York");
}

TEST(ParserTest, SetErrors) {
  EXPECT_EQ(Error("SET a b").error_class(), "INVALID_SET_SYNTAX");
  EXPECT_EQ(Error("SET a b = c").error_class(), "INVALID_PROPERTY_KEY");
}

TEST(ParserTest, ResetStatements) {
  Statement all = Parse("RESET");
  EXPECT_EQ(all.kind, Statement::Kind::kResetConf);
  EXPECT_EQ(all.key, "");
  EXPECT_EQ(Parse("RESET spark.sql.ansi.enabled;").key, "spark.sql.ansi.enabled");
  EXPECT_EQ(Error("RESET a b").error_class(), "INVALID_RESET_COMMAND_FORMAT");
}

TEST(ParserTest, CreateTempView) {
  Statement st =
      Parse("CREATE OR REPLACE TEMPORARY VIEW v (a COMMENT 'first', b) AS SELECT 1, 2");
  EXPECT_EQ(st.kind, Statement::Kind::kCreateView);
  EXPECT_TRUE(st.replace);
  EXPECT_FALSE(st.global);
  EXPECT_EQ(st.name, (std::vector<std::string>{"v"}));
  EXPECT_EQ(st.column_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(st.plan->kind, PlanKind::kProject);
  Statement global = Parse("CREATE GLOBAL TEMP VIEW g AS SELECT * FROM t");
  EXPECT_TRUE(global.global);
  EXPECT_FALSE(global.replace);
}

TEST(ParserTest, CreateViewErrors) {
  EXPECT_EQ(Error("CREATE TEMP VIEW IF NOT EXISTS v AS SELECT 1").error_class(),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(Error("CREATE TEMP VIEW db.v AS SELECT 1").error_class(),
            "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS");
  EXPECT_EQ(Error("CREATE VIEW v AS SELECT 1").error_class(),
            "INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT");
}

TEST(ParserTest, DropView) {
  Statement st = Parse("DROP VIEW IF EXISTS v");
  EXPECT_EQ(st.kind, Statement::Kind::kDropView);
  EXPECT_TRUE(st.if_exists);
  EXPECT_EQ(st.name, (std::vector<std::string>{"v"}));
  EXPECT_FALSE(Parse("DROP VIEW global_temp.v").if_exists);
}

TEST(ParserTest, DescribeStatements) {
  Statement t = Parse("DESCRIBE TABLE EXTENDED db.t");
  EXPECT_EQ(t.kind, Statement::Kind::kDescribe);
  EXPECT_TRUE(t.extended);
  EXPECT_EQ(t.name, (std::vector<std::string>{"db", "t"}));
  EXPECT_EQ(t.plan->kind, PlanKind::kUnresolvedRelation);
  Statement plain = Parse("DESC t");
  EXPECT_FALSE(plain.extended);
  Statement q = Parse("DESCRIBE QUERY SELECT 1 AS a");
  EXPECT_TRUE(q.name.empty());
  EXPECT_EQ(q.plan->kind, PlanKind::kProject);
  EXPECT_EQ(Parse("DESCRIBE (SELECT 1)").plan->kind, PlanKind::kProject);
  EXPECT_EQ(Parse("DESC SELECT 1").plan->kind, PlanKind::kProject);
}

TEST(ParserTest, ExplainStatements) {
  Statement st = Parse("EXPLAIN EXTENDED SELECT 1");
  EXPECT_EQ(st.kind, Statement::Kind::kExplain);
  EXPECT_EQ(st.explain_mode, "extended");
  EXPECT_TRUE(st.extended);
  ASSERT_TRUE(st.inner);
  EXPECT_EQ(st.inner->kind, Statement::Kind::kQuery);
  EXPECT_EQ(st.inner->text, "SELECT 1");
  EXPECT_EQ(Parse("EXPLAIN SELECT 1").explain_mode, "simple");
  EXPECT_EQ(Parse("EXPLAIN FORMATTED SELECT 1").explain_mode, "formatted");
  EXPECT_EQ(Parse("EXPLAIN CODEGEN SELECT 1").explain_mode, "codegen");
  EXPECT_EQ(Parse("EXPLAIN COST SELECT 1").explain_mode, "cost");
}

TEST(ParserTest, ShowAndUseStatements) {
  EXPECT_EQ(Parse("SHOW TABLES").kind, Statement::Kind::kShowTables);
  Statement views = Parse("SHOW VIEWS IN global_temp LIKE 'v*'");
  EXPECT_EQ(views.kind, Statement::Kind::kShowTables);
  EXPECT_EQ(views.key, "views");
  EXPECT_EQ(views.name, (std::vector<std::string>{"global_temp"}));
  EXPECT_EQ(views.value, "v*");
  Statement fns = Parse("SHOW FUNCTIONS LIKE 'a*'");
  EXPECT_EQ(fns.kind, Statement::Kind::kShowFunctions);
  EXPECT_EQ(fns.value, "a*");
  EXPECT_EQ(Parse("SHOW SYSTEM FUNCTIONS").key, "system");
  Statement use = Parse("USE db1");
  EXPECT_EQ(use.kind, Statement::Kind::kUseDatabase);
  EXPECT_EQ(use.name, (std::vector<std::string>{"db1"}));
  EXPECT_EQ(Parse("USE DATABASE db2").name, (std::vector<std::string>{"db2"}));
}

TEST(ParserTest, UnsupportedStatement) {
  Status s = Error("ALTER TABLE t ADD COLUMN a INT");
  EXPECT_EQ(s.error_class(), "INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT");
}

// --- Errors ------------------------------------------------------------------------

TEST(ParserTest, SyntaxErrorAtToken) {
  Status s = Error("SELECT a FROM t WHERE");
  EXPECT_EQ(s.error_class(), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(s.ToString(),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601");
  Status kw = Error("SELECT * FROM FROM t");
  EXPECT_EQ(kw.message(), "Syntax error at or near 'FROM'.");
  EXPECT_EQ(kw.position(), 14);
  EXPECT_EQ(kw.kind(), ErrorKind::kParse);
}

TEST(ParserTest, SyntaxErrorMissingParen) {
  Status s = Error("SELECT (1 + 2");
  EXPECT_EQ(s.message(), "Syntax error at or near end of input: missing ')'.");
  Status typo = Error("SELEC 1");
  EXPECT_EQ(typo.message(), "Syntax error at or near 'SELEC'.");
  EXPECT_EQ(typo.position(), 0);
  Status extra = Error("SELECT 1 2");
  EXPECT_EQ(extra.position(), 9);
}

TEST(ParserTest, EmptyStatement) {
  EXPECT_EQ(Error("").error_class(), "PARSE_EMPTY_STATEMENT");
  EXPECT_EQ(Error("  -- only a comment\n").error_class(), "PARSE_EMPTY_STATEMENT");
  EXPECT_EQ(Error(";").error_class(), "PARSE_EMPTY_STATEMENT");
}

TEST(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  deep = "SELECT " + deep + "1" + std::string(5000, ')');
  // Spark 4.2 raises FAILED_TO_PARSE_TOO_COMPLEX for the NOTs (its parser runs out of
  // stack; 5000 parentheses overflow the JVM outright, with no class).
  EXPECT_EQ(Error(deep).error_class(), "FAILED_TO_PARSE_TOO_COMPLEX");
  std::string nots = "SELECT ";
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_EQ(Error(nots + "a").error_class(), "FAILED_TO_PARSE_TOO_COMPLEX");
  // "--" starts a comment, so 5000 '-' leave "SELECT" alone (a syntax error, as in
  // Spark); nested unary minus needs the signs apart.
  std::string dashes = "SELECT " + std::string(5000, '-') + "a";
  EXPECT_EQ(Error(dashes).error_class(), "PARSE_SYNTAX_ERROR");
  std::string minus = "SELECT ";
  for (int i = 0; i < 5000; ++i) minus += "- ";
  EXPECT_EQ(Error(minus + "a").error_class(), "FAILED_TO_PARSE_TOO_COMPLEX");
  std::string arrays;
  for (int i = 0; i < 2000; ++i) arrays += "array<";
  EXPECT_ERROR_CLASS(ParseDataType(arrays + "int"), "FAILED_TO_PARSE_TOO_COMPLEX");
}

TEST(ParserTest, ModerateNestingWorks) {
  std::string e = std::string(100, '(') + "1" + std::string(100, ')');
  EXPECT_EQ(Expr(e), "1");
}

TEST(ParserTest, TrailingTokensRejected) {
  EXPECT_ERROR_CLASS(ParseExpression("a +"), "PARSE_SYNTAX_ERROR");
  EXPECT_ERROR_CLASS(ParseExpression("a b c"), "PARSE_SYNTAX_ERROR");
  EXPECT_ERROR_CLASS(ParseExpression(""), "PARSE_EMPTY_STATEMENT");
  EXPECT_EQ(Error("SELECT 1; SELECT 2").error_class(), "PARSE_SYNTAX_ERROR");
}

// --- Data types --------------------------------------------------------------------

TEST(ParserTest, PrimitiveDataTypes) {
  EXPECT_EQ(TypeString("BOOLEAN"), "boolean");
  EXPECT_EQ(TypeString("byte"), "tinyint");
  EXPECT_EQ(TypeString("TINYINT"), "tinyint");
  EXPECT_EQ(TypeString("short"), "smallint");
  EXPECT_EQ(TypeString("Int"), "int");
  EXPECT_EQ(TypeString("INTEGER"), "int");
  EXPECT_EQ(TypeString("long"), "bigint");
  EXPECT_EQ(TypeString("real"), "float");
  EXPECT_EQ(TypeString("double"), "double");
  EXPECT_EQ(TypeString("string"), "string");
  EXPECT_EQ(TypeString("varchar(10)"), "string");
  EXPECT_EQ(TypeString("char(3)"), "string");
  EXPECT_EQ(TypeString("binary"), "binary");
  EXPECT_EQ(TypeString("date"), "date");
  EXPECT_EQ(TypeString("timestamp"), "timestamp");
  EXPECT_EQ(TypeString("timestamp_ltz"), "timestamp");
  EXPECT_EQ(TypeString("timestamp_ntz"), "timestamp_ntz");
  EXPECT_EQ(TypeString("void"), "void");
}

TEST(ParserTest, DecimalDataTypes) {
  EXPECT_EQ(TypeString("decimal"), "decimal(10,0)");
  EXPECT_EQ(TypeString("DECIMAL(10,2)"), "decimal(10,2)");
  EXPECT_EQ(TypeString("dec(5)"), "decimal(5,0)");
  EXPECT_EQ(TypeString("numeric(38, 38)"), "decimal(38,38)");
  Result<DataTypePtr> r = ParseDataType("decimal(39,0)");
  ASSERT_ERROR_CLASS(r, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION");
  EXPECT_ERROR_CLASS(ParseDataType("decimal(5,6)"), "_LEGACY_ERROR_TEMP_1228");
  // Spark 4.2 accepts DECIMAL(0) as DecimalType(0, 0); spate refuses a zero-digit
  // decimal.
  EXPECT_ERROR_CLASS(ParseDataType("decimal(0)"), "UNSUPPORTED_DATATYPE");
}

TEST(ParserTest, IntervalDataTypes) {
  EXPECT_EQ(TypeString("interval day to second"), "interval day to second");
  EXPECT_EQ(TypeString("INTERVAL YEAR TO MONTH"), "interval year to month");
  EXPECT_EQ(TypeString("interval hour"), "interval hour");
  EXPECT_ERROR_CLASS(ParseDataType("interval month to day"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ParseDataType("interval").status().error_class(), "UNSUPPORTED_DATATYPE");
}

TEST(ParserTest, NestedDataTypes) {
  EXPECT_EQ(TypeString("array<string>"), "array<string>");
  EXPECT_EQ(TypeString("map<string, int>"), "map<string,int>");
  EXPECT_EQ(TypeString("array<struct<a:int,b:string>>"), "array<struct<a:int,b:string>>");
  EXPECT_EQ(TypeString("map<string,array<map<int,long>>>"),
            "map<string,array<map<int,bigint>>>");
  EXPECT_EQ(TypeString("struct<>"), "struct<>");
  EXPECT_EQ(TypeString("STRUCT<end: TIMESTAMP, key INT>"),
            "struct<end:timestamp,key:int>");
}

TEST(ParserTest, StructFieldNotNullAndComment) {
  Result<DataTypePtr> r =
      ParseDataType("struct<a: int NOT NULL COMMENT 'the a', b string>");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& f = (*r)->fields();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_FALSE(f[0].nullable);
  EXPECT_EQ(f[0].comment, "the a");
  EXPECT_TRUE(f[1].nullable);
}

TEST(ParserTest, DataTypeErrors) {
  Result<DataTypePtr> r = ParseDataType("foo");
  ASSERT_ERROR_CLASS(r, "UNSUPPORTED_DATATYPE");
  EXPECT_EQ(r.status().message(), "Unsupported data type \"FOO\".");
  EXPECT_EQ(ParseDataType("array").status().error_class(),
            "INCOMPLETE_TYPE_DEFINITION.ARRAY");
  EXPECT_EQ(ParseDataType("map").status().error_class(),
            "INCOMPLETE_TYPE_DEFINITION.MAP");
  EXPECT_EQ(ParseDataType("struct").status().error_class(),
            "INCOMPLETE_TYPE_DEFINITION.STRUCT");
  EXPECT_EQ(ParseDataType("varchar").status().error_class(), "DATATYPE_MISSING_SIZE");
  EXPECT_EQ(ParseDataType("array<int").status().error_class(), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ParseDataType("int(3)").status().error_class(), "UNSUPPORTED_DATATYPE");
}

TEST(ParserTest, DdlSchemaExample) {
  Result<SchemaPtr> r = ParseDdlSchema(
      "event_id LONG, user_id INT, event_ts TIMESTAMP, amount DECIMAL(10,2), tags "
      "ARRAY<STRING>, "
      "w STRUCT<start: TIMESTAMP, end: TIMESTAMP>");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->ToString(),
            "struct<event_id:bigint,user_id:int,event_ts:timestamp,amount:decimal(10,2),"
            "tags:array<string>,w:struct<start:timestamp,end:timestamp>>");
  for (const Field& f : (*r)->fields()) EXPECT_TRUE(f.nullable);
}

TEST(ParserTest, DdlSchemaNotNullAndComment) {
  Result<SchemaPtr> r =
      ParseDdlSchema("a INT NOT NULL, b STRING COMMENT 'x' 'y', `c d` date");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE((*r)->field(0).nullable);
  EXPECT_EQ((*r)->field(1).comment, "xy");
  EXPECT_EQ((*r)->field(2).name, "c d");
}

TEST(ParserTest, DdlSchemaAlternativeForms) {
  Result<SchemaPtr> s = ParseDdlSchema("struct<a:int,b:string>");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->ToString(), "struct<a:int,b:string>");
  Result<SchemaPtr> colon = ParseDdlSchema("a:int, b:string");
  ASSERT_TRUE(colon.ok());
  EXPECT_EQ((*colon)->num_fields(), 2);
  Result<SchemaPtr> keywords =
      ParseDdlSchema("key STRING, value BIGINT, date DATE, end INT");
  ASSERT_TRUE(keywords.ok()) << keywords.status().ToString();
  EXPECT_EQ((*keywords)->names(),
            (std::vector<std::string>{"key", "value", "date", "end"}));
  EXPECT_EQ((*ParseDdlSchema(""))->num_fields(), 0);
  EXPECT_ERROR_CLASS(ParseDdlSchema("a INT,"), "PARSE_SYNTAX_ERROR");
  EXPECT_ERROR_CLASS(ParseDdlSchema("a"), "PARSE_SYNTAX_ERROR");
}

TEST(ParserTest, MultipartIdentifiers) {
  EXPECT_EQ(*ParseMultipartIdentifier("db.tbl"), (std::vector<std::string>{"db", "tbl"}));
  EXPECT_EQ(*ParseMultipartIdentifier("`a.b`.c"), (std::vector<std::string>{"a.b", "c"}));
  EXPECT_ERROR_CLASS(ParseMultipartIdentifier("a b"), "PARSE_SYNTAX_ERROR");
  EXPECT_ERROR_CLASS(ParseMultipartIdentifier("a."), "PARSE_SYNTAX_ERROR");
}

// --- Scripts -----------------------------------------------------------------------

TEST(ParserTest, SplitStatementsRespectsQuotesAndComments) {
  std::vector<std::string> parts = SplitStatements(
      "SELECT ';' AS a; -- x; y\nSELECT \"b;\" /* c; */ ; SELECT `d;e` FROM t;;  ");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "SELECT ';' AS a");
  EXPECT_EQ(parts[1], "SELECT \"b;\"");
  EXPECT_EQ(parts[2], "SELECT `d;e` FROM t");
  EXPECT_TRUE(SplitStatements("  ;; -- only\n").empty());
  EXPECT_EQ(SplitStatements("SELECT 'it\\'s;'")[0], "SELECT 'it\\'s;'");
}

TEST(ParserTest, NeedsMoreInput) {
  EXPECT_TRUE(NeedsMoreInput("SELECT 1"));
  EXPECT_FALSE(NeedsMoreInput("SELECT 1;"));
  EXPECT_FALSE(NeedsMoreInput("SELECT 1;  -- trailing comment"));
  EXPECT_TRUE(NeedsMoreInput("SELECT 'abc;"));
  EXPECT_TRUE(NeedsMoreInput("SELECT 1 /* open ;"));
  EXPECT_TRUE(NeedsMoreInput("SELECT 1; SELECT 2"));
  EXPECT_FALSE(NeedsMoreInput(""));
  EXPECT_FALSE(NeedsMoreInput("   \n"));
  EXPECT_TRUE(NeedsMoreInput("SELECT `a;"));
}

TEST(ParserTest, ParseScript) {
  Result<std::vector<Statement>> r =
      ParseScript("SET a=1; SELECT 1;\n-- comment\nCREATE TEMP VIEW v AS SELECT 2;");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].kind, Statement::Kind::kSetConf);
  EXPECT_EQ((*r)[0].value, "1");
  EXPECT_EQ((*r)[1].text, "SELECT 1");
  EXPECT_EQ((*r)[2].kind, Statement::Kind::kCreateView);
  EXPECT_EQ((*r)[2].text, "CREATE TEMP VIEW v AS SELECT 2");
}

TEST(ParserTest, ParseScriptErrorPositionIsGlobal) {
  Result<std::vector<Statement>> r = ParseScript("SELECT 1; SELECT * FROM");
  ASSERT_ERROR_CLASS(r, "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(r.status().position(), 23);
}

// --- Tables and schemas ------------------------------------------------------------

TEST(ParserTest, CreateSchemaAndShowSchemas) {
  auto st = ParseStatement(
      "CREATE SCHEMA IF NOT EXISTS sales COMMENT 'x' LOCATION '/w' "
      "WITH DBPROPERTIES ('a' = 'b')");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->kind, Statement::Kind::kCreateSchema);
  EXPECT_TRUE(st->if_not_exists);
  EXPECT_EQ(st->name, std::vector<std::string>{"sales"});
  EXPECT_EQ(*st->comment, "x");
  EXPECT_EQ(*st->location, "/w");
  ASSERT_EQ(st->properties.size(), 1u);
  auto show = ParseStatement("SHOW DATABASES LIKE 'sa*'");
  ASSERT_TRUE(show.ok());
  EXPECT_EQ(show->kind, Statement::Kind::kShowSchemas);
  EXPECT_EQ(*show->value, "sa*");
  auto drop = ParseStatement("DROP SCHEMA IF EXISTS sales CASCADE");
  ASSERT_TRUE(drop.ok());
  EXPECT_EQ(drop->kind, Statement::Kind::kDropSchema);
  EXPECT_TRUE(drop->if_exists);
  EXPECT_TRUE(drop->cascade);
}

TEST(ParserTest, CreateTableUsingDelta) {
  auto st = ParseStatement(
      "CREATE TABLE IF NOT EXISTS db.events (id BIGINT NOT NULL, kind STRING COMMENT "
      "'k', "
      "day DATE) USING DELTA PARTITIONED BY (day) LOCATION '/tmp/t' "
      "TBLPROPERTIES ('delta.appendOnly' = 'true', delta.checkpointInterval = 5)");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->kind, Statement::Kind::kCreateTable);
  EXPECT_TRUE(st->create);
  EXPECT_FALSE(st->replace);
  EXPECT_TRUE(st->if_not_exists);
  EXPECT_EQ(st->name, (std::vector<std::string>{"db", "events"}));
  ASSERT_TRUE(st->table_schema);
  EXPECT_EQ(st->table_schema->num_fields(), 3);
  EXPECT_FALSE(st->table_schema->field(0).nullable);
  EXPECT_EQ(st->table_schema->field(1).comment, "k");
  EXPECT_EQ(st->provider, "DELTA");
  EXPECT_EQ(st->partition_columns, std::vector<std::string>{"day"});
  EXPECT_EQ(*st->location, "/tmp/t");
  ASSERT_EQ(st->properties.size(), 2u);
  EXPECT_EQ(st->properties[1].first, "delta.checkpointInterval");
  EXPECT_EQ(st->properties[1].second, "5");
  EXPECT_FALSE(st->plan);
}

TEST(ParserTest, CreateOrReplaceTableAsSelect) {
  auto st = ParseStatement("CREATE OR REPLACE TABLE t USING delta AS SELECT 1 AS a");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->kind, Statement::Kind::kCreateTable);
  EXPECT_TRUE(st->replace);
  EXPECT_TRUE(st->plan);
  auto bare = ParseStatement("CREATE TABLE t2 SELECT * FROM t");
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_TRUE(bare->plan);
  auto rep = ParseStatement("REPLACE TABLE t (a INT) USING delta");
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  EXPECT_FALSE(rep->create);
  EXPECT_TRUE(rep->replace);
  auto view = ParseStatement("CREATE OR REPLACE TEMP VIEW v AS SELECT 1");
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->kind, Statement::Kind::kCreateView);
}

TEST(ParserTest, InsertIntoAndOverwrite) {
  auto st = ParseStatement("INSERT INTO TABLE t (b, a) VALUES (1, 2), (3, 4)");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->kind, Statement::Kind::kInsert);
  EXPECT_FALSE(st->overwrite);
  EXPECT_EQ(st->insert_columns, (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(st->plan);
  auto ow = ParseStatement("INSERT OVERWRITE t SELECT * FROM s");
  ASSERT_TRUE(ow.ok()) << ow.status().ToString();
  EXPECT_TRUE(ow->overwrite);
  EXPECT_TRUE(ow->insert_columns.empty());
  auto paren = ParseStatement("INSERT INTO t (SELECT 1)");
  ASSERT_TRUE(paren.ok()) << paren.status().ToString();
  EXPECT_TRUE(paren->insert_columns.empty());
  EXPECT_ERROR_CLASS(ParseStatement("INSERT t SELECT 1"), "PARSE_SYNTAX_ERROR");
}

TEST(ParserTest, DropTableAndDescribeHistory) {
  auto st = ParseStatement("DROP TABLE IF EXISTS db.t PURGE");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->kind, Statement::Kind::kDropTable);
  EXPECT_TRUE(st->if_exists);
  auto h = ParseStatement("DESCRIBE HISTORY delta.`/tmp/t` LIMIT 2");
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->kind, Statement::Kind::kDescribeHistory);
  EXPECT_EQ(h->name, (std::vector<std::string>{"delta", "/tmp/t"}));
  EXPECT_EQ(*h->limit, 2);
  // A table called `history` is still a plain DESCRIBE.
  auto d = ParseStatement("DESCRIBE history");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, Statement::Kind::kDescribe);
}

TEST(ParserTest, TimeTravelRelations) {
  auto st = ParseStatement("SELECT * FROM t VERSION AS OF 3 AS x");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  const LogicalPlan* p = st->plan.get();
  while (p->kind != PlanKind::kUnresolvedRelation) p = p->children[0].get();
  EXPECT_EQ(*p->as_of_version, 3);
  auto ts = ParseStatement("SELECT * FROM delta.`/p` FOR SYSTEM_TIME AS OF '2024-01-01'");
  ASSERT_TRUE(ts.ok()) << ts.status().ToString();
  p = ts->plan.get();
  while (p->kind != PlanKind::kUnresolvedRelation) p = p->children[0].get();
  EXPECT_EQ(*p->as_of_timestamp, "2024-01-01");
  EXPECT_FALSE(p->as_of_version);
}

// --- Join type names ---------------------------------------------------------------

TEST(ParserTest, JoinTypeNamesRoundTrip) {
  EXPECT_EQ(JoinTypeName(JoinType::kLeftOuter), "left_outer");
  EXPECT_EQ(ParseJoinType("left"), JoinType::kLeftOuter);
  EXPECT_EQ(ParseJoinType("LeftOuter"), JoinType::kLeftOuter);
  EXPECT_EQ(ParseJoinType("outer"), JoinType::kFullOuter);
  EXPECT_EQ(ParseJoinType("full_outer"), JoinType::kFullOuter);
  EXPECT_EQ(ParseJoinType("semi"), JoinType::kLeftSemi);
  EXPECT_EQ(ParseJoinType("left_anti"), JoinType::kLeftAnti);
  EXPECT_EQ(ParseJoinType("cross"), JoinType::kCross);
  EXPECT_FALSE(ParseJoinType("sideways"));
  for (JoinType t : {JoinType::kInner, JoinType::kLeftOuter, JoinType::kRightOuter,
                     JoinType::kFullOuter, JoinType::kLeftSemi, JoinType::kLeftAnti,
                     JoinType::kCross}) {
    EXPECT_EQ(ParseJoinType(JoinTypeName(t)), t);
  }
}

namespace spate::sql {
namespace {

TEST(ParserMergeTest, ClausesInOrder) {
  auto st = ParseStatement(
      "MERGE INTO db.t AS t USING (SELECT 1 AS id) s ON t.id = s.id "
      "WHEN MATCHED AND s.id > 1 THEN DELETE WHEN MATCHED THEN UPDATE SET t.v = s.v, n = "
      "1 "
      "WHEN NOT MATCHED BY TARGET THEN INSERT * "
      "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 'x'");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  ASSERT_EQ(st->kind, Statement::Kind::kMerge);
  const MergeInto& m = *st->merge;
  EXPECT_EQ(m.target, (std::vector<std::string>{"db", "t"}));
  EXPECT_EQ(m.target_alias, "t");
  EXPECT_EQ(m.source_alias, "s");
  ASSERT_EQ(m.clauses.size(), 4u);
  EXPECT_EQ(m.clauses[0].action, MergeClause::Action::kDelete);
  EXPECT_NE(m.clauses[0].condition, nullptr);
  EXPECT_EQ(m.clauses[1].assignments.size(), 2u);
  EXPECT_EQ(m.clauses[1].assignments[0].first, (std::vector<std::string>{"t", "v"}));
  EXPECT_EQ(m.clauses[2].match, MergeClause::Match::kNotMatched);
  EXPECT_TRUE(m.clauses[2].star);
  EXPECT_EQ(m.clauses[3].match, MergeClause::Match::kNotMatchedBySource);
}

TEST(ParserMergeTest, Errors) {
  auto error = [](const char* sql) { return ParseStatement(sql).status().error_class(); };
  EXPECT_EQ(error("MERGE INTO t USING s ON t.id = s.id"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(error("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN INSERT *"),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(error("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN "
                  "INSERT *"),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(error("MERGE INTO t USING s ON a = b WHEN MATCHED THEN DELETE WHEN MATCHED "
                  "THEN DELETE"),
            "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION");
  EXPECT_EQ(error("MERGE INTO t USING (SELECT 1) s(a) ON a = b WHEN MATCHED THEN DELETE"),
            "COLUMN_ALIASES_NOT_ALLOWED");
  EXPECT_EQ(error("MERGE INTO t USING s ON a = b WHEN NOT MATCHED THEN INSERT (a, b) "
                  "VALUES (1)"),
            "PARSE_SYNTAX_ERROR");
}

}  // namespace
}  // namespace spate::sql

TEST(ParserDeltaCommandTest, UpdateDeleteRestoreOptimizeVacuum) {
  auto up = ParseStatement("UPDATE db.t AS x SET x.v = 1, n = n + 1 WHERE id > 2");
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  ASSERT_EQ(up->kind, Statement::Kind::kUpdate);
  EXPECT_EQ(up->delta->target, (std::vector<std::string>{"db", "t"}));
  EXPECT_EQ(up->delta->alias, "x");
  ASSERT_EQ(up->delta->assignments.size(), 2u);
  EXPECT_EQ(up->delta->assignments[0].first, (std::vector<std::string>{"x", "v"}));
  EXPECT_NE(up->delta->condition, nullptr);
  auto up2 = ParseStatement("UPDATE delta.`/p/t` SET v = 1");
  ASSERT_TRUE(up2.ok());
  EXPECT_EQ(up2->delta->alias, "");
  EXPECT_EQ(up2->delta->condition, nullptr);

  auto del = ParseStatement("DELETE FROM t t2 WHERE p = 'a'");
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->kind, Statement::Kind::kDelete);
  EXPECT_EQ(del->delta->alias, "t2");
  auto del_all = ParseStatement("DELETE FROM t");
  ASSERT_TRUE(del_all.ok());
  EXPECT_EQ(del_all->delta->condition, nullptr);

  auto rv = ParseStatement("RESTORE TABLE t TO VERSION AS OF 3");
  ASSERT_TRUE(rv.ok()) << rv.status().ToString();
  EXPECT_EQ(rv->kind, Statement::Kind::kRestore);
  EXPECT_EQ(rv->delta->version, 3);
  auto rt = ParseStatement("RESTORE t TIMESTAMP AS OF '2026-01-01 10:00:00'");
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ(rt->delta->timestamp, "2026-01-01 10:00:00");

  auto opt = ParseStatement("OPTIMIZE '/data/t' WHERE p = 'a' ZORDER BY (a, b)");
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  EXPECT_EQ(opt->kind, Statement::Kind::kOptimize);
  EXPECT_EQ(opt->delta->target, (std::vector<std::string>{"delta", "/data/t"}));
  EXPECT_EQ(opt->delta->zorder_by.size(), 2u);

  auto vac = ParseStatement("VACUUM t RETAIN 1.5 HOURS DRY RUN");
  ASSERT_TRUE(vac.ok()) << vac.status().ToString();
  EXPECT_EQ(vac->kind, Statement::Kind::kVacuum);
  EXPECT_EQ(vac->delta->retain_hours, 1.5);
  EXPECT_TRUE(vac->delta->dry_run);

  auto error = [](const char* sql) { return ParseStatement(sql).status().error_class(); };
  EXPECT_EQ(error("UPDATE t WHERE a = 1"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(error("RESTORE t TO VERSION AS OF x"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(error("VACUUM t RETAIN 2 DAYS"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(error("DELETE t"), "INVALID_SQL_SYNTAX.UNSUPPORTED_SQL_STATEMENT");
}
}  // namespace
}  // namespace spate::sql
