// Copyright spate authors.
// Auto Loader (readStream().format("cloudFiles")) through the C++ API and the stream test
// DSL: files arrive, the schema evolves across a restart, rows are rescued.
#include <gtest/gtest.h>

#include <fstream>

#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/testing/row_values.h"
#include "spate/testing/stream_test.h"

namespace spate::testing {
namespace {

using api::DataFrame;
using api::SparkSession;
using Ctx = StreamTest::Context;

SparkSession Spark() {
  static SparkSession s = TestSession("auto-loader-tests");
  return s;
}

Value Null() { return Value::Null(DataType::String()); }

class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                         "spate-autoloader-" + stream::RandomUuid());
    (void)io::LocalFileSystem::Get()->MakeDirs(io::JoinPath(path_, "in"));
  }
  ~TempDir() { (void)io::LocalFileSystem::Get()->Delete(path_, true); }
  std::string operator/(const std::string& name) const {
    return io::JoinPath(path_, name);
  }

 private:
  std::string path_;
};

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

DataFrame Load(const TempDir& dir, std::map<std::string, std::string> options = {}) {
  options["cloudFiles.format"] = "json";
  options["cloudFiles.schemaLocation"] = dir / "schema";
  return Spark().readStream().format("cloudFiles").options(options).load(dir / "in");
}

// Run twice: as written, and with a stop and restart after every check.
class AutoLoaderRestarts : public ::testing::TestWithParam<bool> {};

TEST_P(AutoLoaderRestarts, AddNewColumnsFailsThenTheRestartReadsTheNewColumn) {
  TempDir dir;
  Write(dir / "in/f1.json", "{\"a\":1,\"b\":\"x\"}\n");
  DataFrame df = Load(dir);
  EXPECT_EQ(df.schema().simpleString(), "struct<a:string,b:string,_rescued_data:string>");
  StreamTest t(Spark(), df);
  std::vector<StreamTest::Action> actions = {
      StreamTest::StartStream(),
      StreamTest::CheckAnswer({{S("1"), S("x"), Null()}}),
      StreamTest::Execute(
          [&](Ctx&) { Write(dir / "in/f2.json", "{\"a\":2,\"c\":\"new\"}\n"); },
          "a file with column c arrives"),
      StreamTest::ExpectFailure(
          "[UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_RECORD_WITH_FILE_PATH] "
          "Encountered unknown fields during parsing: [c]"),
      // The stream is defined again (as a restarted job does): the new schema version.
      StreamTest::Execute([&](Ctx& c) { c.df = Load(dir); }, "define the stream again"),
      StreamTest::AssertOnQuery(
          [&](const api::StreamingQuery&) {
            return Load(dir).schema().simpleString() ==
                   "struct<a:string,b:string,c:string,_rescued_data:string>";
          },
          "the evolved schema"),
      StreamTest::StartStream(),
      StreamTest::CheckNewAnswer({{S("2"), Null(), S("new"), Null()}}),
      StreamTest::Execute(
          [&](Ctx&) { Write(dir / "in/f3.json", "{\"a\":3,\"b\":\"z\"}\n"); }),
      StreamTest::CheckNewAnswer({{S("3"), S("z"), Null(), Null()}}),
  };
  EXPECT_EQ(t.Run(actions, /*restart_after_checks=*/GetParam()), "");
}

INSTANTIATE_TEST_SUITE_P(AutoLoader, AutoLoaderRestarts, ::testing::Bool());

TEST(AutoLoader, RescueModeKeepsTheSchemaAcrossRestarts) {
  TempDir dir;
  Write(dir / "in/f1.json", "{\"n\":1}\n");
  StreamTest t(Spark(), Load(dir, {{"cloudFiles.schemaEvolutionMode", "rescue"},
                                   {"cloudFiles.inferColumnTypes", "true"}}));
  const std::string f2 = dir / "in/f2.json";
  std::string err = t.Run(
      {
          StreamTest::StartStream(),
          StreamTest::CheckAnswer({{L(1), Null()}}),
          StreamTest::Execute(
              [&](Ctx&) { Write(f2, "{\"n\":\"two\",\"x\":true}\n{\"n\":3}\n"); }),
          StreamTest::CheckNewAnswer(
              {{Value::Null(DataType::Long()),
                S("{\"n\":\"two\",\"x\":true,\"_file_path\":\"file://" + f2 + "\"}")},
               {L(3), Null()}}),
      },
      /*restart_after_checks=*/true);
  EXPECT_EQ(err, "");
}

TEST(AutoLoader, IncludeExistingFilesFalseTakesOnlyNewFiles) {
  TempDir dir;
  Write(dir / "in/old.json", "{\"a\":\"old\"}\n");
  StreamTest t(Spark(), Load(dir, {{"cloudFiles.includeExistingFiles", "false"}}));
  std::string err = t.Run(
      {
          StreamTest::StartStream(),
          StreamTest::CheckAnswer({}),
          StreamTest::Execute(
              [&](Ctx&) { Write(dir / "in/new.json", "{\"a\":\"new\"}\n"); }),
          StreamTest::CheckAnswer({{S("new"), Null()}}),
          StreamTest::Execute(
              [&](Ctx&) { Write(dir / "in/new2.json", "{\"a\":\"new2\"}\n"); }),
          StreamTest::CheckNewAnswer({{S("new2"), Null()}}),
      },
      /*restart_after_checks=*/true);
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace spate::testing
