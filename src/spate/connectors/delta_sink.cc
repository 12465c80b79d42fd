// Copyright spate authors.
#include "spate/connectors/delta_sink.h"

#include <chrono>

#include "spate/exec/physical_plan.h"
#include "spate/stream/batch_source.h"
#include "spate/table/delta_writer.h"

namespace spate::connectors {

void DeltaSink::WaitForCompaction() {
  if (compaction_.valid()) compact_.OwnCommitted(compaction_.get());
}

void DeltaSink::CollectFinishedCompaction() {
  if (compaction_.valid() &&
      compaction_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    WaitForCompaction();
}

Result<int64_t> DeltaSink::AddBatch(const stream::MicroBatch& batch) {
  // A complete-mode batch reads the whole table: the compaction in flight would make it
  // conflict (ConcurrentDeleteRead).
  if (batch.output_mode == stream::OutputMode::kComplete) WaitForCompaction();
  table::DeltaWriteOptions w;
  w.mode = batch.output_mode == stream::OutputMode::kComplete ? "overwrite" : "append";
  w.partition_by = o_.partition_by;
  w.options = o_.options;
  w.txn = table::TxnId{batch.query_id, batch.batch_id};
  w.operation = "STREAMING UPDATE";
  w.operation_parameters = {
      {"outputMode", std::string(stream::OutputModeName(batch.output_mode))},
      {"queryId", batch.query_id},
      {"epochId", std::to_string(batch.batch_id)}};
  w.time_zone_id = o_.time_zone_id;
  w.default_codec = o_.default_codec;
  w.log = log_;
  w.async_checkpoint = true;
  auto exec_options = batch.runner->MakeExecOptions();
  SPATE_ASSIGN_OR_RETURN(auto physical,
                         exec::CreatePhysicalPlan(batch.analyzed, exec_options));
  SPATE_ASSIGN_OR_RETURN(auto result,
                         table::WritePlan(fs_, o_.path, *physical, exec_options, w));
  stream::FaultPoint("after_sink_commit");
  if (result.already_committed) return int64_t{0};
  // Best effort: the batch is committed whatever happens to the compaction.
  // The full check (a pass over the active files) only when a partition the batch wrote
  // may have reached minNumFiles small files (AutoCompactTracker).
  if (result.partitions_written.empty()) return result.num_output_rows;
  CollectFinishedCompaction();
  if (!compact_.AfterWrite(result, o_.auto_compact)) return result.num_output_rows;
  // The check sees the previous compaction's commit, as after Delta's synchronous hook.
  WaitForCompaction();
  auto plan = table::PlanAutoCompact(fs_, o_.path, o_.auto_compact,
                                     result.partitions_written, log_, &compact_);
  if (!plan.ok() || !*plan) return result.num_output_rows;
  compact_.Planned(**plan, o_.auto_compact);
  compaction_ = std::async(
      std::launch::async,
      [fs = fs_, path = o_.path, tz = o_.time_zone_id, codec = o_.default_codec,
       log = log_, p = std::move(**plan)]() -> int64_t {
        auto v = table::RunAutoCompact(fs, path, p, tz, codec, log);
        return v.ok() ? *v : -1;
      });
  return result.num_output_rows;
}

}  // namespace spate::connectors
