// Copyright spate authors.
#include "spate/formats/parquet_source.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/types/calendar.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate::formats {

static bool IsHidden(const std::string& name) {
  return !name.empty() && (name[0] == '_' || name[0] == '.');
}

// Lists the data files under `root` with the key=value folders between root and each.
Status ListFiles(io::FileSystem& fs, const std::string& root,
                 std::vector<Candidate>* out) {
  SPATE_ASSIGN_OR_RETURN(auto entries, fs.List(root, true));
  for (const auto& e : entries) {
    if (e.is_directory) continue;
    std::string rel = e.path.substr(root.size() + (root.back() == '/' ? 0 : 1));
    Candidate c;
    c.path = e.path;
    c.size = e.size;
    bool hidden = false;
    size_t pos = 0;
    while (true) {
      size_t slash = rel.find('/', pos);
      std::string part =
          rel.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
      if (IsHidden(part)) hidden = true;
      if (slash == std::string::npos) break;
      size_t eq = part.find('=');
      if (eq != std::string::npos && eq > 0)
        c.partitions.emplace_back(part.substr(0, eq), part.substr(eq + 1));
      pos = slash + 1;
    }
    if (!hidden) out->push_back(std::move(c));
  }
  return Status::OK();
}

namespace {

constexpr std::string_view kDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

bool AllDigits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Java's Long.parseLong: an optional sign and decimal digits, nothing else.
std::optional<int64_t> JavaLong(std::string_view s) {
  std::string_view d = s;
  if (!d.empty() && (d[0] == '+' || d[0] == '-')) d.remove_prefix(1);
  if (!AllDigits(d)) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const std::string str(s);
  long long v = std::strtoll(str.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(v);
}

// java.math.BigDecimal's string form with a scale <= 0 (no fraction once the exponent is
// applied: "12", "1e3", "1.5e1"): its integer value's digits and sign; precision <= 38.
struct IntegralDecimal {
  bool negative = false;
  std::string digits;  // no leading zeros ("0" for zero)
};
std::optional<IntegralDecimal> IntegralBigDecimal(std::string_view s) {
  IntegralDecimal out;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) out.negative = s[i++] == '-';
  std::string int_part, frac;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    int_part += s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) frac += s[i++];
  }
  if (int_part.empty() && frac.empty()) return std::nullopt;
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    auto e = JavaLong(s.substr(i + 1));
    if (!e || *e > 1000 || *e < -1000) return std::nullopt;
    exponent = *e;
    i = s.size();
  }
  if (i != s.size()) return std::nullopt;
  const int64_t scale = static_cast<int64_t>(frac.size()) - exponent;
  if (scale > 0) return std::nullopt;
  std::string digits = int_part + frac + std::string(static_cast<size_t>(-scale), '0');
  size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  if (digits.size() > 38) return std::nullopt;
  out.digits = std::move(digits);
  return out;
}

// Java's Double.parseDouble: surrounding whitespace (chars <= ' '), a sign, "NaN",
// "Infinity", decimal or hexadecimal (with a binary exponent) digits, an f/F/d/D suffix.
std::optional<double> JavaDouble(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "NaN") return std::nan("");
  if (body == "Infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (!body.empty() && std::strchr("fFdD", body.back())) body.remove_suffix(1);
  const bool hex =
      body.size() > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  size_t i = hex ? 2 : 0, mantissa = 0;
  auto is_digit = [&](char c) {
    return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0
               : std::isdigit(static_cast<unsigned char>(c)) != 0;
  };
  while (i < body.size() && is_digit(body[i])) ++i, ++mantissa;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && is_digit(body[i])) ++i, ++mantissa;
  }
  if (mantissa == 0) return std::nullopt;
  const char exp_char = hex ? 'p' : 'e';
  if (i < body.size() && std::tolower(static_cast<unsigned char>(body[i])) == exp_char) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    if (!AllDigits(body.substr(i))) return std::nullopt;
    i = body.size();
  } else if (hex) {
    return std::nullopt;  // Java requires the binary exponent of a hexadecimal float
  }
  if (i != body.size()) return std::nullopt;
  const std::string text = (negative ? "-" : "") + std::string(body);
  return std::strtod(text.c_str(), nullptr);
}

int Num(std::string_view s, size_t at, size_t n) {
  int v = 0;
  for (size_t k = 0; k < n; ++k) v = v * 10 + (s[at + k] - '0');
  return v;
}

bool DigitsAt(std::string_view s, size_t at, size_t n) {
  return at + n <= s.size() && AllDigits(s.substr(at, n));
}

// "yyyy-MM-dd" (strict: a real calendar day): days since the epoch.
std::optional<int32_t> PartitionDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !DigitsAt(s, 0, 4) ||
      !DigitsAt(s, 5, 2) || !DigitsAt(s, 8, 2))
    return std::nullopt;
  const int y = Num(s, 0, 4), m = Num(s, 5, 2), d = Num(s, 8, 2);
  if (!ValidDate(y, m, d)) return std::nullopt;
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

// "yyyy-MM-dd HH:mm:ss[.S]" (Spark's pattern: at most one fraction digit): the wall-clock
// time as µs since the epoch (no zone applied).
std::optional<int64_t> PartitionLocalTimestamp(std::string_view s) {
  if (s.size() < 19 || s[10] != ' ' || s[13] != ':' || s[16] != ':') return std::nullopt;
  auto day = PartitionDate(s.substr(0, 10));
  if (!day || !DigitsAt(s, 11, 2) || !DigitsAt(s, 14, 2) || !DigitsAt(s, 17, 2))
    return std::nullopt;
  const int h = Num(s, 11, 2), mi = Num(s, 14, 2), sec = Num(s, 17, 2);
  if (h > 23 || mi > 59 || sec > 59) return std::nullopt;
  int64_t micros = 0;
  if (s.size() > 19) {
    if (s.size() != 21 || s[19] != '.' || !DigitsAt(s, 20, 1)) return std::nullopt;
    micros = Num(s, 20, 1) * 100000LL;
  }
  return (*day * 86400LL + h * 3600LL + mi * 60LL + sec) * 1000000LL + micros;
}

// The type of one raw value, in Spark's order: INT, BIGINT, DECIMAL(p, 0), DOUBLE, DATE,
// TIMESTAMP, else STRING; VOID for the default (NULL) partition.
DataTypePtr InferOne(const std::string& s) {
  if (s == kDefaultPartition) return DataType::Null();
  if (auto v = JavaLong(s)) {
    return *v >= INT32_MIN && *v <= INT32_MAX ? DataType::Int() : DataType::Long();
  }
  if (auto d = IntegralBigDecimal(s))
    return DataType::Decimal(static_cast<int>(d->digits.size()), 0);
  if (JavaDouble(s)) return DataType::Double();
  if (PartitionDate(s)) return DataType::Date();
  if (PartitionLocalTimestamp(s)) return DataType::Timestamp();
  return DataType::String();
}

int IntegralPrecision(const DataType& t) {
  switch (t.id()) {
    case TypeId::kInt:
      return 10;
    case TypeId::kLong:
      return 20;
    case TypeId::kDecimal:
      return t.precision();
    default:
      return -1;
  }
}

// Two values' types merged as Spark's partition discovery does: numeric widening (INT <
// BIGINT < DECIMAL(p, 0) by precision; INT/BIGINT with DOUBLE is DOUBLE), DATE with
// TIMESTAMP is TIMESTAMP, DECIMAL with DOUBLE and anything else is STRING.
DataTypePtr Wider(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->id() == TypeId::kNull) return b;
  if (b->id() == TypeId::kNull || a->SameType(*b)) return a;
  const int pa = IntegralPrecision(*a), pb = IntegralPrecision(*b);
  if (pa > 0 && pb > 0) {
    if (a->id() == TypeId::kDecimal || b->id() == TypeId::kDecimal)
      return DataType::Decimal(std::max(pa, pb), 0);
    return DataType::Long();
  }
  const bool da = a->id() == TypeId::kDouble, db = b->id() == TypeId::kDouble;
  if ((da && pb > 0 && b->id() != TypeId::kDecimal) ||
      (db && pa > 0 && a->id() != TypeId::kDecimal))
    return DataType::Double();
  auto datetime = [](const DataType& t) {
    return t.id() == TypeId::kDate || t.id() == TypeId::kTimestamp;
  };
  if (datetime(*a) && datetime(*b)) return DataType::Timestamp();
  return DataType::String();
}

}  // namespace

DataTypePtr InferPartitionType(const std::vector<std::string>& raw, bool infer_types) {
  if (!infer_types) return DataType::String();
  DataTypePtr t = DataType::Null();
  for (const auto& s : raw) t = Wider(t, InferOne(s));
  return t;
}

Value PartitionValue(const std::string& raw, const DataTypePtr& t,
                     std::string_view time_zone) {
  if (raw == kDefaultPartition) return Value::Null(t);
  std::string s = UnescapePathName(raw);
  switch (t->id()) {
    case TypeId::kInt:
      return Value::Int(static_cast<int32_t>(JavaLong(s).value_or(0)));
    case TypeId::kLong:
      return Value::Long(JavaLong(s).value_or(0));
    case TypeId::kDecimal: {
      auto d = IntegralBigDecimal(s);
      if (!d || t->scale() != 0) return Value::String(s);
      int128_t v = 0;
      for (char c : d->digits) v = v * 10 + (c - '0');
      return Value::Decimal(d->negative ? -v : v, t->precision(), 0);
    }
    case TypeId::kDouble:
      return Value::Double(JavaDouble(s).value_or(0));
    case TypeId::kDate:
      return Value::Date(PartitionDate(s).value_or(0));
    case TypeId::kTimestamp: {
      std::optional<int64_t> local = PartitionLocalTimestamp(s);
      if (!local) {
        if (auto day = PartitionDate(s)) local = *day * 86400000000LL;
      }
      const TimeZone* zone = TimeZone::Lookup(time_zone);
      return Value::Timestamp(zone ? zone->LocalToUtcMicros(local.value_or(0))
                                   : local.value_or(0));
    }
    default:
      return Value::String(s);
  }
}

namespace {

// -1, 0, 1 for values of the same type; nullopt when not comparable here.
std::optional<int> CompareValues(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null() || !a.type()->SameType(*b.type())) return std::nullopt;
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.type()->id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      return std::nullopt;  // NaN ordering makes float statistics unsafe for pruning
    case TypeId::kDecimal:
      return sign(a.i128(), b.i128());
    case TypeId::kString:
    case TypeId::kBinary:
      return sign(a.str(), b.str());
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return sign(a.i64(), b.i64());
    default:
      return std::nullopt;
  }
}

// Whether rows with values in [min, max] (plus nulls) may satisfy `p`.
bool MayMatch(const ScanPredicate& p, const parquet::ColumnStats& st, int64_t rows) {
  using Op = ScanPredicate::Op;
  if (p.op == Op::kIsNull) return !(st.has_null_count && st.null_count == 0);
  if (p.op == Op::kIsNotNull) return !(st.has_null_count && st.null_count >= rows);
  if (st.has_null_count && st.null_count >= rows && rows > 0) return false;  // all NULL
  if (!st.has_min_max || p.literal.is_null()) return true;
  auto lo = CompareValues(p.literal, st.min), hi = CompareValues(p.literal, st.max);
  if (!lo || !hi) return true;
  switch (p.op) {
    case Op::kEq:
      return *lo >= 0 && *hi <= 0;
    case Op::kLt:
      return *lo > 0;  // some value < literal  <=>  min < literal
    case Op::kLe:
      return *lo >= 0;
    case Op::kGt:
      return *hi < 0;  // max > literal
    case Op::kGe:
      return *hi <= 0;
    default:
      return true;
  }
}

bool ValueMatches(const ScanPredicate& p, const Value& v) {
  using Op = ScanPredicate::Op;
  if (p.op == Op::kIsNull) return v.is_null();
  if (p.op == Op::kIsNotNull) return !v.is_null();
  if (v.is_null()) return false;
  auto c = CompareValues(v, p.literal);
  if (!c) return true;
  switch (p.op) {
    case Op::kEq:
      return *c == 0;
    case Op::kLt:
      return *c < 0;
    case Op::kLe:
      return *c <= 0;
    case Op::kGt:
      return *c > 0;
    case Op::kGe:
      return *c >= 0;
    default:
      return true;
  }
}

class RowGroupReader final : public BatchReader {
 public:
  RowGroupReader(const ParquetDataSource::File* file, int row_group, ScanSpec spec,
                 SchemaPtr out_schema, int num_data_columns)
      : file_(file),
        rg_(row_group),
        spec_(std::move(spec)),
        schema_(std::move(out_schema)),
        num_data_columns_(num_data_columns) {}

  Result<BatchPtr> Next() override {
    if (done_) return BatchPtr();
    done_ = true;
    std::vector<int> file_cols;
    for (int c : spec_.columns) {
      if (c < num_data_columns_ && file_->column_map[c] >= 0)
        file_cols.push_back(file_->column_map[c]);
    }
    int64_t rows = rg_ >= 0 ? file_->reader->row_group_rows(rg_) : 0;
    BatchPtr data;
    if (rg_ >= 0 && !file_cols.empty()) {
      SPATE_ASSIGN_OR_RETURN(data, file_->reader->ReadRowGroup(rg_, file_cols));
    }
    std::vector<ColumnPtr> cols;
    int k = 0;
    for (size_t i = 0; i < spec_.columns.size(); ++i) {
      int c = spec_.columns[i];
      const DataTypePtr& type = schema_->field(static_cast<int>(i)).type;
      if (c >= num_data_columns_) {
        cols.push_back(
            MakeConstantColumn(file_->partition_values[c - num_data_columns_], rows));
      } else if (file_->column_map[c] < 0) {
        cols.push_back(Column::MakeNull(type, rows));
      } else {
        ColumnPtr col = data->column(k++);
        if (!col->type()->Equals(*type)) {
          // Same logical type with other nullability flags: relabel without copying.
          col = std::make_shared<const Column>(type, col->length(), col->null_count(),
                                               col->validity(), col->values(),
                                               col->data(), col->children());
        }
        cols.push_back(std::move(col));
      }
    }
    return Batch::Make(schema_, std::move(cols), rows);
  }

 private:
  const ParquetDataSource::File* file_;
  int rg_;
  ScanSpec spec_;
  SchemaPtr schema_;
  int num_data_columns_;
  bool done_ = false;
};

}  // namespace

std::string UnescapePathName(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() &&
        std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(ParseInt32(s.substr(i + 1, 2), 16).value_or(0)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string EscapePathName(std::string_view s) {
  static const std::string kSpecial = "\"#%'*/:=?\\\x7f{[]^";
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || kSpecial.find(c) != std::string::npos) {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", u);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<std::shared_ptr<ParquetDataSource>> ParquetDataSource::Make(
    const io::FileSystemPtr& fs, std::vector<std::string> paths,
    const SchemaPtr& user_schema, bool merge_schema, bool infer_partition_types,
    const std::string& time_zone) {
  std::shared_ptr<ParquetDataSource> src(new ParquetDataSource());
  src->paths_ = std::move(paths);
  std::vector<Candidate> cands;
  for (const auto& p : src->paths_) {
    auto info = fs->Stat(p);
    if (!info.ok()) {
      if (info.status().code() == StatusCode::kNotFound) {
        return Status::Error("PATH_NOT_FOUND", {{"path", "file:" + p}});
      }
      return info.status();
    }
    if (info->is_directory) {
      SPATE_RETURN_IF_ERROR(ListFiles(*fs, p, &cands));
    } else {
      cands.push_back(Candidate{p, {}, info->size});
    }
  }
  // Partition columns: the keys of the first file's folders (all files must agree).
  std::vector<std::string> keys;
  if (!cands.empty()) {
    for (const auto& [k, v] : cands[0].partitions) keys.push_back(k);
  }
  for (const auto& c : cands) {
    bool same = c.partitions.size() == keys.size();
    for (size_t i = 0; same && i < keys.size(); ++i)
      same = c.partitions[i].first == keys[i];
    if (!same) {
      return Status::Invalid("Conflicting directory structures detected: " + c.path +
                             " does not have the partition columns of " + cands[0].path);
    }
  }
  // Open every file (reads the footers).
  for (const auto& c : cands) {
    File f;
    f.path = c.path;
    src->total_bytes_ += c.size;
    SPATE_ASSIGN_OR_RETURN(f.reader, parquet::ParquetFileReader::Open(fs, c.path));
    src->files_.push_back(std::move(f));
  }
  if (src->files_.empty() && !user_schema) {
    return Status::Error("UNABLE_TO_INFER_SCHEMA", {{"format", "Parquet"}});
  }
  // Partition column types.
  std::vector<DataTypePtr> part_types;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::string> raw;
    for (const auto& c : cands) raw.push_back(UnescapePathName(c.partitions[i].second));
    part_types.push_back(InferPartitionType(raw, infer_partition_types));
  }
  // Data schema: the user's (minus partition columns) or the first file's.
  std::vector<Field> data_fields;
  if (user_schema) {
    for (const auto& f : user_schema->fields()) {
      bool is_part = std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
        return EqualsIgnoreCase(k, f.name);
      });
      if (!is_part) data_fields.push_back(f);
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      int idx = user_schema->FieldIndex(keys[i]);
      if (idx >= 0) part_types[i] = user_schema->field(idx).type;
    }
  } else {
    data_fields = src->files_[0].reader->schema()->fields();
    for (size_t fi = 1; merge_schema && fi < src->files_.size(); ++fi) {
      for (const auto& f : src->files_[fi].reader->schema()->fields()) {
        auto it = std::find_if(
            data_fields.begin(), data_fields.end(),
            [&](const Field& d) { return EqualsIgnoreCase(d.name, f.name); });
        if (it == data_fields.end()) {
          data_fields.push_back(f);
        } else if (!it->type->SameType(*f.type)) {
          return Status::Error("CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE",
                               {{"left", "\"" + it->type->Sql() + "\""},
                                {"right", "\"" + f.type->Sql() + "\""}});
        }
      }
    }
  }
  src->num_data_columns_ = static_cast<int>(data_fields.size());
  std::vector<Field> all = data_fields;
  for (size_t i = 0; i < keys.size(); ++i)
    all.push_back(Field{keys[i], part_types[i], true});
  src->schema_ = std::make_shared<const Schema>(std::move(all));
  for (size_t fi = 0; fi < src->files_.size(); ++fi) {
    File& f = src->files_[fi];
    const Schema& fs_schema = *f.reader->schema();
    for (const auto& df : data_fields) {
      int idx = fs_schema.FieldIndex(df.name);
      if (idx >= 0 && !fs_schema.field(idx).type->SameType(*df.type)) {
        return Status::Error("FAILED_READ_FILE.PARQUET_COLUMN_DATA_TYPE_MISMATCH",
                             {{"path", f.path},
                              {"column", "[" + df.name + "]"},
                              {"expectedType", df.type->SimpleString()},
                              {"actualType", fs_schema.field(idx).type->SimpleString()}});
      }
      f.column_map.push_back(idx);
    }
    for (size_t i = 0; i < keys.size(); ++i)
      f.partition_values.push_back(
          PartitionValue(cands[fi].partitions[i].second, part_types[i], time_zone));
    int groups = f.reader->num_row_groups();
    for (int rg = 0; rg < groups; ++rg)
      src->splits_.push_back({static_cast<int>(fi), rg});
  }
  return src;
}

Result<std::unique_ptr<BatchReader>> ParquetDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  if (split < 0 || split >= num_splits()) return MakeEmptyReader();
  const Split& s = splits_[split];
  const File& f = files_[s.file];
  int64_t rows = f.reader->row_group_rows(s.row_group);
  for (const auto& p : spec.predicates) {
    if (p.column < 0 || p.column >= schema_->num_fields()) continue;
    bool may = true;
    if (p.column >= num_data_columns_) {
      may = ValueMatches(p, f.partition_values[p.column - num_data_columns_]);
    } else if (f.column_map[p.column] >= 0) {
      may = MayMatch(p, f.reader->Stats(s.row_group, f.column_map[p.column]), rows);
    } else {
      may = p.op == ScanPredicate::Op::kIsNull;  // a missing column is all NULL
    }
    if (!may) {
      skipped_->fetch_add(1);
      return MakeEmptyReader();
    }
  }
  std::vector<Field> fields;
  for (int c : spec.columns) fields.push_back(schema_->field(c));
  return std::unique_ptr<BatchReader>(std::make_unique<RowGroupReader>(
      &f, s.row_group, spec, std::make_shared<const Schema>(std::move(fields)),
      num_data_columns_));
}

std::string ParquetDataSource::Describe() const {
  std::string loc;
  for (size_t i = 0; i < paths_.size(); ++i) loc += (i ? ", " : "") + paths_[i];
  return "FileScan parquet Location: [" + loc + "], " + std::to_string(files_.size()) +
         " files, " + std::to_string(splits_.size()) + " row groups";
}

}  // namespace spate::formats
