// Copyright spate authors.
#include "spate/stream/batch_source.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace spate::stream {

namespace {

class VectorReader final : public BatchReader {
 public:
  VectorReader(BatchPtr batch, std::vector<int> columns) : batch_(std::move(batch)), columns_(std::move(columns)) {}
  Result<BatchPtr> Next() override {
    if (!batch_) return BatchPtr();
    BatchPtr b = std::move(batch_);
    batch_.reset();
    std::vector<Field> fields;
    std::vector<ColumnPtr> cols;
    for (int c : columns_) {
      fields.push_back(b->schema()->field(c));
      cols.push_back(b->column(c));
    }
    return Batch::Make(std::make_shared<const Schema>(fields), cols, b->num_rows());
  }

 private:
  BatchPtr batch_;
  std::vector<int> columns_;
};

class CountingReader final : public BatchReader {
 public:
  CountingReader(std::unique_ptr<BatchReader> inner, std::shared_ptr<std::atomic<int64_t>> counter)
      : inner_(std::move(inner)), counter_(std::move(counter)) {}
  Result<BatchPtr> Next() override {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, inner_->Next());
    if (b) counter_->fetch_add(b->num_rows());
    return b;
  }

 private:
  std::unique_ptr<BatchReader> inner_;
  std::shared_ptr<std::atomic<int64_t>> counter_;
};

}  // namespace

BatchesDataSource::BatchesDataSource(SchemaPtr schema, std::vector<BatchPtr> batches, std::string description)
    : schema_(std::move(schema)), description_(std::move(description)) {
  for (auto& b : batches) {
    if (b && b->num_rows() > 0) batches_.push_back(std::move(b));
  }
}

Result<std::unique_ptr<BatchReader>> BatchesDataSource::OpenSplit(int split, const ScanSpec& spec) const {
  if (split < 0 || split >= num_splits()) return MakeEmptyReader();
  return std::unique_ptr<BatchReader>(new VectorReader(batches_[split], spec.columns));
}

Result<std::unique_ptr<BatchReader>> CountingDataSource::OpenSplit(int split, const ScanSpec& spec) const {
  SPATE_ASSIGN_OR_RETURN(auto reader, inner_->OpenSplit(split, spec));
  return std::unique_ptr<BatchReader>(new CountingReader(std::move(reader), counter_));
}

void FaultPoint(const char* name) {
  static const char* spec = std::getenv("SPATE_FAULT");
  if (!spec || !*spec) return;
  static std::mutex mu;
  static int hits = 0;
  const char* colon = std::strchr(spec, ':');
  size_t len = colon ? static_cast<size_t>(colon - spec) : std::strlen(spec);
  if (std::strlen(name) != len || std::strncmp(spec, name, len) != 0) return;
  int want = colon ? std::atoi(colon + 1) : 1;
  std::lock_guard<std::mutex> lock(mu);
  if (++hits >= want) {
    std::raise(SIGKILL);
    _exit(137);
  }
}

}  // namespace spate::stream
