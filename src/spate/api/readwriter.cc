// Copyright spate authors.
#include "spate/api/readwriter.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>

#include "spate/api/delta_table.h"
#include "spate/api/session_state.h"
#include "spate/api/streaming.h"
#include "spate/base/text_parse.h"
#include "spate/columnar/kernels.h"
#include "spate/connectors/kafka.h"
#include "spate/connectors/nexmark.h"
#include "spate/exec/executor.h"
#include "spate/exec/physical_plan.h"
#include "spate/formats/csv_source.h"
#include "spate/formats/file_writer.h"
#include "spate/formats/json_source.h"
#include "spate/formats/parquet_source.h"
#include "spate/formats/text_writers.h"
#include "spate/sql/parser.h"
#include "spate/stream/state_data_source.h"

namespace spate::api {

namespace {

std::string Lower(std::string s) { return ToLower(s); }

void CheckFormat(const std::string& format) {
  if (Lower(format) != "parquet")
    ThrowStatus(Status::Error("DATA_SOURCE_NOT_FOUND", {{"provider", format}}));
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

DataFrame DataFrameReader::load() const { return load(std::vector<std::string>{}); }

DataFrame DataFrameReader::load(const std::vector<std::string>& paths) const {
  const std::string fmt = Lower(format_);
  if (fmt == "kafka") {
    if (schema_) {
      ThrowStatus(Status::Invalid(
          "requirement failed: Kafka source has a fixed schema and cannot be set with a "
          "custom one"));
    }
    auto source = ValueOrThrow(connectors::kafka::MakeKafkaRelation(options_));
    auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
    plan->source = source;
    return DataFrame(session_, plan);
  }
  if (fmt == "nexmark") {
    if (schema_) ThrowStatus(Status::Invalid("The nexmark source has a fixed schema"));
    auto source = ValueOrThrow(connectors::MakeNexmarkRelation(options_));
    auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
    plan->source = source;
    return DataFrame(session_, plan);
  }
  if (fmt == "statestore" || fmt == "state-metadata") {
    // State as a table (stream/state_data_source.h): the checkpoint is the path, or the
    // "path" option as Spark's.
    if (schema_) {
      ThrowStatus(
          Status::Error("STDS_INVALID_OPTION_VALUE.WITH_MESSAGE",
                        {{"optionName", "schema"},
                         {"message", "the " + fmt + " source has a fixed schema"}}));
    }
    if (paths.size() > 1)
      ThrowStatus(
          Status::Invalid("format(\"" + fmt + "\").load() takes one checkpoint path"));
    std::string path = paths.empty() ? "" : paths[0];
    for (const auto& [k, v] : options_) {
      if (path.empty() && Lower(k) == "path") path = v;
    }
    auto fs = io::LocalFileSystem::Get();
    auto source = ValueOrThrow(fmt == "statestore"
                                   ? stream::MakeStateStoreSource(fs, path, options_)
                                   : stream::MakeStateMetadataSource(fs, path));
    auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
    plan->source = source;
    return DataFrame(session_, plan);
  }
  if (fmt == "delta") {
    if (schema_) ThrowStatus(Status::Error("DELTA_UNSUPPORTED_SCHEMA_DURING_READ"));
    if (paths.size() != 1)
      ThrowStatus(Status::Invalid("format(\"delta\").load() takes exactly one path"));
    return LoadDelta(session_, paths[0], options_);
  }
  if (paths.size() == 1 &&
      (fmt == "csv" || fmt == "json" || fmt == "text" || fmt == "parquet")) {
    // The output of a streaming file sink: read only the files its log committed.
    if (auto df = LoadFileSinkOutput(*this, paths[0])) return *df;
  }
  // Partition discovery's type inference follows the session (as Spark, whatever a read
  // option of that name says).
  std::map<std::string, std::string> options;
  const std::string infer_key = formats::kPartitionTypeInferenceOption;
  for (const auto& [k, v] : options_)
    if (Lower(k) != Lower(infer_key)) options[k] = v;
  options[infer_key] = session_->conf.GetOr(infer_key, "true");
  if (fmt == "csv") {
    auto source = ValueOrThrow(formats::CsvDataSource::Make(
        io::LocalFileSystem::Get(), paths, schema_, options,
        session_->conf.session_time_zone(),
        session_->conf.GetOr("spark.sql.columnNameOfCorruptRecord", "_corrupt_record"),
        formats::CsvDataSource::kDefaultSplitBytes, FilePackingOf(*session_)));
    auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
    plan->source = source;
    return DataFrame(session_, plan);
  }
  if (fmt == "json" || fmt == "text") {
    auto kind = fmt == "json" ? formats::LineFileDataSource::Format::kJson
                              : formats::LineFileDataSource::Format::kText;
    auto source = ValueOrThrow(formats::LineFileDataSource::Make(
        io::LocalFileSystem::Get(), kind, paths, schema_, options,
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
  const bool infer = Lower(options[infer_key]) != "false";
  auto source = ValueOrThrow(
      formats::ParquetDataSource::Make(io::LocalFileSystem::Get(), paths, schema_, merge,
                                       infer, session_->conf.session_time_zone()));
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
DataFrame DataFrameReader::csv(const std::string& path) const {
  return DataFrameReader(*this).format("csv").load(path);
}
DataFrame DataFrameReader::csv(const std::vector<std::string>& paths) const {
  return DataFrameReader(*this).format("csv").load(paths);
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
  format_set_ = true;
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

void DataFrameWriter::json(const std::string& path) const {
  DataFrameWriter(*this).format("json").save(path);
}
void DataFrameWriter::csv(const std::string& path) const {
  DataFrameWriter(*this).format("csv").save(path);
}
void DataFrameWriter::text(const std::string& path) const {
  DataFrameWriter(*this).format("text").save(path);
}

void DataFrameWriter::saveAsTable(const std::string& name) const {
  SaveAsTable(df_, name, mode_, format_set_ ? format_ : "delta", partition_by_, options_);
}

void DataFrameWriter::insertInto(const std::string& name, bool overwrite) const {
  InsertIntoTable(df_, name, overwrite || mode_ == "overwrite");
}

DataFrame DataFrameReader::table(const std::string& name) const {
  for (const auto& [k, v] : options_) {
    if ((Lower(k) == "readchangefeed" || Lower(k) == "readchangedata") &&
        Lower(v) == "true") {
      // The table's change data feed (delta-spark: spark.read.option(...).table(name)).
      return LoadDelta(session_, TablePath(session_, name), options_);
    }
  }
  return SparkSession(session_).table(name);
}

void DataFrameWriter::save() const {
  if (Lower(format_) != "kafka") {
    ThrowStatus(Status::Invalid("'path' is not specified"));
  }
  save(std::string());
}

void DataFrameWriter::save(const std::string& path) const {
  const std::string fmt = Lower(format_);
  if (fmt == "kafka") {
    const auto& state = df_.session();
    CheckOrThrow(connectors::kafka::WriteKafka(df_.analyzed(), state->MakeExecOptions(),
                                               options_, mode_));
    return;
  }
  if (fmt == "delta") {
    SaveDelta(df_, path, mode_, partition_by_, options_);
    return;
  }
  if (fmt != "json" && fmt != "csv" && fmt != "text") CheckFormat(format_);
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
  formats::FileWriterFactoryPtr factory;
  if (fmt == "json") {
    factory = ValueOrThrow(
        formats::MakeJsonWriterFactory(options_, state->conf.session_time_zone()));
  } else if (fmt == "csv") {
    factory = ValueOrThrow(
        formats::MakeCsvWriterFactory(options_, state->conf.session_time_zone()));
  } else if (fmt == "text") {
    factory = ValueOrThrow(formats::MakeTextWriterFactory(options_));
  } else {
    factory = ValueOrThrow(formats::MakeParquetWriterFactory(
        options_, state->conf.GetOr("spark.sql.parquet.compression.codec", "snappy")));
  }
  formats::WriteJobOptions jopt;
  jopt.output_dir = path;
  jopt.partition_columns = partition_by_;
  for (const auto& [k, v] : options_) {
    // Spark: v.toLong, a NumberFormatException naming v.
    if (Lower(k) == "maxrecordsperfile")
      jopt.max_records_per_file = ValueOrThrow(ParseLong(v));
  }
  SchemaPtr schema = df_.analyzed()->OutputSchema();
  auto physical =
      ValueOrThrow(exec::CreatePhysicalPlan(df_.analyzed(), state->MakeExecOptions()));
  auto job = ValueOrThrow(formats::PartitionedWriteJob::Make(
      fs, factory, schema, jopt, physical->root()->num_partitions()));
  if (fmt != "parquet") {
    // Spark checks the schema before writing anything (text: one STRING column).
    Status check = formats::CheckWriteSchema(fmt, *job->data_schema());
    if (!check.ok()) {
      job->Abort();
      ThrowStatus(check);
    }
  }
  Status st = exec::ExecuteToSink(
      *physical, state->MakeExecOptions(),
      [&](int p, const BatchPtr& b) -> Status { return job->Write(p, b); });
  if (!st.ok()) {
    job->Abort();
    ThrowStatus(st);
  }
  ValueOrThrow(job->Commit());
}

}  // namespace spate::api
