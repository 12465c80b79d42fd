// Copyright spate authors.
// Delta's file statistics derived from the Parquet writer's column chunk statistics
// (FileWriter::DeriveLeafStats / FillLeafStats) against the pass over the rows
// (formats::AccumulateStats): the same ColumnStats and the same stats text, for random
// batches of every type the statistics know, nested structs, lists and maps, NULL
// patterns, NaN, signed zeros, long strings, several row groups and PLAIN fallbacks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/formats/file_writer.h"
#include "spate/io/file_system.h"
#include "spate/table/delta_writer.h"

namespace spate::table {
namespace {

using formats::ColumnStats;

SchemaPtr StatsSchema() {
  auto inner = DataType::Struct(
      {{"c", DataType::String(), true, ""}, {"d", DataType::Double(), true, ""}});
  auto nested = DataType::Struct({{"a", DataType::Int(), true, ""},
                                  {"b", inner, true, ""},
                                  {"l", DataType::Array(DataType::Long()), true, ""}});
  return std::make_shared<const Schema>(std::vector<Field>{
      {"i8", DataType::Byte(), true, ""},
      {"i16", DataType::Short(), true, ""},
      {"i32", DataType::Int(), true, ""},
      {"i64", DataType::Long(), true, ""},
      {"f32", DataType::Float(), true, ""},
      {"f64", DataType::Double(), true, ""},
      {"dec32", DataType::Decimal(7, 2), true, ""},
      {"dec64", DataType::Decimal(15, 3), true, ""},
      {"dec128", DataType::Decimal(30, 5), true, ""},
      {"s", DataType::String(), true, ""},
      {"day", DataType::Date(), true, ""},
      {"ts", DataType::Timestamp(), true, ""},
      {"ntz", DataType::TimestampNtz(), true, ""},
      {"ok", DataType::Boolean(), true, ""},
      {"bin", DataType::Binary(), true, ""},
      {"st", nested, true, ""},
      {"arr", DataType::Array(DataType::String()), true, ""},
      {"m", DataType::Map(DataType::String(), DataType::Int()), true, ""},
  });
}

// A random value of a leaf type: small domains (dictionaries, ties), wide ones (PLAIN
// fallbacks), NaN, signed zeros and long (> 32 characters, > 4 KiB) strings.
Value RandomLeaf(const DataTypePtr& t, std::mt19937_64& rng, int wide) {
  const uint64_t r = rng();
  const int64_t span = wide ? 1000000 : 5;
  const int64_t x = static_cast<int64_t>(r % static_cast<uint64_t>(2 * span)) - span;
  switch (t->id()) {
    case TypeId::kByte:
      return Value::Byte(static_cast<int8_t>(x % 100));
    case TypeId::kShort:
      return Value::Short(static_cast<int16_t>(x % 30000));
    case TypeId::kInt:
      return Value::Int(static_cast<int32_t>(x));
    case TypeId::kLong:
      return Value::Long(x * 1000003);
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = static_cast<double>(x) / 4;
      switch (r >> 60) {
        case 0:
          d = 0.0;
          break;
        case 1:
          d = -0.0;
          break;
        case 2:
          if ((r >> 20) % 16 == 0) d = std::nan("");
          break;
        case 3:
          d = (r >> 8) % 2 ? INFINITY : -INFINITY;
          break;
        default:
          break;
      }
      return t->id() == TypeId::kFloat ? Value::Float(static_cast<float>(d))
                                       : Value::Double(d);
    }
    case TypeId::kDecimal: {
      int128_t v = x;
      if (t->precision() > 18) v = v * static_cast<int128_t>(1000000000000000000LL) + x;
      return Value::Decimal(v, t->precision(), t->scale());
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string s;
      switch ((r >> 56) % 8) {
        case 0:
          s = "";
          break;
        case 1:
          s = std::string(33 + (r >> 8) % 10, static_cast<char>('a' + x % 3 + 3));
          break;
        case 2:
          s = std::string(5000, 'z');
          break;
        case 3:
          s = "\xc3\xa9t\xc3\xa9-" + std::to_string(x) + std::string(40, '\xe2') +
              "\x82\xac";
          break;
        default:
          s = "v" + std::to_string(x);
      }
      return t->id() == TypeId::kString ? Value::String(s) : Value::Binary(s);
    }
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(x));
    case TypeId::kTimestamp:
      return Value::Timestamp(x * 999331);
    case TypeId::kTimestampNtz:
      return Value::TimestampNtz(x * 1777 - 5);
    case TypeId::kBoolean:
      return Value::Boolean(r % 2);
    default:
      return Value::Null(t);
  }
}

// `null_pct`: chance (percent) of a NULL at each level.
Value RandomValue(const DataTypePtr& t, std::mt19937_64& rng, int null_pct, int wide) {
  if (static_cast<int>(rng() % 100) < null_pct) return Value::Null(t);
  if (t->id() == TypeId::kStruct) {
    std::vector<Value> f;
    for (const auto& field : t->fields())
      f.push_back(RandomValue(field.type, rng, null_pct, wide));
    return Value::Struct(t, std::move(f));
  }
  if (t->id() == TypeId::kArray) {
    std::vector<Value> items;
    for (uint64_t i = rng() % 3; i > 0; --i)
      items.push_back(RandomValue(t->element_type(), rng, null_pct, wide));
    return Value::ArrayOf(t, std::move(items));
  }
  if (t->id() == TypeId::kMap) {
    std::vector<Value> k, v;
    for (uint64_t i = rng() % 3; i > 0; --i) {
      k.push_back(Value::String("k" + std::to_string(i)));
      v.push_back(RandomValue(t->value_type(), rng, null_pct, wide));
    }
    return Value::Map(t, std::move(k), std::move(v));
  }
  return RandomLeaf(t, rng, wide);
}

std::string Describe(const std::optional<Value>& v) {
  if (!v) return "-";
  std::string s = v->type()->SimpleString() + ":" + v->ToString();
  if (v->type()->id() == TypeId::kFloat || v->type()->id() == TypeId::kDouble)
    s += std::signbit(v->f64()) ? "(neg)" : "(pos)";
  return s;
}

std::string Describe(const std::vector<ColumnStats>& stats) {
  std::string out;
  for (const auto& s : stats) {
    for (const auto& p : s.path) out += p + ".";
    out += " nulls=" + std::to_string(s.null_count) + " min=" + Describe(s.min) +
           " max=" + Describe(s.max) + (s.no_bounds ? " no_bounds" : "") + "\n";
  }
  return out;
}

TEST(DeltaStatsTest, ParquetWriterDerivesTheLeavesOutsideListsAndMaps) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto factory = formats::MakeParquetWriterFactory({}).value();
  auto writer = factory->Open(fs->Create("/f.parquet").value(), StatsSchema()).value();
  const std::vector<bool> derived = writer->DeriveLeafStats();
  // i8 .. bin (15 leaves), st.a, st.b.c, st.b.d, then st.l, arr and m on the row pass.
  std::vector<bool> expected(15, true);
  expected.insert(expected.end(), {true, true, true, false, false, false});
  EXPECT_EQ(derived, expected);
  ASSERT_TRUE(writer->Close().ok());
}

TEST(DeltaStatsTest, WriterStatisticsEqualTheRowPass) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  const SchemaPtr schema = StatsSchema();
  int files_checked = 0;
  for (int seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed) * 7919 + 1);
    const int null_pct = std::vector<int>{0, 5, 30, 100}[seed % 4];
    const int wide = seed % 3 == 0;
    // Small row groups (several per file), and PLAIN chunks (no dictionary) now and then.
    std::map<std::string, std::string> opt = {
        {"spate.parquet.rowGroupRows", std::to_string(3 + seed % 40)}};
    if (seed % 5 == 1) opt["parquet.enable.dictionary"] = "false";
    auto factory = formats::MakeParquetWriterFactory(opt).value();
    formats::WriteJobOptions o;
    o.output_dir = "/t" + std::to_string(seed);
    o.collect_stats = true;
    o.use_staging = false;
    o.max_records_per_file = seed % 7 == 2 ? 13 : 0;
    auto job = formats::PartitionedWriteJob::Make(fs, factory, schema, o, 1).value();
    std::vector<BatchPtr> batches;
    for (int b = 0; b < 1 + seed % 4; ++b) {
      const int64_t n = 1 + static_cast<int64_t>(rng() % 50);
      std::vector<ColumnPtr> cols;
      for (const auto& f : schema->fields()) {
        std::vector<Value> vals;
        for (int64_t i = 0; i < n; ++i)
          vals.push_back(RandomValue(f.type, rng, null_pct, wide));
        cols.push_back(ColumnFromValues(f.type, vals));
      }
      batches.push_back(Batch::Make(schema, std::move(cols), n));
      ASSERT_TRUE(job->Write(0, batches.back()).ok());
    }
    auto files = job->Commit().value();
    // The row pass over the same rows, file by file (files hold consecutive rows).
    size_t bi = 0;
    int64_t offset = 0;
    for (const auto& file : files) {
      formats::WrittenFile rows = file;
      rows.stats.clear();
      for (int64_t need = file.num_records; need > 0;) {
        const int64_t take = std::min(need, batches[bi]->num_rows() - offset);
        formats::AccumulateStats(*SliceBatch(*batches[bi], offset, take), &rows.stats);
        need -= take;
        offset += take;
        if (offset == batches[bi]->num_rows()) {
          ++bi;
          offset = 0;
        }
      }
      ASSERT_EQ(Describe(file.stats), Describe(rows.stats)) << "seed " << seed;
      for (int indexed : {-1, 32, 5, 16})
        ASSERT_EQ(StatsJson(file, indexed, true), StatsJson(rows, indexed, true))
            << "seed " << seed;
      ++files_checked;
    }
  }
  EXPECT_GE(files_checked, 60);
}

}  // namespace
}  // namespace spate::table
