// Copyright spate authors.
#include "spate/columnar/batch.h"

namespace spate {

Batch::Batch(SchemaPtr schema, std::vector<ColumnPtr> columns, int64_t num_rows)
    : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {}

BatchPtr Batch::Empty(SchemaPtr schema) {
  std::vector<ColumnPtr> cols;
  for (const auto& f : schema->fields()) cols.push_back(Column::MakeNull(f.type, 0));
  return Make(std::move(schema), std::move(cols), 0);
}

std::vector<Value> Batch::GetRow(int64_t i) const {
  std::vector<Value> row;
  row.reserve(columns_.size());
  for (const auto& c : columns_) row.push_back(c->GetValue(i));
  return row;
}

BatchPtr Batch::WithSchema(SchemaPtr schema) const {
  return Make(std::move(schema), columns_, num_rows_);
}

}  // namespace spate
