// Copyright spate authors.
#include "spate/exec/file_scan.h"

#include <algorithm>
#include <filesystem>

#include "spate/compute/input_file.h"

namespace spate::exec {

namespace {

class FileScanStream final : public BatchStream {
 public:
  FileScanStream(std::unique_ptr<BatchReader> reader, SchemaPtr schema,
                 std::vector<int> columns, std::string path = {})
      : reader_(std::move(reader)),
        schema_(std::move(schema)),
        columns_(std::move(columns)),
        path_(std::move(path)) {
    // The block input_file_block_length() reports: the whole file (spate reads whole
    // files).
    std::error_code ec;
    if (!path_.empty()) {
      auto size = std::filesystem::file_size(path_, ec);
      if (!ec) length_ = static_cast<int64_t>(size);
    }
  }
  ~FileScanStream() override {
    if (!path_.empty()) SetInputFileName({});
  }

  Result<BatchPtr> Next() override {
    if (!reader_) return BatchPtr();
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, reader_->Next());
    // input_file_name() of the rows handed up the pipeline on this thread.
    SetInputFileName(b ? std::string_view(path_) : std::string_view(), length_);
    if (!b) return BatchPtr();
    if (static_cast<int>(columns_.size()) == schema_->num_fields()) {
      bool identity = true;
      for (size_t i = 0; i < columns_.size(); ++i)
        identity &= columns_[i] == static_cast<int>(i);
      if (identity) return b->WithSchema(schema_);
    }
    std::vector<ColumnPtr> cols(static_cast<size_t>(schema_->num_fields()));
    for (size_t i = 0; i < columns_.size(); ++i)
      cols[static_cast<size_t>(columns_[i])] = b->column(static_cast<int>(i));
    for (int i = 0; i < schema_->num_fields(); ++i) {
      if (!cols[i]) cols[i] = Column::MakeNull(schema_->field(i).type, b->num_rows());
    }
    return Batch::Make(schema_, std::move(cols), b->num_rows());
  }

 private:
  std::unique_ptr<BatchReader> reader_;
  SchemaPtr schema_;
  std::vector<int> columns_;
  std::string path_;
  int64_t length_ = -1;
};

}  // namespace

FileScan::FileScan(SchemaPtr schema, DataSourcePtr source, bool all_columns,
                   std::vector<int> columns, std::vector<ScanPredicate> predicates,
                   std::string label)
    : PhysicalOp(std::move(schema), {}),
      source_(std::move(source)),
      label_(std::move(label)) {
  if (all_columns) {
    columns.clear();
    for (int i = 0; i < this->schema()->num_fields(); ++i) columns.push_back(i);
  }
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  spec_.columns = std::move(columns);
  spec_.predicates = std::move(predicates);
}

int FileScan::num_partitions() const { return std::max(1, source_->num_splits()); }

Result<BatchStreamPtr> FileScan::Open(int partition, ExecContext*) const {
  if (partition >= source_->num_splits()) {
    return BatchStreamPtr(
        std::make_unique<FileScanStream>(nullptr, schema(), spec_.columns));
  }
  SPATE_ASSIGN_OR_RETURN(auto reader, source_->OpenSplit(partition, spec_));
  return BatchStreamPtr(std::make_unique<FileScanStream>(
      std::move(reader), schema(), spec_.columns, source_->SplitPath(partition)));
}

}  // namespace spate::exec
