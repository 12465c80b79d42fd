// Copyright spate authors.
#pragma once

// Generate: runs a generator (explode, posexplode, inline, ... see compute/generators.h)
// over each input batch, streaming: per batch the generator's per-row element counts give
// a row index vector; the child's columns are gathered with Take and the generated
// columns appended. Partitions map one to one onto the child's.
//
// Thread safety: immutable; partitions may be opened concurrently.
// Failure: generator argument evaluation errors are returned from Next().

#include <memory>
#include <string>
#include <vector>

#include "spate/compute/generators.h"
#include "spate/exec/physical_op.h"

namespace spate::exec {

class Generate final : public PhysicalOp {
 public:
  /// `schema` = child's columns ++ generated columns; `child_labels` / `output_labels`
  /// name them in EXPLAIN ("id#0L").
  Generate(SchemaPtr schema, std::shared_ptr<const GeneratorSpec> generator,
           std::vector<std::string> child_labels, std::vector<std::string> output_labels,
           PhysicalOpPtr child);

  int num_partitions() const override { return child().num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  /// Spark's form: "Generate explode(arr#1), [id#0L], false, [col#5]".
  std::string Describe() const override;

  /// Applies the generator to one batch.
  Result<BatchPtr> Apply(const Batch& input, const EvalContext& eval) const;

 private:
  std::shared_ptr<const GeneratorSpec> generator_;
  std::vector<std::string> child_labels_;
  std::vector<std::string> output_labels_;
};

}  // namespace spate::exec
