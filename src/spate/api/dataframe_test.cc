// Copyright spate authors.
#include <gtest/gtest.h>

#include "spate/api/streaming.h"
#include "spate/spate.h"
#include "spate/testing/status_matchers.h"

namespace spate::api {
namespace {

namespace F = functions;

SparkSession NewSession() { return SparkSession::builder().getOrCreate().newSession(); }

std::string Render(const std::vector<Row>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.toString() + "\n";
  return out;
}

TEST(DataFrameTest, RangeGroupByAggregates) {
  auto spark = NewSession();
  auto df = spark.range(100)
                .withColumn("k", F::col("id") % 3)
                .groupBy("k")
                .agg(F::count("*").alias("n"), F::sum("id").alias("total"), F::avg("id"))
                .orderBy("k");
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"k", "n", "total", "avg(id)"}));
  EXPECT_EQ(Render(df.collect()),
            "Row(k=0, n=34, total=1683, avg(id)=49.5)\n"
            "Row(k=1, n=33, total=1617, avg(id)=49.0)\n"
            "Row(k=2, n=33, total=1650, avg(id)=50.0)\n");
}

TEST(DataFrameTest, ColQualifiedStarExpandsStructFields) {
  auto spark = NewSession();
  auto df = spark.sql("SELECT named_struct('a', 1, 'b', 'x') AS j");
  auto out = df.select(F::col("j.*"));
  EXPECT_EQ(out.columns(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Render(out.collect()), "Row(a=1, b='x')\n");
}

TEST(DataFrameTest, ShowMatchesSpark) {
  auto spark = NewSession();
  auto df = spark.createDataFrame(
      {{Value::Int(1), Value::String("a"), Value::Null(DataType::String())},
       {Value::Int(2), Value::String("abcdefghijklmnopqrstuvwxyz"), Value::String("x")},
       {Value::Int(3), Value::String("c"), Value::String("y")}},
      "id INT, name STRING, tag STRING");
  EXPECT_EQ(df.showString(2),
            "+---+--------------------+----+\n"
            "| id|                name| tag|\n"
            "+---+--------------------+----+\n"
            "|  1|                   a|NULL|\n"
            "|  2|abcdefghijklmnopq...|   x|\n"
            "+---+--------------------+----+\n"
            "only showing top 2 rows\n");
}

TEST(DataFrameTest, PrintSchemaTree) {
  auto spark = NewSession();
  auto df = spark.createDataFrame(
      {},
      "event_id LONG, user_id INT, amount DECIMAL(10,2), tags ARRAY<STRING>, "
      "w STRUCT<start: TIMESTAMP, end: TIMESTAMP>");
  EXPECT_EQ(df.schema().treeString(),
            "root\n"
            " |-- event_id: long (nullable = true)\n"
            " |-- user_id: integer (nullable = true)\n"
            " |-- amount: decimal(10,2) (nullable = true)\n"
            " |-- tags: array (nullable = true)\n"
            " |    |-- element: string (containsNull = true)\n"
            " |-- w: struct (nullable = true)\n"
            " |    |-- start: timestamp (nullable = true)\n"
            " |    |-- end: timestamp (nullable = true)\n");
  StructType built;
  built.add("event_id", "long").add("user_id", DataType::Int());
  EXPECT_EQ(built.simpleString(), "struct<event_id:bigint,user_id:int>");
}

TEST(DataFrameTest, UnresolvedColumnRaisesAnalysisException) {
  auto spark = NewSession();
  auto df = spark.range(3);
  try {
    df.select(F::col("idd"));
    FAIL() << "expected AnalysisException";
  } catch (const AnalysisException& e) {
    EXPECT_EQ(e.getErrorClass(), "UNRESOLVED_COLUMN.WITH_SUGGESTION");
    EXPECT_EQ(e.getSqlState(), "42703");
    EXPECT_NE(std::string(e.what()).find("`idd`"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[`id`]"), std::string::npos);
  }
}

TEST(DataFrameTest, DivideByZeroIsArithmeticException) {
  auto spark = NewSession();
  EXPECT_THROW_CLASS(spark.sql("SELECT 1 / 0").collect(), ArithmeticException,
                     "DIVIDE_BY_ZERO");
  spark.conf().set("spark.sql.ansi.enabled", "false");
  auto rows = spark.sql("SELECT 1 / 0").collect();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].isNullAt(0));
}

TEST(DataFrameTest, ParseErrorIsParseException) {
  auto spark = NewSession();
  try {
    spark.sql("SELEC 1");
    FAIL();
  } catch (const ParseException& e) {
    EXPECT_EQ(e.getErrorClass(), "PARSE_SYNTAX_ERROR");
    EXPECT_EQ(e.getSqlState(), "42601");
  }
}

TEST(DataFrameTest, JoinOnDataFrameColumns) {
  auto spark = NewSession();
  auto a = spark.createDataFrame(
      {{Value::Int(1), Value::String("x")}, {Value::Int(2), Value::String("y")}},
      "id INT, v STRING");
  auto b = spark.createDataFrame(
      {{Value::Int(2), Value::String("z")}, {Value::Int(3), Value::String("w")}},
      "id INT, w STRING");
  auto inner = a.join(b, a["id"] == b["id"]).select(a["id"], F::col("v"), F::col("w"));
  EXPECT_EQ(Render(inner.collect()), "Row(id=2, v='y', w='z')\n");
  auto left = a.join(b, "id", "left").orderBy("id");
  EXPECT_EQ(Render(left.collect()),
            "Row(id=1, v='x', w=None)\nRow(id=2, v='y', w='z')\n");
  auto full = a.join(b, std::vector<std::string>{"id"}, "full_outer").orderBy("id");
  EXPECT_EQ(full.count(), 3);
  EXPECT_EQ(a.join(b, "id", "left_anti").count(), 1);
  EXPECT_EQ(a.crossJoin(b).count(), 4);
}

TEST(DataFrameTest, TransformationsAndActions) {
  auto spark = NewSession();
  auto df = spark.range(10)
                .filter("id > 2")
                .where(F::col("id") < 8)
                .withColumn("sq", F::col("id") * F::col("id"))
                .withColumnRenamed("id", "n")
                .drop("sq");
  EXPECT_EQ(df.columns(), std::vector<std::string>{"n"});
  EXPECT_EQ(df.count(), 5);
  EXPECT_FALSE(df.isEmpty());
  EXPECT_TRUE(df.filter(F::col("n") > 100).isEmpty());
  EXPECT_EQ(df.orderBy(F::col("n").desc()).first()->getLong(0), 7);
  EXPECT_EQ(df.take(2).size(), 2u);
  auto u = df.union_(df).distinct();
  EXPECT_EQ(u.count(), 5);
  EXPECT_EQ(df.union_(df).count(), 10);
  EXPECT_EQ(df.limit(3).count(), 3);
  EXPECT_EQ(df.selectExpr("n * 2 AS m", "n").columns(),
            (std::vector<std::string>{"m", "n"}));
}

TEST(DataFrameTest, TempViewsAndSql) {
  auto spark = NewSession();
  spark.range(5).createOrReplaceTempView("nums");
  auto rows = spark.sql("SELECT sum(id) AS s FROM nums WHERE id % 2 = 0").collect();
  EXPECT_EQ(rows[0]["s"].i64(), 6);
  EXPECT_THROW_CLASS(spark.range(1).createTempView("nums"), AnalysisException,
                     "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS");
  EXPECT_THROW_CLASS(spark.sql("SELECT * FROM missing_view"), AnalysisException,
                     "TABLE_OR_VIEW_NOT_FOUND");
}

TEST(DataFrameTest, WindowFunctions) {
  auto spark = NewSession();
  auto w = Window::partitionBy({"k"}).orderBy({"id"});
  auto df = spark.range(6)
                .withColumn("k", F::col("id") % 2)
                .withColumn("rn", F::row_number().over(w))
                .withColumn("running", F::sum("id").over(w))
                .orderBy("id");
  EXPECT_EQ(Render(df.select("rn", "running").collect()),
            "Row(rn=1, running=0)\nRow(rn=1, running=1)\nRow(rn=2, running=2)\n"
            "Row(rn=2, running=4)\nRow(rn=3, running=6)\nRow(rn=3, running=9)\n");
}

TEST(DataFrameTest, WhenOtherwiseAndIsin) {
  auto spark = NewSession();
  auto df = spark.range(4).select(F::when(F::col("id") == 0, "zero")
                                      .when(F::col("id") == 1, "one")
                                      .otherwise("many")
                                      .alias("w"),
                                  F::col("id").isin(1, 3).alias("odd"));
  EXPECT_EQ(Render(df.collect()),
            "Row(w='zero', odd=False)\nRow(w='one', odd=True)\nRow(w='many', odd=False)\n"
            "Row(w='many', odd=True)\n");
}

TEST(DataFrameTest, ExplainShowsPhysicalPlan) {
  auto spark = NewSession();
  std::string plan = spark.range(10).groupBy(F::col("id") % 2).count().explainString();
  EXPECT_NE(plan.find("== Physical Plan =="), std::string::npos);
  EXPECT_NE(plan.find("HashAggregate"), std::string::npos);
  EXPECT_NE(plan.find("Range"), std::string::npos);
}

// ---- Column.withField / dropFields, DataFrame.colRegex

DataFrame Structs(const SparkSession& spark) {
  return spark.sql(
      "SELECT 1 AS id, named_struct('a', 1, 'b', 'x', 'c', named_struct('d', 2, 'e', 3)) "
      "AS s UNION ALL SELECT 2, NULL UNION ALL "
      "SELECT 3, named_struct('a', 4, 'b', 'y', 'c', NULL)");
}

TEST(ColumnWithFieldTest, ReplacesOrAppendsAndNamesTheColumnAsSpark) {
  auto spark = NewSession();
  auto df = Structs(spark).orderBy("id").select(F::col("s").withField("a", F::lit(10)),
                                                F::col("s").withField("z", F::col("id")));
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"update_fields(s, WithField(10))",
                                                    "update_fields(s, WithField(id))"}));
  EXPECT_EQ(
      df.schema().fields()[1].type->Sql(),
      "STRUCT<a: INT NOT NULL, b: STRING NOT NULL, c: STRUCT<d: INT NOT NULL, e: INT "
      "NOT NULL>, z: INT NOT NULL>");
  auto rows = Structs(spark)
                  .orderBy("id")
                  .select(F::col("s").withField("a", F::lit(10)).alias("u"),
                          F::col("s").withField("z", F::col("id")).alias("v"))
                  .collect();
  EXPECT_EQ(Render(rows),
            "Row(u={10, x, {2, 3}}, v={1, x, {2, 3}, 1})\nRow(u=None, v=None)\n"
            "Row(u={10, y, NULL}, v={4, y, NULL, 3})\n");
}

TEST(ColumnWithFieldTest, NestedPathsCaseInsensitiveNames) {
  auto spark = NewSession();
  auto df = Structs(spark).orderBy("id").select(F::col("s").withField("C.D", F::lit(0)));
  EXPECT_EQ(df.columns(),
            (std::vector<std::string>{
                "update_fields(s, WithField(update_fields(s.C, WithField(0))))"}));
  EXPECT_EQ(Render(Structs(spark)
                       .orderBy("id")
                       .select(F::col("s").withField("C.D", F::lit(0)).alias("u"))
                       .collect()),
            "Row(u={1, x, {0, 3}})\nRow(u=None)\nRow(u={4, y, NULL})\n");
}

TEST(ColumnWithFieldTest, ChainsMergeIntoOneUpdateAsSpark) {
  auto spark = NewSession();
  auto c = F::col("s")
               .withField("a", F::lit(1))
               .withField("z", F::col("id"))
               .dropFields("b")
               .withField("a", F::lit(2));
  EXPECT_EQ(c.toString(),
            "Column<'update_fields(s, WithField(1), WithField(id), dropfield(), "
            "WithField(2))'>");
  // Only WithFields: one per name, at the first's place with the last's value.
  EXPECT_EQ(F::col("s")
                .withField("z", F::lit(1))
                .withField("a", F::lit(2))
                .withField("z", F::lit(3))
                .toString(),
            "Column<'update_fields(s, WithField(3), WithField(2))'>");
  auto df = Structs(spark).orderBy("id").select(c.alias("u"));
  EXPECT_EQ(Render(df.collect()),
            "Row(u={2, {2, 3}, 1})\nRow(u=None)\nRow(u={2, NULL, 3})\n");
}

TEST(ColumnWithFieldTest, DropFieldsNestedAndMissing) {
  auto spark = NewSession();
  auto c = F::col("s").dropFields("a", "c.d", "zz");
  EXPECT_EQ(
      c.toString(),
      "Column<'update_fields(s, dropfield(), WithField(update_fields(update_fields(s, "
      "dropfield()).c, dropfield())), dropfield())'>");
  auto df = Structs(spark).orderBy("id").select(c.alias("u"));
  EXPECT_EQ(Render(df.collect()), "Row(u={x, {3}})\nRow(u=None)\nRow(u={y, NULL})\n");
}

TEST(ColumnWithFieldTest, WorksInWithColumnAndFilter) {
  auto spark = NewSession();
  auto df = Structs(spark)
                .withColumn("s", F::col("s").withField("a", F::col("id") * 10))
                .filter(F::col("s").withField("b", F::lit("q")).getField("a") > 15)
                .select("id", "s.a");
  EXPECT_EQ(Render(df.collect()), "Row(id=3, a=30)\n");
}

TEST(ColumnWithFieldTest, ErrorsAsSpark) {
  auto spark = NewSession();
  auto df = Structs(spark);
  EXPECT_THROW_CLASS(df.select(F::col("id").withField("x", F::lit(1))), AnalysisException,
                     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
  EXPECT_THROW_CLASS(df.select(F::col("s").withField("a.x", F::lit(1))),
                     AnalysisException, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE");
  EXPECT_THROW_CLASS(df.select(F::col("s").withField("zz.x", F::lit(1))),
                     AnalysisException, "FIELD_NOT_FOUND");
  EXPECT_THROW_CLASS(df.select(F::col("s").dropFields("a", "b", "c")), AnalysisException,
                     "DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS");
  EXPECT_THROW_CLASS(df.select(F::col("s").withField("c..d", F::lit(1))), ParseException,
                     "PARSE_SYNTAX_ERROR");
  // update_fields is no SQL function.
  EXPECT_THROW_CLASS(spark.sql("SELECT update_fields(named_struct('a', 1), 2)"),
                     AnalysisException, "UNRESOLVED_ROUTINE");
}

TEST(ColumnWithFieldTest, InAStreamingQuery) {
  auto spark = NewSession();
  MemoryStream input(spark, "id INT, s STRUCT<a: INT, b: STRING>");
  auto q =
      input.toDF()
          .select(F::col("id"),
                  F::col("s").withField("a", F::col("id") + 1).dropFields("b").alias("t"))
          .writeStream()
          .format("memory")
          .queryName("with_field_stream")
          .outputMode("append")
          .start();
  auto st = DataType::Struct(
      {Field{"a", DataType::Int(), true}, Field{"b", DataType::String(), true}});
  input.addData({{Value::Int(1), Value::Struct(st, {Value::Int(5), Value::String("x")})},
                 {Value::Int(2), Value::Null(st)}});
  q.processAllAvailable();
  q.stop();
  EXPECT_EQ(Render(spark.sql("SELECT * FROM with_field_stream ORDER BY id").collect()),
            "Row(id=1, t={2})\nRow(id=2, t=None)\n");
}

DataFrame Wide(const SparkSession& spark) {
  return spark.sql("SELECT 'a' AS Col1, 1 AS Col2, 2.0 AS col3, 3 AS other");
}

TEST(ColRegexTest, SelectsTheColumnsWhoseWholeNameMatches) {
  auto spark = NewSession();
  auto df = Wide(spark);
  EXPECT_EQ(df.select(df.colRegex("`Col.*`")).columns(),
            (std::vector<std::string>{"Col1", "Col2", "col3"}));
  EXPECT_EQ(df.select(F::col("other"), df.colRegex("`Col[12]`"), F::lit(1)).columns(),
            (std::vector<std::string>{"other", "Col1", "Col2", "1"}));
  EXPECT_EQ(df.select(df.colRegex("`ol.*`")).columns(), (std::vector<std::string>{}));
  EXPECT_EQ(Render(df.select(df.colRegex("`(Col1|other)`")).collect()),
            "Row(Col1='a', other=3)\n");
  // Without backticks: the column of that name.
  EXPECT_EQ(df.select(df.colRegex("col2")).columns(), (std::vector<std::string>{"col2"}));
  EXPECT_THROW_CLASS(df.colRegex("nope"), AnalysisException,
                     "UNRESOLVED_COLUMN.WITH_SUGGESTION");
  EXPECT_EQ(df.colRegex("`Col2`").toString(), "Column<'unresolvedregex()'>");
}

TEST(ColRegexTest, QualifiedAndCaseSensitive) {
  auto spark = NewSession();
  auto t = Wide(spark).alias("t");
  auto u = Wide(spark).alias("u");
  auto j = t.crossJoin(u);
  EXPECT_EQ(j.select(t.colRegex("u.`col.*`")).columns(),
            (std::vector<std::string>{"Col1", "Col2", "col3"}));
  EXPECT_EQ(j.select(t.colRegex("`Col1`")).columns(),
            (std::vector<std::string>{"Col1", "Col1"}));
  spark.conf().set("spark.sql.caseSensitive", "true");
  EXPECT_EQ(t.select(t.colRegex("`col.*`")).columns(),
            (std::vector<std::string>{"col3"}));
}

TEST(ColRegexTest, OutsideASelectListAndBadPatterns) {
  auto spark = NewSession();
  auto df = Wide(spark);
  EXPECT_THROW_CLASS(df.withColumn("x", df.colRegex("`Col2`")), AnalysisException,
                     "INVALID_USAGE_OF_STAR_OR_REGEX");
  // RE2 has no possessive quantifiers (Java's (Col1)?+).
  EXPECT_THROW_CLASS(df.select(df.colRegex("`(Col1)?+.+`")), SparkRuntimeException,
                     "INVALID_PARAMETER_VALUE.PATTERN");
}

}  // namespace
}  // namespace spate::api
