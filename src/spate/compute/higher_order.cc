// Copyright spate authors.
#include "spate/compute/higher_order.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/compute/coercion.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/predicates.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;

enum class Hof : uint8_t {
  kTransform,
  kFilter,
  kExists,
  kForall,
  kAggregate,
  kZipWith,
  kArraySort,
  kMapFilter,
  kTransformKeys,
  kTransformValues,
  kMapZipWith,
};

bool LookUp(std::string_view name, Hof* out) {
  static const std::pair<std::string_view, Hof> kNames[] = {
      {"transform", Hof::kTransform},
      {"filter", Hof::kFilter},
      {"exists", Hof::kExists},
      {"forall", Hof::kForall},
      {"aggregate", Hof::kAggregate},
      {"reduce", Hof::kAggregate},
      {"zip_with", Hof::kZipWith},
      {"array_sort", Hof::kArraySort},
      {"map_filter", Hof::kMapFilter},
      {"transform_keys", Hof::kTransformKeys},
      {"transform_values", Hof::kTransformValues},
      {"map_zip_with", Hof::kMapZipWith},
  };
  for (const auto& [n, h] : kNames) {
    if (n == name) {
      if (out) *out = h;
      return true;
    }
  }
  return false;
}

const char* Ordinal(size_t i) {
  static const char* kNames[] = {"first", "second", "third", "fourth", "fifth"};
  return i < 5 ? kNames[i] : "next";
}

Status UnexpectedInput(const std::string& sql_text, size_t index,
                       const std::string& required, const std::string& input_sql,
                       const DataType& input_type) {
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", "\"" + sql_text + "\""},
                        {"paramIndex", Ordinal(index)},
                        {"requiredType", required},
                        {"inputSql", "\"" + input_sql + "\""},
                        {"inputType", QuoteType(input_type)}});
}

Status RequireKind(const std::string& sql_text, const Args& args, size_t i, TypeId id) {
  if (args[i]->type()->id() == id) return Status::OK();
  return UnexpectedInput(sql_text, i, id == TypeId::kArray ? "\"ARRAY\"" : "\"MAP\"",
                         args[i]->ToString(), *args[i]->type());
}

// ---- lambda variables -----------------------------------------------------------------

class LambdaVariable final : public BoundExpr {
 public:
  LambdaVariable(int from_end, DataTypePtr type, bool nullable, std::string name)
      : BoundExpr(std::move(type), nullable),
        from_end_(from_end),
        name_(std::move(name)) {}
  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext&) const override {
    int i = input.num_columns() - from_end_;
    if (i < 0 || !input.column(i))
      return Status::Internal("lambda variable outside its lambda");
    return input.column(i);
  }
  bool IsConstant() const override { return false; }
  std::string ToString() const override { return "lambda " + name_; }
  int from_end() const { return from_end_; }
  const std::string& name() const { return name_; }

 private:
  int from_end_;
  std::string name_;
};

// ---- the flattened elements of a list column ------------------------------------------

/// The elements of the valid rows of an array (or map) column, in order, with the input
/// row of each and compact offsets (NULL rows empty).
struct Flat {
  ColumnPtr values;
  std::vector<int32_t> row;
  std::vector<int32_t> offsets{0};
  std::vector<uint8_t> valid;
  int64_t size() const { return static_cast<int64_t>(row.size()); }
  int32_t length(int64_t r) const { return offsets[r + 1] - offsets[r]; }
};

Flat Flatten(const Column& list) {
  Flat f;
  const int64_t n = list.length();
  const ColumnPtr& child = list.child(0);
  f.offsets.reserve(static_cast<size_t>(n + 1));
  f.valid.reserve(static_cast<size_t>(n));
  if (n == 0) {
    f.values = Take(*child, nullptr, 0);
    return f;
  }
  const int32_t* off = list.offsets();
  bool direct = off[0] == 0 && off[n] == child->length();
  for (int64_t r = 0; r < n; ++r) {
    bool valid = list.IsValid(r);
    int32_t len = off[r + 1] - off[r];
    if (!valid && len != 0) direct = false;
    if (!valid) len = 0;
    f.valid.push_back(valid ? 1 : 0);
    f.offsets.push_back(f.offsets.back() + len);
    f.row.insert(f.row.end(), static_cast<size_t>(len), static_cast<int32_t>(r));
  }
  if (direct) {
    f.values = child;
  } else {
    std::vector<int32_t> take;
    take.reserve(f.row.size());
    for (int64_t r = 0; r < n; ++r) {
      if (!f.valid[r]) continue;
      for (int32_t k = off[r]; k < off[r + 1]; ++k) take.push_back(k);
    }
    f.values = Take(*child, take.data(), static_cast<int64_t>(take.size()));
  }
  return f;
}

ColumnPtr IndexColumn(const Flat& f) {
  kernel::Out<int32_t> out(f.size());
  int64_t k = 0;
  for (size_t r = 0; r + 1 < f.offsets.size(); ++r) {
    for (int32_t i = 0; i < f.offsets[r + 1] - f.offsets[r]; ++i) out.data[k++] = i;
  }
  return kernel::MakeColumn(DataType::Int(), f.size(), 0, nullptr, out.buf);
}

/// `c` with the rows of `mask` that are NULL also NULL.
ColumnPtr MaskNulls(const ColumnPtr& c, const Column& mask) {
  if (mask.null_count() == 0) return c;
  int64_t nulls = 0;
  BufferPtr validity = kernel::AndValidity({c.get(), &mask}, c->length(), &nulls);
  return std::make_shared<const Column>(c->type(), c->length(), nulls,
                                        std::move(validity), c->values(), c->data(),
                                        c->children());
}

// ---- the call -------------------------------------------------------------------------

/// What a lambda body reads from the batch its call is evaluated on: input columns by
/// index (column references) and by position from the end (variables of enclosing
/// lambdas).
struct Reads {
  std::vector<int> columns;
  std::vector<int> from_end;
};

class HigherOrderCall final : public BoundExpr {
 public:
  HigherOrderCall(Hof kind, std::string name, DataTypePtr type, bool nullable,
                  const Args& args, std::vector<BoundLambda> lambdas)
      : BoundExpr(std::move(type), nullable, Children(args, lambdas)),
        kind_(kind),
        name_(std::move(name)),
        num_args_(args.size()),
        lambdas_(std::move(lambdas)) {
    for (const auto& l : lambdas_) {
      Reads r;
      Collect(*l.body, static_cast<int>(l.params.size()), &r);
      reads_.push_back(std::move(r));
    }
  }

  /// Lambda columns a child's batch has beyond this call's input (0 for value arguments).
  int ParamsOfChild(size_t i) const {
    return i < num_args_ ? 0 : static_cast<int>(lambdas_[i - num_args_].params.size());
  }

  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    switch (kind_) {
      case Hof::kTransform:
        return EvalTransform(input, ctx);
      case Hof::kFilter:
        return EvalFilter(input, ctx);
      case Hof::kExists:
      case Hof::kForall:
        return EvalQuantifier(input, ctx);
      case Hof::kAggregate:
        return EvalAggregate(input, ctx);
      case Hof::kZipWith:
        return EvalZipWith(input, ctx);
      case Hof::kArraySort:
        return EvalArraySort(input, ctx);
      case Hof::kMapFilter:
      case Hof::kTransformKeys:
      case Hof::kTransformValues:
        return EvalMapFunction(input, ctx);
      case Hof::kMapZipWith:
        return EvalMapZipWith(input, ctx);
    }
    return Status::Internal("unknown higher-order function");
  }

  bool IsNondeterministic() const override {
    for (const auto& c : children_) {
      if (c->IsNondeterministic()) return true;
    }
    return false;
  }

  std::string ToString() const override {
    std::vector<std::string> parts;
    for (size_t i = 0; i < num_args_; ++i) parts.push_back(children_[i]->ToString());
    for (const auto& l : lambdas_) {
      std::string s = "lambdafunction(" + l.body->ToString();
      for (const auto& n : l.names) s += ", lambda " + n;
      parts.push_back(s + ", false)");
    }
    return CallText(name_, parts);
  }

 private:
  static Args Children(const Args& args, const std::vector<BoundLambda>& lambdas) {
    Args out = args;
    for (const auto& l : lambdas) out.push_back(l.body);
    return out;
  }

  // Walks a lambda body; `inner` = lambda columns appended after this call's input at
  // this point of the tree.
  static void Collect(const BoundExpr& e, int inner, Reads* out) {
    if (const auto* v = dynamic_cast<const LambdaVariable*>(&e)) {
      if (v->from_end() > inner) out->from_end.push_back(v->from_end() - inner);
      return;
    }
    if (e.column_index() >= 0) {
      out->columns.push_back(e.column_index());
      return;
    }
    const auto* h = dynamic_cast<const HigherOrderCall*>(&e);
    for (size_t i = 0; i < e.children().size(); ++i) {
      if (!e.children()[i]) continue;
      Collect(*e.children()[i], inner + (h ? h->ParamsOfChild(i) : 0), out);
    }
  }

  /// The batch lambda `l` is evaluated on: the input columns it reads gathered by `rows`
  /// (nullptr: the input rows as they are), NULL-typed columns for the others, then
  /// `vars`.
  Batch LambdaBatch(const Batch& input, size_t l, const int32_t* rows, int64_t m,
                    std::vector<ColumnPtr> vars) const {
    const int w = input.num_columns();
    std::vector<ColumnPtr> cols(static_cast<size_t>(w));
    auto gather = [&](int i) {
      if (i < 0 || i >= w || cols[i]) return;
      cols[i] = rows ? Take(*input.column(i), rows, m) : input.column(i);
    };
    for (int c : reads_[l].columns) gather(c);
    for (int f : reads_[l].from_end) gather(w - f);
    // The other columns are not read, but some operators copy whole batches (coalesce,
    // CASE evaluate their branches on row subsets): a NULL-typed column has no buffers.
    ColumnPtr unread;
    for (auto& c : cols) {
      if (c) continue;
      if (!unread) unread = Column::MakeNull(DataType::Null(), m);
      c = unread;
    }
    for (auto& v : vars) cols.push_back(std::move(v));
    return Batch(nullptr, std::move(cols), m);
  }

  Result<ColumnPtr> EvalBody(size_t l, const Batch& input, const int32_t* rows, int64_t m,
                             std::vector<ColumnPtr> vars, const EvalContext& ctx) const {
    Batch b = LambdaBatch(input, l, rows, m, std::move(vars));
    return lambdas_[l].body->Evaluate(b, ctx);
  }

  Result<ColumnPtr> EvalTransform(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto a, children_[0]->Evaluate(input, ctx));
    Flat f = Flatten(*a);
    std::vector<ColumnPtr> vars{f.values};
    if (lambdas_[0].params.size() == 2) vars.push_back(IndexColumn(f));
    SPATE_ASSIGN_OR_RETURN(
        auto out, EvalBody(0, input, f.row.data(), f.size(), std::move(vars), ctx));
    return MakeListColumn(type_, f.offsets, f.valid, std::move(out));
  }

  Result<ColumnPtr> EvalFilter(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto a, children_[0]->Evaluate(input, ctx));
    Flat f = Flatten(*a);
    std::vector<ColumnPtr> vars{f.values};
    if (lambdas_[0].params.size() == 2) vars.push_back(IndexColumn(f));
    SPATE_ASSIGN_OR_RETURN(
        auto keep, EvalBody(0, input, f.row.data(), f.size(), std::move(vars), ctx));
    return KeepWhereTrue(f, *keep);
  }

  // The elements (or entries) of `f` whose test is true, per row.
  ColumnPtr KeepWhereTrue(const Flat& f, const Column& keep) const {
    ListTake out;
    out.ReserveRows(f.valid.size());
    for (size_t r = 0; r < f.valid.size(); ++r) {
      for (int32_t k = f.offsets[r]; k < f.offsets[r + 1]; ++k) {
        if (keep.IsValid(k) && keep.GetBool(k)) out.refs.push_back(k);
      }
      out.EndRow(f.valid[r] != 0);
    }
    return out.Finish(type_, *f.values);
  }

  // exists: true if any element satisfies, else NULL if any test was NULL, else false;
  // forall: false if any fails, else NULL if any was NULL, else true. Spark tests the
  // elements in order and stops at the deciding one, so an error in a later element does
  // not count: when testing every element at once fails, the elements are tested again
  // position by position over the rows not yet decided.
  Result<ColumnPtr> EvalQuantifier(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto a, children_[0]->Evaluate(input, ctx));
    Flat f = Flatten(*a);
    const bool exists = kind_ == Hof::kExists;
    const auto n = static_cast<int64_t>(f.valid.size());
    // Per row: 0 undecided, 1 undecided with a NULL test, 2 decided.
    std::vector<uint8_t> state(static_cast<size_t>(n), 0);
    auto fold = [&](int64_t r, const Column& test, int64_t k) {
      if (test.IsNull(k)) {
        state[r] = std::max<uint8_t>(state[r], 1);
      } else if (test.GetBool(k) == exists) {
        state[r] = 2;
      }
    };
    Result<ColumnPtr> all = EvalBody(0, input, f.row.data(), f.size(), {f.values}, ctx);
    if (all.ok()) {
      for (int64_t r = 0; r < n; ++r) {
        for (int32_t k = f.offsets[r]; k < f.offsets[r + 1] && state[r] != 2; ++k)
          fold(r, **all, k);
      }
    } else {
      for (int32_t k = 0;; ++k) {
        std::vector<int32_t> rows, elems;
        for (int64_t r = 0; r < n; ++r) {
          if (state[r] != 2 && f.length(r) > k) {
            rows.push_back(static_cast<int32_t>(r));
            elems.push_back(f.offsets[r] + k);
          }
        }
        if (rows.empty()) break;
        const auto m = static_cast<int64_t>(rows.size());
        SPATE_ASSIGN_OR_RETURN(
            auto test,
            EvalBody(0, input, rows.data(), m, {Take(*f.values, elems.data(), m)}, ctx));
        for (int64_t q = 0; q < m; ++q) fold(rows[q], *test, q);
      }
    }
    BooleanBuilder out;
    for (int64_t r = 0; r < n; ++r) {
      if (!f.valid[r] || state[r] == 1) {
        out.AppendNull();
      } else {
        out.Append(state[r] == 2 ? exists : !exists);
      }
    }
    return out.Finish();
  }

  // Step k folds element k of every array still that long; a row leaves the fold when its
  // array ends, its accumulator kept in the step's column.
  Result<ColumnPtr> EvalAggregate(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto a, children_[0]->Evaluate(input, ctx));
    SPATE_ASSIGN_OR_RETURN(auto zero, children_[1]->Evaluate(input, ctx));
    const int64_t n = input.num_rows();
    Flat f = Flatten(*a);
    const DataTypePtr& acc_type = lambdas_[0].params[0].type;
    std::vector<ColumnPtr> chunks{Column::MakeNull(acc_type, 1)};
    std::vector<uint64_t> refs(static_cast<size_t>(n), 0);  // chunk 0 row 0: NULL
    std::vector<int32_t> active;
    for (int64_t r = 0; r < n; ++r) {
      if (f.valid[r]) active.push_back(static_cast<int32_t>(r));
    }
    ColumnPtr acc = Take(*zero, active.data(), static_cast<int64_t>(active.size()));
    for (int32_t k = 0;; ++k) {
      std::vector<int32_t> still, rows, elems;
      bool finished_any = false;
      for (size_t p = 0; p < active.size(); ++p) {
        int32_t r = active[p];
        if (f.length(r) == k) {
          refs[r] =
              (static_cast<uint64_t>(chunks.size()) << 32) | static_cast<uint32_t>(p);
          finished_any = true;
        } else {
          still.push_back(static_cast<int32_t>(p));
          rows.push_back(r);
          elems.push_back(f.offsets[r] + k);
        }
      }
      if (finished_any) chunks.push_back(acc);
      if (still.empty()) break;
      const auto m = static_cast<int64_t>(still.size());
      ColumnPtr acc_still = Take(*acc, still.data(), m);
      ColumnPtr x = Take(*f.values, elems.data(), m);
      SPATE_ASSIGN_OR_RETURN(acc,
                             EvalBody(0, input, rows.data(), m, {acc_still, x}, ctx));
      active = std::move(rows);
    }
    ColumnPtr result = TakeMulti(chunks, refs.data(), n);
    if (lambdas_.size() > 1) {
      SPATE_ASSIGN_OR_RETURN(result, EvalBody(1, input, nullptr, n, {result}, ctx));
    }
    return MaskNulls(result, *a);
  }

  Result<ColumnPtr> EvalZipWith(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto left, children_[0]->Evaluate(input, ctx));
    SPATE_ASSIGN_OR_RETURN(auto right, children_[1]->Evaluate(input, ctx));
    Flat l = Flatten(*left), r = Flatten(*right);
    std::vector<int32_t> offsets{0}, rows, li, ri;
    std::vector<uint8_t> valid;
    for (size_t i = 0; i + 1 < l.offsets.size(); ++i) {
      bool ok = l.valid[i] && r.valid[i];
      valid.push_back(ok ? 1 : 0);
      int32_t ln = l.length(i), rn = r.length(i);
      int32_t len = ok ? std::max(ln, rn) : 0;
      for (int32_t k = 0; k < len; ++k) {
        rows.push_back(static_cast<int32_t>(i));
        li.push_back(k < ln ? l.offsets[i] + k : -1);
        ri.push_back(k < rn ? r.offsets[i] + k : -1);
      }
      offsets.push_back(offsets.back() + len);
    }
    const auto m = static_cast<int64_t>(rows.size());
    std::vector<ColumnPtr> vars{Take(*l.values, li.data(), m),
                                Take(*r.values, ri.data(), m)};
    SPATE_ASSIGN_OR_RETURN(auto out,
                           EvalBody(0, input, rows.data(), m, std::move(vars), ctx));
    return MakeListColumn(type_, offsets, valid, std::move(out));
  }

  // A bottom-up merge sort of every row at once: in each round every unfinished merge
  // asks the comparator once, all in one batch.
  Result<ColumnPtr> EvalArraySort(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto a, children_[0]->Evaluate(input, ctx));
    Flat f = Flatten(*a);
    const int64_t m = f.size();
    std::vector<int32_t> perm(static_cast<size_t>(m)), next(static_cast<size_t>(m));
    std::iota(perm.begin(), perm.end(), 0);
    int32_t longest = 0;
    for (size_t r = 0; r + 1 < f.offsets.size(); ++r)
      longest = std::max(longest, f.length(r));
    struct Merge {
      int32_t i, mid, j, hi, out, row;
    };
    for (int32_t width = 1; width < longest; width *= 2) {
      std::vector<Merge> merges;
      for (size_t r = 0; r + 1 < f.offsets.size(); ++r) {
        int32_t begin = f.offsets[r], end = f.offsets[r + 1];
        for (int32_t lo = begin; lo < end; lo += 2 * width) {
          int32_t mid = std::min(lo + width, end), hi = std::min(lo + 2 * width, end);
          if (mid >= hi) {
            std::copy(perm.begin() + lo, perm.begin() + hi, next.begin() + lo);
          } else {
            merges.push_back({lo, mid, mid, hi, lo, static_cast<int32_t>(r)});
          }
        }
      }
      while (!merges.empty()) {
        std::vector<int32_t> rows, lv, rv;
        for (const Merge& g : merges) {
          rows.push_back(g.row);
          lv.push_back(perm[g.i]);
          rv.push_back(perm[g.j]);
        }
        const auto q = static_cast<int64_t>(merges.size());
        std::vector<ColumnPtr> vars{Take(*f.values, lv.data(), q),
                                    Take(*f.values, rv.data(), q)};
        SPATE_ASSIGN_OR_RETURN(auto cmp,
                               EvalBody(0, input, rows.data(), q, std::move(vars), ctx));
        const int32_t* c = cmp->raw_values<int32_t>();
        size_t kept = 0;
        for (size_t k = 0; k < merges.size(); ++k) {
          Merge g = merges[k];
          // Spark unboxes a NULL comparison result to 0 (equal).
          const int32_t order = cmp->IsNull(static_cast<int64_t>(k)) ? 0 : c[k];
          if (order <= 0) {
            next[g.out++] = perm[g.i++];
          } else {
            next[g.out++] = perm[g.j++];
          }
          if (g.i == g.mid || g.j == g.hi) {
            for (; g.i < g.mid; ++g.i) next[g.out++] = perm[g.i];
            for (; g.j < g.hi; ++g.j) next[g.out++] = perm[g.j];
          } else {
            merges[kept++] = g;
          }
        }
        merges.resize(kept);
      }
      perm.swap(next);
    }
    return MakeListColumn(type_, f.offsets, f.valid, Take(*f.values, perm.data(), m));
  }

  Result<ColumnPtr> EvalMapFunction(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto map, children_[0]->Evaluate(input, ctx));
    Flat f = Flatten(*map);
    const ColumnPtr& keys = f.values->child(0);
    const ColumnPtr& values = f.values->child(1);
    SPATE_ASSIGN_OR_RETURN(
        auto out, EvalBody(0, input, f.row.data(), f.size(), {keys, values}, ctx));
    DataTypePtr entry = MapEntryType(type_);
    if (kind_ == Hof::kMapFilter) return KeepWhereTrue(f, *out);
    if (kind_ == Hof::kTransformKeys) {
      SPATE_RETURN_IF_ERROR(ValidateMapKeys(*out, f.offsets));
      return MakeListColumn(type_, f.offsets, f.valid,
                            MakeStructColumn(entry, f.size(), {std::move(out), values}));
    }
    return MakeListColumn(type_, f.offsets, f.valid,
                          MakeStructColumn(entry, f.size(), {keys, std::move(out)}));
  }

  // Keys of the first map in its order, then the second map's keys the first lacks.
  Result<ColumnPtr> EvalMapZipWith(const Batch& input, const EvalContext& ctx) const {
    SPATE_ASSIGN_OR_RETURN(auto m1, children_[0]->Evaluate(input, ctx));
    SPATE_ASSIGN_OR_RETURN(auto m2, children_[1]->Evaluate(input, ctx));
    Flat a = Flatten(*m1), b = Flatten(*m2);
    const Column& ka = *a.values->child(0);
    const Column& kb = *b.values->child(0);
    std::vector<int32_t> offsets{0}, rows, ia, ib;
    std::vector<uint64_t> key_refs;
    std::vector<uint8_t> valid, matched;
    for (size_t r = 0; r + 1 < a.offsets.size(); ++r) {
      bool ok = a.valid[r] && b.valid[r];
      valid.push_back(ok ? 1 : 0);
      if (ok) {
        const int32_t b0 = b.offsets[r], b1 = b.offsets[r + 1];
        matched.assign(static_cast<size_t>(b1 - b0), 0);
        for (int32_t i = a.offsets[r]; i < a.offsets[r + 1]; ++i) {
          int32_t hit = -1;
          for (int32_t j = b0; j < b1 && hit < 0; ++j) {
            if (CompareValuesAt(ka, i, kb, j) == 0) hit = j;
          }
          if (hit >= 0) matched[hit - b0] = 1;
          rows.push_back(static_cast<int32_t>(r));
          key_refs.push_back(static_cast<uint32_t>(i));
          ia.push_back(i);
          ib.push_back(hit);
        }
        for (int32_t j = b0; j < b1; ++j) {
          if (matched[j - b0]) continue;
          rows.push_back(static_cast<int32_t>(r));
          key_refs.push_back((uint64_t{1} << 32) | static_cast<uint32_t>(j));
          ia.push_back(-1);
          ib.push_back(j);
        }
      }
      offsets.push_back(static_cast<int32_t>(rows.size()));
    }
    const auto m = static_cast<int64_t>(rows.size());
    ColumnPtr keys =
        TakeMulti({a.values->child(0), b.values->child(0)}, key_refs.data(), m);
    std::vector<ColumnPtr> vars{keys, Take(*a.values->child(1), ia.data(), m),
                                Take(*b.values->child(1), ib.data(), m)};
    SPATE_ASSIGN_OR_RETURN(auto out,
                           EvalBody(0, input, rows.data(), m, std::move(vars), ctx));
    return MakeListColumn(
        type_, offsets, valid,
        MakeStructColumn(MapEntryType(type_), m, {keys, std::move(out)}));
  }

  Hof kind_;
  std::string name_;
  size_t num_args_;
  std::vector<BoundLambda> lambdas_;
  std::vector<Reads> reads_;
};

}  // namespace

bool IsHigherOrderFunction(std::string_view name) { return LookUp(name, nullptr); }

LambdaArity HigherOrderArity(std::string_view name) {
  Hof h = Hof::kTransform;
  LookUp(name, &h);
  switch (h) {
    case Hof::kAggregate:
      return {1, 2, 2};
    case Hof::kZipWith:
    case Hof::kMapZipWith:
      return {1, 1, 2};
    default:
      return {1, 1, 1};
  }
}

size_t HigherOrderDefaultParams(std::string_view name, size_t lambda_index) {
  Hof h = Hof::kTransform;
  LookUp(name, &h);
  switch (h) {
    case Hof::kTransform:
    case Hof::kFilter:
    case Hof::kExists:
    case Hof::kForall:
      return 1;
    case Hof::kAggregate:
      return lambda_index == 0 ? 2 : 1;
    case Hof::kMapZipWith:
      return 3;
    default:
      return 2;
  }
}

Status CoerceHigherOrderArgs(const std::string& name, Args* args,
                             const std::string& sql_text) {
  if (name != "map_zip_with" || args->size() != 2) return Status::OK();
  SPATE_RETURN_IF_ERROR(RequireKind(sql_text, *args, 0, TypeId::kMap));
  SPATE_RETURN_IF_ERROR(RequireKind(sql_text, *args, 1, TypeId::kMap));
  const DataTypePtr k1 = (*args)[0]->type()->key_type();
  const DataTypePtr k2 = (*args)[1]->type()->key_type();
  if (k1->SameType(*k2)) return Status::OK();
  DataTypePtr common = CommonType(k1, k2);
  // Only a widening keeps the keys' identity (1 and 1L); strings and numbers do not meet.
  bool ok = common && (common->SameType(*k1) || common->SameType(*k2)) &&
            (k1->IsNumeric() == k2->IsNumeric());
  if (!ok) {
    return Status::Error("DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES",
                         {{"sqlExpr", "\"" + sql_text + "\""},
                          {"functionName", "`map_zip_with`"},
                          {"leftType", QuoteType(*k1)},
                          {"rightType", QuoteType(*k2)}});
  }
  for (auto& a : *args) {
    const DataTypePtr& t = a->type();
    if (t->key_type()->SameType(*common)) continue;
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, DataType::Map(common, t->value_type(),
                                                            t->value_contains_null())));
  }
  return Status::OK();
}

const std::string* LambdaVariableName(const BoundExpr& e) {
  const auto* v = dynamic_cast<const LambdaVariable*>(&e);
  return v ? &v->name() : nullptr;
}

BoundExprPtr MakeLambdaVariable(int from_end, DataTypePtr type, bool nullable,
                                std::string name) {
  return std::make_shared<LambdaVariable>(from_end, std::move(type), nullable,
                                          std::move(name));
}

Result<std::vector<LambdaParam>> HigherOrderLambdaParams(const std::string& name,
                                                         const Args& args,
                                                         size_t lambda_index,
                                                         size_t declared_params,
                                                         const std::string& sql_text) {
  Hof h = Hof::kTransform;
  if (!LookUp(name, &h)) return Status::Internal("not a higher-order function: " + name);
  std::vector<LambdaParam> params;
  auto element = [&](size_t i) {
    const DataTypePtr& t = args[i]->type();
    return LambdaParam{t->element_type(), t->contains_null()};
  };
  switch (h) {
    case Hof::kTransform:
    case Hof::kFilter:
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 0, TypeId::kArray));
      params.push_back(element(0));
      if (declared_params == 2) params.push_back({DataType::Int(), false});
      break;
    case Hof::kExists:
    case Hof::kForall:
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 0, TypeId::kArray));
      params.push_back(element(0));
      break;
    case Hof::kAggregate:
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 0, TypeId::kArray));
      // The accumulator is bound nullable, as Spark does (its nullability is unknown).
      params.push_back({args[1]->type(), true});
      if (lambda_index == 0) params.push_back(element(0));
      break;
    case Hof::kZipWith:
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 0, TypeId::kArray));
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 1, TypeId::kArray));
      params.push_back({args[0]->type()->element_type(), true});
      params.push_back({args[1]->type()->element_type(), true});
      break;
    case Hof::kArraySort:
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 0, TypeId::kArray));
      params.push_back(element(0));
      params.push_back(element(0));
      break;
    case Hof::kMapFilter:
    case Hof::kTransformKeys:
    case Hof::kTransformValues: {
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 0, TypeId::kMap));
      const DataTypePtr& t = args[0]->type();
      params.push_back({t->key_type(), false});
      params.push_back({t->value_type(), t->value_contains_null()});
      break;
    }
    case Hof::kMapZipWith: {
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 0, TypeId::kMap));
      SPATE_RETURN_IF_ERROR(RequireKind(sql_text, args, 1, TypeId::kMap));
      const DataTypePtr& t1 = args[0]->type();
      const DataTypePtr& t2 = args[1]->type();
      if (!t1->key_type()->SameType(*t2->key_type())) {
        return Status::Error("DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES",
                             {{"sqlExpr", "\"" + sql_text + "\""},
                              {"functionName", "`map_zip_with`"},
                              {"leftType", QuoteType(*t1->key_type())},
                              {"rightType", QuoteType(*t2->key_type())}});
      }
      params.push_back({t1->key_type(), false});
      params.push_back({t1->value_type(), true});
      params.push_back({t2->value_type(), true});
      break;
    }
  }
  if (declared_params != 0 && params.size() != declared_params) {
    return Status::Error("INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH",
                         {{"expectedNumArgs", std::to_string(declared_params)},
                          {"actualNumArgs", std::to_string(params.size())}});
  }
  return params;
}

Result<BoundExprPtr> MakeHigherOrderCall(const std::string& name, Args args,
                                         std::vector<BoundLambda> lambdas,
                                         const std::string& sql_text) {
  Hof h = Hof::kTransform;
  if (!LookUp(name, &h) || lambdas.empty()) {
    return Status::Internal("not a higher-order call: " + name);
  }
  const BoundLambda& fn = lambdas[0];
  const BoundExprPtr& body = fn.body;
  auto require_boolean = [&]() -> Status {
    TypeId t = body->type()->id();
    if (t == TypeId::kBoolean || t == TypeId::kNull) return Status::OK();
    return UnexpectedInput(sql_text, args.size(), "\"BOOLEAN\"", fn.display,
                           *body->type());
  };
  DataTypePtr type;
  bool nullable = args[0]->nullable();
  switch (h) {
    case Hof::kTransform:
      type = DataType::Array(body->type(), body->nullable());
      break;
    case Hof::kFilter:
    case Hof::kArraySort:
    case Hof::kMapFilter:
      if (h == Hof::kArraySort && body->type()->id() != TypeId::kInt) {
        return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_RETURN_TYPE",
                             {{"sqlExpr", "\"" + sql_text + "\""},
                              {"functionName", "`lambdafunction`"},
                              {"expectedType", "\"INT\""},
                              {"actualType", QuoteType(*body->type())}});
      }
      if (h != Hof::kArraySort) SPATE_RETURN_IF_ERROR(require_boolean());
      type = args[0]->type();
      break;
    case Hof::kExists:
    case Hof::kForall:
      SPATE_RETURN_IF_ERROR(require_boolean());
      type = DataType::Boolean();
      nullable = nullable || body->nullable();
      break;
    case Hof::kAggregate: {
      const DataTypePtr& acc = args[1]->type();
      if (!acc->SameType(*body->type())) {
        return UnexpectedInput(sql_text, 2, QuoteType(*acc), fn.display, *body->type());
      }
      const BoundExprPtr& finish = lambdas.size() > 1 ? lambdas[1].body : nullptr;
      type = finish ? finish->type() : acc;
      nullable = nullable || (finish ? finish->nullable() : true);
      break;
    }
    case Hof::kZipWith:
      type = DataType::Array(body->type(), body->nullable());
      nullable = nullable || args[1]->nullable();
      break;
    case Hof::kTransformKeys:
      type = DataType::Map(body->type(), args[0]->type()->value_type(),
                           args[0]->type()->value_contains_null());
      break;
    case Hof::kTransformValues:
      type = DataType::Map(args[0]->type()->key_type(), body->type(), body->nullable());
      break;
    case Hof::kMapZipWith:
      type = DataType::Map(args[0]->type()->key_type(), body->type(), body->nullable());
      nullable = nullable || args[1]->nullable();
      break;
  }
  return BoundExprPtr(std::make_shared<HigherOrderCall>(
      h, name, std::move(type), nullable, std::move(args), std::move(lambdas)));
}

}  // namespace spate
