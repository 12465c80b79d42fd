// Copyright spate authors.
#pragma once

// Status and Result<T>: how every fallible function in src/spate reports failure.
//
// A Status is OK or carries a code, and for user-facing errors a Spark error class
// (e.g. "DIVIDE_BY_ZERO"), its SQLSTATE, the rendered message and the message
// parameters. Exceptions are used only at the outer edges (the api facade, the CLI,
// the Python binding), which turn a Status into AnalysisException, ParseException, ...
//
// Thread safety: Status and Result are values; a const Status may be read from any
// thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace spate {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kOutOfRange,
  kUnimplemented,
  kCancelled,
  kResourceExhausted,
  kIOError,
  kDataCorruption,
  kInternal,
};

/// The family an error belongs to; the api layer maps it to an exception type
/// (AnalysisException, ParseException, ArithmeticException, ...).
enum class ErrorKind : uint8_t {
  kInternal = 0,     // SparkException / internal errors
  kParse,            // ParseException
  kAnalysis,         // AnalysisException
  kArithmetic,       // SparkArithmeticException
  kNumberFormat,     // SparkNumberFormatException
  kDateTime,         // SparkDateTimeException
  kIllegalArgument,  // SparkIllegalArgumentException
  kUnsupported,      // SparkUnsupportedOperationException
  kRuntime,          // SparkRuntimeException
  kArrayIndex,       // SparkArrayIndexOutOfBoundsException
  kStreamingQuery,   // StreamingQueryException
};

std::string_view ErrorKindName(ErrorKind kind);

/// A message parameter of an error class: name and rendered value.
struct ErrorParam {
  std::string name;
  std::string value;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status Invalid(std::string msg) {
    return {StatusCode::kInvalidArgument, std::move(msg)};
  }
  static Status NotFound(std::string msg) {
    return {StatusCode::kNotFound, std::move(msg)};
  }
  static Status IOError(std::string msg) {
    return {StatusCode::kIOError, std::move(msg)};
  }
  static Status Internal(std::string msg) {
    return {StatusCode::kInternal, std::move(msg)};
  }
  static Status Unimplemented(std::string msg) {
    return {StatusCode::kUnimplemented, std::move(msg)};
  }
  static Status Cancelled(std::string msg) {
    return {StatusCode::kCancelled, std::move(msg)};
  }
  static Status ResourceExhausted(std::string msg) {
    return {StatusCode::kResourceExhausted, std::move(msg)};
  }

  /// A user-facing error of a Spark error class ("DIVIDE_BY_ZERO",
  /// "UNRESOLVED_COLUMN.WITH_SUGGESTION"); the message is rendered from the class's
  /// template in error_classes.inc. An unknown class is an internal error.
  static Status Error(std::string_view error_class, std::vector<ErrorParam> params = {});

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  ErrorKind kind() const { return state_ ? state_->kind : ErrorKind::kInternal; }
  /// The rendered message without the "[CLASS] " prefix and SQLSTATE suffix.
  const std::string& message() const;
  /// "" for errors without a class.
  const std::string& error_class() const;
  const std::string& sql_state() const;
  const std::vector<ErrorParam>& params() const;
  /// Position in the query text (0-based char offset) when known, else -1.
  int64_t position() const { return state_ ? state_->position : -1; }
  Status WithPosition(int64_t pos) const;
  /// Adds context in front of the message ("reading file x: ...").
  Status WithContext(std::string_view context) const;

  /// Spark's rendering: "[CLASS] message SQLSTATE: xxxxx" for classed errors,
  /// otherwise "<CodeName>: message".
  std::string ToString() const;

 private:
  struct State {
    StatusCode code;
    ErrorKind kind = ErrorKind::kInternal;
    std::string message;
    std::string error_class;
    std::string sql_state;
    std::vector<ErrorParam> params;
    int64_t position = -1;
  };
  explicit Status(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

/// A value or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U, T> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Status>>>
  // A T converts to a Result<T>.
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(U&& value) : v_(T(std::forward<U>(value))) {}

  bool ok() const { return v_.index() == 0; }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<1>(v_);
  }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T ValueOr(T alt) const& { return ok() ? value() : alt; }

 private:
  std::variant<T, Status> v_;
};

}  // namespace spate

#define SPATE_CONCAT_IMPL(a, b) a##b
#define SPATE_CONCAT(a, b) SPATE_CONCAT_IMPL(a, b)

/// Returns the Status from the enclosing function if `expr` is not OK.
#define SPATE_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::spate::Status _st = ::spate::ToStatus(expr); \
    if (!_st.ok()) return _st;                     \
  } while (0)

// `tmp` and `lhs` are declarations, which parentheses would break.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define SPATE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

/// `SPATE_ASSIGN_OR_RETURN(auto x, MakeX());` assigns the value or returns the error.
#define SPATE_ASSIGN_OR_RETURN(lhs, expr) \
  SPATE_ASSIGN_OR_RETURN_IMPL(SPATE_CONCAT(_res_, __COUNTER__), lhs, expr)

namespace spate {
inline const Status& ToStatus(const Status& s) { return s; }
template <typename T>
const Status& ToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace spate
