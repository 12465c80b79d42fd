// Copyright spate authors.
// Join strategy hints through SQL (/*+ BROADCAST(t) */ ...), DataFrame.hint and
// functions::broadcast: the join each hint selects (EXPLAIN's physical plan), Spark's
// warnings and errors, and rows equal to the unhinted join's (Spark 4.2's choices,
// checked on Spark; the rows also in tests/differential/cases/join_hints.py).
#include <gtest/gtest.h>

#include <algorithm>

#include "spate/spate.h"
#include "spate/sql/hints.h"
#include "spate/testing/status_matchers.h"

namespace spate::api {
namespace {

namespace F = functions;

DataFrame Left(const SparkSession& spark) {
  return spark.createDataFrame({{Value::Int(1), Value::String("a")},
                                {Value::Int(2), Value::String("b")},
                                {Value::Int(2), Value::String("b2")},
                                {Value::Null(DataType::Int()), Value::String("n")},
                                {Value::Int(4), Value::String("d")}},
                               "k INT, lv STRING");
}

DataFrame Right(const SparkSession& spark) {
  return spark.createDataFrame({{Value::Int(2), Value::String("x")},
                                {Value::Int(3), Value::String("y")},
                                {Value::Null(DataType::Int()), Value::String("m")},
                                {Value::Int(4), Value::String("z")}},
                               "k INT, rv STRING");
}

class JoinHintsTest : public ::testing::Test {
 protected:
  JoinHintsTest()
      : spark_(SparkSession::builder().getOrCreate().newSession()),
        l_(Left(spark_)),
        r_(Right(spark_)) {}

  void SetUp() override {
    spark_.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    l_.createOrReplaceTempView("l");
    r_.createOrReplaceTempView("r");
    sql::SetHintWarningSink([this](const std::string& w) { warnings_.push_back(w); });
  }
  void TearDown() override { sql::SetHintWarningSink(nullptr); }

  // The physical plan's join line ("BroadcastHashJoin [k#1], [k#5], RightOuter,
  // BuildLeft"), without expression ids' digits.
  static std::string JoinLine(const DataFrame& df) {
    std::string plan = df.explainString();
    size_t at = std::string::npos;
    for (const char* name :
         {"BroadcastHashJoin", "ShuffledHashJoin", "BroadcastNestedLoopJoin"}) {
      at = std::min(at, plan.find(name));
    }
    if (at == std::string::npos) return plan;
    std::string line = plan.substr(at, plan.find('\n', at) - at);
    line.erase(std::remove_if(line.begin(), line.end(), ::isdigit), line.end());
    return line;
  }
  static std::vector<std::string> SortedRows(const DataFrame& df) {
    std::vector<std::string> out;
    for (const auto& r : df.collect()) out.push_back(r.toString());
    std::sort(out.begin(), out.end());
    return out;
  }

  SparkSession spark_;
  DataFrame l_, r_;
  std::vector<std::string> warnings_;
};

// Spark 4.2's choices with autoBroadcastJoinThreshold=-1, for every join type and side.
TEST_F(JoinHintsTest, SqlBroadcastHintBuildsTheHintedSideWhereTheJoinTypeAllows) {
  struct Expect {
    const char* join;
    const char* type;
    bool left, right;  // can build a broadcast left / right side
  };
  for (const Expect& e : {Expect{"JOIN", "Inner", true, true},
                          Expect{"LEFT JOIN", "LeftOuter", false, true},
                          Expect{"RIGHT JOIN", "RightOuter", true, false},
                          Expect{"FULL JOIN", "FullOuter", false, false},
                          Expect{"LEFT SEMI JOIN", "LeftSemi", false, true},
                          Expect{"LEFT ANTI JOIN", "LeftAnti", false, true}}) {
    SCOPED_TRACE(e.join);
    const std::string from = std::string(" * FROM l ") + e.join + " r ON l.k = r.k";
    DataFrame plain = spark_.sql("SELECT" + from);
    EXPECT_EQ(JoinLine(plain),
              std::string("ShuffledHashJoin [k#], [k#], ") + e.type + ", BuildRight");
    const auto rows = SortedRows(plain);
    for (const char* hint : {"BROADCAST(l)", "MAPJOIN(r)", "BROADCASTJOIN(l, r)"}) {
      SCOPED_TRACE(hint);
      warnings_.clear();
      DataFrame df = spark_.sql(std::string("SELECT /*+ ") + hint + " */" + from);
      const std::string h = hint;
      const bool on_left = h.find("(l") != std::string::npos;
      const bool on_right = h.find("r)") != std::string::npos;
      std::string side;
      // Both hinted: the smaller side, the right one at equal estimates.
      if (on_right && e.right) {
        side = "BuildRight";
      } else if (on_left && e.left) {
        side = "BuildLeft";
      }
      if (side.empty()) {
        EXPECT_EQ(JoinLine(df),
                  std::string("ShuffledHashJoin [k#], [k#], ") + e.type + ", BuildRight");
        ASSERT_FALSE(warnings_.empty());
        EXPECT_NE(warnings_[0].find("Hint (strategy=broadcast) is not supported in the "
                                    "query: build "),
                  std::string::npos);
      } else {
        EXPECT_EQ(JoinLine(df),
                  std::string("BroadcastHashJoin [k#], [k#], ") + e.type + ", " + side);
        EXPECT_TRUE(warnings_.empty()) << warnings_[0];
      }
      EXPECT_EQ(SortedRows(df), rows);
    }
  }
  warnings_.clear();
  spark_.sql("SELECT /*+ BROADCAST(l) */ * FROM l LEFT JOIN r ON l.k = r.k")
      .explainString();
  EXPECT_EQ(warnings_,
            std::vector<std::string>{
                "Hint (strategy=broadcast) is not supported in the query: build "
                "left for left outer join."});
}

TEST_F(JoinHintsTest, DataFrameHintsAndBroadcastFunction) {
  DataFrame right_outer = F::broadcast(l_).join(r_, "k", "right_outer");
  EXPECT_EQ(JoinLine(right_outer), "BroadcastHashJoin [k#], [k#], RightOuter, BuildLeft");
  EXPECT_EQ(SortedRows(right_outer), SortedRows(l_.join(r_, "k", "right_outer")));
  EXPECT_EQ(JoinLine(l_.hint("MapJoin").join(r_, "k")),
            "BroadcastHashJoin [k#], [k#], Inner, BuildLeft");
  EXPECT_EQ(JoinLine(l_.join(r_.hint("broadcastjoin"), "k", "left_semi")),
            "BroadcastHashJoin [k#], [k#], LeftSemi, BuildRight");
  // Through a filter and an aggregation (single-child nodes), and under an alias.
  DataFrame counted = l_.hint("broadcast").filter("k > 1").groupBy("k").count();
  EXPECT_EQ(JoinLine(counted.join(r_, "k", "right")),
            "BroadcastHashJoin [k#], [k#], RightOuter, BuildLeft");
  EXPECT_EQ(JoinLine(F::broadcast(l_).alias("a").join(
                r_.alias("b"), F::col("a.k") == F::col("b.k"), "right")),
            "BroadcastHashJoin [k#], [k#], RightOuter, BuildLeft");
  // The hint of a join's input does not reach a second join above it.
  DataFrame twice = F::broadcast(l_).join(r_, "k").join(r_.alias("r2"), "k", "right");
  EXPECT_EQ(JoinLine(twice).rfind("ShuffledHashJoin", 0), 0u) << JoinLine(twice);
  // Relation parameters name a table or view inside the DataFrame.
  warnings_.clear();
  DataFrame named = spark_.table("l")
                        .join(spark_.table("r"), "k", "right")
                        .hint("broadcast", {F::lit("l")});
  EXPECT_EQ(JoinLine(named), "BroadcastHashJoin [k#], [k#], RightOuter, BuildLeft");
  EXPECT_TRUE(warnings_.empty());
  // Merge / shuffle-hash hints keep a join shuffled even under the threshold.
  spark_.conf().unset("spark.sql.autoBroadcastJoinThreshold");
  EXPECT_EQ(JoinLine(l_.join(r_, "k")).rfind("BroadcastHashJoin", 0), 0u);
  EXPECT_EQ(JoinLine(l_.hint("merge").join(r_, "k")).rfind("ShuffledHashJoin", 0), 0u);
  EXPECT_EQ(JoinLine(l_.join(r_.hint("SHUFFLE_HASH"), "k")).rfind("ShuffledHashJoin", 0),
            0u);
}

// autoBroadcastJoinThreshold: a small side the join type can build is broadcast, a small
// left side of a right outer join too (BuildLeft); -1 disables it but not hints.
TEST_F(JoinHintsTest, AutomaticBroadcastAndThreshold) {
  spark_.conf().unset("spark.sql.autoBroadcastJoinThreshold");
  EXPECT_EQ(JoinLine(spark_.sql("SELECT * FROM l RIGHT JOIN r ON l.k = r.k")),
            "BroadcastHashJoin [k#], [k#], RightOuter, BuildLeft");
  EXPECT_EQ(JoinLine(spark_.sql("SELECT * FROM l LEFT JOIN r ON l.k = r.k")),
            "BroadcastHashJoin [k#], [k#], LeftOuter, BuildRight");
  EXPECT_EQ(JoinLine(spark_.sql("SELECT * FROM l FULL JOIN r ON l.k = r.k")),
            "ShuffledHashJoin [k#], [k#], FullOuter, BuildRight");
  spark_.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
  EXPECT_EQ(JoinLine(spark_.sql("SELECT * FROM l RIGHT JOIN r ON l.k = r.k")),
            "ShuffledHashJoin [k#], [k#], RightOuter, BuildRight");
  EXPECT_EQ(JoinLine(spark_.sql(
                "SELECT /*+ BROADCAST(l) */ * FROM l RIGHT JOIN r ON l.k = r.k")),
            "BroadcastHashJoin [k#], [k#], RightOuter, BuildLeft");
}

TEST_F(JoinHintsTest, SparksWarningsAndErrors) {
  spark_.sql("SELECT /*+ FOO(l) */ * FROM l JOIN r ON l.k = r.k").explainString();
  spark_.sql("SELECT /*+ BROADCAST(nope) */ * FROM l JOIN r ON l.k = r.k")
      .explainString();
  // An alias hides the relation's own name; a qualified name does not match `l`.
  spark_.sql("SELECT /*+ BROADCAST(l) */ * FROM l a JOIN r ON a.k = r.k").explainString();
  spark_.sql("SELECT /*+ BROADCAST(default.l) */ * FROM l JOIN r ON l.k = r.k")
      .explainString();
  spark_.sql("SELECT /*+ SHUFFLE_HASH(l), BROADCAST(l) */ * FROM l JOIN r ON l.k = r.k")
      .explainString();
  l_.hint("foo").explainString();
  // spate analyzes a DataFrame again for each use (Spark once): a warning may repeat.
  warnings_.erase(std::unique(warnings_.begin(), warnings_.end()), warnings_.end());
  EXPECT_EQ(
      warnings_,
      (std::vector<std::string>{
          "Unrecognized hint: FOO(l)",
          "Count not find relation 'nope' specified in hint 'BROADCAST(nope)'.",
          "Count not find relation 'l' specified in hint 'BROADCAST(l)'.",
          // One message split over two lines.
          // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
          "Count not find relation 'default.l' specified in hint "
          "'BROADCAST(default.l)'.",
          "Hint (strategy=broadcast) is overridden by another hint and will not take "
          "effect.",
          "Unrecognized hint: foo()"}));
  EXPECT_EQ(
      JoinLine(spark_.sql(
          "SELECT /*+ SHUFFLE_HASH(l), BROADCAST(l) */ * FROM l JOIN r ON l.k = r.k")),
      "ShuffledHashJoin [k#], [k#], Inner, BuildRight");
  EXPECT_EQ(
      JoinLine(spark_.sql("SELECT /*+ BROADCAST(a) */ * FROM l a JOIN r ON a.k = r.k")),
      "BroadcastHashJoin [k#], [k#], Inner, BuildLeft");
  EXPECT_THROW_CLASS(
      spark_.sql("SELECT /*+ BROADCAST(1) */ * FROM l JOIN r ON l.k = r.k").collect(),
      AnalysisException, "_LEGACY_ERROR_TEMP_1046");
  EXPECT_THROW_CLASS(l_.hint("broadcast", {F::lit(1.5)}).collect(), AnalysisException,
                     "_LEGACY_ERROR_TEMP_1046");
  EXPECT_THROW_CLASS(
      spark_.sql("SELECT * FROM l JOIN r /*+ BROADCAST(l) */ ON l.k = r.k"),
      ParseException, "PARSE_SYNTAX_ERROR");
  // A hint comment does not swallow a product's '*' '/' elsewhere.
  EXPECT_EQ(spark_.sql("SELECT 6*/* a comment */2 AS x").collect()[0].toString(),
            "Row(x=12)");
}

TEST_F(JoinHintsTest, ExplainExtendedShowsTheHints) {
  const std::string text =
      spark_.sql("SELECT /*+ BROADCAST(l) */ * FROM l RIGHT JOIN r ON l.k = r.k")
          .explainString("extended");
  EXPECT_NE(text.find("'UnresolvedHint BROADCAST, [l]"), std::string::npos) << text;
  EXPECT_NE(text.find("leftHint=(strategy=broadcast)"), std::string::npos) << text;
}

}  // namespace
}  // namespace spate::api
