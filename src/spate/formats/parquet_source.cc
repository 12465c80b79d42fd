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

#include "spate/columnar/builder.h"

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

// Spark's partition value type inference (integer, long, double, else string).
DataTypePtr InferPartitionType(const std::vector<std::string>& raw) {
  bool is_int = true, is_long = true, is_double = true, any = false;
  for (const auto& s : raw) {
    if (s == "__HIVE_DEFAULT_PARTITION__") continue;
    any = true;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 10);
    bool integral = !s.empty() && end && *end == '\0' && errno == 0;
    if (!integral) is_int = is_long = false;
    if (integral && (v < INT32_MIN || v > INT32_MAX)) is_int = false;
    end = nullptr;
    std::strtod(s.c_str(), &end);
    if (s.empty() || !end || *end != '\0') is_double = false;
  }
  if (!any) return DataType::String();
  if (is_int) return DataType::Int();
  if (is_long) return DataType::Long();
  if (is_double) return DataType::Double();
  return DataType::String();
}

Value PartitionValue(const std::string& raw, const DataTypePtr& t) {
  if (raw == "__HIVE_DEFAULT_PARTITION__") return Value::Null(t);
  std::string s = UnescapePathName(raw);
  switch (t->id()) {
    case TypeId::kInt:
      return Value::Int(static_cast<int32_t>(std::strtoll(s.c_str(), nullptr, 10)));
    case TypeId::kLong:
      return Value::Long(std::strtoll(s.c_str(), nullptr, 10));
    case TypeId::kDouble:
      return Value::Double(std::strtod(s.c_str(), nullptr));
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
      out.push_back(
          static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
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
    io::FileSystemPtr fs, std::vector<std::string> paths, SchemaPtr user_schema,
    bool merge_schema) {
  std::shared_ptr<ParquetDataSource> src(new ParquetDataSource());
  src->paths_ = paths;
  std::vector<Candidate> cands;
  for (const auto& p : paths) {
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
    part_types.push_back(InferPartitionType(raw));
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
          PartitionValue(cands[fi].partitions[i].second, part_types[i]));
    int groups = f.reader->num_row_groups();
    for (int rg = 0; rg < groups; ++rg)
      src->splits_.push_back({static_cast<int>(fi), rg});
  }
  return src;
}

Result<std::unique_ptr<BatchReader>> ParquetDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  if (split < 0 || split >= num_splits())
    return MakeEmptyReader();
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
