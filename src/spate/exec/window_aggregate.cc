// Copyright spate authors.
#include "spate/exec/window_aggregate.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "spate/columnar/kernels.h"
#include "spate/compute/decimal_math.h"
#include "spate/compute/kernel_columns.h"
#include "spate/exec/row_hash.h"

namespace spate::exec {

namespace {

constexpr int64_t kBlock = 64;

// A slice of state rows merged into groups: rows (nullptr = 0..count-1) of `states` go
// to gids.
struct MergePart {
  const std::vector<ColumnPtr>* states;
  std::vector<int32_t> rows;
  bool identity = false;
  std::vector<uint32_t> gids;
};

Result<std::vector<ColumnPtr>> Combine(const AggregateFunction& fn,
                                       std::vector<MergePart>& parts, int64_t num_groups,
                                       const EvalContext& eval) {
  auto acc = fn.MakeAccumulator();
  acc->Resize(num_groups);
  for (auto& part : parts) {
    if (part.identity) {
      SPATE_RETURN_IF_ERROR(acc->Merge(*part.states, part.gids.data(), num_groups, eval));
      continue;
    }
    int64_t m = static_cast<int64_t>(part.rows.size());
    if (m == 0) continue;
    std::vector<ColumnPtr> taken;
    for (const auto& c : *part.states) taken.push_back(Take(*c, part.rows.data(), m));
    SPATE_RETURN_IF_ERROR(acc->Merge(taken, part.gids.data(), m, eval));
  }
  return acc->State();
}

std::vector<uint32_t> Iota(int64_t n) {
  std::vector<uint32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

// out[i] = merge of states[seg_begin[i] .. i] in row order (reverse_merge: the scan runs
// over a reversed sequence, so the current row's state is merged before the earlier
// scan positions').
Result<std::vector<ColumnPtr>> ScanStates(const AggregateFunction& fn,
                                          std::vector<ColumnPtr> states,
                                          const std::vector<int64_t>& seg_begin,
                                          int64_t n, bool reverse_merge,
                                          const EvalContext& eval) {
  std::vector<ColumnPtr> w = std::move(states);
  // Doubling within 64-row blocks.
  for (int64_t d = 1; d < kBlock && d < n; d *= 2) {
    MergePart shifted{&w, {}, false, {}};
    for (int64_t i = 0; i < n; ++i) {
      if (i % kBlock >= d && i - d >= seg_begin[i]) {
        shifted.rows.push_back(static_cast<int32_t>(i - d));
        shifted.gids.push_back(static_cast<uint32_t>(i));
      }
    }
    if (shifted.rows.empty()) continue;
    MergePart own{&w, {}, true, Iota(n)};
    std::vector<MergePart> parts;
    if (reverse_merge) {
      parts.push_back(std::move(own));
      parts.push_back(std::move(shifted));
    } else {
      parts.push_back(std::move(shifted));
      parts.push_back(std::move(own));
    }
    SPATE_ASSIGN_OR_RETURN(w, Combine(fn, parts, n, eval));
  }
  if (n <= kBlock) return w;
  // Carries: full prefixes at block ends, by a recursive scan over the block ends.
  int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<int32_t> ends(static_cast<size_t>(blocks));
  std::vector<int64_t> end_seg(static_cast<size_t>(blocks));
  for (int64_t k = 0; k < blocks; ++k) {
    int64_t e = std::min((k + 1) * kBlock, n) - 1;
    ends[k] = static_cast<int32_t>(e);
    bool continues = k > 0 && seg_begin[e] < k * kBlock;
    end_seg[k] = continues ? end_seg[k - 1] : k;
  }
  std::vector<ColumnPtr> end_states;
  for (const auto& c : w) end_states.push_back(Take(*c, ends.data(), blocks));
  SPATE_ASSIGN_OR_RETURN(
      std::vector<ColumnPtr> full,
      ScanStates(fn, std::move(end_states), end_seg, blocks, reverse_merge, eval));
  MergePart carry{&full, {}, false, {}};
  for (int64_t i = kBlock; i < n; ++i) {
    int64_t k = i / kBlock;
    if (seg_begin[i] < k * kBlock) {
      carry.rows.push_back(static_cast<int32_t>(k - 1));
      carry.gids.push_back(static_cast<uint32_t>(i));
    }
  }
  if (carry.rows.empty()) return w;
  MergePart own{&w, {}, true, Iota(n)};
  std::vector<MergePart> parts;
  if (reverse_merge) {
    parts.push_back(std::move(own));
    parts.push_back(std::move(carry));
  } else {
    parts.push_back(std::move(carry));
    parts.push_back(std::move(own));
  }
  return Combine(fn, parts, n, eval);
}

// Per-row states: each row's arguments in its own group.
Result<std::vector<ColumnPtr>> RowStates(const AggregateFunction& fn,
                                         const std::vector<ColumnPtr>& args, int64_t n,
                                         const EvalContext& eval) {
  auto acc = fn.MakeAccumulator();
  acc->Resize(n);
  std::vector<uint32_t> gids = Iota(n);
  SPATE_RETURN_IF_ERROR(acc->Update(args, gids.data(), n, eval));
  return acc->State();
}

// Finalizes `states` (n groups) plus one empty group (index n) and picks, for each row,
// group pick[i] (or n when pick[i] < 0).
Result<ColumnPtr> FinalizePicked(const AggregateFunction& fn,
                                 const std::vector<ColumnPtr>& states, int64_t n,
                                 const std::vector<int64_t>& pick,
                                 const EvalContext& eval) {
  auto acc = fn.MakeAccumulator();
  acc->Resize(n + 1);
  std::vector<uint32_t> gids = Iota(n);
  SPATE_RETURN_IF_ERROR(acc->Merge(states, gids.data(), n, eval));
  SPATE_ASSIGN_OR_RETURN(ColumnPtr fin, acc->Finalize(eval));
  std::vector<int32_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    idx[i] = static_cast<int32_t>(pick[i] < 0 ? n : pick[i]);
  return Take(*fin, idx.data(), n);
}

Result<ColumnPtr> WholePartition(const AggregateFunction& fn,
                                 const std::vector<ColumnPtr>& args,
                                 const WindowLayout& layout, const EvalContext& eval) {
  int64_t n = layout.num_rows;
  auto acc = fn.MakeAccumulator();
  int64_t parts = static_cast<int64_t>(layout.part_begin.size());
  acc->Resize(parts);
  std::vector<uint32_t> gids(static_cast<size_t>(n));
  std::vector<int32_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    gids[i] = static_cast<uint32_t>(layout.part_id[i]);
    idx[i] = static_cast<int32_t>(layout.part_id[i]);
  }
  SPATE_RETURN_IF_ERROR(acc->Update(args, gids.data(), n, eval));
  SPATE_ASSIGN_OR_RETURN(ColumnPtr fin, acc->Finalize(eval));
  return Take(*fin, idx.data(), n);
}

Result<ColumnPtr> Sliding(const AggregateFunction& fn, const std::vector<ColumnPtr>& args,
                          const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                          int64_t n, const EvalContext& eval) {
  constexpr int64_t kMaxGathered = 1 << 16;
  std::vector<ColumnPtr> pieces;
  int64_t start = 0;
  while (start < n) {
    std::vector<int32_t> rows;
    std::vector<uint32_t> gids;
    int64_t end = start;
    while (end < n &&
           (end == start || static_cast<int64_t>(rows.size()) < kMaxGathered)) {
      for (int64_t r = lo[end]; r <= hi[end]; ++r) {
        rows.push_back(static_cast<int32_t>(r));
        gids.push_back(static_cast<uint32_t>(end - start));
      }
      ++end;
    }
    auto acc = fn.MakeAccumulator();
    acc->Resize(end - start);
    int64_t m = static_cast<int64_t>(rows.size());
    if (m > 0) {
      std::vector<ColumnPtr> taken;
      for (const auto& a : args) taken.push_back(Take(*a, rows.data(), m));
      SPATE_RETURN_IF_ERROR(acc->Update(taken, gids.data(), m, eval));
    }
    SPATE_ASSIGN_OR_RETURN(ColumnPtr piece, acc->Finalize(eval));
    pieces.push_back(std::move(piece));
    start = end;
  }
  if (pieces.empty()) {
    auto acc = fn.MakeAccumulator();
    acc->Resize(0);
    return acc->Finalize(eval);
  }
  return Concat(pieces);
}

Status RunningSumOverflow() {
  return Status::Error(
      "ARITHMETIC_OVERFLOW",
      {{"message", "long overflow"},
       {"alternative", " Use 'try_sum' to tolerate overflow and return NULL instead."},
       {"config", "\"spark.sql.ansi.enabled\""}});
}

template <typename T>
inline bool Better(T candidate, T current, bool is_max) {
  if constexpr (std::is_floating_point_v<T>) {
    bool cn = std::isnan(candidate), un = std::isnan(current);
    if (cn || un) return is_max ? (cn && !un) : (!cn && un);
  }
  return is_max ? candidate > current : candidate < current;
}

// Consecutive row ranges [begin[k], end[k]) covering all rows: window partitions, or
// fixed-size blocks inside them.
struct Segments {
  std::vector<int64_t> begin, end;
};

// Typed running scans of the per-row states of count/sum/avg (additive state columns)
// and min/max (one fixed-width value column), restarting at each segment; `suffix`
// scans from the end of each segment. Returns false when `fn`
// has no such fast path (the generic Merge-based scan is used instead).
Result<bool> TypedScan(const AggregateFunction& fn, std::vector<ColumnPtr>* states,
                       const Segments& segs, int64_t n, bool suffix,
                       const EvalContext& eval) {
  const std::string& name = fn.name();
  auto for_each_partition = [&](auto&& body) {
    for (size_t p = 0; p < segs.begin.size(); ++p) body(segs.begin[p], segs.end[p]);
  };
  if (name == "count" || name == "sum" || name == "avg" || name == "mean") {
    for (const auto& c : *states) {
      if (c->null_count() > 0 || c->type()->ByteWidth() < 8) return false;
    }
    bool overflow = false;
    for (auto& c : *states) {
      BufferPtr buf = kernel::DispatchFixed(*c->type(), [&]<typename T>() -> BufferPtr {
        kernel::Out<T> out(n);
        const T* in = c->raw_values<T>();
        for_each_partition([&](int64_t b, int64_t e) {
          T acc{};
          for (int64_t k = 0; k < e - b; ++k) {
            int64_t i = suffix ? e - 1 - k : b + k;
            if constexpr (std::is_floating_point_v<T>) {
              acc += in[i];
            } else {
              overflow |= __builtin_add_overflow(acc, in[i], &acc);
            }
            out.data[i] = acc;
          }
        });
        return out.buf;
      });
      c = kernel::MakeColumn(c->type(), n, 0, nullptr, buf);
    }
    if (overflow && eval.ansi) return RunningSumOverflow();
    return true;
  }
  if ((name == "try_sum" || name == "try_avg") && states->size() == 2) {
    // try_*: a running sum that overflows stays NULL (Spark adds the frame's rows in
    // order), so the scan is sequential rather than the Merge scan's tree.
    ColumnPtr& sum = (*states)[0];
    ColumnPtr& count = (*states)[1];
    const bool decimal = sum->type_id() == TypeId::kDecimal;
    const int precision = decimal ? sum->type()->precision() : 0;
    auto validity = Buffer::Allocate(bits::BytesFor(n));
    int64_t nulls = 0;
    kernel::Out<int64_t> counts(n);
    const int64_t* cin = count->raw_values<int64_t>();
    BufferPtr buf = kernel::DispatchFixed(*sum->type(), [&]<typename T>() -> BufferPtr {
      kernel::Out<T> out(n);
      const T* in = sum->raw_values<T>();
      for_each_partition([&](int64_t b, int64_t e) {
        T acc{};
        int64_t cnt = 0;
        bool lost = false;
        for (int64_t k = 0; k < e - b; ++k) {
          int64_t i = suffix ? e - 1 - k : b + k;
          cnt += cin[i];
          if (sum->IsNull(i)) {
            lost = true;
          } else if constexpr (std::is_floating_point_v<T>) {
            acc += in[i];
          } else {
            lost |= __builtin_add_overflow(acc, in[i], &acc);
            if constexpr (std::is_same_v<T, __int128>)
              lost |= decimal && !kernel::FitsPrecision(acc, precision);
          }
          out.data[i] = acc;
          counts.data[i] = cnt;
          if (lost) {
            ++nulls;
          } else {
            bits::Set(validity->mutable_data(), i);
          }
        }
      });
      return out.buf;
    });
    sum = kernel::MakeColumn(sum->type(), n, nulls, nulls ? validity : nullptr, buf);
    count = kernel::MakeColumn(DataType::Long(), n, 0, nullptr, counts.buf);
    return true;
  }
  if ((name == "min" || name == "max") && states->size() == 1 &&
      (*states)[0]->type()->ByteWidth() > 0 &&
      (*states)[0]->type_id() != TypeId::kBoolean) {
    const bool is_max = name == "max";
    ColumnPtr& c = (*states)[0];
    auto validity = Buffer::Allocate(bits::BytesFor(n));
    int64_t nulls = 0;
    BufferPtr buf = kernel::DispatchFixed(*c->type(), [&]<typename T>() -> BufferPtr {
      kernel::Out<T> out(n);
      const T* in = c->raw_values<T>();
      for_each_partition([&](int64_t b, int64_t e) {
        bool has = false;
        T best{};
        for (int64_t k = 0; k < e - b; ++k) {
          int64_t i = suffix ? e - 1 - k : b + k;
          if (c->IsValid(i) && (!has || Better(in[i], best, is_max))) {
            best = in[i];
            has = true;
          }
          out.data[i] = best;
          if (has) {
            bits::Set(validity->mutable_data(), i);
          } else {
            ++nulls;
          }
        }
      });
      return out.buf;
    });
    c = kernel::MakeColumn(c->type(), n, nulls, nulls ? validity : nullptr, buf);
    return true;
  }
  return false;
}

// Order-key values for RANGE offsets, oriented so that they ascend along the sort order.
struct RangeKeys {
  bool floating = false;
  std::vector<__int128> ints;
  std::vector<double> doubles;
  __int128 scale = 1;  // decimal: offsets are in whole units
};

Status LoadRangeKeys(const WindowLayout& layout, RangeKeys* keys) {
  if (!layout.order_key)
    return Status::Invalid("a RANGE frame with offsets needs one ORDER BY key");
  const Column& c = *layout.order_key;
  int64_t n = layout.num_rows;
  int sign = layout.order_ascending ? 1 : -1;
  if (IsIntegerKeyType(*c.type())) {
    keys->ints.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      keys->ints[i] = sign * static_cast<__int128>(IntegerKeyAt(c, i));
  } else if (c.type_id() == TypeId::kDecimal) {
    keys->ints.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) keys->ints[i] = sign * c.raw_values<__int128>()[i];
    for (int s = 0; s < c.type()->scale(); ++s) keys->scale *= 10;
  } else if (c.type_id() == TypeId::kDouble || c.type_id() == TypeId::kFloat) {
    keys->floating = true;
    keys->doubles.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      double v = c.type_id() == TypeId::kDouble ? c.raw_values<double>()[i]
                                                : c.raw_values<float>()[i];
      keys->doubles[i] = sign * v;
    }
  } else {
    return Status::Invalid(
        "a RANGE frame with offsets needs a numeric or datetime ORDER BY key, got " +
        c.type()->SimpleString());
  }
  return Status::OK();
}

// Inclusive running states over each segment: from its start (prefix) or, with
// `suffix`, to its end.
Result<std::vector<ColumnPtr>> ScanSegments(const AggregateFunction& fn,
                                            std::vector<ColumnPtr> states,
                                            const Segments& segs, int64_t n, bool suffix,
                                            const EvalContext& eval) {
  SPATE_ASSIGN_OR_RETURN(bool typed, TypedScan(fn, &states, segs, n, suffix, eval));
  if (typed) return states;
  std::vector<int64_t> seg(static_cast<size_t>(n));
  if (!suffix) {
    for (size_t k = 0; k < segs.begin.size(); ++k) {
      for (int64_t i = segs.begin[k]; i < segs.end[k]; ++i) seg[i] = segs.begin[k];
    }
    return ScanStates(fn, std::move(states), seg, n, false, eval);
  }
  // Suffix: scan the reversed rows, merging the current row's state first.
  std::vector<int32_t> reverse(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) reverse[i] = static_cast<int32_t>(n - 1 - i);
  std::vector<ColumnPtr> rev_states;
  for (const auto& c : states) rev_states.push_back(Take(*c, reverse.data(), n));
  for (size_t k = 0; k < segs.begin.size(); ++k) {
    for (int64_t i = segs.begin[k]; i < segs.end[k]; ++i)
      seg[n - 1 - i] = n - segs.end[k];
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> rev_suffix,
                         ScanStates(fn, std::move(rev_states), seg, n, true, eval));
  std::vector<ColumnPtr> out;
  for (const auto& c : rev_suffix) out.push_back(Take(*c, reverse.data(), n));
  return out;
}

// ROWS BETWEEN a AND b with both bounds at fixed offsets (width w = b - a + 1): blocks of
// w rows from each partition start; a frame is a whole block prefix, a block suffix, or a
// block suffix followed by the next block's prefix. O(n) for any width.
Result<ColumnPtr> BlockedRows(const AggregateFunction& fn,
                              const std::vector<ColumnPtr>& args,
                              const sql::BoundFrame& frame, const WindowLayout& layout,
                              const std::vector<int64_t>& lo,
                              const std::vector<int64_t>& hi, const EvalContext& eval) {
  const int64_t n = layout.num_rows;
  const int64_t w = frame.upper_offset - frame.lower_offset + 1;
  Segments blocks;
  for (size_t p = 0; p < layout.part_begin.size(); ++p) {
    for (int64_t b = layout.part_begin[p]; b < layout.part_end[p]; b += w) {
      blocks.begin.push_back(b);
      blocks.end.push_back(std::min(b + w, layout.part_end[p]));
    }
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> states, RowStates(fn, args, n, eval));
  SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> prefix,
                         ScanSegments(fn, states, blocks, n, false, eval));
  SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> suffix,
                         ScanSegments(fn, std::move(states), blocks, n, true, eval));
  MergePart from_suffix{&suffix, {}, false, {}};
  MergePart from_prefix{&prefix, {}, false, {}};
  for (int64_t i = 0; i < n; ++i) {
    if (lo[i] > hi[i]) continue;
    int64_t pb = layout.part_begin[layout.part_id[i]],
            pe = layout.part_end[layout.part_id[i]];
    int64_t blo = (lo[i] - pb) / w, bhi = (hi[i] - pb) / w;
    int64_t lo_start = pb + blo * w;
    int64_t hi_end = std::min(pb + (bhi + 1) * w, pe) - 1;
    if (blo == bhi && lo[i] == lo_start) {
      from_prefix.rows.push_back(static_cast<int32_t>(hi[i]));
      from_prefix.gids.push_back(static_cast<uint32_t>(i));
    } else if (blo == bhi && hi[i] == hi_end) {
      from_suffix.rows.push_back(static_cast<int32_t>(lo[i]));
      from_suffix.gids.push_back(static_cast<uint32_t>(i));
    } else if (bhi == blo + 1) {
      from_suffix.rows.push_back(static_cast<int32_t>(lo[i]));
      from_suffix.gids.push_back(static_cast<uint32_t>(i));
      from_prefix.rows.push_back(static_cast<int32_t>(hi[i]));
      from_prefix.gids.push_back(static_cast<uint32_t>(i));
    } else {
      return Status::Internal("window frame does not fit the block decomposition");
    }
  }
  // Suffix parts hold earlier rows than prefix parts: merge them first.
  std::vector<MergePart> parts;
  parts.push_back(std::move(from_suffix));
  parts.push_back(std::move(from_prefix));
  auto acc = fn.MakeAccumulator();
  acc->Resize(n);
  for (auto& part : parts) {
    int64_t m = static_cast<int64_t>(part.rows.size());
    if (m == 0) continue;
    std::vector<ColumnPtr> taken;
    for (const auto& c : *part.states) taken.push_back(Take(*c, part.rows.data(), m));
    SPATE_RETURN_IF_ERROR(acc->Merge(taken, part.gids.data(), m, eval));
  }
  return acc->Finalize(eval);
}

}  // namespace

Status ComputeFrameBounds(const sql::BoundFrame& frame, const WindowLayout& layout,
                          std::vector<int64_t>* lo, std::vector<int64_t>* hi) {
  const int64_t n = layout.num_rows;
  lo->resize(static_cast<size_t>(n));
  hi->resize(static_cast<size_t>(n));
  const bool rows = frame.kind == WindowFrame::Kind::kRows;
  bool need_values = !rows && ((!frame.lower_unbounded && !frame.lower_current) ||
                               (!frame.upper_unbounded && !frame.upper_current));
  RangeKeys keys;
  if (need_values) SPATE_RETURN_IF_ERROR(LoadRangeKeys(layout, &keys));
  for (int64_t i = 0; i < n; ++i) {
    int64_t p = layout.part_id[i];
    int64_t pb = layout.part_begin[p], pe = layout.part_end[p];
    int64_t l, h;
    if (rows) {
      l = frame.lower_unbounded ? pb : std::max(pb, i + frame.lower_offset);
      h = frame.upper_unbounded ? pe - 1 : std::min(pe - 1, i + frame.upper_offset);
    } else {
      bool null_key = need_values && layout.order_key->IsNull(i);
      // Rows with a NULL order key frame their peer group for offset bounds; non-null
      // rows' offset bounds only reach non-null rows.
      int64_t nb = pb, ne = pe;  // non-null range of the partition
      if (need_values && !null_key) {
        while (nb < ne && layout.order_key->IsNull(nb)) nb = layout.peer_end[nb];
        while (ne > nb && layout.order_key->IsNull(ne - 1))
          ne = layout.peer_begin[ne - 1];
      }
      auto bound_index = [&](int64_t offset, bool lower) -> int64_t {
        if (null_key) return lower ? layout.peer_begin[i] : layout.peer_end[i] - 1;
        if (keys.floating) {
          double target = keys.doubles[i] + static_cast<double>(offset);
          auto first = keys.doubles.begin() + nb, last = keys.doubles.begin() + ne;
          auto it = lower ? std::lower_bound(first, last, target)
                          : std::upper_bound(first, last, target);
          return (it - keys.doubles.begin()) - (lower ? 0 : 1);
        }
        __int128 target = keys.ints[i] + static_cast<__int128>(offset) * keys.scale;
        auto first = keys.ints.begin() + nb, last = keys.ints.begin() + ne;
        auto it = lower ? std::lower_bound(first, last, target)
                        : std::upper_bound(first, last, target);
        return (it - keys.ints.begin()) - (lower ? 0 : 1);
      };
      if (frame.lower_unbounded) {
        l = pb;
      } else if (frame.lower_current) {
        l = layout.peer_begin[i];
      } else {
        l = bound_index(frame.lower_offset, true);
      }
      if (frame.upper_unbounded) {
        h = pe - 1;
      } else if (frame.upper_current) {
        h = layout.peer_end[i] - 1;
      } else {
        h = bound_index(frame.upper_offset, false);
      }
    }
    (*lo)[i] = l;
    (*hi)[i] = h;
  }
  return Status::OK();
}

Result<ColumnPtr> EvaluateFrameAggregate(const AggregateFunction& fn,
                                         const std::vector<ColumnPtr>& args,
                                         const sql::BoundFrame& frame,
                                         const WindowLayout& layout,
                                         const EvalContext& eval) {
  const int64_t n = layout.num_rows;
  if (frame.lower_unbounded && frame.upper_unbounded)
    return WholePartition(fn, args, layout, eval);
  std::vector<int64_t> lo, hi;
  SPATE_RETURN_IF_ERROR(ComputeFrameBounds(frame, layout, &lo, &hi));
  if (!fn.decomposable()) return Sliding(fn, args, lo, hi, n, eval);
  if (!frame.lower_unbounded && !frame.upper_unbounded) {
    constexpr int64_t kGatherWidth = 16;  // narrower frames: gathering is cheaper
    int64_t width = frame.upper_offset - frame.lower_offset + 1;
    if (frame.kind == WindowFrame::Kind::kRows && width > kGatherWidth) {
      return BlockedRows(fn, args, frame, layout, lo, hi, eval);
    }
    return Sliding(fn, args, lo, hi, n, eval);
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> states, RowStates(fn, args, n, eval));
  Segments parts{layout.part_begin, layout.part_end};
  const bool prefix = frame.lower_unbounded;
  SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> scanned,
                         ScanSegments(fn, states, parts, n, !prefix, eval));
  std::vector<int64_t> pick(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    pick[i] = hi[i] >= lo[i] ? (prefix ? hi[i] : lo[i]) : -1;
  return FinalizePicked(fn, scanned, n, pick, eval);
}

}  // namespace spate::exec
