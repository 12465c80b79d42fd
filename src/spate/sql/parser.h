// Copyright spate authors.
#pragma once

// The Spark SQL parser: text -> Statement / LogicalPlan / Expr / DataType.
// Errors are ParseException-kind Statuses with Spark's error classes
// ([PARSE_SYNTAX_ERROR] Syntax error at or near 'x'. SQLSTATE: 42601) and the position
// (Status::position(), a 0-based char offset) of the offending token.
//
// Thread safety: stateless functions; safe from any thread.

#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/sql/logical_plan.h"

namespace spate::sql {

/// Parses one statement (a trailing ';' is allowed).
Result<Statement> ParseStatement(std::string_view text);
/// Parses a ';'-separated script; empty statements are skipped. Each Statement's `text`
/// holds its own source.
Result<std::vector<Statement>> ParseScript(std::string_view text);
/// Splits a script at top-level ';' (not inside quotes, backticks or comments), dropping
/// empty pieces; used by the shell to find complete statements.
std::vector<std::string> SplitStatements(std::string_view text);
/// True if `text` ends inside a quote/comment or has no terminating ';' after its last
/// non-blank content (the shell then asks for a continuation line).
bool NeedsMoreInput(std::string_view text);

/// Parses one expression, as DataFrame.selectExpr / expr() / filter("...") take it;
/// `a AS b` is allowed and yields a kAlias.
Result<ExprPtr> ParseExpression(std::string_view text);
/// "INT", "decimal(10,2)", "array<struct<a:int,b:string>>", "map<string, int>" ...
Result<DataTypePtr> ParseDataType(std::string_view text);
/// Spark DDL schema: "a INT, b STRING NOT NULL COMMENT 'x', c ARRAY<STRING>"; also
/// accepts "struct<a:int,b:string>" and "a:int, b:string".
Result<SchemaPtr> ParseDdlSchema(std::string_view text);
/// "db.tbl", "`a.b`.c" -> parts.
Result<std::vector<std::string>> ParseMultipartIdentifier(std::string_view text);

}  // namespace spate::sql
