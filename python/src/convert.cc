// Copyright spate authors.
#include "convert.h"

#include <date/date.h>
#include <datetime.h>

#include <cmath>
#include <limits>
#include <string>

namespace spate::python {

namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

py::module_& TypesModule() {
  static py::module_* mod = new py::module_(py::module_::import("spate.sql.types"));
  return *mod;
}

void EnsureDateTimeApi() {
  if (PyDateTimeAPI == nullptr) {
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == nullptr) throw py::error_already_set();
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

py::object DateFromDays(int64_t days) {
  date::year_month_day ymd{date::sys_days{date::days{days}}};
  PyObject* o =
      PyDate_FromDate(static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                      static_cast<unsigned>(ymd.day()));
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

py::object DateTimeFromLocalMicros(int64_t local) {
  int64_t days = FloorDiv(local, kMicrosPerDay);
  int64_t rem = local - days * kMicrosPerDay;
  date::year_month_day ymd{date::sys_days{date::days{days}}};
  int64_t secs = rem / kMicrosPerSecond;
  PyObject* o = PyDateTime_FromDateAndTime(
      static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
      static_cast<unsigned>(ymd.day()), static_cast<int>(secs / 3600),
      static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60),
      static_cast<int>(rem % kMicrosPerSecond));
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

int64_t DaysFromPyDate(py::handle obj) {
  date::year_month_day ymd{
      date::year{PyDateTime_GET_YEAR(obj.ptr())},
      date::month{static_cast<unsigned>(PyDateTime_GET_MONTH(obj.ptr()))},
      date::day{static_cast<unsigned>(PyDateTime_GET_DAY(obj.ptr()))}};
  return date::sys_days{ymd}.time_since_epoch().count();
}

// Wall-clock micros of a datetime (or midnight of a date).
int64_t LocalMicrosFromPy(py::handle obj) {
  int64_t micros = DaysFromPyDate(obj) * kMicrosPerDay;
  if (PyDateTime_Check(obj.ptr())) {
    micros += (PyDateTime_DATE_GET_HOUR(obj.ptr()) * 3600LL +
               PyDateTime_DATE_GET_MINUTE(obj.ptr()) * 60LL +
               PyDateTime_DATE_GET_SECOND(obj.ptr())) *
                  kMicrosPerSecond +
              PyDateTime_DATE_GET_MICROSECOND(obj.ptr());
  }
  return micros;
}

int64_t MicrosFromTimedelta(py::handle obj) {
  return PyDateTime_DELTA_GET_DAYS(obj.ptr()) * kMicrosPerDay +
         PyDateTime_DELTA_GET_SECONDS(obj.ptr()) * kMicrosPerSecond +
         PyDateTime_DELTA_GET_MICROSECONDS(obj.ptr());
}

std::string TypeRepr(const DataTypePtr& type) {
  return py::repr(TypeToPy(type)).cast<std::string>();
}

// Raises spate.errors.<cls> (PySpark's error classes for client-side conversion errors).
[[noreturn]] void RaisePySpark(
    const char* cls, const std::string& error_class,
    const std::vector<std::pair<std::string, std::string>>& params,
    const std::string& message) {
  py::object type = py::module_::import("spate.errors").attr(cls);
  py::dict p;
  for (const auto& [k, v] : params) p[py::str(k)] = v;
  py::object inst = type("[" + error_class + "] " + message, error_class, py::none(), p);
  PyErr_SetObject(type.ptr(), inst.ptr());
  throw py::error_already_set();
}

[[noreturn]] void CannotAccept(py::handle obj, const DataTypePtr& type,
                               const std::string& where) {
  std::string t = TypeRepr(type);
  std::string o = py::str(obj).cast<std::string>();
  std::string ot = py::type::of(obj).attr("__name__").cast<std::string>();
  if (!where.empty()) {
    RaisePySpark(
        "PySparkTypeError", "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME",
        {{"field_name", where}, {"data_type", t}, {"obj", o}, {"obj_type", ot}},
        where + ": " + t + " can not accept object " + o + " in type " + ot + ".");
  }
  RaisePySpark("PySparkTypeError", "CANNOT_ACCEPT_OBJECT_IN_TYPE",
               {{"data_type", t}, {"obj_name", o}, {"obj_type", ot}},
               "`" + t + "` can not accept object `" + o + "` in type `" + ot + "`.");
}

[[noreturn]] void NotNullable(const std::string& where) {
  RaisePySpark("PySparkValueError", "FIELD_NOT_NULLABLE_WITH_NAME",
               {{"field_name", where}},
               where + ": This field is not nullable, but got None.");
}

int128_t Int128FromPyInt(py::handle obj) {
  std::string s = py::str(obj).cast<std::string>();
  bool neg = !s.empty() && s[0] == '-';
  int128_t v = 0;
  for (size_t i = neg ? 1 : 0; i < s.size(); ++i) v = v * 10 + (s[i] - '0');
  return neg ? -v : v;
}

int DecimalDigits(int128_t v) {
  if (v < 0) v = -v;
  int d = 0;
  while (v != 0) {
    v /= 10;
    ++d;
  }
  return d;
}

bool IsInt(py::handle obj) { return PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr()); }

int64_t CheckedLong(py::handle obj, int64_t lo, int64_t hi, const DataTypePtr& type,
                    const std::string& where) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || v < lo || v > hi) {
    std::string actual = py::str(obj).cast<std::string>();
    RaisePySpark("PySparkValueError", "VALUE_OUT_OF_BOUND",
                 {{"arg_name", "obj"},
                  {"lower_bound", std::to_string(lo)},
                  {"upper_bound", std::to_string(hi)},
                  {"actual", actual}},
                 "Value for `obj` must be greater than " + std::to_string(lo) +
                     " or less than " + std::to_string(hi) + ", got " + actual);
  }
  return v;
}

}  // namespace

// ---- types
// ---------------------------------------------------------------------------------

py::object TypeToPy(const DataTypePtr& type) {
  py::module_& T = TypesModule();
  switch (type->id()) {
    case TypeId::kNull:
      return T.attr("NullType")();
    case TypeId::kBoolean:
      return T.attr("BooleanType")();
    case TypeId::kByte:
      return T.attr("ByteType")();
    case TypeId::kShort:
      return T.attr("ShortType")();
    case TypeId::kInt:
      return T.attr("IntegerType")();
    case TypeId::kLong:
      return T.attr("LongType")();
    case TypeId::kFloat:
      return T.attr("FloatType")();
    case TypeId::kDouble:
      return T.attr("DoubleType")();
    case TypeId::kDecimal:
      return T.attr("DecimalType")(type->precision(), type->scale());
    case TypeId::kString:
      return T.attr("StringType")();
    case TypeId::kBinary:
      return T.attr("BinaryType")();
    case TypeId::kDate:
      return T.attr("DateType")();
    case TypeId::kTimestamp:
      return T.attr("TimestampType")();
    case TypeId::kTimestampNtz:
      return T.attr("TimestampNTZType")();
    case TypeId::kDayTimeInterval:
      return T.attr("DayTimeIntervalType")(static_cast<int>(type->start_field()) - 2,
                                           static_cast<int>(type->end_field()) - 2);
    case TypeId::kYearMonthInterval:
      return T.attr("YearMonthIntervalType")(static_cast<int>(type->start_field()),
                                             static_cast<int>(type->end_field()));
    case TypeId::kArray:
      return T.attr("ArrayType")(TypeToPy(type->element_type()), type->contains_null());
    case TypeId::kMap:
      return T.attr("MapType")(TypeToPy(type->key_type()), TypeToPy(type->value_type()),
                               type->value_contains_null());
    case TypeId::kStruct:
      return SchemaToPy(type->fields());
  }
  throw py::type_error("unsupported data type " + type->SimpleString());
}

py::object SchemaToPy(const std::vector<Field>& fields) {
  py::module_& T = TypesModule();
  py::list out;
  py::object sf = T.attr("StructField");
  for (const Field& f : fields) out.append(sf(f.name, TypeToPy(f.type), f.nullable));
  return T.attr("StructType")(out);
}

DataTypePtr TypeFromPy(py::handle t) {
  if (py::isinstance<py::str>(t)) {
    return TypeFromPy(TypesModule().attr("_parse_datatype_string")(t));
  }
  if (!py::hasattr(t, "typeName")) {
    throw py::type_error("expected a DataType, got " + py::repr(t).cast<std::string>());
  }
  std::string name = t.attr("typeName")().cast<std::string>();
  if (name == "void" || name == "null") return DataType::Null();
  if (name == "boolean") return DataType::Boolean();
  if (name == "byte") return DataType::Byte();
  if (name == "short") return DataType::Short();
  if (name == "integer") return DataType::Int();
  if (name == "long") return DataType::Long();
  if (name == "float") return DataType::Float();
  if (name == "double") return DataType::Double();
  if (name == "decimal") {
    return DataType::Decimal(t.attr("precision").cast<int>(),
                             t.attr("scale").cast<int>());
  }
  if (name == "string" || name == "char" || name == "varchar") return DataType::String();
  if (name == "binary") return DataType::Binary();
  if (name == "date") return DataType::Date();
  if (name == "timestamp") return DataType::Timestamp();
  if (name == "timestamp_ntz") return DataType::TimestampNtz();
  if (name == "daytimeinterval") {
    return DataType::DayTimeInterval(
        static_cast<IntervalField>(t.attr("startField").cast<int>() + 2),
        static_cast<IntervalField>(t.attr("endField").cast<int>() + 2));
  }
  if (name == "yearmonthinterval") {
    return DataType::YearMonthInterval(
        static_cast<IntervalField>(t.attr("startField").cast<int>()),
        static_cast<IntervalField>(t.attr("endField").cast<int>()));
  }
  if (name == "array") {
    return DataType::Array(TypeFromPy(t.attr("elementType")),
                           t.attr("containsNull").cast<bool>());
  }
  if (name == "map") {
    return DataType::Map(TypeFromPy(t.attr("keyType")), TypeFromPy(t.attr("valueType")),
                         t.attr("valueContainsNull").cast<bool>());
  }
  if (name == "struct") {
    std::vector<Field> fields;
    for (py::handle f : t.attr("fields")) {
      fields.push_back(Field{f.attr("name").cast<std::string>(),
                             TypeFromPy(f.attr("dataType")),
                             f.attr("nullable").cast<bool>(), ""});
    }
    return DataType::Struct(std::move(fields));
  }
  throw py::type_error("unsupported data type " + py::repr(t).cast<std::string>());
}

// ---- values
// --------------------------------------------------------------------------------

py::object ValueToPy(const Value& v, const TimeZone& tz) {
  if (v.is_null()) return py::none();
  EnsureDateTimeApi();
  const DataTypePtr& t = v.type();
  switch (t->id()) {
    case TypeId::kNull:
      return py::none();
    case TypeId::kBoolean:
      return py::bool_(v.i64() != 0);
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kYearMonthInterval:
      return py::int_(v.i64());
    case TypeId::kFloat:
    case TypeId::kDouble:
      return py::float_(v.f64());
    case TypeId::kDecimal: {
      static py::object* decimal =
          new py::object(py::module_::import("decimal").attr("Decimal"));
      return (*decimal)(v.ToString());
    }
    case TypeId::kString: {
      PyObject* o = PyUnicode_DecodeUTF8(
          v.str().data(), static_cast<Py_ssize_t>(v.str().size()), "replace");
      if (o == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(o);
    }
    case TypeId::kBinary: {
      PyObject* o = PyByteArray_FromStringAndSize(
          v.str().data(), static_cast<Py_ssize_t>(v.str().size()));
      if (o == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(o);
    }
    case TypeId::kDate:
      return DateFromDays(v.i64());
    case TypeId::kTimestamp:
      return DateTimeFromLocalMicros(v.i64() +
                                     tz.OffsetSeconds(v.i64()) * kMicrosPerSecond);
    case TypeId::kTimestampNtz:
      return DateTimeFromLocalMicros(v.i64());
    case TypeId::kDayTimeInterval: {
      int64_t days = FloorDiv(v.i64(), kMicrosPerDay);
      int64_t rem = v.i64() - days * kMicrosPerDay;
      PyObject* o = PyDelta_FromDSU(static_cast<int>(days),
                                    static_cast<int>(rem / kMicrosPerSecond),
                                    static_cast<int>(rem % kMicrosPerSecond));
      if (o == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(o);
    }
    case TypeId::kArray: {
      py::list out(v.items().size());
      for (size_t i = 0; i < v.items().size(); ++i) out[i] = ValueToPy(v.items()[i], tz);
      return out;
    }
    case TypeId::kMap: {
      py::dict out;
      for (size_t i = 0; i < v.items().size(); ++i)
        out[ValueToPy(v.items()[i], tz)] = ValueToPy(v.values()[i], tz);
      return out;
    }
    case TypeId::kStruct: {
      py::list names;
      for (const Field& f : t->fields()) names.append(f.name);
      py::list values;
      for (const Value& item : v.items()) values.append(ValueToPy(item, tz));
      return TypesModule().attr("_create_row")(names, values);
    }
  }
  throw py::type_error("unsupported value type " + t->SimpleString());
}

py::list RowsToPy(const std::vector<api::Row>& rows, const std::vector<Field>& fields,
                  const TimeZone& tz) {
  py::list names;
  for (const Field& f : fields) names.append(f.name);
  py::object create = TypesModule().attr("_create_row");
  py::list out(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& vals = rows[r].values();
    py::list values(vals.size());
    for (size_t c = 0; c < vals.size(); ++c) values[c] = ValueToPy(vals[c], tz);
    out[r] = create(names, values);
  }
  return out;
}

namespace {

// New references to the Python values of every row of `col`, appended to `out`.
void ColumnToPy(const Column& col, const TimeZone& tz, std::vector<PyObject*>& out) {
  const int64_t n = col.length();
  auto emit = [&](int64_t i, auto&& make) {
    if (col.IsNull(i)) {
      Py_INCREF(Py_None);
      out.push_back(Py_None);
    } else {
      PyObject* o = make(i);
      if (o == nullptr) throw py::error_already_set();
      out.push_back(o);
    }
  };
  switch (col.type_id()) {
    case TypeId::kBoolean:
      for (int64_t i = 0; i < n; ++i)
        emit(i, [&](int64_t k) { return PyBool_FromLong(col.GetBool(k)); });
      return;
    case TypeId::kByte: {
      const int8_t* v = col.raw_values<int8_t>();
      for (int64_t i = 0; i < n; ++i)
        emit(i, [&](int64_t k) { return PyLong_FromLong(v[k]); });
      return;
    }
    case TypeId::kShort: {
      const int16_t* v = col.raw_values<int16_t>();
      for (int64_t i = 0; i < n; ++i)
        emit(i, [&](int64_t k) { return PyLong_FromLong(v[k]); });
      return;
    }
    case TypeId::kInt: {
      const int32_t* v = col.raw_values<int32_t>();
      for (int64_t i = 0; i < n; ++i)
        emit(i, [&](int64_t k) { return PyLong_FromLong(v[k]); });
      return;
    }
    case TypeId::kLong: {
      const int64_t* v = col.raw_values<int64_t>();
      for (int64_t i = 0; i < n; ++i)
        emit(i, [&](int64_t k) { return PyLong_FromLongLong(v[k]); });
      return;
    }
    case TypeId::kFloat: {
      const float* v = col.raw_values<float>();
      for (int64_t i = 0; i < n; ++i)
        emit(i, [&](int64_t k) { return PyFloat_FromDouble(v[k]); });
      return;
    }
    case TypeId::kDouble: {
      const double* v = col.raw_values<double>();
      for (int64_t i = 0; i < n; ++i)
        emit(i, [&](int64_t k) { return PyFloat_FromDouble(v[k]); });
      return;
    }
    case TypeId::kString:
      for (int64_t i = 0; i < n; ++i) {
        emit(i, [&](int64_t k) {
          std::string_view sv = col.GetView(k);
          return PyUnicode_DecodeUTF8(sv.data(), static_cast<Py_ssize_t>(sv.size()),
                                      "replace");
        });
      }
      return;
    default:
      for (int64_t i = 0; i < n; ++i)
        out.push_back(ValueToPy(col.GetValue(i), tz).release().ptr());
      return;
  }
}

}  // namespace

py::list BatchesToPy(const std::vector<BatchPtr>& batches,
                     const std::vector<Field>& fields, const TimeZone& tz) {
  py::list names;
  for (const Field& f : fields) names.append(f.name);
  py::object cls = TypesModule().attr("_row_class")(py::tuple(names));
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  int64_t total = 0;
  for (const auto& b : batches) total += b->num_rows();
  py::list out(static_cast<size_t>(total));
  const size_t ncols = fields.size();
  int64_t row = 0;
  std::vector<std::vector<PyObject*>> cols(ncols);
  for (const auto& b : batches) {
    const int64_t n = b->num_rows();
    for (size_t c = 0; c < ncols; ++c) {
      cols[c].clear();
      cols[c].reserve(static_cast<size_t>(n));
      try {
        ColumnToPy(*b->column(static_cast<int>(c)), tz, cols[c]);
      } catch (...) {
        for (size_t k = 0; k <= c; ++k) {
          for (PyObject* o : cols[k]) Py_DECREF(o);
          cols[k].clear();
        }
        throw;
      }
    }
    for (int64_t r = 0; r < n; ++r) {
      PyObject* values = PyTuple_New(static_cast<Py_ssize_t>(ncols));
      if (values == nullptr) throw py::error_already_set();
      for (size_t c = 0; c < ncols; ++c)
        PyTuple_SET_ITEM(values, c, cols[c][r]);  // steals
      py::tuple args = py::make_tuple(py::reinterpret_steal<py::object>(values));
      // tuple.__new__(RowClass, values): a tuple subclass instance, without Python code.
      PyObject* obj = PyTuple_Type.tp_new(type, args.ptr(), nullptr);
      if (obj == nullptr) throw py::error_already_set();
      PyList_SET_ITEM(out.ptr(), row++, obj);
    }
  }
  return out;
}

Value ValueFromPy(py::handle obj, const DataTypePtr& type, const TimeZone& tz,
                  const std::string& where) {
  if (obj.is_none()) return Value::Null(type);
  EnsureDateTimeApi();
  switch (type->id()) {
    case TypeId::kNull:
      CannotAccept(obj, type, where);
    case TypeId::kBoolean:
      if (!PyBool_Check(obj.ptr())) CannotAccept(obj, type, where);
      return Value::Boolean(obj.ptr() == Py_True);
    case TypeId::kByte:
      if (!IsInt(obj)) CannotAccept(obj, type, where);
      return Value::Byte(static_cast<int8_t>(CheckedLong(obj, -128, 127, type, where)));
    case TypeId::kShort:
      if (!IsInt(obj)) CannotAccept(obj, type, where);
      return Value::Short(
          static_cast<int16_t>(CheckedLong(obj, -32768, 32767, type, where)));
    case TypeId::kInt:
      if (!IsInt(obj)) CannotAccept(obj, type, where);
      return Value::Int(static_cast<int32_t>(
          CheckedLong(obj, std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int32_t>::max(), type, where)));
    case TypeId::kLong:
      if (!IsInt(obj)) CannotAccept(obj, type, where);
      return Value::Long(CheckedLong(obj, std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max(), type, where));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      if (!PyFloat_Check(obj.ptr()) && !IsInt(obj)) CannotAccept(obj, type, where);
      double d = PyFloat_AsDouble(obj.ptr());
      if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
      return type->id() == TypeId::kFloat ? Value::Float(static_cast<float>(d))
                                          : Value::Double(d);
    }
    case TypeId::kDecimal: {
      static py::object* decimal =
          new py::object(py::module_::import("decimal").attr("Decimal"));
      if (!IsInt(obj) && !py::isinstance(obj, *decimal)) CannotAccept(obj, type, where);
      py::object unscaled = TypesModule().attr("_decimal_unscaled")(obj, type->scale());
      if (unscaled.is_none()) CannotAccept(obj, type, where);
      int128_t u = Int128FromPyInt(unscaled);
      std::string digits = py::str(unscaled).cast<std::string>();
      if (digits.size() - (digits[0] == '-') > static_cast<size_t>(type->precision()) ||
          DecimalDigits(u) > type->precision()) {
        RaisePySpark("PySparkValueError", "VALUE_OUT_OF_BOUND",
                     {{"arg_name", "obj"}, {"actual", py::str(obj).cast<std::string>()}},
                     "Value " + py::str(obj).cast<std::string>() + " does not fit in " +
                         TypeRepr(type));
      }
      return Value::Decimal(u, type->precision(), type->scale());
    }
    case TypeId::kString:
      if (!py::isinstance<py::str>(obj)) CannotAccept(obj, type, where);
      return Value::String(obj.cast<std::string>());
    case TypeId::kBinary: {
      if (PyBytes_Check(obj.ptr()))
        return Value::Binary(
            std::string(PyBytes_AS_STRING(obj.ptr()), PyBytes_GET_SIZE(obj.ptr())));
      if (PyByteArray_Check(obj.ptr())) {
        return Value::Binary(std::string(PyByteArray_AS_STRING(obj.ptr()),
                                         PyByteArray_GET_SIZE(obj.ptr())));
      }
      if (PyMemoryView_Check(obj.ptr()))
        return Value::Binary(
            py::bytes(py::reinterpret_borrow<py::object>(obj)).cast<std::string>());
      CannotAccept(obj, type, where);
    }
    case TypeId::kDate:
      if (!PyDate_Check(obj.ptr())) CannotAccept(obj, type, where);
      return Value::Date(static_cast<int32_t>(DaysFromPyDate(obj)));
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      if (!PyDate_Check(obj.ptr())) CannotAccept(obj, type, where);
      int64_t local = LocalMicrosFromPy(obj);
      if (type->id() == TypeId::kTimestampNtz) return Value::TimestampNtz(local);
      py::object offset =
          PyDateTime_Check(obj.ptr()) ? obj.attr("utcoffset")() : py::none();
      if (!offset.is_none()) return Value::Timestamp(local - MicrosFromTimedelta(offset));
      return Value::Timestamp(tz.LocalToUtcMicros(local));
    }
    case TypeId::kDayTimeInterval:
      if (!PyDelta_Check(obj.ptr())) CannotAccept(obj, type, where);
      return Value::FromI64(type, MicrosFromTimedelta(obj));
    case TypeId::kYearMonthInterval:
      if (!IsInt(obj)) CannotAccept(obj, type, where);
      return Value::FromI64(
          type, CheckedLong(obj, std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max(), type, where));
    case TypeId::kArray: {
      if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj))
        CannotAccept(obj, type, where);
      std::vector<Value> items;
      for (py::handle item : obj) {
        if (item.is_none() && !type->contains_null()) {
          NotNullable(where);
        }
        items.push_back(ValueFromPy(item, type->element_type(), tz, where));
      }
      return Value::ArrayOf(type, std::move(items));
    }
    case TypeId::kMap: {
      if (!py::isinstance<py::dict>(obj)) CannotAccept(obj, type, where);
      std::vector<Value> keys, values;
      for (auto kv : py::reinterpret_borrow<py::dict>(obj)) {
        if (kv.first.is_none())
          throw py::value_error("field " + where + ": map keys can not be None");
        keys.push_back(ValueFromPy(kv.first, type->key_type(), tz, where));
        values.push_back(ValueFromPy(kv.second, type->value_type(), tz, where));
      }
      return Value::Map(type, std::move(keys), std::move(values));
    }
    case TypeId::kStruct: {
      const auto& fields = type->fields();
      std::vector<Value> items;
      if (py::isinstance<py::dict>(obj)) {
        py::dict d = py::reinterpret_borrow<py::dict>(obj);
        for (const Field& f : fields) {
          py::object item = d.contains(f.name)
                                ? py::reinterpret_borrow<py::object>(d[py::str(f.name)])
                                : py::none();
          items.push_back(ValueFromPy(item, f.type, tz, f.name));
        }
      } else if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
        py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
        if (seq.size() != fields.size()) {
          throw py::value_error("Length of object (" + std::to_string(seq.size()) +
                                ") does not match with length of fields (" +
                                std::to_string(fields.size()) + ")");
        }
        for (size_t i = 0; i < fields.size(); ++i)
          items.push_back(ValueFromPy(seq[i], fields[i].type, tz, fields[i].name));
      } else {
        CannotAccept(obj, type, where);
      }
      for (size_t i = 0; i < fields.size(); ++i) {
        if (items[i].is_null() && !fields[i].nullable) {
          NotNullable(fields[i].name);
        }
      }
      return Value::Struct(type, std::move(items));
    }
  }
  CannotAccept(obj, type, where);
}

}  // namespace spate::python
