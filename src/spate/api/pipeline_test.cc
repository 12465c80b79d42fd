// Copyright spate authors.
// Declarative pipelines (api/pipeline.h): the graph's order, refusals, a run once and again
// with new files, a flow defined in code. The CLI and the course pipeline:
// python/tests/test_pipelines.py; against spark-pipelines: tests/differential.

#include "spate/api/pipeline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"

namespace spate::api {
namespace {

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("spate_pipeline_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ + "/in");
    spark_ = std::make_unique<SparkSession>(SparkSession::builder().getOrCreate().newSession());
    spark_->conf().set("spark.sql.warehouse.dir", dir_ + "/warehouse");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
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
    return "CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS n FROM silver GROUP BY k;\n"
           "CREATE STREAMING TABLE silver AS SELECT * FROM STREAM(evens);\n"
           "CREATE TEMPORARY VIEW evens AS SELECT * FROM STREAM(bronze) WHERE k = 'even';\n"
           "CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM read_files('" + dir_ +
           "/in', format => 'json', schema => 'id BIGINT, k STRING');\n";
  }
  int64_t Count(const std::string& table) { return spark_->table(table).count(); }
  std::string dir_;
  std::unique_ptr<SparkSession> spark_;
};

TEST_F(PipelineTest, FlowsRunAfterTheDatasetsTheyRead) {
  Pipeline p(*spark_, Options());
  p.addSql(Sql(), "p.sql");
  EXPECT_EQ(p.flowOrder(), (std::vector<std::string>{"bronze", "evens", "silver", "per_k"}));
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
  EXPECT_EQ(p.checkpointOf(bronze), dir_ + "/storage/_checkpoints/spark_catalog/default/bronze/bronze/0");
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
  f.query = [spark, in] { return spark.readStream().schema("id BIGINT, k STRING").json(in); };
  p.defineFlow(f);
  EXPECT_THROW(p.defineDataset(d), SparkException);  // defined twice
  EXPECT_EQ(p.run()[0].rows, 6);
  EXPECT_EQ(Count("raw"), 6);

  Pipeline cycle(*spark_, Options());
  cycle.addSql("CREATE STREAMING TABLE a AS SELECT * FROM STREAM(b);\n"
               "CREATE STREAMING TABLE b AS SELECT * FROM STREAM(a);");
  try {
    cycle.flowOrder();
    FAIL() << "a cycle was accepted";
  } catch (const SparkException& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  Pipeline orphan(*spark_, Options());
  orphan.addSql("CREATE FLOW f AS INSERT INTO nowhere BY NAME SELECT * FROM STREAM(raw);");
  EXPECT_THROW(orphan.run(), SparkException);
  Pipeline batch(*spark_, Options());
  batch.addSql("CREATE STREAMING TABLE s AS SELECT * FROM range(3);");
  EXPECT_THROW(batch.run(), SparkException);
  EXPECT_THROW(Pipeline(*spark_, Options()).addSql("SELECT 1"), SparkException);
}

}  // namespace
}  // namespace spate::api
