// Copyright spate authors.
// Writes Parquet files of every spate type (nulls, nested types, every codec, dictionary
// and PLAIN, several row groups) plus <name>.expected.json with every value, for
// read_parquet.mjs to check with an independent reader (hyparquet).
//
//   write_parquet_files <output dir>
//   write_parquet_files --dump <file>   prints a file read by spate in the same JSON form
//                                      (for files written by hyparquet-writer)
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>

#include "spate/columnar/builder.h"
#include "spate/formats/parquet/reader.h"
#include "spate/formats/parquet/writer.h"
#include "spate/io/file_system.h"

using namespace spate;  // NOLINT
namespace pq = spate::formats::parquet;

namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string Float(double d) {
  if (std::isnan(d)) return "\"NaN\"";
  if (std::isinf(d)) return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  return "\"" + std::string(buf) + "\"";
}

std::string Int128(__int128 v) {
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u);
  return neg ? "-" + s : s;
}

std::string Expected(const Value& v) {
  if (v.is_null()) return "null";
  const DataType& t = *v.type();
  switch (t.id()) {
    case TypeId::kBoolean:
      return v.i64() ? "true" : "false";
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return "\"" + std::to_string(v.i64()) + "\"";
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Float(v.f64());
    case TypeId::kDecimal: {
      std::string digits = Int128(v.i128());
      bool neg = digits[0] == '-';
      if (neg) digits.erase(0, 1);
      int scale = t.scale();
      while (static_cast<int>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
      if (scale > 0) digits.insert(digits.end() - scale, '.');
      return "{\"dec\": \"" + std::string(neg ? "-" : "") + digits + "\"}";
    }
    case TypeId::kString:
      return JsonString(v.str());
    case TypeId::kBinary: {
      std::string hex;
      for (unsigned char c : v.str()) {
        char buf[3];
        std::snprintf(buf, sizeof(buf), "%02x", c);
        hex += buf;
      }
      return "{\"bin\": \"" + hex + "\"}";
    }
    case TypeId::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < v.items().size(); ++i)
        s += (i ? ", " : "") + Expected(v.items()[i]);
      return s + "]";
    }
    case TypeId::kStruct: {
      std::string s = "{\"struct\": {";
      for (size_t i = 0; i < t.fields().size(); ++i) {
        s += (i ? ", " : "") + JsonString(t.fields()[i].name) + ": " +
             Expected(v.items()[i]);
      }
      return s + "}}";
    }
    case TypeId::kMap: {
      std::string s = "{\"map\": [";
      for (size_t i = 0; i < v.items().size(); ++i) {
        s += (i ? ", " : "") + std::string("[") + JsonString(v.items()[i].str()) + ", " +
             Expected(v.values()[i]) + "]";
      }
      return s + "]}";
    }
    default:
      return "null";
  }
}

struct Table {
  std::vector<Field> fields;
  std::vector<std::vector<Value>> cols;
  int64_t rows() const { return cols.empty() ? 0 : static_cast<int64_t>(cols[0].size()); }
};

Table AllTypes(int64_t n, uint32_t seed, bool with_nulls) {
  std::mt19937 rng(seed);
  auto arr_t = DataType::Array(DataType::Int());
  auto map_t = DataType::Map(DataType::String(), DataType::Double());
  auto st_t = DataType::Struct(
      {Field{"a", DataType::Int(), true}, Field{"b", DataType::String(), true},
       Field{"inner", DataType::Struct({Field{"x", DataType::Long(), true}}), true}});
  auto elem_t =
      DataType::Struct({Field{"tags", DataType::Array(DataType::String()), true},
                        Field{"w", DataType::Double(), true}});
  auto nested_t = DataType::Array(elem_t);
  auto lol_t = DataType::Array(DataType::Array(DataType::Long()));
  Table t;
  t.fields = {{"bool", DataType::Boolean()},
              {"byte", DataType::Byte()},
              {"short", DataType::Short()},
              {"int", DataType::Int()},
              {"long", DataType::Long()},
              {"float", DataType::Float()},
              {"double", DataType::Double()},
              {"dec9", DataType::Decimal(9, 2)},
              {"dec18", DataType::Decimal(18, 6)},
              {"dec38", DataType::Decimal(38, 4)},
              {"str", DataType::String()},
              {"bin", DataType::Binary()},
              {"date", DataType::Date()},
              {"ts", DataType::Timestamp()},
              {"ntz", DataType::TimestampNtz()},
              {"arr", arr_t},
              {"map", map_t},
              {"st", st_t},
              {"nested", nested_t},
              {"lol", lol_t},
              {"req", DataType::Long(), false}};
  t.cols.resize(t.fields.size());
  auto maybe = [&](Value v, const DataTypePtr& type) {
    return with_nulls && rng() % 6 == 0 ? Value::Null(type) : v;
  };
  for (int64_t i = 0; i < n; ++i) {
    int32_t r = static_cast<int32_t>(rng());
    int c = 0;
    t.cols[c++].push_back(maybe(Value::Boolean(r & 1), DataType::Boolean()));
    t.cols[c++].push_back(maybe(Value::Byte(static_cast<int8_t>(r)), DataType::Byte()));
    t.cols[c++].push_back(
        maybe(Value::Short(static_cast<int16_t>(r >> 3)), DataType::Short()));
    t.cols[c++].push_back(maybe(Value::Int(i % 5 == 0 ? INT32_MAX : r), DataType::Int()));
    t.cols[c++].push_back(
        maybe(Value::Long(static_cast<int64_t>(r) * 4294967311LL), DataType::Long()));
    float f = i % 17 == 0 ? NAN : i % 19 == 0 ? -0.0f : static_cast<float>(r) / 7.0f;
    t.cols[c++].push_back(maybe(Value::Float(f), DataType::Float()));
    double d = i % 23 == 0 ? INFINITY : static_cast<double>(r) / 13.0;
    t.cols[c++].push_back(maybe(Value::Double(d), DataType::Double()));
    t.cols[c++].push_back(
        maybe(Value::Decimal(r % 999999999, 9, 2), DataType::Decimal(9, 2)));
    t.cols[c++].push_back(maybe(Value::Decimal(static_cast<__int128>(r) * 1000003, 18, 6),
                                DataType::Decimal(18, 6)));
    __int128 big =
        static_cast<__int128>(r) * static_cast<__int128>(1000000007LL) * 1000000007LL;
    t.cols[c++].push_back(
        maybe(Value::Decimal(i % 2 ? big : -big, 38, 4), DataType::Decimal(38, 4)));
    std::string s = i % 9 == 0 ? ""
                               : "val-" + std::to_string(r % 40) +
                                     (i % 4 == 0 ? " \u00e9\u4e2d\"q\"" : "");
    t.cols[c++].push_back(maybe(Value::String(s), DataType::String()));
    t.cols[c++].push_back(
        maybe(Value::Binary(std::string("\x00\x01\xfe", 3) + std::to_string(r % 1000)),
              DataType::Binary()));
    t.cols[c++].push_back(maybe(Value::Date(r % 50000 - 10000), DataType::Date()));
    t.cols[c++].push_back(maybe(Value::Timestamp(static_cast<int64_t>(r) * 1000003),
                                DataType::Timestamp()));
    t.cols[c++].push_back(maybe(Value::TimestampNtz(static_cast<int64_t>(r) * 999),
                                DataType::TimestampNtz()));
    std::vector<Value> items;
    for (int k = 0; k < static_cast<int>(rng() % 4); ++k) {
      items.push_back(with_nulls && rng() % 5 == 0
                          ? Value::Null(DataType::Int())
                          : Value::Int(static_cast<int32_t>(rng() % 1000)));
    }
    t.cols[c++].push_back(maybe(Value::ArrayOf(arr_t, items), arr_t));
    std::vector<Value> keys, vals;
    for (int k = 0; k < static_cast<int>(rng() % 3); ++k) {
      keys.push_back(Value::String("k" + std::to_string(k)));
      vals.push_back(with_nulls && rng() % 4 == 0 ? Value::Null(DataType::Double())
                                                  : Value::Double(k * 1.25));
    }
    t.cols[c++].push_back(maybe(Value::Map(map_t, keys, vals), map_t));
    auto inner_t = st_t->fields()[2].type;
    t.cols[c++].push_back(maybe(
        Value::Struct(st_t,
                      {maybe(Value::Int(r % 77), DataType::Int()),
                       maybe(Value::String("b" + std::to_string(i)), DataType::String()),
                       maybe(Value::Struct(inner_t, {Value::Long(i * 3)}), inner_t)}),
        st_t));
    std::vector<Value> outer;
    for (int k = 0; k < static_cast<int>(rng() % 3); ++k) {
      std::vector<Value> tags;
      for (int m = 0; m < static_cast<int>(rng() % 3); ++m)
        tags.push_back(Value::String("t" + std::to_string(m)));
      outer.push_back(
          with_nulls && rng() % 5 == 0
              ? Value::Null(elem_t)
              : Value::Struct(elem_t, {Value::ArrayOf(elem_t->fields()[0].type, tags),
                                       Value::Double(k + 0.5)}));
    }
    t.cols[c++].push_back(maybe(Value::ArrayOf(nested_t, outer), nested_t));
    std::vector<Value> lol;
    for (int k = 0; k < static_cast<int>(rng() % 3); ++k) {
      std::vector<Value> xs;
      for (int m = 0; m < static_cast<int>(rng() % 3); ++m)
        xs.push_back(Value::Long(k * 10 + m));
      lol.push_back(Value::ArrayOf(lol_t->element_type(), xs));
    }
    t.cols[c++].push_back(maybe(Value::ArrayOf(lol_t, lol), lol_t));
    t.cols[c++].push_back(Value::Long(i));
  }
  return t;
}

int Write(const std::string& dir, const std::string& name, const Table& t,
          pq::WriterOptions opt, int64_t batch_rows) {
  auto fs = io::LocalFileSystem::Get();
  auto file = fs->Create(io::JoinPath(dir, name + ".parquet"));
  if (!file.ok()) {
    std::cerr << file.status().ToString() << "\n";
    return 1;
  }
  Schema schema(t.fields);
  auto w = pq::ParquetWriter::Make(std::move(*file), schema, opt);
  if (!w.ok()) {
    std::cerr << w.status().ToString() << "\n";
    return 1;
  }
  for (int64_t start = 0; start < t.rows(); start += batch_rows) {
    int64_t end = std::min(t.rows(), start + batch_rows);
    std::vector<ColumnPtr> cols;
    for (size_t c = 0; c < t.fields.size(); ++c) {
      std::vector<Value> part(t.cols[c].begin() + start, t.cols[c].begin() + end);
      cols.push_back(ColumnFromValues(t.fields[c].type, part));
    }
    Status st = (*w)->Write(
        Batch::Make(std::make_shared<const Schema>(t.fields), cols, end - start));
    if (!st.ok()) {
      std::cerr << st.ToString() << "\n";
      return 1;
    }
  }
  Status st = (*w)->Close();
  if (!st.ok()) {
    std::cerr << st.ToString() << "\n";
    return 1;
  }
  std::string json = "{\"columns\": [";
  for (size_t c = 0; c < t.fields.size(); ++c)
    json += (c ? ", " : "") + JsonString(t.fields[c].name);
  json += "],\n\"rows\": [\n";
  for (int64_t r = 0; r < t.rows(); ++r) {
    json += r ? ",\n[" : "[";
    for (size_t c = 0; c < t.fields.size(); ++c)
      json += (c ? ", " : "") + Expected(t.cols[c][r]);
    json += "]";
  }
  json += "\n]}\n";
  st = fs->WriteAtomic(io::JoinPath(dir, name + ".expected.json"), json);
  if (!st.ok()) {
    std::cerr << st.ToString() << "\n";
    return 1;
  }
  std::cout << "wrote " << name << ".parquet (" << t.rows() << " rows)\n";
  return 0;
}

}  // namespace

int Dump(const std::string& file) {
  auto r = pq::ParquetFileReader::Open(io::LocalFileSystem::Get(), file);
  if (!r.ok()) {
    std::cerr << r.status().ToString() << "\n";
    return 1;
  }
  auto batches = (*r)->ReadAll();
  if (!batches.ok()) {
    std::cerr << batches.status().ToString() << "\n";
    return 1;
  }
  const Schema& schema = *(*r)->schema();
  std::string json = "{\"columns\": [";
  for (int c = 0; c < schema.num_fields(); ++c)
    json += (c ? ", " : "") + JsonString(schema.field(c).name);
  json += "],\n\"types\": [";
  for (int c = 0; c < schema.num_fields(); ++c)
    json += (c ? ", " : "") + JsonString(schema.field(c).type->SimpleString());
  json += "],\n\"rows\": [\n";
  bool first = true;
  for (const auto& b : *batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      json += first ? "[" : ",\n[";
      first = false;
      for (int c = 0; c < b->num_columns(); ++c)
        json += (c ? ", " : "") + Expected(b->column(c)->GetValue(i));
      json += "]";
    }
  }
  std::cout << json << "\n]}\n";
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--dump") return Dump(argv[2]);
  if (argc != 2) {
    std::cerr << "usage: write_parquet_files <output dir>\n";
    return 2;
  }
  std::string dir = argv[1];
  int rc = 0;
  const std::pair<const char*, pq::Codec> codecs[] = {
      {"uncompressed", pq::Codec::kUncompressed},
      {"snappy", pq::Codec::kSnappy},
      {"gzip", pq::Codec::kGzip},
      {"zstd", pq::Codec::kZstd},
      {"lz4_raw", pq::Codec::kLz4Raw}};
  uint32_t seed = 1;
  for (const auto& [name, codec] : codecs) {
    pq::WriterOptions opt;
    opt.codec = codec;
    opt.page_bytes = 8192;  // several pages per chunk
    rc |= Write(dir, std::string("all_types_") + name, AllTypes(1500, seed++, true), opt,
                400);
  }
  pq::WriterOptions plain;
  plain.enable_dictionary = false;
  plain.row_group_rows = 700;  // several row groups
  rc |= Write(dir, "plain_row_groups", AllTypes(2000, 42, true), plain, 512);
  pq::WriterOptions fallback;
  fallback.dictionary_page_bytes = 2048;  // most chunks fall back to PLAIN
  rc |= Write(dir, "dictionary_fallback", AllTypes(1000, 7, false), fallback, 1000);
  rc |= Write(dir, "no_nulls", AllTypes(300, 9, false), {}, 300);
  return rc;
}
