// Copyright spate authors.
#include "spate/api/exceptions.h"

namespace spate::api {

SparkException::SparkException(const Status& status)
    : std::runtime_error(status.ToString()),
      status_(status),
      error_class_(status.error_class()),
      sql_state_(status.sql_state()) {
  for (const auto& p : status.params()) params_[p.name] = p.value;
}

void ThrowStatus(const Status& s) {
  switch (s.kind()) {
    case ErrorKind::kParse:
      throw ParseException(s);
    case ErrorKind::kAnalysis:
      throw AnalysisException(s);
    case ErrorKind::kArithmetic:
      throw ArithmeticException(s);
    case ErrorKind::kNumberFormat:
      throw NumberFormatException(s);
    case ErrorKind::kDateTime:
      throw DateTimeException(s);
    case ErrorKind::kIllegalArgument:
      throw IllegalArgumentException(s);
    case ErrorKind::kUnsupported:
      throw UnsupportedOperationException(s);
    case ErrorKind::kRuntime:
      throw SparkRuntimeException(s);
    case ErrorKind::kArrayIndex:
      throw ArrayIndexOutOfBoundsException(s);
    case ErrorKind::kStreamingQuery:
      throw StreamingQueryException(s);
    case ErrorKind::kInternal:
      if (s.error_class().empty() && s.code() == StatusCode::kInvalidArgument) {
        throw IllegalArgumentException(s);
      }
      throw SparkException(s);
  }
  throw SparkException(s);
}

}  // namespace spate::api
