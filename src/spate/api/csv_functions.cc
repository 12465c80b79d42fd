// Copyright spate authors.
#include "spate/api/csv_functions.h"

namespace spate::api::functions {

Column from_csv(const Column& csv, const std::string& schema,
                const CsvOptionMap& options) {
  return call_function("from_csv", WithOptionsArgument({csv, lit(schema)}, options));
}
Column to_csv(const Column& c, const CsvOptionMap& options) {
  return call_function("to_csv", WithOptionsArgument({c}, options));
}
Column schema_of_csv(const std::string& csv, const CsvOptionMap& options) {
  return schema_of_csv(lit(csv), options);
}
Column schema_of_csv(const Column& csv, const CsvOptionMap& options) {
  return call_function("schema_of_csv", WithOptionsArgument({csv}, options));
}

}  // namespace spate::api::functions
