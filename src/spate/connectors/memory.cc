// Copyright spate authors.
#include "spate/connectors/memory.h"

#include <iostream>

#include "spate/base/text_parse.h"
#include "spate/stream/batch_source.h"
#include "spate/types/data_type.h"

namespace spate::connectors {

std::string GetOption(const std::map<std::string, std::string>& options,
                      const std::string& key, const std::string& dflt) {
  std::string k = ToLower(key);
  for (const auto& [name, v] : options) {
    if (ToLower(name) == k) return v;
  }
  return dflt;
}

bool HasOption(const std::map<std::string, std::string>& options,
               const std::string& key) {
  std::string k = ToLower(key);
  for (const auto& [name, v] : options) {
    if (ToLower(name) == k) return true;
  }
  return false;
}

// ---- MemoryStream

MemoryStream::MemoryStream(SchemaPtr schema) : schema_(std::move(schema)) {}

int64_t MemoryStream::AddData(BatchPtr batch) {
  std::lock_guard<std::mutex> lock(mu_);
  batches_.push_back(std::move(batch));
  current_ = base_ + static_cast<int64_t>(batches_.size()) - 1;
  return current_;
}

int64_t MemoryStream::current_offset() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

stream::SourceFactory MemoryStream::Factory() {
  auto self = shared_from_this();
  return [self](const stream::SourceContext&) -> Result<stream::SourcePtr> {
    return stream::SourcePtr(self);
  };
}

std::string MemoryStream::Describe() const {
  std::string s = "MemoryStream[";
  for (int i = 0; i < schema_->num_fields(); ++i)
    s += (i ? "," : "") + schema_->field(i).name;
  return s + "]";
}

Result<std::optional<Json>> MemoryStream::LatestOffset(const std::optional<Json>&) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ < 0) return std::optional<Json>();
  return std::optional<Json>(Json::Int(current_));
}

Result<DataSourcePtr> MemoryStream::GetBatch(const std::optional<Json>& start,
                                             const Json& end) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t from = start ? start->int_value() + 1 : 0;
  int64_t to = end.int_value();
  if (from < base_) {
    return Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", "MemoryStream: batches from offset " + std::to_string(from) +
                     " were already committed and released"}});
  }
  std::vector<BatchPtr> out;
  for (int64_t o = from; o <= to && o - base_ < static_cast<int64_t>(batches_.size());
       ++o) {
    out.push_back(batches_[static_cast<size_t>(o - base_)]);
  }
  return DataSourcePtr(
      std::make_shared<stream::BatchesDataSource>(schema_, std::move(out), Describe()));
}

Status MemoryStream::Commit(const Json& end) {
  // Batches are kept (not released as Spark's MemoryStream does): a test may drop a
  // commit and replay a batch, and an embedder may restart from an older checkpoint.
  (void)end;
  return Status::OK();
}

// ---- MemorySink

Result<int64_t> MemorySink::AddBatch(const stream::MicroBatch& batch) {
  // Real-time mode: the pieces of the open batch are appended to it.
  bool piece_of_open = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    piece_of_open = batch.real_time_piece && batch.batch_id == open_real_time_ &&
                    !batches_.empty() && batches_.back().first == batch.batch_id;
    if (!piece_of_open && batch.batch_id <= latest_) return int64_t{0};  // a replay
  }
  SPATE_ASSIGN_OR_RETURN(auto rows, batch.Collect());
  int64_t n = 0;
  for (const auto& b : rows) n += b->num_rows();
  SchemaPtr schema = batch.analyzed->OutputSchema();
  std::vector<BatchPtr> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    schema_ = schema;
    if (piece_of_open) {
      auto& open = batches_.back().second;
      open.insert(open.end(), rows.begin(), rows.end());
    } else {
      if (mode_ == stream::OutputMode::kComplete) batches_.clear();
      batches_.emplace_back(batch.batch_id, std::move(rows));
      if (batch.real_time_piece) open_real_time_ = batch.batch_id;
    }
    latest_ = batch.batch_id;
    for (const auto& [id, bs] : batches_) all.insert(all.end(), bs.begin(), bs.end());
  }
  if (publish_) SPATE_RETURN_IF_ERROR(publish_(schema, all));
  return n;
}

Status MemorySink::FinishRealTimeBatch(int64_t batch_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_real_time_ == batch_id) open_real_time_ = -1;
  return Status::OK();
}

std::vector<BatchPtr> MemorySink::AllData() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<BatchPtr> all;
  for (const auto& [id, bs] : batches_) all.insert(all.end(), bs.begin(), bs.end());
  return all;
}

std::vector<BatchPtr> MemorySink::LastBatch() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (batches_.empty()) return {};
  return batches_.back().second;
}

SchemaPtr MemorySink::schema() const {
  std::lock_guard<std::mutex> lock(mu_);
  return schema_;
}

int64_t MemorySink::latest_batch_id() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

void MemorySink::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  batches_.clear();
}

// ---- ConsoleSink

Result<std::shared_ptr<ConsoleSink>> ConsoleSink::Make(
    const std::map<std::string, std::string>& options, std::ostream* out) {
  std::string n = GetOption(options, "numRows", "20");
  const std::optional<int32_t> num_rows = ParseInt32(n);
  if (!num_rows) {
    return Status::Invalid("Invalid value '" + n +
                           "' for option 'numRows', must be a positive integer");
  }
  std::string t = ToLower(GetOption(options, "truncate", "true"));
  int truncate = t == "false" ? 0 : 20;
  return std::make_shared<ConsoleSink>(*num_rows, truncate, out);
}

Result<int64_t> ConsoleSink::AddBatch(const stream::MicroBatch& batch) {
  SPATE_ASSIGN_OR_RETURN(auto rows, batch.Collect());
  int64_t n = 0;
  for (const auto& b : rows) n += b->num_rows();
  auto local = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kLocalRelation);
  local->schema = batch.analyzed->OutputSchema();
  local->batches = rows;
  SPATE_ASSIGN_OR_RETURN(std::string grid,
                         batch.runner->ShowString(local, num_rows_, truncate_));
  std::ostream& os = out_ ? *out_ : std::cout;
  os << "-------------------------------------------\n"
     << "Batch: " << batch.batch_id << "\n"
     << "-------------------------------------------\n"
     << grid << "\n";
  os.flush();
  return n;
}

// ---- ForeachBatchSink / NoopSink

Result<int64_t> ForeachBatchSink::AddBatch(const stream::MicroBatch& batch) {
  SPATE_RETURN_IF_ERROR(fn_(batch));
  return int64_t{-1};
}

Result<int64_t> NoopSink::AddBatch(const stream::MicroBatch& batch) {
  SPATE_ASSIGN_OR_RETURN(auto rows, batch.Collect());
  int64_t n = 0;
  for (const auto& b : rows) n += b->num_rows();
  return n;
}

}  // namespace spate::connectors
