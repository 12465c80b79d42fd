// Copyright spate authors.
#include "spate/compute/function_util.h"

#include <cstring>

#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"

namespace spate::fn {

Status CheckArgs(const std::string& name, size_t actual, size_t min, size_t max,
                 const std::string& expected) {
  if (actual >= min && actual <= max) return Status::OK();
  return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                       {{"functionName", "`" + name + "`"},
                        {"expectedNum", expected},
                        {"actualNum", std::to_string(actual)}});
}

int HexDigitValue(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

int Base64DigitValue(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

bool UnhexInto(std::string_view s, std::string* out) {
  size_t k = 0;
  if (s.size() % 2 == 1) {
    int v = HexDigitValue(s[0]);
    if (v < 0) return false;
    out->push_back(static_cast<char>(v));
    k = 1;
  }
  for (; k < s.size(); k += 2) {
    int hi = HexDigitValue(s[k]), lo = HexDigitValue(s[k + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

Result<Value> FoldConstant(const BoundExprPtr& e) {
  if (const Value* v = e->literal_value()) return *v;
  auto batch = Batch::Make(std::make_shared<Schema>(), {}, 1);
  EvalContext ctx;
  SPATE_ASSIGN_OR_RETURN(ColumnPtr c, e->Evaluate(*batch, ctx));
  return c->GetValue(0);
}

Result<BoundExprPtr> Delegate(const std::string& shown, const std::string& name,
                              std::vector<BoundExprPtr> args, const ResolveContext& rc,
                              std::vector<BoundExprPtr> shown_args) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar(name);
  SPATE_ASSIGN_OR_RETURN(auto inner, (*r)(std::move(args), rc));
  std::vector<std::string> texts;
  for (const auto& a : shown_args) texts.push_back(a->ToString());
  return MakeScalarCall(
      shown, inner->type(), inner->nullable(), {inner},
      [](const std::vector<ColumnPtr>& c, int64_t,
         const EvalContext&) -> Result<ColumnPtr> { return c[0]; },
      [shown, texts](const std::vector<std::string>&) { return CallText(shown, texts); });
}

std::string Ordinal(size_t index) {
  static const char* kNames[] = {"first", "second",  "third",  "fourth", "fifth",
                                 "sixth", "seventh", "eighth", "ninth",  "tenth"};
  if (index < 10) return kNames[index];
  return std::to_string(index + 1) + "th";
}

std::string CallSql(const std::string& name, const std::vector<BoundExprPtr>& args) {
  std::vector<std::string> s;
  for (const auto& a : args) s.push_back(a->ToString());
  return CallText(name, s);
}

Status UnexpectedType(const std::string& name, const std::vector<BoundExprPtr>& args,
                      size_t index, const std::string& required) {
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", "\"" + CallSql(name, args) + "\""},
                        {"paramIndex", Ordinal(index)},
                        {"requiredType", required},
                        {"inputSql", "\"" + args[index]->ToString() + "\""},
                        {"inputType", QuoteType(*args[index]->type())}});
}

Result<BoundExprPtr> ToTypeArg(const std::string& name,
                               const std::vector<BoundExprPtr>& args, size_t index,
                               const DataTypePtr& to, const std::string& required) {
  const BoundExprPtr& a = args[index];
  if (a->type()->Equals(*to)) return a;
  if (a->type()->IsNested() || !CanCast(*a->type(), *to, CastMode::kAnsi)) {
    return UnexpectedType(name, args, index, required);
  }
  auto r = MakeCast(a, to);
  if (!r.ok()) return UnexpectedType(name, args, index, required);
  return r;
}

Result<BoundExprPtr> ToStringArg(const std::string& name,
                                 const std::vector<BoundExprPtr>& args, size_t index) {
  return ToTypeArg(name, args, index, DataType::String(), "\"STRING\"");
}

Result<BoundExprPtr> ToIntArg(const std::string& name,
                              const std::vector<BoundExprPtr>& args, size_t index) {
  const DataType& t = *args[index]->type();
  if (!(t.IsIntegral() || t.id() == TypeId::kNull || t.id() == TypeId::kString)) {
    return UnexpectedType(name, args, index, "\"INT\"");
  }
  return ToTypeArg(name, args, index, DataType::Int(), "\"INT\"");
}

Result<BoundExprPtr> ToNumericArg(const std::string& name,
                                  const std::vector<BoundExprPtr>& args, size_t index) {
  const DataType& t = *args[index]->type();
  if (t.IsNumeric()) return args[index];
  if (t.id() == TypeId::kNull || t.id() == TypeId::kString) {
    return ImplicitCast(args[index], DataType::Double());
  }
  return UnexpectedType(name, args, index, "\"NUMERIC\"");
}

bool AnyNullable(const std::vector<BoundExprPtr>& args) {
  for (const auto& a : args) {
    if (a->nullable()) return true;
  }
  return false;
}

void NullMask::SetNull(int64_t i) {
  if (!owned_) {
    auto v = Buffer::Allocate(bits::BytesFor(n_));
    if (validity_) {
      std::memcpy(v->mutable_data(), validity_->data(),
                  static_cast<size_t>(bits::BytesFor(n_)));
    } else {
      std::memset(v->mutable_data(), 0xff, static_cast<size_t>(bits::BytesFor(n_)));
    }
    validity_ = v;
    owned_ = true;
  }
  if (bits::Get(validity_->data(), i)) {
    bits::Clear(validity_->mutable_data(), i);
    ++nulls_;
  }
}

int64_t NumChars(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

size_t ByteOffsetOfChar(std::string_view s, int64_t k) {
  size_t pos = 0;
  while (k > 0 && pos < s.size()) {
    pos += static_cast<size_t>(Utf8Len(static_cast<unsigned char>(s[pos])));
    --k;
  }
  return std::min(pos, s.size());
}

uint32_t DecodeUtf8(std::string_view s, size_t* pos) {
  unsigned char c = static_cast<unsigned char>(s[*pos]);
  int len = Utf8Len(c);
  if (*pos + static_cast<size_t>(len) > s.size()) len = 1;
  uint32_t cp;
  switch (len) {
    case 1:
      cp = c;
      break;
    case 2:
      cp = (c & 0x1Fu) << 6 | (static_cast<unsigned char>(s[*pos + 1]) & 0x3Fu);
      break;
    case 3:
      cp = (c & 0x0Fu) << 12 | (static_cast<unsigned char>(s[*pos + 1]) & 0x3Fu) << 6 |
           (static_cast<unsigned char>(s[*pos + 2]) & 0x3Fu);
      break;
    default:
      cp = (c & 0x07u) << 18 | (static_cast<unsigned char>(s[*pos + 1]) & 0x3Fu) << 12 |
           (static_cast<unsigned char>(s[*pos + 2]) & 0x3Fu) << 6 |
           (static_cast<unsigned char>(s[*pos + 3]) & 0x3Fu);
      break;
  }
  *pos += static_cast<size_t>(len);
  return cp;
}

std::string_view SubstringSql(std::string_view s, int64_t pos, int64_t len, bool bytes) {
  int64_t total = bytes ? static_cast<int64_t>(s.size()) : NumChars(s);
  int64_t start = pos > 0 ? pos - 1 : (pos < 0 ? total + pos : 0);
  int64_t end = start + len;  // both fit in int64 (inputs are int32)
  end = std::min<int64_t>(std::max<int64_t>(end, INT32_MIN), INT32_MAX);
  start = std::max<int64_t>(start, 0);
  if (start >= end || start >= total) return {};
  end = std::min(end, total);
  if (bytes)
    return s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start));
  size_t b = ByteOffsetOfChar(s, start);
  size_t e = b + ByteOffsetOfChar(s.substr(b), end - start);
  return s.substr(b, e - b);
}

StringArrayBuilder::StringArrayBuilder(int64_t n)
    : child_(DataType::String(), n * 2, n * 16) {
  offsets_.reserve(static_cast<size_t>(n + 1));
  offsets_.push_back(0);
}

ColumnPtr StringArrayBuilder::Finish() {
  int64_t n = static_cast<int64_t>(offsets_.size()) - 1;
  auto off = Buffer::Allocate((n + 1) * 4);
  std::memcpy(off->mutable_data(), offsets_.data(), offsets_.size() * 4);
  int64_t nulls = validity_.null_count();
  return std::make_shared<const Column>(DataType::Array(DataType::String(), false), n,
                                        nulls, validity_.Finish(), off, nullptr,
                                        std::vector<ColumnPtr>{child_.Finish()});
}

}  // namespace spate::fn
