// Copyright spate authors.
#include "spate/api/json_functions.h"

namespace spate::api::functions {

Column from_json(const Column& json, const std::string& schema,
                 const JsonOptionMap& options) {
  return call_function("from_json", WithOptionsArgument({json, lit(schema)}, options));
}
Column from_json(const Column& json, const DataTypePtr& schema,
                 const JsonOptionMap& options) {
  return from_json(json, schema->Sql(), options);
}
Column from_json(const Column& json, const Column& schema, const JsonOptionMap& options) {
  return call_function("from_json", WithOptionsArgument({json, schema}, options));
}
Column to_json(const Column& c, const JsonOptionMap& options) {
  return call_function("to_json", WithOptionsArgument({c}, options));
}
Column schema_of_json(const std::string& json, const JsonOptionMap& options) {
  return schema_of_json(lit(json), options);
}
Column schema_of_json(const Column& json, const JsonOptionMap& options) {
  return call_function("schema_of_json", WithOptionsArgument({json}, options));
}
Column get_json_object(const Column& json, const std::string& path) {
  return call_function("get_json_object", {json, lit(path)});
}
Column json_tuple(const Column& json, const std::vector<std::string>& fields) {
  std::vector<Column> args{json};
  for (const auto& f : fields) args.push_back(lit(f));
  return call_function("json_tuple", args);
}
Column json_array_length(const Column& json) {
  return call_function("json_array_length", {json});
}
Column json_object_keys(const Column& json) {
  return call_function("json_object_keys", {json});
}

}  // namespace spate::api::functions
