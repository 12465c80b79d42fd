// Copyright spate authors.
#include "spate/columnar/arrow_c.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace spate {

namespace {

// Stands in for buffers that are empty or absent on our side but that the spec wants
// non-null (the single zero offset of an empty string or list column, empty data).
alignas(64) constexpr uint8_t kZeros[64] = {};

// ---------------------------------------------------------------------------------------
// Export: schemas
// ---------------------------------------------------------------------------------------

struct ExportedSchema {
  std::string format;
  std::string name;
  std::vector<ArrowSchema> children;  // sized once, never reallocated
  std::vector<ArrowSchema*> child_pointers;
};

void ReleaseExportedSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  std::unique_ptr<ExportedSchema> owned(
      static_cast<ExportedSchema*>(schema->private_data));
  // Children moved out by the consumer have a null release and are left alone.
  for (ArrowSchema* child : owned->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  owned.reset();
  schema->release = nullptr;
  schema->private_data = nullptr;
}

std::string FormatString(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return "n";
    case TypeId::kBoolean:
      return "b";
    case TypeId::kByte:
      return "c";
    case TypeId::kShort:
      return "s";
    case TypeId::kInt:
      return "i";
    case TypeId::kLong:
      return "l";
    case TypeId::kFloat:
      return "f";
    case TypeId::kDouble:
      return "g";
    case TypeId::kDecimal:
      return fmt::format("d:{},{}", type.precision(), type.scale());
    case TypeId::kString:
      return "u";
    case TypeId::kBinary:
      return "z";
    case TypeId::kDate:
      return "tdD";
    case TypeId::kTimestamp:
      return "tsu:UTC";
    case TypeId::kTimestampNtz:
      return "tsu:";
    case TypeId::kDayTimeInterval:
      return "tDu";
    case TypeId::kYearMonthInterval:
      return "tiM";
    case TypeId::kStruct:
      return "+s";
    case TypeId::kArray:
      return "+l";
    case TypeId::kMap:
      return "+m";
  }
  return "n";
}

// The struct type of a map's entries as spate's builders make it.
DataTypePtr MapEntryType(const DataType& map) {
  return DataType::Struct(
      {Field{"key", map.key_type(), false}, Field{"value", map.value_type(), true}});
}

void FillSchema(std::string name, const DataType& type, bool nullable, ArrowSchema* out) {
  auto owned = std::make_unique<ExportedSchema>();
  owned->format = FormatString(type);
  owned->name = std::move(name);
  std::vector<Field> kids;
  switch (type.id()) {
    case TypeId::kStruct:
      kids = type.fields();
      break;
    case TypeId::kArray:
      kids.push_back(Field{"element", type.element_type(), type.contains_null()});
      break;
    case TypeId::kMap:
      kids.push_back(Field{"entries",
                           DataType::Struct({Field{"key", type.key_type(), false},
                                             Field{"value", type.value_type(),
                                                   type.value_contains_null()}}),
                           false});
      break;
    default:
      break;
  }
  owned->children.resize(kids.size());
  for (size_t i = 0; i < kids.size(); ++i) {
    FillSchema(kids[i].name, *kids[i].type, kids[i].nullable, &owned->children[i]);
    owned->child_pointers.push_back(&owned->children[i]);
  }
  out->format = owned->format.c_str();
  out->name = owned->name.c_str();
  out->metadata = nullptr;
  out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  out->n_children = static_cast<int64_t>(kids.size());
  out->children = kids.empty() ? nullptr : owned->child_pointers.data();
  out->dictionary = nullptr;
  out->release = &ReleaseExportedSchema;
  out->private_data = owned.release();
}

// ---------------------------------------------------------------------------------------
// Export: arrays
// ---------------------------------------------------------------------------------------

struct ExportedArray {
  std::vector<BufferPtr> buffers;  // keeps the column's memory alive
  std::array<const void*, 3> buffer_pointers{};
  std::vector<ArrowArray> children;  // sized once, never reallocated
  std::vector<ArrowArray*> child_pointers;
};

void ReleaseExportedArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  std::unique_ptr<ExportedArray> owned(static_cast<ExportedArray*>(array->private_data));
  for (ArrowArray* child : owned->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  owned.reset();
  array->release = nullptr;
  array->private_data = nullptr;
}

void FillArray(int64_t length, int64_t null_count, int n_buffers,
               std::array<const BufferPtr*, 3> buffers, std::array<bool, 3> nullable,
               const std::vector<const Column*>& children, ArrowArray* out);

void FillColumn(const Column& c, ArrowArray* out) {
  std::vector<const Column*> children;
  switch (c.type_id()) {
    case TypeId::kNull:
      FillArray(c.length(), c.length(), 0, {}, {}, children, out);
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      FillArray(c.length(), c.null_count(), 3, {&c.validity(), &c.values(), &c.data()},
                {true, false, false}, children, out);
      return;
    case TypeId::kStruct:
      for (const ColumnPtr& child : c.children()) children.push_back(child.get());
      FillArray(c.length(), c.null_count(), 1, {&c.validity(), nullptr, nullptr},
                {true, false, false}, children, out);
      return;
    case TypeId::kArray:
    case TypeId::kMap:
      children.push_back(c.child(0).get());
      FillArray(c.length(), c.null_count(), 2, {&c.validity(), &c.values(), nullptr},
                {true, false, false}, children, out);
      return;
    default:  // boolean and fixed width
      FillArray(c.length(), c.null_count(), 2, {&c.validity(), &c.values(), nullptr},
                {true, false, false}, children, out);
      return;
  }
}

void FillArray(int64_t length, int64_t null_count, int n_buffers,
               std::array<const BufferPtr*, 3> buffers, std::array<bool, 3> nullable,
               const std::vector<const Column*>& children, ArrowArray* out) {
  auto owned = std::make_unique<ExportedArray>();
  for (int i = 0; i < n_buffers; ++i) {
    const BufferPtr* b = buffers[i];
    if (b != nullptr && *b != nullptr) {
      owned->buffers.push_back(*b);
      owned->buffer_pointers[i] = (*b)->data();
    } else {
      owned->buffer_pointers[i] = nullable[i] ? nullptr : kZeros;
    }
  }
  owned->children.resize(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    FillColumn(*children[i], &owned->children[i]);
    owned->child_pointers.push_back(&owned->children[i]);
  }
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = n_buffers;
  out->n_children = static_cast<int64_t>(children.size());
  out->buffers = n_buffers == 0 ? nullptr : owned->buffer_pointers.data();
  out->children = children.empty() ? nullptr : owned->child_pointers.data();
  out->dictionary = nullptr;
  out->release = &ReleaseExportedArray;
  out->private_data = owned.release();
}

// ---------------------------------------------------------------------------------------
// Export: streams
// ---------------------------------------------------------------------------------------

struct ExportedStream {
  SchemaPtr schema;
  std::vector<BatchPtr> batches;
  size_t next = 0;
  std::string last_error;
};

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  Status st = ExportSchema(*p->schema, out);
  if (!st.ok()) {
    p->last_error = st.ToString();
    return EINVAL;
  }
  return 0;
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  if (p->next >= p->batches.size()) {
    std::memset(out, 0, sizeof(*out));  // a released array marks the end
    return 0;
  }
  Status st = ExportBatch(p->batches[p->next], out, nullptr);
  if (!st.ok()) {
    p->last_error = st.ToString();
    return EINVAL;
  }
  ++p->next;
  return 0;
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  std::unique_ptr<ExportedStream> owned(
      static_cast<ExportedStream*>(stream->private_data));
  owned.reset();
  stream->release = nullptr;
  stream->private_data = nullptr;
}

// ---------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------

// The moved base ArrowArray of an import; releases it when the last buffer referencing it
// goes away.
class ImportedArray {
 public:
  explicit ImportedArray(ArrowArray* source) : array_(*source) {
    source->release = nullptr;
  }
  ~ImportedArray() {
    if (array_.release != nullptr) array_.release(&array_);
  }
  ImportedArray(const ImportedArray&) = delete;
  ImportedArray& operator=(const ImportedArray&) = delete;
  const ArrowArray* array() const { return &array_; }

 private:
  ArrowArray array_;
};

// A moved ArrowSchema, released at scope exit.
class SchemaGuard {
 public:
  explicit SchemaGuard(ArrowSchema* source) {
    if (source != nullptr && source->release != nullptr) {
      schema_ = *source;
      source->release = nullptr;
    }
  }
  ~SchemaGuard() {
    if (schema_.release != nullptr) schema_.release(&schema_);
  }
  SchemaGuard(const SchemaGuard&) = delete;
  SchemaGuard& operator=(const SchemaGuard&) = delete;
  const ArrowSchema* get() const {
    return schema_.release != nullptr ? &schema_ : nullptr;
  }

 private:
  ArrowSchema schema_{};
};

Result<int> ParseInt(std::string_view s) {
  int v = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  if (res.ec != std::errc() || res.ptr != s.data() + s.size()) {
    return Status::Invalid(fmt::format("bad number '{}' in an Arrow format string", s));
  }
  return v;
}

Result<DataTypePtr> ParseDecimal(std::string_view spec) {
  // "p,s" or "p,s,bitwidth"
  size_t comma = spec.find(',');
  if (comma == std::string_view::npos) {
    return Status::Invalid(fmt::format("bad Arrow decimal format 'd:{}'", spec));
  }
  std::string_view rest = spec.substr(comma + 1);
  size_t comma2 = rest.find(',');
  SPATE_ASSIGN_OR_RETURN(int precision, ParseInt(spec.substr(0, comma)));
  SPATE_ASSIGN_OR_RETURN(int scale, ParseInt(rest.substr(0, comma2)));
  if (comma2 != std::string_view::npos) {
    SPATE_ASSIGN_OR_RETURN(int bits, ParseInt(rest.substr(comma2 + 1)));
    if (bits != 128) {
      return Status::Unimplemented(fmt::format("Arrow decimal{} is not supported", bits));
    }
  }
  if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
    return Status::Unimplemented(
        fmt::format("Arrow decimal({},{}) has no Spark equivalent", precision, scale));
  }
  return DataType::Decimal(precision, scale);
}

Status CheckChildren(const ArrowSchema* schema, int64_t n) {
  if (schema->n_children != n || (n > 0 && schema->children == nullptr)) {
    return Status::Invalid(fmt::format("Arrow format '{}' needs {} children, has {}",
                                       schema->format, n, schema->n_children));
  }
  return Status::OK();
}

// Reads and validates the buffers of one array node.
class NodeImporter {
 public:
  explicit NodeImporter(std::shared_ptr<ImportedArray> holder)
      : holder_(std::move(holder)) {}

  // Imports rows [start, start + length) of `a`, `start` counting from the start of a's
  // buffers (it already includes a->offset and the offsets of the parents).
  Result<ColumnPtr> Import(const ArrowArray* a, const DataTypePtr& type, int64_t start,
                           int64_t length);

 private:
  BufferPtr Wrap(const void* data, int64_t size) {
    return Buffer::Wrap(data, size, [holder = holder_]() {});
  }
  // Bits [start, start + n) as a bitmap starting at bit 0.
  BufferPtr Bits(const uint8_t* bits, int64_t start, int64_t n);
  Status Validity(const ArrowArray* a, int64_t start, int64_t length, BufferPtr* out,
                  int64_t* null_count);
  Result<BufferPtr> Fixed(const ArrowArray* a, int64_t start, int64_t length, int width);
  // Offsets [start, start + length] rebased to begin at 0; *first/*last are the original
  // bounds.
  Result<BufferPtr> Offsets(const ArrowArray* a, int64_t start, int64_t length,
                            int32_t* first, int32_t* last);

  std::shared_ptr<ImportedArray> holder_;
};

BufferPtr NodeImporter::Bits(const uint8_t* bits, int64_t start, int64_t n) {
  if (start % 8 == 0) return Wrap(bits + start / 8, bits::BytesFor(n));
  auto out = Buffer::Allocate(bits::BytesFor(n));
  uint8_t* dst = out->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (bits::Get(bits, start + i)) bits::Set(dst, i);
  }
  return out;
}

Status NodeImporter::Validity(const ArrowArray* a, int64_t start, int64_t length,
                              BufferPtr* out, int64_t* null_count) {
  *out = nullptr;
  *null_count = 0;
  const auto* bits =
      a->n_buffers > 0 ? static_cast<const uint8_t*>(a->buffers[0]) : nullptr;
  if (bits == nullptr) {
    if (a->null_count > 0) {
      return Status::Invalid("Arrow array has nulls but no validity buffer");
    }
    return Status::OK();
  }
  if (length == 0) return Status::OK();
  int64_t nulls;
  if (a->null_count >= 0 && start == a->offset && length == a->length) {
    nulls = a->null_count;
  } else if (start % 8 == 0) {
    nulls = length - bits::CountSet(bits + start / 8, length);
  } else {
    nulls = 0;
    for (int64_t i = 0; i < length; ++i) nulls += !bits::Get(bits, start + i);
  }
  if (nulls == 0) return Status::OK();
  *out = Bits(bits, start, length);
  *null_count = nulls;
  return Status::OK();
}

Result<BufferPtr> NodeImporter::Fixed(const ArrowArray* a, int64_t start, int64_t length,
                                      int width) {
  if (length == 0) return Buffer::Allocate(0);
  const auto* base = static_cast<const uint8_t*>(a->buffers[1]);
  if (base == nullptr) return Status::Invalid("Arrow array has no values buffer");
  const uint8_t* p = base + start * width;
  int64_t size = length * width;
  // Unaligned values (allowed by the spec, only recommended against) are copied so that
  // typed reads stay aligned.
  if (reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(width) != 0) {
    auto copy = Buffer::Allocate(size);
    std::memcpy(copy->mutable_data(), p, static_cast<size_t>(size));
    return copy;
  }
  return Wrap(p, size);
}

Result<BufferPtr> NodeImporter::Offsets(const ArrowArray* a, int64_t start,
                                        int64_t length, int32_t* first, int32_t* last) {
  const auto* o = static_cast<const int32_t*>(a->buffers[1]);
  if (o == nullptr) {
    if (length > 0) return Status::Invalid("Arrow array has no offsets buffer");
    *first = *last = 0;
    return Buffer::Allocate(4);
  }
  std::memcpy(first, o + start, sizeof(int32_t));
  std::memcpy(last, o + start + length, sizeof(int32_t));
  if (*first < 0 || *last < *first) return Status::Invalid("Arrow array has bad offsets");
  if (*first == 0 && reinterpret_cast<uintptr_t>(o) % 4 == 0) {
    return Wrap(o + start, (length + 1) * 4);
  }
  auto rebased = Buffer::Allocate((length + 1) * 4);
  int32_t* dst = rebased->mutable_data_as<int32_t>();
  for (int64_t i = 0; i <= length; ++i) {
    int32_t v;
    std::memcpy(&v, o + start + i, sizeof(v));
    dst[i] = v - *first;
  }
  return rebased;
}

int ExpectedBuffers(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return 0;
    case TypeId::kString:
    case TypeId::kBinary:
      return 3;
    case TypeId::kStruct:
      return 1;
    default:
      return 2;
  }
}

Result<ColumnPtr> NodeImporter::Import(const ArrowArray* a, const DataTypePtr& type,
                                       int64_t start, int64_t length) {
  if (a == nullptr) return Status::Invalid("Arrow array child is missing");
  if (a->dictionary != nullptr) {
    return Status::Unimplemented("dictionary-encoded Arrow arrays are not supported");
  }
  if (a->offset < 0 || a->length < 0 || start < a->offset || length < 0 ||
      start + length > a->offset + a->length) {
    return Status::Invalid(fmt::format(
        "Arrow array slice [{}, {}) is outside its buffers (offset {}, length {})", start,
        start + length, a->offset, a->length));
  }
  const TypeId id = type->id();
  if (id == TypeId::kNull) return Column::MakeNull(type, length);
  int expected = ExpectedBuffers(id);
  if (a->n_buffers != expected || a->buffers == nullptr) {
    return Status::Invalid(fmt::format("Arrow array of type {} needs {} buffers, has {}",
                                       type->SimpleString(), expected, a->n_buffers));
  }
  BufferPtr validity;
  int64_t null_count = 0;
  SPATE_RETURN_IF_ERROR(Validity(a, start, length, &validity, &null_count));

  auto child_at = [a](int64_t i, int64_t n) -> Result<const ArrowArray*> {
    if (a->n_children != n || a->children == nullptr || a->children[i] == nullptr) {
      return Status::Invalid(
          fmt::format("Arrow array needs {} children, has {}", n, a->n_children));
    }
    return a->children[i];
  };

  switch (id) {
    case TypeId::kBoolean: {
      BufferPtr values;
      if (length == 0) {
        values = Buffer::Allocate(0);
      } else if (a->buffers[1] == nullptr) {
        return Status::Invalid("Arrow array has no values buffer");
      } else {
        values = Bits(static_cast<const uint8_t*>(a->buffers[1]), start, length);
      }
      return std::make_shared<const Column>(type, length, null_count, validity, values);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      int32_t first;
      int32_t last;
      SPATE_ASSIGN_OR_RETURN(BufferPtr offsets, Offsets(a, start, length, &first, &last));
      const auto* bytes = static_cast<const uint8_t*>(a->buffers[2]);
      BufferPtr data;
      if (last == first) {
        data = Buffer::Allocate(0);
      } else if (bytes == nullptr) {
        return Status::Invalid("Arrow string array has no data buffer");
      } else {
        data = Wrap(bytes + first, last - first);
      }
      return std::make_shared<const Column>(type, length, null_count, validity, offsets,
                                            data);
    }
    case TypeId::kStruct: {
      const auto& fields = type->fields();
      std::vector<ColumnPtr> children;
      for (size_t f = 0; f < fields.size(); ++f) {
        SPATE_ASSIGN_OR_RETURN(
            const ArrowArray* child,
            child_at(static_cast<int64_t>(f), static_cast<int64_t>(fields.size())));
        // A struct's slot i is slot i of each child (the parent's offset applies too).
        SPATE_ASSIGN_OR_RETURN(ColumnPtr column, Import(child, fields[f].type,
                                                        child->offset + start, length));
        children.push_back(std::move(column));
      }
      return std::make_shared<const Column>(type, length, null_count, validity, nullptr,
                                            nullptr, std::move(children));
    }
    case TypeId::kArray:
    case TypeId::kMap: {
      int32_t first;
      int32_t last;
      SPATE_ASSIGN_OR_RETURN(BufferPtr offsets, Offsets(a, start, length, &first, &last));
      SPATE_ASSIGN_OR_RETURN(const ArrowArray* child, child_at(0, 1));
      DataTypePtr child_type =
          id == TypeId::kArray ? type->element_type() : MapEntryType(*type);
      SPATE_ASSIGN_OR_RETURN(
          ColumnPtr elements,
          Import(child, child_type, child->offset + first, last - first));
      return std::make_shared<const Column>(type, length, null_count, validity, offsets,
                                            nullptr,
                                            std::vector<ColumnPtr>{std::move(elements)});
    }
    default: {
      int width = type->ByteWidth();
      SPATE_ASSIGN_OR_RETURN(BufferPtr values, Fixed(a, start, length, width));
      return std::make_shared<const Column>(type, length, null_count, validity, values);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------

Status ExportType(const Field& field, ArrowSchema* out) {
  if (out == nullptr || field.type == nullptr)
    return Status::Invalid("ExportType: null argument");
  FillSchema(field.name, *field.type, field.nullable, out);
  return Status::OK();
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  if (out == nullptr) return Status::Invalid("ExportSchema: null argument");
  FillSchema("", *schema.AsStruct(), false, out);
  return Status::OK();
}

Status ExportColumn(const ColumnPtr& column, ArrowArray* out) {
  if (out == nullptr || column == nullptr)
    return Status::Invalid("ExportColumn: null argument");
  FillColumn(*column, out);
  return Status::OK();
}

Status ExportBatch(const BatchPtr& batch, ArrowArray* out_array,
                   ArrowSchema* out_schema) {
  if (out_array == nullptr || batch == nullptr)
    return Status::Invalid("ExportBatch: null argument");
  std::vector<const Column*> children;
  for (const ColumnPtr& c : batch->columns()) {
    if (c->length() != batch->num_rows()) {
      return Status::Invalid(
          fmt::format("ExportBatch: column of {} rows in a batch of {}", c->length(),
                      batch->num_rows()));
    }
    children.push_back(c.get());
  }
  if (out_schema != nullptr)
    SPATE_RETURN_IF_ERROR(ExportSchema(*batch->schema(), out_schema));
  FillArray(batch->num_rows(), 0, 1, {nullptr, nullptr, nullptr}, {true, false, false},
            children, out_array);
  return Status::OK();
}

Status ExportBatchStream(SchemaPtr schema, std::vector<BatchPtr> batches,
                         ArrowArrayStream* out) {
  if (out == nullptr || schema == nullptr)
    return Status::Invalid("ExportBatchStream: null argument");
  auto owned = std::make_unique<ExportedStream>();
  owned->schema = std::move(schema);
  owned->batches = std::move(batches);
  out->get_schema = &StreamGetSchema;
  out->get_next = &StreamGetNext;
  out->get_last_error = &StreamGetLastError;
  out->release = &StreamRelease;
  out->private_data = owned.release();
  return Status::OK();
}

Result<DataTypePtr> ImportType(const ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr || schema->format == nullptr) {
    return Status::Invalid("ImportType: missing or released ArrowSchema");
  }
  if (schema->dictionary != nullptr) {
    return Status::Unimplemented("dictionary-encoded Arrow arrays are not supported");
  }
  std::string_view f(schema->format);
  if (f.size() == 1) {
    switch (f[0]) {
      case 'n':
        return DataType::Null();
      case 'b':
        return DataType::Boolean();
      case 'c':
        return DataType::Byte();
      case 's':
        return DataType::Short();
      case 'i':
        return DataType::Int();
      case 'l':
        return DataType::Long();
      case 'f':
        return DataType::Float();
      case 'g':
        return DataType::Double();
      case 'u':
        return DataType::String();
      case 'z':
        return DataType::Binary();
      default:
        break;
    }
  }
  if (f == "tdD") return DataType::Date();
  if (f == "tDu") return DataType::DayTimeInterval();
  if (f == "tiM") return DataType::YearMonthInterval();
  if (f.substr(0, 4) == "tsu:") {
    return f.size() == 4 ? DataType::TimestampNtz() : DataType::Timestamp();
  }
  if (f.substr(0, 2) == "d:") return ParseDecimal(f.substr(2));
  if (f == "+s") {
    std::vector<Field> fields;
    SPATE_RETURN_IF_ERROR(CheckChildren(schema, schema->n_children));
    for (int64_t i = 0; i < schema->n_children; ++i) {
      SPATE_ASSIGN_OR_RETURN(Field field, ImportField(schema->children[i]));
      fields.push_back(std::move(field));
    }
    return DataType::Struct(std::move(fields));
  }
  if (f == "+l") {
    SPATE_RETURN_IF_ERROR(CheckChildren(schema, 1));
    SPATE_ASSIGN_OR_RETURN(Field element, ImportField(schema->children[0]));
    return DataType::Array(element.type, element.nullable);
  }
  if (f == "+m") {
    SPATE_RETURN_IF_ERROR(CheckChildren(schema, 1));
    const ArrowSchema* entries = schema->children[0];
    if (entries == nullptr || entries->format == nullptr ||
        std::string_view(entries->format) != "+s") {
      return Status::Invalid("Arrow map needs a struct child");
    }
    SPATE_RETURN_IF_ERROR(CheckChildren(entries, 2));
    SPATE_ASSIGN_OR_RETURN(Field key, ImportField(entries->children[0]));
    SPATE_ASSIGN_OR_RETURN(Field value, ImportField(entries->children[1]));
    return DataType::Map(key.type, value.type, value.nullable);
  }
  return Status::Unimplemented(fmt::format("Arrow format '{}' is not supported", f));
}

Result<Field> ImportField(const ArrowSchema* schema) {
  SPATE_ASSIGN_OR_RETURN(DataTypePtr type, ImportType(schema));
  return Field{schema->name != nullptr ? schema->name : "", std::move(type),
               (schema->flags & ARROW_FLAG_NULLABLE) != 0};
}

Result<ColumnPtr> ImportColumn(ArrowArray* array, const ArrowSchema* schema) {
  if (array == nullptr || array->release == nullptr) {
    return Status::Invalid("ImportColumn: missing or released ArrowArray");
  }
  auto holder = std::make_shared<ImportedArray>(array);
  SPATE_ASSIGN_OR_RETURN(DataTypePtr type, ImportType(schema));
  const ArrowArray* a = holder->array();
  NodeImporter importer(holder);
  return importer.Import(a, type, a->offset, a->length);
}

Result<BatchPtr> ImportBatch(ArrowArray* array, ArrowSchema* schema) {
  SchemaGuard owned_schema(schema);
  if (array == nullptr || array->release == nullptr) {
    return Status::Invalid("ImportBatch: missing or released ArrowArray");
  }
  auto holder = std::make_shared<ImportedArray>(array);
  SPATE_ASSIGN_OR_RETURN(DataTypePtr type, ImportType(owned_schema.get()));
  if (type->id() != TypeId::kStruct) {
    return Status::Invalid("ImportBatch: the array is not a struct (\"+s\")");
  }
  const ArrowArray* a = holder->array();
  const auto& fields = type->fields();
  if (a->n_children != static_cast<int64_t>(fields.size()) ||
      (a->n_children > 0 && a->children == nullptr)) {
    return Status::Invalid("ImportBatch: the array's children do not match its schema");
  }
  const auto* bits = a->n_buffers > 0 && a->buffers != nullptr
                         ? static_cast<const uint8_t*>(a->buffers[0])
                         : nullptr;
  if (bits != nullptr && a->null_count != 0) {
    for (int64_t i = 0; i < a->length; ++i) {
      if (!bits::Get(bits, a->offset + i)) {
        return Status::Invalid(
            "ImportBatch: a struct array with null rows is not a batch");
      }
    }
  }
  NodeImporter importer(holder);
  std::vector<ColumnPtr> columns;
  for (size_t f = 0; f < fields.size(); ++f) {
    const ArrowArray* child = a->children[f];
    if (child == nullptr) return Status::Invalid("ImportBatch: missing child array");
    SPATE_ASSIGN_OR_RETURN(
        ColumnPtr column,
        importer.Import(child, fields[f].type, child->offset + a->offset, a->length));
    columns.push_back(std::move(column));
  }
  return Batch::Make(std::make_shared<const Schema>(fields), std::move(columns),
                     a->length);
}

}  // namespace spate
