// Copyright spate authors.
#pragma once

// Exceptions of the public C++ API, mirroring PySpark's (pyspark.errors): each carries
// the Spark error class, SQLSTATE and message parameters. Only the api facade throws; the
// engine below reports failures as Status values.

#include <map>
#include <stdexcept>
#include <string>

#include "spate/base/status.h"

namespace spate::api {

class SparkException : public std::runtime_error {
 public:
  explicit SparkException(const Status& status);
  /// "DIVIDE_BY_ZERO", "UNRESOLVED_COLUMN.WITH_SUGGESTION", "" if none.
  const std::string& getErrorClass() const { return error_class_; }
  const std::string& getCondition() const { return error_class_; }
  const std::string& getSqlState() const { return sql_state_; }
  const std::map<std::string, std::string>& getMessageParameters() const {
    return params_;
  }
  const Status& status() const { return status_; }

 private:
  Status status_;
  std::string error_class_;
  std::string sql_state_;
  std::map<std::string, std::string> params_;
};

class AnalysisException : public SparkException {
  using SparkException::SparkException;
};
class ParseException : public AnalysisException {
  using AnalysisException::AnalysisException;
};
class ArithmeticException : public SparkException {
  using SparkException::SparkException;
};
class NumberFormatException : public SparkException {
  using SparkException::SparkException;
};
class DateTimeException : public SparkException {
  using SparkException::SparkException;
};
class IllegalArgumentException : public SparkException {
  using SparkException::SparkException;
};
class UnsupportedOperationException : public SparkException {
  using SparkException::SparkException;
};
class SparkRuntimeException : public SparkException {
  using SparkException::SparkException;
};
class ArrayIndexOutOfBoundsException : public SparkException {
  using SparkException::SparkException;
};
class StreamingQueryException : public SparkException {
  using SparkException::SparkException;
};

/// Throws the exception type matching the status's ErrorKind. REQUIRES: !status.ok().
[[noreturn]] void ThrowStatus(const Status& status);

/// Unwraps a Result or throws.
template <typename T>
T ValueOrThrow(Result<T> r) {
  if (!r.ok()) ThrowStatus(r.status());
  return std::move(r).value();
}
inline void CheckOrThrow(const Status& s) {
  if (!s.ok()) ThrowStatus(s);
}

}  // namespace spate::api
