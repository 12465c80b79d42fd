// Copyright spate authors.
#include "spate/api/sql_relations.h"

#include <map>

#include "spate/api/dataframe.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session_state.h"
#include "spate/api/streaming.h"
#include "spate/sql/analyzer.h"

namespace spate::api {

namespace {

std::string ArgText(const Value& v) {
  if (v.is_null()) return "";
  if (v.type()->id() == TypeId::kString) return v.str();
  return v.ToString();
}

// The format read_files reads when none is given: the path's extension.
std::string FormatOfPath(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = ToLower(path.substr(dot + 1));
  if (ext == "json" || ext == "jsonl" || ext == "ndjson") return "json";
  if (ext == "csv" || ext == "tsv") return "csv";
  if (ext == "parquet") return "parquet";
  if (ext == "txt" || ext == "text") return "text";
  return "";
}

// STREAM name: a streaming temp view or a table, as readStream.table reads it.
sql::PlanPtr StreamOfName(const std::shared_ptr<SessionState>& state,
                          const std::vector<std::string>& name) {
  return DataStreamReader(state).table(sql::QuoteIdentifier(name)).plan();
}

sql::PlanPtr ReadFiles(const std::shared_ptr<SessionState>& state, bool streaming,
                       const std::vector<std::pair<std::string, Value>>& args) {
  std::string path, format, schema;
  bool has_path = false;
  std::map<std::string, std::string> options;
  for (const auto& [name, value] : args) {
    const std::string key = ToLower(name);
    if (key.empty() || key == "path") {
      if (has_path) {
        ThrowStatus(Status::Error(
            "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE",
            {{"routineName", "`read_files`"}, {"parameterName", "`path`"}}));
      }
      path = ArgText(value);
      has_path = true;
    } else if (key == "format") {
      format = ToLower(ArgText(value));
    } else if (key == "schema") {
      schema = ArgText(value);
    } else {
      options[name] = ArgText(value);
    }
  }
  if (!has_path) {
    ThrowStatus(Status::Error(
        "REQUIRED_PARAMETER_NOT_FOUND",
        {{"routineName", "`read_files`"}, {"parameterName", "`path`"}, {"index", "0"}}));
  }
  if (format.empty()) format = FormatOfPath(path);
  if (format.empty()) {
    ThrowStatus(
        Status::Invalid("read_files: the format of '" + path +
                        "' cannot be told from its name; give format => 'json' (or "
                        "'csv', 'parquet', 'text')"));
  }
  if (!streaming) {
    DataFrameReader r(state);
    r.format(format).options(options);
    if (!schema.empty()) r.schema(schema);
    return r.load(path).plan();
  }
  DataStreamReader r(state);
  if (schema.empty()) {
    // Without a schema: Auto Loader infers and keeps it (cloudFiles.* options).
    std::map<std::string, std::string> cf;
    for (const auto& [k, v] : options) {
      const std::string l = ToLower(k);
      if (l.rfind("cloudfiles.", 0) == 0 || l == "rescueddatacolumn") {
        cf[k] = v;
      } else if (l == "schemalocation" || l == "schemahints" ||
                 l == "schemaevolutionmode" || l == "infercolumntypes" ||
                 l == "maxfilespertrigger" || l == "maxbytespertrigger" ||
                 l == "includeexistingfiles") {
        cf["cloudFiles." + k] = v;
      } else {
        cf[k] = v;
      }
    }
    cf["cloudFiles.format"] = format;
    return r.format("cloudFiles").options(cf).load(path).plan();
  }
  return r.format(format).schema(schema).options(options).load(path).plan();
}

}  // namespace

Result<sql::PlanPtr> ResolveSqlRelation(
    const std::shared_ptr<SessionState>& state, const sql::LogicalPlan& node,
    const std::vector<std::pair<std::string, Value>>& args) {
  try {
    if (node.kind == sql::PlanKind::kUnresolvedRelation && node.streaming) {
      return StreamOfName(state, node.table_name);
    }
    if (node.kind == sql::PlanKind::kTableFunction && node.table_name.size() == 1 &&
        ToLower(node.table_name[0]) == "read_files") {
      return ReadFiles(state, node.streaming, args);
    }
    return sql::PlanPtr();
  } catch (const SparkException& e) {
    return e.status();
  }
}

}  // namespace spate::api
