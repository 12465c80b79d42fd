// Copyright spate authors.
#include "spate/stream/json_value.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "spate/base/json.h"
#include "spate/types/format.h"

namespace spate::stream {

JsonValue JsonValue::Bool(bool b) {
  JsonValue v;
  v.type_ = Type::kBool;
  v.b_ = b;
  return v;
}
JsonValue JsonValue::Int(int64_t x) {
  JsonValue v;
  v.type_ = Type::kInt;
  v.i_ = x;
  return v;
}
JsonValue JsonValue::Double(double x) {
  JsonValue v;
  v.type_ = Type::kDouble;
  v.d_ = x;
  return v;
}
JsonValue JsonValue::String(std::string s) {
  JsonValue v;
  v.type_ = Type::kString;
  v.s_ = std::move(s);
  return v;
}
JsonValue JsonValue::Array() {
  JsonValue v;
  v.type_ = Type::kArray;
  return v;
}
JsonValue JsonValue::Object() {
  JsonValue v;
  v.type_ = Type::kObject;
  return v;
}

JsonValue& JsonValue::Append(JsonValue v) {
  items_.push_back(std::move(v));
  return *this;
}

JsonValue& JsonValue::Set(const std::string& key, JsonValue v) {
  for (auto& [k, old] : fields_) {
    if (k == key) {
      old = std::move(v);
      return *this;
    }
  }
  fields_.emplace_back(key, std::move(v));
  return *this;
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [k, v] : fields_) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool JsonValue::operator==(const JsonValue& o) const {
  if (is_number() && o.is_number()) {
    if (type_ == Type::kInt && o.type_ == Type::kInt) return i_ == o.i_;
    return double_value() == o.double_value();
  }
  if (type_ != o.type_) return false;
  switch (type_) {
    case Type::kNull:
      return true;
    case Type::kBool:
      return b_ == o.b_;
    case Type::kString:
      return s_ == o.s_;
    case Type::kArray:
      return items_ == o.items_;
    case Type::kObject:
      return fields_ == o.fields_;
    default:
      return false;
  }
}

namespace {
void WriteNumber(const JsonValue& v, std::string* out) {
  if (v.type() == JsonValue::Type::kInt) {
    out->append(std::to_string(v.int_value()));
  } else {
    out->append(FormatDouble(v.double_value()));
  }
}
}  // namespace

void JsonValue::Write(std::string* out) const {
  switch (type_) {
    case Type::kNull:
      out->append("null");
      break;
    case Type::kBool:
      out->append(b_ ? "true" : "false");
      break;
    case Type::kInt:
    case Type::kDouble:
      WriteNumber(*this, out);
      break;
    case Type::kString:
      AppendJsonString(s_, out);
      break;
    case Type::kArray:
      out->push_back('[');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) out->push_back(',');
        items_[i].Write(out);
      }
      out->push_back(']');
      break;
    case Type::kObject:
      out->push_back('{');
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) out->push_back(',');
        AppendJsonString(fields_[i].first, out);
        out->push_back(':');
        fields_[i].second.Write(out);
      }
      out->push_back('}');
      break;
  }
}

void JsonValue::WritePretty(std::string* out, int indent) const {
  switch (type_) {
    case Type::kArray:
      if (items_.empty()) {
        out->append("[ ]");
        return;
      }
      out->append("[ ");
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) out->append(", ");
        items_[i].WritePretty(out, indent);
      }
      out->append(" ]");
      return;
    case Type::kObject:
      if (fields_.empty()) {
        out->append("{ }");
        return;
      }
      out->push_back('{');
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) out->push_back(',');
        out->push_back('\n');
        out->append(static_cast<size_t>(indent + 2), ' ');
        AppendJsonString(fields_[i].first, out);
        out->append(" : ");
        fields_[i].second.WritePretty(out, indent + 2);
      }
      out->push_back('\n');
      out->append(static_cast<size_t>(indent), ' ');
      out->push_back('}');
      return;
    default:
      Write(out);
  }
}

std::string JsonValue::ToString() const {
  std::string out;
  Write(&out);
  return out;
}

std::string JsonValue::ToPrettyString() const {
  std::string out;
  WritePretty(&out, 0);
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}

  Result<JsonValue> ParseAll() {
    SPATE_ASSIGN_OR_RETURN(JsonValue v, ParseValue(0));
    SkipWs();
    if (p_ != t_.size()) return Error("trailing characters");
    return v;
  }

 private:
  Status Error(const std::string& what) const {
    return Status(StatusCode::kDataCorruption,
                  "malformed JSON at offset " + std::to_string(p_) + ": " + what);
  }
  void SkipWs() {
    while (p_ < t_.size() &&
           (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t'))
      ++p_;
  }
  bool Consume(std::string_view lit) {
    if (t_.substr(p_, lit.size()) == lit) {
      p_ += lit.size();
      return true;
    }
    return false;
  }
  Result<std::string> ParseString() {
    if (p_ >= t_.size() || t_[p_] != '"') return Error("expected a string");
    ++p_;
    std::string s;
    while (p_ < t_.size()) {
      char c = t_[p_++];
      if (c == '"') return s;
      if (c != '\\') {
        s.push_back(c);
        continue;
      }
      if (p_ >= t_.size()) break;
      char e = t_[p_++];
      switch (e) {
        case '"':
          s.push_back('"');
          break;
        case '\\':
          s.push_back('\\');
          break;
        case '/':
          s.push_back('/');
          break;
        case 'b':
          s.push_back('\b');
          break;
        case 'f':
          s.push_back('\f');
          break;
        case 'n':
          s.push_back('\n');
          break;
        case 'r':
          s.push_back('\r');
          break;
        case 't':
          s.push_back('\t');
          break;
        case 'u': {
          if (p_ + 4 > t_.size()) return Error("bad \\u escape");
          uint32_t cp = static_cast<uint32_t>(
              std::strtoul(std::string(t_.substr(p_, 4)).c_str(), nullptr, 16));
          p_ += 4;
          if (cp >= 0xD800 && cp < 0xDC00 && p_ + 6 <= t_.size() && t_[p_] == '\\' &&
              t_[p_ + 1] == 'u') {
            uint32_t lo = static_cast<uint32_t>(
                std::strtoul(std::string(t_.substr(p_ + 2, 4)).c_str(), nullptr, 16));
            p_ += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          if (cp < 0x80) {
            s.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else if (cp < 0x10000) {
            s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default:
          return Error("bad escape");
      }
    }
    return Error("unterminated string");
  }
  Result<JsonValue> ParseValue(int depth) {
    if (depth > 200) return Error("nesting too deep");
    SkipWs();
    if (p_ >= t_.size()) return Error("unexpected end");
    char c = t_[p_];
    if (c == '{') {
      ++p_;
      JsonValue obj = JsonValue::Object();
      SkipWs();
      if (p_ < t_.size() && t_[p_] == '}') {
        ++p_;
        return obj;
      }
      for (;;) {
        SkipWs();
        SPATE_ASSIGN_OR_RETURN(std::string key, ParseString());
        SkipWs();
        if (!Consume(":")) return Error("expected ':'");
        SPATE_ASSIGN_OR_RETURN(JsonValue v, ParseValue(depth + 1));
        obj.Set(key, std::move(v));
        SkipWs();
        if (Consume(",")) continue;
        if (Consume("}")) return obj;
        return Error("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++p_;
      JsonValue arr = JsonValue::Array();
      SkipWs();
      if (p_ < t_.size() && t_[p_] == ']') {
        ++p_;
        return arr;
      }
      for (;;) {
        SPATE_ASSIGN_OR_RETURN(JsonValue v, ParseValue(depth + 1));
        arr.Append(std::move(v));
        SkipWs();
        if (Consume(",")) continue;
        if (Consume("]")) return arr;
        return Error("expected ',' or ']'");
      }
    }
    if (c == '"') {
      SPATE_ASSIGN_OR_RETURN(std::string s, ParseString());
      return JsonValue::String(std::move(s));
    }
    if (Consume("null")) return JsonValue::Null();
    if (Consume("true")) return JsonValue::Bool(true);
    if (Consume("false")) return JsonValue::Bool(false);
    size_t start = p_;
    bool is_double = false;
    if (p_ < t_.size() && (t_[p_] == '-' || t_[p_] == '+')) ++p_;
    while (p_ < t_.size()) {
      char d = t_[p_];
      if (d >= '0' && d <= '9') {
        ++p_;
      } else if (d == '.' || d == 'e' || d == 'E' ||
                 ((d == '-' || d == '+') && is_double)) {
        is_double = true;
        ++p_;
      } else {
        break;
      }
    }
    if (p_ == start) return Error("unexpected character");
    std::string num(t_.substr(start, p_ - start));
    if (!is_double) {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(num.c_str(), &end, 10);
      if (errno == 0 && end && *end == '\0') return JsonValue::Int(v);
    }
    char* end = nullptr;
    double d = std::strtod(num.c_str(), &end);
    if (!end || *end != '\0') return Error("bad number");
    return JsonValue::Double(d);
  }

  std::string_view t_;
  size_t p_ = 0;
};

}  // namespace

Result<JsonValue> JsonValue::Parse(std::string_view text) {
  return Parser(text).ParseAll();
}

}  // namespace spate::stream
