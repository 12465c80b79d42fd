// Copyright spate authors.
#include "spate/stream/batch_source.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "spate/columnar/builder.h"

namespace spate::stream {

namespace {

class VectorReader final : public BatchReader {
 public:
  VectorReader(BatchPtr batch, std::vector<int> columns)
      : batch_(std::move(batch)), columns_(std::move(columns)) {}
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
  CountingReader(std::unique_ptr<BatchReader> inner, std::atomic<int64_t>* slot)
      : inner_(std::move(inner)), slot_(slot) {}
  Result<BatchPtr> Next() override {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, inner_->Next());
    if (b) {
      rows_ += b->num_rows();
      int64_t prev = slot_->load();
      while (prev < rows_ && !slot_->compare_exchange_weak(prev, rows_)) {
      }
    }
    return b;
  }

 private:
  std::unique_ptr<BatchReader> inner_;
  std::atomic<int64_t>* slot_;
  int64_t rows_ = 0;
};

}  // namespace

BatchesDataSource::BatchesDataSource(SchemaPtr schema, std::vector<BatchPtr> batches,
                                     std::string description)
    : schema_(std::move(schema)), description_(std::move(description)) {
  for (auto& b : batches) {
    if (b && b->num_rows() > 0) batches_.push_back(std::move(b));
  }
}

Result<std::unique_ptr<BatchReader>> BatchesDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  if (split < 0 || split >= num_splits()) return MakeEmptyReader();
  return std::unique_ptr<BatchReader>(new VectorReader(batches_[split], spec.columns));
}

CountingDataSource::CountingDataSource(DataSourcePtr inner)
    : inner_(std::move(inner)),
      per_split_(std::make_shared<std::vector<std::atomic<int64_t>>>(
          static_cast<size_t>(std::max(0, inner_->num_splits())))) {}

Result<std::unique_ptr<BatchReader>> CountingDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  SPATE_ASSIGN_OR_RETURN(auto reader, inner_->OpenSplit(split, spec));
  if (split < 0 || split >= static_cast<int>(per_split_->size())) return reader;
  return std::unique_ptr<BatchReader>(
      new CountingReader(std::move(reader), &(*per_split_)[static_cast<size_t>(split)]));
}

int64_t CountingDataSource::rows() const {
  int64_t n = 0;
  for (const auto& r : *per_split_) n += r.load();
  return n;
}

namespace {

class ConstantsReader final : public BatchReader {
 public:
  ConstantsReader(std::unique_ptr<BatchReader> inner, SchemaPtr out_schema,
                  std::vector<int> map, std::vector<Value> constants)
      : inner_(std::move(inner)),
        out_schema_(std::move(out_schema)),
        map_(std::move(map)),
        constants_(std::move(constants)) {}
  Result<BatchPtr> Next() override {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, inner_->Next());
    if (!b) return b;
    std::vector<ColumnPtr> cols;
    for (size_t i = 0; i < map_.size(); ++i) {
      cols.push_back(map_[i] >= 0 ? b->column(map_[i])
                                  : MakeConstantColumn(constants_[i], b->num_rows()));
    }
    return Batch::Make(out_schema_, cols, b->num_rows());
  }

 private:
  std::unique_ptr<BatchReader> inner_;
  SchemaPtr out_schema_;
  std::vector<int> map_;
  std::vector<Value> constants_;
};

}  // namespace

ConstantColumnsUnion::ConstantColumnsUnion(SchemaPtr schema, std::vector<Part> parts,
                                           std::string description)
    : schema_(std::move(schema)),
      parts_(std::move(parts)),
      description_(std::move(description)) {
  for (size_t p = 0; p < parts_.size(); ++p) {
    for (int s = 0; s < parts_[p].inner->num_splits(); ++s)
      splits_.emplace_back(static_cast<int>(p), s);
  }
}

Result<std::unique_ptr<BatchReader>> ConstantColumnsUnion::OpenSplit(
    int split, const ScanSpec& spec) const {
  auto [p, inner_split] = splits_[split];
  const Part& part = parts_[p];
  // Inner column index of each schema field (-1: constant).
  std::vector<int> inner_index(schema_->num_fields(), -1);
  int next = 0;
  for (int i = 0; i < schema_->num_fields(); ++i) {
    if (!part.constants[i]) inner_index[i] = next++;
  }
  ScanSpec inner_spec;
  std::vector<int> map;
  std::vector<Value> constants;
  std::vector<Field> fields;
  for (int c : spec.columns) {
    fields.push_back(schema_->field(c));
    if (part.constants[c]) {
      map.push_back(-1);
      constants.push_back(*part.constants[c]);
    } else {
      map.push_back(static_cast<int>(inner_spec.columns.size()));
      inner_spec.columns.push_back(inner_index[c]);
      constants.emplace_back();
    }
  }
  SPATE_ASSIGN_OR_RETURN(auto reader, part.inner->OpenSplit(inner_split, inner_spec));
  return std::unique_ptr<BatchReader>(
      new ConstantsReader(std::move(reader), std::make_shared<const Schema>(fields),
                          std::move(map), std::move(constants)));
}

void FaultPoint(const char* name) {
  // SPATE_FAULT_TRACE_FD=<fd>: each point passed is reported as "<name>\n" on that file
  // descriptor (one write, so lines from threads do not interleave), so a crash test can
  // pick its kill instant from the child's progress.
  static const int trace_fd = [] {
    const char* fd = std::getenv("SPATE_FAULT_TRACE_FD");
    return fd && *fd ? std::atoi(fd) : -1;
  }();
  if (trace_fd >= 0) {
    std::string line = std::string(name) + "\n";
    (void)!::write(trace_fd, line.data(), line.size());
  }
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
