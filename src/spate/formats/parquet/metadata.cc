// Copyright spate authors.
#include "spate/formats/parquet/metadata.h"

#include "spate/formats/parquet/thrift.h"

namespace spate::formats::parquet {

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN_ENCODING";
}

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::kUncompressed:
      return "UNCOMPRESSED";
    case Codec::kSnappy:
      return "SNAPPY";
    case Codec::kGzip:
      return "GZIP";
    case Codec::kLzo:
      return "LZO";
    case Codec::kBrotli:
      return "BROTLI";
    case Codec::kLz4:
      return "LZ4";
    case Codec::kZstd:
      return "ZSTD";
    case Codec::kLz4Raw:
      return "LZ4_RAW";
  }
  return "UNKNOWN_CODEC";
}

namespace {

Status TypeMismatch(std::string_view strct, int16_t id) {
  return Status(StatusCode::kDataCorruption,
                "corrupt Thrift data: field " + std::to_string(id) + " of " +
                    std::string(strct) + " has the wrong type");
}

bool IsInt(TType t) {
  return t == TType::kByte || t == TType::kI16 || t == TType::kI32 || t == TType::kI64;
}
bool IsBool(TType t) { return t == TType::kBoolTrue || t == TType::kBoolFalse; }

// Reads the fields of a struct, calling on_field(type, id) for each; on_field returns
// false (in *handled) to have the field skipped.
template <typename F>
Status ReadStruct(ThriftReader& r, F&& on_field) {
  SPATE_RETURN_IF_ERROR(r.StructBegin());
  while (true) {
    TType t;
    int16_t id;
    SPATE_RETURN_IF_ERROR(r.FieldBegin(&t, &id));
    if (t == TType::kStop) break;
    bool handled = false;
    SPATE_RETURN_IF_ERROR(on_field(t, id, &handled));
    if (!handled) SPATE_RETURN_IF_ERROR(r.Skip(t));
  }
  return r.StructEnd();
}

template <typename T>
Status GetInt(ThriftReader& r, TType t, std::string_view s, int16_t id, T* out) {
  if (!IsInt(t)) return TypeMismatch(s, id);
  int64_t v;
  SPATE_RETURN_IF_ERROR(r.ReadInt(t, &v));
  *out = static_cast<T>(v);
  if (static_cast<int64_t>(*out) != v) return TypeMismatch(s, id);
  return Status::OK();
}

Status GetBool(ThriftReader& r, TType t, std::string_view s, int16_t id, bool* out) {
  if (!IsBool(t)) return TypeMismatch(s, id);
  return r.ReadBool(out);
}

Status GetBinary(ThriftReader& r, TType t, std::string_view s, int16_t id,
                 std::string* out) {
  if (t != TType::kBinary) return TypeMismatch(s, id);
  return r.ReadBinary(out);
}

// Reads a list of `elem_type` elements, calling read_elem(i) for each.
template <typename F>
Status GetList(ThriftReader& r, TType t, std::string_view s, int16_t id, TType want,
               F&& read_elem) {
  if (t != TType::kList) return TypeMismatch(s, id);
  TType elem;
  int64_t n;
  SPATE_RETURN_IF_ERROR(r.ListBegin(&elem, &n));
  if (elem != want && !(IsInt(elem) && IsInt(want))) {
    for (int64_t i = 0; i < n; ++i) SPATE_RETURN_IF_ERROR(r.Skip(elem));
    return TypeMismatch(s, id);
  }
  for (int64_t i = 0; i < n; ++i) SPATE_RETURN_IF_ERROR(read_elem(elem));
  return Status::OK();
}

Status Missing(std::string_view strct, std::string_view field) {
  return Status(StatusCode::kDataCorruption, "corrupt Thrift data: required field " +
                                                 std::string(field) + " of " +
                                                 std::string(strct) + " is missing");
}

Status ReadTimeUnit(ThriftReader& r, TimeUnit* unit) {
  return ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    if (t == TType::kStruct && id >= 1 && id <= 3) *unit = static_cast<TimeUnit>(id);
    return Status::OK();
  });
}

Status ReadLogicalType(ThriftReader& r, LogicalType* lt) {
  return ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    if (t != TType::kStruct) return Status::OK();
    lt->kind = id;
    *handled = true;
    switch (id) {
      case LogicalType::kDecimal:
        return ReadStruct(r, [&](TType t2, int16_t id2, bool* h2) -> Status {
          *h2 = true;
          if (id2 == 1) return GetInt(r, t2, "DecimalType", id2, &lt->scale);
          if (id2 == 2) return GetInt(r, t2, "DecimalType", id2, &lt->precision);
          *h2 = false;
          return Status::OK();
        });
      case LogicalType::kTime:
      case LogicalType::kTimestamp:
        return ReadStruct(r, [&](TType t2, int16_t id2, bool* h2) -> Status {
          *h2 = true;
          if (id2 == 1)
            return GetBool(r, t2, "TimestampType", id2, &lt->is_adjusted_to_utc);
          if (id2 == 2 && t2 == TType::kStruct) return ReadTimeUnit(r, &lt->unit);
          *h2 = false;
          return Status::OK();
        });
      case LogicalType::kInteger:
        return ReadStruct(r, [&](TType t2, int16_t id2, bool* h2) -> Status {
          *h2 = true;
          if (id2 == 1) return GetInt(r, t2, "IntType", id2, &lt->bit_width);
          if (id2 == 2) return GetBool(r, t2, "IntType", id2, &lt->is_signed);
          *h2 = false;
          return Status::OK();
        });
      default:
        *handled = false;  // empty or unknown member struct: skip it
        return Status::OK();
    }
  });
}

Status ReadSchemaElement(ThriftReader& r, SchemaElement* e) {
  bool has_name = false;
  SPATE_RETURN_IF_ERROR(ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    constexpr std::string_view s = "SchemaElement";
    *handled = true;
    int32_t v;
    switch (id) {
      case 1:
        SPATE_RETURN_IF_ERROR(GetInt(r, t, s, id, &v));
        e->has_type = true;
        e->type = static_cast<PhysicalType>(v);
        return Status::OK();
      case 2:
        return GetInt(r, t, s, id, &e->type_length);
      case 3:
        SPATE_RETURN_IF_ERROR(GetInt(r, t, s, id, &v));
        e->has_repetition = true;
        e->repetition = static_cast<Repetition>(v);
        return Status::OK();
      case 4:
        has_name = true;
        return GetBinary(r, t, s, id, &e->name);
      case 5:
        e->has_num_children = true;
        return GetInt(r, t, s, id, &e->num_children);
      case 6:
        SPATE_RETURN_IF_ERROR(GetInt(r, t, s, id, &v));
        e->converted_type = static_cast<ConvertedType>(v);
        return Status::OK();
      case 7:
        return GetInt(r, t, s, id, &e->scale);
      case 8:
        return GetInt(r, t, s, id, &e->precision);
      case 9:
        e->has_field_id = true;
        return GetInt(r, t, s, id, &e->field_id);
      case 10:
        if (t != TType::kStruct) return TypeMismatch(s, id);
        return ReadLogicalType(r, &e->logical_type);
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  if (!has_name) return Missing("SchemaElement", "name");
  return Status::OK();
}

Status ReadStatistics(ThriftReader& r, Statistics* st) {
  return ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    constexpr std::string_view s = "Statistics";
    *handled = true;
    switch (id) {
      case 1:
        st->has_max = true;
        return GetBinary(r, t, s, id, &st->max);
      case 2:
        st->has_min = true;
        return GetBinary(r, t, s, id, &st->min);
      case 3:
        st->has_null_count = true;
        return GetInt(r, t, s, id, &st->null_count);
      case 4:
        st->has_distinct_count = true;
        return GetInt(r, t, s, id, &st->distinct_count);
      case 5:
        st->has_max_value = true;
        return GetBinary(r, t, s, id, &st->max_value);
      case 6:
        st->has_min_value = true;
        return GetBinary(r, t, s, id, &st->min_value);
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ReadKeyValue(ThriftReader& r, KeyValue* kv) {
  return ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    *handled = true;
    if (id == 1) return GetBinary(r, t, "KeyValue", id, &kv->key);
    if (id == 2) {
      kv->has_value = true;
      return GetBinary(r, t, "KeyValue", id, &kv->value);
    }
    *handled = false;
    return Status::OK();
  });
}

Status ReadColumnMetaData(ThriftReader& r, ColumnMetaData* m) {
  uint32_t seen = 0;
  SPATE_RETURN_IF_ERROR(ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    constexpr std::string_view s = "ColumnMetaData";
    *handled = true;
    if (id >= 1 && id <= 12) seen |= 1u << id;
    int32_t v;
    switch (id) {
      case 1:
        SPATE_RETURN_IF_ERROR(GetInt(r, t, s, id, &v));
        m->type = static_cast<PhysicalType>(v);
        return Status::OK();
      case 2:
        return GetList(r, t, s, id, TType::kI32, [&](TType et) -> Status {
          int64_t x;
          SPATE_RETURN_IF_ERROR(r.ReadInt(et, &x));
          m->encodings.push_back(static_cast<Encoding>(x));
          return Status::OK();
        });
      case 3:
        return GetList(r, t, s, id, TType::kBinary, [&](TType) -> Status {
          m->path_in_schema.emplace_back();
          return r.ReadBinary(&m->path_in_schema.back());
        });
      case 4:
        SPATE_RETURN_IF_ERROR(GetInt(r, t, s, id, &v));
        m->codec = static_cast<Codec>(v);
        return Status::OK();
      case 5:
        return GetInt(r, t, s, id, &m->num_values);
      case 6:
        return GetInt(r, t, s, id, &m->total_uncompressed_size);
      case 7:
        return GetInt(r, t, s, id, &m->total_compressed_size);
      case 9:
        return GetInt(r, t, s, id, &m->data_page_offset);
      case 11:
        m->has_dictionary_page_offset = true;
        return GetInt(r, t, s, id, &m->dictionary_page_offset);
      case 12:
        if (t != TType::kStruct) return TypeMismatch(s, id);
        m->has_statistics = true;
        return ReadStatistics(r, &m->statistics);
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  for (int f : {1, 2, 3, 4, 5, 6, 7, 9}) {
    if (!(seen & (1u << f))) return Missing("ColumnMetaData", "#" + std::to_string(f));
  }
  return Status::OK();
}

Status ReadColumnChunk(ThriftReader& r, ColumnChunk* c) {
  return ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    constexpr std::string_view s = "ColumnChunk";
    *handled = true;
    switch (id) {
      case 1:
        c->has_file_path = true;
        return GetBinary(r, t, s, id, &c->file_path);
      case 2:
        return GetInt(r, t, s, id, &c->file_offset);
      case 3:
        if (t != TType::kStruct) return TypeMismatch(s, id);
        c->has_meta_data = true;
        return ReadColumnMetaData(r, &c->meta_data);
      case 8:
      case 9:
        c->encrypted = true;
        *handled = false;
        return Status::OK();
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ReadRowGroup(ThriftReader& r, RowGroup* g) {
  bool has_rows = false, has_columns = false;
  SPATE_RETURN_IF_ERROR(ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    constexpr std::string_view s = "RowGroup";
    *handled = true;
    switch (id) {
      case 1:
        has_columns = true;
        return GetList(r, t, s, id, TType::kStruct, [&](TType) -> Status {
          g->columns.emplace_back();
          return ReadColumnChunk(r, &g->columns.back());
        });
      case 2:
        return GetInt(r, t, s, id, &g->total_byte_size);
      case 3:
        has_rows = true;
        return GetInt(r, t, s, id, &g->num_rows);
      case 5:
        g->has_file_offset = true;
        return GetInt(r, t, s, id, &g->file_offset);
      case 6:
        return GetInt(r, t, s, id, &g->total_compressed_size);
      case 7:
        return GetInt(r, t, s, id, &g->ordinal);
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  if (!has_rows) return Missing("RowGroup", "num_rows");
  if (!has_columns) return Missing("RowGroup", "columns");
  return Status::OK();
}

void WriteStatistics(ThriftWriter& w, const Statistics& st) {
  w.StructBegin();
  if (st.has_max) w.FieldBinary(1, st.max);
  if (st.has_min) w.FieldBinary(2, st.min);
  if (st.has_null_count) w.FieldI64(3, st.null_count);
  if (st.has_distinct_count) w.FieldI64(4, st.distinct_count);
  if (st.has_max_value) w.FieldBinary(5, st.max_value);
  if (st.has_min_value) w.FieldBinary(6, st.min_value);
  w.StructEnd();
}

void WriteLogicalType(ThriftWriter& w, const LogicalType& lt) {
  w.StructBegin();
  w.FieldStructBegin(lt.kind);
  switch (lt.kind) {
    case LogicalType::kDecimal:
      w.FieldI32(1, lt.scale);
      w.FieldI32(2, lt.precision);
      break;
    case LogicalType::kTime:
    case LogicalType::kTimestamp:
      w.FieldBool(1, lt.is_adjusted_to_utc);
      w.FieldStructBegin(2);
      w.FieldStructBegin(static_cast<int16_t>(lt.unit));
      w.StructEnd();
      w.StructEnd();
      break;
    case LogicalType::kInteger:
      w.FieldI8(1, lt.bit_width);
      w.FieldBool(2, lt.is_signed);
      break;
    default:
      break;
  }
  w.StructEnd();
  w.StructEnd();
}

}  // namespace

Status ReadFileMetaData(const uint8_t* data, int64_t size, FileMetaData* md) {
  ThriftReader r(data, size);
  uint32_t seen = 0;
  SPATE_RETURN_IF_ERROR(ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    constexpr std::string_view s = "FileMetaData";
    *handled = true;
    if (id >= 1 && id <= 9) seen |= 1u << id;
    switch (id) {
      case 1:
        return GetInt(r, t, s, id, &md->version);
      case 2:
        return GetList(r, t, s, id, TType::kStruct, [&](TType) -> Status {
          md->schema.emplace_back();
          return ReadSchemaElement(r, &md->schema.back());
        });
      case 3:
        return GetInt(r, t, s, id, &md->num_rows);
      case 4:
        return GetList(r, t, s, id, TType::kStruct, [&](TType) -> Status {
          md->row_groups.emplace_back();
          return ReadRowGroup(r, &md->row_groups.back());
        });
      case 5:
        return GetList(r, t, s, id, TType::kStruct, [&](TType) -> Status {
          md->key_value_metadata.emplace_back();
          return ReadKeyValue(r, &md->key_value_metadata.back());
        });
      case 6:
        return GetBinary(r, t, s, id, &md->created_by);
      case 8:
        md->encrypted = true;
        *handled = false;
        return Status::OK();
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  for (int f : {1, 2, 3, 4}) {
    if (!(seen & (1u << f))) return Missing("FileMetaData", "#" + std::to_string(f));
  }
  return Status::OK();
}

void WriteFileMetaData(const FileMetaData& md, std::string* out) {
  ThriftWriter w(out);
  w.StructBegin();
  w.FieldI32(1, md.version);
  w.FieldListBegin(2, TType::kStruct, static_cast<int64_t>(md.schema.size()));
  for (const auto& e : md.schema) {
    w.StructBegin();
    if (e.has_type) w.FieldI32(1, static_cast<int32_t>(e.type));
    if (e.has_type && e.type == PhysicalType::kFixedLenByteArray)
      w.FieldI32(2, e.type_length);
    if (e.has_repetition) w.FieldI32(3, static_cast<int32_t>(e.repetition));
    w.FieldBinary(4, e.name);
    if (e.has_num_children) w.FieldI32(5, e.num_children);
    if (e.converted_type != ConvertedType::kNone)
      w.FieldI32(6, static_cast<int32_t>(e.converted_type));
    if (e.converted_type == ConvertedType::kDecimal) {
      w.FieldI32(7, e.scale);
      w.FieldI32(8, e.precision);
    }
    if (e.has_field_id) w.FieldI32(9, e.field_id);
    if (e.logical_type.kind != LogicalType::kNone) {
      w.FieldStructBegin(10);
      // WriteLogicalType writes a full struct; emit its members inline instead.
      std::string tmp;
      ThriftWriter lw(&tmp);
      WriteLogicalType(lw, e.logical_type);
      // tmp holds "<members> stop"; the outer FieldStructBegin already opened the struct.
      out->append(tmp.data(), tmp.size() - 1);
      w.StructEnd();
    }
    w.StructEnd();
  }
  w.FieldI64(3, md.num_rows);
  w.FieldListBegin(4, TType::kStruct, static_cast<int64_t>(md.row_groups.size()));
  for (const auto& g : md.row_groups) {
    w.StructBegin();
    w.FieldListBegin(1, TType::kStruct, static_cast<int64_t>(g.columns.size()));
    for (const auto& c : g.columns) {
      w.StructBegin();
      if (c.has_file_path) w.FieldBinary(1, c.file_path);
      w.FieldI64(2, c.file_offset);
      w.FieldStructBegin(3);
      const auto& m = c.meta_data;
      w.FieldI32(1, static_cast<int32_t>(m.type));
      w.FieldListBegin(2, TType::kI32, static_cast<int64_t>(m.encodings.size()));
      for (auto e : m.encodings) w.WriteI32(static_cast<int32_t>(e));
      w.FieldListBegin(3, TType::kBinary, static_cast<int64_t>(m.path_in_schema.size()));
      for (const auto& p : m.path_in_schema) w.WriteBinary(p);
      w.FieldI32(4, static_cast<int32_t>(m.codec));
      w.FieldI64(5, m.num_values);
      w.FieldI64(6, m.total_uncompressed_size);
      w.FieldI64(7, m.total_compressed_size);
      w.FieldI64(9, m.data_page_offset);
      if (m.has_dictionary_page_offset) w.FieldI64(11, m.dictionary_page_offset);
      if (m.has_statistics) {
        w.FieldStructBegin(12);
        // Members of Statistics inline (same trick as the logical type).
        std::string tmp;
        ThriftWriter sw(&tmp);
        WriteStatistics(sw, m.statistics);
        out->append(tmp.data(), tmp.size() - 1);
        w.StructEnd();
      }
      w.StructEnd();  // meta_data
      w.StructEnd();  // ColumnChunk
    }
    w.FieldI64(2, g.total_byte_size);
    w.FieldI64(3, g.num_rows);
    if (g.has_file_offset) w.FieldI64(5, g.file_offset);
    w.FieldI64(6, g.total_compressed_size);
    w.FieldI32(7, g.ordinal);
    w.StructEnd();
  }
  if (!md.key_value_metadata.empty()) {
    w.FieldListBegin(5, TType::kStruct,
                     static_cast<int64_t>(md.key_value_metadata.size()));
    for (const auto& kv : md.key_value_metadata) {
      w.StructBegin();
      w.FieldBinary(1, kv.key);
      if (kv.has_value) w.FieldBinary(2, kv.value);
      w.StructEnd();
    }
  }
  if (!md.created_by.empty()) w.FieldBinary(6, md.created_by);
  if (md.num_column_orders > 0) {
    w.FieldListBegin(7, TType::kStruct, md.num_column_orders);
    for (int i = 0; i < md.num_column_orders; ++i) {
      w.StructBegin();
      w.FieldStructBegin(1);  // TYPE_ORDER
      w.StructEnd();
      w.StructEnd();
    }
  }
  w.StructEnd();
}

Status ReadPageHeader(const uint8_t* data, int64_t size, PageHeader* h,
                      int64_t* header_size) {
  ThriftReader r(data, size);
  uint32_t seen = 0;
  SPATE_RETURN_IF_ERROR(ReadStruct(r, [&](TType t, int16_t id, bool* handled) -> Status {
    constexpr std::string_view s = "PageHeader";
    *handled = true;
    if (id >= 1 && id <= 8) seen |= 1u << id;
    int32_t v;
    switch (id) {
      case 1:
        SPATE_RETURN_IF_ERROR(GetInt(r, t, s, id, &v));
        h->type = static_cast<PageType>(v);
        return Status::OK();
      case 2:
        return GetInt(r, t, s, id, &h->uncompressed_page_size);
      case 3:
        return GetInt(r, t, s, id, &h->compressed_page_size);
      case 4:
        h->has_crc = true;
        return GetInt(r, t, s, id, &h->crc);
      case 5: {
        if (t != TType::kStruct) return TypeMismatch(s, id);
        h->has_data_page_header = true;
        auto& d = h->data_page_header;
        return ReadStruct(r, [&](TType t2, int16_t id2, bool* h2) -> Status {
          *h2 = true;
          int32_t x;
          switch (id2) {
            case 1:
              return GetInt(r, t2, "DataPageHeader", id2, &d.num_values);
            case 2:
              SPATE_RETURN_IF_ERROR(GetInt(r, t2, "DataPageHeader", id2, &x));
              d.encoding = static_cast<Encoding>(x);
              return Status::OK();
            case 3:
              SPATE_RETURN_IF_ERROR(GetInt(r, t2, "DataPageHeader", id2, &x));
              d.definition_level_encoding = static_cast<Encoding>(x);
              return Status::OK();
            case 4:
              SPATE_RETURN_IF_ERROR(GetInt(r, t2, "DataPageHeader", id2, &x));
              d.repetition_level_encoding = static_cast<Encoding>(x);
              return Status::OK();
            default:
              *h2 = false;
              return Status::OK();
          }
        });
      }
      case 7: {
        if (t != TType::kStruct) return TypeMismatch(s, id);
        h->has_dictionary_page_header = true;
        auto& d = h->dictionary_page_header;
        return ReadStruct(r, [&](TType t2, int16_t id2, bool* h2) -> Status {
          *h2 = true;
          int32_t x;
          switch (id2) {
            case 1:
              return GetInt(r, t2, "DictionaryPageHeader", id2, &d.num_values);
            case 2:
              SPATE_RETURN_IF_ERROR(GetInt(r, t2, "DictionaryPageHeader", id2, &x));
              d.encoding = static_cast<Encoding>(x);
              return Status::OK();
            case 3:
              return GetBool(r, t2, "DictionaryPageHeader", id2, &d.is_sorted);
            default:
              *h2 = false;
              return Status::OK();
          }
        });
      }
      case 8: {
        if (t != TType::kStruct) return TypeMismatch(s, id);
        h->has_data_page_header_v2 = true;
        auto& d = h->data_page_header_v2;
        return ReadStruct(r, [&](TType t2, int16_t id2, bool* h2) -> Status {
          constexpr std::string_view s2 = "DataPageHeaderV2";
          *h2 = true;
          int32_t x;
          switch (id2) {
            case 1:
              return GetInt(r, t2, s2, id2, &d.num_values);
            case 2:
              return GetInt(r, t2, s2, id2, &d.num_nulls);
            case 3:
              return GetInt(r, t2, s2, id2, &d.num_rows);
            case 4:
              SPATE_RETURN_IF_ERROR(GetInt(r, t2, s2, id2, &x));
              d.encoding = static_cast<Encoding>(x);
              return Status::OK();
            case 5:
              return GetInt(r, t2, s2, id2, &d.definition_levels_byte_length);
            case 6:
              return GetInt(r, t2, s2, id2, &d.repetition_levels_byte_length);
            case 7:
              return GetBool(r, t2, s2, id2, &d.is_compressed);
            default:
              *h2 = false;
              return Status::OK();
          }
        });
      }
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  for (int f : {1, 2, 3}) {
    if (!(seen & (1u << f))) return Missing("PageHeader", "#" + std::to_string(f));
  }
  if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0) {
    return Status(StatusCode::kDataCorruption, "negative page size in page header");
  }
  *header_size = r.position();
  return Status::OK();
}

void WritePageHeader(const PageHeader& h, std::string* out) {
  ThriftWriter w(out);
  w.StructBegin();
  w.FieldI32(1, static_cast<int32_t>(h.type));
  w.FieldI32(2, h.uncompressed_page_size);
  w.FieldI32(3, h.compressed_page_size);
  if (h.has_crc) w.FieldI32(4, h.crc);
  if (h.has_data_page_header) {
    const auto& d = h.data_page_header;
    w.FieldStructBegin(5);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    w.FieldI32(3, static_cast<int32_t>(d.definition_level_encoding));
    w.FieldI32(4, static_cast<int32_t>(d.repetition_level_encoding));
    w.StructEnd();
  }
  if (h.has_dictionary_page_header) {
    const auto& d = h.dictionary_page_header;
    w.FieldStructBegin(7);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.FieldBool(3, true);
    w.StructEnd();
  }
  if (h.has_data_page_header_v2) {
    const auto& d = h.data_page_header_v2;
    w.FieldStructBegin(8);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, d.num_nulls);
    w.FieldI32(3, d.num_rows);
    w.FieldI32(4, static_cast<int32_t>(d.encoding));
    w.FieldI32(5, d.definition_levels_byte_length);
    w.FieldI32(6, d.repetition_levels_byte_length);
    w.FieldBool(7, d.is_compressed);
    w.StructEnd();
  }
  w.StructEnd();
}

}  // namespace spate::formats::parquet
