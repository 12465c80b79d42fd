// Copyright spate authors.
#include "spate/exec/window.h"

#include <gtest/gtest.h>

#include "spate/exec/test_plans.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT
using sql::BoundFrame;
using sql::WindowCall;
using sql::WindowFunctionKind;

// (g, v, name): groups a (3 rows, a tie), b (4 rows), NULL group (1 row).
BoundPlanPtr Data() {
  return LocalOf({Attr("g", DataType::String()), Attr("v", DataType::Long()),
                  Attr("n", DataType::String())},
                 {{S("a"), I(10), S("a1")},
                  {S("b"), I(5), S("b1")},
                  {S("a"), I(20), S("a2")},
                  {S("b"), I(5), S("b2")},
                  {S("a"), I(10), S("a3")},
                  {S("b"), I(7), S("b3")},
                  {NullOf(DataType::String()), I(1), S("n1")},
                  {S("b"), NullL(), S("b4")}},
                 3);
}

WindowCall Ranking(WindowFunctionKind kind, const BoundPlanPtr& in,
                   DataTypePtr type = DataType::Int()) {
  WindowCall c;
  c.kind = kind;
  c.partition_by = {Col(in, 0)};
  c.order_by = {Key(Col(in, 1))};
  c.type = std::move(type);
  return c;
}

WindowCall Agg(const std::string& fn, std::vector<BoundExprPtr> args,
               const BoundPlanPtr& in, BoundFrame frame, bool ordered = true) {
  WindowCall c;
  c.kind = WindowFunctionKind::kAggregate;
  c.aggregate = Must(MakeAggregate(fn, args, false, false));
  c.args = std::move(args);
  c.partition_by = {Col(in, 0)};
  if (ordered) c.order_by = {Key(Col(in, 1)), Key(Col(in, 2))};
  c.frame = frame;
  c.type = c.aggregate->result_type();
  return c;
}

BoundFrame Rows(int64_t lo, int64_t hi, bool lo_unb = false, bool hi_unb = false) {
  BoundFrame f;
  f.kind = WindowFrame::Kind::kRows;
  f.lower_unbounded = lo_unb;
  f.upper_unbounded = hi_unb;
  f.lower_offset = lo;
  f.upper_offset = hi;
  f.lower_current = false;
  f.upper_current = false;
  return f;
}

// Projects (n, window columns...) and sorts by n for stable comparison.
std::vector<std::string> ByName(const BoundPlanPtr& w,
                                const ExecOptions& opts = Options()) {
  std::vector<std::pair<std::string, BoundExprPtr>> cols = {{"", Col(w, 2)}};
  for (size_t i = 3; i < w->output.size(); ++i)
    cols.push_back({"", Col(w, static_cast<int>(i))});
  auto p = ProjectOf(w, cols);
  return ExecSorted(p, opts);
}

TEST(WindowTest, RankingFunctionsWithTies) {
  auto in = Data();
  auto w = WindowOf(
      in, {{"rn", Ranking(WindowFunctionKind::kRowNumber, in)},
           {"rk", Ranking(WindowFunctionKind::kRank, in)},
           {"dr", Ranking(WindowFunctionKind::kDenseRank, in)},
           {"pr", Ranking(WindowFunctionKind::kPercentRank, in, DataType::Double())},
           {"cd", Ranking(WindowFunctionKind::kCumeDist, in, DataType::Double())}});
  // a: 10(a1), 10(a3), 20(a2) ; b: NULL(b4), 5(b1), 5(b2), 7(b3) ; NULL: 1(n1)
  EXPECT_EQ(ByName(w),
            (std::vector<std::string>{
                "a1,1,1,1,0.0,0.6666666666666666", "a2,3,3,2,1.0,1.0",
                "a3,2,1,1,0.0,0.6666666666666666", "b1,2,2,2,0.3333333333333333,0.75",
                "b2,3,2,2,0.3333333333333333,0.75", "b3,4,4,3,1.0,1.0",
                "b4,1,1,1,0.0,0.25", "n1,1,1,1,0.0,1.0"}));
  EXPECT_EQ(ByName(w, Options(2, 3)), ByName(w, Options(1, 1)));
}

TEST(WindowTest, RowsInSortedOrderAndExplain) {
  auto in = Data();
  auto w = WindowOf(in, {{"rn", Ranking(WindowFunctionKind::kRowNumber, in)}});
  auto rows = Exec(w, Options(1, 1));
  EXPECT_EQ(rows, (std::vector<std::string>{"NULL,1,n1,1", "a,10,a1,1", "a,10,a3,2",
                                            "a,20,a2,3", "b,NULL,b4,1", "b,5,b1,2",
                                            "b,5,b2,3", "b,7,b3,4"}));
  auto plan = Must(CreatePhysicalPlan(w, Options()));
  std::string text = ExplainString(*plan);
  EXPECT_EQ(text.substr(0, 7), "Window ") << text;
  EXPECT_NE(text.find("+- Exchange hashpartitioning(" + in->output[0].Label() + ", 3)"),
            std::string::npos)
      << text;
}

TEST(WindowTest, NtileAndLagLead) {
  auto in = Data();
  auto nt = Ranking(WindowFunctionKind::kNtile, in);
  nt.args = {Lit(Value::Int(3))};
  auto lag = Ranking(WindowFunctionKind::kLag, in, DataType::String());
  lag.args = {Col(in, 2), Lit(Value::Int(1)), Lit(S("none"))};
  auto lead = Ranking(WindowFunctionKind::kLead, in, DataType::String());
  lead.args = {Col(in, 2), Lit(Value::Int(2))};
  auto lag_num = Ranking(WindowFunctionKind::kLag, in, DataType::Long());
  lag_num.args = {Col(in, 1), Lit(Value::Int(1)),
                  Lit(Value::Int(-1))};  // default cast to bigint
  auto w = WindowOf(in, {{"nt", nt}, {"lag", lag}, {"lead", lead}, {"ln", lag_num}});
  EXPECT_EQ(ByName(w), (std::vector<std::string>{
                           "a1,1,none,a2,-1", "a2,3,a3,NULL,10", "a3,2,a1,NULL,10",
                           "b1,1,b4,b3,NULL", "b2,2,b1,NULL,5", "b3,3,b2,NULL,5",
                           "b4,1,none,b2,-1", "n1,1,none,NULL,-1"}));
}

TEST(WindowTest, RunningSumDefaultRangeFrameIncludesPeers) {
  auto in = Data();
  BoundFrame running;  // RANGE UNBOUNDED PRECEDING .. CURRENT ROW
  WindowCall sum = Agg("sum", {Col(in, 1)}, in, running, false);
  sum.order_by = {Key(Col(in, 1))};
  WindowCall cnt = Agg("count", {}, in, running, false);
  cnt.order_by = {Key(Col(in, 1))};
  auto w = WindowOf(in, {{"s", sum}, {"c", cnt}});
  EXPECT_EQ(ByName(w),
            (std::vector<std::string>{"a1,20,2", "a2,40,3", "a3,20,2", "b1,10,3",
                                      "b2,10,3", "b3,17,4", "b4,NULL,1", "n1,1,1"}));
}

TEST(WindowTest, WholePartitionAndRowsFrames) {
  auto in = Data();
  BoundFrame whole;
  whole.upper_unbounded = true;
  whole.upper_current = false;
  auto total = Agg("sum", {Col(in, 1)}, in, whole, false);
  auto running_rows = Agg("sum", {Col(in, 1)}, in, Rows(0, 0, true, false));
  auto sliding = Agg("sum", {Col(in, 1)}, in, Rows(-1, 1));
  auto suffix = Agg("max", {Col(in, 2)}, in, Rows(1, 0, false, true));
  auto first = Agg("first", {Col(in, 2)}, in, Rows(-1, 0));
  auto last = Agg("last", {Col(in, 2)}, in, Rows(0, 0, false, true));
  auto w = WindowOf(in, {{"t", total},
                         {"rr", running_rows},
                         {"sl", sliding},
                         {"sx", suffix},
                         {"f", first},
                         {"l", last}});
  // Order within partitions: a: a1(10), a3(10), a2(20); b: b4(NULL), b1(5), b2(5), b3(7)
  EXPECT_EQ(ByName(w),
            (std::vector<std::string>{"a1,40,10,20,a3,a1,a2", "a2,40,40,30,NULL,a3,a2",
                                      "a3,40,20,40,a2,a1,a2", "b1,17,5,10,b3,b4,b3",
                                      "b2,17,10,17,b3,b1,b3", "b3,17,17,12,NULL,b2,b3",
                                      "b4,17,NULL,5,b3,b4,b3", "n1,1,1,1,NULL,n1,n1"}));
}

TEST(WindowTest, RangeOffsetFrames) {
  auto in = LocalOf({Attr("g", DataType::Long()), Attr("t", DataType::Long()),
                     Attr("n", DataType::String())},
                    {{I(1), I(1), S("p")},
                     {I(1), I(2), S("q")},
                     {I(1), I(2), S("r")},
                     {I(1), I(5), S("s")},
                     {I(1), NullL(), S("u")},
                     {I(1), I(9), S("v")}});
  BoundFrame f;  // RANGE BETWEEN 1 PRECEDING AND 3 FOLLOWING
  f.kind = WindowFrame::Kind::kRange;
  f.lower_unbounded = f.upper_unbounded = false;
  f.lower_current = f.upper_current = false;
  f.lower_offset = -1;
  f.upper_offset = 3;
  WindowCall c = Agg("count", {}, in, f, false);
  c.order_by = {Key(Col(in, 1))};
  WindowCall desc = c;
  desc.order_by = {Key(Col(in, 1), false, false)};
  auto w = WindowOf(in, {{"c", c}});
  auto wd = WindowOf(in, {{"c", desc}});
  // ascending t: 1 -> [0,4]: 1,2,2 = 3 ; 2 -> [1,5]: 1,2,2,5 = 4 ; 5 -> [4,8] = 1 ; 9 ->
  // [8,12] = 1 ; NULL -> peers = 1
  EXPECT_EQ(ByName(w),
            (std::vector<std::string>{"p,3", "q,4", "r,4", "s,1", "u,1", "v,1"}));
  // descending t: 1 PRECEDING = t+1, 3 FOLLOWING = t-3: 1 -> [ -2, 2]: 1,2,2 = 3 ; 2 ->
  // [-1,3] = 3 ; 5 -> [2,6]: 5,2,2 = 3 ; 9 -> [6,10] = 1
  EXPECT_EQ(ByName(wd),
            (std::vector<std::string>{"p,3", "q,3", "r,3", "s,3", "u,1", "v,1"}));
}

TEST(WindowTest, DifferentSpecsKeepCallOrder) {
  auto in = Data();
  auto rn = Ranking(WindowFunctionKind::kRowNumber, in);
  rn.order_by = {Key(Col(in, 1)), Key(Col(in, 2))};
  WindowCall global = rn;
  global.partition_by = {};
  global.order_by = {Key(Col(in, 2), false)};
  auto w = WindowOf(in, {{"g", global}, {"rn", rn}});
  EXPECT_EQ(ByName(w),
            (std::vector<std::string>{"a1,8,1", "a2,7,3", "a3,6,2", "b1,5,2", "b2,4,3",
                                      "b3,3,4", "b4,2,1", "n1,1,1"}));
}

// Running and suffix frames (prefix scans, typed and generic) agree with the same frames
// computed by gathering every frame's rows.
TEST(WindowTest, ScansAgreeWithGatheredFrames) {
  std::vector<std::vector<Value>> rows;
  uint64_t x = 12345;
  for (int i = 0; i < 3000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t g = static_cast<int64_t>((x >> 33) % 7);
    if (g == 6) g = 6 + static_cast<int64_t>((x >> 40) % 400);  // many tiny partitions
    int64_t v = static_cast<int64_t>((x >> 20) % 50) - 20;
    Value val = (x >> 50) % 9 == 0 ? NullL() : I(v);
    rows.push_back(
        {I(g), val, S("r" + std::to_string(i)), D(static_cast<double>(v) / 4)});
  }
  auto in = LocalOf({Attr("g", DataType::Long()), Attr("v", DataType::Long()),
                     Attr("n", DataType::String()), Attr("d", DataType::Double())},
                    rows, 4);
  auto call = [&](const std::string& fn, int arg, BoundFrame f) {
    WindowCall c = Agg(fn, {Col(in, arg)}, in, f);
    c.order_by = {Key(Col(in, 2))};
    return c;
  };
  BoundFrame prefix = Rows(0, 0, true, false), prefix_gathered = Rows(-100000, 0);
  BoundFrame suffix = Rows(0, 0, false, true), suffix_gathered = Rows(0, 100000);
  for (const char* fn : {"sum", "count", "avg", "min", "max", "first", "last"}) {
    for (int arg : {1, 3, 2}) {
      if (arg == 2 && (std::string(fn) == "sum" || std::string(fn) == "avg")) continue;
      auto w = WindowOf(in, {{"p", call(fn, arg, prefix)},
                             {"pg", call(fn, arg, prefix_gathered)},
                             {"s", call(fn, arg, suffix)},
                             {"sg", call(fn, arg, suffix_gathered)}});
      auto out = test_plans::Rows(Must(Collect(w, Options(2, 3))));
      ASSERT_EQ(out.size(), 3000u);
      for (const auto& r : out) {
        // columns: g, v, n, d, p, pg, s, sg
        std::vector<std::string> f;
        size_t start = 0;
        for (size_t pos; (pos = r.find(',', start)) != std::string::npos; start = pos + 1)
          f.push_back(r.substr(start, pos - start));
        f.push_back(r.substr(start));
        ASSERT_EQ(f.size(), 8u) << r;
        ASSERT_EQ(f[4], f[5]) << fn << " prefix " << r;
        ASSERT_EQ(f[6], f[7]) << fn << " suffix " << r;
      }
    }
  }
}

// Wide ROWS frames (block decomposition) agree with the same frames as RANGE frames over
// a key that is consecutive within each partition (computed by gathering frame rows).
TEST(WindowTest, WideRowsFramesAgreeWithGatheredRangeFrames) {
  const int64_t n = 5000;
  auto in = RangeOf(0, n, 1, 3);
  // Partitions of 37..(37+k) consecutive ids: g = id / 437 (varied tail sizes).
  auto proj = ProjectOf(
      in, {{"g", Call("div", {Col(in, 0), Lit(I(437))})},
           {"", Col(in, 0)},
           {"v", Call("%", {Call("*", {Col(in, 0), Lit(I(7919))}), Lit(I(1009))})}});
  for (auto [lo, hi] : std::vector<std::pair<int64_t, int64_t>>{
           {-40, 10}, {-100, -20}, {5, 60}, {-30, 0}}) {
    BoundFrame rows = Rows(lo, hi);
    BoundFrame range = rows;
    range.kind = WindowFrame::Kind::kRange;
    for (const char* fn : {"sum", "min", "first", "last", "count"}) {
      auto make = [&](BoundFrame f) {
        WindowCall c;
        c.kind = WindowFunctionKind::kAggregate;
        c.aggregate = Must(MakeAggregate(fn, {Col(proj, 2)}, false, false));
        c.args = {Col(proj, 2)};
        c.partition_by = {Col(proj, 0)};
        c.order_by = {Key(Col(proj, 1))};
        c.frame = f;
        c.type = c.aggregate->result_type();
        return c;
      };
      auto w = WindowOf(proj, {{"r", make(rows)}, {"q", make(range)}});
      auto batches = Must(Collect(w, Options(2, 3)));
      ASSERT_EQ(NumRows(batches), n);
      for (const auto& b : batches) {
        for (int64_t i = 0; i < b->num_rows(); ++i) {
          ASSERT_EQ(b->column(3)->GetValue(i), b->column(4)->GetValue(i))
              << fn << " [" << lo << "," << hi << "] id "
              << b->column(1)->GetValue(i).i64();
        }
      }
    }
  }
}

TEST(WindowTest, LargeRunningSumIsLinearAndExact) {
  const int64_t n = 300'000;
  auto in = RangeOf(0, n, 1, 2);
  auto proj = ProjectOf(
      in,
      {{"g", Call("%", {Col(in, 0), Lit(I(3))})}, {"", Col(in, 0)}, {"v", Col(in, 0)}});
  BoundFrame running;
  WindowCall sum;
  sum.kind = WindowFunctionKind::kAggregate;
  sum.aggregate = Must(MakeAggregate("sum", {Col(proj, 1)}, false, false));
  sum.args = {Col(proj, 1)};
  sum.partition_by = {Col(proj, 0)};
  sum.order_by = {Key(Col(proj, 1))};
  sum.frame = running;
  sum.type = DataType::Long();
  WindowCall first = sum;
  first.aggregate = Must(MakeAggregate("first", {Col(proj, 1)}, false, false));
  WindowCall last = sum;
  last.aggregate = Must(MakeAggregate("last", {Col(proj, 1)}, false, false));
  auto w = WindowOf(proj, {{"s", sum}, {"f", first}, {"l", last}});
  auto batches = Must(Collect(w, Options()));
  int64_t checked = 0;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      int64_t g = b->column(0)->GetValue(i).i64();
      int64_t id = b->column(1)->GetValue(i).i64();
      int64_t s = b->column(3)->GetValue(i).i64();
      // ids g, g+3, ..., id: k = (id - g) / 3 + 1 terms
      int64_t k = (id - g) / 3 + 1;
      ASSERT_EQ(s, k * g + 3 * (k * (k - 1) / 2)) << id;
      ASSERT_EQ(b->column(4)->GetValue(i).i64(), g);
      ASSERT_EQ(b->column(5)->GetValue(i).i64(), id);
      ++checked;
    }
  }
  EXPECT_EQ(checked, n);
}

}  // namespace
}  // namespace spate::exec
