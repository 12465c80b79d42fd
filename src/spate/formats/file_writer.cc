// Copyright spate authors.
#include "spate/formats/file_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <unordered_map>

#include "spate/base/text_parse.h"
#include "spate/base/thread_pool.h"
#include "spate/columnar/kernels.h"
#include "spate/formats/parquet/compression.h"
#include "spate/formats/parquet/writer.h"
#include "spate/formats/parquet_source.h"
#include "spate/formats/string_bounds.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate::formats {

std::string NewUuid() {
  // random_device on every call (not a seeded engine): a forked child must not repeat
  // its parent's sequence, or two processes would write files with the same names.
  std::random_device rd;
  uint64_t a = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  uint64_t b = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return UuidV4Text(a, b);
}

std::string UuidV4Text(uint64_t a, uint64_t b) {
  a = (a & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  b = (b & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xFFFF),
                static_cast<unsigned>(a & 0xFFFF), static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
  return buf;
}

// ---- Parquet factory ------------------------------------------------------------------

namespace {

namespace pq = parquet;

// The written files are synced as they close (the writers only Close() their file).
class SyncOnCloseFile final : public io::WritableFile {
 public:
  explicit SyncOnCloseFile(std::unique_ptr<io::WritableFile> inner)
      : inner_(std::move(inner)) {}
  Status Append(std::string_view data) override { return inner_->Append(data); }
  int64_t Position() const override { return inner_->Position(); }
  Status Sync() override { return inner_->Sync(); }
  Status Close() override {
    Status st = inner_->Sync();
    Status closed = inner_->Close();
    return st.ok() ? closed : st;
  }
  const std::string& path() const override { return inner_->path(); }

 private:
  std::unique_ptr<io::WritableFile> inner_;
};

class ParquetFileWriter final : public FileWriter {
 public:
  explicit ParquetFileWriter(std::unique_ptr<pq::ParquetWriter> w) : w_(std::move(w)) {}
  Status Write(const BatchPtr& batch) override { return w_->Write(batch); }
  Status Close() override {
    SPATE_RETURN_IF_ERROR(w_->Close());
    final_bytes_ = w_->bytes_written();
    return Status::OK();
  }
  int64_t bytes_written() const override {
    return final_bytes_ >= 0 ? final_bytes_ : w_->bytes_written();
  }
  std::vector<bool> DeriveLeafStats() override;
  void FillLeafStats(std::vector<ColumnStats>* stats) const override;

 private:
  std::unique_ptr<pq::ParquetWriter> w_;
  int64_t final_bytes_ = -1;
  std::vector<int> chunk_of_leaf_;  // ColumnStats leaf -> column chunk (-1: row pass)
};

class ParquetWriterFactory final : public FileWriterFactory {
 public:
  explicit ParquetWriterFactory(pq::WriterOptions o) : options_(std::move(o)) {
    std::string ext = pq::CodecFileExtension(options_.codec);
    ext_ = ext.empty() ? ".parquet" : "." + ext + ".parquet";
  }
  std::string format_name() const override { return "parquet"; }
  std::string extension() const override { return ext_; }
  Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<io::WritableFile> file,
                                           const SchemaPtr& data_schema) const override {
    SPATE_ASSIGN_OR_RETURN(
        auto w, pq::ParquetWriter::Make(std::move(file), *data_schema, options_));
    return std::unique_ptr<FileWriter>(new ParquetFileWriter(std::move(w)));
  }

 private:
  pq::WriterOptions options_;
  std::string ext_;
};

Result<int64_t> ParseLong(const std::string& key, const std::string& v) {
  if (auto x = ParseInt64(v)) return *x;
  return Status::Invalid("Invalid value '" + v + "' for option " + key);
}

}  // namespace

Result<FileWriterFactoryPtr> MakeParquetWriterFactory(
    const std::map<std::string, std::string>& options, const std::string& default_codec) {
  pq::WriterOptions wopt;
  std::string codec = default_codec;
  for (const auto& [k, v] : options) {
    std::string key = ToLower(k);
    if (key == "compression" || key == "parquet.compression") codec = v;
    if (key == "parquet.block.size") {
      SPATE_ASSIGN_OR_RETURN(wopt.row_group_bytes, ParseLong(k, v));
    }
    if (key == "spate.parquet.rowgrouprows") {
      SPATE_ASSIGN_OR_RETURN(wopt.row_group_rows, ParseLong(k, v));
    }
    if (key == "parquet.page.size") {
      SPATE_ASSIGN_OR_RETURN(wopt.page_bytes, ParseLong(k, v));
    }
    if (key == "parquet.enable.dictionary")
      wopt.enable_dictionary = ToLower(v) != "false";
  }
  SPATE_ASSIGN_OR_RETURN(wopt.codec, pq::ParseCodecName(codec));
  return FileWriterFactoryPtr(std::make_shared<ParquetWriterFactory>(std::move(wopt)));
}

// ---- statistics
// -------------------------------------------------------------------------

std::optional<std::string> PartitionValueString(const Value& v,
                                                const std::string& time_zone_id) {
  if (v.is_null()) return std::nullopt;
  if (v.type()->id() == TypeId::kTimestamp && !time_zone_id.empty()) {
    const TimeZone* tz = TimeZone::Lookup(time_zone_id);
    if (tz) return FormatTimestampMicros(v.i64(), tz->OffsetSeconds(v.i64()));
  }
  std::string s = v.ToString();
  if (s.empty()) return std::nullopt;
  return s;
}

namespace {

void InitLeaves(const DataTypePtr& type, std::vector<std::string> path,
                std::vector<ColumnStats>* out) {
  if (type->id() == TypeId::kStruct) {
    for (const auto& f : type->fields()) {
      auto p = path;
      p.push_back(f.name);
      InitLeaves(f.type, std::move(p), out);
    }
    return;
  }
  ColumnStats s;
  s.path = std::move(path);
  s.type = type;
  out->push_back(std::move(s));
}

// Compares two non-null values of the same orderable type.
int CompareSame(const Value& a, const Value& b) {
  switch (a.type()->id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      return a.f64() < b.f64() ? -1 : (a.f64() > b.f64() ? 1 : 0);
    case TypeId::kDecimal:
      return a.i128() < b.i128() ? -1 : (a.i128() > b.i128() ? 1 : 0);
    case TypeId::kString:
    case TypeId::kBinary:
      return a.str().compare(b.str());
    default:
      return a.i64() < b.i64() ? -1 : (a.i64() > b.i64() ? 1 : 0);
  }
}

struct LeafState {
  bool any = false;
  bool nan = false;
};

// `valid`: rows whose ancestors are all non-null (nullptr = all).
template <typename T, typename Make>
void MinMaxTyped(const Column& c, const std::vector<uint8_t>* valid, ColumnStats* s,
                 LeafState* st, Make make) {
  const T* v = c.raw_values<T>();
  const int64_t n = c.length();
  bool any = false;
  T lo{}, hi{};
  if constexpr (!std::is_floating_point_v<T>) {
    if (!valid && !c.may_have_nulls() && n > 0) {
      // No NULL to skip: a plain min/max loop (vectorized).
      lo = hi = v[0];
      for (int64_t i = 1; i < n; ++i) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
      }
      any = true;
    }
  }
  for (int64_t i = any ? n : 0; i < n; ++i) {
    if ((valid && !(*valid)[i]) || c.IsNull(i)) continue;
    T x = v[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) {
        st->nan = true;
        continue;
      }
    }
    if (!any) {
      lo = hi = x;
      any = true;
    } else {
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
  }
  if (!any) return;
  Value vlo = make(lo), vhi = make(hi);
  if (!s->min || CompareSame(vlo, *s->min) < 0) s->min = std::move(vlo);
  if (!s->max || CompareSame(vhi, *s->max) > 0) s->max = std::move(vhi);
  st->any = true;
}

void StringMinMax(const Column& c, const std::vector<uint8_t>* valid, ColumnStats* s) {
  StringBounds b;
  for (int64_t i = 0; i < c.length(); ++i) {
    if ((valid && !(*valid)[i]) || c.IsNull(i)) continue;
    b.Add(c.GetView(i));
  }
  if (!b.any()) return;
  const std::string_view lo = b.min(), hi = b.max();
  if (!s->min || lo < std::string_view(s->min->str()))
    s->min = Value::String(std::string(lo));
  if (!s->max || hi > std::string_view(s->max->str()))
    s->max = Value::String(std::string(hi));
}

void LeafStats(const Column& c, const std::vector<uint8_t>* valid, ColumnStats* s,
               LeafState* st) {
  int64_t nulls = 0;
  if (!valid) {
    nulls = c.null_count();
  } else {
    for (int64_t i = 0; i < c.length(); ++i)
      nulls += (!(*valid)[i] || c.IsNull(i)) ? 1 : 0;
  }
  s->null_count += nulls;
  const DataTypePtr& t = c.type();
  switch (t->id()) {
    case TypeId::kByte:
      MinMaxTyped<int8_t>(c, valid, s, st, [](int8_t x) { return Value::Byte(x); });
      break;
    case TypeId::kShort:
      MinMaxTyped<int16_t>(c, valid, s, st, [](int16_t x) { return Value::Short(x); });
      break;
    case TypeId::kInt:
      MinMaxTyped<int32_t>(c, valid, s, st, [](int32_t x) { return Value::Int(x); });
      break;
    case TypeId::kDate:
      MinMaxTyped<int32_t>(c, valid, s, st, [](int32_t x) { return Value::Date(x); });
      break;
    case TypeId::kLong:
      MinMaxTyped<int64_t>(c, valid, s, st, [](int64_t x) { return Value::Long(x); });
      break;
    case TypeId::kTimestamp:
      MinMaxTyped<int64_t>(c, valid, s, st,
                           [](int64_t x) { return Value::Timestamp(x); });
      break;
    case TypeId::kTimestampNtz:
      MinMaxTyped<int64_t>(c, valid, s, st,
                           [](int64_t x) { return Value::TimestampNtz(x); });
      break;
    case TypeId::kFloat:
      MinMaxTyped<float>(c, valid, s, st, [](float x) { return Value::Float(x); });
      break;
    case TypeId::kDouble:
      MinMaxTyped<double>(c, valid, s, st, [](double x) { return Value::Double(x); });
      break;
    case TypeId::kDecimal: {
      const int p = t->precision(), sc = t->scale();
      MinMaxTyped<int128_t>(c, valid, s, st,
                            [p, sc](int128_t x) { return Value::Decimal(x, p, sc); });
      break;
    }
    case TypeId::kString:
      StringMinMax(c, valid, s);
      break;
    default:
      break;
  }
}

// Leaves of a column of type t in ColumnStats order (InitLeaves).
size_t CountLeaves(const DataType& t) {
  if (t.id() != TypeId::kStruct) return 1;
  size_t n = 0;
  for (const auto& f : t.fields()) n += CountLeaves(*f.type);
  return n;
}

void Walk(const Column& c, const std::vector<uint8_t>* valid,
          std::vector<ColumnStats>* stats, std::vector<LeafState>* states, size_t* leaf,
          const std::vector<bool>* skip) {
  if (skip) {
    // Every leaf of this column derived by the writer: nothing to look at.
    const size_t n = CountLeaves(*c.type());
    bool all = true;
    for (size_t i = *leaf; i < *leaf + n && all; ++i) all = (*skip)[i];
    if (all) {
      *leaf += n;
      return;
    }
  }
  if (c.type_id() == TypeId::kStruct) {
    std::vector<uint8_t> own;
    const std::vector<uint8_t>* child_valid = valid;
    if (c.null_count() > 0) {
      own.resize(static_cast<size_t>(c.length()));
      for (int64_t i = 0; i < c.length(); ++i)
        own[i] = (!valid || (*valid)[i]) && !c.IsNull(i);
      child_valid = &own;
    }
    for (const auto& child : c.children())
      Walk(*child, child_valid, stats, states, leaf, skip);
    return;
  }
  LeafStats(c, valid, &(*stats)[*leaf], &(*states)[*leaf]);
  ++*leaf;
}

}  // namespace

void AccumulateStats(const Batch& batch, std::vector<ColumnStats>* stats,
                     const std::vector<bool>* skip) {
  if (stats->empty()) {
    for (const auto& f : batch.schema()->fields()) InitLeaves(f.type, {f.name}, stats);
  }
  std::vector<LeafState> states(stats->size());
  size_t leaf = 0;
  for (const auto& c : batch.columns()) Walk(*c, nullptr, stats, &states, &leaf, skip);
  for (size_t i = 0; i < stats->size(); ++i) {
    if (states[i].nan) {  // NaN sorts above everything in Spark: no usable bounds
      (*stats)[i].no_bounds = true;
    }
    if ((*stats)[i].no_bounds) {
      (*stats)[i].min.reset();
      (*stats)[i].max.reset();
    }
  }
}

namespace {

// ColumnStats leaves (InitLeaves over the data schema) -> the Parquet column chunk whose
// statistics give them: struct fields recursively, primitive leaves of the types
// AccumulateStats knows; -1 (kept on the row pass) for lists, maps and anything else.
void MapLeaves(const pq::LevelNode& n, std::vector<int>* out) {
  const DataType& t = *n.type;
  if (t.id() == TypeId::kStruct) {
    if (n.kind != pq::LevelNode::kStruct || n.children.size() != t.fields().size()) {
      out->insert(out->end(), CountLeaves(t), -1);
      return;
    }
    for (const auto& child : n.children) MapLeaves(child, out);
    return;
  }
  bool known = false;
  switch (t.id()) {
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kString:
    case TypeId::kBinary:
      known = n.kind == pq::LevelNode::kPrimitive && n.leaf >= 0;
      break;
    default:
      break;
  }
  out->push_back(known ? n.leaf : -1);
}

}  // namespace

std::vector<bool> ParquetFileWriter::DeriveLeafStats() {
  chunk_of_leaf_.clear();
  for (const auto& f : w_->parquet_schema().fields) MapLeaves(f, &chunk_of_leaf_);
  std::vector<bool> derived(chunk_of_leaf_.size());
  bool any = false;
  for (size_t i = 0; i < derived.size(); ++i) any |= derived[i] = chunk_of_leaf_[i] >= 0;
  if (!any) return {};
  w_->SummarizeLeaves();
  return derived;
}

void ParquetFileWriter::FillLeafStats(std::vector<ColumnStats>* stats) const {
  const auto& groups = w_->leaf_summaries();
  for (size_t i = 0; i < chunk_of_leaf_.size() && i < stats->size(); ++i) {
    if (chunk_of_leaf_[i] < 0) continue;
    ColumnStats& s = (*stats)[i];
    s.null_count = 0;
    s.min.reset();
    s.max.reset();
    // Row groups in file order, ties to the earlier one: AccumulateStats' merge.
    for (const auto& g : groups) {
      const pq::LeafSummary& l = g[static_cast<size_t>(chunk_of_leaf_[i])];
      s.null_count += l.null_count;
      s.no_bounds |= l.nan;
      if (l.min && (!s.min || CompareSame(*l.min, *s.min) < 0)) s.min = l.min;
      if (l.max && (!s.max || CompareSame(*l.max, *s.max) > 0)) s.max = l.max;
    }
    if (s.no_bounds) {
      s.min.reset();
      s.max.reset();
    }
  }
}

// ---- the job
// ---------------------------------------------------------------------------

struct PartitionedWriteJob::OpenFile {
  std::string key;  // "k=1/c=x" ("" without partition columns)
  std::vector<std::optional<std::string>> values;
  int file_count = 0;  // cNNN of the current file
  std::unique_ptr<FileWriter> writer;
  WrittenFile current;
  std::vector<bool> derived;  // leaves whose statistics the writer derives
};

struct PartitionedWriteJob::PartitionState {
  std::map<std::string, OpenFile> open;  // by key
  std::vector<WrittenFile> done;         // closed files
  std::vector<std::string> created;      // every file created (for Abort)
};

Result<std::unique_ptr<PartitionedWriteJob>> PartitionedWriteJob::Make(
    io::FileSystemPtr fs, FileWriterFactoryPtr factory, SchemaPtr schema,
    WriteJobOptions options, int num_partitions) {
  std::unique_ptr<PartitionedWriteJob> job(new PartitionedWriteJob());
  if (options.job_id.empty()) options.job_id = NewUuid();
  for (const auto& name : options.partition_columns) {
    int idx = schema->FieldIndex(name);
    if (idx < 0) {
      // Spark's PartitioningUtils.partitionColumnsSchema error.
      return Status::Error("_LEGACY_ERROR_TEMP_1155",
                           {{"col", name}, {"schemaCatalog", schema->ToString()}});
    }
    job->part_cols_.push_back(idx);
  }
  std::vector<Field> data_fields;
  for (int i = 0; i < schema->num_fields(); ++i) {
    if (std::find(job->part_cols_.begin(), job->part_cols_.end(), i) ==
        job->part_cols_.end()) {
      job->data_cols_.push_back(i);
      data_fields.push_back(schema->field(i));
    }
  }
  if (!job->part_cols_.empty() && data_fields.empty()) {
    return Status::Error("ALL_PARTITION_COLUMNS_NOT_ALLOWED");
  }
  job->data_schema_ = std::make_shared<const Schema>(std::move(data_fields));
  job->write_dir_ =
      options.use_staging
          ? io::JoinPath(io::JoinPath(options.output_dir, "_temporary"), options.job_id)
          : options.output_dir;
  SPATE_RETURN_IF_ERROR(fs->MakeDirs(job->write_dir_));
  job->fs_ = std::move(fs);
  job->factory_ = std::move(factory);
  job->schema_ = std::move(schema);
  job->options_ = std::move(options);
  for (int i = 0; i < std::max(num_partitions, 1); ++i)
    job->partitions_.push_back(std::make_unique<PartitionState>());
  return job;
}

PartitionedWriteJob::~PartitionedWriteJob() {
  if (!finished_) Abort();
}

Result<PartitionedWriteJob::OpenFile*> PartitionedWriteJob::Open(
    int partition, const std::string& key,
    const std::vector<std::optional<std::string>>* values) {
  PartitionState& ps = *partitions_[partition];
  auto [it, inserted] = ps.open.try_emplace(key);
  OpenFile& o = it->second;
  if (inserted) {
    o.key = key;
    if (values) o.values = *values;
  }
  if (o.writer) return &o;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "-%05d-", partition);
  char cbuf[16];
  std::snprintf(cbuf, sizeof(cbuf), "-c%03d", o.file_count);
  std::string name =
      options_.file_prefix + buf + options_.job_id + cbuf + factory_->extension();
  std::string dir = key.empty() ? write_dir_ : io::JoinPath(write_dir_, key);
  if (!key.empty()) SPATE_RETURN_IF_ERROR(fs_->MakeDirs(dir));
  o.current = WrittenFile();
  o.current.relative_path = key.empty() ? name : io::JoinPath(key, name);
  o.current.partition_values = o.values;
  std::string full = io::JoinPath(write_dir_, o.current.relative_path);
  SPATE_ASSIGN_OR_RETURN(auto file, fs_->Create(full));
  ps.created.push_back(o.current.relative_path);
  SPATE_ASSIGN_OR_RETURN(
      o.writer,
      factory_->Open(std::make_unique<SyncOnCloseFile>(std::move(file)), data_schema_));
  o.derived.clear();
  if (options_.collect_stats) o.derived = o.writer->DeriveLeafStats();
  return &o;
}

struct CloseHelper {
  static Status Close(std::unique_ptr<FileWriter>& writer, WrittenFile& current,
                      const std::vector<bool>& derived, int* file_count,
                      std::vector<WrittenFile>* done) {
    Status st = writer->Close();
    if (st.ok() && !derived.empty() && current.num_records > 0)
      writer->FillLeafStats(&current.stats);
    current.size_bytes = writer->bytes_written();
    writer.reset();
    ++*file_count;
    if (!st.ok()) return st;
    done->push_back(std::move(current));
    current = WrittenFile();
    return Status::OK();
  }
};

Status PartitionedWriteJob::WriteToFile(
    int partition, const std::string& key,
    const std::vector<std::optional<std::string>>* values, const BatchPtr& data) {
  int64_t offset = 0;
  const int64_t n = data->num_rows();
  do {
    SPATE_ASSIGN_OR_RETURN(OpenFile * o, Open(partition, key, values));
    int64_t take = n - offset;
    const int64_t cap = options_.max_records_per_file;
    if (cap > 0) take = std::min(take, cap - o->current.num_records);
    BatchPtr piece = (offset == 0 && take == n) ? data : SliceBatch(*data, offset, take);
    if (take > 0 || n == 0) {
      SPATE_RETURN_IF_ERROR(o->writer->Write(piece));
      o->current.num_records += take;
      if (options_.collect_stats && take > 0) {
        AccumulateStats(*piece, &o->current.stats,
                        o->derived.empty() ? nullptr : &o->derived);
      }
    }
    offset += take;
    if (cap > 0 && o->current.num_records >= cap && offset < n) {
      SPATE_RETURN_IF_ERROR(CloseHelper::Close(o->writer, o->current, o->derived,
                                               &o->file_count,
                                               &partitions_[partition]->done));
    }
  } while (offset < n);
  return Status::OK();
}

Status PartitionedWriteJob::Write(int partition, const BatchPtr& b) {
  if (partition < 0 || partition >= static_cast<int>(partitions_.size())) {
    return Status::Invalid("write job: partition index " + std::to_string(partition) +
                           " out of range");
  }
  if (part_cols_.empty()) {
    return WriteToFile(partition, "", nullptr, b->WithSchema(data_schema_));
  }
  // Group rows by their partition values. Rows are keyed by the raw bytes of the values
  // (typed access, no Value per row); a group's folder name and value strings are built
  // once, from its first row.
  struct Group {
    std::string key;
    std::vector<std::optional<std::string>> values;
    std::vector<int32_t> rows;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> index;
  std::string raw;
  for (int64_t r = 0; r < b->num_rows(); ++r) {
    raw.clear();
    for (int c : part_cols_) {
      const Column& col = *b->column(c);
      if (col.IsNull(r)) {
        raw.push_back('\0');
        continue;
      }
      raw.push_back('\1');
      const int width = col.type()->ByteWidth();
      if (col.type_id() == TypeId::kString || col.type_id() == TypeId::kBinary) {
        std::string_view v = col.GetView(r);
        uint32_t n = static_cast<uint32_t>(v.size());
        raw.append(reinterpret_cast<const char*>(&n), sizeof(n));
        raw.append(v);
      } else if (col.type_id() == TypeId::kBoolean) {
        raw.push_back(col.GetBool(r) ? '1' : '0');
      } else if (width > 0) {
        raw.append(reinterpret_cast<const char*>(col.values()->data()) + r * width,
                   width);
      } else {
        std::string v = col.GetValue(r).ToString();  // nested partition values: rare
        uint32_t n = static_cast<uint32_t>(v.size());
        raw.append(reinterpret_cast<const char*>(&n), sizeof(n));
        raw.append(v);
      }
    }
    auto [it, inserted] = index.try_emplace(raw, groups.size());
    if (inserted) {
      Group g;
      for (size_t i = 0; i < part_cols_.size(); ++i) {
        int c = part_cols_[i];
        g.values.push_back(
            PartitionValueString(b->column(c)->GetValue(r), options_.time_zone_id));
        if (i > 0) g.key += '/';
        g.key += EscapePathName(schema_->field(c).name);
        g.key += '=';
        g.key +=
            g.values[i] ? EscapePathName(*g.values[i]) : "__HIVE_DEFAULT_PARTITION__";
      }
      groups.push_back(std::move(g));
    }
    groups[it->second].rows.push_back(static_cast<int32_t>(r));
  }
  // "" and NULL share a folder: merge groups with equal keys, then go in key order.
  std::sort(groups.begin(), groups.end(),
            [](const Group& a, const Group& b) { return a.key < b.key; });
  for (size_t i = 1; i < groups.size();) {
    if (groups[i].key == groups[i - 1].key) {
      auto& dst = groups[i - 1].rows;
      dst.insert(dst.end(), groups[i].rows.begin(), groups[i].rows.end());
      std::sort(dst.begin(), dst.end());
      groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  std::vector<ColumnPtr> cols;
  for (int c : data_cols_) cols.push_back(b->column(c));
  auto data = Batch::Make(data_schema_, cols, b->num_rows());
  for (const auto& g : groups) {
    BatchPtr part =
        static_cast<int64_t>(g.rows.size()) == b->num_rows()
            ? data
            : TakeBatch(*data, g.rows.data(), static_cast<int64_t>(g.rows.size()));
    SPATE_RETURN_IF_ERROR(WriteToFile(partition, g.key, &g.values, part));
  }
  return Status::OK();
}

Result<std::vector<WrittenFile>> PartitionedWriteJob::Commit() {
  Status st;
  bool any = false;
  for (auto& ps : partitions_) any |= !ps->open.empty() || !ps->done.empty();
  if (!any && part_cols_.empty() && options_.write_file_when_empty) {
    st = ToStatus(Open(0, "", nullptr));  // empty result: a file with the schema
  }
  // Closing a file encodes what its writer buffered (a Parquet writer keeps a row group's
  // batches and encodes them at the end): the partitions' files close in parallel, each
  // partition's in key order; the first error by partition order wins.
  if (st.ok()) {
    std::vector<Status> closed(partitions_.size());
    st = ThreadPool::Default().ParallelFor(
        static_cast<int64_t>(partitions_.size()), ThreadPool::Default().num_threads(),
        [&](int64_t p) {
          PartitionState& ps = *partitions_[static_cast<size_t>(p)];
          for (auto& [key, o] : ps.open) {
            if (!o.writer) continue;
            if (closed[p].ok()) {
              closed[p] = CloseHelper::Close(o.writer, o.current, o.derived,
                                             &o.file_count, &ps.done);
            } else {
              o.writer.reset();
            }
          }
          return closed[p];
        });
  }
  for (auto& ps : partitions_) {
    for (auto& [key, o] : ps->open) o.writer.reset();
    ps->open.clear();
  }
  std::vector<WrittenFile> files;
  for (auto& ps : partitions_) {
    for (auto& f : ps->done) files.push_back(std::move(f));
    ps->done.clear();
  }
  std::vector<std::string> moved;
  if (st.ok() && options_.use_staging) {
    for (const auto& f : files) {
      std::string parent = io::ParentPath(f.relative_path);
      if (!parent.empty()) st = fs_->MakeDirs(io::JoinPath(options_.output_dir, parent));
      if (st.ok()) {
        st = fs_->Rename(io::JoinPath(write_dir_, f.relative_path),
                         io::JoinPath(options_.output_dir, f.relative_path));
      }
      if (!st.ok()) break;
      moved.push_back(f.relative_path);
    }
  }
  if (options_.use_staging) {
    (void)fs_->Delete(io::JoinPath(options_.output_dir, "_temporary"), true);
  }
  if (st.ok()) {
    // The folders that gained entries: each file's folder up to output_dir, which also
    // holds new partition folders (a=1/b=2 syncs a=1/b=2, a=1 and the output folder).
    std::vector<std::string> dirs;
    for (const auto& f : files) {
      for (std::string p = io::ParentPath(f.relative_path);; p = io::ParentPath(p)) {
        dirs.push_back(p);
        if (p.empty()) break;
      }
    }
    std::sort(dirs.begin(), dirs.end());
    dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
    for (const auto& d : dirs) {
      st = fs_->SyncDir(d.empty() ? options_.output_dir
                                  : io::JoinPath(options_.output_dir, d));
      if (!st.ok()) break;
    }
  }
  if (st.ok()) {
    for (auto& f : files) {
      auto info = fs_->Stat(io::JoinPath(options_.output_dir, f.relative_path));
      if (!info.ok()) {
        st = info.status();
        break;
      }
      f.modification_time_ms = info->modification_time_ms;
      f.size_bytes = info->size;
    }
  }
  if (st.ok() && options_.use_staging && options_.write_success_file) {
    st = fs_->WriteAtomic(io::JoinPath(options_.output_dir, "_SUCCESS"), "");
  }
  if (!st.ok()) {
    for (const auto& rel : moved)
      (void)fs_->Delete(io::JoinPath(options_.output_dir, rel));
    Abort();
    return st;
  }
  finished_ = true;
  return files;
}

void PartitionedWriteJob::Abort() {
  if (!fs_ || finished_) return;  // not made, or already committed/aborted
  for (auto& ps : partitions_) {
    for (auto& [key, o] : ps->open) o.writer.reset();
    ps->open.clear();
    if (!options_.use_staging) {
      for (const auto& rel : ps->created)
        (void)fs_->Delete(io::JoinPath(write_dir_, rel));
    }
    ps->created.clear();
    ps->done.clear();
  }
  if (options_.use_staging) {
    (void)fs_->Delete(io::JoinPath(options_.output_dir, "_temporary"), true);
  }
  finished_ = true;
}

}  // namespace spate::formats
