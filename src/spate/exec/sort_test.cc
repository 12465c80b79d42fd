// Copyright spate authors.
#include "spate/exec/sort.h"

#include <gtest/gtest.h>

#include <cmath>

#include "spate/base/text_parse.h"
#include "spate/exec/test_plans.h"

namespace spate::exec {
namespace {

using namespace test_plans;  // NOLINT

BoundPlanPtr People() {
  return LocalOf({Attr("name", DataType::String()), Attr("age", DataType::Long()),
                  Attr("score", DataType::Double())},
                 {{S("ann"), I(30), D(1.5)},
                  {S("bob"), NullL(), D(2.0)},
                  {S("cat"), I(25), NullOf(DataType::Double())},
                  {S("dan"), I(30), D(-1.0)},
                  {S("eve"), I(25), D(std::nan(""))},
                  {S("fay"), NullL(), D(0.0)},
                  {S("gus"), I(40), D(3.0)}},
                 3);
}

std::vector<std::string> Names(const std::vector<std::string>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.substr(0, r.find(',')));
  return out;
}

TEST(SortTest, AscendingNullsFirstIsStable) {
  auto in = People();
  auto s = SortOf(in, {Key(Col(in, 1), true, true)});
  EXPECT_EQ(Names(Exec(s)),
            (std::vector<std::string>{"bob", "fay", "cat", "eve", "ann", "dan", "gus"}));
}

TEST(SortTest, DescendingNullsLast) {
  auto in = People();
  auto s = SortOf(in, {Key(Col(in, 1), false, false)});
  EXPECT_EQ(Names(Exec(s)),
            (std::vector<std::string>{"gus", "ann", "dan", "cat", "eve", "bob", "fay"}));
  auto s2 = SortOf(in, {Key(Col(in, 1), false, true)});
  EXPECT_EQ(Names(Exec(s2)),
            (std::vector<std::string>{"bob", "fay", "gus", "ann", "dan", "cat", "eve"}));
}

TEST(SortTest, MultipleKeysAndNaNLargest) {
  auto in = People();
  auto s = SortOf(in, {Key(Col(in, 1), true, false), Key(Col(in, 2), false, true)});
  EXPECT_EQ(Names(Exec(s)),
            (std::vector<std::string>{"cat", "eve", "ann", "dan", "gus", "bob", "fay"}));
  auto by_score = SortOf(in, {Key(Col(in, 2), true, false)});
  EXPECT_EQ(Names(Exec(by_score)),
            (std::vector<std::string>{"dan", "fay", "ann", "bob", "gus", "eve", "cat"}));
}

TEST(SortTest, StringKeysAndLargeMergeAcrossPartitions) {
  auto in = RangeOf(0, 50'000, 1, 4);
  auto key = Call("%", {Call("*", {Col(in, 0), Lit(I(7919))}), Lit(I(50'000))});
  auto proj = ProjectOf(in, {{"k", key}, {"", Col(in, 0)}});
  auto s = SortOf(proj, {Key(Col(proj, 0), false)});
  auto rows = Exec(s, Options(2, 3, 1000));
  ASSERT_EQ(rows.size(), 50'000u);
  auto key_of = [](const std::string& row) {
    return ParseInt64(row.substr(0, row.find(','))).value();
  };
  for (size_t i = 1; i < rows.size(); ++i)
    ASSERT_GE(key_of(rows[i - 1]), key_of(rows[i]));
  auto str = LocalOf({Attr("s", DataType::String())},
                     {{S("b")}, {S("ab")}, {S("")}, {S("a")}, {S("\xc3\xa9")}}, 2);
  EXPECT_EQ(Exec(SortOf(str, {Key(Col(str, 0))})),
            (std::vector<std::string>{"", "a", "ab", "b", "\xc3\xa9"}));
}

TEST(SortTest, TopNAndOffset) {
  auto in = RangeOf(0, 1000, 1, 3);
  auto s = SortOf(in, {Key(Col(in, 0), false)});
  EXPECT_EQ(Exec(LimitOf(s, 3)), (std::vector<std::string>{"999", "998", "997"}));
  EXPECT_EQ(Exec(LimitOf(s, 3, 2)), (std::vector<std::string>{"997", "996", "995"}));
  EXPECT_TRUE(Exec(LimitOf(s, 0)).empty());
  EXPECT_EQ(Exec(LimitOf(s, 5, 998)), (std::vector<std::string>{"1", "0"}));
  auto plan = Must(CreatePhysicalPlan(LimitOf(s, 3, 2), Options()));
  EXPECT_EQ(ExplainString(*plan),
            "TakeOrderedAndProject(limit=3, offset=2, orderBy=[id#0L DESC NULLS FIRST], "
            "output=[id#0L])\n"
            "+- Range (0, 1000, step=1, splits=3)\n");
  // Top-N keeps stability among ties.
  auto people = People();
  auto top = LimitOf(SortOf(people, {Key(Col(people, 1), true, false)}), 3);
  EXPECT_EQ(Names(Exec(top)), (std::vector<std::string>{"cat", "eve", "ann"}));
}

TEST(SortTest, TopNUnderProjectOfHiddenSortColumn) {
  auto in = RangeOf(0, 100, 1, 3);
  auto proj =
      ProjectOf(in, {{"neg", Call("-", {Lit(I(0)), Col(in, 0)})}, {"", Col(in, 0)}});
  auto sorted = SortOf(proj, {Key(Col(proj, 1), false)});
  auto visible = ProjectOf(sorted, {{"", Col(sorted, 0)}});
  auto top = LimitOf(visible, 3, 1);
  EXPECT_EQ(Exec(top), (std::vector<std::string>{"-98", "-97", "-96"}));
  auto plan = Must(CreatePhysicalPlan(top, Options()));
  std::string text = ExplainString(*plan);
  EXPECT_EQ(text.rfind("Project [", 0), 0u) << text;
  EXPECT_NE(text.find("+- TakeOrderedAndProject(limit=3, offset=1"), std::string::npos)
      << text;
}

TEST(SortTest, OffsetWithoutLimitAfterSort) {
  auto in = RangeOf(0, 10, 1, 2);
  auto s = SortOf(in, {Key(Col(in, 0), false)});
  EXPECT_EQ(Exec(LimitOf(s, -1, 7)), (std::vector<std::string>{"2", "1", "0"}));
  auto plan = Must(CreatePhysicalPlan(s, Options()));
  EXPECT_EQ(
      ExplainString(*plan),
      "Sort [id#0L DESC NULLS FIRST], true, 0\n+- Range (0, 10, step=1, splits=2)\n");
}

TEST(LimitTest, LocalThenGlobalLimit) {
  auto in = RangeOf(0, 100, 1, 4);
  auto rows = Exec(LimitOf(in, 10));
  EXPECT_EQ(rows.size(), 10u);
  EXPECT_EQ(Exec(LimitOf(in, 3, 1)), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(Exec(LimitOf(in, 1000)).size(), 100u);
  EXPECT_EQ(Exec(LimitOf(in, -1, 98)), (std::vector<std::string>{"98", "99"}));
  auto plan = Must(CreatePhysicalPlan(LimitOf(in, 3, 1), Options()));
  EXPECT_EQ(ExplainString(*plan),
            "GlobalLimit 3, 1\n"
            "+- Exchange SinglePartition\n"
            "   +- LocalLimit 4\n"
            "      +- Range (0, 100, step=1, splits=4)\n");
}

TEST(UnionTest, ConcatenatesPartitionsAndRelabels) {
  auto a = RangeOf(0, 3, 1, 2);
  auto b = LocalOf({Attr("other", DataType::Long(), false)}, {{I(10)}, {I(11)}});
  auto u = UnionOf({a, b, a});
  auto batches = Must(Collect(u, Options()));
  EXPECT_EQ(Rows(batches),
            (std::vector<std::string>{"0", "1", "2", "10", "11", "0", "1", "2"}));
  for (const auto& batch : batches) EXPECT_EQ(batch->schema()->field(0).name, "id");
  auto plan = Must(CreatePhysicalPlan(u, Options()));
  EXPECT_EQ(ExplainString(*plan),
            "Union\n"
            ":- Range (0, 3, step=1, splits=2)\n"
            ":- LocalTableScan [" +
                b->output[0].Label() +
                "]\n"
                "+- Range (0, 3, step=1, splits=2)\n");
}

}  // namespace
}  // namespace spate::exec
