// Copyright spate authors.
#include "spate/formats/json/options.h"

#include "spate/types/data_type.h"

namespace spate::formats::json {

namespace {

Result<bool> ParseBool(const std::string& key, const std::string& v) {
  std::string l = ToLower(v);
  if (l == "true") return true;
  if (l == "false") return false;
  return Status::Invalid("The option '" + key + "' must be a boolean, got '" + v + "'.");
}

}  // namespace

const char* ParseModeName(ParseMode mode) {
  switch (mode) {
    case ParseMode::kPermissive:
      return "PERMISSIVE";
    case ParseMode::kDropMalformed:
      return "DROPMALFORMED";
    case ParseMode::kFailFast:
      return "FAILFAST";
  }
  return "PERMISSIVE";
}

Result<JsonOptions> JsonOptions::FromPairs(
    const std::vector<std::pair<std::string, std::string>>& options,
    std::string session_time_zone) {
  JsonOptions o;
  o.time_zone_id = std::move(session_time_zone);
  for (const auto& entry : options) {
    // Named references, not structured bindings: clang 14 cannot capture those in
    // lambdas.
    const std::string& raw_key = entry.first;
    const std::string& v = entry.second;
    std::string k = ToLower(raw_key);
    auto flag = [&](bool* out) -> Status {
      SPATE_ASSIGN_OR_RETURN(*out, ParseBool(raw_key, v));
      return Status::OK();
    };
    if (k == "mode") {
      std::string m = ToUpper(v);
      // Spark's ParseMode.fromString: unknown modes fall back to PERMISSIVE.
      o.mode = m == "FAILFAST"        ? ParseMode::kFailFast
               : m == "DROPMALFORMED" ? ParseMode::kDropMalformed
                                      : ParseMode::kPermissive;
    } else if (k == "columnnameofcorruptrecord") {
      o.column_name_of_corrupt_record = v;
    } else if (k == "dateformat") {
      o.date_format = v;
    } else if (k == "timestampformat") {
      o.timestamp_format = v;
    } else if (k == "timestampntzformat") {
      o.timestamp_ntz_format = v;
    } else if (k == "timezone") {
      o.time_zone_id = v;
    } else if (k == "allowcomments") {
      SPATE_RETURN_IF_ERROR(flag(&o.allow_comments));
    } else if (k == "allowunquotedfieldnames") {
      SPATE_RETURN_IF_ERROR(flag(&o.allow_unquoted_field_names));
    } else if (k == "allowsinglequotes") {
      SPATE_RETURN_IF_ERROR(flag(&o.allow_single_quotes));
    } else if (k == "allownonnumericnumbers") {
      SPATE_RETURN_IF_ERROR(flag(&o.allow_non_numeric_numbers));
    } else if (k == "allownumericleadingzeros") {
      SPATE_RETURN_IF_ERROR(flag(&o.allow_numeric_leading_zeros));
    } else if (k == "allowbackslashescapinganycharacter") {
      SPATE_RETURN_IF_ERROR(flag(&o.allow_backslash_escaping_any_character));
    } else if (k == "primitivesasstring") {
      SPATE_RETURN_IF_ERROR(flag(&o.primitives_as_string));
    } else if (k == "prefersdecimal") {
      SPATE_RETURN_IF_ERROR(flag(&o.prefers_decimal));
    } else if (k == "ignorenullfields") {
      SPATE_RETURN_IF_ERROR(flag(&o.ignore_null_fields));
    } else if (k == "dropfieldifallnull") {
      SPATE_RETURN_IF_ERROR(flag(&o.drop_field_if_all_null));
    }
    // Other options (multiLine, encoding, lineSep, samplingRatio, ...) belong to the file
    // reader or are accepted and ignored, as Spark ignores unknown keys.
  }
  return o;
}

}  // namespace spate::formats::json
