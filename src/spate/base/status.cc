// Copyright spate authors.
#include "spate/base/status.h"

#include <fmt/format.h>

#include "spate/base/error_classes.h"

namespace spate {

namespace {
const std::string kEmpty;
const std::vector<ErrorParam> kNoParams;

std::string_view CodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "Invalid argument";
    case StatusCode::kNotFound:
      return "Not found";
    case StatusCode::kAlreadyExists:
      return "Already exists";
    case StatusCode::kFailedPrecondition:
      return "Failed precondition";
    case StatusCode::kOutOfRange:
      return "Out of range";
    case StatusCode::kUnimplemented:
      return "Not implemented";
    case StatusCode::kCancelled:
      return "Cancelled";
    case StatusCode::kResourceExhausted:
      return "Resource exhausted";
    case StatusCode::kIOError:
      return "IO error";
    case StatusCode::kDataCorruption:
      return "Data corruption";
    case StatusCode::kInternal:
      return "Internal error";
  }
  return "Unknown";
}
}  // namespace

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInternal:
      return "SparkException";
    case ErrorKind::kParse:
      return "ParseException";
    case ErrorKind::kAnalysis:
      return "AnalysisException";
    case ErrorKind::kArithmetic:
      return "ArithmeticException";
    case ErrorKind::kNumberFormat:
      return "NumberFormatException";
    case ErrorKind::kDateTime:
      return "DateTimeException";
    case ErrorKind::kIllegalArgument:
      return "IllegalArgumentException";
    case ErrorKind::kUnsupported:
      return "UnsupportedOperationException";
    case ErrorKind::kRuntime:
      return "RuntimeException";
    case ErrorKind::kArrayIndex:
      return "ArrayIndexOutOfBoundsException";
    case ErrorKind::kStreamingQuery:
      return "StreamingQueryException";
  }
  return "SparkException";
}

Status::Status(StatusCode code, std::string message) {
  if (code == StatusCode::kOk) return;
  auto st = std::make_shared<State>();
  st->code = code;
  st->message = std::move(message);
  state_ = std::move(st);
}

Status Status::Error(std::string_view error_class, std::vector<ErrorParam> params) {
  const ErrorClassInfo* info = FindErrorClass(error_class);
  auto st = std::make_shared<State>();
  if (info == nullptr) {
    st->code = StatusCode::kInternal;
    st->kind = ErrorKind::kInternal;
    st->error_class = "INTERNAL_ERROR";
    st->sql_state = "XX000";
    st->message = fmt::format("Unknown error class {}", error_class);
    st->params = std::move(params);
    return Status(std::move(st));
  }
  st->code = info->kind == ErrorKind::kInternal ? StatusCode::kInternal
                                                : StatusCode::kInvalidArgument;
  st->kind = info->kind;
  st->error_class = std::string(error_class);
  st->sql_state = std::string(info->sql_state);
  st->message = RenderErrorTemplate(info->message_template, params);
  st->params = std::move(params);
  return Status(std::move(st));
}

const std::string& Status::message() const { return state_ ? state_->message : kEmpty; }
const std::string& Status::error_class() const {
  return state_ ? state_->error_class : kEmpty;
}
const std::string& Status::sql_state() const {
  return state_ ? state_->sql_state : kEmpty;
}
const std::vector<ErrorParam>& Status::params() const {
  return state_ ? state_->params : kNoParams;
}

Status Status::WithPosition(int64_t pos) const {
  if (!state_) return *this;
  auto st = std::make_shared<State>(*state_);
  st->position = pos;
  return Status(std::move(st));
}

Status Status::WithContext(std::string_view context) const {
  if (!state_) return *this;
  auto st = std::make_shared<State>(*state_);
  st->message = fmt::format("{}: {}", context, st->message);
  return Status(std::move(st));
}

std::string Status::ToString() const {
  if (!state_) return "OK";
  if (!state_->error_class.empty()) {
    return fmt::format("[{}] {} SQLSTATE: {}", state_->error_class, state_->message,
                       state_->sql_state);
  }
  return fmt::format("{}: {}", CodeName(state_->code), state_->message);
}

}  // namespace spate
