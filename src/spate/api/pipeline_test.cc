// Copyright spate authors.
// Declarative pipelines (api/pipeline.h): the graph's order, refusals, a run once and
// again with new files, a flow defined in code. The CLI and the course pipeline:
// python/tests/test_pipelines.py; against spark-pipelines: tests/differential.

#include "spate/api/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/testing/status_matchers.h"
#include "spate/testing/temp_dir_test.h"

namespace spate::api {
namespace {

class PipelineTest : public testing::WarehouseTest {
 protected:
  void SetUp() override {
    WarehouseTest::SetUp();
    std::filesystem::create_directories(P("in"));
  }
  void Land(const std::string& name, int from, int n) {
    std::ofstream f(dir_ + "/in/" + name);
    for (int i = from; i < from + n; ++i) {
      f << "{\"id\": " << i << ", \"k\": \"" << (i % 2 ? "odd" : "even") << "\"}\n";
    }
  }
  PipelineOptions Options() {
    PipelineOptions o;
    o.storage = dir_ + "/storage";
    return o;
  }
  std::string Sql() {
    return "CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS n FROM silver GROUP "
           "BY k;\n"
           "CREATE STREAMING TABLE silver AS SELECT * FROM STREAM(evens);\n"
           "CREATE TEMPORARY VIEW evens AS SELECT * FROM STREAM(bronze) WHERE k = "
           "'even';\n"
           "CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM read_files('" +
           dir_ + "/in', format => 'json', schema => 'id BIGINT, k STRING');\n";
  }
  int64_t Count(const std::string& table) { return spark_->table(table).count(); }
};

TEST_F(PipelineTest, FlowsRunAfterTheDatasetsTheyRead) {
  Pipeline p(*spark_, Options());
  p.addSql(Sql(), "p.sql");
  EXPECT_EQ(p.flowOrder(),
            (std::vector<std::string>{"bronze", "evens", "silver", "per_k"}));
}

TEST_F(PipelineTest, RunsOnceThenOnlyWhatIsNew) {
  Land("a.json", 0, 10);
  Pipeline p(*spark_, Options());
  p.addSql(Sql(), "p.sql");
  auto results = p.run();
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].target, "bronze");
  EXPECT_EQ(results[0].rows, 10);
  EXPECT_EQ(Count("bronze"), 10);
  EXPECT_EQ(Count("silver"), 5);
  EXPECT_EQ(spark_->sql("SELECT n FROM per_k").collect()[0][0].i64(), 5);
  Land("b.json", 10, 4);
  results = p.run();
  EXPECT_EQ(results[0].rows, 4);  // only the new file
  EXPECT_EQ(Count("bronze"), 14);
  EXPECT_EQ(Count("silver"), 7);
  EXPECT_EQ(spark_->sql("SELECT n FROM per_k").collect()[0][0].i64(), 7);
  Pipeline::Flow bronze;
  bronze.name = "bronze";
  bronze.target = "bronze";
  EXPECT_EQ(p.checkpointOf(bronze),
            dir_ + "/storage/_checkpoints/spark_catalog/default/bronze/bronze/0");
  EXPECT_TRUE(std::filesystem::is_directory(p.checkpointOf(bronze) + "/commits"));
}

TEST_F(PipelineTest, CodeFlowsAndRefusals) {
  Land("a.json", 0, 6);
  Pipeline p(*spark_, Options());
  Pipeline::Dataset d;
  d.name = "raw";
  p.defineDataset(d);
  Pipeline::Flow f;
  f.name = "raw";
  f.target = "raw";
  SparkSession spark = *spark_;
  const std::string in = dir_ + "/in";
  f.query = [spark, in] {
    return spark.readStream().schema("id BIGINT, k STRING").json(in);
  };
  p.defineFlow(f);
  EXPECT_THROW_HAS(
      p.defineDataset(d), SparkException,
      "Dataset raw has already been defined in the pipeline");  // defined twice
  EXPECT_EQ(p.run()[0].rows, 6);
  EXPECT_EQ(Count("raw"), 6);

  Pipeline cycle(*spark_, Options());
  cycle.addSql(
      "CREATE STREAMING TABLE a AS SELECT * FROM STREAM(b);\n"
      "CREATE STREAMING TABLE b AS SELECT * FROM STREAM(a);");
  try {
    cycle.flowOrder();
    FAIL() << "a cycle was accepted";
  } catch (const SparkException& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  Pipeline orphan(*spark_, Options());
  orphan.addSql(
      "CREATE FLOW f AS INSERT INTO nowhere BY NAME SELECT * FROM STREAM(raw);");
  EXPECT_THROW_HAS(orphan.run(), SparkException, "Flow f writes to nowhere");
  Pipeline batch(*spark_, Options());
  batch.addSql("CREATE STREAMING TABLE s AS SELECT * FROM range(3);");
  EXPECT_THROW_HAS(
      batch.run(), SparkException,
      "Streaming table s is written by flow s, whose query is a batch query");
  EXPECT_THROW_HAS(Pipeline(*spark_, Options()).addSql("SELECT 1"), SparkException,
                   "not: SELECT 1");
}

TEST_F(PipelineTest, AFailedFlowSkipsItsDependentsAndTheOthersRunOn) {
  Land("a.json", 0, 6);
  spark_->conf().set("spark.sql.pipelines.maxFlowRetryAttempts", "1");
  spark_->conf().set("spark.sql.pipelines.execution.watchdog.minRetryTime", "1");
  std::vector<std::string> events;
  PipelineOptions o = Options();
  o.on_event = [&](const std::string& e) { events.push_back(e); };
  Pipeline p(*spark_, o);
  p.addSql(
      "CREATE MATERIALIZED VIEW broken AS SELECT raise_error('boom') AS x FROM "
      "range(3);\n"
      "CREATE MATERIALIZED VIEW after_broken AS SELECT * FROM broken;\n"
      "CREATE MATERIALIZED VIEW after_after AS SELECT count(*) AS n FROM "
      "after_broken;\n" +
      Sql());
  try {
    p.run();
    FAIL() << "the run succeeded";
  } catch (const SparkException& e) {
    EXPECT_EQ(e.status().error_class(), "USER_RAISED_EXCEPTION") << e.what();
  }
  // The independent flows ran.
  EXPECT_EQ(Count("bronze"), 6);
  EXPECT_EQ(Count("silver"), 3);
  EXPECT_EQ(spark_->sql("SELECT n FROM per_k").collect()[0][0].i64(), 3);
  std::map<std::string, std::string> status;
  for (const auto& r : p.lastRun()) status[r.flow] = r.status;
  EXPECT_EQ(status, (std::map<std::string, std::string>{{"broken", "FAILED"},
                                                        {"after_broken", "SKIPPED"},
                                                        {"after_after", "SKIPPED"},
                                                        {"bronze", "COMPLETED"},
                                                        {"evens", "COMPLETED"},
                                                        {"silver", "COMPLETED"},
                                                        {"per_k", "COMPLETED"}}));
  // Tried twice (one retry), dependents skipped in spark-pipelines' words.
  auto count = [&](const std::string& line) {
    return std::count(events.begin(), events.end(), line);
  };
  EXPECT_EQ(count("Flow 'spark_catalog.default.broken' has FAILED."), 2);
  EXPECT_EQ(count("Flow 'spark_catalog.default.after_broken' SKIPPED due to upstream "
                  "failure(s)."),
            1);
  EXPECT_EQ(
      count(
          "Flow 'spark_catalog.default.after_after' SKIPPED due to upstream failure(s)."),
      1);
  EXPECT_EQ(count("Run has FAILED."), 1);

  // A flow that cannot be planned (a batch query into a streaming table) is not retried.
  events.clear();
  Pipeline q(*spark_, o);
  q.addSql(
      "CREATE STREAMING TABLE s AS SELECT * FROM range(3);\n"
      "CREATE MATERIALIZED VIEW fine AS SELECT 1 AS one;");
  EXPECT_THROW_HAS(
      q.run(), SparkException,
      "Streaming table s is written by flow s, whose query is a batch query");
  EXPECT_EQ(count("Flow 'spark_catalog.default.s' has FAILED."), 1);
  EXPECT_EQ(Count("fine"), 1);
}

TEST_F(PipelineTest, DryRunResolvesEveryFlowAndWritesNothing) {
  Land("a.json", 0, 4);
  std::vector<std::string> events;
  PipelineOptions o = Options();
  o.dry_run = true;
  o.on_event = [&](const std::string& e) { events.push_back(e); };
  // Nothing exists yet: later flows read the datasets as the earlier ones define them.
  Pipeline ok(*spark_, o);
  ok.addSql(Sql());
  auto results = ok.run();
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) EXPECT_EQ(r.status, "RESOLVED") << r.flow;
  EXPECT_EQ(events.back(), "Run is COMPLETED.");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/storage"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/warehouse/bronze"));
  EXPECT_THROW_CLASS(spark_->table("silver"), SparkException,
                     "TABLE_OR_VIEW_NOT_FOUND");  // no stand-in is left behind

  // A flow that does not resolve, and one reading it: spark-pipelines dry-run's report.
  events.clear();
  Pipeline bad(*spark_, o);
  bad.addSql(Sql() +
             "CREATE MATERIALIZED VIEW broken AS SELECT nope FROM per_k;\n"
             "CREATE MATERIALIZED VIEW after_broken AS SELECT * FROM broken;");
  try {
    bad.run();
    FAIL() << "the dry run passed";
  } catch (const SparkException& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Failed to resolve flows in the pipeline."), std::string::npos)
        << what;
    EXPECT_NE(what.find("Flows with errors: spark_catalog.default.broken\n"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("Flows that failed due to upstream errors: "
                        "spark_catalog.default.after_broken"),
              std::string::npos)
        << what;
  }
  auto has = [&](const std::string& line) {
    return std::find(events.begin(), events.end(), line) != events.end();
  };
  EXPECT_TRUE(has("Failed to resolve flow: 'spark_catalog.default.broken'."));
  EXPECT_TRUE(
      has("Failed to resolve flow due to upstream failure: "
          "'spark_catalog.default.after_broken'."));
  EXPECT_TRUE(
      has("Error: Failed to read dataset 'spark_catalog.default.broken'. Dataset is "
          "defined in the pipeline but could not be resolved."));
  std::map<std::string, std::string> status;
  for (const auto& r : bad.lastRun()) status[r.flow] = r.status;
  EXPECT_EQ(status["broken"], "FAILED");
  EXPECT_EQ(status["after_broken"], "SKIPPED");
  EXPECT_EQ(status["per_k"], "RESOLVED");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/warehouse/bronze"));
}

}  // namespace
}  // namespace spate::api
