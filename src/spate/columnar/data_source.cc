// Copyright spate authors.
#include "spate/columnar/data_source.h"

namespace spate {

namespace {
class EmptyReader final : public BatchReader {
 public:
  Result<BatchPtr> Next() override { return BatchPtr(); }
};
}  // namespace

std::unique_ptr<BatchReader> MakeEmptyReader() { return std::make_unique<EmptyReader>(); }

}  // namespace spate
