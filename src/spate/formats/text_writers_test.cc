// Copyright spate authors.
// The JSON, CSV and text FileWriterFactories through PartitionedWriteJob on the in-memory
// file system, read back with the line sources (round trips, gzip, writer options).
#include "spate/formats/text_writers.h"

#include <gtest/gtest.h>

#include "spate/columnar/builder.h"
#include "spate/formats/csv_source.h"
#include "spate/formats/json_source.h"
#include "spate/testing/status_matchers.h"

namespace spate::formats {
namespace {

SchemaPtr Schema3() {
  return std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""},
                         {"s", DataType::String(), true, ""},
                         {"d", DataType::Double(), true, ""}});
}

BatchPtr Rows() {
  std::vector<Value> ids, ss, ds;
  const char* strs[] = {"plain",  "a,b",     "q\"uote",          "line\nbreak",
                        "back\\", "  pad  ", "\xc3\xa9t\xc3\xa9"};
  for (int i = 0; i < 7; ++i) {
    ids.push_back(Value::Long(i));
    ss.push_back(Value::String(strs[i]));
    ds.push_back(i == 3 ? Value::Null(DataType::Double()) : Value::Double(i * 1.5));
  }
  ids.push_back(Value::Long(7));
  ss.push_back(Value::Null(DataType::String()));
  ds.push_back(Value::Double(-0.25));
  return Batch::Make(
      Schema3(),
      {ColumnFromValues(DataType::Long(), ids), ColumnFromValues(DataType::String(), ss),
       ColumnFromValues(DataType::Double(), ds)},
      8);
}

std::string Render(const DataSource& src) {
  ScanSpec spec;
  for (int i = 0; i < src.schema()->num_fields(); ++i) spec.columns.push_back(i);
  std::vector<std::string> rows;
  for (int s = 0; s < src.num_splits(); ++s) {
    auto reader = std::move(src.OpenSplit(s, spec)).value();
    while (auto b = std::move(reader->Next()).value()) {
      for (int64_t r = 0; r < b->num_rows(); ++r) {
        std::string line;
        for (int c = 0; c < b->num_columns(); ++c) {
          Value v = b->column(c)->GetValue(r);
          line += (c ? "|" : "") + (v.is_null() ? std::string("null") : v.ToString());
        }
        rows.push_back(line);
      }
    }
  }
  std::sort(rows.begin(), rows.end());
  std::string out;
  for (const auto& r : rows) out += r + "\n";
  return out;
}

std::vector<WrittenFile> WriteAll(const io::FileSystemPtr& fs,
                                  const FileWriterFactoryPtr& f, const std::string& dir,
                                  SchemaPtr schema, BatchPtr batch) {
  WriteJobOptions o;
  o.output_dir = dir;
  auto job = PartitionedWriteJob::Make(fs, f, schema, o, 2).value();
  EXPECT_TRUE(job->Write(0, batch).ok());
  EXPECT_TRUE(job->Write(1, batch).ok());
  return job->Commit().value();
}

TEST(TextWritersTest, CsvRoundTrip) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  std::map<std::string, std::string> opts = {{"header", "true"},
                                             {"nullValue", "\\N"},
                                             {"ignoreLeadingWhiteSpace", "false"},
                                             {"ignoreTrailingWhiteSpace", "false"}};
  auto files =
      WriteAll(fs, MakeCsvWriterFactory(opts, "UTC").value(), "/csv", Schema3(), Rows());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0].relative_path.find("-c000.csv"), std::string::npos);
  opts["multiLine"] = "true";
  auto src = CsvDataSource::Make(fs, {"/csv"}, Schema3(), opts).value();
  std::string once =
      Render(*CsvDataSource::Make(fs, {"/csv/" + files[0].relative_path}, Schema3(), opts)
                  .value());
  EXPECT_EQ(once,
            "0|plain|0.0\n1|a,b|1.5\n2|q\"uote|3.0\n3|line\nbreak|null\n4|back\\|6.0\n"
            "5|  pad  |7.5\n6|\xc3\xa9t\xc3\xa9|9.0\n7|null|-0.25\n");
  // The folder holds both part files: every row twice.
  const std::string both = Render(*src);
  EXPECT_EQ(both.size(), 2 * once.size());
  EXPECT_NE(both.find("7|null|-0.25\n7|null|-0.25\n"), std::string::npos);
  // Default trimming on write; gzip output reads back.
  auto gz = WriteAll(fs, MakeCsvWriterFactory({{"compression", "gzip"}}, "UTC").value(),
                     "/gz", Schema3(), Rows());
  EXPECT_NE(gz[0].relative_path.find("-c000.csv.gz"), std::string::npos);
  auto gsrc = CsvDataSource::Make(fs, {"/gz/" + gz[0].relative_path}, Schema3(),
                                  {{"multiLine", "true"}})
                  .value();
  EXPECT_NE(Render(*gsrc).find("5|pad|7.5\n"), std::string::npos);
}

TEST(TextWritersTest, CsvIntervalsAndDatesRoundTrip) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto ym = DataType::YearMonthInterval(IntervalField::kYear, IntervalField::kMonth);
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"ym", ym, true, ""}, {"day", DataType::Date(), true, ""}});
  auto batch = Batch::Make(schema,
                           {ColumnFromValues(ym, {Value::FromI64(ym, 14)}),
                            ColumnFromValues(DataType::Date(), {Value::Date(19000)})},
                           1);
  auto files =
      WriteAll(fs, MakeCsvWriterFactory({}, "UTC").value(), "/iv", schema, batch);
  EXPECT_EQ(fs->ReadAll("/iv/" + files[0].relative_path).value(),
            "INTERVAL '1-2' YEAR TO MONTH,2022-01-08\n");
  auto src = CsvDataSource::Make(fs, {"/iv"}, schema, {}).value();
  EXPECT_EQ(Render(*src),
            "INTERVAL '1-2' YEAR TO MONTH|2022-01-08\n"
            "INTERVAL '1-2' YEAR TO MONTH|2022-01-08\n");
}

TEST(TextWritersTest, JsonAndText) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto files =
      WriteAll(fs, MakeJsonWriterFactory({}, "UTC").value(), "/json", Schema3(), Rows());
  EXPECT_NE(files[0].relative_path.find("-c000.json"), std::string::npos);
  auto src = LineFileDataSource::Make(fs, LineFileDataSource::Format::kJson,
                                      {"/json/" + files[0].relative_path}, Schema3(), {})
                 .value();
  EXPECT_EQ(Render(*src),
            "0|plain|0.0\n1|a,b|1.5\n2|q\"uote|3.0\n3|line\nbreak|null\n4|back\\|6.0\n"
            "5|  pad  |7.5\n6|\xc3\xa9t\xc3\xa9|9.0\n7|null|-0.25\n");
  auto text_schema = std::make_shared<const Schema>(
      std::vector<Field>{{"s", DataType::String(), true, ""}});
  auto one = Batch::Make(text_schema, {Rows()->column(1)}, 8);
  auto t = WriteAll(fs, MakeTextWriterFactory({{"lineSep", "|"}}).value(), "/text",
                    text_schema, one);
  EXPECT_NE(t[0].relative_path.find("-c000.txt"), std::string::npos);
  EXPECT_EQ(fs->ReadAll("/text/" + t[0].relative_path).value(),
            "plain|a,b|q\"uote|line\nbreak|back\\|  pad  |\xc3\xa9t\xc3\xa9||");
  EXPECT_ERROR_CLASS(CheckWriteSchema("text", *Schema3()), "_LEGACY_ERROR_TEMP_1290");
  EXPECT_ERROR_CLASS(MakeTextWriterFactory({{"compression", "lz4"}}),
                     "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION");
}

}  // namespace
}  // namespace spate::formats
