// Copyright spate authors.
// Spark 4.2's vector functions over ARRAY<FLOAT>: vector_inner_product,
// vector_cosine_similarity, vector_l2_distance, vector_norm and vector_normalize (the
// vector_sum / vector_avg aggregates are in aggregate_vector.cc). Arguments must be
// ARRAY<FLOAT> (and the degree FLOAT) exactly: Spark casts nothing. A NULL array gives
// NULL, so does a NULL element; arrays of different lengths are VECTOR_DIMENSION_MISMATCH
// (checked before the elements); a degree other than 1, 2 or +inf is
// INVALID_VECTOR_NORM_DEGREE (checked before the elements, after a NULL array).
//
// The arithmetic is single precision in Spark's order, so that results equal Spark's bit
// for bit: each block of 8 terms is summed left to right and added to the running total,
// then the remaining terms one by one (BlockSum); square roots are taken in double and
// rounded to float. x86-64's baseline instruction set has no FMA for the compiler to
// contract a product and a sum into.

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "spate/compute/function_args.h"
#include "spate/compute/nested_columns.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

const char* const kVectorType = "\"ARRAY<FLOAT>\"";

bool IsFloatArray(const BoundExprPtr& e) {
  const DataType& t = *e->type();
  return t.id() == TypeId::kArray && t.element_type()->id() == TypeId::kFloat;
}

Status DimensionMismatch(const std::string& name, int64_t left, int64_t right) {
  return Status::Error("VECTOR_DIMENSION_MISMATCH",
                       {{"functionName", "`" + name + "`"},
                        {"leftDim", std::to_string(left)},
                        {"rightDim", std::to_string(right)}});
}

// Spark's sum of `n` terms: blocks of 8 summed left to right, each added to the total.
template <typename Term>
float BlockSum(int32_t n, const Term& term) {
  float total = 0.0f;
  int32_t i = 0;
  for (int32_t limit = n / 8 * 8; i < limit; i += 8) {
    float block = term(i);
    for (int32_t k = 1; k < 8; ++k) block += term(i + k);
    total += block;
  }
  for (; i < n; ++i) total += term(i);
  return total;
}

float Sqrt(float x) { return static_cast<float>(std::sqrt(static_cast<double>(x))); }

// One array row: its floats and whether any element is NULL.
struct VectorRow {
  const float* v = nullptr;
  int32_t len = 0;
  bool has_null = false;
};

VectorRow RowOf(const Column& list, int64_t i) {
  const int32_t* off = list.offsets();
  const Column& el = *list.child(0);
  VectorRow r;
  r.v = el.raw_values<float>() + off[i];
  r.len = off[i + 1] - off[i];
  if (el.null_count() > 0) {
    for (int32_t j = off[i]; j < off[i + 1] && !r.has_null; ++j)
      r.has_null = el.IsNull(j);
  }
  return r;
}

// ---- two vectors -> FLOAT
// ----------------------------------------------------------------

// The value of a pair of equal-length vectors without NULL elements; false for NULL.
using PairFn = bool (*)(const float* a, const float* b, int32_t n, float* out);

bool InnerProduct(const float* a, const float* b, int32_t n, float* out) {
  *out = BlockSum(n, [&](int32_t i) { return a[i] * b[i]; });
  return true;
}

bool CosineSimilarity(const float* a, const float* b, int32_t n, float* out) {
  if (n == 0) return false;
  float dot = BlockSum(n, [&](int32_t i) { return a[i] * b[i]; });
  float norm_a = BlockSum(n, [&](int32_t i) { return a[i] * a[i]; });
  float norm_b = BlockSum(n, [&](int32_t i) { return b[i] * b[i]; });
  float norms = Sqrt(norm_a * norm_b);
  if (norms < FLT_MIN) return false;  // zero magnitude (a NaN goes on, as Spark)
  *out = dot / norms;
  return true;
}

bool L2Distance(const float* a, const float* b, int32_t n, float* out) {
  *out = Sqrt(BlockSum(n, [&](int32_t i) {
    float d = a[i] - b[i];
    return d * d;
  }));
  return true;
}

Result<BoundExprPtr> ResolvePair(const std::string& name, PairFn f, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  for (size_t i = 0; i < 2; ++i) {
    if (!IsFloatArray(args[i])) return fn::UnexpectedType(name, args, i, kVectorType);
  }
  return MakeScalarCall(
      name, DataType::Float(), true, args,
      [name, f](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        kernel::Out<float> out(n);
        for (int64_t i = 0; i < n; ++i) {
          out.data[i] = 0.0f;
          if (!mask.Valid(i)) continue;
          VectorRow a = RowOf(*c[0], i), b = RowOf(*c[1], i);
          if (a.len != b.len) return DimensionMismatch(name, a.len, b.len);
          if (a.has_null || b.has_null || !f(a.v, b.v, a.len, &out.data[i])) {
            mask.SetNull(i);
          }
        }
        return kernel::MakeColumn(DataType::Float(), n, mask.null_count(),
                                  mask.validity(), out.buf);
      });
}

// ---- vector_norm / vector_normalize
// ------------------------------------------------------

enum class Degree : uint8_t { kL1, kL2, kInf };

Result<Degree> DegreeOf(const std::string& name, float degree) {
  if (degree == 1.0f) return Degree::kL1;
  if (degree == 2.0f) return Degree::kL2;
  if (degree == std::numeric_limits<float>::infinity()) return Degree::kInf;
  return Status::Error("INVALID_VECTOR_NORM_DEGREE", {{"functionName", "`" + name + "`"},
                                                      {"degree", FormatFloat(degree)}});
}

float Norm(Degree d, const float* v, int32_t n) {
  switch (d) {
    case Degree::kL1:
      return BlockSum(n, [&](int32_t i) { return std::fabs(v[i]); });
    case Degree::kL2:
      return Sqrt(BlockSum(n, [&](int32_t i) { return v[i] * v[i]; }));
    case Degree::kInf:
      break;
  }
  float max_abs = 0.0f;
  for (int32_t i = 0; i < n; ++i) {
    float a = std::fabs(v[i]);
    if (a > max_abs) max_abs = a;  // NaN never wins, as Spark's comparison
  }
  return max_abs;
}

// vector(v[, degree]): checks the types and appends the default degree 2.0 (Spark shows
// it in the column name).
Status NormArgs(const std::string& name, Args& args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 2, "[1, 2]"));
  if (args.size() == 1) args.push_back(MakeLiteral(Value::Float(2.0f)));
  if (!IsFloatArray(args[0])) return fn::UnexpectedType(name, args, 0, kVectorType);
  if (args[1]->type()->id() != TypeId::kFloat) {
    return fn::UnexpectedType(name, args, 1, "\"FLOAT\"");
  }
  return Status::OK();
}

Result<BoundExprPtr> ResolveNorm(Args args, const ResolveContext&) {
  const std::string name = "vector_norm";
  SPATE_RETURN_IF_ERROR(NormArgs(name, args));
  return MakeScalarCall(
      name, DataType::Float(), true, args,
      [name](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        const float* degree = c[1]->raw_values<float>();
        kernel::Out<float> out(n);
        for (int64_t i = 0; i < n; ++i) {
          out.data[i] = 0.0f;
          if (!mask.Valid(i)) continue;
          SPATE_ASSIGN_OR_RETURN(Degree d, DegreeOf(name, degree[i]));
          VectorRow v = RowOf(*c[0], i);
          if (v.has_null) {
            mask.SetNull(i);
          } else {
            out.data[i] = Norm(d, v.v, v.len);
          }
        }
        return kernel::MakeColumn(DataType::Float(), n, mask.null_count(),
                                  mask.validity(), out.buf);
      });
}

Result<BoundExprPtr> ResolveNormalize(Args args, const ResolveContext&) {
  const std::string name = "vector_normalize";
  SPATE_RETURN_IF_ERROR(NormArgs(name, args));
  DataTypePtr type = DataType::Array(DataType::Float(), true);
  return MakeScalarCall(
      name, type, true, args,
      [name, type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        const float* degree = c[1]->raw_values<float>();
        std::vector<int32_t> offsets{0};
        std::vector<uint8_t> valid(static_cast<size_t>(n), 0);
        std::vector<float> values;
        for (int64_t i = 0; i < n; ++i) {
          if (mask.Valid(i)) {
            SPATE_ASSIGN_OR_RETURN(Degree d, DegreeOf(name, degree[i]));
            VectorRow v = RowOf(*c[0], i);
            float norm = v.has_null ? 0.0f : Norm(d, v.v, v.len);
            // An empty vector stays empty; a zero norm (or a NULL element) is NULL.
            if (!v.has_null && (v.len == 0 || !(norm < FLT_MIN))) {
              valid[i] = 1;
              for (int32_t j = 0; j < v.len; ++j) values.push_back(v.v[j] / norm);
            }
          }
          offsets.push_back(static_cast<int32_t>(values.size()));
        }
        auto m = static_cast<int64_t>(values.size());
        kernel::Out<float> elements(m);
        if (m > 0)
          std::memcpy(elements.data, values.data(), values.size() * sizeof(float));
        ColumnPtr child =
            kernel::MakeColumn(DataType::Float(), m, 0, nullptr, elements.buf);
        return MakeListColumn(type, offsets, valid, std::move(child));
      });
}

}  // namespace

void RegisterVectorFunctions(FunctionRegistry& r) {
  r.RegisterScalar("vector_inner_product", [](Args a, const ResolveContext&) {
    return ResolvePair("vector_inner_product", InnerProduct, std::move(a));
  });
  r.RegisterScalar("vector_cosine_similarity", [](Args a, const ResolveContext&) {
    return ResolvePair("vector_cosine_similarity", CosineSimilarity, std::move(a));
  });
  r.RegisterScalar("vector_l2_distance", [](Args a, const ResolveContext&) {
    return ResolvePair("vector_l2_distance", L2Distance, std::move(a));
  });
  r.RegisterScalar("vector_norm", ResolveNorm);
  r.RegisterScalar("vector_normalize", ResolveNormalize);
}

}  // namespace spate
