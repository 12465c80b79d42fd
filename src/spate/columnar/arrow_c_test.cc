// Copyright spate authors.
#include "spate/columnar/arrow_c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/columnar/pretty.h"
#include "spate/testing/status_matchers.h"
#include "spate/types/format.h"

namespace spate {
namespace {

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

Value Str(std::string s) { return Value::String(std::move(s)); }

// All values of a column, for comparisons.
std::vector<Value> Values(const Column& c) {
  std::vector<Value> out;
  for (int64_t i = 0; i < c.length(); ++i) out.push_back(c.GetValue(i));
  return out;
}

// A hand-written producer: an ArrowArray node whose buffers live in the node, whose
// release counts its calls and releases its children first (as the spec asks of
// producers).
struct FakeNode {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<const void*> buffers;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_pointers;
  int* releases = nullptr;
};

void FakeRelease(ArrowArray* array) {
  ASSERT_NE(array->release, nullptr) << "released twice";
  std::unique_ptr<FakeNode> node(static_cast<FakeNode*>(array->private_data));
  for (ArrowArray* child : node->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  ++*node->releases;
  array->release = nullptr;
}

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<uint8_t> BitsOf(const std::vector<bool>& values) {
  std::vector<uint8_t> out((values.size() + 7) / 8);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) out[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return out;
}

// buffers: std::nullopt = a NULL buffer pointer.
ArrowArray MakeFake(int64_t length, int64_t offset, int64_t null_count,
                    std::vector<std::optional<std::vector<uint8_t>>> buffers,
                    std::vector<ArrowArray> children, int* releases) {
  auto node = std::make_unique<FakeNode>();
  node->releases = releases;
  node->storage.reserve(buffers.size());
  for (auto& b : buffers) {
    if (b.has_value()) {
      node->storage.push_back(std::move(*b));
      node->buffers.push_back(node->storage.back().data());
    } else {
      node->buffers.push_back(nullptr);
    }
  }
  node->children = std::move(children);
  for (ArrowArray& c : node->children) node->child_pointers.push_back(&c);
  ArrowArray a{};
  a.length = length;
  a.null_count = null_count;
  a.offset = offset;
  a.n_buffers = static_cast<int64_t>(node->buffers.size());
  a.n_children = static_cast<int64_t>(node->children.size());
  a.buffers = node->buffers.data();
  a.children = node->child_pointers.empty() ? nullptr : node->child_pointers.data();
  a.dictionary = nullptr;
  a.release = &FakeRelease;
  a.private_data = node.release();
  return a;
}

// Imports `array` with a schema exported from `type`.
Result<ColumnPtr> ImportAs(ArrowArray* array, const DataTypePtr& type) {
  ArrowSchema schema;
  Status st = ExportType(Field{"x", type, true}, &schema);
  EXPECT_TRUE(st.ok());
  Result<ColumnPtr> out = ImportColumn(array, &schema);
  schema.release(&schema);
  return out;
}

// A batch with a column of every type, each with a NULL in row 1.
BatchPtr EveryTypeBatch() {
  auto ints = DataType::Array(DataType::Int());
  auto map = DataType::Map(DataType::String(), DataType::Long());
  auto st =
      DataType::Struct({Field{"a", DataType::Int()}, Field{"b", DataType::String()}});
  auto arr_st = DataType::Array(st, false);
  auto map_arr =
      DataType::Map(DataType::Int(), DataType::Array(DataType::String()), false);
  std::vector<Field> fields = {
      Field{"n", DataType::Null()},
      Field{"bool", DataType::Boolean()},
      Field{"i8", DataType::Byte()},
      Field{"i16", DataType::Short()},
      Field{"i32", DataType::Int(), false},
      Field{"i64", DataType::Long()},
      Field{"f32", DataType::Float()},
      Field{"f64", DataType::Double()},
      Field{"dec", DataType::Decimal(38, 10)},
      Field{"str", DataType::String()},
      Field{"bin", DataType::Binary()},
      Field{"date", DataType::Date()},
      Field{"ts", DataType::Timestamp()},
      Field{"ntz", DataType::TimestampNtz()},
      Field{"dti", DataType::DayTimeInterval()},
      Field{"ymi", DataType::YearMonthInterval()},
      Field{"ints", ints},
      Field{"map", map},
      Field{"st", st},
      Field{"arr_st", arr_st},
      Field{"map_arr", map_arr},
  };
  std::vector<std::vector<Value>> rows(fields.size());
  auto add = [&](size_t c, Value a, Value c2) {
    rows[c].push_back(std::move(a));
    rows[c].push_back(Value::Null(fields[c].type));
    rows[c].push_back(std::move(c2));
  };
  size_t k = 0;
  rows[k++] = {Value(), Value(), Value()};
  add(k++, Value::Boolean(true), Value::Boolean(false));
  add(k++, Value::Byte(-1), Value::Byte(127));
  add(k++, Value::Short(-300), Value::Short(300));
  rows[k++] = {Value::Int(1), Value::Int(2), Value::Int(3)};
  add(k++, Value::Long(-(int64_t{1} << 40)), Value::Long(7));
  add(k++, Value::Float(1.5f), Value::Float(-0.25f));
  add(k++, Value::Double(3.25), Value::Double(-1e300));
  add(k++, Value::Decimal(int128_t{-123456789} * 1000000000000LL, 38, 10),
      Value::Decimal(1, 38, 10));
  add(k++, Str("héllo"), Str(""));
  add(k++, Value::Binary(std::string("\0\x01\xff", 3)), Value::Binary("z"));
  add(k++, Value::Date(19'000), Value::Date(-1));
  add(k++, Value::Timestamp(1'700'000'000'123'456), Value::Timestamp(-1));
  add(k++, Value::TimestampNtz(42), Value::TimestampNtz(-42));
  add(k++, Value::FromI64(DataType::DayTimeInterval(), 90'000'000),
      Value::FromI64(DataType::DayTimeInterval(), -1));
  add(k++, Value::FromI64(DataType::YearMonthInterval(), 14),
      Value::FromI64(DataType::YearMonthInterval(), -3));
  add(k++,
      Value::ArrayOf(ints, {Value::Int(1), Value::Null(DataType::Int()), Value::Int(3)}),
      Value::ArrayOf(ints, {}));
  add(k++,
      Value::Map(map, {Str("a"), Str("b")},
                 {Value::Long(1), Value::Null(DataType::Long())}),
      Value::Map(map, {}, {}));
  add(k++, Value::Struct(st, {Value::Int(1), Str("x")}),
      Value::Struct(st, {Value::Null(DataType::Int()), Value::Null(DataType::String())}));
  add(k++, Value::ArrayOf(arr_st, {Value::Struct(st, {Value::Int(2), Str("y")})}),
      Value::ArrayOf(arr_st, {}));
  add(k++,
      Value::Map(
          map_arr, {Value::Int(1)},
          {Value::ArrayOf(DataType::Array(DataType::String()), {Str("p"), Str("q")})}),
      Value::Map(map_arr, {Value::Int(2), Value::Int(3)},
                 {Value::ArrayOf(DataType::Array(DataType::String()), {}),
                  Value::ArrayOf(DataType::Array(DataType::String()), {Str("r")})}));
  std::vector<ColumnPtr> columns;
  for (size_t c = 0; c < fields.size(); ++c) {
    columns.push_back(ColumnFromValues(fields[c].type, rows[c]));
  }
  return Batch::Make(std::make_shared<const Schema>(fields), std::move(columns), 3);
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

TEST(ArrowCTest, FormatStringsNamesAndFlags) {
  BatchPtr batch = EveryTypeBatch();
  ArrowSchema schema;
  ASSERT_TRUE(ExportSchema(*batch->schema(), &schema).ok());
  EXPECT_STREQ(schema.format, "+s");
  EXPECT_EQ(schema.flags, 0);
  const char* expected[] = {
      "n",   "b",       "c",    "s",   "i",   "l",  "f",  "g",  "d:38,10", "u", "z",
      "tdD", "tsu:UTC", "tsu:", "tDu", "tiM", "+l", "+m", "+s", "+l",      "+m"};
  ASSERT_EQ(schema.n_children, 21);
  for (int i = 0; i < 21; ++i) {
    EXPECT_STREQ(schema.children[i]->format, expected[i]) << i;
    EXPECT_EQ(schema.children[i]->name, batch->schema()->field(i).name);
  }
  EXPECT_EQ(schema.children[4]->flags, 0);  // i32 is NOT NULL
  EXPECT_EQ(schema.children[5]->flags, ARROW_FLAG_NULLABLE);
  const ArrowSchema* list = schema.children[16];
  ASSERT_EQ(list->n_children, 1);
  EXPECT_STREQ(list->children[0]->name, "element");
  EXPECT_EQ(list->children[0]->flags, ARROW_FLAG_NULLABLE);
  EXPECT_EQ(schema.children[19]->children[0]->flags, 0);  // array<struct> without nulls
  const ArrowSchema* map = schema.children[17];
  EXPECT_EQ(map->flags, ARROW_FLAG_NULLABLE);  // not MAP_KEYS_SORTED
  ASSERT_EQ(map->n_children, 1);
  const ArrowSchema* entries = map->children[0];
  EXPECT_STREQ(entries->format, "+s");
  EXPECT_STREQ(entries->name, "entries");
  EXPECT_EQ(entries->flags, 0);
  ASSERT_EQ(entries->n_children, 2);
  EXPECT_STREQ(entries->children[0]->name, "key");
  EXPECT_EQ(entries->children[0]->flags, 0);
  EXPECT_STREQ(entries->children[1]->name, "value");
  EXPECT_EQ(entries->children[1]->flags, ARROW_FLAG_NULLABLE);
  EXPECT_EQ(schema.children[20]->children[0]->children[1]->flags,
            0);  // valueContainsNull=false
  // The type comes back as it went out.
  Result<DataTypePtr> type = ImportType(&schema);
  ASSERT_TRUE(type.ok()) << type.status().ToString();
  EXPECT_TRUE((*type)->Equals(*batch->schema()->AsStruct())) << (*type)->SimpleString();
  schema.release(&schema);
  EXPECT_EQ(schema.release, nullptr);
}

TEST(ArrowCTest, BatchRoundTripOfEveryType) {
  BatchPtr batch = EveryTypeBatch();
  ArrowArray array;
  ArrowSchema schema;
  ASSERT_TRUE(ExportBatch(batch, &array, &schema).ok());
  EXPECT_EQ(array.length, 3);
  EXPECT_EQ(array.n_children, 21);
  Result<BatchPtr> back = ImportBatch(&array, &schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(array.release, nullptr);   // moved
  EXPECT_EQ(schema.release, nullptr);  // released
  EXPECT_TRUE((*back)->schema()->Equals(*batch->schema()));
  ASSERT_EQ((*back)->num_rows(), 3);
  for (int c = 0; c < batch->num_columns(); ++c) {
    EXPECT_EQ(Values(*(*back)->column(c)), Values(*batch->column(c)))
        << batch->schema()->field(c).name;
    EXPECT_EQ((*back)->column(c)->null_count(), batch->column(c)->null_count());
  }
  // The imported batch prints like the original.
  CellFormatOptions opts;
  EXPECT_EQ(ShowString({*back}, *(*back)->schema(), 20, 0, false, false, opts),
            ShowString({batch}, *batch->schema(), 20, 0, false, false, opts));
}

TEST(ArrowCTest, ColumnRoundTripIsZeroCopy) {
  BatchPtr batch = EveryTypeBatch();
  for (int c = 0; c < batch->num_columns(); ++c) {
    const ColumnPtr& column = batch->column(c);
    ArrowArray array;
    ASSERT_TRUE(ExportColumn(column, &array).ok());
    if (column->values() != nullptr) {
      EXPECT_EQ(array.buffers[1], column->values()->data()) << c;
    }
    if (column->validity() != nullptr) {
      EXPECT_EQ(array.buffers[0], column->validity()->data()) << c;
    }
    Result<ColumnPtr> back = ImportAs(&array, column->type());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(Values(**back), Values(*column)) << c;
    if (column->values() != nullptr && column->type_id() != TypeId::kNull) {
      EXPECT_EQ((*back)->values()->data(), column->values()->data()) << c;
    }
    if (column->data() != nullptr && column->data()->size() > 0) {
      EXPECT_EQ((*back)->data()->data(), column->data()->data()) << c;
    }
  }
}

TEST(ArrowCTest, ExportHoldsBuffersUntilRelease) {
  FixedWidthBuilder<int64_t> b(DataType::Long());
  b.Append(10);
  b.AppendNull();
  b.Append(30);
  ColumnPtr column = b.Finish();
  BufferPtr values = column->values();
  const long before = values.use_count();
  ArrowArray array;
  ASSERT_TRUE(ExportColumn(column, &array).ok());
  EXPECT_EQ(values.use_count(), before + 1);
  EXPECT_EQ(array.null_count, 1);
  EXPECT_EQ(array.n_buffers, 2);
  column.reset();  // the export keeps the memory alive on its own
  const auto* v = static_cast<const int64_t*>(array.buffers[1]);
  EXPECT_EQ(v[0], 10);
  EXPECT_EQ(v[2], 30);
  EXPECT_FALSE(bits::Get(static_cast<const uint8_t*>(array.buffers[0]), 1));
  array.release(&array);
  EXPECT_EQ(array.release, nullptr);
  EXPECT_EQ(values.use_count(), before - 1);  // minus the column we dropped
}

TEST(ArrowCTest, MovedChildOutlivesItsParent) {
  BatchPtr batch = EveryTypeBatch();
  ArrowArray array;
  ASSERT_TRUE(ExportBatch(batch, &array, nullptr).ok());
  // Move child 9 (str) out, then release the parent: the child stays valid.
  ArrowArray child = *array.children[9];
  array.children[9]->release = nullptr;
  array.release(&array);
  Result<ColumnPtr> str = ImportAs(&child, DataType::String());
  ASSERT_TRUE(str.ok());
  EXPECT_EQ(Values(**str), Values(*batch->column(9)));
}

TEST(ArrowCTest, ImportReleasesProducerExactlyOnce) {
  int releases = 0;
  {
    // int32 [0..6], validity 1011101, viewed from offset 2 for 5 rows: 1, 1, 1, 0, 1.
    ArrowArray a = MakeFake(5, 2, -1,
                            {BitsOf({true, false, true, true, true, false, true}),
                             BytesOf<int32_t>({0, 1, 2, 3, 4, 5, 6})},
                            {}, &releases);
    const void* values = a.buffers[1];
    Result<ColumnPtr> column = ImportAs(&a, DataType::Int());
    ASSERT_TRUE(column.ok()) << column.status().ToString();
    EXPECT_EQ(a.release, nullptr);
    EXPECT_EQ(releases, 0);
    EXPECT_EQ((*column)->length(), 5);
    EXPECT_EQ((*column)->null_count(), 1);  // computed from null_count = -1
    EXPECT_EQ(Values(**column),
              (std::vector<Value>{Value::Int(2), Value::Int(3), Value::Int(4),
                                  Value::Null(DataType::Int()), Value::Int(6)}));
    // Values are shared even at an offset; the bitmap at bit offset 2 was normalized.
    EXPECT_EQ((*column)->values()->data(), static_cast<const uint8_t*>(values) + 8);
    ColumnPtr copy = *column;
    column = Status::Invalid("drop");
    EXPECT_EQ(releases, 0);  // `copy` still references the producer's memory
    copy.reset();
    EXPECT_EQ(releases, 1);
  }
  {
    // A failed import releases too.
    releases = 0;
    ArrowArray a =
        MakeFake(1, 0, 0, {std::nullopt, BytesOf<int32_t>({1})}, {}, &releases);
    ArrowSchema half;
    ASSERT_TRUE(ExportType(Field{"h", DataType::Int()}, &half).ok());
    half.format = "e";  // float16
    Result<ColumnPtr> column = ImportColumn(&a, &half);
    EXPECT_ERROR_HAS(column, "Arrow format 'e' is not supported");
    EXPECT_EQ(column.status().code(), StatusCode::kUnimplemented);
    EXPECT_EQ(releases, 1);
    half.format = "i";
    half.release(&half);
  }
}

TEST(ArrowCTest, ImportNestedWithOffsetsAndMissingValidity) {
  int releases = 0;
  // struct<a: int32, b: utf8> of 3 rows at parent offset 1; child a has its own offset 1
  // (so struct row r reads a[1 + 1 + r]), child b none. Parent validity: rows (physical)
  // 0..3 = valid, valid, null, valid.
  ArrowArray a = MakeFake(5, 1, 0, {std::nullopt, BytesOf<int32_t>({9, 9, 10, 11, 12})},
                          {}, &releases);
  ArrowArray b = MakeFake(4, 0, 0,
                          {std::nullopt, BytesOf<int32_t>({0, 1, 3, 3, 6}),
                           std::vector<uint8_t>{'x', 'y', 'y', 'z', 'z', 'z'}},
                          {}, &releases);
  std::vector<ArrowArray> kids;
  kids.push_back(a);
  kids.push_back(b);
  ArrowArray parent =
      MakeFake(3, 1, 1, {BitsOf({true, true, false, true})}, std::move(kids), &releases);
  auto type =
      DataType::Struct({Field{"a", DataType::Int()}, Field{"b", DataType::String()}});
  Result<ColumnPtr> column = ImportAs(&parent, type);
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  EXPECT_EQ(FormatCell(**column, 0, {}), "{10, yy}");
  EXPECT_EQ(FormatCell(**column, 1, {}), "NULL");
  EXPECT_EQ(FormatCell(**column, 2, {}), "{12, zzz}");
  EXPECT_EQ((*column)->child(0)->validity(), nullptr);  // no validity buffer: all valid
  EXPECT_EQ((*column)->child(1)->offsets()[0], 0);      // rebased offsets
  column = Status::Invalid("drop");
  EXPECT_EQ(releases, 3);  // the parent's release released both children, once each
}

TEST(ArrowCTest, ImportListBooleanAndStringSlices) {
  int releases = 0;
  // list<bool> [[t], [f, t], [], [t, t, f]] viewed at offset 1 for 3 rows.
  ArrowArray elements =
      MakeFake(6, 0, 0, {std::nullopt, BitsOf({true, false, true, true, true, false})},
               {}, &releases);
  std::vector<ArrowArray> kids;
  kids.push_back(elements);
  ArrowArray list = MakeFake(3, 1, 0, {std::nullopt, BytesOf<int32_t>({0, 1, 3, 3, 6})},
                             std::move(kids), &releases);
  Result<ColumnPtr> column = ImportAs(&list, DataType::Array(DataType::Boolean()));
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  std::vector<std::string> text;
  FormatColumn(**column, 3, {}, &text);
  EXPECT_EQ(text,
            (std::vector<std::string>{"[false, true]", "[]", "[true, true, false]"}));
  EXPECT_EQ((*column)->offsets()[0], 0);
  EXPECT_EQ((*column)->child(0)->length(), 5);
  // A boolean column at a bit offset, with nulls.
  ArrowArray flags = MakeFake(4, 3, 2,
                              {BitsOf({true, true, true, false, true, true, false}),
                               BitsOf({false, false, false, true, true, false, true})},
                              {}, &releases);
  Result<ColumnPtr> bools = ImportAs(&flags, DataType::Boolean());
  ASSERT_TRUE(bools.ok());
  EXPECT_EQ(
      Values(**bools),
      (std::vector<Value>{Value::Null(DataType::Boolean()), Value::Boolean(true),
                          Value::Boolean(false), Value::Null(DataType::Boolean())}));
  column = Status::Invalid("drop");
  bools = Status::Invalid("drop");
  EXPECT_EQ(releases, 3);
}

TEST(ArrowCTest, StreamYieldsBatchesThenEnd) {
  std::vector<Field> fields = {Field{"id", DataType::Long()},
                               Field{"s", DataType::String()}};
  auto schema = std::make_shared<const Schema>(fields);
  auto make = [&](int64_t id, const char* s) {
    return Batch::Make(schema,
                       {ColumnFromValues(DataType::Long(), {Value::Long(id)}),
                        ColumnFromValues(DataType::String(), {Str(s)})},
                       1);
  };
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportBatchStream(schema, {make(1, "a"), make(2, "bb")}, &stream).ok());
  std::vector<std::string> seen;
  for (;;) {
    ArrowArray array;
    ASSERT_EQ(stream.get_next(&stream, &array), 0);
    if (array.release == nullptr) break;
    ArrowSchema s;
    ASSERT_EQ(stream.get_schema(&stream, &s), 0);
    Result<BatchPtr> batch = ImportBatch(&array, &s);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_TRUE((*batch)->schema()->Equals(*schema));
    seen.push_back(FormatCell(*(*batch)->column(0), 0, {}) +
                   FormatCell(*(*batch)->column(1), 0, {}));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"1a", "2bb"}));
  EXPECT_EQ(stream.get_last_error(&stream), nullptr);
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

TEST(ArrowCTest, UnsupportedAndMalformedTypes) {
  auto import_format = [](const char* format) {
    ArrowSchema s{};
    s.format = format;
    s.name = "";
    s.release = [](ArrowSchema* self) { self->release = nullptr; };
    return ImportType(&s);
  };
  EXPECT_EQ(import_format("e").status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(import_format("U").status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(import_format("tsn:").status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(import_format("d:10,2,256").status().code(), StatusCode::kUnimplemented);
  EXPECT_ERROR_HAS(import_format("d:x,2"), "bad number 'x' in an Arrow format string");
  EXPECT_ERROR_HAS(import_format("+l"),
                   "Arrow format '+l' needs 1 children, has 0");  // no child
  ASSERT_TRUE(import_format("d:10,2,128").ok());
  EXPECT_TRUE((*import_format("d:10,2,128"))->Equals(*DataType::Decimal(10, 2)));
  EXPECT_TRUE((*import_format("tsu:America/New_York"))->Equals(*DataType::Timestamp()));
  EXPECT_TRUE((*import_format("tsu:"))->Equals(*DataType::TimestampNtz()));
}

}  // namespace
}  // namespace spate
