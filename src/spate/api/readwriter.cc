// Copyright spate authors.
#include "spate/api/readwriter.h"

#include <atomic>
#include <mutex>
#include <random>

#include "spate/api/session_state.h"
#include "spate/exec/executor.h"
#include "spate/exec/physical_plan.h"
#include "spate/formats/parquet/compression.h"
#include "spate/formats/parquet/writer.h"
#include "spate/formats/parquet_source.h"
#include "spate/sql/parser.h"

namespace spate::api {

namespace {

std::string Lower(std::string s) { return ToLower(s); }

void CheckFormat(const std::string& format) {
  if (Lower(format) != "parquet") ThrowStatus(Status::Error("DATA_SOURCE_NOT_FOUND", {{"provider", format}}));
}

std::string NewUuid() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t a = rng(), b = rng();
  a = (a & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  b = (b & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xFFFF), static_cast<unsigned>(a & 0xFFFF),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
  return buf;
}

}  // namespace

// ---- DataFrameReader ----------------------------------------------------------------------

DataFrameReader& DataFrameReader::format(const std::string& source) {
  format_ = source;
  return *this;
}
DataFrameReader& DataFrameReader::option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameReader& DataFrameReader::options(const std::map<std::string, std::string>& opts) {
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

DataFrame DataFrameReader::load(const std::string& path) const { return load(std::vector<std::string>{path}); }

DataFrame DataFrameReader::load(const std::vector<std::string>& paths) const {
  CheckFormat(format_);
  auto source = ValueOrThrow(formats::ParquetDataSource::Make(io::LocalFileSystem::Get(), paths, schema_));
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

// ---- DataFrameWriter ----------------------------------------------------------------------

DataFrameWriter& DataFrameWriter::mode(const std::string& mode) {
  std::string m = Lower(mode);
  if (m != "error" && m != "errorifexists" && m != "overwrite" && m != "append" && m != "ignore" && m != "default") {
    ThrowStatus(Status::Error("INVALID_SAVE_MODE", {{"mode", "\"" + mode + "\""}}));
  }
  mode_ = m == "default" ? "errorifexists" : m;
  return *this;
}
DataFrameWriter& DataFrameWriter::format(const std::string& source) {
  format_ = source;
  return *this;
}
DataFrameWriter& DataFrameWriter::option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameWriter& DataFrameWriter::options(const std::map<std::string, std::string>& opts) {
  for (const auto& [k, v] : opts) options_[k] = v;
  return *this;
}

void DataFrameWriter::parquet(const std::string& path) const { DataFrameWriter(*this).format("parquet").save(path); }

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
  auto physical = ValueOrThrow(exec::CreatePhysicalPlan(df_.analyzed(), state->MakeExecOptions()));
  const int parts = physical->root()->num_partitions();
  std::vector<std::unique_ptr<pq::ParquetWriter>> writers(static_cast<size_t>(parts));
  std::vector<std::string> names(static_cast<size_t>(parts));
  auto open = [&](int p) -> Status {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "part-%05d-", p);
    names[p] = std::string(buf) + job + "-c000" + ext;
    SPATE_ASSIGN_OR_RETURN(auto file, fs->Create(io::JoinPath(tmp_dir, names[p])));
    SPATE_ASSIGN_OR_RETURN(writers[p], pq::ParquetWriter::Make(std::move(file), *schema, wopt));
    return Status::OK();
  };
  Status st = exec::ExecuteToSink(*physical, state->MakeExecOptions(), [&](int p, const BatchPtr& b) -> Status {
    if (!writers[p]) SPATE_RETURN_IF_ERROR(open(p));
    return writers[p]->Write(b);
  });
  bool any = false;
  for (auto& w : writers) any |= w != nullptr;
  if (st.ok() && !any) st = open(0);  // an empty result still leaves a file with the schema
  for (auto& w : writers) {
    if (w && st.ok()) st = w->Close();
  }
  writers.clear();
  if (st.ok()) {
    for (const auto& n : names) {
      if (n.empty()) continue;
      st = fs->Rename(io::JoinPath(tmp_dir, n), io::JoinPath(path, n));
      if (!st.ok()) break;
    }
  }
  (void)fs->Delete(io::JoinPath(path, "_temporary"), true);
  if (!st.ok()) {
    for (const auto& n : names) {
      if (!n.empty()) (void)fs->Delete(io::JoinPath(path, n), false);
    }
    ThrowStatus(st);
  }
  CheckOrThrow(fs->WriteAtomic(io::JoinPath(path, "_SUCCESS"), ""));
}

}  // namespace spate::api
