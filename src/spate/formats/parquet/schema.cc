// Copyright spate authors.
#include "spate/formats/parquet/schema.h"

namespace spate::formats::parquet {

int DecimalBytes(int precision) {
  // Smallest n with 2^(8n-1) > 10^precision.
  int n = 1;
  while (true) {
    long double max = 1;
    for (int i = 0; i < 8 * n - 1; ++i) max *= 2;
    long double ten = 1;
    for (int i = 0; i < precision; ++i) ten *= 10;
    if (max >= ten) return n;
    ++n;
  }
}

namespace {

// ---------------------------------------------------------------------------------------
// Writing

struct WriteBuilder {
  ParquetSchema* out;

  Status Unsupported(const std::string& name, const DataType& t) {
    return Status::Error("UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
                         {{"format", "Parquet"},
                          {"columnName", "`" + name + "`"},
                          {"columnType", "\"" + t.Sql() + "\""}});
  }

  // Appends the element(s) for a field of type `t` and returns its level node.
  Status Add(const std::string& name, const DataTypePtr& t, bool nullable,
             int16_t parent_def, int16_t rep, std::vector<std::string> path,
             LevelNode* node) {
    node->name = name;
    node->type = t;
    node->parent_def = parent_def;
    node->def = static_cast<int16_t>(parent_def + (nullable ? 1 : 0));
    node->rep = rep;
    node->first_leaf = static_cast<int>(out->leaves.size());
    path.push_back(name);
    SchemaElement e;
    e.name = name;
    e.has_repetition = true;
    e.repetition = nullable ? Repetition::kOptional : Repetition::kRequired;
    switch (t->id()) {
      case TypeId::kStruct: {
        node->kind = LevelNode::kStruct;
        if (t->fields().empty()) return Unsupported(name, *t);
        e.has_num_children = true;
        e.num_children = static_cast<int32_t>(t->fields().size());
        out->elements.push_back(e);
        for (const auto& f : t->fields()) {
          node->children.emplace_back();
          SPATE_RETURN_IF_ERROR(Add(f.name, f.type, f.nullable, node->def, rep, path,
                                    &node->children.back()));
        }
        break;
      }
      case TypeId::kArray: {
        node->kind = LevelNode::kList;
        node->elem_def = static_cast<int16_t>(node->def + 1);
        node->elem_rep = static_cast<int16_t>(rep + 1);
        e.has_num_children = true;
        e.num_children = 1;
        e.converted_type = ConvertedType::kList;
        e.logical_type.kind = LogicalType::kList;
        out->elements.push_back(e);
        SchemaElement list;
        list.name = "list";
        list.has_repetition = true;
        list.repetition = Repetition::kRepeated;
        list.has_num_children = true;
        list.num_children = 1;
        out->elements.push_back(list);
        path.push_back("list");
        node->children.emplace_back();
        SPATE_RETURN_IF_ERROR(Add("element", t->element_type(), t->contains_null(),
                                  node->elem_def, node->elem_rep, path,
                                  &node->children.back()));
        break;
      }
      case TypeId::kMap: {
        node->kind = LevelNode::kMap;
        node->elem_def = static_cast<int16_t>(node->def + 1);
        node->elem_rep = static_cast<int16_t>(rep + 1);
        e.has_num_children = true;
        e.num_children = 1;
        e.converted_type = ConvertedType::kMap;
        e.logical_type.kind = LogicalType::kMap;
        out->elements.push_back(e);
        SchemaElement kv;
        kv.name = "key_value";
        kv.has_repetition = true;
        kv.repetition = Repetition::kRepeated;
        kv.has_num_children = true;
        kv.num_children = 2;
        out->elements.push_back(kv);
        path.push_back("key_value");
        node->children.emplace_back();
        SPATE_RETURN_IF_ERROR(Add("key", t->key_type(), false, node->elem_def,
                                  node->elem_rep, path, &node->children.back()));
        node->children.emplace_back();
        SPATE_RETURN_IF_ERROR(Add("value", t->value_type(), t->value_contains_null(),
                                  node->elem_def, node->elem_rep, path,
                                  &node->children.back()));
        break;
      }
      default: {
        node->kind = LevelNode::kPrimitive;
        e.has_type = true;
        switch (t->id()) {
          case TypeId::kBoolean:
            e.type = PhysicalType::kBoolean;
            break;
          case TypeId::kByte:
          case TypeId::kShort:
            e.type = PhysicalType::kInt32;
            e.converted_type =
                t->id() == TypeId::kByte ? ConvertedType::kInt8 : ConvertedType::kInt16;
            e.logical_type.kind = LogicalType::kInteger;
            e.logical_type.bit_width = t->id() == TypeId::kByte ? 8 : 16;
            e.logical_type.is_signed = true;
            break;
          case TypeId::kInt:
            e.type = PhysicalType::kInt32;
            break;
          case TypeId::kLong:
            e.type = PhysicalType::kInt64;
            break;
          case TypeId::kFloat:
            e.type = PhysicalType::kFloat;
            break;
          case TypeId::kDouble:
            e.type = PhysicalType::kDouble;
            break;
          case TypeId::kString:
            e.type = PhysicalType::kByteArray;
            e.converted_type = ConvertedType::kUtf8;
            e.logical_type.kind = LogicalType::kString;
            break;
          case TypeId::kBinary:
            e.type = PhysicalType::kByteArray;
            break;
          case TypeId::kDate:
            e.type = PhysicalType::kInt32;
            e.converted_type = ConvertedType::kDate;
            e.logical_type.kind = LogicalType::kDate;
            break;
          case TypeId::kTimestamp:
          case TypeId::kTimestampNtz:
            e.type = PhysicalType::kInt64;
            e.logical_type.kind = LogicalType::kTimestamp;
            e.logical_type.unit = TimeUnit::kMicros;
            e.logical_type.is_adjusted_to_utc = t->id() == TypeId::kTimestamp;
            if (t->id() == TypeId::kTimestamp)
              e.converted_type = ConvertedType::kTimestampMicros;
            break;
          case TypeId::kDecimal:
            if (t->precision() <= 9) {
              e.type = PhysicalType::kInt32;
            } else if (t->precision() <= 18) {
              e.type = PhysicalType::kInt64;
            } else {
              e.type = PhysicalType::kFixedLenByteArray;
              e.type_length = DecimalBytes(t->precision());
            }
            e.converted_type = ConvertedType::kDecimal;
            e.scale = t->scale();
            e.precision = t->precision();
            e.logical_type.kind = LogicalType::kDecimal;
            e.logical_type.scale = t->scale();
            e.logical_type.precision = t->precision();
            break;
          default:
            return Unsupported(name, *t);
        }
        out->elements.push_back(e);
        LeafInfo leaf;
        leaf.path = path;
        leaf.physical = e.type;
        leaf.type_length = e.type_length;
        leaf.type = t;
        leaf.max_def = node->def;
        leaf.max_rep = rep;
        leaf.element = e;
        node->leaf = static_cast<int>(out->leaves.size());
        out->leaves.push_back(std::move(leaf));
        break;
      }
    }
    node->num_leaves = static_cast<int>(out->leaves.size()) - node->first_leaf;
    return Status::OK();
  }
};

// ---------------------------------------------------------------------------------------
// Reading

struct ReadBuilder {
  const std::vector<SchemaElement>& el;
  ParquetSchema* out;
  size_t idx = 1;
  int depth = 0;

  Status Corrupt(const std::string& what) {
    return Status(StatusCode::kDataCorruption, "invalid Parquet schema: " + what);
  }
  Status Unsupported(const SchemaElement& e, const std::string& what) {
    return Status(StatusCode::kUnimplemented,
                  "unsupported Parquet type for column '" + e.name + "': " + what);
  }

  Status CheckElement(const SchemaElement& e) {
    if (!e.has_repetition)
      return Corrupt("field '" + e.name + "' has no repetition type");
    if (static_cast<int>(e.repetition) < 0 || static_cast<int>(e.repetition) > 2) {
      return Corrupt("field '" + e.name + "' has repetition type " +
                     std::to_string(static_cast<int>(e.repetition)));
    }
    bool group = !e.has_type || e.num_children > 0;
    if (group) {
      if (e.num_children <= 0) return Corrupt("group '" + e.name + "' has no children");
      if (static_cast<size_t>(e.num_children) > el.size() - idx) {
        return Corrupt("group '" + e.name + "' claims more children than the schema has");
      }
    } else {
      if (static_cast<int>(e.type) < 0 || static_cast<int>(e.type) > 7) {
        return Corrupt("field '" + e.name + "' has physical type " +
                       std::to_string(static_cast<int>(e.type)));
      }
      if (e.type == PhysicalType::kFixedLenByteArray &&
          (e.type_length <= 0 || e.type_length > (1 << 20))) {
        return Corrupt("field '" + e.name + "' has FIXED_LEN_BYTE_ARRAY length " +
                       std::to_string(e.type_length));
      }
    }
    return Status::OK();
  }

  static bool IsGroup(const SchemaElement& e) {
    return !e.has_type || e.num_children > 0;
  }
  static bool IsList(const SchemaElement& e) {
    return e.logical_type.kind == LogicalType::kList ||
           e.converted_type == ConvertedType::kList;
  }
  static bool IsMap(const SchemaElement& e) {
    return e.logical_type.kind == LogicalType::kMap ||
           e.converted_type == ConvertedType::kMap ||
           e.converted_type == ConvertedType::kMapKeyValue;
  }

  // Converts the field at el[idx] (consuming it and its subtree).
  Status Field(int16_t parent_def, int16_t rep, std::vector<std::string> path,
               LevelNode* node) {
    if (++depth > 100) return Corrupt("schema nested too deeply");
    if (idx >= el.size()) return Corrupt("schema ends early");
    const SchemaElement& e = el[idx++];
    SPATE_RETURN_IF_ERROR(CheckElement(e));
    Status st;
    if (e.repetition == Repetition::kRepeated) {
      // A bare repeated field: a required list of required elements.
      node->kind = LevelNode::kList;
      node->name = e.name;
      node->parent_def = parent_def;
      node->def = parent_def;
      node->rep = rep;
      node->elem_def = static_cast<int16_t>(parent_def + 1);
      node->elem_rep = static_cast<int16_t>(rep + 1);
      node->first_leaf = static_cast<int>(out->leaves.size());
      node->children.emplace_back();
      st = NonRepeated(e, node->elem_def, node->elem_rep, /*force_required=*/true, path,
                       &node->children.back());
      if (st.ok()) {
        node->type = DataType::Array(node->children[0].type, false);
        node->num_leaves = static_cast<int>(out->leaves.size()) - node->first_leaf;
      }
    } else {
      st = NonRepeated(e, parent_def, rep, false, path, node);
    }
    --depth;
    return st;
  }

  // Converts element `e` (already consumed) as a non-repeated node.
  Status NonRepeated(const SchemaElement& e, int16_t parent_def, int16_t rep,
                     bool force_required, std::vector<std::string> path,
                     LevelNode* node) {
    bool optional = !force_required && e.repetition == Repetition::kOptional;
    node->name = e.name;
    node->parent_def = parent_def;
    node->def = static_cast<int16_t>(parent_def + (optional ? 1 : 0));
    node->rep = rep;
    node->first_leaf = static_cast<int>(out->leaves.size());
    path.push_back(e.name);
    if (IsGroup(e)) {
      if (IsList(e)) {
        SPATE_RETURN_IF_ERROR(List(e, path, node));
      } else if (IsMap(e)) {
        SPATE_RETURN_IF_ERROR(Map(e, path, node));
      } else {
        node->kind = LevelNode::kStruct;
        std::vector<spate::Field> fields;
        for (int i = 0; i < e.num_children; ++i) {
          node->children.emplace_back();
          SPATE_RETURN_IF_ERROR(Field(node->def, rep, path, &node->children.back()));
          const LevelNode& c = node->children.back();
          fields.push_back(spate::Field{c.name, c.type, c.def > c.parent_def});
        }
        node->type = DataType::Struct(std::move(fields));
      }
    } else {
      node->kind = LevelNode::kPrimitive;
      LeafInfo leaf;
      leaf.path = path;
      leaf.physical = e.type;
      leaf.type_length = e.type_length;
      leaf.max_def = node->def;
      leaf.max_rep = rep;
      SPATE_RETURN_IF_ERROR(Primitive(e, &leaf));
      node->type = leaf.type;
      node->leaf = static_cast<int>(out->leaves.size());
      out->leaves.push_back(std::move(leaf));
    }
    node->num_leaves = static_cast<int>(out->leaves.size()) - node->first_leaf;
    return Status::OK();
  }

  Status List(const SchemaElement& e, const std::vector<std::string>& path,
              LevelNode* node) {
    node->kind = LevelNode::kList;
    if (e.num_children != 1)
      return Corrupt("LIST '" + e.name + "' must have exactly one child");
    node->elem_def = static_cast<int16_t>(node->def + 1);
    node->elem_rep = static_cast<int16_t>(node->rep + 1);
    const SchemaElement& c = el[idx++];
    SPATE_RETURN_IF_ERROR(CheckElement(c));
    if (c.repetition != Repetition::kRepeated)
      return Corrupt("LIST '" + e.name + "' child is not repeated");
    node->children.emplace_back();
    LevelNode* elem = &node->children.back();
    bool two_level = !IsGroup(c) || c.num_children > 1 || c.name == "array" ||
                     c.name == e.name + "_tuple" || IsList(c) || IsMap(c);
    if (two_level) {
      SPATE_RETURN_IF_ERROR(
          NonRepeated(c, node->elem_def, node->elem_rep, true, path, elem));
    } else {
      std::vector<std::string> p = path;
      p.push_back(c.name);
      SPATE_RETURN_IF_ERROR(Field(node->elem_def, node->elem_rep, p, elem));
    }
    node->type = DataType::Array(elem->type, elem->def > elem->parent_def);
    return Status::OK();
  }

  Status Map(const SchemaElement& e, const std::vector<std::string>& path,
             LevelNode* node) {
    node->kind = LevelNode::kMap;
    if (e.num_children != 1)
      return Corrupt("MAP '" + e.name + "' must have exactly one child");
    node->elem_def = static_cast<int16_t>(node->def + 1);
    node->elem_rep = static_cast<int16_t>(node->rep + 1);
    const SchemaElement& kv = el[idx++];
    SPATE_RETURN_IF_ERROR(CheckElement(kv));
    if (kv.repetition != Repetition::kRepeated || !IsGroup(kv)) {
      return Corrupt("MAP '" + e.name + "' child must be a repeated group");
    }
    if (kv.num_children != 2) {
      return Status(StatusCode::kUnimplemented, "unsupported Parquet type for column '" +
                                                    e.name +
                                                    "': MAP without a value field");
    }
    std::vector<std::string> p = path;
    p.push_back(kv.name);
    node->children.emplace_back();
    SPATE_RETURN_IF_ERROR(
        Field(node->elem_def, node->elem_rep, p, &node->children.back()));
    node->children.emplace_back();
    SPATE_RETURN_IF_ERROR(
        Field(node->elem_def, node->elem_rep, p, &node->children.back()));
    const LevelNode& k = node->children[0];
    const LevelNode& v = node->children[1];
    node->type = DataType::Map(k.type, v.type, v.def > v.parent_def);
    return Status::OK();
  }

  Status Primitive(const SchemaElement& e, LeafInfo* leaf) {
    const LogicalType& lt = e.logical_type;
    ConvertedType ct = e.converted_type;
    auto decimal = [&](int precision, int scale, Conversion conv) -> Status {
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        return Unsupported(e, "DECIMAL(" + std::to_string(precision) + "," +
                                  std::to_string(scale) + ")");
      }
      leaf->type = DataType::Decimal(precision, scale);
      leaf->conversion = conv;
      return Status::OK();
    };
    bool is_decimal = lt.kind == LogicalType::kDecimal || ct == ConvertedType::kDecimal;
    int precision = lt.kind == LogicalType::kDecimal ? lt.precision : e.precision;
    int scale = lt.kind == LogicalType::kDecimal ? lt.scale : e.scale;
    switch (e.type) {
      case PhysicalType::kBoolean:
        leaf->type = DataType::Boolean();
        return Status::OK();
      case PhysicalType::kInt32: {
        if (is_decimal) return decimal(precision, scale, Conversion::kInt32ToDecimal);
        if (lt.kind == LogicalType::kDate || ct == ConvertedType::kDate) {
          leaf->type = DataType::Date();
          return Status::OK();
        }
        if (lt.kind == LogicalType::kTime || ct == ConvertedType::kTimeMillis)
          return Unsupported(e, "TIME(MILLIS)");
        int bits = 32;
        bool is_signed = true;
        if (lt.kind == LogicalType::kInteger) {
          bits = lt.bit_width;
          is_signed = lt.is_signed;
        } else if (ct >= ConvertedType::kUint8 && ct <= ConvertedType::kInt64) {
          static const int kBits[] = {8, 16, 32, 64, 8, 16, 32, 64};
          bits = kBits[static_cast<int>(ct) - static_cast<int>(ConvertedType::kUint8)];
          is_signed = ct >= ConvertedType::kInt8;
        }
        if (is_signed) {
          leaf->type = bits == 8    ? DataType::Byte()
                       : bits == 16 ? DataType::Short()
                                    : DataType::Int();
          leaf->conversion = bits == 8    ? Conversion::kInt32ToInt8
                             : bits == 16 ? Conversion::kInt32ToInt16
                                          : Conversion::kNone;
        } else {
          leaf->type = bits == 8    ? DataType::Short()
                       : bits == 16 ? DataType::Int()
                                    : DataType::Long();
          leaf->conversion = bits == 8    ? Conversion::kUInt8ToInt16
                             : bits == 16 ? Conversion::kUInt16ToInt32
                                          : Conversion::kUInt32ToInt64;
        }
        return Status::OK();
      }
      case PhysicalType::kInt64: {
        if (is_decimal) return decimal(precision, scale, Conversion::kInt64ToDecimal);
        if (lt.kind == LogicalType::kTimestamp) {
          leaf->type =
              lt.is_adjusted_to_utc ? DataType::Timestamp() : DataType::TimestampNtz();
          leaf->conversion = lt.unit == TimeUnit::kMillis  ? Conversion::kMillisToMicros
                             : lt.unit == TimeUnit::kNanos ? Conversion::kNanosToMicros
                                                           : Conversion::kNone;
          return Status::OK();
        }
        if (ct == ConvertedType::kTimestampMicros ||
            ct == ConvertedType::kTimestampMillis) {
          leaf->type = DataType::Timestamp();
          leaf->conversion = ct == ConvertedType::kTimestampMillis
                                 ? Conversion::kMillisToMicros
                                 : Conversion::kNone;
          return Status::OK();
        }
        if (lt.kind == LogicalType::kTime || ct == ConvertedType::kTimeMicros)
          return Unsupported(e, "TIME(MICROS)");
        bool is_unsigned = (lt.kind == LogicalType::kInteger && !lt.is_signed) ||
                           ct == ConvertedType::kUint64;
        if (is_unsigned) return decimal(20, 0, Conversion::kUInt64ToDecimal);
        leaf->type = DataType::Long();
        return Status::OK();
      }
      case PhysicalType::kInt96:
        leaf->type = DataType::Timestamp();
        leaf->conversion = Conversion::kInt96ToMicros;
        return Status::OK();
      case PhysicalType::kFloat:
        leaf->type = DataType::Float();
        return Status::OK();
      case PhysicalType::kDouble:
        leaf->type = DataType::Double();
        return Status::OK();
      case PhysicalType::kByteArray:
        if (is_decimal) return decimal(precision, scale, Conversion::kBytesToDecimal);
        if (lt.kind == LogicalType::kString || lt.kind == LogicalType::kEnum ||
            lt.kind == LogicalType::kJson || ct == ConvertedType::kUtf8 ||
            ct == ConvertedType::kEnum || ct == ConvertedType::kJson) {
          leaf->type = DataType::String();
          return Status::OK();
        }
        if (lt.kind == LogicalType::kGeometry || lt.kind == LogicalType::kGeography) {
          return Unsupported(
              e, lt.kind == LogicalType::kGeometry ? "GEOMETRY" : "GEOGRAPHY");
        }
        if (lt.kind == LogicalType::kVariant) return Unsupported(e, "VARIANT");
        leaf->type = DataType::Binary();
        return Status::OK();
      case PhysicalType::kFixedLenByteArray:
        if (is_decimal) {
          if (e.type_length > 16)
            return Unsupported(e, "DECIMAL in FIXED_LEN_BYTE_ARRAY(" +
                                      std::to_string(e.type_length) + ")");
          return decimal(precision, scale, Conversion::kBytesToDecimal);
        }
        if (lt.kind == LogicalType::kFloat16) return Unsupported(e, "FLOAT16");
        if (ct == ConvertedType::kInterval) return Unsupported(e, "INTERVAL");
        leaf->type = DataType::Binary();
        return Status::OK();
    }
    return Corrupt("bad physical type");
  }
};

}  // namespace

Result<ParquetSchema> SchemaForWrite(const Schema& schema) {
  ParquetSchema out;
  SchemaElement root;
  root.name = "spark_schema";
  root.has_num_children = true;
  root.num_children = schema.num_fields();
  out.elements.push_back(root);
  WriteBuilder b{&out};
  for (const auto& f : schema.fields()) {
    out.fields.emplace_back();
    SPATE_RETURN_IF_ERROR(
        b.Add(f.name, f.type, f.nullable, 0, 0, {}, &out.fields.back()));
  }
  out.schema = std::make_shared<const Schema>(schema.fields());
  return out;
}

Result<ParquetSchema> SchemaForRead(const std::vector<SchemaElement>& elements) {
  ParquetSchema out;
  if (elements.empty())
    return Status(StatusCode::kDataCorruption, "invalid Parquet schema: no root element");
  const SchemaElement& root = elements[0];
  if (root.num_children < 0 ||
      static_cast<size_t>(root.num_children) > elements.size() - 1) {
    return Status(StatusCode::kDataCorruption, "invalid Parquet schema: root claims " +
                                                   std::to_string(root.num_children) +
                                                   " children");
  }
  ReadBuilder b{elements, &out};
  std::vector<Field> fields;
  for (int i = 0; i < root.num_children; ++i) {
    out.fields.emplace_back();
    SPATE_RETURN_IF_ERROR(b.Field(0, 0, {}, &out.fields.back()));
    const LevelNode& n = out.fields.back();
    fields.push_back(Field{n.name, n.type, true});
  }
  if (b.idx != elements.size()) {
    return Status(StatusCode::kDataCorruption,
                  "invalid Parquet schema: " + std::to_string(elements.size() - b.idx) +
                      " elements are not reachable from the root");
  }
  // Spark reads every column as nullable.
  for (auto& f : fields) f.nullable = true;
  out.schema = std::make_shared<const Schema>(std::move(fields));
  out.elements = elements;
  return out;
}

}  // namespace spate::formats::parquet
