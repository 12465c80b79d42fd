// Copyright spate authors.
#include "spate/columnar/pretty.h"

#include <gtest/gtest.h>

#include "spate/columnar/builder.h"
#include "spate/types/format.h"

namespace spate {
namespace {

const CellFormatOptions kUtc;

Value Str(std::string s) { return Value::String(std::move(s)); }
Value NullOf(const DataTypePtr& t) { return Value::Null(t); }

// A batch from rows of values (one vector per column).
BatchPtr MakeBatch(const std::vector<Field>& fields,
                   const std::vector<std::vector<Value>>& cols) {
  std::vector<ColumnPtr> columns;
  for (size_t i = 0; i < fields.size(); ++i) {
    columns.push_back(ColumnFromValues(fields[i].type, cols[i]));
  }
  int64_t rows = columns.empty() ? 0 : columns[0]->length();
  return Batch::Make(std::make_shared<const Schema>(fields), std::move(columns), rows);
}

// The DataFrame of reference/ecosystem.md 3.3: columns id, name, tag.
std::vector<Field> ExampleFields() {
  return {Field{"id", DataType::Long()}, Field{"name", DataType::String()},
          Field{"tag", DataType::String()}};
}

BatchPtr ExampleRows(int n) {
  std::vector<Value> ids = {Value::Long(1), Value::Long(2)};
  std::vector<Value> names = {Str("a"), Str("abcdefghijklmnopqrstuvwxyz")};
  std::vector<Value> tags = {NullOf(DataType::String()), Str("x")};
  ids.resize(n);
  names.resize(n);
  tags.resize(n);
  return MakeBatch(ExampleFields(), {ids, names, tags});
}

TEST(PrettyTest, ShowDefaultTruncatesAndRightAligns) {
  // df.show(2): the query had a third row.
  EXPECT_EQ(
      ShowString({ExampleRows(2)}, Schema(ExampleFields()), 2, 20, false, true, kUtc),
      "+---+--------------------+----+\n"
      "| id|                name| tag|\n"
      "+---+--------------------+----+\n"
      "|  1|                   a|NULL|\n"
      "|  2|abcdefghijklmnopq...|   x|\n"
      "+---+--------------------+----+\n"
      "only showing top 2 rows\n");
}

TEST(PrettyTest, ShowWithoutTruncationLeftAligns) {
  // df.show(2, truncate=False)
  EXPECT_EQ(
      ShowString({ExampleRows(2)}, Schema(ExampleFields()), 2, 0, false, true, kUtc),
      "+---+--------------------------+----+\n"
      "|id |name                      |tag |\n"
      "+---+--------------------------+----+\n"
      "|1  |a                         |NULL|\n"
      "|2  |abcdefghijklmnopqrstuvwxyz|x   |\n"
      "+---+--------------------------+----+\n"
      "only showing top 2 rows\n");
}

TEST(PrettyTest, ShowVertical) {
  // df.limit(1).show(vertical=True)
  EXPECT_EQ(
      ShowString({ExampleRows(1)}, Schema(ExampleFields()), 20, 20, true, false, kUtc),
      "-RECORD 0----\n"
      " id   | 1    \n"
      " name | a    \n"
      " tag  | NULL \n");
  // Two records and the footer.
  EXPECT_EQ(
      ShowString({ExampleRows(2)}, Schema(ExampleFields()), 2, 20, true, true, kUtc),
      "-RECORD 0--------------------\n"
      " id   | 1                    \n"
      " name | a                    \n"
      " tag  | NULL                 \n"
      "-RECORD 1--------------------\n"
      " id   | 2                    \n"
      " name | abcdefghijklmnopq... \n"
      " tag  | x                    \n"
      "only showing top 2 rows\n");
}

TEST(PrettyTest, EmptyResults) {
  std::vector<Field> fields = {Field{"id", DataType::Long()}};
  Schema schema(fields);
  BatchPtr empty = Batch::Empty(std::make_shared<const Schema>(fields));
  EXPECT_EQ(ShowString({empty}, schema, 20, 20, false, false, kUtc),
            "+---+\n| id|\n+---+\n+---+\n");
  EXPECT_EQ(ShowString({}, schema, 20, 0, false, false, kUtc),
            "+---+\n|id |\n+---+\n+---+\n");
  EXPECT_EQ(ShowString({empty}, schema, 20, 20, true, false, kUtc), "(0 rows)\n");
  // show(0) of a non-empty result.
  EXPECT_EQ(
      ShowString({ExampleRows(2)}, Schema(ExampleFields()), 0, 20, false, false, kUtc),
      "+---+----+---+\n| id|name|tag|\n+---+----+---+\n+---+----+---+\n"
      "only showing top 0 rows\n");
}

TEST(PrettyTest, FooterSingularAndRowsAcrossBatches) {
  std::vector<Field> fields = {Field{"n", DataType::Int()}};
  BatchPtr a = MakeBatch(fields, {{Value::Int(1), Value::Int(22)}});
  BatchPtr b = MakeBatch(fields, {{Value::Int(333)}});
  EXPECT_EQ(ShowString({a, b}, Schema(fields), 1, 20, false, true, kUtc),
            "+---+\n|  n|\n+---+\n|  1|\n+---+\nonly showing top 1 row\n");
  EXPECT_EQ(ShowString({a, b}, Schema(fields), 20, 20, false, false, kUtc),
            "+---+\n|  n|\n+---+\n|  1|\n| 22|\n|333|\n+---+\n");
  // More rows than asked for: shown up to num_rows, and the footer appears.
  EXPECT_EQ(ShowString({a, b}, Schema(fields), 2, 20, false, false, kUtc),
            "+---+\n|  n|\n+---+\n|  1|\n| 22|\n+---+\nonly showing top 2 rows\n");
}

TEST(PrettyTest, TruncationRules) {
  std::vector<Field> fields = {Field{"s", DataType::String()}};
  BatchPtr b = MakeBatch(fields, {{Str("abcdef"), Str("ab")}});
  // truncate < 4: a plain cut.
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 3, false, false, kUtc),
            "+---+\n|  s|\n+---+\n|abc|\n| ab|\n+---+\n");
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 1, false, false, kUtc),
            "+---+\n|  s|\n+---+\n|  a|\n|  a|\n+---+\n");
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 4, false, false, kUtc),
            "+----+\n|   s|\n+----+\n|a...|\n|  ab|\n+----+\n");
  // Headers are escaped but never truncated.
  std::vector<Field> long_name = {Field{"a_very_long\tname", DataType::Int()}};
  BatchPtr c = MakeBatch(long_name, {{Value::Int(7)}});
  EXPECT_EQ(ShowString({c}, Schema(long_name), 20, 4, false, false, kUtc),
            "+-----------------+\n"
            "|a_very_long\\tname|\n"
            "+-----------------+\n"
            "|                7|\n"
            "+-----------------+\n");
}

TEST(PrettyTest, EscapesMetaCharacters) {
  EXPECT_EQ(EscapeMetaCharacters("a\nb\tc\rd\fe\bf\vg\ah\\"),
            "a\\nb\\tc\\rd\\fe\\bf\\vg\\ah\\");
  std::vector<Field> fields = {Field{"s", DataType::String()}};
  BatchPtr b = MakeBatch(fields, {{Str("line1\nline2")}});
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 20, false, false, kUtc),
            "+------------+\n|           "
            "s|\n+------------+\n|line1\\nline2|\n+------------+\n");
  // The escape counts toward truncation.
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 8, false, false, kUtc),
            "+--------+\n|       s|\n+--------+\n|line1...|\n+--------+\n");
}

TEST(PrettyTest, UnicodeWidth) {
  EXPECT_EQ(StringHalfWidth("abc"), 3);
  EXPECT_EQ(StringHalfWidth("日本語"), 6);
  EXPECT_EQ(StringHalfWidth("Ａ"), 2);  // U+FF21 full-width A
  EXPECT_EQ(StringHalfWidth("é"), 1);
  EXPECT_EQ(StringHalfWidth("😀"), 2);  // two UTF-16 units
  std::vector<Field> fields = {Field{"名前", DataType::String()},
                               Field{"n", DataType::Int()}};
  BatchPtr b =
      MakeBatch(fields, {{Str("日本語"), Str("ab")}, {Value::Int(1), Value::Int(2)}});
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 20, false, false, kUtc),
            "+------+---+\n"
            "|  名前|  n|\n"
            "+------+---+\n"
            "|日本語|  1|\n"
            "|    ab|  2|\n"
            "+------+---+\n");
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 0, true, false, kUtc),
            "-RECORD 0------\n"
            " 名前 | 日本語 \n"
            " n    | 1      \n"
            "-RECORD 1------\n"
            " 名前 | ab     \n"
            " n    | 2      \n");
  // Truncation counts characters (UTF-16 units), not bytes or half widths.
  std::vector<Field> s = {Field{"s", DataType::String()}};
  BatchPtr t = MakeBatch(s, {{Str("日本語テキスト"), Str("ééééééé")}});
  EXPECT_EQ(ShowString({t}, Schema(s), 20, 5, false, false, kUtc),
            "+-------+\n|      s|\n+-------+\n|日本...|\n|  éé...|\n+-------+\n");
  // A cut through a supplementary character leaves half a surrogate pair, printed '?'.
  BatchPtr e = MakeBatch(s, {{Str("a😀😀b")}});
  EXPECT_EQ(ShowString({e}, Schema(s), 20, 3, false, false, kUtc),
            "+---+\n|  s|\n+---+\n|a😀|\n+---+\n");
  EXPECT_EQ(ShowString({e}, Schema(s), 20, 2, false, false, kUtc),
            "+---+\n|  s|\n+---+\n| a?|\n+---+\n");
  // Ill-formed UTF-8 prints as U+FFFD, one character wide.
  BatchPtr bad = MakeBatch(s, {{Str("a\xff"
                                    "b")}});
  EXPECT_EQ(ShowString({bad}, Schema(s), 20, 20, false, false, kUtc),
            "+---+\n|  s|\n+---+\n|a\xEF\xBF\xBD"
            "b|\n+---+\n");
}

TEST(PrettyTest, FlatCells) {
  auto one = [](const DataTypePtr& t, const Value& v, const CellFormatOptions& o = kUtc) {
    ColumnPtr c = ColumnFromValues(t, {v, Value::Null(t)});
    EXPECT_EQ(FormatCell(*c, 1, o), "NULL");
    std::vector<std::string> all;
    FormatColumn(*c, 2, o, &all);
    EXPECT_EQ(all[1], "NULL");
    EXPECT_EQ(all[0], FormatCell(*c, 0, o));
    return all[0];
  };
  EXPECT_EQ(one(DataType::Boolean(), Value::Boolean(true)), "true");
  EXPECT_EQ(one(DataType::Byte(), Value::Byte(-8)), "-8");
  EXPECT_EQ(one(DataType::Short(), Value::Short(300)), "300");
  EXPECT_EQ(one(DataType::Int(), Value::Int(-2147483647 - 1)), "-2147483648");
  EXPECT_EQ(one(DataType::Long(), Value::Long(9007199254740993)), "9007199254740993");
  EXPECT_EQ(one(DataType::Float(), Value::Float(1.1f)), "1.1");
  EXPECT_EQ(one(DataType::Double(), Value::Double(1e10)), "1.0E10");
  EXPECT_EQ(one(DataType::Double(), Value::Double(0.1)), "0.1");
  EXPECT_EQ(one(DataType::Decimal(10, 2), Value::Decimal(-5, 10, 2)), "-0.05");
  EXPECT_EQ(one(DataType::Decimal(38, 0), Value::Decimal(int128_t{1} << 100, 38, 0)),
            "1267650600228229401496703205376");
  EXPECT_EQ(one(DataType::String(), Str("héllo")), "héllo");
  EXPECT_EQ(one(DataType::Binary(), Value::Binary("ABC")), "[41 42 43]");
  EXPECT_EQ(one(DataType::Binary(), Value::Binary("")), "[]");
  EXPECT_EQ(one(DataType::Date(), Value::Date(DaysFromCivil(2024, 1, 31))), "2024-01-31");
  int64_t t =
      (DaysFromCivil(2024, 7, 1) * 86'400LL + 12 * 3600) * kMicrosPerSecond + 120'000;
  EXPECT_EQ(one(DataType::Timestamp(), Value::Timestamp(t)), "2024-07-01 12:00:00.12");
  // The session zone applies to TIMESTAMP, not to TIMESTAMP_NTZ.
  TimeZone la = *TimeZone::Find("America/Los_Angeles");
  CellFormatOptions in_la{&la};
  EXPECT_EQ(one(DataType::Timestamp(), Value::Timestamp(t), in_la),
            "2024-07-01 05:00:00.12");
  EXPECT_EQ(one(DataType::TimestampNtz(), Value::TimestampNtz(t), in_la),
            "2024-07-01 12:00:00.12");
  TimeZone plus8 = *TimeZone::Find("+08:00");
  EXPECT_EQ(one(DataType::Timestamp(), Value::Timestamp(t), CellFormatOptions{&plus8}),
            "2024-07-01 20:00:00.12");
  EXPECT_EQ(one(DataType::DayTimeInterval(),
                Value::FromI64(DataType::DayTimeInterval(), 10 * 60 * kMicrosPerSecond)),
            "INTERVAL '0 00:10:00' DAY TO SECOND");
  EXPECT_EQ(one(DataType::YearMonthInterval(),
                Value::FromI64(DataType::YearMonthInterval(), 14)),
            "INTERVAL '1-2' YEAR TO MONTH");
  ColumnPtr nulls = Column::MakeNull(DataType::Null(), 2);
  EXPECT_EQ(FormatCell(*nulls, 0, kUtc), "NULL");
}

TEST(PrettyTest, NestedCells) {
  auto ints = DataType::Array(DataType::Int());
  auto map = DataType::Map(DataType::String(), DataType::Int());
  auto st =
      DataType::Struct({Field{"a", DataType::Int()}, Field{"b", DataType::String()}});
  auto arr_of_st = DataType::Array(st);
  auto ts_arr = DataType::Array(DataType::Timestamp());
  auto bin_st = DataType::Struct({Field{"bin", DataType::Binary()},
                                  Field{"m", DataType::Map(DataType::Int(), ints)}});
  auto cell = [](const DataTypePtr& t, const Value& v,
                 const CellFormatOptions& o = kUtc) {
    ColumnPtr c = ColumnFromValues(t, {Value::Null(t), v});
    EXPECT_EQ(FormatCell(*c, 0, o), "NULL");
    std::vector<std::string> all;
    FormatColumn(*c, 2, o, &all);
    EXPECT_EQ(all[1], FormatCell(*c, 1, o));
    return all[1];
  };
  EXPECT_EQ(cell(ints, Value::ArrayOf(ints, {Value::Int(1), Value::Int(2),
                                             NullOf(DataType::Int())})),
            "[1, 2, NULL]");
  EXPECT_EQ(cell(ints, Value::ArrayOf(ints, {NullOf(DataType::Int())})), "[NULL]");
  EXPECT_EQ(cell(ints, Value::ArrayOf(ints, {})), "[]");
  EXPECT_EQ(cell(map, Value::Map(map, {Str("a"), Str("b")},
                                 {Value::Int(1), NullOf(DataType::Int())})),
            "{a -> 1, b -> NULL}");
  EXPECT_EQ(cell(map, Value::Map(map, {}, {})), "{}");
  EXPECT_EQ(cell(st, Value::Struct(st, {Value::Int(1), Str("x")})), "{1, x}");
  EXPECT_EQ(
      cell(st, Value::Struct(st, {NullOf(DataType::Int()), NullOf(DataType::String())})),
      "{NULL, NULL}");
  EXPECT_EQ(
      cell(arr_of_st,
           Value::ArrayOf(arr_of_st,
                          {NullOf(st), Value::Struct(st, {Value::Int(1), Str("a")})})),
      "[NULL, {1, a}]");
  EXPECT_EQ(
      cell(bin_st,
           Value::Struct(bin_st, {Value::Binary("\x01\xff"),
                                  Value::Map(bin_st->fields()[1].type, {Value::Int(1)},
                                             {Value::ArrayOf(ints, {Value::Int(5)})})})),
      "{[01 FF], {1 -> [5]}}");
  int64_t t = DaysFromCivil(2024, 1, 1) * 86'400LL * kMicrosPerSecond;
  TimeZone tokyo = *TimeZone::Find("Asia/Tokyo");
  EXPECT_EQ(cell(ts_arr, Value::ArrayOf(ts_arr, {Value::Timestamp(t)}),
                 CellFormatOptions{&tokyo}),
            "[2024-01-01 09:00:00]");
  // Same text as Value::ToString for nested values without session-zone types.
  Value v = Value::Struct(st, {Value::Int(-3), Str("q")});
  EXPECT_EQ(cell(st, v), v.ToString());
}

TEST(PrettyTest, NestedColumnsInATable) {
  auto ints = DataType::Array(DataType::Int());
  std::vector<Field> fields = {Field{"xs", ints}, Field{"d", DataType::Double()}};
  BatchPtr b = MakeBatch(
      fields,
      {{Value::ArrayOf(ints, {Value::Int(1), NullOf(DataType::Int())}), NullOf(ints)},
       {Value::Double(1.5), NullOf(DataType::Double())}});
  EXPECT_EQ(ShowString({b}, Schema(fields), 20, 20, false, false, kUtc),
            "+---------+----+\n"
            "|       xs|   d|\n"
            "+---------+----+\n"
            "|[1, NULL]| 1.5|\n"
            "|     NULL|NULL|\n"
            "+---------+----+\n");
}

}  // namespace
}  // namespace spate
