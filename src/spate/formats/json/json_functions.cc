// Copyright spate authors.
#include "spate/formats/json/json_functions.h"

#include <simdjson.h>

#include "spate/columnar/builder.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/string_kernels.h"
#include "spate/formats/json/column_parser.h"
#include "spate/formats/json/infer_schema.h"
#include "spate/formats/json/json_text.h"
#include "spate/formats/json/writer.h"

namespace spate::formats::json {

namespace od = simdjson::ondemand;

namespace {

SchemaStringParser g_parse_schema = nullptr;

Status StringArg(const std::string& name, const std::vector<BoundExprPtr>& args,
                 size_t i) {
  TypeId id = args[i]->type()->id();
  if (id == TypeId::kString || id == TypeId::kNull) return Status::OK();
  return fn::UnexpectedType(name, args, i, "\"STRING\"");
}

DataTypePtr AsNullable(const DataTypePtr& t) {
  switch (t->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const auto& f : t->fields())
        fields.push_back(Field{f.name, AsNullable(f.type), true, f.comment});
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kArray:
      return DataType::Array(AsNullable(t->element_type()), true);
    case TypeId::kMap:
      return DataType::Map(t->key_type(), AsNullable(t->value_type()), true);
    default:
      return t;
  }
}

bool HasNonStringMapKey(const DataType& t) {
  switch (t.id()) {
    case TypeId::kStruct:
      for (const auto& f : t.fields()) {
        if (HasNonStringMapKey(*f.type)) return true;
      }
      return false;
    case TypeId::kArray:
      return HasNonStringMapKey(*t.element_type());
    case TypeId::kMap:
      return t.key_type()->id() != TypeId::kString || HasNonStringMapKey(*t.value_type());
    default:
      return false;
  }
}

// ---- from_json ------------------------------------------------------------------------

Result<BoundExprPtr> ResolveFromJson(std::vector<BoundExprPtr> args,
                                     const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("from_json", args.size(), 2, 3, "[2, 3]"));
  SPATE_RETURN_IF_ERROR(StringArg("from_json", args, 0));
  const BoundExprPtr& schema_arg = args[1];
  SPATE_ASSIGN_OR_RETURN(std::string schema_text, fn::SchemaLiteralArg(schema_arg));
  if (!g_parse_schema) return Status::Internal("from_json: no schema parser installed");
  SPATE_ASSIGN_OR_RETURN(DataTypePtr schema, g_parse_schema(schema_text));
  std::vector<std::pair<std::string, std::string>> pairs;
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(pairs, fn::OptionsArg(args[2]));
  }
  std::string sql_expr = "\"" + fn::CallSql("from_json", {args[0]}) + "\"";
  if (schema->id() != TypeId::kStruct && schema->id() != TypeId::kArray &&
      schema->id() != TypeId::kMap) {
    return Status::Error("DATATYPE_MISMATCH.INVALID_JSON_SCHEMA",
                         {{"sqlExpr", sql_expr}, {"schema", QuoteType(*schema)}});
  }
  if (HasNonStringMapKey(*schema)) {
    return Status::Error("DATATYPE_MISMATCH.INVALID_JSON_MAP_KEY_TYPE",
                         {{"sqlExpr", sql_expr}, {"schema", QuoteType(*schema)}});
  }
  SPATE_ASSIGN_OR_RETURN(JsonOptions probe, JsonOptions::FromPairs(pairs));
  if (probe.mode == ParseMode::kDropMalformed) {
    return Status::Error("PARSE_MODE_UNSUPPORTED",
                         {{"funcName", "`from_json`"}, {"mode", "DROPMALFORMED"}});
  }
  // Validate patterns and the corrupt-record column now.
  SPATE_RETURN_IF_ERROR(JsonColumnParser::Make(AsNullable(schema), probe).status());
  DataTypePtr out_type = AsNullable(schema);
  ScalarKernel kernel = [out_type, pairs](const std::vector<ColumnPtr>& in, int64_t n,
                                          const EvalContext& ctx) -> Result<ColumnPtr> {
    SPATE_ASSIGN_OR_RETURN(JsonOptions o,
                           JsonOptions::FromPairs(pairs, ctx.time_zone_id));
    SPATE_ASSIGN_OR_RETURN(auto parser, JsonColumnParser::Make(out_type, std::move(o)));
    if (in[0]->type_id() == TypeId::kNull) return Column::MakeNull(out_type, n);
    return parser->ParseStrings(*in[0]);
  };
  return MakeScalarCall("from_json", out_type, true, {args[0]}, std::move(kernel));
}

// ---- to_json --------------------------------------------------------------------------

Result<BoundExprPtr> ResolveToJson(std::vector<BoundExprPtr> args,
                                   const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("to_json", args.size(), 1, 2, "[1, 2]"));
  const DataTypePtr& t = args[0]->type();
  if (!t->IsNested()) {
    return Status::Error("DATATYPE_MISMATCH.CANNOT_CONVERT_TO_JSON",
                         {{"sqlExpr", "\"" + fn::CallSql("to_json", {args[0]}) + "\""},
                          {"name", "\"" + args[0]->ToString() + "\""},
                          {"type", QuoteType(*t)}});
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  if (args.size() == 2) {
    SPATE_ASSIGN_OR_RETURN(pairs, fn::OptionsArg(args[1]));
  }
  SPATE_ASSIGN_OR_RETURN(JsonOptions probe, JsonOptions::FromPairs(pairs));
  SPATE_RETURN_IF_ERROR(JsonWriter::Make(probe).status());
  ScalarKernel kernel = [pairs](const std::vector<ColumnPtr>& in, int64_t n,
                                const EvalContext& ctx) -> Result<ColumnPtr> {
    SPATE_ASSIGN_OR_RETURN(JsonOptions o,
                           JsonOptions::FromPairs(pairs, ctx.time_zone_id));
    SPATE_ASSIGN_OR_RETURN(JsonWriter w, JsonWriter::Make(o));
    return w.WriteColumn(*in[0]);
  };
  return MakeScalarCall("to_json", DataType::String(), true,
                        {args[0]},  // Spark: nullable
                        std::move(kernel));
}

// ---- schema_of_json
// ---------------------------------------------------------------------

Result<BoundExprPtr> ResolveSchemaOfJson(std::vector<BoundExprPtr> args,
                                         const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("schema_of_json", args.size(), 1, 2, "[1, 2]"));
  const BoundExprPtr& j = args[0];
  SPATE_ASSIGN_OR_RETURN(
      std::string text,
      fn::ConstantStringArg(fn::CallSql("schema_of_json", {j}), "json", j));
  std::vector<std::pair<std::string, std::string>> pairs;
  if (args.size() == 2) {
    SPATE_ASSIGN_OR_RETURN(pairs, fn::OptionsArg(args[1]));
  }
  SPATE_ASSIGN_OR_RETURN(JsonOptions o, JsonOptions::FromPairs(pairs));
  SPATE_ASSIGN_OR_RETURN(DataTypePtr t, InferType(text, o));
  std::string ddl = t->Sql();
  ScalarKernel kernel = [ddl](const std::vector<ColumnPtr>&, int64_t n,
                              const EvalContext&) -> Result<ColumnPtr> {
    return MakeConstantColumn(Value::String(ddl), n);
  };
  return MakeScalarCall("schema_of_json", DataType::String(), false, {j},
                        std::move(kernel));
}

// ---- path and object helpers ---------------------------------------------------------

// Copies `text` into `buf` with simdjson's padding and starts iterating it.
bool Iterate(od::parser& parser, std::string_view text, std::string* buf,
             od::document* doc) {
  buf->assign(text.data(), text.size());
  buf->append(simdjson::SIMDJSON_PADDING, ' ');
  return !parser.iterate(buf->data(), text.size(), buf->size()).get(*doc);
}

std::string_view TrimWs(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// Appends the text get_json_object / json_tuple return for a value: strings unquoted,
// null -> false (SQL NULL), objects and arrays minified. False also on malformed JSON.
bool ValueText(od::value& v, std::string* out, bool* is_null) {
  *is_null = false;
  od::json_type t;
  if (v.type().get(t)) return false;
  std::string_view raw;
  switch (t) {
    case od::json_type::string:
      if (v.get_string().get(raw)) return false;
      out->append(raw);
      return true;
    case od::json_type::null: {
      bool n;
      if (v.is_null().get(n) || !n) return false;
      *is_null = true;
      return true;
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o) || o.raw_json().get(raw)) return false;
      break;
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a) || a.raw_json().get(raw)) return false;
      break;
    }
    default: {
      raw = TrimWs(v.raw_json_token());
      if (t == od::json_type::number) {
        double d;
        if (v.get_double().get(d)) {
          od::number_type nt;
          if (v.get_number_type().get(nt)) return false;
        }
      } else {
        bool b;
        if (v.get_bool().get(b)) return false;
      }
      out->append(raw);
      return true;
    }
  }
  size_t start = out->size();
  out->resize(start + raw.size() + simdjson::SIMDJSON_PADDING);
  size_t len = 0;
  if (simdjson::minify(raw.data(), raw.size(), out->data() + start, len)) return false;
  out->resize(start + len);
  return true;
}

struct PathStep {
  enum Kind : uint8_t { kKey, kIndex, kWildcard } kind;
  std::string key;
  int64_t index = 0;
};

// Spark's JsonPathParser: $ followed by .name, ['name'], [n] or [*]; false if invalid.
bool ParsePath(std::string_view p, std::vector<PathStep>* steps) {
  if (p.empty() || p[0] != '$') return false;
  size_t i = 1;
  while (i < p.size()) {
    if (p[i] == '.') {
      size_t j = i + 1;
      while (j < p.size() && p[j] != '.' && p[j] != '[') ++j;
      if (j == i + 1) return false;
      std::string_view name = p.substr(i + 1, j - i - 1);
      if (name == "*") {
        steps->push_back({PathStep::kWildcard, "", 0});
      } else {
        steps->push_back({PathStep::kKey, std::string(name), 0});
      }
      i = j;
    } else if (p[i] == '[') {
      size_t close = p.find(']', i);
      if (close == std::string_view::npos) return false;
      std::string_view in = p.substr(i + 1, close - i - 1);
      if (in == "*") {
        steps->push_back({PathStep::kWildcard, "", 0});
      } else if (in.size() >= 2 && in.front() == '\'' && in.back() == '\'') {
        steps->push_back({PathStep::kKey, std::string(in.substr(1, in.size() - 2)), 0});
      } else {
        if (in.empty()) return false;
        int64_t v = 0;
        for (char c : in) {
          if (c < '0' || c > '9') return false;
          v = v * 10 + (c - '0');
          if (v > INT32_MAX) return false;
        }
        steps->push_back({PathStep::kIndex, "", v});
      }
      i = close + 1;
    } else {
      return false;
    }
  }
  return true;
}

// Collects the texts matched by steps[k..] under `v`. Returns false on malformed JSON.
bool Evaluate(od::value& v, const std::vector<PathStep>& steps, size_t k,
              std::vector<std::string>* matches, std::vector<bool>* match_is_string) {
  if (k == steps.size()) {
    std::string text;
    bool is_null;
    od::json_type t;
    if (v.type().get(t)) return false;
    if (!ValueText(v, &text, &is_null)) return false;
    if (!is_null) {
      matches->push_back(std::move(text));
      match_is_string->push_back(t == od::json_type::string);
    }
    return true;
  }
  const PathStep& s = steps[k];
  od::json_type t;
  if (v.type().get(t)) return false;
  if (s.kind == PathStep::kKey) {
    if (t != od::json_type::object) return true;
    od::object o;
    if (v.get_object().get(o)) return false;
    for (auto fr : o) {
      od::field f;
      if (std::move(fr).get(f)) return false;
      std::string_view key;
      if (f.unescaped_key().get(key)) return false;
      if (key == s.key)
        return Evaluate(f.value(), steps, k + 1, matches, match_is_string);
    }
    return true;
  }
  if (t != od::json_type::array) return true;
  od::array a;
  if (v.get_array().get(a)) return false;
  int64_t idx = 0;
  for (auto er : a) {
    od::value e;
    if (er.get(e)) return false;
    if (s.kind == PathStep::kWildcard || idx == s.index) {
      if (!Evaluate(e, steps, k + 1, matches, match_is_string)) return false;
      if (s.kind == PathStep::kIndex) return true;
    }
    ++idx;
  }
  return true;
}

Result<BoundExprPtr> ResolveGetJsonObject(std::vector<BoundExprPtr> args,
                                          const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("get_json_object", args.size(), 2, 2, "2"));
  SPATE_RETURN_IF_ERROR(StringArg("get_json_object", args, 0));
  SPATE_RETURN_IF_ERROR(StringArg("get_json_object", args, 1));
  ScalarKernel kernel = [](const std::vector<ColumnPtr>& in, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
    const Column& json = *in[0];
    const Column& path = *in[1];
    StringBuilder sb(DataType::String(), n, n * 8);
    od::parser parser;
    std::string buf;
    std::vector<PathStep> steps;
    std::string cached_path;
    bool path_ok = false;
    std::vector<std::string> matches;
    std::vector<bool> is_string;
    for (int64_t i = 0; i < n; ++i) {
      if (json.IsNull(i) || path.IsNull(i) || json.type_id() == TypeId::kNull ||
          path.type_id() == TypeId::kNull) {
        sb.AppendNull();
        continue;
      }
      std::string_view p = path.GetView(i);
      if (i == 0 || p != cached_path) {
        cached_path.assign(p);
        steps.clear();
        path_ok = ParsePath(p, &steps);
      }
      od::document doc;
      if (!path_ok || !Iterate(parser, json.GetView(i), &buf, &doc)) {
        sb.AppendNull();
        continue;
      }
      matches.clear();
      is_string.clear();
      bool ok;
      od::value root;
      if (doc.get_value().get(root)) {
        // A scalar document: only "$" selects it.
        ok = steps.empty();
        if (ok) {
          od::json_type t;
          std::string text;
          if (doc.type().get(t)) {
            ok = false;
          } else if (t == od::json_type::string) {
            std::string_view s;
            ok = !doc.get_string().get(s);
            if (ok) matches.emplace_back(s);
          } else if (t != od::json_type::null) {
            std::string_view raw;
            ok = !doc.raw_json_token().get(raw);
            if (ok) matches.emplace_back(TrimWs(raw));
          }
          is_string.push_back(t == od::json_type::string);
        }
      } else {
        ok = Evaluate(root, steps, 0, &matches, &is_string);
      }
      if (!ok || matches.empty()) {
        sb.AppendNull();
      } else if (matches.size() == 1) {
        sb.Append(matches[0]);
      } else {
        std::string out = "[";
        for (size_t k = 0; k < matches.size(); ++k) {
          if (k) out += ",";
          if (is_string[k]) {
            AppendJsonString(matches[k], &out);
          } else {
            out += matches[k];
          }
        }
        out += "]";
        sb.Append(out);
      }
    }
    return sb.Finish();
  };
  return MakeScalarCall("get_json_object", DataType::String(), true, std::move(args),
                        std::move(kernel));
}

// ---- json_tuple -----------------------------------------------------------------------

Result<BoundExprPtr> ResolveJsonTuple(std::vector<BoundExprPtr> args,
                                      const ResolveContext& rc) {
  if (args.size() < 2) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`json_tuple`"},
                          {"expectedNum", "> 1"},
                          {"actualNum", std::to_string(args.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->type()->id() != TypeId::kString &&
        args[i]->type()->id() != TypeId::kNull) {
      return Status::Error("DATATYPE_MISMATCH.NON_STRING_TYPE",
                           {{"sqlExpr", "\"" + fn::CallSql("json_tuple", args) + "\""},
                            {"funcName", "`json_tuple`"}});
    }
  }
  size_t nf = args.size() - 1;
  std::vector<Field> fields;
  for (size_t k = 0; k < nf; ++k)
    fields.push_back(Field{"c" + std::to_string(k), DataType::String(), true});
  DataTypePtr type = DataType::Struct(fields);
  ScalarKernel kernel = [type, nf](const std::vector<ColumnPtr>& in, int64_t n,
                                   const EvalContext&) -> Result<ColumnPtr> {
    std::vector<StringBuilder> outs;
    for (size_t k = 0; k < nf; ++k) outs.emplace_back(DataType::String(), n, n * 4);
    od::parser parser;
    std::string buf, text;
    std::vector<std::string_view> names(nf);
    std::vector<bool> done(nf);
    const Column& json = *in[0];
    std::vector<std::string> vals(nf);
    std::vector<uint8_t> has(nf);
    for (int64_t i = 0; i < n; ++i) {
      std::fill(done.begin(), done.end(), false);
      std::fill(has.begin(), has.end(), 0);
      od::document doc;
      od::object obj;
      bool ok = json.type_id() != TypeId::kNull && !json.IsNull(i) &&
                Iterate(parser, json.GetView(i), &buf, &doc) &&
                !doc.get_object().get(obj);
      if (ok) {
        for (size_t k = 0; k < nf; ++k) {
          const Column& c = *in[k + 1];
          bool null_name = c.type_id() == TypeId::kNull || c.IsNull(i);
          names[k] = null_name ? std::string_view() : c.GetView(i);
          done[k] = null_name;  // a NULL field name gives NULL
        }
        for (auto fr : obj) {
          od::field f;
          std::string_view key;
          if (std::move(fr).get(f) || f.unescaped_key().get(key)) {
            ok = false;
            break;
          }
          bool wanted = false;
          for (size_t k = 0; k < nf; ++k) wanted |= !done[k] && names[k] == key;
          if (!wanted) continue;
          text.clear();
          bool is_null;
          if (!ValueText(f.value(), &text, &is_null)) {
            ok = false;
            break;
          }
          // The first occurrence of a key wins.
          for (size_t k = 0; k < nf; ++k) {
            if (!done[k] && names[k] == key) {
              done[k] = true;
              has[k] = !is_null;
              vals[k] = text;
            }
          }
        }
      }
      for (size_t k = 0; k < nf; ++k) {
        if (ok && has[k])
          outs[k].Append(vals[k]);
        else
          outs[k].AppendNull();
      }
    }
    std::vector<ColumnPtr> kids;
    for (auto& b : outs) kids.push_back(b.Finish());
    return std::make_shared<const Column>(type, n, 0, nullptr, nullptr, nullptr,
                                          std::move(kids));
  };
  return MakeScalarCall("json_tuple", type, false, std::move(args), std::move(kernel));
}

// ---- json_array_length / json_object_keys
// ------------------------------------------------

Result<BoundExprPtr> ResolveJsonArrayLength(std::vector<BoundExprPtr> args,
                                            const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("json_array_length", args.size(), 1, 1, "1"));
  SPATE_RETURN_IF_ERROR(StringArg("json_array_length", args, 0));
  ScalarKernel kernel = [](const std::vector<ColumnPtr>& in, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
    const Column& json = *in[0];
    FixedWidthBuilder<int32_t> b(DataType::Int(), n);
    od::parser parser;
    std::string buf;
    for (int64_t i = 0; i < n; ++i) {
      od::document doc;
      od::array a;
      if (json.type_id() == TypeId::kNull || json.IsNull(i) ||
          !Iterate(parser, json.GetView(i), &buf, &doc) || doc.get_array().get(a)) {
        b.AppendNull();
        continue;
      }
      int32_t count = 0;
      bool ok = true;
      for (auto er : a) {
        od::value e;
        if (er.get(e)) {
          ok = false;
          break;
        }
        ++count;
      }
      if (ok)
        b.Append(count);
      else
        b.AppendNull();
    }
    return b.Finish();
  };
  return MakeScalarCall("json_array_length", DataType::Int(), true, std::move(args),
                        std::move(kernel));
}

Result<BoundExprPtr> ResolveJsonObjectKeys(std::vector<BoundExprPtr> args,
                                           const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("json_object_keys", args.size(), 1, 1, "1"));
  SPATE_RETURN_IF_ERROR(StringArg("json_object_keys", args, 0));
  ScalarKernel kernel = [](const std::vector<ColumnPtr>& in, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
    const Column& json = *in[0];
    fn::StringArrayBuilder b(n);
    od::parser parser;
    std::string buf;
    std::vector<std::string> keys;
    for (int64_t i = 0; i < n; ++i) {
      od::document doc;
      od::object o;
      if (json.type_id() == TypeId::kNull || json.IsNull(i) ||
          !Iterate(parser, json.GetView(i), &buf, &doc) || doc.get_object().get(o)) {
        b.AppendNull();
        continue;
      }
      keys.clear();
      bool ok = true;
      for (auto fr : o) {
        od::field f;
        std::string_view key;
        if (std::move(fr).get(f) || f.unescaped_key().get(key)) {
          ok = false;
          break;
        }
        keys.emplace_back(key);
      }
      if (!ok) {
        b.AppendNull();
        continue;
      }
      b.BeginRow();
      for (const auto& k : keys) b.AddItem(k);
      b.EndRow();
    }
    return b.Finish();
  };
  return MakeScalarCall("json_object_keys", DataType::Array(DataType::String()), true,
                        std::move(args), std::move(kernel));
}

}  // namespace

void RegisterJsonFunctions(FunctionRegistry& r, SchemaStringParser parse_schema) {
  g_parse_schema = parse_schema;
  r.RegisterScalar("from_json", ResolveFromJson);
  r.RegisterScalar("to_json", ResolveToJson);
  r.RegisterScalar("schema_of_json", ResolveSchemaOfJson);
  r.RegisterScalar("get_json_object", ResolveGetJsonObject);
  r.RegisterScalar("json_tuple", ResolveJsonTuple);
  r.RegisterScalar("json_array_length", ResolveJsonArrayLength);
  r.RegisterScalar("json_object_keys", ResolveJsonObjectKeys);
}

}  // namespace spate::formats::json
