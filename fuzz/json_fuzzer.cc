// Copyright spate authors.
// libFuzzer target: from_json's converter over arbitrary bytes with a nested schema
// (every mode, with the corrupt-record column, and as a rescued data column reads it),
// schema inference, and writing the result back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "spate/columnar/builder.h"
#include "spate/formats/json/column_parser.h"
#include "spate/formats/json/infer_schema.h"
#include "spate/formats/json/writer.h"

using namespace spate;                 // NOLINT
using namespace spate::formats::json;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const DataTypePtr kSchema = DataType::Struct({
      {"a", DataType::Int()},
      {"b", DataType::Array(DataType::Struct(
                {{"x", DataType::Double()},
                 {"y", DataType::Map(DataType::String(), DataType::Decimal(10, 2))}}))},
      {"s", DataType::String()},
      {"t", DataType::Timestamp()},
      {"d", DataType::Date()},
      {"bin", DataType::Binary()},
      {"_corrupt_record", DataType::String()},
  });
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (ParseMode mode :
       {ParseMode::kPermissive, ParseMode::kDropMalformed, ParseMode::kFailFast}) {
    JsonOptions o;
    o.mode = mode;
    o.allow_comments = size % 2 == 0;
    o.allow_unquoted_field_names = size % 3 == 0;
    o.bad_values_are_rescued = size % 5 == 0;  // a rescued data column's reading
    auto parser = JsonColumnParser::Make(
        kSchema, o, /*allow_array_as_structs=*/mode == ParseMode::kDropMalformed);
    if (!parser.ok()) __builtin_trap();
    int64_t rows = 0;
    bool unmatched = false;
    (void)(*parser)->Append(text, &rows, &unmatched);
    ColumnPtr col = (*parser)->Finish();
    auto writer = JsonWriter::Make(o);
    if (!writer.ok()) __builtin_trap();
    (void)writer->WriteColumn(*col);
  }
  JsonOptions o;
  (void)InferType(text, o);
  (void)InferSchema({text}, o);
  return 0;
}
