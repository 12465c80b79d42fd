// Copyright spate authors.
#include "spate/table/delta_source.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/compute/cast.h"
#include "spate/formats/parquet/reader.h"
#include "spate/table/deletion_vector.h"
#include "spate/types/timezone.h"

namespace spate::table {

namespace {

EvalContext ContextFor(const std::string& tz) {
  EvalContext ctx;
  ctx.ansi = false;
  ctx.time_zone_id = tz;
  ctx.time_zone = TimeZone::Lookup(tz);
  return ctx;
}

// A partition value string (Delta's serialization) as a value of `t`.
Value ParsePartitionValue(const std::optional<std::string>& raw, const DataTypePtr& t,
                          const EvalContext& ctx) {
  if (!raw) return Value::Null(t);
  if (t->id() == TypeId::kString) return Value::String(*raw);
  if (raw->empty()) return Value::Null(t);
  if (t->id() == TypeId::kBinary) return Value::Binary(*raw);
  auto v = CastValue(Value::String(*raw), t, CastMode::kTry, ctx);
  if (!v.ok()) return Value::Null(t);
  return *v;
}

// A statistic from the stats JSON as a value of `t` (nullopt when not usable).
std::optional<Value> StatValue(const Json& j, const DataTypePtr& t, bool is_max,
                               const EvalContext& utc) {
  switch (t->id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal: {
      if (!j.is_number()) return std::nullopt;
      auto v = CastValue(Value::String(j.text()), t, CastMode::kTry, utc);
      if (!v.ok() || v->is_null()) return std::nullopt;
      return *v;
    }
    case TypeId::kString:
      // Writers truncate string statistics to a 32-character prefix. A prefix is still
      // no greater than the values it starts, so a minimum is always a lower bound; a
      // truncated maximum is not an upper bound (delta-spark appends a tie-breaker
      // character, others may not), so maxima of 32 characters or more are not used.
      if (!j.is_string() || (is_max && j.string_value().size() >= 32))
        return std::nullopt;
      return Value::String(j.string_value());
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      if (!j.is_string()) return std::nullopt;
      auto v = CastValue(Value::String(j.string_value()), t, CastMode::kTry, utc);
      if (!v.ok() || v->is_null()) return std::nullopt;
      return *v;
    }
    default:
      return std::nullopt;
  }
}

std::optional<int> Compare(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null() || a.type()->id() != b.type()->id()) return std::nullopt;
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.type()->id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (std::isnan(a.f64()) || std::isnan(b.f64())) return std::nullopt;
      return sign(a.f64(), b.f64());
    case TypeId::kDecimal:
      if (a.type()->scale() != b.type()->scale()) return std::nullopt;
      return sign(a.i128(), b.i128());
    case TypeId::kString:
    case TypeId::kBinary:
      return sign(a.str(), b.str());
    case TypeId::kStruct:
    case TypeId::kArray:
    case TypeId::kMap:
      return std::nullopt;
    default:
      return sign(a.i64(), b.i64());
  }
}

// The physical name of a field of a column-mapped schema (its logical name without one).
std::string PhysicalName(const Json& field) {
  if (const Json* md = field.Find("metadata"); md && md->is_object()) {
    if (auto p = md->GetString("delta.columnMapping.physicalName")) return *p;
  }
  return field.GetString("name").value_or("");
}

// `logical` with every struct field renamed to its physical name, from the schemaString's
// JSON for the same type.
DataTypePtr PhysicalType(const DataTypePtr& logical, const Json* json) {
  if (!json || !json->is_object()) return logical;
  switch (logical->id()) {
    case TypeId::kStruct: {
      const Json* fields = json->Find("fields");
      std::vector<Field> out;
      for (size_t i = 0; i < logical->fields().size(); ++i) {
        Field f = logical->fields()[i];
        const Json* fj = fields && fields->is_array() && i < fields->items().size()
                             ? &fields->items()[i]
                             : nullptr;
        if (fj) {
          f.name = PhysicalName(*fj);
          f.type = PhysicalType(f.type, fj->Find("type"));
        }
        out.push_back(std::move(f));
      }
      return DataType::Struct(std::move(out));
    }
    case TypeId::kArray:
      return DataType::Array(
          PhysicalType(logical->element_type(), json->Find("elementType")),
          logical->contains_null());
    case TypeId::kMap:
      return DataType::Map(PhysicalType(logical->key_type(), json->Find("keyType")),
                           PhysicalType(logical->value_type(), json->Find("valueType")),
                           logical->value_contains_null());
    default:
      return logical;
  }
}

// The same column data under the logical type (struct field names differ only).
ColumnPtr Relabel(const ColumnPtr& c, const DataTypePtr& logical) {
  switch (logical->id()) {
    case TypeId::kStruct: {
      std::vector<ColumnPtr> kids;
      for (size_t i = 0; i < c->children().size(); ++i) {
        kids.push_back(
            i < logical->fields().size()
                ? Relabel(c->child(static_cast<int>(i)), logical->fields()[i].type)
                : c->child(static_cast<int>(i)));
      }
      return std::make_shared<Column>(logical, c->length(), c->null_count(),
                                      c->validity(), c->values(), c->data(),
                                      std::move(kids));
    }
    case TypeId::kArray:
      return std::make_shared<Column>(
          logical, c->length(), c->null_count(), c->validity(), c->values(), c->data(),
          std::vector<ColumnPtr>{Relabel(c->child(0), logical->element_type())});
    case TypeId::kMap: {
      auto entry = DataType::Struct(
          {Field{"key", logical->key_type(), false, ""},
           Field{"value", logical->value_type(), logical->value_contains_null(), ""}});
      return std::make_shared<Column>(
          logical, c->length(), c->null_count(), c->validity(), c->values(), c->data(),
          std::vector<ColumnPtr>{Relabel(c->child(0), entry)});
    }
    default:
      return c;
  }
}

class DeltaFileReader final : public BatchReader {
 public:
  DeltaFileReader(std::shared_ptr<formats::parquet::ParquetFileReader> reader,
                  std::vector<int> file_cols, std::vector<int> out_source,
                  SchemaPtr out_schema, std::vector<Value> constants, std::string path,
                  std::vector<uint64_t> deleted, bool relabel,
                  std::vector<DataTypePtr> widen, int row_index_out)
      : relabel_(relabel),
        row_index_out_(row_index_out),
        widen_(std::move(widen)),
        reader_(std::move(reader)),
        file_cols_(std::move(file_cols)),
        out_source_(std::move(out_source)),
        out_schema_(std::move(out_schema)),
        constants_(std::move(constants)),
        path_(std::move(path)),
        deleted_(std::move(deleted)) {}

  Result<BatchPtr> Next() override {
    while (rg_ < reader_->num_row_groups()) {
      int rg = rg_++;
      const int64_t n = reader_->row_group_rows(rg);
      const uint64_t base = static_cast<uint64_t>(row_base_);
      row_base_ += n;
      if (n == 0) continue;
      // Rows of this row group that a deletion vector removes.
      std::vector<int32_t> keep;
      bool any_deleted = false;
      if (next_deleted_ < deleted_.size() && deleted_[next_deleted_] < base + n) {
        any_deleted = true;
        keep.reserve(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          const uint64_t row = base + static_cast<uint64_t>(i);
          while (next_deleted_ < deleted_.size() && deleted_[next_deleted_] < row)
            ++next_deleted_;
          if (next_deleted_ < deleted_.size() && deleted_[next_deleted_] == row) continue;
          keep.push_back(static_cast<int32_t>(i));
        }
        if (keep.empty()) continue;
      }
      BatchPtr b;
      int64_t rows = n;
      if (!file_cols_.empty()) {
        SPATE_ASSIGN_OR_RETURN(b, reader_->ReadRowGroup(rg, file_cols_));
        if (any_deleted)
          b = TakeBatch(*b, keep.data(), static_cast<int64_t>(keep.size()));
        rows = b->num_rows();
      } else if (any_deleted) {
        rows = static_cast<int64_t>(keep.size());
      }
      std::vector<ColumnPtr> cols;
      for (size_t i = 0; i < out_source_.size(); ++i) {
        int src = out_source_[i];
        if (static_cast<int>(i) == row_index_out_) {
          // Each row's position in the file.
          FixedWidthBuilder<int64_t> pos(DataType::Long(), rows);
          for (int64_t r = 0; r < rows; ++r) {
            pos.Append(static_cast<int64_t>(base) +
                       (any_deleted ? keep[static_cast<size_t>(r)] : r));
          }
          cols.push_back(pos.Finish());
        } else if (src < 0) {
          cols.push_back(MakeConstantColumn(constants_[i], rows));
        } else if (widen_[i]) {
          // Type widening: the file holds a narrower type than the table (int -> long,
          // ...).
          EvalContext ctx;
          auto cast = CastColumn(b->column(src), widen_[i], CastMode::kLegacy, ctx);
          if (!cast.ok()) {
            return Status(StatusCode::kDataCorruption,
                          "Delta data file " + path_ + ": " + cast.status().message());
          }
          cols.push_back(*cast);
        } else if (relabel_) {
          cols.push_back(
              Relabel(b->column(src), out_schema_->field(static_cast<int>(i)).type));
        } else {
          cols.push_back(b->column(src));
        }
      }
      return Batch::Make(out_schema_, std::move(cols), rows);
    }
    return BatchPtr(nullptr);
  }

 private:
  bool relabel_;
  int row_index_out_;  // the output column of row positions (-1: none)
  std::vector<DataTypePtr>
      widen_;  // per output column: cast the file column to this type
  std::shared_ptr<formats::parquet::ParquetFileReader> reader_;
  std::vector<int> file_cols_;
  std::vector<int> out_source_;  // index into the file batch, or -1: constant
  SchemaPtr out_schema_;
  std::vector<Value> constants_;
  std::string path_;
  std::vector<uint64_t> deleted_;  // sorted row positions removed by a deletion vector
  size_t next_deleted_ = 0;
  int64_t row_base_ = 0;
  int rg_ = 0;
};

}  // namespace

Result<std::shared_ptr<DeltaDataSource>> DeltaDataSource::Make(io::FileSystemPtr fs,
                                                               SnapshotPtr snapshot,
                                                               std::string time_zone_id) {
  std::vector<AddFile> files = snapshot->files();
  return MakeForFiles(std::move(fs), std::move(snapshot), std::move(files),
                      std::move(time_zone_id));
}

Result<std::shared_ptr<DeltaDataSource>> DeltaDataSource::MakeForFiles(
    io::FileSystemPtr fs, SnapshotPtr snapshot, std::vector<AddFile> files,
    std::string time_zone_id, const std::vector<Field>& extra_columns) {
  std::shared_ptr<DeltaDataSource> s(new DeltaDataSource());
  s->adds_ = std::move(files);
  s->fs_ = std::move(fs);
  s->snapshot_ = std::move(snapshot);
  s->schema_ = s->snapshot_->schema();
  s->tz_ = std::move(time_zone_id);
  const auto& pcols = s->snapshot_->metadata().partition_columns;
  const int nf = s->schema_->num_fields();
  s->is_partition_.assign(nf, false);
  for (const auto& p : pcols) {
    int idx = s->schema_->FieldIndex(p);
    if (idx < 0) {
      return Status::Error("DELTA_MISSING_PARTITION_COLUMN",
                           {{"columnName", p}, {"columnList", s->schema_->ToString()}});
    }
    s->is_partition_[idx] = true;
  }
  {
    const auto& conf = s->snapshot_->metadata().configuration;
    auto it = conf.find("delta.columnMapping.mode");
    if (it != conf.end() && ToLower(it->second) != "none") {
      auto j = Json::Parse(s->snapshot_->metadata().schema_string);
      const Json* fields = j.ok() ? j->Find("fields") : nullptr;
      for (int c = 0; c < nf; ++c) {
        const Json* fj =
            fields && fields->is_array() && c < static_cast<int>(fields->items().size())
                ? &fields->items()[c]
                : nullptr;
        s->physical_names_.push_back(fj ? PhysicalName(*fj) : s->schema_->field(c).name);
        s->physical_types_.push_back(
            PhysicalType(s->schema_->field(c).type, fj ? fj->Find("type") : nullptr));
      }
    }
  }
  auto phys = [&](int c) -> const std::string& {
    return s->physical_names_.empty() ? s->schema_->field(c).name : s->physical_names_[c];
  };
  EvalContext ctx = ContextFor(s->tz_);
  EvalContext utc = ContextFor("UTC");
  for (const auto& f : s->adds_) {
    FileInfo info;
    info.partition.resize(nf);
    for (int c = 0; c < nf; ++c) {
      if (!s->is_partition_[c]) continue;
      std::optional<std::string> raw;
      bool found = false;
      for (const auto& [k, v] : f.partition_values) {
        if (EqualsIgnoreCase(k, phys(c))) {
          raw = v;
          found = true;
          break;
        }
      }
      (void)found;
      info.partition[c] = ParsePartitionValue(raw, s->schema_->field(c).type, ctx);
    }
    if (f.stats) {
      auto j = Json::Parse(*f.stats);
      if (j.ok() && j->is_object()) {
        info.has_stats = true;
        info.num_records = j->GetInt("numRecords").value_or(-1);
        info.min.resize(nf);
        info.max.resize(nf);
        info.null_count.resize(nf);
        const Json* mins = j->Find("minValues");
        const Json* maxs = j->Find("maxValues");
        const Json* nulls = j->Find("nullCount");
        for (int c = 0; c < nf; ++c) {
          if (s->is_partition_[c]) continue;
          const Field& fld = s->schema_->field(c);
          const std::string& pn = phys(c);
          if (mins && mins->is_object())
            if (const Json* v = mins->Find(pn))
              info.min[c] = StatValue(*v, fld.type, false, utc);
          if (maxs && maxs->is_object())
            if (const Json* v = maxs->Find(pn))
              info.max[c] = StatValue(*v, fld.type, true, utc);
          // Timestamp statistics are written in milliseconds, and delta-spark truncates
          // the maximum: as Delta's reader, a file may hold values up to 1 ms above it.
          if (auto& mx = info.max[c]; mx && !mx->is_null() &&
                                      (fld.type->id() == TypeId::kTimestamp ||
                                       fld.type->id() == TypeId::kTimestampNtz)) {
            mx = Value::FromI64(fld.type, mx->i64() + 1000);
          }
          if (nulls && nulls->is_object())
            if (const Json* v = nulls->Find(pn); v && v->is_number())
              info.null_count[c] = v->int_value();
        }
      }
    }
    s->files_.push_back(std::move(info));
  }
  if (!extra_columns.empty()) {
    std::vector<Field> fields = s->schema_->fields();
    for (const auto& f : extra_columns) {
      if (f.name == kRowIndexColumn)
        s->row_index_column_ = static_cast<int>(fields.size());
      fields.push_back(f);
      s->is_partition_.push_back(false);
      if (!s->physical_names_.empty()) {
        s->physical_names_.push_back(f.name);
        s->physical_types_.push_back(f.type);
      }
    }
    s->schema_ = std::make_shared<const Schema>(std::move(fields));
  }
  return s;
}

bool DeltaDataSource::CanSkip(int i, const std::vector<ScanPredicate>& predicates) const {
  const FileInfo& f = files_[i];
  for (const auto& p : predicates) {
    if (p.column < 0 || p.column >= schema_->num_fields()) continue;
    const int c = p.column;
    if (is_partition_[c]) {
      const Value& v = f.partition[c];
      if (p.op == ScanPredicate::Op::kIsNull) {
        if (!v.is_null()) return true;
        continue;
      }
      if (p.op == ScanPredicate::Op::kIsNotNull) {
        if (v.is_null()) return true;
        continue;
      }
      if (v.is_null()) return true;  // comparisons with NULL are never true
      auto cmp = Compare(v, p.literal);
      if (!cmp) continue;
      switch (p.op) {
        case ScanPredicate::Op::kEq:
          if (*cmp != 0) return true;
          break;
        case ScanPredicate::Op::kLt:
          if (*cmp >= 0) return true;
          break;
        case ScanPredicate::Op::kLe:
          if (*cmp > 0) return true;
          break;
        case ScanPredicate::Op::kGt:
          if (*cmp <= 0) return true;
          break;
        case ScanPredicate::Op::kGe:
          if (*cmp < 0) return true;
          break;
        default:
          break;
      }
      continue;
    }
    if (!f.has_stats || c >= static_cast<int>(f.null_count.size())) continue;
    const auto& nc = f.null_count[c];
    if (p.op == ScanPredicate::Op::kIsNull) {
      if (nc && *nc == 0) return true;
      continue;
    }
    if (p.op == ScanPredicate::Op::kIsNotNull) {
      if (nc && f.num_records >= 0 && *nc == f.num_records) return true;
      continue;
    }
    if (nc && f.num_records >= 0 && *nc == f.num_records && f.num_records > 0)
      return true;
    const auto& mn = f.min[c];
    const auto& mx = f.max[c];
    std::optional<int> lo = mn ? Compare(*mn, p.literal) : std::nullopt;  // min vs lit
    std::optional<int> hi = mx ? Compare(*mx, p.literal) : std::nullopt;  // max vs lit
    switch (p.op) {
      case ScanPredicate::Op::kEq:
        if ((lo && *lo > 0) || (hi && *hi < 0)) return true;
        break;
      case ScanPredicate::Op::kLt:
        if (lo && *lo >= 0) return true;
        break;
      case ScanPredicate::Op::kLe:
        if (lo && *lo > 0) return true;
        break;
      case ScanPredicate::Op::kGt:
        if (hi && *hi <= 0) return true;
        break;
      case ScanPredicate::Op::kGe:
        if (hi && *hi < 0) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

Result<std::unique_ptr<BatchReader>> DeltaDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  return Open(split, spec, nullptr);
}

Result<std::unique_ptr<BatchReader>> DeltaDataSource::OpenSplitSelecting(
    int split, const ScanSpec& spec,
    const std::optional<DeletionVectorDescriptor>& selected,
    const std::optional<DeletionVectorDescriptor>& unselected) const {
  std::vector<uint64_t> in, out, keep;
  if (selected) {
    SPATE_ASSIGN_OR_RETURN(in,
                           LoadDeletionVector(*fs_, *selected, snapshot_->table_path()));
  }
  if (unselected) {
    SPATE_ASSIGN_OR_RETURN(
        out, LoadDeletionVector(*fs_, *unselected, snapshot_->table_path()));
  }
  std::set_difference(in.begin(), in.end(), out.begin(), out.end(),
                      std::back_inserter(keep));
  return Open(split, spec, &keep);
}

Result<std::unique_ptr<BatchReader>> DeltaDataSource::Open(
    int split, const ScanSpec& spec, const std::vector<uint64_t>* keep) const {
  if (CanSkip(split, spec.predicates)) {
    skipped_->fetch_add(1);
    return MakeEmptyReader();
  }
  const AddFile& add = adds_[split];
  const std::string path = snapshot_->DataFilePath(add);
  auto reader = formats::parquet::ParquetFileReader::Open(fs_, path);
  if (!reader.ok()) return reader.status();
  const SchemaPtr& fschema = (*reader)->schema();
  std::vector<int> file_cols, out_source;
  std::vector<Value> constants;
  std::vector<Field> out_fields;
  std::vector<DataTypePtr> widen;
  int row_index_out = -1;
  bool widening = false;
  if (const auto& rf = snapshot_->protocol().reader_features) {
    for (const auto& f : *rf)
      widening |= f == "typeWidening" || f == "typeWidening-preview";
  }
  for (int c : spec.columns) {
    widen.emplace_back();
    const Field& f = schema_->field(c);
    out_fields.push_back(f);
    if (c == row_index_column_) {
      row_index_out = static_cast<int>(out_source.size());
      out_source.push_back(-1);
      constants.emplace_back();
      continue;
    }
    if (is_partition_[c]) {
      out_source.push_back(-1);
      constants.push_back(files_[split].partition[c]);
      continue;
    }
    const bool mapped = !physical_names_.empty();
    int fc = fschema->FieldIndex(mapped ? physical_names_[c] : f.name, mapped);
    if (fc < 0) {
      out_source.push_back(-1);
      constants.push_back(Value::Null(f.type));
      continue;
    }
    const DataType& ftype = *fschema->field(fc).type;
    if (widening && !ftype.SameType(mapped ? *physical_types_[c] : *f.type) &&
        !ftype.IsNested() && !f.type->IsNested() &&
        CanCast(ftype, *f.type, CastMode::kLegacy)) {
      widen.back() = f.type;
    } else if (!ftype.SameType(mapped ? *physical_types_[c] : *f.type)) {
      return Status(StatusCode::kDataCorruption,
                    "Delta data file " + path + ": column " + f.name + " has type " +
                        fschema->field(fc).type->SimpleString() + " but the table says " +
                        f.type->SimpleString());
    }
    out_source.push_back(static_cast<int>(file_cols.size()));
    constants.emplace_back();
    file_cols.push_back(fc);
  }
  auto out_schema = std::make_shared<const Schema>(std::move(out_fields));
  std::vector<uint64_t> deleted;
  if (keep) {
    // Every row but those kept.
    int64_t rows = 0;
    for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg)
      rows += (*reader)->row_group_rows(rg);
    size_t k = 0;
    for (uint64_t r = 0; r < static_cast<uint64_t>(rows); ++r) {
      while (k < keep->size() && (*keep)[k] < r) ++k;
      if (k < keep->size() && (*keep)[k] == r) continue;
      deleted.push_back(r);
    }
  } else if (add.deletion_vector && add.deletion_vector->cardinality > 0) {
    SPATE_ASSIGN_OR_RETURN(
        deleted, LoadDeletionVector(*fs_, *add.deletion_vector, snapshot_->table_path()));
  }
  return std::unique_ptr<BatchReader>(
      new DeltaFileReader(*reader, std::move(file_cols), std::move(out_source),
                          out_schema, std::move(constants), path, std::move(deleted),
                          !physical_names_.empty(), std::move(widen), row_index_out));
}

std::string DeltaDataSource::Describe() const {
  std::string cols;
  for (const auto& f : schema_->fields()) cols += (cols.empty() ? "" : ", ") + f.name;
  return "FileScan delta [" + cols + "] Location: " + snapshot_->table_path() +
         " Version: " + std::to_string(snapshot_->version());
}

}  // namespace spate::table

namespace spate::table {

Result<SnapshotPtr> OpenSnapshot(const io::FileSystemPtr& fs,
                                 const std::string& table_path,
                                 const TimeTravelSpec& travel) {
  if (travel.version && travel.timestamp_ms)
    return Status::Error("DELTA_ONEOF_IN_TIMETRAVEL");
  // The process's log of the table: a read of the latest version reuses its cached
  // snapshot (O(new commits)).
  auto log = DeltaLog::ForTable(fs, table_path);
  if (travel.version) return log->At(*travel.version);
  if (travel.timestamp_ms) {
    SPATE_ASSIGN_OR_RETURN(int64_t v, log->VersionAtTimestamp(*travel.timestamp_ms));
    return log->At(v);
  }
  return log->Latest();
}

Result<std::shared_ptr<DeltaDataSource>> OpenDeltaSource(
    io::FileSystemPtr fs, const std::string& table_path, const TimeTravelSpec& travel,
    const std::string& time_zone_id) {
  SPATE_ASSIGN_OR_RETURN(auto snap, OpenSnapshot(fs, table_path, travel));
  return DeltaDataSource::Make(std::move(fs), std::move(snap), time_zone_id);
}

}  // namespace spate::table
