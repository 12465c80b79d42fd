// Copyright spate authors.
// Spark 4.2's aggregates of float vectors: vector_sum (element-wise sum) and vector_avg
// (element-wise running mean) of ARRAY<FLOAT> values, ARRAY<FLOAT> results.
//
// As Spark: the argument must be ARRAY<FLOAT> exactly (nothing is cast); a NULL array and
// an array with a NULL element are skipped; no vector gives NULL; vectors of different
// lengths are VECTOR_DIMENSION_MISMATCH (the group's length first). The arithmetic is
// single precision in Spark's order, so results equal Spark's bit for bit for the same
// rows in the same order and the same partial states:
//   vector_sum  the first vector is copied (a -0.0 stays), then sum[j] += x[j]; partial
//               sums are added the same way
//   vector_avg  the first vector is copied, then avg[j] += (x[j] - avg[j]) * (1.0f / n)
//               with n the count including x; a partial (avg_b, n_b) merges as
//               avg[j] = avg[j] * (n_a / n) + avg_b[j] * (n_b / n), weights in float
// The partial state is the vector (NULL while empty) and the count of vectors.
//
// Thread safety: as aggregate.h.

#include <cstring>
#include <string>
#include <vector>

#include "spate/compute/aggregate_families.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"

namespace spate {

namespace {

using Cols = std::vector<ColumnPtr>;

DataTypePtr VectorType() { return DataType::Array(DataType::Float(), false); }

Status DimensionMismatch(const std::string& name, size_t left, int32_t right) {
  return Status::Error("VECTOR_DIMENSION_MISMATCH",
                       {{"functionName", "`" + name + "`"},
                        {"leftDim", std::to_string(left)},
                        {"rightDim", std::to_string(right)}});
}

class VectorAcc final : public GroupedAccumulator {
 public:
  VectorAcc(std::string name, bool avg) : name_(std::move(name)), avg_(avg) {}
  void Resize(int64_t g) override {
    vectors_.resize(static_cast<size_t>(g));
    counts_.resize(static_cast<size_t>(g), 0);
  }
  Status Update(const Cols& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() != TypeId::kArray) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (c.IsNull(i) || HasNullElement(c, i)) continue;
      SPATE_RETURN_IF_ERROR(Add(gid[i], Elements(c, i), Length(c, i), 1));
    }
    return Status::OK();
  }
  Status Merge(const Cols& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const Column& v = *st[0];
    const int64_t* counts = st[1]->raw_values<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (counts[i] == 0 || v.IsNull(i)) continue;
      SPATE_RETURN_IF_ERROR(Add(gid[i], Elements(v, i), Length(v, i), counts[i]));
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    const auto g = static_cast<int64_t>(counts_.size());
    kernel::Out<int64_t> out(g);
    if (g > 0) std::memcpy(out.data, counts_.data(), counts_.size() * sizeof(int64_t));
    return {Vectors(), kernel::MakeColumn(DataType::Long(), g, 0, nullptr, out.buf)};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override { return Vectors(); }

 private:
  static const float* Elements(const Column& list, int64_t i) {
    return list.child(0)->raw_values<float>() + list.offsets()[i];
  }
  static int32_t Length(const Column& list, int64_t i) {
    return list.offsets()[i + 1] - list.offsets()[i];
  }
  static bool HasNullElement(const Column& list, int64_t i) {
    const Column& el = *list.child(0);
    if (el.null_count() == 0) return false;
    for (int32_t j = list.offsets()[i]; j < list.offsets()[i + 1]; ++j) {
      if (el.IsNull(j)) return true;
    }
    return false;
  }

  // Adds `count` vectors summarized by `x` (one input vector when count is 1, else a
  // partial state) to group g.
  Status Add(uint32_t g, const float* x, int32_t len, int64_t count) {
    std::vector<float>& acc = vectors_[g];
    int64_t& have = counts_[g];
    if (have == 0) {
      acc.assign(x, x + len);
      have = count;
      return Status::OK();
    }
    if (acc.size() != static_cast<size_t>(len))
      return DimensionMismatch(name_, acc.size(), len);
    const int64_t total = have + count;
    if (!avg_) {
      for (int32_t j = 0; j < len; ++j) acc[j] += x[j];
    } else if (count == 1) {
      const float inv = 1.0f / static_cast<float>(total);
      for (int32_t j = 0; j < len; ++j) acc[j] += (x[j] - acc[j]) * inv;
    } else {
      const float wa = static_cast<float>(have) / static_cast<float>(total);
      const float wb = static_cast<float>(count) / static_cast<float>(total);
      for (int32_t j = 0; j < len; ++j) acc[j] = acc[j] * wa + x[j] * wb;
    }
    have = total;
    return Status::OK();
  }

  // One row per group: its vector, NULL for a group without one.
  ColumnPtr Vectors() const {
    std::vector<int32_t> offsets{0};
    std::vector<uint8_t> valid;
    size_t total = 0;
    for (size_t g = 0; g < counts_.size(); ++g) total += vectors_[g].size();
    kernel::Out<float> elements(static_cast<int64_t>(total));
    size_t at = 0;
    for (size_t g = 0; g < counts_.size(); ++g) {
      const std::vector<float>& v = vectors_[g];
      if (!v.empty()) std::memcpy(elements.data + at, v.data(), v.size() * sizeof(float));
      at += v.size();
      offsets.push_back(static_cast<int32_t>(at));
      valid.push_back(counts_[g] > 0 ? 1 : 0);
    }
    ColumnPtr child = kernel::MakeColumn(DataType::Float(), static_cast<int64_t>(total),
                                         0, nullptr, elements.buf);
    return MakeListColumn(VectorType(), offsets, valid, std::move(child));
  }

  std::string name_;
  bool avg_;
  std::vector<std::vector<float>> vectors_;
  std::vector<int64_t> counts_;
};

class VectorFn final : public AggregateFunction {
 public:
  explicit VectorFn(const std::string& name) {
    name_ = name;
    result_type_ = VectorType();
    nullable_ = true;
    state_fields_ = {Field{"vector", VectorType(), true},
                     Field{"count", DataType::Long(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<VectorAcc>(name_, name_ == "vector_avg");
  }
};

}  // namespace

const std::vector<std::string>& VectorAggregateNames() {
  static const std::vector<std::string> kNames = {"vector_sum", "vector_avg"};
  return kNames;
}

Result<AggregateFunctionPtr> MakeVectorAggregate(const std::string& name,
                                                 const std::vector<BoundExprPtr>& args) {
  if (name != "vector_sum" && name != "vector_avg") return AggregateFunctionPtr();
  if (args.size() != 1) return agg::WrongArgs(name, "1", args.size());
  const DataType& t = *args[0]->type();
  if (t.id() != TypeId::kArray || t.element_type()->id() != TypeId::kFloat) {
    return agg::TypeMismatch(name, args, 0, "\"ARRAY<FLOAT>\"");
  }
  return AggregateFunctionPtr(std::make_shared<VectorFn>(name));
}

}  // namespace spate
