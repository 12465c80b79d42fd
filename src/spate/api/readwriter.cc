// Copyright spate authors.
#include "spate/api/readwriter.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>

#include "spate/api/session_state.h"
#include "spate/columnar/kernels.h"
#include "spate/exec/executor.h"
#include "spate/exec/physical_plan.h"
#include "spate/formats/parquet/compression.h"
#include "spate/formats/parquet/writer.h"
#include "spate/formats/json_source.h"
#include "spate/formats/parquet_source.h"
#include "spate/sql/parser.h"

namespace spate::api {

namespace {

std::string Lower(std::string s) { return ToLower(s); }

void CheckFormat(const std::string& format) {
  if (Lower(format) != "parquet")
    ThrowStatus(Status::Error("DATA_SOURCE_NOT_FOUND", {{"provider", format}}));
}

std::string NewUuid() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t a = rng(), b = rng();
  a = (a & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  b = (b & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xFFFF),
                static_cast<unsigned>(a & 0xFFFF), static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
  return buf;
}

}  // namespace

// ---- DataFrameReader
// ----------------------------------------------------------------------

DataFrameReader& DataFrameReader::format(const std::string& source) {
  format_ = source;
  return *this;
}
DataFrameReader& DataFrameReader::option(const std::string& key,
                                         const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameReader& DataFrameReader::options(
    const std::map<std::string, std::string>& opts) {
  for (const auto& [k, v] : opts) options_[k] = v;
  return *this;
}
DataFrameReader& DataFrameReader::schema(const StructType& schema) {
  schema_ = schema.ToSchema();
  return *this;
}
DataFrameReader& DataFrameReader::schema(const std::string& ddl) {
  schema_ = ValueOrThrow(sql::ParseDdlSchema(ddl));
  return *this;
}

DataFrame DataFrameReader::load(const std::string& path) const {
  return load(std::vector<std::string>{path});
}

DataFrame DataFrameReader::load(const std::vector<std::string>& paths) const {
  const std::string fmt = Lower(format_);
  if (fmt == "json" || fmt == "text") {
    auto kind = fmt == "json" ? formats::LineFileDataSource::Format::kJson
                              : formats::LineFileDataSource::Format::kText;
    auto source = ValueOrThrow(formats::LineFileDataSource::Make(
        io::LocalFileSystem::Get(), kind, paths, schema_, options_,
        session_->conf.session_time_zone()));
    auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
    plan->source = source;
    return DataFrame(session_, plan);
  }
  CheckFormat(format_);
  bool merge =
      Lower(session_->conf.GetOr("spark.sql.parquet.mergeSchema", "false")) == "true";
  for (const auto& [k, v] : options_) {
    if (Lower(k) == "mergeschema") merge = Lower(v) == "true";
  }
  auto source = ValueOrThrow(formats::ParquetDataSource::Make(io::LocalFileSystem::Get(),
                                                              paths, schema_, merge));
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = source;
  return DataFrame(session_, plan);
}

DataFrame DataFrameReader::parquet(const std::string& path) const {
  return DataFrameReader(*this).format("parquet").load(path);
}
DataFrame DataFrameReader::parquet(const std::vector<std::string>& paths) const {
  return DataFrameReader(*this).format("parquet").load(paths);
}

DataFrame DataFrameReader::json(const std::string& path) const {
  return DataFrameReader(*this).format("json").load(path);
}
DataFrame DataFrameReader::json(const std::vector<std::string>& paths) const {
  return DataFrameReader(*this).format("json").load(paths);
}
DataFrame DataFrameReader::text(const std::string& path) const {
  return DataFrameReader(*this).format("text").load(path);
}
DataFrame DataFrameReader::text(const std::vector<std::string>& paths) const {
  return DataFrameReader(*this).format("text").load(paths);
}

// ---- DataFrameWriter
// ----------------------------------------------------------------------

DataFrameWriter& DataFrameWriter::mode(const std::string& mode) {
  std::string m = Lower(mode);
  if (m != "error" && m != "errorifexists" && m != "overwrite" && m != "append" &&
      m != "ignore" && m != "default") {
    ThrowStatus(Status::Error("INVALID_SAVE_MODE", {{"mode", "\"" + mode + "\""}}));
  }
  mode_ = m == "default" ? "errorifexists" : m;
  return *this;
}
DataFrameWriter& DataFrameWriter::partitionBy(const std::vector<std::string>& cols) {
  partition_by_ = cols;
  return *this;
}
DataFrameWriter& DataFrameWriter::format(const std::string& source) {
  format_ = source;
  return *this;
}
DataFrameWriter& DataFrameWriter::option(const std::string& key,
                                         const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameWriter& DataFrameWriter::options(
    const std::map<std::string, std::string>& opts) {
  for (const auto& [k, v] : opts) options_[k] = v;
  return *this;
}

void DataFrameWriter::parquet(const std::string& path) const {
  DataFrameWriter(*this).format("parquet").save(path);
}

void DataFrameWriter::save(const std::string& path) const {
  CheckFormat(format_);
  namespace pq = formats::parquet;
  auto fs = io::LocalFileSystem::Get();
  const auto& state = df_.session();
  bool exists = ValueOrThrow(fs->Exists(path));
  if (exists) {
    if (mode_ == "errorifexists" || mode_ == "error") {
      ThrowStatus(Status::Error("PATH_ALREADY_EXISTS", {{"outputPath", "file:" + path}}));
    }
    if (mode_ == "ignore") return;
    if (mode_ == "overwrite") CheckOrThrow(fs->Delete(path, true));
  }
  pq::WriterOptions wopt;
  std::string codec = state->conf.GetOr("spark.sql.parquet.compression.codec", "snappy");
  for (const auto& [k, v] : options_) {
    std::string key = Lower(k);
    if (key == "compression" || key == "parquet.compression") codec = v;
    if (key == "parquet.block.size") wopt.row_group_bytes = std::stoll(v);
    if (key == "spate.parquet.rowgrouprows") wopt.row_group_rows = std::stoll(v);
    if (key == "parquet.page.size") wopt.page_bytes = std::stoll(v);
    if (key == "parquet.enable.dictionary") wopt.enable_dictionary = Lower(v) != "false";
  }
  wopt.codec = ValueOrThrow(pq::ParseCodecName(codec));
  std::string ext = pq::CodecFileExtension(wopt.codec);
  ext = ext.empty() ? ".parquet" : "." + ext + ".parquet";

  const std::string job = NewUuid();
  const std::string tmp_dir = io::JoinPath(io::JoinPath(path, "_temporary"), job);
  CheckOrThrow(fs->MakeDirs(tmp_dir));
  SchemaPtr schema = df_.analyzed()->OutputSchema();
  // partitionBy: those columns become key=value folders and leave the files' schema.
  std::vector<int> part_cols, data_cols;
  for (const auto& name : partition_by_) {
    int idx = schema->FieldIndex(name);
    if (idx < 0) {
      ThrowStatus(Status::Error("UNRESOLVED_COLUMN.WITH_SUGGESTION",
                                {{"objectName", "`" + name + "`"}, {"proposal", ""}}));
    }
    part_cols.push_back(idx);
  }
  std::vector<Field> data_fields;
  for (int i = 0; i < schema->num_fields(); ++i) {
    if (std::find(part_cols.begin(), part_cols.end(), i) == part_cols.end()) {
      data_cols.push_back(i);
      data_fields.push_back(schema->field(i));
    }
  }
  if (!part_cols.empty() && data_fields.empty()) {
    ThrowStatus(Status::Invalid("Cannot use all columns for partition columns."));
  }
  auto data_schema = std::make_shared<const Schema>(data_fields);
  auto physical =
      ValueOrThrow(exec::CreatePhysicalPlan(df_.analyzed(), state->MakeExecOptions()));
  const int parts = physical->root()->num_partitions();
  struct Out {
    std::string rel;  // "k=1/c=x/part-..." under the output path
    std::unique_ptr<pq::ParquetWriter> writer;
  };
  // One map per result partition, used only by the thread running that partition.
  std::vector<std::map<std::string, Out>> outs(static_cast<size_t>(parts));
  auto open = [&](int p, const std::string& key) -> Result<pq::ParquetWriter*> {
    Out& o = outs[p][key];
    if (o.writer) return o.writer.get();
    char buf[32];
    std::snprintf(buf, sizeof(buf), "part-%05d-", p);
    std::string dir = key.empty() ? tmp_dir : io::JoinPath(tmp_dir, key);
    if (!key.empty()) SPATE_RETURN_IF_ERROR(fs->MakeDirs(dir));
    std::string name = std::string(buf) + job + "-c000" + ext;
    o.rel = key.empty() ? name : io::JoinPath(key, name);
    SPATE_ASSIGN_OR_RETURN(auto file, fs->Create(io::JoinPath(tmp_dir, o.rel)));
    SPATE_ASSIGN_OR_RETURN(o.writer,
                           pq::ParquetWriter::Make(std::move(file), *data_schema, wopt));
    return o.writer.get();
  };
  Status st = exec::ExecuteToSink(
      *physical, state->MakeExecOptions(), [&](int p, const BatchPtr& b) -> Status {
        if (part_cols.empty()) {
          SPATE_ASSIGN_OR_RETURN(auto* w, open(p, ""));
          return w->Write(b);
        }
        std::map<std::string, std::vector<int32_t>> groups;
        for (int64_t r = 0; r < b->num_rows(); ++r) {
          std::string key;
          for (int c : part_cols) {
            Value v = b->column(c)->GetValue(r);
            key += (key.empty() ? "" : "/") +
                   formats::EscapePathName(schema->field(c).name) + "=" +
                   (v.is_null() ? "__HIVE_DEFAULT_PARTITION__"
                                : formats::EscapePathName(v.ToString()));
          }
          groups[key].push_back(static_cast<int32_t>(r));
        }
        std::vector<ColumnPtr> cols;
        for (int c : data_cols) cols.push_back(b->column(c));
        auto data = Batch::Make(data_schema, cols, b->num_rows());
        for (const auto& [key, rows] : groups) {
          SPATE_ASSIGN_OR_RETURN(auto* w, open(p, key));
          BatchPtr part =
              static_cast<int64_t>(rows.size()) == b->num_rows()
                  ? data
                  : TakeBatch(*data, rows.data(), static_cast<int64_t>(rows.size()));
          SPATE_RETURN_IF_ERROR(w->Write(part));
        }
        return Status::OK();
      });
  bool any = false;
  for (auto& m : outs) any |= !m.empty();
  if (st.ok() && !any && part_cols.empty())
    st = ToStatus(open(0, ""));  // empty result: a file with the schema
  for (auto& m : outs) {
    for (auto& [key, o] : m) {
      if (o.writer && st.ok()) st = o.writer->Close();
      o.writer.reset();
    }
  }
  std::vector<std::string> moved;
  if (st.ok()) {
    for (auto& m : outs) {
      for (auto& [key, o] : m) {
        if (!key.empty()) st = fs->MakeDirs(io::JoinPath(path, key));
        if (st.ok())
          st = fs->Rename(io::JoinPath(tmp_dir, o.rel), io::JoinPath(path, o.rel));
        if (!st.ok()) break;
        moved.push_back(o.rel);
      }
      if (!st.ok()) break;
    }
  }
  (void)fs->Delete(io::JoinPath(path, "_temporary"), true);
  if (!st.ok()) {
    for (const auto& rel : moved) (void)fs->Delete(io::JoinPath(path, rel), false);
    ThrowStatus(st);
  }
  CheckOrThrow(fs->WriteAtomic(io::JoinPath(path, "_SUCCESS"), ""));
}

}  // namespace spate::api
