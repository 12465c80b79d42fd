// Copyright spate authors.
#include "spate/exec/hash_join.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include "spate/exec/join_output.h"
#include "spate/exec/test_plans.h"
#include "spate/sql/hints.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT
using sql::JoinType;

// left: (k, lv), right: (k, rv); NULL keys and duplicates on both sides.
BoundPlanPtr Left() {
  return LocalOf({Attr("k", DataType::Long()), Attr("lv", DataType::String())},
                 {{I(1), S("l1")},
                  {I(2), S("l2")},
                  {I(2), S("l2b")},
                  {NullL(), S("lnull")},
                  {I(4), S("l4")}},
                 2);
}
BoundPlanPtr Right() {
  return LocalOf({Attr("k", DataType::Long()), Attr("rv", DataType::String())},
                 {{I(2), S("r2")},
                  {I(2), S("r2b")},
                  {I(3), S("r3")},
                  {NullL(), S("rnull")},
                  {I(1), S("r1")}},
                 3);
}

ExecOptions Broadcasting(ExecOptions o) {
  o.auto_broadcast_threshold = 1 << 20;
  return o;
}

// The join shuffled and, for the types that can build a broadcast side, broadcast (both
// sides are small: the smaller one, the right here, unless only the left can be built):
// both must give the same rows.
std::vector<std::string> JoinRows(JoinType type, BoundExprPtr residual = nullptr,
                                  bool null_safe = false,
                                  const ExecOptions& opts = Options()) {
  auto l = Left(), r = Right();
  auto plan =
      JoinOf(l, r, type, {Col(l, 0)}, {Col(r, 0)}, std::move(residual), {null_safe});
  auto shuffled = ExecSorted(plan, opts);
  auto physical = Must(CreatePhysicalPlan(plan, Broadcasting(opts)));
  const std::string text = ExplainString(*physical);
  const bool broadcast = text.rfind("BroadcastHashJoin", 0) == 0;
  EXPECT_EQ(broadcast, type != JoinType::kFullOuter) << text;
  if (broadcast) {
    const std::string side = type == JoinType::kRightOuter ? "BuildLeft" : "BuildRight";
    EXPECT_NE(text.substr(0, text.find('\n')).find(side), std::string::npos) << text;
  }
  EXPECT_EQ(ExecSorted(plan, Broadcasting(opts)), shuffled) << "broadcast vs shuffled";
  return shuffled;
}

TEST(HashJoinTest, Inner) {
  EXPECT_EQ(JoinRows(JoinType::kInner),
            (std::vector<std::string>{"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b",
                                      "2,l2b,2,r2", "2,l2b,2,r2b"}));
}

TEST(HashJoinTest, NullSafeKeysMatchNulls) {
  EXPECT_EQ(
      JoinRows(JoinType::kInner, nullptr, true),
      (std::vector<std::string>{"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b", "2,l2b,2,r2",
                                "2,l2b,2,r2b", "NULL,lnull,NULL,rnull"}));
}

TEST(HashJoinTest, LeftOuter) {
  EXPECT_EQ(JoinRows(JoinType::kLeftOuter),
            (std::vector<std::string>{"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b",
                                      "2,l2b,2,r2", "2,l2b,2,r2b", "4,l4,NULL,NULL",
                                      "NULL,lnull,NULL,NULL"}));
}

TEST(HashJoinTest, RightOuter) {
  EXPECT_EQ(JoinRows(JoinType::kRightOuter),
            (std::vector<std::string>{"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b",
                                      "2,l2b,2,r2", "2,l2b,2,r2b", "NULL,NULL,3,r3",
                                      "NULL,NULL,NULL,rnull"}));
}

TEST(HashJoinTest, FullOuter) {
  EXPECT_EQ(
      JoinRows(JoinType::kFullOuter),
      (std::vector<std::string>{"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b", "2,l2b,2,r2",
                                "2,l2b,2,r2b", "4,l4,NULL,NULL", "NULL,NULL,3,r3",
                                "NULL,NULL,NULL,rnull", "NULL,lnull,NULL,NULL"}));
}

TEST(HashJoinTest, SemiAndAnti) {
  EXPECT_EQ(JoinRows(JoinType::kLeftSemi),
            (std::vector<std::string>{"1,l1", "2,l2", "2,l2b"}));
  EXPECT_EQ(JoinRows(JoinType::kLeftAnti),
            (std::vector<std::string>{"4,l4", "NULL,lnull"}));
  EXPECT_EQ(JoinRows(JoinType::kLeftSemi, nullptr, true),
            (std::vector<std::string>{"1,l1", "2,l2", "2,l2b", "NULL,lnull"}));
}

TEST(HashJoinTest, ResidualCondition) {
  auto l = Left(), r = Right();
  // lv < rv as strings: "l2" < "r2b" always true; use rv != 'r2b' instead.
  auto cond = Call("!=", {JoinCol(l, r, 3), Lit(S("r2b"))});
  EXPECT_EQ(JoinRows(JoinType::kInner, cond),
            (std::vector<std::string>{"1,l1,1,r1", "2,l2,2,r2", "2,l2b,2,r2"}));
  // A left row whose candidates all fail the residual is still emitted by a left join.
  auto only_r2b = Call("=", {JoinCol(l, r, 3), Lit(S("r2b"))});
  EXPECT_EQ(JoinRows(JoinType::kLeftOuter, only_r2b),
            (std::vector<std::string>{"1,l1,NULL,NULL", "2,l2,2,r2b", "2,l2b,2,r2b",
                                      "4,l4,NULL,NULL", "NULL,lnull,NULL,NULL"}));
  EXPECT_EQ(JoinRows(JoinType::kRightOuter, only_r2b),
            (std::vector<std::string>{"2,l2,2,r2b", "2,l2b,2,r2b", "NULL,NULL,1,r1",
                                      "NULL,NULL,2,r2", "NULL,NULL,3,r3",
                                      "NULL,NULL,NULL,rnull"}));
  EXPECT_EQ(JoinRows(JoinType::kFullOuter, only_r2b).size(), 9u);
  EXPECT_EQ(JoinRows(JoinType::kLeftSemi, only_r2b),
            (std::vector<std::string>{"2,l2", "2,l2b"}));
  EXPECT_EQ(JoinRows(JoinType::kLeftAnti, only_r2b),
            (std::vector<std::string>{"1,l1", "4,l4", "NULL,lnull"}));
  // Residual referencing the left side: lv = 'l2b'.
  auto left_only = Call("=", {JoinCol(l, r, 1), Lit(S("l2b"))});
  EXPECT_EQ(JoinRows(JoinType::kInner, left_only),
            (std::vector<std::string>{"2,l2b,2,r2", "2,l2b,2,r2b"}));
}

TEST(HashJoinTest, EmptySides) {
  auto l = Left(), r = Right();
  auto empty_r = FilterOf(r, Lit(Value::Boolean(false)));
  auto empty_l = FilterOf(l, Lit(Value::Boolean(false)));
  EXPECT_TRUE(
      ExecSorted(JoinOf(l, empty_r, JoinType::kInner, {Col(l, 0)}, {Col(empty_r, 0)}))
          .empty());
  EXPECT_EQ(
      ExecSorted(JoinOf(l, empty_r, JoinType::kLeftOuter, {Col(l, 0)}, {Col(empty_r, 0)}))
          .size(),
      5u);
  EXPECT_EQ(
      ExecSorted(JoinOf(l, empty_r, JoinType::kLeftAnti, {Col(l, 0)}, {Col(empty_r, 0)}))
          .size(),
      5u);
  EXPECT_EQ(
      ExecSorted(
          JoinOf(empty_l, r, JoinType::kRightOuter, {Col(empty_l, 0)}, {Col(r, 0)})),
      (std::vector<std::string>{"NULL,NULL,1,r1", "NULL,NULL,2,r2", "NULL,NULL,2,r2b",
                                "NULL,NULL,3,r3", "NULL,NULL,NULL,rnull"}));
  EXPECT_EQ(
      ExecSorted(JoinOf(empty_l, r, JoinType::kFullOuter, {Col(empty_l, 0)}, {Col(r, 0)}))
          .size(),
      5u);
  EXPECT_TRUE(
      ExecSorted(JoinOf(empty_l, r, JoinType::kLeftSemi, {Col(empty_l, 0)}, {Col(r, 0)}))
          .empty());
}

TEST(HashJoinTest, MultipleAndStringKeys) {
  auto l = LocalOf({Attr("a", DataType::String()), Attr("b", DataType::Long())},
                   {{S("x"), I(1)},
                    {S("x"), I(2)},
                    {S("y"), I(1)},
                    {NullOf(DataType::String()), I(1)}});
  auto r = LocalOf({Attr("a", DataType::String()), Attr("b", DataType::Long()),
                    Attr("c", DataType::Long())},
                   {{S("x"), I(2), I(10)},
                    {S("y"), I(1), I(20)},
                    {S("y"), I(2), I(30)},
                    {NullOf(DataType::String()), I(1), I(40)}});
  auto j = JoinOf(l, r, JoinType::kInner, {Col(l, 0), Col(l, 1)}, {Col(r, 0), Col(r, 1)});
  EXPECT_EQ(ExecSorted(j), (std::vector<std::string>{"x,2,x,2,10", "y,1,y,1,20"}));
  auto ns = JoinOf(l, r, JoinType::kInner, {Col(l, 0), Col(l, 1)}, {Col(r, 0), Col(r, 1)},
                   nullptr, {true, false});
  EXPECT_EQ(ExecSorted(ns),
            (std::vector<std::string>{"NULL,1,NULL,1,40", "x,2,x,2,10", "y,1,y,1,20"}));
}

// range(3000) % 100 joined with range(2000) % 50 (left, right, the join, count/sum of
// it): 50 matching keys, each 30 left rows x 40 right rows.
struct ManyToMany {
  BoundPlanPtr lk, rk, join, agg;
};
ManyToMany MakeManyToMany() {
  auto l = RangeOf(0, 3000, 1, 3);
  auto r = RangeOf(0, 2000, 1, 2);
  ManyToMany m;
  m.lk = ProjectOf(l, {{"k", Call("%", {Col(l, 0), Lit(I(100))})}, {"", Col(l, 0)}});
  m.rk = ProjectOf(r, {{"k", Call("%", {Col(r, 0), Lit(I(50))})}, {"", Col(r, 0)}});
  m.join = JoinOf(m.lk, m.rk, JoinType::kInner, {Col(m.lk, 0)}, {Col(m.rk, 0)});
  m.agg = AggregateOf(m.join, {}, {{"n", "count", {}}, {"s", "sum", {Col(m.join, 3)}}});
  return m;
}

TEST(HashJoinTest, ManyToManyParallelMatchesSerial) {
  auto [lk, rk, j, agg] = MakeManyToMany();
  // 50 matching keys, each 30 left rows x 40 right rows.
  auto parallel = Exec(agg, Options(2, 3, 500));
  EXPECT_EQ(parallel, (std::vector<std::string>{"60000,59970000"}));
  EXPECT_EQ(parallel, Exec(agg, Options(1, 1, 500)));
  auto full = JoinOf(lk, rk, JoinType::kFullOuter, {Col(lk, 0)}, {Col(rk, 0)});
  EXPECT_EQ(ExecSorted(full, Options(2, 3, 777)), ExecSorted(full, Options(1, 1, 8192)));
}

TEST(HashJoinTest, Explain) {
  auto l = Left(), r = Right();
  auto cond = Call("!=", {JoinCol(l, r, 3), Lit(S("x"))});
  auto plan = Must(CreatePhysicalPlan(
      JoinOf(l, r, JoinType::kLeftOuter, {Col(l, 0)}, {Col(r, 0)}, cond), Options()));
  std::string lk = l->output[0].Label(), rk = r->output[0].Label();
  std::string text = ExplainString(*plan);
  EXPECT_EQ(text.substr(0, text.find('\n')), "ShuffledHashJoin [" + lk + "], [" + rk +
                                                 "], LeftOuter, BuildRight, " +
                                                 cond->ToString());
  EXPECT_NE(
      text.find(":- Exchange hashpartitioning(" + lk + ", 3)\n:  +- LocalTableScan"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("+- Exchange hashpartitioning(" + rk + ", 3)\n   +- LocalTableScan"),
      std::string::npos)
      << text;
}

// A small right side is broadcast: the left side keeps its partitions (no exchange) and
// every partition probes the one table built in Prepare.
TEST(HashJoinTest, BroadcastBuildRight) {
  auto [lk, rk, j, agg] = MakeManyToMany();
  EXPECT_EQ(Exec(agg, Broadcasting(Options(2, 3, 500))),
            (std::vector<std::string>{"60000,59970000"}));
  auto plan = Must(CreatePhysicalPlan(j, Broadcasting(Options(2, 3, 500))));
  std::string text = ExplainString(*plan);
  EXPECT_EQ(text.rfind("BroadcastHashJoin [", 0), 0u) << text;
  EXPECT_EQ(text.find("hashpartitioning"), std::string::npos) << text;
  EXPECT_NE(text.find("BroadcastExchange"), std::string::npos) << text;
  // Over the threshold (2000 rows x 8 bytes > 1 KB): shuffled.
  ExecOptions small = Options(2, 3, 500);
  small.auto_broadcast_threshold = 1024;
  EXPECT_EQ(
      ExplainString(*Must(CreatePhysicalPlan(j, small))).rfind("ShuffledHashJoin", 0),
      0u);
}

BoundPlanPtr Hinted(const BoundPlanPtr& p, sql::JoinStrategyHint h) {
  auto copy = std::make_shared<BoundPlan>(*p);
  copy->join_hint = h;
  return copy;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// Join strategy hints (Spark's JoinSelection): a BROADCAST hint builds its side where the
// join type allows it, also with autoBroadcastJoinThreshold = -1; a hint that cannot
// apply is dropped with Spark's warning; SHUFFLE_MERGE / SHUFFLE_HASH keep it shuffled.
TEST(HashJoinTest, BroadcastHints) {
  using sql::JoinStrategyHint;
  std::vector<std::string> warnings;
  sql::SetHintWarningSink([&](const std::string& w) { warnings.push_back(w); });
  ExecOptions off = Options();
  off.auto_broadcast_threshold = -1;
  auto first_line = [&](const BoundPlanPtr& plan, const ExecOptions& o) {
    return FirstLine(ExplainString(*Must(CreatePhysicalPlan(plan, o))));
  };
  for (JoinType type : {JoinType::kInner, JoinType::kLeftOuter, JoinType::kRightOuter,
                        JoinType::kFullOuter, JoinType::kLeftSemi, JoinType::kLeftAnti}) {
    SCOPED_TRACE(std::string(sql::JoinTypeDisplay(type)));
    auto l = Left(), r = Right();
    auto plain = JoinOf(l, r, type, {Col(l, 0)}, {Col(r, 0)});
    const auto expected = ExecSorted(plain, off);
    EXPECT_EQ(first_line(plain, off).rfind("ShuffledHashJoin", 0), 0u);
    const bool can_left = type == JoinType::kInner || type == JoinType::kRightOuter;
    const bool can_right = type != JoinType::kRightOuter && type != JoinType::kFullOuter;
    for (int side = 0; side < 2; ++side) {
      warnings.clear();
      auto hl = side == 0 ? Hinted(l, JoinStrategyHint::kBroadcast) : l;
      auto hr = side == 1 ? Hinted(r, JoinStrategyHint::kBroadcast) : r;
      auto plan = JoinOf(hl, hr, type, {Col(hl, 0)}, {Col(hr, 0)});
      const std::string line = first_line(plan, off);
      const bool can = side == 0 ? can_left : can_right;
      if (can) {
        EXPECT_EQ(line.rfind("BroadcastHashJoin", 0), 0u) << line;
        EXPECT_NE(line.find(side == 0 ? ", BuildLeft" : ", BuildRight"),
                  std::string::npos)
            << line;
        EXPECT_TRUE(warnings.empty());
      } else {
        EXPECT_EQ(line.rfind("ShuffledHashJoin", 0), 0u) << line;
        std::string sql = type == JoinType::kLeftOuter    ? "left outer"
                          : type == JoinType::kRightOuter ? "right outer"
                          : type == JoinType::kFullOuter  ? "full outer"
                          : type == JoinType::kLeftSemi   ? "left semi"
                                                          : "left anti";
        EXPECT_EQ(
            warnings,
            std::vector<std::string>{
                "Hint (strategy=broadcast) is not supported in the query: build " +
                std::string(side == 0 ? "left" : "right") + " for " + sql + " join."});
      }
      EXPECT_EQ(ExecSorted(plan, off), expected) << line;
    }
  }
  auto l = Left(), r = Right();
  // Both sides hinted: the smaller (the right unless the left is known to be smaller).
  auto both = JoinOf(Hinted(l, JoinStrategyHint::kBroadcast),
                     Hinted(r, JoinStrategyHint::kBroadcast), JoinType::kInner,
                     {Col(l, 0)}, {Col(r, 0)});
  EXPECT_NE(first_line(both, off).find("BuildRight"), std::string::npos);
  auto big_r = RangeOf(0, 1000, 1, 2);
  auto both2 = JoinOf(Hinted(l, JoinStrategyHint::kBroadcast),
                      Hinted(big_r, JoinStrategyHint::kBroadcast), JoinType::kInner,
                      {Col(l, 0)}, {Col(big_r, 0)});
  EXPECT_NE(first_line(both2, off).find("BuildLeft"), std::string::npos);
  // A hint reaches the join through single-child nodes, not through another join.
  auto projected = ProjectOf(Hinted(l, JoinStrategyHint::kBroadcast), {{"k", Col(l, 0)}});
  auto through =
      JoinOf(projected, r, JoinType::kRightOuter, {Col(projected, 0)}, {Col(r, 0)});
  EXPECT_NE(first_line(through, off).find("BuildLeft"), std::string::npos);
  auto inner = JoinOf(Hinted(l, JoinStrategyHint::kBroadcast), r, JoinType::kInner,
                      {Col(l, 0)}, {Col(r, 0)});
  auto outer =
      JoinOf(inner, Right(), JoinType::kRightOuter, {Col(inner, 0)}, {Col(Right(), 0)});
  EXPECT_EQ(first_line(outer, off).rfind("ShuffledHashJoin", 0), 0u);
  // Automatic broadcasts: the smaller side the join type can build; a SHUFFLE_MERGE or
  // SHUFFLE_HASH hint keeps the join shuffled.
  auto right_outer = JoinOf(l, r, JoinType::kRightOuter, {Col(l, 0)}, {Col(r, 0)});
  EXPECT_NE(first_line(right_outer, Broadcasting(Options())).find("BuildLeft"),
            std::string::npos);
  for (auto h : {JoinStrategyHint::kShuffleMerge, JoinStrategyHint::kShuffleHash}) {
    auto merge = JoinOf(Hinted(l, h), r, JoinType::kInner, {Col(l, 0)}, {Col(r, 0)});
    EXPECT_EQ(first_line(merge, Broadcasting(Options())).rfind("ShuffledHashJoin", 0),
              0u);
  }
  sql::SetHintWarningSink(nullptr);
}

// A broadcast left side built once, probed by many right partitions and batches: right
// outer rows (matched pairs and NULL-padded right rows) equal the shuffled join's.
TEST(HashJoinTest, BroadcastBuildLeftRightOuter) {
  auto l = RangeOf(0, 300, 3, 2);  // 0, 3, ..., 297
  auto r = RangeOf(0, 5000, 1, 3);
  auto lk = ProjectOf(l, {{"k", Call("%", {Col(l, 0), Lit(I(1000))})}, {"", Col(l, 0)}});
  auto hinted = Hinted(lk, sql::JoinStrategyHint::kBroadcast);
  auto cond = Call(">", {JoinCol(hinted, r, 2), Lit(I(10))});
  auto j = JoinOf(hinted, r, JoinType::kRightOuter, {Col(hinted, 0)}, {Col(r, 0)}, cond);
  auto plain = JoinOf(lk, r, JoinType::kRightOuter, {Col(lk, 0)}, {Col(r, 0)}, cond);
  ExecOptions off = Options(2, 3, 700);
  off.auto_broadcast_threshold = -1;
  EXPECT_NE(FirstLine(ExplainString(*Must(CreatePhysicalPlan(j, off))))
                .find("RightOuter, BuildLeft"),
            std::string::npos);
  auto rows = ExecSorted(j, off);
  EXPECT_EQ(rows.size(), 5000u);
  EXPECT_EQ(rows, ExecSorted(plain, off));
  EXPECT_EQ(rows, ExecSorted(plain, Options(1, 1, 8192)));
}

// 1M x 1M rows on a unique bigint key; prints input rows/s (not a timed assertion).
TEST(HashJoinTest, MillionRowJoinThroughput) {
  const int64_t n = 1'000'000;
  auto l = RangeOf(0, n, 1, 2);
  auto r = RangeOf(0, n, 1, 2);
  auto rv = ProjectOf(r, {{"", Col(r, 0)}, {"v", Call("*", {Col(r, 0), Lit(I(2))})}});
  auto j = JoinOf(l, rv, JoinType::kInner, {Col(l, 0)}, {Col(rv, 0)});
  auto agg = AggregateOf(j, {}, {{"n", "count", {}}, {"s", "sum", {Col(j, 2)}}});
  ExecOptions opts = Options(2, 4);
  auto plan = Must(CreatePhysicalPlan(agg, opts));
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    auto rows = Rows(Must(Execute(*plan, opts)));
    best = std::min(
        best,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_EQ(rows, (std::vector<std::string>{"1000000,999999000000"}));
  }
  std::printf(
      "[ perf ] 1M x 1M hash join (bigint key) + count: %.1f ms, %.1f M input rows/s\n",
      best * 1e3, 2.0 * n / best / 1e6);
}

TEST(NestedLoopJoinTest, CrossJoin) {
  auto l = RangeOf(0, 3, 1, 2);
  auto r = LocalOf({Attr("s", DataType::String())}, {{S("a")}, {S("b")}});
  auto j = JoinOf(l, r, JoinType::kCross, {}, {});
  EXPECT_EQ(ExecSorted(j),
            (std::vector<std::string>{"0,a", "0,b", "1,a", "1,b", "2,a", "2,b"}));
  auto plan = Must(CreatePhysicalPlan(j, Options()));
  EXPECT_EQ(ExplainString(*plan),
            "BroadcastNestedLoopJoin BuildRight, Cross\n"
            ":- Range (0, 3, step=1, splits=2)\n"
            "+- BroadcastExchange IdentityBroadcastMode\n"
            "   +- LocalTableScan [" +
                r->output[0].Label() + "]\n");
}

TEST(NestedLoopJoinTest, NonEquiConditionAllTypes) {
  auto l =
      LocalOf({Attr("a", DataType::Long())}, {{I(1)}, {I(5)}, {NullL()}, {I(10)}}, 2);
  auto r = LocalOf({Attr("b", DataType::Long())}, {{I(3)}, {I(7)}, {I(0)}}, 2);
  auto lt = Call("<", {JoinCol(l, r, 0), JoinCol(l, r, 1)});
  auto run = [&](JoinType t) {
    return ExecSorted(JoinOf(l, r, t, {}, {}, lt), Options(2, 3, 2));
  };
  EXPECT_EQ(run(JoinType::kInner), (std::vector<std::string>{"1,3", "1,7", "5,7"}));
  EXPECT_EQ(run(JoinType::kLeftOuter),
            (std::vector<std::string>{"1,3", "1,7", "10,NULL", "5,7", "NULL,NULL"}));
  EXPECT_EQ(run(JoinType::kRightOuter),
            (std::vector<std::string>{"1,3", "1,7", "5,7", "NULL,0"}));
  EXPECT_EQ(
      run(JoinType::kFullOuter),
      (std::vector<std::string>{"1,3", "1,7", "10,NULL", "5,7", "NULL,0", "NULL,NULL"}));
  EXPECT_EQ(run(JoinType::kLeftSemi), (std::vector<std::string>{"1", "5"}));
  EXPECT_EQ(run(JoinType::kLeftAnti), (std::vector<std::string>{"10", "NULL"}));
  // Without a condition: semi keeps all rows when the right side is not empty.
  EXPECT_EQ(ExecSorted(JoinOf(l, r, JoinType::kLeftSemi, {}, {})).size(), 4u);
  auto empty_r = FilterOf(r, Lit(Value::Boolean(false)));
  EXPECT_EQ(ExecSorted(JoinOf(l, empty_r, JoinType::kLeftAnti, {}, {})).size(), 4u);
  EXPECT_TRUE(ExecSorted(JoinOf(l, empty_r, JoinType::kInner, {}, {})).empty());
  EXPECT_EQ(ExecSorted(JoinOf(l, empty_r, JoinType::kLeftOuter, {}, {})),
            (std::vector<std::string>{"1,NULL", "10,NULL", "5,NULL", "NULL,NULL"}));
}

TEST(NestedLoopJoinTest, OneRowRelationJoin) {
  auto one = Node(BoundKind::kOneRow);
  auto r = RangeOf(0, 2);
  EXPECT_EQ(ExecSorted(JoinOf(one, r, JoinType::kInner, {}, {})),
            (std::vector<std::string>{"0", "1"}));
}

}  // namespace
}  // namespace spate::exec
