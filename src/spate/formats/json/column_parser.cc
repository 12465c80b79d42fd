// Copyright spate authors.
#include "spate/formats/json/column_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "spate/compute/bound_expr.h"
#include "spate/compute/cast.h"
#include "spate/compute/datetime_format.h"
#include "spate/formats/json/json_text.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate::formats::json {

namespace {

// Result of converting one JSON value into a node.
enum class Outcome : uint8_t {
  kOk,       // one entry appended
  kPartial,  // one entry appended, but something inside it was bad
  kFail,     // nothing appended: the value cannot convert (caller stores NULL)
  kSyntax,   // nothing appended: the text is not valid JSON
};

// Why a record is bad, for FAILFAST messages.
enum class BadKind : uint8_t { kOther, kArraysAsStructs, kStringAsType };

// Column storage of one node of the target type. Integral, date, timestamp and interval
// values are kept as int64 and narrowed at Finish(); float/double as double.
struct Node {
  DataTypePtr type;
  TypeId id;
  int64_t length = 0;
  // Validity, one byte per entry; kept only from the first NULL on (while every entry is
  // valid, `valid` stays empty and an append stores nothing for it).
  std::vector<uint8_t> valid;
  bool any_null = false;
  std::vector<int64_t> i64;
  std::vector<double> f64;
  std::vector<__int128> i128;
  std::vector<uint8_t> bools;
  std::vector<int32_t> offsets{0};  // string bytes / array elements / map entries
  std::string bytes;
  std::vector<std::unique_ptr<Node>>
      children;  // struct fields; array element; map key, value
  // Struct field lookup.
  std::vector<std::string> names;
  // Per field: the name has no '"', '\\' or control character (a raw key equal to its
  // bytes then '"' is that name), and its first (up to) 8 bytes as a little-endian word.
  std::vector<uint8_t> plain_name;
  std::vector<uint64_t> name_prefix;
  // Field order prediction: next_field[k] is the field that followed field k in the last
  // record (next_field[number of fields]: the first field), tried before any search.
  std::vector<int> next_field;
  bool all_plain = true;   // every name is plain (see plain_name)
  int corrupt_index = -1;  // root struct: the corrupt-record field, filled by the parser

  // A struct's children may be shorter than the struct: their missing entries up to the
  // struct's length are NULL (a field absent from a record costs nothing until the
  // field's next value, or Finish, pads the gap at once with PadTo).
  bool IsValid(int64_t i) const { return !any_null || valid[i] != 0; }
  void PushValid() {
    if (any_null) valid.push_back(1);
    ++length;
  }
  void AppendNullValue() {
    if (!any_null) {
      any_null = true;
      valid.assign(static_cast<size_t>(length), 1);
    }
    valid.push_back(0);
    ++length;
    switch (id) {
      case TypeId::kBoolean:
        bools.push_back(0);
        break;
      case TypeId::kFloat:
      case TypeId::kDouble:
        f64.push_back(0);
        break;
      case TypeId::kDecimal:
        i128.push_back(0);
        break;
      case TypeId::kString:
      case TypeId::kBinary:
        offsets.push_back(static_cast<int32_t>(bytes.size()));
        break;
      case TypeId::kArray:
      case TypeId::kMap:
        offsets.push_back(offsets.back());
        break;
      case TypeId::kStruct:  // (the children's entries are implied NULLs)
      case TypeId::kNull:
        break;
      default:
        i64.push_back(0);
        break;
    }
  }
  // Appends NULL entries up to `len` entries (none when already that long).
  void PadTo(int64_t len) {
    if (len <= length) return;
    if (!any_null) {
      any_null = true;
      valid.assign(static_cast<size_t>(length), 1);
    }
    valid.resize(static_cast<size_t>(len), 0);
    const auto n = static_cast<size_t>(len);
    switch (id) {
      case TypeId::kBoolean:
        bools.resize(n, 0);
        break;
      case TypeId::kFloat:
      case TypeId::kDouble:
        f64.resize(n, 0);
        break;
      case TypeId::kDecimal:
        i128.resize(n, 0);
        break;
      case TypeId::kString:
      case TypeId::kBinary:
      case TypeId::kArray:
      case TypeId::kMap:
        offsets.resize(n + 1, offsets.back());
        break;
      case TypeId::kStruct:  // (the children's entries are implied NULLs)
      case TypeId::kNull:
        break;
      default:
        i64.resize(n, 0);
        break;
    }
    length = len;
  }
  // Makes the node `len` entries long: drops entries past it or pads NULLs up to it.
  void SetLength(int64_t len) {
    if (len < length) {
      Truncate(len);
    } else {
      PadTo(len);
    }
  }
  void AppendString(std::string_view s) {
    bytes.append(s.data(), s.size());
    offsets.push_back(static_cast<int32_t>(bytes.size()));
    PushValid();
  }
  // Empties the node and its children, keeping their capacity for the next batch.
  void Clear() {
    length = 0;
    valid.clear();
    any_null = false;
    i64.clear();
    f64.clear();
    i128.clear();
    bools.clear();
    offsets.assign(1, 0);
    bytes.clear();
    for (auto& c : children) c->Clear();
  }
  // Drops entries from `len` on (and their children's entries).
  void Truncate(int64_t len) {
    if (len >= length) return;
    if (any_null) valid.resize(len);
    switch (id) {
      case TypeId::kBoolean:
        bools.resize(len);
        break;
      case TypeId::kFloat:
      case TypeId::kDouble:
        f64.resize(len);
        break;
      case TypeId::kDecimal:
        i128.resize(len);
        break;
      case TypeId::kString:
      case TypeId::kBinary:
        offsets.resize(len + 1);
        bytes.resize(offsets.back());
        break;
      case TypeId::kArray:
      case TypeId::kMap:
        offsets.resize(len + 1);
        for (auto& c : children) c->Truncate(offsets.back());
        break;
      case TypeId::kStruct:
        for (auto& c : children) c->Truncate(len);
        break;
      case TypeId::kNull:
        break;
      default:
        i64.resize(len);
        break;
    }
    length = len;
  }
};

std::unique_ptr<Node> MakeNode(const DataTypePtr& type) {
  auto n = std::make_unique<Node>();
  n->type = type;
  n->id = type->id();
  switch (n->id) {
    case TypeId::kStruct:
      for (const auto& f : type->fields()) {
        n->names.push_back(f.name);
        bool plain = true;
        for (unsigned char c : f.name) plain &= c != '"' && c != '\\' && c >= 0x20;
        n->plain_name.push_back(plain);
        n->all_plain &= plain;
        uint64_t prefix = 0;
        std::memcpy(&prefix, f.name.data(), std::min<size_t>(8, f.name.size()));
        n->name_prefix.push_back(prefix);
        n->children.push_back(MakeNode(f.type));
      }
      for (size_t k = 0; k <= type->fields().size(); ++k)
        n->next_field.push_back(k == type->fields().size() ? 0 : static_cast<int>(k) + 1);
      break;
    case TypeId::kArray:
      n->children.push_back(MakeNode(type->element_type()));
      break;
    case TypeId::kMap:
      n->children.push_back(MakeNode(type->key_type()));
      n->children.push_back(MakeNode(type->value_type()));
      break;
    default:
      break;
  }
  return n;
}

BufferPtr ValidityOf(const Node& n, int64_t* nulls) {
  *nulls = 0;
  if (!n.any_null) return nullptr;
  const int64_t count = std::count(n.valid.begin(), n.valid.end(), uint8_t{0});
  *nulls = count;
  if (count == 0) return nullptr;
  BufferPtr b = Buffer::Allocate(bits::BytesFor(n.length));
  uint8_t* bits = b->mutable_data();
  const uint8_t* v = n.valid.data();
  int64_t i = 0;
  for (; i + 8 <= n.length; i += 8) {
    uint8_t byte = 0;
    for (int k = 0; k < 8; ++k) byte |= static_cast<uint8_t>((v[i + k] != 0) << k);
    bits[i >> 3] = byte;
  }
  for (; i < n.length; ++i) {
    if (v[i]) bits::Set(bits, i);
  }
  return b;
}

template <typename T, typename S>
BufferPtr CopyValues(const std::vector<S>& v) {
  BufferPtr b = Buffer::AllocateUninitialized(
      static_cast<int64_t>(std::max<size_t>(v.size(), 1) * sizeof(T)));
  T* out = b->mutable_data_as<T>();
  if constexpr (std::is_same_v<T, S>) {
    if (!v.empty()) std::memcpy(out, v.data(), v.size() * sizeof(T));
  } else {
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(v[i]);
  }
  b->set_size(static_cast<int64_t>(v.size() * sizeof(T)));
  return b;
}

ColumnPtr FinishNode(Node& n) {
  int64_t nulls = 0;
  BufferPtr validity = ValidityOf(n, &nulls);
  int64_t len = n.length;
  ColumnPtr out;
  switch (n.id) {
    case TypeId::kNull:
      out = Column::MakeNull(n.type, len);
      break;
    case TypeId::kBoolean: {
      BufferPtr b = Buffer::Allocate(std::max<int64_t>(bits::BytesFor(len), 1));
      std::memset(b->mutable_data(), 0, static_cast<size_t>(b->size()));
      for (int64_t i = 0; i < len; ++i) {
        if (n.bools[i]) bits::Set(b->mutable_data(), i);
      }
      out = std::make_shared<const Column>(n.type, len, nulls, validity, b);
      break;
    }
    case TypeId::kByte:
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<int8_t>(n.i64));
      break;
    case TypeId::kShort:
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<int16_t>(n.i64));
      break;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<int32_t>(n.i64));
      break;
    case TypeId::kFloat:
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<float>(n.f64));
      break;
    case TypeId::kDouble:
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<double>(n.f64));
      break;
    case TypeId::kDecimal:
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<__int128>(n.i128));
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      BufferPtr data = Buffer::AllocateUninitialized(
          std::max<int64_t>(static_cast<int64_t>(n.bytes.size()), 1));
      std::memcpy(data->mutable_data(), n.bytes.data(), n.bytes.size());
      data->set_size(static_cast<int64_t>(n.bytes.size()));
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<int32_t>(n.offsets), data);
      break;
    }
    case TypeId::kStruct: {
      std::vector<ColumnPtr> kids;
      for (auto& c : n.children) {
        c->PadTo(len);  // the entries of records without the field
        kids.push_back(FinishNode(*c));
      }
      out = std::make_shared<const Column>(n.type, len, nulls, validity, nullptr, nullptr,
                                           std::move(kids));
      break;
    }
    case TypeId::kArray: {
      ColumnPtr child = FinishNode(*n.children[0]);
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<int32_t>(n.offsets), nullptr,
                                           std::vector<ColumnPtr>{child});
      break;
    }
    case TypeId::kMap: {
      ColumnPtr k = FinishNode(*n.children[0]);
      ColumnPtr v = FinishNode(*n.children[1]);
      auto entry_type = DataType::Struct({Field{"key", n.type->key_type(), false},
                                          Field{"value", n.type->value_type(), true}});
      auto entries =
          std::make_shared<const Column>(entry_type, k->length(), 0, nullptr, nullptr,
                                         nullptr, std::vector<ColumnPtr>{k, v});
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<int32_t>(n.offsets), nullptr,
                                           std::vector<ColumnPtr>{entries});
      break;
    }
    default:
      out = std::make_shared<const Column>(n.type, len, nulls, validity,
                                           CopyValues<int64_t>(n.i64));
      break;
  }
  n.Clear();
  return out;
}

// Spark's Row.toString of entry i of a node, for FAILFAST messages ("[1,null]").
void RenderEntry(const Node& n, int64_t i, std::string* out) {
  if (i < 0 || i >= n.length || !n.IsValid(i)) {
    *out += "null";
    return;
  }
  switch (n.id) {
    case TypeId::kBoolean:
      *out += n.bools[i] ? "true" : "false";
      break;
    case TypeId::kFloat:
      *out += FormatFloat(static_cast<float>(n.f64[i]));
      break;
    case TypeId::kDouble:
      *out += FormatDouble(n.f64[i]);
      break;
    case TypeId::kDecimal:
      *out += FormatDecimal(n.i128[i], n.type->scale());
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      out->append(n.bytes, n.offsets[i], n.offsets[i + 1] - n.offsets[i]);
      break;
    case TypeId::kStruct:
      *out += "[";
      for (size_t k = 0; k < n.children.size(); ++k) {
        if (k) *out += ",";
        RenderEntry(*n.children[k], i, out);
      }
      *out += "]";
      break;
    case TypeId::kArray:
    case TypeId::kMap:
      *out += n.id == TypeId::kArray ? "ArrayData" : "MapData";
      break;
    default:
      *out += std::to_string(n.i64[i]);
      break;
  }
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Spark's JSON type names of Jackson tokens, for messages.

int Base64Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Jackson's getBinaryValue (MIME-no-linefeeds base64; padding optional at the end).
bool DecodeBase64(std::string_view s, std::string* out) {
  out->clear();
  uint32_t acc = 0;
  int bits_count = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '=') break;
    int v = Base64Value(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits_count += 6;
    if (bits_count >= 8) {
      bits_count -= 8;
      out->push_back(static_cast<char>((acc >> bits_count) & 0xff));
    }
  }
  for (; i < s.size(); ++i) {
    if (s[i] != '=') return false;
  }
  return true;
}

}  // namespace

// Parses a decimal number text (JSON number or a string as BigDecimal reads it) into an
// unscaled value of `scale`, rounding half-up; false if not a number or if it needs more
// than `precision` digits.
bool ParseDecimalText(std::string_view s, int precision, int scale, __int128* out) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  // Collect significant digits (up to 40) and the decimal exponent.
  char digits[80];
  int nd = 0;
  int64_t exp10 = 0;  // value = digits * 10^exp10
  bool any = false, dot = false;
  int dropped_nonzero = 0;  // digits beyond our buffer (only matter for rounding)
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (nd == 0 && c == '0') {
        if (dot) --exp10;
        continue;
      }
      if (nd < 76) {
        digits[nd++] = c;
        if (dot) --exp10;
      } else {
        if (!dot) ++exp10;
        if (c != '0') dropped_nonzero = 1;
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    int64_t e = 0;
    bool edigits = false;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      edigits = true;
      if (e < 100000) e = e * 10 + (s[i] - '0');
    }
    if (!edigits) return false;
    exp10 += eneg ? -e : e;
  }
  if (i != s.size()) return false;
  // Shift to the target scale: unscaled = digits * 10^(exp10 + scale).
  int64_t shift = exp10 + scale;
  int keep = nd;
  bool round_up = false;
  if (shift < 0) {
    int64_t drop = -shift;
    if (drop > nd) {
      keep = 0;
      round_up = false;  // |value| < 0.1 ulp of the scale
      if (drop == nd + 0) round_up = nd > 0 && digits[0] >= '5';
    } else {
      keep = nd - static_cast<int>(drop);
      round_up = digits[keep] >= '5';
    }
    shift = 0;
  }
  (void)dropped_nonzero;
  if (keep + shift > precision + 1) return false;
  __int128 v = 0;
  for (int k = 0; k < keep; ++k) v = v * 10 + (digits[k] - '0');
  for (int64_t k = 0; k < shift; ++k) v *= 10;
  if (round_up) v += 1;
  __int128 limit = 1;
  for (int k = 0; k < precision; ++k) limit *= 10;
  if (v >= limit) return false;
  *out = neg ? -v : v;
  return true;
}

// Parses one record into the root node; one implementation per simdjson backend.
struct RecordConverter {
  virtual ~RecordConverter() = default;
  // `readable_after`: see JsonColumnParser::Append.
  virtual Outcome ParseRecord(std::string_view text, int64_t* rows,
                              size_t readable_after) = 0;
};

struct JsonColumnParser::Impl {
  std::unique_ptr<RecordConverter> converter;
  DataTypePtr schema;
  JsonOptions options;
  bool allow_array_as_structs = false;
  std::unique_ptr<Node> root;
  // The current record has a top-level field the schema does not name (or names the
  // corrupt-record column with), or a value that did not convert (Append's `unmatched`).
  bool record_unmatched = false;
  std::string padded;   // the record copied with SIMDJSON_PADDING bytes after it
  std::string lenient;  // a record rewritten into strict JSON
  std::string scratch;
  EvalContext eval;
  const TimeZone* zone = nullptr;
  std::optional<DateTimePattern> date_pattern, timestamp_pattern, timestamp_ntz_pattern;
  // The first failure of the current record.
  BadKind bad_kind = BadKind::kOther;
  std::string bad_field, bad_value;
  DataTypePtr bad_type;
  bool recorded_failure = false;

  void NoteFailure(BadKind kind, std::string_view field, std::string_view value,
                   const DataTypePtr& t) {
    if (recorded_failure) return;
    recorded_failure = true;
    bad_kind = kind;
    bad_field.assign(field);
    bad_value.assign(value);
    bad_type = t;
  }

  Status AppendRecord(std::string_view text, int64_t* rows_out, size_t readable_after) {
    *rows_out = 0;
    record_unmatched = false;
    if (IsBlank(text)) return Status::OK();
    recorded_failure = false;
    Node& r = *root;
    int64_t start = r.length;
    int64_t rows = 0;
    Outcome out = converter->ParseRecord(text, &rows, readable_after);
    if (out == Outcome::kSyntax) {
      // Jackson's leniency (single quotes, NaN tokens, comments...) by rewriting.
      r.Truncate(start);
      if (RewriteLenient(text, options, &lenient)) {
        recorded_failure = false;
        out = converter->ParseRecord(lenient, &rows, 0);
        if (out == Outcome::kSyntax) r.Truncate(start);
      }
    }
    if (out == Outcome::kPartial) record_unmatched = true;
    if (out == Outcome::kOk ||
        (out == Outcome::kPartial && options.bad_values_are_rescued)) {
      // (The corrupt-record column gets no value from a record: its entries stay NULL.)
      *rows_out = rows;
      return Status::OK();
    }
    // A bad record.
    bool has_partial = out == Outcome::kPartial;
    if (!has_partial) {
      r.Truncate(start);
    }
    if (options.mode == ParseMode::kDropMalformed) {
      r.Truncate(start);
      return Status::OK();
    }
    if (!has_partial) {
      r.AppendNullValue();
      if (r.id == TypeId::kStruct) {
        // PERMISSIVE: a row whose fields are all NULL (the struct itself is not NULL).
        r.valid.back() = 1;  // (AppendNullValue started `valid`)
      }
      rows = 1;
    }
    if (r.corrupt_index >= 0) {
      Node& c = *r.children[r.corrupt_index];
      for (int64_t i = 0; i < rows; ++i) {
        c.SetLength(start + i);
        c.AppendString(text);
      }
    }
    if (options.mode == ParseMode::kFailFast) {
      std::string record(text);
      if (recorded_failure && bad_kind == BadKind::kArraysAsStructs) {
        r.Truncate(start);
        return Status::Error(
            "MALFORMED_RECORD_IN_PARSING.CANNOT_PARSE_JSON_ARRAYS_AS_STRUCTS",
            {{"badRecord", record}, {"failFastMode", "FAILFAST"}});
      }
      if (recorded_failure && bad_kind == BadKind::kStringAsType) {
        r.Truncate(start);
        return Status::Error(
            "MALFORMED_RECORD_IN_PARSING.CANNOT_PARSE_STRING_AS_DATATYPE",
            {{"badRecord", record},
             {"failFastMode", "FAILFAST"},
             {"fieldName", "`" + bad_field + "`"},
             {"fieldValue", "'" + bad_value + "'"},
             {"inputType", "\"STRING\""},
             {"targetType", "\"" + bad_type->Sql() + "\""}});
      }
      std::string row_text;
      if (r.id == TypeId::kStruct) {
        RenderEntry(r, start, &row_text);
      } else {
        row_text = "[";
        RenderEntry(r, start, &row_text);
        row_text += "]";
      }
      r.Truncate(start);
      return Status::Error("MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                           {{"badRecord", row_text}, {"failFastMode", "FAILFAST"}});
    }
    *rows_out = rows;
    return Status::OK();
  }
};

namespace od = simdjson::ondemand;
#include "spate/formats/json/column_parser_impl.inc"

std::unique_ptr<RecordConverter> MakeRecordConverter(JsonColumnParser::Impl& impl) {
  return std::make_unique<OdConverter>(impl);
}

Result<std::unique_ptr<JsonColumnParser>> JsonColumnParser::Make(
    DataTypePtr schema, JsonOptions options, bool allow_array_as_structs) {
  TypeId id = schema->id();
  if (id != TypeId::kStruct && id != TypeId::kArray && id != TypeId::kMap) {
    return Status::Error(
        "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA",
        {{"sqlExpr", "\"from_json\""}, {"schema", "\"" + schema->Sql() + "\""}});
  }
  auto impl = std::make_unique<Impl>();
  impl->schema = std::move(schema);
  impl->allow_array_as_structs = allow_array_as_structs;
  impl->root = MakeNode(impl->schema);
  if (id == TypeId::kStruct) {
    int idx = impl->schema->FieldIndex(options.column_name_of_corrupt_record,
                                       /*case_sensitive=*/true);
    if (idx >= 0) {
      const Field& f = impl->schema->fields()[idx];
      if (f.type->id() != TypeId::kString || !f.nullable) {
        return Status::Error("INVALID_CORRUPT_RECORD_TYPE",
                             {{"columnName", "`" + f.name + "`"},
                              {"actualType", "\"" + f.type->Sql() + "\""}});
      }
      impl->root->corrupt_index = idx;
    }
  }
  impl->eval.time_zone_id = options.time_zone_id;
  impl->eval.time_zone = TimeZone::Lookup(options.time_zone_id);
  impl->zone = impl->eval.time_zone;
  if (!options.date_format.empty()) {
    SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(options.date_format));
    impl->date_pattern = std::move(p);
  }
  if (!options.timestamp_format.empty()) {
    SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(options.timestamp_format));
    impl->timestamp_pattern = std::move(p);
  }
  if (!options.timestamp_ntz_format.empty()) {
    SPATE_ASSIGN_OR_RETURN(auto p,
                           DateTimePattern::Compile(options.timestamp_ntz_format));
    impl->timestamp_ntz_pattern = std::move(p);
  }
  impl->options = std::move(options);
  impl->converter = MakeRecordConverter(*impl);
  return std::unique_ptr<JsonColumnParser>(new JsonColumnParser(std::move(impl)));
}

JsonColumnParser::JsonColumnParser(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JsonColumnParser::~JsonColumnParser() = default;

Status JsonColumnParser::Append(std::string_view text, int64_t* rows_appended,
                                bool* unmatched, size_t readable_after) {
  int64_t rows = 0;
  Status st = impl_->AppendRecord(text, &rows, readable_after);
  if (rows_appended) *rows_appended = rows;
  if (unmatched) *unmatched = impl_->record_unmatched;
  return st;
}

void JsonColumnParser::AppendNull() { impl_->root->AppendNullValue(); }

int64_t JsonColumnParser::num_rows() const { return impl_->root->length; }

ColumnPtr JsonColumnParser::Finish() { return FinishNode(*impl_->root); }

Result<ColumnPtr> JsonColumnParser::ParseStrings(const Column& strings) {
  int64_t n = strings.length();
  for (int64_t i = 0; i < n; ++i) {
    if (strings.IsNull(i)) {
      AppendNull();
      continue;
    }
    int64_t rows = 0;
    SPATE_RETURN_IF_ERROR(Append(strings.GetView(i), &rows));
    if (rows == 0) AppendNull();
  }
  return Finish();
}

}  // namespace spate::formats::json
