// Copyright spate authors.
#include "spate/compute/nested.h"

#include <gtest/gtest.h>

#include "spate/columnar/builder.h"
#include "spate/testing/status_matchers.h"

namespace spate {
namespace {

// s STRUCT<a: INT NOT NULL, b: STRING> over rows {1, 'x'}, NULL, {3, NULL}; k INT 7,
// 8, 9.
struct StructInput {
  DataTypePtr type = DataType::Struct(
      {Field{"a", DataType::Int(), false}, Field{"b", DataType::String(), true}});
  BatchPtr batch;
  BoundExprPtr s;
  BoundExprPtr k;

  StructInput() {
    auto schema = std::make_shared<const Schema>(
        std::vector<Field>{Field{"s", type, true}, Field{"k", DataType::Int(), false}});
    auto col = ColumnFromValues(
        type,
        {Value::Struct(type, {Value::Int(1), Value::String("x")}), Value::Null(type),
         Value::Struct(type, {Value::Int(3), Value::Null(DataType::String())})});
    auto ks =
        ColumnFromValues(DataType::Int(), {Value::Int(7), Value::Int(8), Value::Int(9)});
    batch = Batch::Make(schema, {col, ks}, 3);
    s = MakeColumnRef(0, type, true, "s#0");
    k = MakeColumnRef(1, DataType::Int(), false, "k#1");
  }

  std::string Eval(const BoundExprPtr& e) const {
    auto out = e->Evaluate(*batch, EvalContext{});
    if (!out.ok()) return out.status().ToString();
    std::string text;
    for (int64_t i = 0; i < (*out)->length(); ++i)
      text += (*out)->GetValue(i).ToString() + ";";
    return text;
  }
};

TEST(UpdateFieldsTest, ReplacesAppendsAndKeepsNullStructs) {
  StructInput in;
  auto e = MakeUpdateFields(in.s, {{"A", in.k}, {"c", MakeLiteral(Value::String("n"))}},
                            false, "update_fields(s, WithField(k), WithField(n))");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const BoundExprPtr& u = *e;
  EXPECT_EQ(u->type()->Sql(), "STRUCT<A: INT NOT NULL, b: STRING, c: STRING NOT NULL>");
  EXPECT_TRUE(u->nullable());
  EXPECT_EQ(in.Eval(u), "{7, x, n};NULL;{9, NULL, n};");
}

TEST(UpdateFieldsTest, ReusesTheStructsChildColumns) {
  StructInput in;
  auto u = MakeUpdateFields(in.s, {{"a", in.k}}, false, "u");
  ASSERT_TRUE(u.ok());
  auto out = (*u)->Evaluate(*in.batch, EvalContext{});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->child(1).get(), in.batch->column(0)->child(1).get());
  EXPECT_EQ((*out)->child(0).get(), in.batch->column(1).get());
  EXPECT_EQ((*out)->null_count(), 1);
}

TEST(UpdateFieldsTest, DropsEveryFieldOfTheNameAndIgnoresMissingOnes) {
  StructInput in;
  auto u = MakeUpdateFields(in.s, {{"A", nullptr}, {"zz", nullptr}}, false, "u");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->type()->Sql(), "STRUCT<b: STRING>");
  EXPECT_EQ(in.Eval(*u), "{x};NULL;{NULL};");
  // Case-sensitive: "A" is not "a".
  auto cs = MakeUpdateFields(in.s, {{"A", nullptr}}, true, "u");
  ASSERT_TRUE(cs.ok());
  EXPECT_EQ((*cs)->type()->fields().size(), 2u);
}

TEST(UpdateFieldsTest, SetsAllFieldsOfADuplicatedName) {
  auto t = DataType::Struct({Field{"a", DataType::Int(), false},
                             Field{"a", DataType::Int(), false},
                             Field{"b", DataType::Int(), false}});
  auto v = MakeLiteral(Value::Struct(t, {Value::Int(1), Value::Int(2), Value::Int(3)}));
  auto u = MakeUpdateFields(v, {{"a", MakeLiteral(Value::Int(9))}}, false, "u");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->type()->Sql(),
            "STRUCT<a: INT NOT NULL, a: INT NOT NULL, b: INT NOT NULL>");
  EXPECT_FALSE((*u)->nullable());
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  auto out = (*u)->Evaluate(*one, EvalContext{});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->GetValue(0).ToString(), "{9, 9, 3}");
}

TEST(UpdateFieldsTest, ASetValueDroppedLaterIsNotEvaluated) {
  StructInput in;
  auto u = MakeUpdateFields(in.s, {{"z", in.k}, {"z", nullptr}}, false, "u");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->children().size(), 1u);
  EXPECT_EQ(in.Eval(*u), "{1, x};NULL;{3, NULL};");
}

TEST(UpdateFieldsTest, ErrorsAsSpark) {
  StructInput in;
  EXPECT_ERROR_CLASS(MakeUpdateFields(in.k, {{"a", in.k}}, false, "update_fields(k)"),
                     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
  EXPECT_ERROR_CLASS(
      MakeUpdateFields(in.s, {{"a", nullptr}, {"B", nullptr}}, false, "update_fields(s)"),
      "DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS");
}

}  // namespace
}  // namespace spate
