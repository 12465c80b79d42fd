// Copyright spate authors.
#include "spate/base/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "spate/base/utf8.h"

namespace spate {

Json Json::Bool(bool b) {
  Json j;
  j.type_ = Type::kBool;
  j.b_ = b;
  return j;
}
Json Json::Int(int64_t v) {
  Json j;
  j.type_ = Type::kNumber;
  j.s_ = std::to_string(v);
  return j;
}
Json Json::Double(double v) {
  if (std::isnan(v)) return String("NaN");
  if (std::isinf(v)) return String(v > 0 ? "Infinity" : "-Infinity");
  Json j;
  j.type_ = Type::kNumber;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  j.s_.assign(buf, res.ptr);
  return j;
}
Json Json::NumberText(std::string text) {
  Json j;
  j.type_ = Type::kNumber;
  j.s_ = std::move(text);
  return j;
}
Json Json::String(std::string s) {
  Json j;
  j.type_ = Type::kString;
  j.s_ = std::move(s);
  return j;
}
Json Json::Array() {
  Json j;
  j.type_ = Type::kArray;
  return j;
}
Json Json::Object() {
  Json j;
  j.type_ = Type::kObject;
  return j;
}

namespace {
// The number text as an int64 when it is one exactly (no fraction, exponent or overflow).
std::optional<int64_t> ExactInt(const std::string& s) {
  int64_t v = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  if (res.ec == std::errc() && res.ptr == s.data() + s.size()) return v;
  return std::nullopt;
}
}  // namespace

int64_t Json::int_value() const {
  if (type_ != Type::kNumber) return 0;
  if (auto v = ExactInt(s_)) return *v;
  const double d = std::strtod(s_.c_str(), nullptr);
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return INT64_MAX;
  if (d <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(d);
}
double Json::double_value() const {
  if (type_ == Type::kString) {
    if (s_ == "NaN") return std::nan("");
    if (s_ == "Infinity") return HUGE_VAL;
    if (s_ == "-Infinity") return -HUGE_VAL;
    return 0;
  }
  if (type_ != Type::kNumber) return 0;
  return std::strtod(s_.c_str(), nullptr);
}

Json& Json::Append(Json v) {
  items_.push_back(std::move(v));
  return items_.back();
}
Json& Json::Set(const std::string& key, Json v) {
  for (auto& [k, val] : fields_) {
    if (k == key) {
      val = std::move(v);
      return val;
    }
  }
  fields_.emplace_back(key, std::move(v));
  return fields_.back().second;
}
const Json* Json::Find(std::string_view key) const {
  for (const auto& [k, v] : fields_) {
    if (k == key) return &v;
  }
  return nullptr;
}
std::optional<std::string> Json::GetString(std::string_view key) const {
  const Json* j = Find(key);
  if (!j || !j->is_string()) return std::nullopt;
  return j->s_;
}
std::optional<int64_t> Json::GetInt(std::string_view key) const {
  const Json* j = Find(key);
  if (!j || !j->is_number()) return std::nullopt;
  return j->int_value();
}
std::optional<bool> Json::GetBool(std::string_view key) const {
  const Json* j = Find(key);
  if (!j || !j->is_bool()) return std::nullopt;
  return j->b_;
}

void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  size_t start = 0;  // the run of characters that need no escape is copied at once
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + start, s.size() - start);
  out->push_back('"');
}

void Json::AppendTo(std::string* out) const {
  switch (type_) {
    case Type::kNull:
      out->append("null");
      break;
    case Type::kBool:
      out->append(b_ ? "true" : "false");
      break;
    case Type::kNumber:
      out->append(s_);
      break;
    case Type::kString:
      AppendJsonString(s_, out);
      break;
    case Type::kArray:
      out->push_back('[');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) out->push_back(',');
        items_[i].AppendTo(out);
      }
      out->push_back(']');
      break;
    case Type::kObject:
      out->push_back('{');
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) out->push_back(',');
        AppendJsonString(fields_[i].first, out);
        out->push_back(':');
        fields_[i].second.AppendTo(out);
      }
      out->push_back('}');
      break;
  }
}

std::string Json::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

void Json::AppendPretty(std::string* out, size_t indent) const {
  if (type_ == Type::kArray) {
    if (items_.empty()) {
      out->append("[ ]");
      return;
    }
    out->append("[ ");
    for (size_t i = 0; i < items_.size(); ++i) {
      if (i) out->append(", ");
      items_[i].AppendPretty(out, indent);
    }
    out->append(" ]");
  } else if (type_ == Type::kObject) {
    if (fields_.empty()) {
      out->append("{ }");
      return;
    }
    out->push_back('{');
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (i) out->push_back(',');
      out->push_back('\n');
      out->append(indent + 2, ' ');
      AppendJsonString(fields_[i].first, out);
      out->append(" : ");
      fields_[i].second.AppendPretty(out, indent + 2);
    }
    out->push_back('\n');
    out->append(indent, ' ');
    out->push_back('}');
  } else {
    AppendTo(out);
  }
}

std::string Json::ToPrettyString() const {
  std::string out;
  AppendPretty(&out, 0);
  return out;
}

bool Json::operator==(const Json& o) const {
  if (type_ != o.type_) return false;
  switch (type_) {
    case Type::kNull:
      return true;
    case Type::kBool:
      return b_ == o.b_;
    case Type::kNumber: {
      if (s_ == o.s_) return true;
      // Integers compare exactly (two offsets beyond 2^53 differ even when their doubles
      // do not); anything else compares as doubles (1.0 == 1, 1e3 == 1000).
      auto a = ExactInt(s_);
      auto b = ExactInt(o.s_);
      if (a && b) return *a == *b;
      return double_value() == o.double_value();
    }
    case Type::kString:
      return s_ == o.s_;
    case Type::kArray:
      return items_ == o.items_;
    case Type::kObject:
      return fields_ == o.fields_;
  }
  return false;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}

  Status Fail(const std::string& what) const {
    return Status(StatusCode::kDataCorruption,
                  "malformed JSON at byte " + std::to_string(pos_) + ": " + what);
  }
  void Ws() {
    while (pos_ < t_.size() &&
           (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r'))
      ++pos_;
  }
  bool Eat(std::string_view lit) {
    if (t_.substr(pos_, lit.size()) == lit) {
      pos_ += lit.size();
      return true;
    }
    return false;
  }

  Result<uint32_t> Hex4() {
    if (pos_ + 4 > t_.size()) return Fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = t_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        return Fail("bad \\u escape");
    }
    return v;
  }

  Result<std::string> Str() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= t_.size()) return Fail("unterminated string");
      char c = t_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20)
        return Fail("control character in string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= t_.size()) return Fail("unterminated escape");
      char e = t_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          SPATE_ASSIGN_OR_RETURN(uint32_t cp, Hex4());
          if (cp >= 0xD800 && cp < 0xDC00 && t_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            SPATE_ASSIGN_OR_RETURN(uint32_t lo, Hex4());
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              AppendUtf8(0xFFFD, &out);
              cp = lo;
            }
          }
          if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
          AppendUtf8(cp, &out);
          break;
        }
        default:
          return Fail("bad escape");
      }
    }
  }

  Result<Json> Value(int depth) {
    if (depth > 512) return Fail("nesting too deep");
    Ws();
    if (pos_ >= t_.size()) return Fail("unexpected end");
    char c = t_[pos_];
    if (c == '{') {
      ++pos_;
      Json obj = Json::Object();
      Ws();
      if (pos_ < t_.size() && t_[pos_] == '}') {
        ++pos_;
        return obj;
      }
      while (true) {
        Ws();
        if (pos_ >= t_.size() || t_[pos_] != '"') return Fail("expected a key");
        SPATE_ASSIGN_OR_RETURN(std::string key, Str());
        Ws();
        if (pos_ >= t_.size() || t_[pos_] != ':') return Fail("expected ':'");
        ++pos_;
        SPATE_ASSIGN_OR_RETURN(Json v, Value(depth + 1));
        obj.Set(key, std::move(v));
        Ws();
        if (pos_ < t_.size() && t_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < t_.size() && t_[pos_] == '}') {
          ++pos_;
          return obj;
        }
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++pos_;
      Json arr = Json::Array();
      Ws();
      if (pos_ < t_.size() && t_[pos_] == ']') {
        ++pos_;
        return arr;
      }
      while (true) {
        SPATE_ASSIGN_OR_RETURN(Json v, Value(depth + 1));
        arr.Append(std::move(v));
        Ws();
        if (pos_ < t_.size() && t_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < t_.size() && t_[pos_] == ']') {
          ++pos_;
          return arr;
        }
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      SPATE_ASSIGN_OR_RETURN(std::string s, Str());
      return Json::String(std::move(s));
    }
    if (Eat("null")) return Json::Null();
    if (Eat("true")) return Json::Bool(true);
    if (Eat("false")) return Json::Bool(false);
    if (Eat("-Infinity")) return Json::String("-Infinity");
    if (c == '-' || (c >= '0' && c <= '9')) {
      size_t start = pos_;
      if (t_[pos_] == '-') ++pos_;
      size_t digits = pos_;
      while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') ++pos_;
      if (pos_ == digits) return Fail("bad number");
      if (pos_ < t_.size() && t_[pos_] == '.') {
        ++pos_;
        size_t f = pos_;
        while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') ++pos_;
        if (pos_ == f) return Fail("bad number");
      }
      if (pos_ < t_.size() && (t_[pos_] == 'e' || t_[pos_] == 'E')) {
        ++pos_;
        if (pos_ < t_.size() && (t_[pos_] == '+' || t_[pos_] == '-')) ++pos_;
        size_t e = pos_;
        while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') ++pos_;
        if (pos_ == e) return Fail("bad number");
      }
      return Json::NumberText(std::string(t_.substr(start, pos_ - start)));
    }
    // Jackson's non-standard NaN / Infinity tokens (ALLOW_NON_NUMERIC_NUMBERS).
    if (Eat("NaN")) return Json::String("NaN");
    if (Eat("Infinity")) return Json::String("Infinity");
    return Fail("unexpected character");
  }

  Result<Json> Document() {
    SPATE_ASSIGN_OR_RETURN(Json v, Value(0));
    Ws();
    if (pos_ != t_.size()) return Fail("trailing characters");
    return v;
  }

 private:
  std::string_view t_;
  size_t pos_ = 0;
};

}  // namespace

Result<Json> Json::Parse(std::string_view text) { return Parser(text).Document(); }

}  // namespace spate
