// Copyright spate authors.
#include "spate/compute/cast.h"

// CAST kernels. One typed loop per (source, target) pair over raw buffers; a row that
// cannot be cast is NULL (kLegacy/kTry) or stops the batch with Spark's error (kAnsi, and
// the casts Spark rejects in every mode). Per-row work never goes through Value,
// std::function or virtual calls; nested types recurse once per child column.
//
// Semantics follow Spark 4's Cast.scala, ToStringBase.scala, SparkDateTimeUtils
// (stringToDate / parseTimestampString), UTF8String.toLong/toInt, Decimal.scala and
// IntervalUtils.scala.

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "spate/columnar/builder.h"
#include "spate/columnar/list_text.h"
#include "spate/compute/cast_internal.h"
#include "spate/compute/datetime_text.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {
namespace {

// The kernels' shared helpers.
using namespace cast_detail;  // NOLINT(google-build-using-namespace)

// ---------------------------------------------------------------------------------------
// Result validity and loop drivers
// ---------------------------------------------------------------------------------------

enum class Outcome : uint8_t { kOk, kNull, kError };

// The validity of a cast result: the input's bitmap, shared until a row turns NULL.
class ResultValidity {
 public:
  explicit ResultValidity(const Column& in) : in_(in) {}
  void SetNull(int64_t i) {
    if (bits_ == nullptr) Materialize();
    bits::Clear(bits_->mutable_data(), i);
  }
  BufferPtr Finish(int64_t* null_count) {
    if (bits_ == nullptr) {
      *null_count = in_.null_count();
      return in_.validity();
    }
    *null_count = in_.length() - bits::CountSet(bits_->data(), in_.length());
    return bits_;
  }

 private:
  void Materialize() {
    int64_t bytes = bits::BytesFor(in_.length());
    bits_ = Buffer::Allocate(bytes);
    if (in_.validity() != nullptr) {
      std::memcpy(bits_->mutable_data(), in_.validity()->data(), bytes);
    } else {
      std::memset(bits_->mutable_data(), 0xff, bytes);
    }
  }
  const Column& in_;
  BufferPtr bits_;
};

inline bool RowValid(const uint8_t* validity, int64_t i) {
  return validity == nullptr || bits::Get(validity, i);
}

// out[i] = fn(i) for every row; the cast cannot fail, so validity is shared.
template <typename OutT, typename Fn>
ColumnPtr MapInfallible(const Column& in, const DataTypePtr& to, Fn&& fn) {
  const int64_t n = in.length();
  BufferPtr values = Buffer::Allocate(n * static_cast<int64_t>(sizeof(OutT)));
  OutT* out = values->mutable_data_as<OutT>();
  for (int64_t i = 0; i < n; ++i) out[i] = fn(i);
  return std::make_shared<const Column>(to, n, in.null_count(), in.validity(), values);
}

// fn(i, OutT*) -> Outcome for each valid row; err(i) -> Status for kError rows (kTry:
// NULL).
template <typename OutT, typename Fn, typename ErrFn>
Result<ColumnPtr> MapFixed(const Column& in, const DataTypePtr& to, CastMode mode,
                           Fn&& fn, ErrFn&& err) {
  const int64_t n = in.length();
  BufferPtr values = Buffer::Allocate(n * static_cast<int64_t>(sizeof(OutT)));
  OutT* out = values->mutable_data_as<OutT>();
  ResultValidity validity(in);
  const uint8_t* valid = in.validity_bits();
  for (int64_t i = 0; i < n; ++i) {
    if (!RowValid(valid, i)) continue;
    Outcome o = fn(i, out + i);
    if (o == Outcome::kOk) [[likely]] {
      continue;
    }
    if (o == Outcome::kError && mode != CastMode::kTry) return err(i);
    out[i] = OutT{};
    validity.SetNull(i);
  }
  int64_t nulls = 0;
  BufferPtr bits = validity.Finish(&nulls);
  return std::make_shared<const Column>(to, n, nulls, std::move(bits), std::move(values));
}

// A cast from STRING through parse(text, OutT*) -> false for malformed text: NULL, or
// CAST_INVALID_INPUT in ANSI mode (try_cast parses as the legacy cast: NULL).
template <typename OutT, typename Parse>
Result<ColumnPtr> MapParsed(const Column& in, const DataTypePtr& to, CastMode mode,
                            Parse&& parse) {
  const bool ansi = mode == CastMode::kAnsi;
  return MapFixed<OutT>(
      in, to, mode,
      [&](int64_t i, OutT* out) {
        if (parse(in.GetView(i), out)) [[likely]] {
          return Outcome::kOk;
        }
        return ansi ? Outcome::kError : Outcome::kNull;
      },
      [&](int64_t i) { return InvalidInputError(in.GetView(i), *to); });
}

template <typename Fn, typename ErrFn>
Result<ColumnPtr> MapBoolean(const Column& in, CastMode mode, Fn&& fn, ErrFn&& err) {
  const int64_t n = in.length();
  BufferPtr values = Buffer::Allocate(bits::BytesFor(n));
  uint8_t* out = values->mutable_data();
  ResultValidity validity(in);
  const uint8_t* valid = in.validity_bits();
  for (int64_t i = 0; i < n; ++i) {
    if (!RowValid(valid, i)) continue;
    bool v = false;
    Outcome o = fn(i, &v);
    if (o == Outcome::kOk) [[likely]] {
      if (v) bits::Set(out, i);
      continue;
    }
    if (o == Outcome::kError && mode != CastMode::kTry) return err(i);
    validity.SetNull(i);
  }
  int64_t nulls = 0;
  BufferPtr bits = validity.Finish(&nulls);
  return std::make_shared<const Column>(DataType::Boolean(), n, nulls, std::move(bits),
                                        std::move(values));
}

// fn(i, std::string* text) -> Outcome; text is reused between rows.
template <typename Fn>
ColumnPtr MapToString(const Column& in, const DataTypePtr& to, Fn&& fn) {
  const int64_t n = in.length();
  StringBuilder builder(to, n, n * 8);
  const uint8_t* valid = in.validity_bits();
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    if (!RowValid(valid, i)) {
      builder.AppendNull();
      continue;
    }
    text.clear();
    fn(i, &text);
    builder.Append(text);
  }
  return builder.Finish();
}

// A column of `to` sharing every buffer of `in` (same physical layout).
ColumnPtr Relabel(const Column& in, const DataTypePtr& to) {
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(),
                                        in.values(), in.data(), in.children());
}

bool IsAnsiInterval(const DataType& t) {
  return t.id() == TypeId::kDayTimeInterval || t.id() == TypeId::kYearMonthInterval;
}

// ---------------------------------------------------------------------------------------
// Per-target casts
// ---------------------------------------------------------------------------------------

struct CastContext {
  CastMode mode;
  const EvalContext& ctx;
  bool ansi() const { return mode != CastMode::kLegacy; }
};

Result<ColumnPtr> Cast(const ColumnPtr& input, const DataTypePtr& to,
                       const CastContext& cc);

// Dispatches fn.template operator()<T>() on the C++ type of a fixed-width numeric column.
template <typename Fn>
auto DispatchNumeric(TypeId id, Fn&& fn) {
  switch (id) {
    case TypeId::kByte:
      return fn.template operator()<int8_t>();
    case TypeId::kShort:
      return fn.template operator()<int16_t>();
    case TypeId::kInt:
      return fn.template operator()<int32_t>();
    case TypeId::kFloat:
      return fn.template operator()<float>();
    case TypeId::kDouble:
      return fn.template operator()<double>();
    case TypeId::kDecimal:
      return fn.template operator()<int128_t>();
    default:
      return fn.template operator()<int64_t>();
  }
}

// ---- to string
// --------------------------------------------------------------------------

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

// Text of element row k of a nested child already cast to string.
void AppendElement(std::string* out, const Column& strings, int64_t k) {
  if (strings.IsNull(k)) {
    out->append("null");
  } else {
    out->append(strings.GetView(k));
  }
}

Result<ColumnPtr> CastToString(const ColumnPtr& input, const DataTypePtr& to,
                               const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  switch (from.id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      return Relabel(in, to);
    case TypeId::kBoolean:
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        s->append(in.GetBool(i) ? "true" : "false");
      });
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
      return DispatchNumeric(from.id(), [&]<typename T>() -> Result<ColumnPtr> {
        if constexpr (std::is_integral_v<T>) {
          const T* v = in.raw_values<T>();
          return MapToString(in, to,
                             [&](int64_t i, std::string* s) { AppendInt(s, v[i]); });
        } else {
          return Status::Internal("unreachable");
        }
      });
    case TypeId::kFloat: {
      const float* v = in.raw_values<float>();
      return MapToString(in, to,
                         [&](int64_t i, std::string* s) { *s = FormatFloat(v[i]); });
    }
    case TypeId::kDouble: {
      const double* v = in.raw_values<double>();
      return MapToString(in, to,
                         [&](int64_t i, std::string* s) { *s = FormatDouble(v[i]); });
    }
    case TypeId::kDecimal: {
      const int128_t* v = in.raw_values<int128_t>();
      int scale = from.scale();
      // In ANSI (and try) mode Spark prints decimals plain; legacy uses
      // BigDecimal.toString.
      if (cc.ansi()) {
        return MapToString(
            in, to, [&](int64_t i, std::string* s) { *s = FormatDecimal(v[i], scale); });
      }
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        *s = JavaDecimalString(v[i], scale);
      });
    }
    case TypeId::kDate: {
      const int32_t* v = in.raw_values<int32_t>();
      return MapToString(in, to,
                         [&](int64_t i, std::string* s) { *s = FormatDate(v[i]); });
    }
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      const EvalContext& ctx = cc.ctx;
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        *s = FormatTimestampMicros(v[i], ZoneOffsetSeconds(ctx, v[i]));
      });
    }
    case TypeId::kTimestampNtz: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapToString(
          in, to, [&](int64_t i, std::string* s) { *s = FormatTimestampMicros(v[i]); });
    }
    case TypeId::kDayTimeInterval: {
      const int64_t* v = in.raw_values<int64_t>();
      IntervalField a = from.start_field(), b = from.end_field();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        *s = FormatDayTimeInterval(v[i], a, b);
      });
    }
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      IntervalField a = from.start_field(), b = from.end_field();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        *s = FormatYearMonthInterval(v[i], a, b);
      });
    }
    case TypeId::kArray: {
      SPATE_ASSIGN_OR_RETURN(ColumnPtr elems, Cast(in.child(0), DataType::String(), cc));
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        AppendListText(in, i, '[', ", ", ']', s,
                       [&](int32_t k) { AppendElement(s, *elems, k); });
      });
    }
    case TypeId::kMap: {
      const Column& entries = *in.child(0);
      SPATE_ASSIGN_OR_RETURN(ColumnPtr keys,
                             Cast(entries.child(0), DataType::String(), cc));
      SPATE_ASSIGN_OR_RETURN(ColumnPtr vals,
                             Cast(entries.child(1), DataType::String(), cc));
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        AppendListText(in, i, '{', ", ", '}', s, [&](int32_t k) {
          AppendElement(s, *keys, k);
          s->append(" -> ");
          AppendElement(s, *vals, k);
        });
      });
    }
    case TypeId::kStruct: {
      std::vector<ColumnPtr> fields;
      for (const auto& child : in.children()) {
        SPATE_ASSIGN_OR_RETURN(ColumnPtr f, Cast(child, DataType::String(), cc));
        fields.push_back(std::move(f));
      }
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        s->push_back('{');
        for (size_t f = 0; f < fields.size(); ++f) {
          if (f > 0) s->append(", ");
          AppendElement(s, *fields[f], i);
        }
        s->push_back('}');
      });
    }
    default:
      break;
  }
  return Status::Internal("cast to string from " + from.SimpleString());
}

// ---- to binary
// --------------------------------------------------------------------------

Result<ColumnPtr> CastToBinary(const ColumnPtr& input, const DataTypePtr& to,
                               const CastContext& cc) {
  const Column& in = *input;
  if (in.type_id() == TypeId::kString) return Relabel(in, to);
  // NumberConverter.toBinary: big-endian bytes of the integral value.
  return DispatchNumeric(in.type_id(), [&]<typename T>() -> Result<ColumnPtr> {
    if constexpr (std::is_integral_v<T> && !kIsInt128<T>) {
      const T* v = in.raw_values<T>();
      return MapToString(in, to, [&](int64_t i, std::string* s) {
        auto u = static_cast<std::make_unsigned_t<T>>(v[i]);
        for (int b = static_cast<int>(sizeof(T)) - 1; b >= 0; --b) {
          s->push_back(static_cast<char>((u >> (8 * b)) & 0xff));
        }
      });
    } else {
      return Status::Internal("cast to binary from " + in.type()->SimpleString());
    }
  });
}

// ---- to boolean
// -------------------------------------------------------------------------

Result<ColumnPtr> CastToBoolean(const ColumnPtr& input, const CastContext& cc) {
  const Column& in = *input;
  const DataType& to = *DataType::Boolean();
  switch (in.type_id()) {
    case TypeId::kString: {
      bool ansi = cc.ansi();
      return MapBoolean(
          in, cc.mode,
          [&](int64_t i, bool* out) {
            int b = ParseBoolean(in.GetView(i));
            if (b < 0) return ansi ? Outcome::kError : Outcome::kNull;
            *out = b == 1;
            return Outcome::kOk;
          },
          [&](int64_t i) { return InvalidInputError(in.GetView(i), to); });
    }
    case TypeId::kDate:
      // Hive returns NULL for date -> boolean (legacy mode only).
      return Column::MakeNull(DataType::Boolean(), in.length());
    default:
      break;
  }
  if (!in.type()->IsNumeric() && in.type_id() != TypeId::kTimestamp) {
    return Status::Internal("cast to boolean from " + in.type()->SimpleString());
  }
  TypeId id = in.type_id() == TypeId::kTimestamp ? TypeId::kLong : in.type_id();
  return DispatchNumeric(id, [&]<typename T>() -> Result<ColumnPtr> {
    const T* v = in.raw_values<T>();
    return MapBoolean(
        in, cc.mode,
        [&](int64_t i, bool* out) {
          *out = v[i] != T(0);  // NaN != 0 is true, as in Java
          return Outcome::kOk;
        },
        [](int64_t) { return Status::OK(); });
  });
}

// ---- to integral
// ------------------------------------------------------------------------

// Micros of a day-time interval in units of its end field (truncating toward zero).
int64_t DayTimeToEndUnits(int64_t micros, IntervalField end) {
  switch (end) {
    case IntervalField::kDay:
      return micros / kMicrosPerDay;
    case IntervalField::kHour:
      return micros / kMicrosPerHour;
    case IntervalField::kMinute:
      return micros / kMicrosPerMinute;
    default:
      return micros / kMicrosPerSecond;
  }
}

int64_t EndUnitMicros(IntervalField end) {
  switch (end) {
    case IntervalField::kDay:
      return kMicrosPerDay;
    case IntervalField::kHour:
      return kMicrosPerHour;
    case IntervalField::kMinute:
      return kMicrosPerMinute;
    default:
      return kMicrosPerSecond;
  }
}

template <typename T>
Result<ColumnPtr> CastToIntegral(const ColumnPtr& input, const DataTypePtr& to,
                                 const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const bool ansi = cc.ansi();
  const EvalContext& ctx = cc.ctx;
  auto overflow = [&](int64_t i) { return OverflowAt(in, i, *to, ctx); };
  switch (from.id()) {
    case TypeId::kBoolean:
      return MapInfallible<T>(in, to,
                              [&](int64_t i) { return static_cast<T>(in.GetBool(i)); });
    case TypeId::kString:
      return MapParsed<T>(in, to, cc.mode, [&](std::string_view text, T* out) {
        int64_t v;
        // ANSI: no fraction allowed, out of range is malformed input (toIntExact).
        if (!ParseLong(text, !ansi, &v) || !InRange<T>(v)) return false;
        *out = static_cast<T>(v);
        return true;
      });
    case TypeId::kDate:
      return Column::MakeNull(to, in.length());
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int64_t secs = FloorDiv(v[i], kMicrosPerSecond);
            if (!InRange<T>(secs)) return ansi ? Outcome::kError : Outcome::kNull;
            *out = static_cast<T>(secs);
            return Outcome::kOk;
          },
          overflow);
    }
    case TypeId::kDayTimeInterval: {
      const int64_t* v = in.raw_values<int64_t>();
      IntervalField end = from.end_field();
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int64_t units = DayTimeToEndUnits(v[i], end);
            if (!InRange<T>(units)) return Outcome::kError;  // in every mode
            *out = static_cast<T>(units);
            return Outcome::kOk;
          },
          overflow);
    }
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      bool years = from.end_field() == IntervalField::kYear;
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int32_t units = years ? v[i] / 12 : v[i];
            if (!InRange<T>(units)) return Outcome::kError;  // in every mode
            *out = static_cast<T>(units);
            return Outcome::kOk;
          },
          overflow);
    }
    default:
      break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      int128_t div = Pow10(from.scale());
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            int128_t whole = v[i] / div;  // truncation toward zero
            if (ansi) {
              if (!InRange<T>(whole)) return Outcome::kError;
              *out = static_cast<T>(whole);
            } else {
              // Decimal.toLong keeps the low 64 bits, then narrows like Java.
              *out = static_cast<T>(static_cast<int64_t>(
                  static_cast<uint64_t>(static_cast<uint128_t>(whole))));
            }
            return Outcome::kOk;
          },
          overflow);
    } else if constexpr (std::is_floating_point_v<S>) {
      // DoubleExactNumeric / FloatExactNumeric bounds: floor(x) <= MAX, ceil(x) >= MIN,
      // with MAX/MIN of int (for byte/short/int) or long, as the source's type.
      using Wide = std::conditional_t<std::is_same_v<T, int64_t>, int64_t, int32_t>;
      const S upper = static_cast<S>(std::numeric_limits<Wide>::max());
      const S lower = static_cast<S>(std::numeric_limits<Wide>::min());
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            S x = v[i];
            if (ansi) {
              if (!(std::floor(x) <= upper && std::ceil(x) >= lower))
                return Outcome::kError;
              if constexpr (std::is_same_v<T, int64_t>) {
                *out = JavaDoubleToLong(x);
              } else {
                int32_t w = JavaDoubleToInt(x);
                if (!InRange<T>(w)) return Outcome::kError;
                *out = static_cast<T>(w);
              }
            } else if constexpr (std::is_same_v<T, int64_t>) {
              *out = JavaDoubleToLong(x);
            } else {
              *out = static_cast<T>(JavaDoubleToInt(x));  // saturate to int, then wrap
            }
            return Outcome::kOk;
          },
          overflow);
    } else if constexpr (sizeof(S) <= sizeof(T)) {
      return MapInfallible<T>(in, to, [&](int64_t i) { return static_cast<T>(v[i]); });
    } else {
      return MapFixed<T>(
          in, to, cc.mode,
          [&](int64_t i, T* out) {
            if (ansi && !InRange<T>(v[i])) return Outcome::kError;
            *out = static_cast<T>(v[i]);  // two's complement wrap (legacy)
            return Outcome::kOk;
          },
          overflow);
    }
  });
}

// ---- to float / double
// ------------------------------------------------------------------

// BigDecimal.doubleValue / floatValue: correctly rounded.
template <typename F>
F DecimalToFloating(int128_t unscaled, int scale) {
  constexpr int128_t kExact = std::is_same_v<F, double> ? (int128_t(1) << 53) : (1 << 24);
  constexpr int kMaxExactScale = std::is_same_v<F, double> ? 22 : 10;
  if (unscaled < kExact && unscaled > -kExact && scale <= kMaxExactScale) {
    return static_cast<F>(unscaled) / static_cast<F>(Pow10(scale));
  }
  std::string text = Int128ToString(unscaled) + "e-" + std::to_string(scale);
  F v{};
  const char* b = text.data();
  bool neg = text[0] == '-';
  if (neg) ++b;
  std::from_chars(b, text.data() + text.size(), v);
  return neg ? -v : v;
}

template <typename F>
Result<ColumnPtr> CastToFloating(const ColumnPtr& input, const DataTypePtr& to,
                                 const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  switch (from.id()) {
    case TypeId::kBoolean:
      return MapInfallible<F>(in, to,
                              [&](int64_t i) { return F(in.GetBool(i) ? 1 : 0); });
    case TypeId::kString:
      return MapParsed<F>(in, to, cc.mode, [](std::string_view text, F* out) {
        return ParseFloating<F>(text, out);
      });
    case TypeId::kDate:
      return Column::MakeNull(to, in.length());
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapInfallible<F>(in, to, [&](int64_t i) {
        return static_cast<F>(static_cast<double>(v[i]) / 1e6);
      });
    }
    default:
      break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      int scale = from.scale();
      return MapInfallible<F>(
          in, to, [&](int64_t i) { return DecimalToFloating<F>(v[i], scale); });
    } else {
      return MapInfallible<F>(in, to, [&](int64_t i) { return static_cast<F>(v[i]); });
    }
  });
}

// ---- to decimal
// -------------------------------------------------------------------------

Result<ColumnPtr> CastToDecimal(const ColumnPtr& input, const DataTypePtr& to,
                                const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const int p = to->precision(), s = to->scale();
  const bool ansi = cc.ansi();
  const Outcome on_overflow = ansi ? Outcome::kError : Outcome::kNull;
  // |v| * 10^s must stay below 10^p: v must have at most p - s integral digits.
  auto scale_up = [p, s](int128_t v, int128_t* out) {
    if (!FitsPrecision(v, p - s)) return false;
    *out = v * Pow10(s);
    return true;
  };
  switch (from.id()) {
    case TypeId::kBoolean:
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            return scale_up(in.GetBool(i) ? 1 : 0, out) ? Outcome::kOk : on_overflow;
          },
          [&](int64_t i) {
            return DecimalOutOfRangeError(in.GetBool(i) ? "1" : "0", *to);
          });
    case TypeId::kString: {
      enum class Failure { kNone, kMalformed, kTooManyDigits, kOutOfRange };
      Failure failure = Failure::kNone;
      DecimalText text;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            if (!ParseBigDecimal(JavaTrim(in.GetView(i)), &text)) {
              failure = Failure::kMalformed;
              return ansi ? Outcome::kError : Outcome::kNull;
            }
            if (text.IntegralDigits() > kMaxDecimalPrecision) {
              failure = Failure::kTooManyDigits;
              return on_overflow;
            }
            if (!text.ToUnscaled(p, s, out)) {
              failure = Failure::kOutOfRange;
              return on_overflow;
            }
            return Outcome::kOk;
          },
          [&](int64_t i) {
            std::string_view sv = in.GetView(i);
            switch (failure) {
              case Failure::kMalformed:
                return InvalidInputError(sv, *to);
              case Failure::kTooManyDigits:
                return Status::Error("NUMERIC_OUT_OF_SUPPORTED_RANGE",
                                     {{"value", std::string(sv)}});
              default:
                return DecimalOutOfRangeError(text.Plain(), *to);
            }
          });
    }
    case TypeId::kDate:
      return Column::MakeNull(to, in.length());
    case TypeId::kTimestamp: {
      // Through the double value of seconds (Spark notes the precision loss).
      const int64_t* v = in.raw_values<int64_t>();
      DecimalText text;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            text = DoubleToDecimalText(static_cast<double>(v[i]) / 1e6);
            return text.ToUnscaled(p, s, out) ? Outcome::kOk : on_overflow;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(text.Plain(), *to); });
    }
    case TypeId::kDayTimeInterval: {
      // Whole end-field units, or seconds with 6 fraction digits; overflow fails always.
      const int64_t* v = in.raw_values<int64_t>();
      IntervalField end = from.end_field();
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            if (end == IntervalField::kSecond) {
              int128_t r =
                  s >= 6 ? int128_t(v[i]) * Pow10(s - 6) : DivPow10HalfUp(v[i], 6 - s);
              if (!FitsPrecision(r, p)) return Outcome::kError;
              *out = r;
              return Outcome::kOk;
            }
            return scale_up(DayTimeToEndUnits(v[i], end), out) ? Outcome::kOk
                                                               : Outcome::kError;
          },
          [&](int64_t i) {
            std::string plain = end == IntervalField::kSecond
                                    ? FormatDecimal(v[i], 6)
                                    : std::to_string(DayTimeToEndUnits(v[i], end));
            return DecimalOutOfRangeError(plain, *to);
          });
    }
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      bool years = from.end_field() == IntervalField::kYear;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            return scale_up(years ? v[i] / 12 : v[i], out) ? Outcome::kOk
                                                           : Outcome::kError;
          },
          [&](int64_t i) {
            return DecimalOutOfRangeError(std::to_string(years ? v[i] / 12 : v[i]), *to);
          });
    }
    default:
      break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      // Decimal.toPrecision with ROUND_HALF_UP.
      const int fs = from.scale();
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            int128_t x = v[i];
            if (s >= fs) {
              int up = s - fs;
              if (p - up < 0 ? x != 0 : !FitsPrecision(x, p - up)) return on_overflow;
              *out = x * Pow10(up);
            } else {
              int128_t r = DivPow10HalfUp(x, fs - s);
              if (!FitsPrecision(r, p)) return on_overflow;
              *out = r;
            }
            return Outcome::kOk;
          },
          [&](int64_t i) {
            return DecimalOutOfRangeError(FormatDecimal(v[i], fs), *to);
          });
    } else if constexpr (std::is_floating_point_v<S>) {
      // Decimal(double) goes through Double.toString; NaN and infinities are NULL in
      // every mode (BigDecimal rejects them with NumberFormatException, which Cast
      // catches).
      DecimalText text;
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            double x = static_cast<double>(v[i]);
            if (!std::isfinite(x)) return Outcome::kNull;
            text = DoubleToDecimalText(x);
            return text.ToUnscaled(p, s, out) ? Outcome::kOk : on_overflow;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(text.Plain(), *to); });
    } else {
      return MapFixed<int128_t>(
          in, to, cc.mode,
          [&](int64_t i, int128_t* out) {
            return scale_up(static_cast<int128_t>(v[i]), out) ? Outcome::kOk
                                                              : on_overflow;
          },
          [&](int64_t i) { return DecimalOutOfRangeError(std::to_string(v[i]), *to); });
    }
  });
}

// ---- to date
// ----------------------------------------------------------------------------

Result<ColumnPtr> CastToDate(const ColumnPtr& input, const DataTypePtr& to,
                             const CastContext& cc) {
  const Column& in = *input;
  switch (in.type_id()) {
    case TypeId::kString:
      return MapParsed<int32_t>(in, to, cc.mode, [](std::string_view text, int32_t* out) {
        return CastStringToDate(text, out);
      });
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      const EvalContext& ctx = cc.ctx;
      return MapInfallible<int32_t>(in, to, [&](int64_t i) {
        int64_t local = v[i] + ZoneOffsetSeconds(ctx, v[i]) * kMicrosPerSecond;
        return static_cast<int32_t>(FloorDiv(local, kMicrosPerDay));
      });
    }
    case TypeId::kTimestampNtz: {
      const int64_t* v = in.raw_values<int64_t>();
      return MapInfallible<int32_t>(in, to, [&](int64_t i) {
        return static_cast<int32_t>(FloorDiv(v[i], kMicrosPerDay));
      });
    }
    default:
      break;
  }
  return Status::Internal("cast to date from " + in.type()->SimpleString());
}

// ---- to timestamp / timestamp_ntz
// -------------------------------------------------------

Result<ColumnPtr> CastToTimestamp(const ColumnPtr& input, const DataTypePtr& to,
                                  const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const EvalContext& ctx = cc.ctx;
  switch (from.id()) {
    case TypeId::kString:
      return MapParsed<int64_t>(in, to, cc.mode,
                                [&](std::string_view text, int64_t* out) {
                                  return CastStringToTimestamp(text, ctx, out);
                                });
    case TypeId::kBoolean:
      // Legacy only: true is one microsecond after the epoch.
      return MapInfallible<int64_t>(in, to,
                                    [&](int64_t i) { return int64_t{in.GetBool(i)}; });
    case TypeId::kDate: {
      const int32_t* v = in.raw_values<int32_t>();
      ParsedZone zone = SessionZone(ctx);
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        bool overflow;
        return LocalToUtc(zone, int64_t{v[i]} * kMicrosPerDay, &overflow);
      });
    }
    case TypeId::kTimestampNtz: {
      const int64_t* v = in.raw_values<int64_t>();
      ParsedZone zone = SessionZone(ctx);
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        bool overflow;
        return LocalToUtc(zone, v[i], &overflow);
      });
    }
    default:
      break;
  }
  const bool ansi = cc.ansi();
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    const S* v = in.raw_values<S>();
    if constexpr (kIsInt128<S>) {
      // (d * 1e6).longValue: truncated, low 64 bits kept.
      int fs = from.scale();
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        uint128_t m = fs >= 6 ? static_cast<uint128_t>(v[i] / Pow10(fs - 6))
                              : static_cast<uint128_t>(v[i]) *
                                    static_cast<uint128_t>(Pow10(6 - fs));
        return static_cast<int64_t>(static_cast<uint64_t>(m));
      });
    } else if constexpr (std::is_floating_point_v<S>) {
      double product = 0;
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            double d = static_cast<double>(v[i]);
            if (std::isnan(d) || std::isinf(d))
              return ansi ? Outcome::kError : Outcome::kNull;
            product = d * 1e6;
            if (ansi && !(std::floor(product) <= 9223372036854775807.0 &&
                          std::ceil(product) >= -9223372036854775808.0)) {
              return Outcome::kError;
            }
            *out = JavaDoubleToLong(product);
            return Outcome::kOk;
          },
          [&](int64_t i) {
            double d = static_cast<double>(v[i]);
            if (std::isnan(d) || std::isinf(d)) {
              // doubleToTimestampAnsi reports the value as a DOUBLE.
              return Status::Error("CAST_INVALID_INPUT",
                                   {{"expression", SqlValue(Value::Double(d), ctx)},
                                    {"sourceType", SqlType(*DataType::Double())},
                                    {"targetType", SqlType(*to)}});
            }
            return OverflowError(SqlValue(Value::Double(product), ctx),
                                 *DataType::Double(), *DataType::Long());
          });
    } else {
      // SECONDS.toMicros saturates.
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        int64_t out;
        if (MulOverflow(static_cast<int64_t>(v[i]), kMicrosPerSecond, &out)) {
          return v[i] < 0 ? std::numeric_limits<int64_t>::min()
                          : std::numeric_limits<int64_t>::max();
        }
        return out;
      });
    }
  });
}

Result<ColumnPtr> CastToTimestampNtz(const ColumnPtr& input, const DataTypePtr& to,
                                     const CastContext& cc) {
  const Column& in = *input;
  switch (in.type_id()) {
    case TypeId::kString:
      return MapParsed<int64_t>(in, to, cc.mode, [](std::string_view text, int64_t* out) {
        return CastStringToTimestampNtz(text, out);
      });
    case TypeId::kDate: {
      const int32_t* v = in.raw_values<int32_t>();
      return MapInfallible<int64_t>(
          in, to, [&](int64_t i) { return int64_t{v[i]} * kMicrosPerDay; });
    }
    case TypeId::kTimestamp: {
      const int64_t* v = in.raw_values<int64_t>();
      const EvalContext& ctx = cc.ctx;
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        return v[i] + ZoneOffsetSeconds(ctx, v[i]) * kMicrosPerSecond;
      });
    }
    default:
      break;
  }
  return Status::Internal("cast to timestamp_ntz from " + in.type()->SimpleString());
}

// ---- to intervals
// -----------------------------------------------------------------------

// castStringToDTInterval / castStringToYMInterval with `parse` (ParseDayTimeInterval,
// ParseYearMonthInterval): INVALID_INTERVAL_FORMAT's two errors.
template <typename Out>
Result<ColumnPtr> StringToInterval(const Column& in, const DataTypePtr& to,
                                   IntervalParse (*parse)(std::string_view,
                                                          const DataType&, Out*),
                                   const CastContext& cc) {
  IntervalParse failure = IntervalParse::kOk;
  return MapFixed<Out>(
      in, to, cc.mode,
      [&](int64_t i, Out* out) {
        failure = parse(in.GetView(i), *to, out);
        return failure == IntervalParse::kOk ? Outcome::kOk : Outcome::kError;
      },
      [&](int64_t i) {
        return failure == IntervalParse::kUnmatched
                   ? UnmatchedIntervalError(in.GetView(i), *to)
                   : IntervalParsingError(in.GetView(i), *to);
      });
}

// decimalToDayTimeInterval / decimalToYearMonthInterval: d * unit (the microseconds or
// months of the interval's end field) rounded half-up to a whole number, CAST_OVERFLOW
// beyond Out (int64_t microseconds, int32_t months).
template <typename Out>
Result<ColumnPtr> DecimalToInterval(const Column& in, const DataTypePtr& to, int64_t unit,
                                    const CastContext& cc) {
  const int128_t* v = in.raw_values<int128_t>();
  const int fs = in.type()->scale();
  return MapFixed<Out>(
      in, to, cc.mode,
      [&](int64_t i, Out* out) {
        DecimalText text = DecimalTextOf(v[i], fs);
        MultiplyBy(&text, static_cast<uint64_t>(unit));
        int128_t r;
        if (!text.ToUnscaled(kMaxDecimalPrecision, 0, &r) || !InRange<Out>(r)) {
          return Outcome::kError;
        }
        *out = static_cast<Out>(r);
        return Outcome::kOk;
      },
      [&](int64_t i) { return OverflowAt(in, i, *to, cc.ctx); });
}

Result<ColumnPtr> CastToDayTimeInterval(const ColumnPtr& input, const DataTypePtr& to,
                                        const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const EvalContext& ctx = cc.ctx;
  const IntervalField end = to->end_field();
  const int64_t unit = EndUnitMicros(end);
  switch (from.id()) {
    case TypeId::kString:
      return StringToInterval<int64_t>(in, to, ParseDayTimeInterval, cc);
    case TypeId::kDayTimeInterval: {
      // durationToMicros(microsToDuration(v), end): whole end units of the floored
      // seconds.
      const int64_t* v = in.raw_values<int64_t>();
      if (end == IntervalField::kSecond) {
        return MapInfallible<int64_t>(in, to, [&](int64_t i) { return v[i]; });
      }
      int64_t unit_secs = unit / kMicrosPerSecond;
      return MapInfallible<int64_t>(in, to, [&](int64_t i) {
        return FloorDiv(v[i], kMicrosPerSecond) / unit_secs * unit;
      });
    }
    case TypeId::kDecimal:
      return DecimalToInterval<int64_t>(in, to, unit, cc);
    default:
      break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    if constexpr (std::is_integral_v<S> && !kIsInt128<S>) {
      const S* v = in.raw_values<S>();
      return MapFixed<int64_t>(
          in, to, cc.mode,
          [&](int64_t i, int64_t* out) {
            return MulOverflow(static_cast<int64_t>(v[i]), unit, out) ? Outcome::kError
                                                                      : Outcome::kOk;
          },
          [&](int64_t i) { return OverflowAt(in, i, *to, ctx); });
    } else {
      return Status::Internal("cast to interval from " + from.SimpleString());
    }
  });
}

Result<ColumnPtr> CastToYearMonthInterval(const ColumnPtr& input, const DataTypePtr& to,
                                          const CastContext& cc) {
  const Column& in = *input;
  const DataType& from = *in.type();
  const EvalContext& ctx = cc.ctx;
  const bool years = to->end_field() == IntervalField::kYear;
  const int64_t unit = years ? 12 : 1;
  switch (from.id()) {
    case TypeId::kString:
      return StringToInterval<int32_t>(in, to, ParseYearMonthInterval, cc);
    case TypeId::kYearMonthInterval: {
      const int32_t* v = in.raw_values<int32_t>();
      return MapInfallible<int32_t>(
          in, to, [&](int64_t i) { return years ? v[i] / 12 * 12 : v[i]; });
    }
    case TypeId::kDecimal:
      return DecimalToInterval<int32_t>(in, to, unit, cc);
    default:
      break;
  }
  return DispatchNumeric(from.id(), [&]<typename S>() -> Result<ColumnPtr> {
    if constexpr (std::is_integral_v<S> && !kIsInt128<S>) {
      const S* v = in.raw_values<S>();
      return MapFixed<int32_t>(
          in, to, cc.mode,
          [&](int64_t i, int32_t* out) {
            int64_t m = static_cast<int64_t>(v[i]) * unit;
            if (!InRange<int32_t>(v[i]) || !InRange<int32_t>(m)) return Outcome::kError;
            *out = static_cast<int32_t>(m);
            return Outcome::kOk;
          },
          [&](int64_t i) {
            // longToYearMonthInterval reports the long; intToYearMonthInterval the int.
            if (std::is_same_v<S, int64_t> && !InRange<int32_t>(v[i])) {
              return OverflowAt(in, i, *to, ctx);
            }
            return OverflowError(std::to_string(static_cast<int64_t>(v[i])),
                                 *DataType::Int(), *to);
          });
    } else {
      return Status::Internal("cast to interval from " + from.SimpleString());
    }
  });
}

// ---- nested
// -----------------------------------------------------------------------------

Result<ColumnPtr> CastArray(const ColumnPtr& input, const DataTypePtr& to,
                            const CastContext& cc) {
  const Column& in = *input;
  SPATE_ASSIGN_OR_RETURN(ColumnPtr elems, Cast(in.child(0), to->element_type(), cc));
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(),
                                        in.values(), nullptr,
                                        std::vector<ColumnPtr>{elems});
}

Result<ColumnPtr> CastMap(const ColumnPtr& input, const DataTypePtr& to,
                          const CastContext& cc) {
  const Column& in = *input;
  const Column& entries = *in.child(0);
  SPATE_ASSIGN_OR_RETURN(ColumnPtr keys, Cast(entries.child(0), to->key_type(), cc));
  SPATE_ASSIGN_OR_RETURN(ColumnPtr vals, Cast(entries.child(1), to->value_type(), cc));
  auto entry_type = DataType::Struct(
      {Field{"key", to->key_type(), false}, Field{"value", to->value_type(), true}});
  auto new_entries = std::make_shared<const Column>(
      entry_type, entries.length(), entries.null_count(), entries.validity(), nullptr,
      nullptr, std::vector<ColumnPtr>{keys, vals});
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(),
                                        in.values(), nullptr,
                                        std::vector<ColumnPtr>{new_entries});
}

Result<ColumnPtr> CastStruct(const ColumnPtr& input, const DataTypePtr& to,
                             const CastContext& cc) {
  const Column& in = *input;
  std::vector<ColumnPtr> children;
  for (size_t f = 0; f < to->fields().size(); ++f) {
    SPATE_ASSIGN_OR_RETURN(ColumnPtr c,
                           Cast(in.child(static_cast<int>(f)), to->fields()[f].type, cc));
    children.push_back(std::move(c));
  }
  return std::make_shared<const Column>(to, in.length(), in.null_count(), in.validity(),
                                        nullptr, nullptr, std::move(children));
}

// ---- dispatch
// ---------------------------------------------------------------------------

Result<ColumnPtr> Cast(const ColumnPtr& input, const DataTypePtr& to,
                       const CastContext& cc) {
  const DataType& from = *input->type();
  if (from.Equals(*to)) return input;
  if (from.id() == TypeId::kNull) return Column::MakeNull(to, input->length());
  switch (to->id()) {
    case TypeId::kString:
      return CastToString(input, to, cc);
    case TypeId::kBinary:
      return CastToBinary(input, to, cc);
    case TypeId::kBoolean:
      return CastToBoolean(input, cc);
    case TypeId::kByte:
      return CastToIntegral<int8_t>(input, to, cc);
    case TypeId::kShort:
      return CastToIntegral<int16_t>(input, to, cc);
    case TypeId::kInt:
      return CastToIntegral<int32_t>(input, to, cc);
    case TypeId::kLong:
      return CastToIntegral<int64_t>(input, to, cc);
    case TypeId::kFloat:
      return CastToFloating<float>(input, to, cc);
    case TypeId::kDouble:
      return CastToFloating<double>(input, to, cc);
    case TypeId::kDecimal:
      return CastToDecimal(input, to, cc);
    case TypeId::kDate:
      return CastToDate(input, to, cc);
    case TypeId::kTimestamp:
      return CastToTimestamp(input, to, cc);
    case TypeId::kTimestampNtz:
      return CastToTimestampNtz(input, to, cc);
    case TypeId::kDayTimeInterval:
      return CastToDayTimeInterval(input, to, cc);
    case TypeId::kYearMonthInterval:
      return CastToYearMonthInterval(input, to, cc);
    case TypeId::kArray:
      return CastArray(input, to, cc);
    case TypeId::kMap:
      return CastMap(input, to, cc);
    case TypeId::kStruct:
      return CastStruct(input, to, cc);
    case TypeId::kNull:
      break;
  }
  return Status::Internal("cast from " + from.SimpleString() + " to " +
                          to->SimpleString());
}

// ---------------------------------------------------------------------------------------
// Which casts Spark allows (Cast.canCast / canAnsiCast / canTryCast)
// ---------------------------------------------------------------------------------------

// DecimalType.forType of an integral type.
void IntegralDecimal(TypeId id, int* p, int* s) {
  *s = 0;
  *p = id == TypeId::kByte ? 3 : id == TypeId::kShort ? 5 : id == TypeId::kInt ? 10 : 20;
}

// The precision and scale of a decimal, or of an integral type's decimal form; false for
// the other types.
bool DecimalForm(const DataType& t, int* p, int* s) {
  if (t.id() == TypeId::kDecimal) {
    *p = t.precision(), *s = t.scale();
    return true;
  }
  if (!t.IsIntegral()) return false;
  IntegralDecimal(t.id(), p, s);
  return true;
}

// DecimalType.isWiderThan.
bool DecimalWiderThan(const DataType& dec, const DataType& other) {
  int p, s;
  if (!DecimalForm(other, &p, &s)) return false;
  return dec.precision() - dec.scale() >= p - s && dec.scale() >= s;
}

bool CanNullSafeCastToDecimal(const DataType& from, const DataType& to) {
  if (from.id() == TypeId::kBoolean) return to.precision() - to.scale() >= 1;
  if (from.id() == TypeId::kDecimal) {
    return to.precision() - to.scale() > from.precision() - from.scale();
  }
  if (from.IsNumeric()) return DecimalWiderThan(to, from);
  return false;
}

// Cast.forceNullable: casting a non-null value may give NULL.
bool ForceNullable(const DataType& from, const DataType& to) {
  TypeId f = from.id(), t = to.id();
  if (f == TypeId::kNull) return false;
  if (from.Equals(to)) return false;
  if (f == TypeId::kString) return !(t == TypeId::kBinary || t == TypeId::kString);
  if (t == TypeId::kString) return false;
  if (f == TypeId::kTimestamp &&
      (t == TypeId::kByte || t == TypeId::kShort || t == TypeId::kInt)) {
    return true;
  }
  if (from.IsFloating() && t == TypeId::kTimestamp) return true;
  if (f == TypeId::kTimestamp && t == TypeId::kDate) return false;
  if (t == TypeId::kDate) return true;
  if (f == TypeId::kDate && t == TypeId::kTimestamp) return false;
  if (f == TypeId::kDate) return true;
  if (t == TypeId::kDecimal && !CanNullSafeCastToDecimal(from, to)) return true;
  if ((f == TypeId::kFloat || f == TypeId::kDouble || f == TypeId::kDecimal) &&
      to.IsIntegral()) {
    return true;  // NaN, infinity
  }
  return false;
}

bool Resolvable(bool from_nullable, bool to_nullable) {
  return !from_nullable || to_nullable;
}

bool CanLegacyCast(const DataType& from, const DataType& to);
bool CanAnsiCast(const DataType& from, const DataType& to);

// The rules shared by canCast and canTryCast for nested types (element casts are legacy).
bool CanLegacyCastNested(const DataType& from, const DataType& to) {
  if (from.id() == TypeId::kArray && to.id() == TypeId::kArray) {
    return CanLegacyCast(*from.element_type(), *to.element_type()) &&
           Resolvable(from.contains_null() ||
                          ForceNullable(*from.element_type(), *to.element_type()),
                      to.contains_null());
  }
  if (from.id() == TypeId::kMap && to.id() == TypeId::kMap) {
    return CanLegacyCast(*from.key_type(), *to.key_type()) &&
           !ForceNullable(*from.key_type(), *to.key_type()) &&
           CanLegacyCast(*from.value_type(), *to.value_type()) &&
           Resolvable(from.value_contains_null() ||
                          ForceNullable(*from.value_type(), *to.value_type()),
                      to.value_contains_null());
  }
  if (from.id() == TypeId::kStruct && to.id() == TypeId::kStruct) {
    if (from.fields().size() != to.fields().size()) return false;
    for (size_t i = 0; i < from.fields().size(); ++i) {
      const Field& a = from.fields()[i];
      const Field& b = to.fields()[i];
      if (!CanLegacyCast(*a.type, *b.type) ||
          !Resolvable(a.nullable || ForceNullable(*a.type, *b.type), b.nullable)) {
        return false;
      }
    }
    return true;
  }
  return false;
}

// The rules canCast and canAnsiCast share: the same type, from NULL, to STRING, and the
// targets TIMESTAMP_NTZ, DATE and the ANSI intervals; nullopt for the other targets.
std::optional<bool> CanCastInEveryMode(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  TypeId f = from.id(), t = to.id();
  if (f == TypeId::kNull) return true;
  if (t == TypeId::kString) return true;
  switch (t) {
    case TypeId::kTimestampNtz:
      return f == TypeId::kString || f == TypeId::kDate || f == TypeId::kTimestamp;
    case TypeId::kDate:
      return f == TypeId::kString || f == TypeId::kTimestamp ||
             f == TypeId::kTimestampNtz;
    case TypeId::kDayTimeInterval:
      return f == TypeId::kString || f == TypeId::kDayTimeInterval || from.IsIntegral() ||
             f == TypeId::kDecimal;
    case TypeId::kYearMonthInterval:
      return f == TypeId::kString || f == TypeId::kYearMonthInterval ||
             from.IsIntegral() || f == TypeId::kDecimal;
    default:
      return std::nullopt;
  }
}

// To a number: from strings, booleans, timestamps, numbers, dates (legacy only),
// and the ANSI intervals to the integral and decimal types.
bool CanCastToNumber(const DataType& from, const DataType& to, bool from_date) {
  TypeId f = from.id(), t = to.id();
  if (IsAnsiInterval(from)) return t != TypeId::kFloat && t != TypeId::kDouble;
  return f == TypeId::kString || f == TypeId::kBoolean || f == TypeId::kTimestamp ||
         (from_date && f == TypeId::kDate) || from.IsNumeric();
}

bool CanLegacyCast(const DataType& from, const DataType& to) {
  if (std::optional<bool> shared = CanCastInEveryMode(from, to)) return *shared;
  if (to.IsNumeric()) return CanCastToNumber(from, to, /*from_date=*/true);
  TypeId f = from.id(), t = to.id();
  switch (t) {
    case TypeId::kBinary:
      return f == TypeId::kString || from.IsIntegral();
    case TypeId::kBoolean:
      return f == TypeId::kString || f == TypeId::kDate || f == TypeId::kTimestamp ||
             from.IsNumeric();
    case TypeId::kTimestamp:
      return f == TypeId::kString || f == TypeId::kBoolean || f == TypeId::kDate ||
             from.IsNumeric() || f == TypeId::kTimestampNtz;
    case TypeId::kArray:
    case TypeId::kMap:
    case TypeId::kStruct:
      return CanLegacyCastNested(from, to);
    default:
      return false;
  }
}

bool CanAnsiCast(const DataType& from, const DataType& to) {
  if (std::optional<bool> shared = CanCastInEveryMode(from, to)) return *shared;
  if (to.IsNumeric()) return CanCastToNumber(from, to, /*from_date=*/false);
  TypeId f = from.id(), t = to.id();
  switch (t) {
    case TypeId::kBinary:
      return f == TypeId::kString;
    case TypeId::kBoolean:
      return f == TypeId::kString || from.IsNumeric();
    case TypeId::kTimestamp:
      return f == TypeId::kString || f == TypeId::kDate || f == TypeId::kTimestampNtz ||
             from.IsNumeric();
    case TypeId::kArray:
      return f == TypeId::kArray &&
             CanAnsiCast(*from.element_type(), *to.element_type()) &&
             Resolvable(from.contains_null(), to.contains_null());
    case TypeId::kMap:
      return f == TypeId::kMap && CanAnsiCast(*from.key_type(), *to.key_type()) &&
             CanAnsiCast(*from.value_type(), *to.value_type()) &&
             Resolvable(from.value_contains_null(), to.value_contains_null());
    case TypeId::kStruct: {
      if (f != TypeId::kStruct || from.fields().size() != to.fields().size())
        return false;
      for (size_t i = 0; i < from.fields().size(); ++i) {
        const Field& a = from.fields()[i];
        const Field& b = to.fields()[i];
        if (!CanAnsiCast(*a.type, *b.type) || !Resolvable(a.nullable, b.nullable))
          return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// DecimalType.isTighterThan.
bool DecimalTighterThan(const DataType& dec, const DataType& other) {
  int p, s;
  if (!DecimalForm(other, &p, &s)) return false;
  return dec.precision() - dec.scale() <= p - s && dec.scale() <= s;
}

// Position in TypeCoercion.numericPrecedence (byte < short < int < long < float <
// double).
int NumericPrecedence(TypeId id) {
  switch (id) {
    case TypeId::kByte:
      return 0;
    case TypeId::kShort:
      return 1;
    case TypeId::kInt:
      return 2;
    case TypeId::kLong:
      return 3;
    case TypeId::kFloat:
      return 4;
    case TypeId::kDouble:
      return 5;
    default:
      return -1;
  }
}

// Cast.canUpCast (UpCastRule): no truncation, precision loss or runtime failure.
bool CanUpCast(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  TypeId f = from.id(), t = to.id();
  if (from.IsNumeric() && t == TypeId::kDecimal && DecimalWiderThan(to, from))
    return true;
  if (f == TypeId::kDecimal && to.IsIntegral()) {
    // SPARK-40389: decimal(10,0) does not fit an int; fewer integral digits than the
    // integral type's decimal form are safe.
    int p, sc;
    IntegralDecimal(t, &p, &sc);
    return from.precision() - from.scale() < p;
  }
  if (f == TypeId::kDecimal && to.IsNumeric() && DecimalTighterThan(from, to))
    return true;
  int fp = NumericPrecedence(f), tp = NumericPrecedence(t);
  if (fp >= 0 && tp >= 0 && fp < tp) return true;
  if (f == TypeId::kDate && (t == TypeId::kTimestamp || t == TypeId::kTimestampNtz))
    return true;
  if ((f == TypeId::kTimestamp && t == TypeId::kTimestampNtz) ||
      (f == TypeId::kTimestampNtz && t == TypeId::kTimestamp)) {
    return true;
  }
  if (t == TypeId::kString && !from.IsNested()) return true;
  if (f == TypeId::kNull) return true;
  if ((f == TypeId::kTimestamp && t == TypeId::kLong) ||
      (f == TypeId::kLong && t == TypeId::kTimestamp)) {
    return true;
  }
  if (f != t) return false;
  switch (f) {
    case TypeId::kArray:
      return Resolvable(from.contains_null(), to.contains_null()) &&
             CanUpCast(*from.element_type(), *to.element_type());
    case TypeId::kMap:
      return Resolvable(from.value_contains_null(), to.value_contains_null()) &&
             CanUpCast(*from.key_type(), *to.key_type()) &&
             CanUpCast(*from.value_type(), *to.value_type());
    case TypeId::kStruct:
      if (from.fields().size() != to.fields().size()) return false;
      for (size_t i = 0; i < from.fields().size(); ++i) {
        if (!Resolvable(from.fields()[i].nullable, to.fields()[i].nullable) ||
            !CanUpCast(*from.fields()[i].type, *to.fields()[i].type)) {
          return false;
        }
      }
      return true;
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      return true;
    default:
      return false;
  }
}

// Cast.nullable, including try_cast's rule.
bool CastNullable(const DataType& from, const DataType& to, bool child_nullable,
                  bool is_try) {
  if (!is_try) return child_nullable || ForceNullable(from, to);
  if (from.id() == TypeId::kString && to.id() == TypeId::kBinary) return child_nullable;
  if (from.id() == TypeId::kDecimal && to.IsIntegral()) return true;
  return child_nullable || !CanUpCast(from, to);
}

bool CanTryCast(const DataType& from, const DataType& to) {
  if (from.IsNested() && to.IsNested() && from.id() == to.id()) {
    return CanLegacyCastNested(from, to);
  }
  return CanAnsiCast(from, to);
}

// Whether a CAST of `child` to `to` reads Spark's special datetime values: a constant
// string cast to a date or timestamp (the optimizer's SpecialDatetimeValues rule).
bool ReadsSpecialValues(const BoundExpr& child, const DataType& to) {
  TypeId t = to.id();
  return child.type()->id() == TypeId::kString &&
         (t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampNtz) &&
         child.IsConstant();
}

// The CAST node: evaluates its child and casts the column.
class CastExpr final : public BoundExpr {
 public:
  CastExpr(BoundExprPtr child, DataTypePtr to, bool is_try, bool nullable)
      : BoundExpr(std::move(to), nullable, {std::move(child)}),
        is_try_(is_try),
        special_values_(ReadsSpecialValues(*children_[0], *type_)) {}

  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    SPATE_ASSIGN_OR_RETURN(ColumnPtr c, children_[0]->Evaluate(input, ctx));
    if (special_values_) {
      // 'today', 'epoch', ... at the query's instant, in any mode.
      if (ColumnPtr v = SpecialDatetimeColumn(*c, type_->id(), ctx)) return v;
    }
    CastMode mode =
        is_try_ ? CastMode::kTry : (ctx.ansi ? CastMode::kAnsi : CastMode::kLegacy);
    if (mode == CastMode::kAnsi && !CanCast(*children_[0]->type(), *type_, mode)) {
      return CheckCast(*children_[0]->type(), *type_, mode, SqlText());
    }
    return CastColumn(c, type_, mode, ctx);
  }
  std::string ToString() const override {
    return std::string(is_try_ ? "try_cast(" : "cast(") + children_[0]->ToString() +
           " as " + type_->SimpleString() + ")";
  }

 private:
  std::string SqlText() const {
    return std::string(is_try_ ? "TRY_CAST(" : "CAST(") + children_[0]->ToString() +
           " AS " + type_->Sql() + ")";
  }
  bool is_try_;
  bool special_values_;
};

}  // namespace

bool CanCast(const DataType& from, const DataType& to, CastMode mode) {
  switch (mode) {
    case CastMode::kAnsi:
      return CanAnsiCast(from, to);
    case CastMode::kTry:
      return CanTryCast(from, to);
    case CastMode::kLegacy:
      return CanLegacyCast(from, to);
  }
  return false;
}

Status CheckCast(const DataType& from, const DataType& to, CastMode mode,
                 std::string_view sql_expr) {
  if (CanCast(from, to, mode)) return Status::OK();
  std::vector<ErrorParam> params = {{"sqlExpr", "\"" + std::string(sql_expr) + "\""},
                                    {"srcType", SqlType(from)},
                                    {"targetType", SqlType(to)}};
  if (mode != CastMode::kLegacy) {
    // Cast.typeCheckFailureMessage: functions for datetime <-> numeric, then the ANSI
    // config when the legacy cast would work.
    const char* functions = nullptr;
    if (from.IsNumeric() && to.id() == TypeId::kTimestamp) {
      functions = "`TIMESTAMP_SECONDS`/`TIMESTAMP_MILLIS`/`TIMESTAMP_MICROS`";
    } else if (from.id() == TypeId::kTimestamp && to.IsNumeric()) {
      functions = "`UNIX_SECONDS`/`UNIX_MILLIS`/`UNIX_MICROS`";
    } else if (from.IsNumeric() && to.id() == TypeId::kDate) {
      functions = "`DATE_FROM_UNIX_DATE`";
    } else if (from.id() == TypeId::kDate && to.IsNumeric()) {
      functions = "`UNIX_DATE`";
    }
    if (functions != nullptr) {
      params.push_back({"functionNames", functions});
      return Status::Error("DATATYPE_MISMATCH.CAST_WITH_FUNC_SUGGESTION",
                           std::move(params));
    }
    if (mode == CastMode::kAnsi && CanLegacyCast(from, to)) {
      params.push_back({"config", "\"spark.sql.ansi.enabled\""});
      params.push_back({"configVal", "'false'"});
      return Status::Error("DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION",
                           std::move(params));
    }
  }
  return Status::Error("DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION", std::move(params));
}

Result<ColumnPtr> CastColumn(const ColumnPtr& input, const DataTypePtr& to, CastMode mode,
                             const EvalContext& ctx) {
  const DataType& from = *input->type();
  if (from.Equals(*to)) return input;
  if (!CanCast(from, *to, mode)) {
    return CheckCast(from, *to, mode, "CAST(input AS " + to->Sql() + ")");
  }
  return Cast(input, to, CastContext{mode, ctx});
}

Result<BoundExprPtr> MakeCast(BoundExprPtr child, DataTypePtr to, bool is_try) {
  const DataType& from = *child->type();
  if (from.Equals(*to)) return child;
  // The ANSI flag is known only at evaluation; the widest (legacy) rules apply here and
  // Evaluate() rejects what ANSI mode forbids.
  CastMode check = is_try ? CastMode::kTry : CastMode::kLegacy;
  std::string sql = std::string(is_try ? "TRY_CAST(" : "CAST(") + child->ToString() +
                    " AS " + to->Sql() + ")";
  SPATE_RETURN_IF_ERROR(CheckCast(from, *to, check, sql));
  bool nullable = CastNullable(from, *to, child->nullable(), is_try);
  return BoundExprPtr(
      std::make_shared<CastExpr>(std::move(child), std::move(to), is_try, nullable));
}

Result<BoundExprPtr> MakeExplicitCast(BoundExprPtr child, DataTypePtr to, bool is_try,
                                      bool ansi) {
  if (!is_try && child->type()->id() != TypeId::kNull) {
    std::string sql = "CAST(" + child->ToString() + " AS " + to->Sql() + ")";
    SPATE_RETURN_IF_ERROR(
        CheckCast(*child->type(), *to, ansi ? CastMode::kAnsi : CastMode::kLegacy, sql));
  }
  return MakeCast(std::move(child), std::move(to), is_try);
}

Result<Value> CastValue(const Value& v, const DataTypePtr& to, CastMode mode,
                        const EvalContext& ctx) {
  ColumnPtr col = ColumnFromValues(v.type(), {v});
  SPATE_ASSIGN_OR_RETURN(ColumnPtr out, CastColumn(col, to, mode, ctx));
  return out->GetValue(0);
}

}  // namespace spate
