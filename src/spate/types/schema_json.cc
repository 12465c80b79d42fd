// Copyright spate authors.
#include "spate/types/schema_json.h"

#include <cstdlib>

namespace spate {

namespace {

Json FieldJson(const Field& f) {
  Json o = Json::Object();
  o.Set("name", Json::String(f.name));
  o.Set("type", DataTypeToSparkJson(*f.type));
  o.Set("nullable", Json::Bool(f.nullable));
  o.Set("metadata", FieldMetadataJson(f));
  return o;
}

// Spark's DataType.fromJson error.
Status Bad(const std::string& what) {
  return Status::Error("INVALID_JSON_DATA_TYPE", {{"invalidType", what}});
}

Result<DataTypePtr> Primitive(const std::string& n) {
  if (n == "boolean") return DataType::Boolean();
  if (n == "byte") return DataType::Byte();
  if (n == "short") return DataType::Short();
  if (n == "integer") return DataType::Int();
  if (n == "long") return DataType::Long();
  if (n == "float") return DataType::Float();
  if (n == "double") return DataType::Double();
  if (n == "string") return DataType::String();
  if (n == "binary") return DataType::Binary();
  if (n == "date") return DataType::Date();
  if (n == "timestamp") return DataType::Timestamp();
  if (n == "timestamp_ntz") return DataType::TimestampNtz();
  if (n == "void" || n == "null") return DataType::Null();
  if (n == "decimal") return DataType::Decimal(10, 0);
  if (n.rfind("decimal(", 0) == 0 && n.back() == ')') {
    std::string body = n.substr(8, n.size() - 9);
    size_t comma = body.find(',');
    if (comma != std::string::npos) {
      char* end = nullptr;
      long p = std::strtol(body.c_str(), &end, 10);
      long s = std::strtol(body.c_str() + comma + 1, &end, 10);
      while (*end == ' ') ++end;
      if (*end == '\0' && p >= 1 && p <= 38 && s >= 0 && s <= p)
        return DataType::Decimal(static_cast<int>(p), static_cast<int>(s));
    }
  }
  if ((n.rfind("char(", 0) == 0 || n.rfind("varchar(", 0) == 0) && n.back() == ')')
    return DataType::String();
  if (n == "interval day to second") return DataType::DayTimeInterval();
  if (n == "interval year to month") return DataType::YearMonthInterval();
  if (n.rfind("interval ", 0) == 0) {
    auto field = [](const std::string& w) -> int {
      static const char* kNames[] = {"year", "month", "day", "hour", "minute", "second"};
      for (int i = 0; i < 6; ++i)
        if (w == kNames[i]) return i;
      return -1;
    };
    std::string rest = n.substr(9);
    std::string a = rest, b = rest;
    size_t to = rest.find(" to ");
    if (to != std::string::npos) {
      a = rest.substr(0, to);
      b = rest.substr(to + 4);
    }
    int fa = field(a), fb = field(b);
    if (fa >= 0 && fb >= fa) {
      if (fb <= 1)
        return DataType::YearMonthInterval(static_cast<IntervalField>(fa),
                                           static_cast<IntervalField>(fb));
      if (fa >= 2)
        return DataType::DayTimeInterval(static_cast<IntervalField>(fa),
                                         static_cast<IntervalField>(fb));
    }
  }
  return Bad(n);
}

}  // namespace

Json FieldMetadataJson(const Field& f) {
  Json m = Json::Object();
  if (!f.comment.empty()) m.Set("comment", Json::String(f.comment));
  return m;
}

Json DataTypeToSparkJson(const DataType& t) {
  switch (t.id()) {
    case TypeId::kStruct: {
      Json o = Json::Object();
      o.Set("type", Json::String("struct"));
      Json fields = Json::Array();
      for (const auto& f : t.fields()) fields.Append(FieldJson(f));
      o.Set("fields", std::move(fields));
      return o;
    }
    case TypeId::kArray: {
      Json o = Json::Object();
      o.Set("type", Json::String("array"));
      o.Set("elementType", DataTypeToSparkJson(*t.element_type()));
      o.Set("containsNull", Json::Bool(t.contains_null()));
      return o;
    }
    case TypeId::kMap: {
      Json o = Json::Object();
      o.Set("type", Json::String("map"));
      o.Set("keyType", DataTypeToSparkJson(*t.key_type()));
      o.Set("valueType", DataTypeToSparkJson(*t.value_type()));
      o.Set("valueContainsNull", Json::Bool(t.value_contains_null()));
      return o;
    }
    default:
      return Json::String(t.TypeName());  // Spark's DataType.typeName
  }
}

std::string SchemaToSparkJson(const Schema& schema) {
  return DataTypeToSparkJson(*schema.AsStruct()).ToString();
}

Result<DataTypePtr> DataTypeFromSparkJson(const Json& j) {
  if (j.is_string()) return Primitive(j.string_value());
  if (!j.is_object()) return Bad(j.ToString());
  auto type = j.GetString("type");
  if (!type) return Bad(j.ToString());
  if (*type == "struct") {
    const Json* fields = j.Find("fields");
    if (!fields || !fields->is_array()) return Bad(j.ToString());
    std::vector<Field> out;
    for (const auto& fj : fields->items()) {
      if (!fj.is_object()) return Bad(fj.ToString());
      auto name = fj.GetString("name");
      const Json* ft = fj.Find("type");
      if (!name || !ft) return Bad(fj.ToString());
      Field f;
      f.name = *name;
      SPATE_ASSIGN_OR_RETURN(f.type, DataTypeFromSparkJson(*ft));
      f.nullable = fj.GetBool("nullable").value_or(true);
      if (const Json* md = fj.Find("metadata"); md && md->is_object()) {
        if (auto c = md->GetString("comment")) f.comment = *c;
      }
      out.push_back(std::move(f));
    }
    return DataType::Struct(std::move(out));
  }
  if (*type == "array") {
    const Json* e = j.Find("elementType");
    if (!e) return Bad(j.ToString());
    SPATE_ASSIGN_OR_RETURN(auto et, DataTypeFromSparkJson(*e));
    return DataType::Array(et, j.GetBool("containsNull").value_or(true));
  }
  if (*type == "map") {
    const Json* k = j.Find("keyType");
    const Json* v = j.Find("valueType");
    if (!k || !v) return Bad(j.ToString());
    SPATE_ASSIGN_OR_RETURN(auto kt, DataTypeFromSparkJson(*k));
    SPATE_ASSIGN_OR_RETURN(auto vt, DataTypeFromSparkJson(*v));
    return DataType::Map(kt, vt, j.GetBool("valueContainsNull").value_or(true));
  }
  if (*type == "udt") {
    if (const Json* s = j.Find("sqlType")) return DataTypeFromSparkJson(*s);
  }
  return Bad(j.ToString());
}

Result<SchemaPtr> SchemaFromSparkJson(std::string_view text) {
  auto parsed = Json::Parse(text);
  if (!parsed.ok()) return Bad(std::string(text.substr(0, 200)));
  SPATE_ASSIGN_OR_RETURN(auto t, DataTypeFromSparkJson(*parsed));
  if (t->id() != TypeId::kStruct) return Bad(std::string(text.substr(0, 200)));
  return std::make_shared<const Schema>(t->fields());
}

}  // namespace spate
