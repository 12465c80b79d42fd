// Copyright spate authors.
#pragma once

// The JSON schema inference spate had before issue 17 (commit 55dc33c), frozen here as
// the baseline of bench/infer_bench.cc: every record parsed by a new simdjson parser into
// a DataType tree, merged record by record with MergeTypes, on one thread, after reading
// every file into memory. Not used by the library (formats/json/infer_schema.h replaced
// it).

#include <simdjson.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "spate/formats/json/infer_schema.h"
#include "spate/formats/json/json_text.h"

namespace spate::bench::legacy {

using namespace spate::formats::json;  // NOLINT
namespace od = simdjson::ondemand;

inline constexpr int kMaxDepth =
    1000;  // Jackson's default StreamReadConstraints nesting limit

inline bool ParseDecimalDigits(std::string_view raw, int* precision, int* scale) {
  // Precision and scale of a BigDecimal read from a JSON number text.
  size_t i = 0;
  if (i < raw.size() && raw[i] == '-') ++i;
  int digits = 0, frac = 0;
  bool dot = false, leading = true;
  int64_t exp = 0;
  for (; i < raw.size(); ++i) {
    char c = raw[i];
    if (c >= '0' && c <= '9') {
      if (dot) ++frac;
      if (leading && c == '0') continue;
      leading = false;
      ++digits;
    } else if (c == '.') {
      dot = true;
    } else if (c == 'e' || c == 'E') {
      exp = std::strtoll(std::string(raw.substr(i + 1)).c_str(), nullptr, 10);
      break;
    } else {
      return false;
    }
  }
  int64_t s = frac - exp;
  int64_t p = std::max<int64_t>(digits, 1);
  if (s < 0) {
    p -= s;
    s = 0;
  }
  *precision = static_cast<int>(std::max<int64_t>(p, s));
  *scale = static_cast<int>(s);
  return true;
}

inline Result<DataTypePtr> InferValue(od::value v, const JsonOptions& o, int depth);

inline Status Malformed() { return Status::Invalid("malformed JSON"); }

inline Result<DataTypePtr> InferObject(od::object obj, const JsonOptions& o, int depth) {
  std::map<std::string, DataTypePtr> fields;
  for (auto fr : obj) {
    od::field f;
    if (std::move(fr).get(f)) return Malformed();
    std::string_view key;
    if (f.unescaped_key().get(key)) return Malformed();
    std::string k(key);
    SPATE_ASSIGN_OR_RETURN(auto t, InferValue(f.value(), o, depth + 1));
    auto it = fields.find(k);
    if (it == fields.end()) {
      fields.emplace(std::move(k), t);
    } else {
      it->second = MergeTypes(it->second, t);
    }
  }
  std::vector<Field> out;
  for (auto& [k, t] : fields) out.push_back(Field{k, t, true});
  return DataType::Struct(std::move(out));
}

inline Result<DataTypePtr> InferArray(od::array arr, const JsonOptions& o, int depth) {
  DataTypePtr elem = DataType::Null();
  for (auto er : arr) {
    od::value e;
    if (std::move(er).get(e)) return Malformed();
    SPATE_ASSIGN_OR_RETURN(auto t, InferValue(e, o, depth + 1));
    elem = MergeTypes(elem, t);
  }
  return DataType::Array(elem);
}

inline Result<DataTypePtr> InferNumber(std::string_view raw, bool is_integer,
                                       const JsonOptions& o) {
  if (o.primitives_as_string) return DataType::String();
  if (is_integer) {
    int p, s;
    if (!ParseDecimalDigits(raw, &p, &s)) return Malformed();
    if (p <= 18 || (p == 19 && raw.size() > 0)) {
      // Fits a long? (19-digit values may not.)
      errno = 0;
      std::string text(raw);
      char* end;
      (void)std::strtoll(text.c_str(), &end, 10);
      if (errno == 0) return DataType::Long();
    }
    if (p <= 38) return DataType::Decimal(p, 0);
    return DataType::Double();
  }
  if (o.prefers_decimal) {
    int p, s;
    if (ParseDecimalDigits(raw, &p, &s) && p <= 38) return DataType::Decimal(p, s);
  }
  return DataType::Double();
}

inline Result<DataTypePtr> InferValue(od::value v, const JsonOptions& o, int depth) {
  if (depth > kMaxDepth) return Malformed();
  od::json_type t;
  if (v.type().get(t)) return Malformed();
  switch (t) {
    case od::json_type::object: {
      od::object obj;
      if (v.get_object().get(obj)) return Malformed();
      return InferObject(obj, o, depth);
    }
    case od::json_type::array: {
      od::array arr;
      if (v.get_array().get(arr)) return Malformed();
      return InferArray(arr, o, depth);
    }
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s)) return Malformed();
      return DataType::String();
    }
    case od::json_type::boolean: {
      bool b;
      if (v.get_bool().get(b)) return Malformed();
      return o.primitives_as_string ? DataType::String() : DataType::Boolean();
    }
    case od::json_type::null: {
      bool n;
      if (v.is_null().get(n) || !n) return Malformed();
      return DataType::Null();
    }
    case od::json_type::number: {
      std::string_view raw = v.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' ||
                              raw.back() == '\r' || raw.back() == '\t'))
        raw.remove_suffix(1);
      double d;
      bool is_int = raw.find_first_of(".eE") == std::string_view::npos;
      if (v.get_double().get(d) && !is_int) return Malformed();
      return InferNumber(raw, is_int, o);
    }
  }
  return Malformed();
}

// Infers the root value of `text`; `*is_blank` for whitespace-only text.
inline Result<DataTypePtr> InferRoot(std::string_view text, const JsonOptions& o,
                                     bool* is_blank) {
  *is_blank = text.find_first_not_of(" \t\r\n") == std::string_view::npos;
  if (*is_blank) return DataType::Null();
  auto attempt = [&](std::string_view t) -> Result<DataTypePtr> {
    od::parser parser;
    simdjson::padded_string padded(t);
    od::document doc;
    if (parser.iterate(padded).get(doc)) return Malformed();
    od::json_type jt;
    if (doc.type().get(jt)) return Malformed();
    if (jt == od::json_type::object || jt == od::json_type::array) {
      od::value v;
      if (doc.get_value().get(v)) return Malformed();
      return InferValue(v, o, 0);
    }
    // Scalar documents.
    switch (jt) {
      case od::json_type::string: {
        std::string_view s;
        if (doc.get_string().get(s)) return Malformed();
        return DataType::String();
      }
      case od::json_type::boolean: {
        bool b;
        if (doc.get_bool().get(b)) return Malformed();
        return o.primitives_as_string ? DataType::String() : DataType::Boolean();
      }
      case od::json_type::null: {
        bool n;
        if (doc.is_null().get(n) || !n) return Malformed();
        return DataType::Null();
      }
      default: {
        std::string_view raw;
        if (doc.raw_json_token().get(raw)) return Malformed();
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' ||
                                raw.back() == '\r' || raw.back() == '\t'))
          raw.remove_suffix(1);
        bool is_int = raw.find_first_of(".eE") == std::string_view::npos;
        double d;
        if (doc.get_double().get(d) && !is_int) return Malformed();
        return InferNumber(raw, is_int, o);
      }
    }
  };
  auto r = attempt(text);
  if (r.ok()) return r;
  std::string lenient;
  if (RewriteLenient(text, o, &lenient)) return attempt(lenient);
  return r;
}

inline Result<DataTypePtr> InferSchemaSequential(
    const std::vector<std::string_view>& texts, const JsonOptions& options) {
  DataTypePtr merged = DataType::Struct({});
  bool corrupt = false;
  for (std::string_view text : texts) {
    bool blank;
    auto r = InferRoot(text, options, &blank);
    if (blank) continue;
    DataTypePtr t;
    if (r.ok() && (*r)->id() == TypeId::kStruct) {
      t = *r;
    } else if (r.ok() && (*r)->id() == TypeId::kArray &&
               ((*r)->element_type()->id() == TypeId::kStruct ||
                (*r)->element_type()->id() == TypeId::kNull)) {
      t = (*r)->element_type()->id() == TypeId::kNull ? DataType::Struct({})
                                                      : (*r)->element_type();
    } else {
      switch (options.mode) {
        case ParseMode::kDropMalformed:
          continue;
        case ParseMode::kFailFast:
          return Status::Error(
              "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
              {{"badRecord", std::string(text)}, {"failFastMode", "FAILFAST"}});
        case ParseMode::kPermissive:
          corrupt = true;
          continue;
      }
    }
    merged = MergeTypes(merged, t);
  }
  return merged;
}

}  // namespace spate::bench::legacy
