// Copyright spate authors.
#include "spate/api/csv_functions.h"

namespace spate::api::functions {

namespace {

std::vector<Column> WithCsvOptions(std::vector<Column> args, const CsvOptionMap& options) {
  if (options.empty()) return args;
  std::vector<Column> kv;
  for (const auto& [k, v] : options) {
    kv.push_back(lit(k));
    kv.push_back(lit(v));
  }
  args.push_back(call_function("map", kv));
  return args;
}

}  // namespace

Column from_csv(const Column& csv, const std::string& schema, const CsvOptionMap& options) {
  return call_function("from_csv", WithCsvOptions({csv, lit(schema)}, options));
}
Column to_csv(const Column& c, const CsvOptionMap& options) {
  return call_function("to_csv", WithCsvOptions({c}, options));
}
Column schema_of_csv(const std::string& csv, const CsvOptionMap& options) {
  return schema_of_csv(lit(csv), options);
}
Column schema_of_csv(const Column& csv, const CsvOptionMap& options) {
  return call_function("schema_of_csv", WithCsvOptions({csv}, options));
}

}  // namespace spate::api::functions
