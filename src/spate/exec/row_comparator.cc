// Copyright spate authors.
#include "spate/exec/row_comparator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "spate/compute/kernel_columns.h"
#include "spate/compute/predicates.h"

namespace spate::exec {

namespace {

template <typename T>
inline int Cmp3(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

template <typename T>
inline int CmpFloat(T a, T b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return Cmp3(a, b);
}

template <typename T>
std::vector<int32_t> SortFixed(const T* v, int64_t n, bool ascending) {
  std::vector<int32_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (ascending) {
    std::stable_sort(order.begin(), order.end(),
                     [v](int32_t a, int32_t b) { return v[a] < v[b]; });
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [v](int32_t a, int32_t b) { return v[a] > v[b]; });
  }
  return order;
}

}  // namespace

RowComparator::RowComparator(std::vector<Key> keys) : keys_(std::move(keys)) {
  for (const auto& k : keys_) {
    Kind kind = Kind::kOther;
    switch (kernel::PhysicalOf(*k.column->type())) {
      case kernel::Phys::kI8:
        kind = Kind::kI8;
        break;
      case kernel::Phys::kI16:
        kind = Kind::kI16;
        break;
      case kernel::Phys::kI32:
        kind = Kind::kI32;
        break;
      case kernel::Phys::kI64:
        kind = Kind::kI64;
        break;
      case kernel::Phys::kF32:
        kind = Kind::kF32;
        break;
      case kernel::Phys::kF64:
        kind = Kind::kF64;
        break;
      case kernel::Phys::kI128:
        kind = Kind::kI128;
        break;
      case kernel::Phys::kBool:
        kind = Kind::kBool;
        break;
      case kernel::Phys::kBytes:
        kind = Kind::kBytes;
        break;
      default:
        kind = Kind::kOther;
        break;
    }
    if (k.column->type_id() == TypeId::kNull) kind = Kind::kOther;
    kinds_.push_back(kind);
  }
}

int RowComparator::CompareWith(int64_t i, const RowComparator& other, int64_t j) const {
  for (size_t k = 0; k < keys_.size(); ++k) {
    const Column& a = *keys_[k].column;
    const Column& b = *other.keys_[k].column;
    bool an = a.IsNull(i), bn = b.IsNull(j);
    if (an || bn) {
      if (an && bn) continue;
      bool nf = keys_[k].nulls_first;
      return an ? (nf ? -1 : 1) : (nf ? 1 : -1);
    }
    int c;
    switch (kinds_[k]) {
      case Kind::kI8:
        c = Cmp3(a.raw_values<int8_t>()[i], b.raw_values<int8_t>()[j]);
        break;
      case Kind::kI16:
        c = Cmp3(a.raw_values<int16_t>()[i], b.raw_values<int16_t>()[j]);
        break;
      case Kind::kI32:
        c = Cmp3(a.raw_values<int32_t>()[i], b.raw_values<int32_t>()[j]);
        break;
      case Kind::kI64:
        c = Cmp3(a.raw_values<int64_t>()[i], b.raw_values<int64_t>()[j]);
        break;
      case Kind::kF32:
        c = CmpFloat(a.raw_values<float>()[i], b.raw_values<float>()[j]);
        break;
      case Kind::kF64:
        c = CmpFloat(a.raw_values<double>()[i], b.raw_values<double>()[j]);
        break;
      case Kind::kI128:
        c = Cmp3(a.raw_values<__int128>()[i], b.raw_values<__int128>()[j]);
        break;
      case Kind::kBool:
        c = Cmp3(static_cast<int>(a.GetBool(i)), static_cast<int>(b.GetBool(j)));
        break;
      case Kind::kBytes: {
        int r = a.GetView(i).compare(b.GetView(j));
        c = r < 0 ? -1 : (r > 0 ? 1 : 0);
        break;
      }
      default:
        c = CompareValuesAt(a, i, b, j);
        break;
    }
    if (c != 0) return keys_[k].ascending ? c : -c;
  }
  return 0;
}

std::vector<int32_t> RowComparator::SortedOrder(int64_t n) const {
  if (keys_.size() == 1 && keys_[0].column->null_count() == 0) {
    const Column& c = *keys_[0].column;
    bool asc = keys_[0].ascending;
    switch (kinds_[0]) {
      case Kind::kI32:
        return SortFixed(c.raw_values<int32_t>(), n, asc);
      case Kind::kI64:
        return SortFixed(c.raw_values<int64_t>(), n, asc);
      default:
        break;
    }
  }
  std::vector<int32_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (keys_.empty()) return order;
  std::stable_sort(order.begin(), order.end(),
                   [this](int32_t a, int32_t b) { return Compare(a, b) < 0; });
  return order;
}

}  // namespace spate::exec
