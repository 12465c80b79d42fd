// Copyright spate authors.
// libFuzzer target: the CSV tokenizer, typed conversion (every parse mode, with the
// corrupt-record column, with or without a rescued data column) and schema inference
// over arbitrary bytes, under option sets
// chosen from the input's first byte (multiLine, quote/escape variants, lineSep,
// unescapedQuoteHandling, header-like limits).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "spate/formats/csv/parser.h"

using namespace spate;                // NOLINT
using namespace spate::formats::csv;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t sel = data[0];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  static const char* kHandling[] = {"STOP_AT_DELIMITER", "BACK_TO_DELIMITER",
                                    "STOP_AT_CLOSING_QUOTE", "SKIP_VALUE", "RAISE_ERROR"};
  static const SchemaPtr kSchema = std::make_shared<const Schema>(std::vector<Field>{
      {"i", DataType::Int(), true},
      {"d", DataType::Double(), true},
      {"s", DataType::String(), true},
      {"dec", DataType::Decimal(12, 3), true},
      {"day", DataType::Date(), true},
      {"ts", DataType::Timestamp(), true},
      {"b", DataType::Boolean(), true},
      {"_corrupt_record", DataType::String(), true},
  });
  // The same with a rescued data column (rescuedDataColumn) when the first byte's top bit
  // is set.
  static const SchemaPtr kRescueSchema = [] {
    std::vector<Field> f = kSchema->fields();
    f.push_back({"_rescued", DataType::String(), true});
    return std::make_shared<const Schema>(std::move(f));
  }();
  const bool rescue = (sel & 128) != 0;
  for (const char* mode : {"PERMISSIVE", "DROPMALFORMED", "FAILFAST"}) {
    std::map<std::string, std::string> m = {{"mode", mode}, {"inferSchema", "true"}};
    if (sel & 1) m["multiLine"] = "true";
    if (sel & 2) m["escape"] = "\"";
    if (sel & 4) m["lineSep"] = (sel & 8) ? ";" : "\r\n";
    if (sel & 16)
      m["ignoreLeadingWhiteSpace"] = "true", m["ignoreTrailingWhiteSpace"] = "true";
    if (sel & 32) m["maxColumns"] = "4", m["maxCharsPerColumn"] = "16";
    if (sel & 64) m["comment"] = "#", m["sep"] = "||";
    if (rescue) m["rescuedDataColumn"] = "_rescued";
    m["unescapedQuoteHandling"] = kHandling[(sel >> 5) % 5];
    auto o = CsvOptions::FromMap(m);
    if (!o.ok()) __builtin_trap();
    CsvTokenizer tok(*o);
    auto conv = CsvConverter::Make(rescue ? kRescueSchema : kSchema, *o);
    auto inf = CsvSchemaInferrer::Make(*o);
    if (!conv.ok() || !inf.ok()) __builtin_trap();
    std::vector<int> needed = {0, 1, 2, 3, 4, 5, 6, 7};
    if (rescue) {
      needed.push_back(8);
      (*conv)->SetRescueContext({"i", "d", "s", "x", "", "y"}, "file:///f.csv");
    }
    size_t pos = 0;
    while (pos < text.size()) {
      CsvRecords recs;
      size_t next = tok.Tokenize(text, pos, 7, &recs);
      if (next <= pos && recs.size() == 0) break;
      pos = next;
      int64_t rows = 0;
      (void)(*conv)->Convert(text, recs, needed, &rows);
      (*inf)->Add(text, recs);
    }
    (void)(*inf)->Finish({"a", "b", "c"});
  }
  return 0;
}
