// Copyright spate authors.
#include "spate/formats/json/infer_schema.h"

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>
#include <unordered_map>

#include "spate/compute/decimal_text.h"
#include "spate/formats/json/json_text.h"

namespace spate::formats::json {

namespace od = simdjson::ondemand;

namespace {

constexpr int kMaxDepth = 1000;  // Jackson's default StreamReadConstraints nesting limit
// The stack the recursive walk may use below its root call: a document nested deeper than
// this fits is malformed even under kMaxDepth (threads have 8 MiB; sanitizer builds use
// several KiB per level).
constexpr std::ptrdiff_t kStackBudget = 6 << 20;

// A numeric (or any scalar) type as its id, precision and scale.
struct Scalar {
  TypeId id;
  int p = 0, s = 0;
};

Scalar AsDecimal(Scalar t) {
  switch (t.id) {
    case TypeId::kByte:
      return {TypeId::kDecimal, 3, 0};
    case TypeId::kShort:
      return {TypeId::kDecimal, 5, 0};
    case TypeId::kInt:
      return {TypeId::kDecimal, 10, 0};
    case TypeId::kLong:
      return {TypeId::kDecimal, 20, 0};
    default:
      return t;
  }
}

// compatibleType of two different numeric types: DOUBLE over anything floating, DECIMAL
// widening (integers as their DECIMAL; beyond 38 digits DOUBLE), else BIGINT.
Scalar MergeNumeric(Scalar a, Scalar b) {
  auto floating = [](TypeId id) { return id == TypeId::kFloat || id == TypeId::kDouble; };
  if (floating(a.id) || floating(b.id)) return {TypeId::kDouble};
  if (a.id == TypeId::kDecimal || b.id == TypeId::kDecimal) {
    Scalar x = AsDecimal(a), y = AsDecimal(b);
    int scale = std::max(x.s, y.s);
    int range = std::max(x.p - x.s, y.p - y.s);
    if (range + scale > 38) return {TypeId::kDouble};
    return {TypeId::kDecimal, range + scale, scale};
  }
  return {TypeId::kLong};
}

// The numeric types inference produces.
bool IsNumericId(TypeId id) {
  return id == TypeId::kLong || id == TypeId::kDouble || id == TypeId::kDecimal;
}

// Precision and scale of the BigDecimal Jackson reads from a JSON number text: precision
// = digits of the unscaled value (at least 1), scale = fraction digits - exponent.
bool ParseDecimalDigits(std::string_view raw, int* precision, int64_t* scale) {
  DecimalText d;
  if (!ParseBigDecimal(raw, &d)) return false;
  *precision = static_cast<int>(d.digits.size());
  *scale = -d.exponent;
  return true;
}

// The type of a number token (`raw`, trailing whitespace removed); false: malformed.
bool NumberType(std::string_view raw, bool is_integer, const JsonOptions& o,
                Scalar* out) {
  if (o.primitives_as_string) {
    *out = {TypeId::kString};
    return true;
  }
  if (is_integer) {
    // Up to 18 digits always fit a long (the common case, without a copy).
    if (!raw.empty() && raw.size() <= 18 && raw != "-") {
      bool digits = true;
      for (size_t i = raw[0] == '-' ? 1 : 0; i < raw.size(); ++i)
        digits &= raw[i] >= '0' && raw[i] <= '9';
      if (digits) {
        *out = {TypeId::kLong};
        return true;
      }
    }
    int p;
    int64_t s;
    if (!ParseDecimalDigits(raw, &p, &s)) return false;
    if (p <= 19) {
      // Fits a long? (19-digit values may not.)
      errno = 0;
      std::string text(raw);
      char* end;
      (void)std::strtoll(text.c_str(), &end, 10);
      if (errno == 0) {
        *out = {TypeId::kLong};
        return true;
      }
    }
    *out = p <= 38 ? Scalar{TypeId::kDecimal, p, 0} : Scalar{TypeId::kDouble};
    return true;
  }
  if (o.prefers_decimal) {
    // DecimalType(max(precision, scale), scale) of the BigDecimal; a negative scale (an
    // exponent: 1.5e3 is 15E+2) is NEGATIVE_SCALE_DISALLOWED, as in Spark 4 (the caller
    // reports it: out->s < 0).
    int p;
    int64_t s;
    if (ParseDecimalDigits(raw, &p, &s)) {
      const int64_t precision = std::max<int64_t>(p, s);
      if (precision <= 38) {
        *out = {TypeId::kDecimal, static_cast<int>(precision),
                static_cast<int>(std::max<int64_t>(s, -1000000))};
        return true;
      }
    }
  }
  *out = {TypeId::kDouble};
  return true;
}

std::string_view TrimTrailing(std::string_view raw) {
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' ||
                          raw.back() == '\t'))
    raw.remove_suffix(1);
  return raw;
}

// The text of a JSON string whose content starts at `p` (in a padded, structurally valid
// buffer) when it has no escapes; a null view when it has (it must be unescaped).
inline std::string_view PlainString(const char* p) {
  const char* q = p;
  while (*q != '"' && *q != '\\') ++q;
  return *q == '"' ? std::string_view(p, static_cast<size_t>(q - p)) : std::string_view();
}

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

// A type being inferred, updated in place: after observing values v1..vn it stands for
// MergeTypes(...MergeTypes(NULL, type(v1))..., type(vn)). A node that became STRING keeps
// its (ignored) children, so a rollback can restore it.
struct Acc {
  TypeId id = TypeId::kNull;
  int p = 0, s = 0;                            // DECIMAL precision and scale
  std::vector<std::string> names;              // STRUCT fields, first-seen order
  std::vector<std::unique_ptr<Acc>> children;  // parallel to names
  std::unique_ptr<std::unordered_map<std::string, int, NameHash, std::equal_to<>>> index;
  std::unique_ptr<Acc> elem;  // ARRAY element

  static constexpr size_t kIndexFrom = 16;  // wider structs look names up in a hash map
};

DataTypePtr ToType(Scalar t) {
  switch (t.id) {
    case TypeId::kNull:
      return DataType::Null();
    case TypeId::kBoolean:
      return DataType::Boolean();
    case TypeId::kLong:
      return DataType::Long();
    case TypeId::kDouble:
      return DataType::Double();
    case TypeId::kDecimal:
      return DataType::Decimal(t.p, t.s);
    default:
      return DataType::String();
  }
}

DataTypePtr ToDataType(const Acc& a) {
  switch (a.id) {
    case TypeId::kStruct: {
      std::vector<size_t> order(a.names.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        return JavaStringLess(a.names[x], a.names[y]);
      });
      std::vector<Field> fields;
      fields.reserve(order.size());
      for (size_t i : order)
        fields.push_back(Field{a.names[i], ToDataType(*a.children[i]), true});
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kArray:
      return DataType::Array(a.elem ? ToDataType(*a.elem) : DataType::Null());
    default:
      return ToType({a.id, a.p, a.s});
  }
}

// Folds JSON values into Acc trees with simdjson's On-Demand API, validating every value
// as it goes. With a journal, each change is recorded so that Rollback() undoes a record.
class Observer {
 public:
  explicit Observer(const JsonOptions& o) : o_(o) {}

  void set_journal(bool on) { journal_on_ = on; }
  /// An error that fails the inference whatever the mode (NEGATIVE_SCALE_DISALLOWED).
  const Status& fatal() const { return fatal_; }
  void Commit() { journal_.clear(); }
  void Rollback() {
    for (size_t i = journal_.size(); i-- > 0;) {
      const Undo& u = journal_[i];
      if (u.added_field) {
        Acc* a = u.node;
        if (a->index) a->index->erase(a->names.back());
        a->names.pop_back();
        a->children.pop_back();
      } else {
        u.node->id = u.id;
        u.node->p = u.p;
        u.node->s = u.s;
      }
    }
    journal_.clear();
  }

  /// Parses `text` (copied with padding); false on a syntax error.
  bool Iterate(std::string_view text, od::document* doc) {
    padded_.assign(text.data(), text.size());
    padded_.append(simdjson::SIMDJSON_PADDING, ' ');
    return !parser_.iterate(padded_.data(), text.size(), padded_.size()).get(*doc);
  }
  /// Parses the last text again.
  bool Reiterate(od::document* doc) {
    return !parser_
                .iterate(padded_.data(), padded_.size() - simdjson::SIMDJSON_PADDING,
                         padded_.size())
                .get(*doc);
  }

  /// Observes the root value of `doc` (of type `jt`) into `a`; false: malformed.
  bool Root(Acc* a, od::document& doc, od::json_type jt) {
    char here = 0;
    stack_base_ = &here;
    switch (jt) {
      case od::json_type::object:
      case od::json_type::array: {
        od::value v;
        if (doc.get_value().get(v)) return false;
        return Value(a, v, 0);
      }
      default:
        return ObserveScalar(a, doc, jt);
    }
  }

  /// Observes `v` into `a` (nullptr: validate only).
  bool Value(Acc* a, od::value v, int depth) {
    if (depth > kMaxDepth) return false;
    char here = 0;
    if (stack_base_ && stack_base_ - &here > kStackBudget) return false;
    od::json_type t;
    if (v.type().get(t)) return false;
    switch (t) {
      case od::json_type::object: {
        od::object obj;
        if (v.get_object().get(obj)) return false;
        Acc* target = Become(a, TypeId::kStruct);
        size_t hint = 0;
        for (auto fr : obj) {
          od::field f;
          if (std::move(fr).get(f)) return false;
          std::string_view key = PlainString(f.key().raw());
          if (!key.data() && f.unescaped_key().get(key)) return false;
          Acc* child = target ? FieldOf(target, key, &hint) : nullptr;
          if (!Value(child, f.value(), depth + 1)) return false;
        }
        return true;
      }
      case od::json_type::array: {
        od::array arr;
        if (v.get_array().get(arr)) return false;
        Acc* target = Become(a, TypeId::kArray);
        Acc* elem = nullptr;
        if (target) {
          if (!target->elem) target->elem = std::make_unique<Acc>();
          elem = target->elem.get();
        }
        for (auto er : arr) {
          od::value e;
          // simdjson_result::get is rvalue-qualified.
          if (std::move(er).get(e)) return false;  // NOLINT(performance-move-const-arg)
          if (!Value(elem, e, depth + 1)) return false;
        }
        return true;
      }
      default:
        return ObserveScalar(a, v, t);
    }
  }

  /// Observes a scalar (of type `t`) of a document or a value into `a`.
  template <class V>
  bool ObserveScalar(Acc* a, V& v, od::json_type t) {
    switch (t) {
      case od::json_type::string: {
        // A string without escapes is valid as it stands (stage 1 checked its UTF-8).
        std::string_view raw, s;
        if (simdjson::simdjson_result<std::string_view>(v.raw_json_token()).get(raw))
          return false;
        if (raw.empty() || !PlainString(raw.data() + 1).data()) {
          if (v.get_string().get(s)) return false;
        }
        MergeScalar(a, {TypeId::kString});
        return true;
      }
      case od::json_type::boolean: {
        bool b;
        if (v.get_bool().get(b)) return false;
        MergeScalar(a, {o_.primitives_as_string ? TypeId::kString : TypeId::kBoolean});
        return true;
      }
      case od::json_type::null: {
        bool n;
        return !v.is_null().get(n) && n;
      }
      case od::json_type::number: {
        std::string_view raw;
        if (simdjson::simdjson_result<std::string_view>(v.raw_json_token()).get(raw))
          return false;
        raw = TrimTrailing(raw);
        bool is_int = true;
        for (char c : raw) is_int &= c != '.' && c != 'e' && c != 'E';
        double d;
        if (!is_int && v.get_double().get(d)) return false;
        Scalar st;
        if (!NumberType(raw, is_int, o_, &st)) return false;
        if (st.s < 0) {
          if (fatal_.ok()) {
            fatal_ = Status::Error(
                "NEGATIVE_SCALE_DISALLOWED",
                {{"scale", std::to_string(st.s)},
                 {"sqlConf", "\"spark.sql.legacy.allowNegativeScaleOfDecimal\""}});
          }
          return false;
        }
        MergeScalar(a, st);
        return true;
      }
      default:
        return false;
    }
  }

 private:
  struct Undo {
    Acc* node;
    TypeId id;
    int p, s;
    bool added_field;
  };

  void Set(Acc* a, Scalar t) {
    if (journal_on_) journal_.push_back(Undo{a, a->id, a->p, a->s, false});
    a->id = t.id;
    a->p = t.p;
    a->s = t.s;
  }

  // MergeTypes(a, t) for a scalar t, in place.
  __attribute__((always_inline)) void MergeScalar(Acc* a, Scalar t) {
    if (!a || a->id == TypeId::kString) return;
    if (a->id == t.id && (t.id != TypeId::kDecimal || (a->p == t.p && a->s == t.s)))
      return;
    MergeScalarSlow(a, t);
  }
  void MergeScalarSlow(Acc* a, Scalar t) {
    if (a->id == TypeId::kNull) return Set(a, t);
    if (IsNumericId(a->id) && IsNumericId(t.id))
      return Set(a, MergeNumeric({a->id, a->p, a->s}, t));
    Set(a, {TypeId::kString});
  }

  // MergeTypes(a, <a STRUCT or ARRAY>): the node to fold the children into, or nullptr
  // when a is (or becomes) STRING.
  Acc* Become(Acc* a, TypeId nested) {
    if (!a || a->id == TypeId::kString) return nullptr;
    if (a->id == nested) return a;
    if (a->id == TypeId::kNull) {
      Set(a, {nested});
      return a;
    }
    Set(a, {TypeId::kString});
    return nullptr;
  }

  // The child for `key` (added when new). Records usually list fields in the same order,
  // so the field after the previous match is tried first.
  Acc* FieldOf(Acc* a, std::string_view key, size_t* hint) {
    const size_t n = a->names.size();
    if (*hint < n && a->names[*hint] == key) return a->children[(*hint)++].get();
    size_t found = n;
    if (a->index) {
      auto it = a->index->find(key);
      if (it != a->index->end()) found = static_cast<size_t>(it->second);
    } else {
      for (size_t i = 0; i < n; ++i) {
        if (a->names[i] == key) {
          found = i;
          break;
        }
      }
    }
    if (found == n) {
      a->names.emplace_back(key);
      a->children.push_back(std::make_unique<Acc>());
      if (a->index) {
        a->index->emplace(a->names.back(), static_cast<int>(n));
      } else if (a->names.size() >= Acc::kIndexFrom) {
        a->index = std::make_unique<
            std::unordered_map<std::string, int, NameHash, std::equal_to<>>>();
        for (size_t i = 0; i < a->names.size(); ++i)
          a->index->emplace(a->names[i], static_cast<int>(i));
      }
      if (journal_on_) journal_.push_back(Undo{a, TypeId::kNull, 0, 0, true});
    }
    *hint = found + 1;
    return a->children[found].get();
  }

  const JsonOptions& o_;
  od::parser parser_;
  std::string padded_;
  bool journal_on_ = false;
  const char* stack_base_ = nullptr;  // the root call's frame (see kStackBudget)
  std::vector<Undo> journal_;
  Status fatal_;
};

bool IsBlankText(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

DataTypePtr Canonicalize(const DataTypePtr& t) {
  switch (t->id()) {
    case TypeId::kNull:
      return DataType::String();
    case TypeId::kArray:
      return DataType::Array(Canonicalize(t->element_type()));
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const auto& f : t->fields())
        fields.push_back(Field{f.name, Canonicalize(f.type), true});
      return DataType::Struct(std::move(fields));
    }
    default:
      return t;
  }
}

// Spark's JsonInferSchema.canonicalizeType for the reader: NULL-only types become STRING
// (or are dropped with dropFieldIfAllNull), arrays of dropped elements are dropped, and
// structs left without fields are dropped (SPARK-8093). nullptr = dropped.
DataTypePtr CanonicalizeForReader(const DataTypePtr& t, bool drop_all_null) {
  switch (t->id()) {
    case TypeId::kNull:
      return drop_all_null ? nullptr : DataType::String();
    case TypeId::kArray: {
      DataTypePtr e = CanonicalizeForReader(t->element_type(), drop_all_null);
      return e ? DataType::Array(e) : nullptr;
    }
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const auto& f : t->fields()) {
        if (f.name.empty()) continue;
        DataTypePtr ft = CanonicalizeForReader(f.type, drop_all_null);
        if (ft) fields.push_back(Field{f.name, ft, true});
      }
      return fields.empty() ? nullptr : DataType::Struct(std::move(fields));
    }
    default:
      return t;
  }
}

Status MalformedError(std::string_view text) {
  return Status::Error("MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                       {{"badRecord", std::string(text)}, {"failFastMode", "FAILFAST"}});
}

struct JavaLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return JavaStringLess(a, b);
  }
};

}  // namespace

bool JavaStringLess(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  if (i == n) return a.size() < b.size();
  // Back up to the start of the character holding the first difference.
  size_t j = i;
  while (j > 0 && (static_cast<unsigned char>(a[j]) & 0xC0) == 0x80) --j;
  auto decode = [](std::string_view s, size_t at, uint32_t* cp) {
    const auto c = static_cast<unsigned char>(s[at]);
    int len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (len == 0 || at + static_cast<size_t>(len) > s.size()) return false;
    uint32_t v = len == 1 ? c : c & (0xFF >> (len + 1));
    for (int k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[at + static_cast<size_t>(k)]);
      if ((d & 0xC0) != 0x80) return false;
      v = (v << 6) | (d & 0x3F);
    }
    *cp = v;
    return true;
  };
  uint32_t x, y;
  if (!decode(a, j, &x) || !decode(b, j, &y)) {
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  // The first UTF-16 code unit (a high surrogate beyond U+FFFF), then the code point.
  auto unit = [](uint32_t cp) {
    return cp >= 0x10000 ? 0xD800 + ((cp - 0x10000) >> 10) : cp;
  };
  if (unit(x) != unit(y)) return unit(x) < unit(y);
  return x < y;
}

DataTypePtr MergeTypes(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->Equals(*b)) return a;
  if (a->id() == TypeId::kNull) return b;
  if (b->id() == TypeId::kNull) return a;
  if (a->IsNumeric() && b->IsNumeric()) {
    return ToType(MergeNumeric({a->id(), a->precision(), a->scale()},
                               {b->id(), b->precision(), b->scale()}));
  }
  if (a->id() == TypeId::kStruct && b->id() == TypeId::kStruct) {
    std::map<std::string, DataTypePtr, JavaLess> fields;
    for (const auto& f : a->fields()) fields[f.name] = f.type;
    for (const auto& f : b->fields()) {
      auto it = fields.find(f.name);
      if (it == fields.end()) {
        fields[f.name] = f.type;
      } else {
        it->second = MergeTypes(it->second, f.type);
      }
    }
    std::vector<Field> out;
    for (auto& [k, t] : fields) out.push_back(Field{k, t, true});
    return DataType::Struct(std::move(out));
  }
  if (a->id() == TypeId::kArray && b->id() == TypeId::kArray) {
    return DataType::Array(MergeTypes(a->element_type(), b->element_type()));
  }
  return DataType::String();
}

struct JsonSchemaInferrer::Impl {
  explicit Impl(JsonOptions o) : options(std::move(o)), observer(options) {
    root.id = TypeId::kStruct;
    observer.set_journal(true);
  }
  JsonOptions options;
  Observer observer;
  Acc root;            // the records' STRUCT
  DataTypePtr merged;  // what Merge() brought in (nullptr: nothing)
  bool corrupt = false;
  std::string lenient;

  enum class Outcome { kRow, kSkip, kNotStruct, kMalformed };

  // Folds the text's root into `root` when it is an object or an array of objects.
  Outcome Attempt(std::string_view text) {
    od::document doc;
    if (!observer.Iterate(text, &doc)) return Outcome::kMalformed;
    od::json_type jt;
    if (doc.type().get(jt)) return Outcome::kMalformed;
    if (jt == od::json_type::object) {
      return observer.Root(&root, doc, jt) ? Outcome::kRow : Outcome::kMalformed;
    }
    if (jt == od::json_type::null) {
      bool n;
      return !doc.is_null().get(n) && n ? Outcome::kSkip : Outcome::kMalformed;
    }
    // Other roots are inferred on their own first: an array counts when its elements
    // merge to a STRUCT (or NULL: an empty array adds nothing).
    Acc own;
    observer.set_journal(false);
    const bool ok = observer.Root(&own, doc, jt);
    observer.set_journal(true);
    if (!ok) return Outcome::kMalformed;
    if (own.id != TypeId::kArray ||
        (own.elem && own.elem->id != TypeId::kNull && own.elem->id != TypeId::kStruct))
      return Outcome::kNotStruct;
    // Fold the elements (objects and nulls) into the root: parse the same text again.
    if (!observer.Reiterate(&doc)) return Outcome::kMalformed;
    od::array arr;
    if (doc.get_array().get(arr)) return Outcome::kMalformed;
    for (auto er : arr) {
      od::value e;
      // simdjson_result::get is rvalue-qualified.
      if (std::move(er).get(e)) {  // NOLINT(performance-move-const-arg)
        return Outcome::kMalformed;
      }
      od::json_type et;
      if (e.type().get(et)) return Outcome::kMalformed;
      if (et == od::json_type::null) continue;
      if (!observer.Value(&root, e, 1)) return Outcome::kMalformed;
    }
    return Outcome::kRow;
  }

  Status Add(std::string_view text) {
    if (IsBlankText(text)) return Status::OK();
    Outcome out = Attempt(text);
    if (out == Outcome::kMalformed) {
      observer.Rollback();
      if (RewriteLenient(text, options, &lenient)) {
        out = Attempt(lenient);
        if (out == Outcome::kMalformed) observer.Rollback();
      }
    }
    observer.Commit();
    if (!observer.fatal().ok()) return observer.fatal();
    if (out == Outcome::kRow || out == Outcome::kSkip) return Status::OK();
    switch (options.mode) {
      case ParseMode::kDropMalformed:
        return Status::OK();
      case ParseMode::kFailFast:
        return MalformedError(text);
      case ParseMode::kPermissive:
        corrupt = true;
        return Status::OK();
    }
    return Status::OK();
  }

  DataTypePtr RootType() const {
    DataTypePtr t = ToDataType(root);
    return merged ? MergeTypes(t, merged) : t;
  }
};

JsonSchemaInferrer::JsonSchemaInferrer(JsonOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
JsonSchemaInferrer::~JsonSchemaInferrer() = default;

Status JsonSchemaInferrer::Add(std::string_view text) { return impl_->Add(text); }

void JsonSchemaInferrer::Merge(const JsonSchemaInferrer& other) {
  DataTypePtr t = other.impl_->RootType();
  impl_->merged = impl_->merged ? MergeTypes(impl_->merged, t) : t;
  impl_->corrupt |= other.impl_->corrupt;
}

DataTypePtr JsonSchemaInferrer::Finish() const {
  const JsonOptions& o = impl_->options;
  DataTypePtr merged = impl_->RootType();
  if (impl_->corrupt && merged->FieldIndex(o.column_name_of_corrupt_record, true) < 0) {
    merged = MergeTypes(merged, DataType::Struct({Field{o.column_name_of_corrupt_record,
                                                        DataType::String(), true}}));
  }
  DataTypePtr out = CanonicalizeForReader(merged, o.drop_field_if_all_null);
  return out ? out : DataType::Struct({});
}

Result<DataTypePtr> InferType(std::string_view text, const JsonOptions& options) {
  if (IsBlankText(text)) return DataType::String();
  Observer observer(options);
  auto attempt = [&](std::string_view t, Acc* a) {
    od::document doc;
    if (!observer.Iterate(t, &doc)) return false;
    od::json_type jt;
    if (doc.type().get(jt)) return false;
    return observer.Root(a, doc, jt);
  };
  Acc a;
  if (!attempt(text, &a)) {
    if (!observer.fatal().ok()) return observer.fatal();
    std::string lenient;
    Acc b;
    if (!RewriteLenient(text, options, &lenient) || !attempt(lenient, &b)) {
      return observer.fatal().ok() ? MalformedError(text) : observer.fatal();
    }
    return Canonicalize(ToDataType(b));
  }
  return Canonicalize(ToDataType(a));
}

Result<DataTypePtr> InferSchema(const std::vector<std::string_view>& texts,
                                const JsonOptions& options) {
  JsonSchemaInferrer inferrer(options);
  for (std::string_view text : texts) SPATE_RETURN_IF_ERROR(inferrer.Add(text));
  return inferrer.Finish();
}

}  // namespace spate::formats::json
