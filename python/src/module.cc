// Copyright spate authors.
//
// spate._spate: the pybind11 bindings of the C++ API (spate::api). The PySpark-shaped
// surface lives in the pure-Python package spate.sql, which wraps these native objects
// (as PySpark wraps JVM objects): DataFrame, Column, GroupedData, WindowSpec,
// SparkSession.
//
// The GIL is released while the engine executes (collect, count, show, ...). C++
// exceptions (spate::api::SparkException and subclasses) become the matching spate.errors
// classes, carrying the error class, SQLSTATE and message parameters.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "convert.h"

#include "spate/api/delta_table.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/session_state.h"
#include "spate/columnar/arrow_c.h"
#include "spate/columnar/builder.h"
#include "spate/compute/function_registry.h"
#include "spate/sql/parser.h"
#include "spate/types/timezone.h"

namespace spate::python {
namespace {

using Column = api::Column;
using api::DataFrame;
using api::GroupedData;
using api::SparkSession;
using api::WindowSpec;
namespace F = api::functions;

TimeZone SessionZone(const std::shared_ptr<api::SessionState>& s) {
  auto tz = TimeZone::Find(s->conf.session_time_zone());
  return tz.ok() ? *tz : TimeZone();
}

void RaiseSpark(const char* cls_name, const api::SparkException& e) {
  py::object errors = py::module_::import("spate.errors");
  py::object cls = errors.attr(cls_name);
  py::dict params;
  for (const auto& [k, v] : e.getMessageParameters()) params[py::str(k)] = v;
  py::object inst = cls(e.what(), e.getErrorClass(), e.getSqlState(), params);
  PyErr_SetObject(cls.ptr(), inst.ptr());
}

// By value: pybind11's translator type.
// NOLINTNEXTLINE(performance-unnecessary-value-param)
void TranslateException(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const api::ParseException& e) {
    RaiseSpark("ParseException", e);
  } catch (const api::AnalysisException& e) {
    RaiseSpark("AnalysisException", e);
  } catch (const api::ArithmeticException& e) {
    RaiseSpark("ArithmeticException", e);
  } catch (const api::NumberFormatException& e) {
    RaiseSpark("NumberFormatException", e);
  } catch (const api::DateTimeException& e) {
    RaiseSpark("DateTimeException", e);
  } catch (const api::IllegalArgumentException& e) {
    RaiseSpark("IllegalArgumentException", e);
  } catch (const api::UnsupportedOperationException& e) {
    RaiseSpark("UnsupportedOperationException", e);
  } catch (const api::SparkRuntimeException& e) {
    RaiseSpark("SparkRuntimeException", e);
  } catch (const api::ArrayIndexOutOfBoundsException& e) {
    RaiseSpark("ArrayIndexOutOfBoundsException", e);
  } catch (const api::StreamingQueryException& e) {
    RaiseSpark("StreamingQueryException", e);
  } catch (const api::SparkException& e) {
    RaiseSpark(
        e.getErrorClass() == "FAILED_EXECUTE_UDF" ? "PythonException" : "SparkException",
        e);
  }
}

// A Python literal (None, bool, int, float, str, bytes, Decimal, date, datetime,
// timedelta, list, dict, Row) of an explicit type as a literal Column. Naive datetimes
// are wall-clock times in the zone `tz_id`.
Column Lit(py::handle value, py::handle type, const std::string& tz_id) {
  DataTypePtr t = TypeFromPy(type);
  return F::lit(ValueFromPy(value, t, api::ValueOrThrow(TimeZone::Find(tz_id)), ""));
}

py::list Collect(const DataFrame& df,
                 std::vector<api::Row> (*fn)(const DataFrame&, int64_t), int64_t n) {
  std::vector<api::Row> rows;
  {
    py::gil_scoped_release release;
    rows = fn(df, n);
  }
  return RowsToPy(rows, df.schema().fields(), SessionZone(df.session()));
}

// ---- Arrow PyCapsule interface
// ---------------------------------------------------------------

void ReleaseSchemaCapsule(PyObject* capsule) {
  auto* s = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, "arrow_schema"));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  if (s->release != nullptr) s->release(s);
  delete s;
}

void ReleaseStreamCapsule(PyObject* capsule) {
  auto* s =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  if (s->release != nullptr) s->release(s);
  delete s;
}

// df.__arrow_c_schema__(): the schema as a struct "+s" in an "arrow_schema" capsule.
py::object ArrowSchemaCapsule(const DataFrame& d) {
  auto* out = new ArrowSchema{};
  Status st = ExportSchema(*d.analyzed()->OutputSchema(), out);
  if (!st.ok()) {
    delete out;
    api::ThrowStatus(st);
  }
  PyObject* c = PyCapsule_New(out, "arrow_schema", &ReleaseSchemaCapsule);
  if (c == nullptr) {
    out->release(out);
    delete out;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(c);
}

// df.__arrow_c_stream__(): runs the query and exports its batches zero-copy as an
// "arrow_array_stream" capsule. A requested schema is not honoured (the protocol allows
// it).
py::object ArrowStreamCapsule(const DataFrame& d) {
  std::vector<BatchPtr> batches;
  {
    py::gil_scoped_release release;
    batches = d.collectBatches();
  }
  auto* out = new ArrowArrayStream{};
  Status st = ExportBatchStream(d.analyzed()->OutputSchema(), std::move(batches), out);
  if (!st.ok()) {
    delete out;
    api::ThrowStatus(st);
  }
  PyObject* c = PyCapsule_New(out, "arrow_array_stream", &ReleaseStreamCapsule);
  if (c == nullptr) {
    out->release(out);
    delete out;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(c);
}

// A DataFrame over the batches of an "arrow_array_stream" capsule (zero-copy import). The
// stream itself stays owned by the capsule; imported arrays live independently of it.
DataFrame FromArrowStream(const SparkSession& s, py::handle capsule) {
  auto* stream = static_cast<ArrowArrayStream*>(
      PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (stream == nullptr) throw py::error_already_set();
  if (stream->release == nullptr)
    throw py::value_error("the Arrow stream was already released");
  auto fail = [&](int code) {
    const char* msg = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
    throw py::value_error("Arrow stream error " + std::to_string(code) +
                          (msg ? std::string(": ") + msg : ""));
  };
  ArrowSchema schema{};
  if (int rc = stream->get_schema(stream, &schema); rc != 0) fail(rc);
  Result<Field> root = ImportField(&schema);
  schema.release(&schema);
  if (!root.ok()) api::ThrowStatus(root.status());
  if (root->type->id() != TypeId::kStruct)
    throw py::value_error("the Arrow stream is not a stream of structs");
  auto out_schema = std::make_shared<const Schema>(root->type->fields());
  std::vector<BatchPtr> batches;
  while (true) {
    ArrowArray array{};
    if (int rc = stream->get_next(stream, &array); rc != 0) fail(rc);
    if (array.release == nullptr) break;
    ArrowSchema batch_schema{};
    if (int rc = stream->get_schema(stream, &batch_schema); rc != 0) {
      array.release(&array);
      fail(rc);
    }
    BatchPtr b = api::ValueOrThrow(ImportBatch(&array, &batch_schema));
    batches.push_back(Batch::Make(out_schema, b->columns(), b->num_rows()));
  }
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kLocalRelation);
  plan->schema = out_schema;
  plan->batches = std::move(batches);
  return DataFrame(s.state(), plan);
}

// ---- Python UDFs
// ------------------------------------------------------------------------------
//
// One engine function, registered once when the module loads, runs every Python UDF:
// __spate_python_udf__(<udf id literal>, args...). The id selects a PyUdf; the kernel
// takes the GIL, converts each row's arguments to Python values, calls the function and
// converts the result to the declared return type. Queries run with the GIL released, so
// pool threads can take it. UDFs are never unregistered (ids stay valid; the Python
// function is kept alive for the life of the process).

struct PyUdf {
  PyObject* fn;  // a strong reference, never released
  DataTypePtr type;
  std::string name;
  bool deterministic;
};

constexpr const char* kUdfFunction = "__spate_python_udf__";
std::mutex g_udf_mu;
std::vector<const PyUdf*>
    g_udfs;  // leaked on purpose: kernels may outlive the interpreter

const PyUdf* FindUdf(int64_t id) {
  std::lock_guard<std::mutex> lock(g_udf_mu);
  return id >= 0 && id < static_cast<int64_t>(g_udfs.size()) ? g_udfs[id] : nullptr;
}

Status UdfFailure(const PyUdf& udf, const std::vector<ColumnPtr>& args,
                  const std::string& reason) {
  std::string sig;
  for (size_t i = 0; i < args.size(); ++i)
    sig += (i ? ", " : "") + args[i]->type()->SimpleString();
  return Status::Error("FAILED_EXECUTE_UDF", {{"functionName", udf.name},
                                              {"signature", sig},
                                              {"result", udf.type->SimpleString()},
                                              {"reason", reason}});
}

Result<ColumnPtr> RunUdf(const PyUdf& udf, const std::vector<ColumnPtr>& args,
                         int64_t num_rows, const EvalContext& ctx) {
  TimeZone tz = ctx.time_zone != nullptr ? *ctx.time_zone : TimeZone();
  std::vector<Value> out;
  out.reserve(static_cast<size_t>(num_rows));
  py::gil_scoped_acquire gil;
  try {
    py::handle fn(udf.fn);
    for (int64_t r = 0; r < num_rows; ++r) {
      py::tuple call_args(args.size());
      for (size_t c = 0; c < args.size(); ++c)
        call_args[c] = ValueToPy(args[c]->GetValue(r), tz);
      py::object result = fn(*call_args);
      // As PySpark: a string UDF returns the text of any non-string result.
      if (udf.type->id() == TypeId::kString && !result.is_none() &&
          !py::isinstance<py::str>(result)) {
        result = py::str(result);
      }
      out.push_back(ValueFromPy(result, udf.type, tz, ""));
    }
  } catch (py::error_already_set& e) {
    return UdfFailure(udf, args, e.what());
  } catch (const std::exception& e) {
    return UdfFailure(udf, args, e.what());
  }
  return ColumnFromValues(udf.type, out);
}

Result<BoundExprPtr> ResolveUdf(std::vector<BoundExprPtr> args, const ResolveContext&) {
  const Value* id = args.empty() ? nullptr : args[0]->literal_value();
  const PyUdf* udf = id != nullptr && !id->is_null() ? FindUdf(id->i64()) : nullptr;
  if (udf == nullptr) return Status::Invalid("__spate_python_udf__: unknown Python UDF");
  std::vector<BoundExprPtr> inputs(args.begin() + 1, args.end());
  std::string name = udf->name;
  return MakeScalarCall(
      name, udf->type, true, std::move(inputs),
      [udf](const std::vector<ColumnPtr>& a, int64_t n, const EvalContext& ctx) {
        return RunUdf(*udf, a, n, ctx);
      },
      [name](const std::vector<std::string>& texts) { return CallText(name, texts); },
      !udf->deterministic);
}

int64_t RegisterUdf(py::object fn, py::handle return_type, const std::string& name,
                    bool deterministic, const std::string& sql_name) {
  auto* udf = new PyUdf{fn.release().ptr(), TypeFromPy(return_type), name, deterministic};
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(g_udf_mu);
    id = static_cast<int64_t>(g_udfs.size());
    g_udfs.push_back(udf);
  }
  if (!sql_name.empty()) {
    // spark.udf.register: callable by name from SQL. Registering changes the global
    // registry; do it before queries run on other threads (as PySpark programs do).
    FunctionRegistry::Global().RegisterScalar(
        ToLower(sql_name),
        [id](std::vector<BoundExprPtr> args, const ResolveContext& rc) {
          args.insert(args.begin(), MakeLiteral(Value::Long(id)));
          return ResolveUdf(std::move(args), rc);
        });
  }
  return id;
}

// All rows of `d` as Python Rows: runs the query without the GIL, converts column-wise.
py::list CollectBatches(const DataFrame& d) {
  std::vector<BatchPtr> batches;
  {
    py::gil_scoped_release release;
    batches = d.collectBatches();
  }
  return BatchesToPy(batches, d.analyzed()->OutputSchema()->fields(),
                     SessionZone(d.session()));
}

void BindColumn(py::module_& m) {
  py::class_<Column>(m, "Column")
      .def("alias", &Column::alias)
      .def("cast", [](const Column& c, py::handle t) { return c.cast(TypeFromPy(t)); })
      .def("try_cast",
           [](const Column& c, py::handle t) {
             return c.try_cast(py::isinstance<py::str>(t)
                                   ? t.cast<std::string>()
                                   : t.attr("simpleString")().cast<std::string>());
           })
      .def("isNull", &Column::isNull)
      .def("isNotNull", &Column::isNotNull)
      .def("isin",
           [](const Column& c, const std::vector<Column>& v) { return c.isin(v); })
      .def("between", [](const Column& c, const Column& lo,
                         const Column& hi) { return c.between(lo, hi); })
      .def("like", &Column::like)
      .def("ilike", &Column::ilike)
      .def("rlike", &Column::rlike)
      .def("eqNullSafe", &Column::eqNullSafe)
      .def("getField", &Column::getField)
      .def("withField", &Column::withField)
      .def("dropFields",
           [](const Column& c, const std::vector<std::string>& names) {
             return c.dropFields(names);
           })
      .def("getItem", [](const Column& c, const Column& k) { return c.getItem(k); })
      .def("asc", &Column::asc)
      .def("asc_nulls_first", &Column::asc_nulls_first)
      .def("asc_nulls_last", &Column::asc_nulls_last)
      .def("desc", &Column::desc)
      .def("desc_nulls_first", &Column::desc_nulls_first)
      .def("desc_nulls_last", &Column::desc_nulls_last)
      .def("over", &Column::over)
      .def("when", [](const Column& c, const Column& cond,
                      const Column& v) { return c.when(cond, v); })
      .def("otherwise", [](const Column& c, const Column& v) { return c.otherwise(v); })
      .def("bitwiseAND", &Column::bitwiseAND)
      .def("bitwiseOR", &Column::bitwiseOR)
      .def("bitwiseXOR", &Column::bitwiseXOR)
      .def("toString", &Column::toString)
      .def("plus", [](const Column& a, const Column& b) { return a + b; })
      .def("minus", [](const Column& a, const Column& b) { return a - b; })
      .def("multiply", [](const Column& a, const Column& b) { return a * b; })
      .def("divide", [](const Column& a, const Column& b) { return a / b; })
      .def("mod", [](const Column& a, const Column& b) { return a % b; })
      .def("equalTo", [](const Column& a, const Column& b) { return a == b; })
      .def("notEqual", [](const Column& a, const Column& b) { return a != b; })
      .def("lt", [](const Column& a, const Column& b) { return a < b; })
      .def("leq", [](const Column& a, const Column& b) { return a <= b; })
      .def("gt", [](const Column& a, const Column& b) { return a > b; })
      .def("geq", [](const Column& a, const Column& b) { return a >= b; })
      .def("and_", [](const Column& a, const Column& b) { return a && b; })
      .def("or_", [](const Column& a, const Column& b) { return a || b; })
      .def("not_", [](const Column& a) { return !a; })
      .def("negate", [](const Column& a) { return -a; });
}

void BindWindow(py::module_& m) {
  py::class_<WindowSpec>(m, "WindowSpec")
      .def(py::init<>())
      .def("partitionBy", [](const WindowSpec& w,
                             const std::vector<Column>& c) { return w.partitionBy(c); })
      .def("orderBy",
           [](const WindowSpec& w, const std::vector<Column>& c) { return w.orderBy(c); })
      .def("rowsBetween", &WindowSpec::rowsBetween)
      .def("rangeBetween", &WindowSpec::rangeBetween);
}

void BindDataFrame(py::module_& m) {
  py::class_<DataFrame>(m, "DataFrame")
      .def("select",
           [](const DataFrame& d, const std::vector<Column>& c) { return d.select(c); })
      .def("selectExpr",
           [](const DataFrame& d, const std::vector<std::string>& e) {
             return d.selectExpr(e);
           })
      .def("filter", [](const DataFrame& d, const Column& c) { return d.filter(c); })
      .def("filterExpr",
           [](const DataFrame& d, const std::string& c) { return d.filter(c); })
      .def("withColumn", &DataFrame::withColumn)
      .def("withColumns", &DataFrame::withColumns)
      .def("withColumnRenamed", &DataFrame::withColumnRenamed)
      .def("drop", [](const DataFrame& d,
                      const std::vector<std::string>& c) { return d.drop(c); })
      .def("alias", &DataFrame::alias)
      .def("groupBy",
           [](const DataFrame& d, const std::vector<Column>& c) { return d.groupBy(c); })
      .def("agg",
           [](const DataFrame& d, const std::vector<Column>& c) { return d.agg(c); })
      .def("joinUsing",
           [](const DataFrame& d, const DataFrame& o, const std::vector<std::string>& on,
              const std::string& how) { return d.join(o, on, how); })
      .def("joinOn", [](const DataFrame& d, const DataFrame& o, const Column& on,
                        const std::string& how) { return d.join(o, on, how); })
      .def("joinCross", [](const DataFrame& d, const DataFrame& o) { return d.join(o); })
      .def("crossJoin", &DataFrame::crossJoin)
      .def("orderBy",
           [](const DataFrame& d, const std::vector<Column>& c) { return d.orderBy(c); })
      .def("limit", &DataFrame::limit)
      .def("offset", &DataFrame::offset)
      .def("union", &DataFrame::union_)
      .def("unionByName", &DataFrame::unionByName)
      .def("intersect", &DataFrame::intersect)
      .def("intersectAll", &DataFrame::intersectAll)
      .def("subtract", &DataFrame::subtract)
      .def("exceptAll", &DataFrame::exceptAll)
      .def("distinct", &DataFrame::distinct)
      .def("dropDuplicates", &DataFrame::dropDuplicates)
      .def("dropDuplicatesWithinWatermark", &DataFrame::dropDuplicatesWithinWatermark)
      .def("withWatermark", &DataFrame::withWatermark)
      .def("withColumnsRenamed", &DataFrame::withColumnsRenamed)
      .def("cube",
           [](const DataFrame& d, const std::vector<Column>& c) { return d.cube(c); })
      .def("rollup",
           [](const DataFrame& d, const std::vector<Column>& c) { return d.rollup(c); })
      .def("groupingSets", &DataFrame::groupingSets)
      .def("sample",
           [](const DataFrame& d, bool with_replacement, double fraction,
              std::optional<int64_t> seed) {
             return seed ? d.sample(with_replacement, fraction, *seed)
                         : d.sample(with_replacement, fraction);
           })
      .def("randomSplit", &DataFrame::randomSplit)
      .def("replace",
           [](const DataFrame& d, const std::vector<std::pair<Column, Column>>& pairs,
              const std::vector<std::string>& subset) {
             // The Python wrapper passes literals (column._lit_jc).
             std::vector<std::pair<Value, Value>> values;
             for (const auto& [k, v] : pairs)
               values.emplace_back(k.expr()->literal, v.expr()->literal);
             return d.replace(values, subset);
           })
      .def("toJSON", &DataFrame::toJSON)
      .def("scalar", &DataFrame::scalar)
      .def("exists", &DataFrame::exists)
      .def(
          "statCorr",
          [](const DataFrame& d, const std::string& a, const std::string& b,
             const std::string& method) { return d.stat().corr(a, b, method); },
          py::call_guard<py::gil_scoped_release>())
      .def(
          "statCov",
          [](const DataFrame& d, const std::string& a, const std::string& b) {
            return d.stat().cov(a, b);
          },
          py::call_guard<py::gil_scoped_release>())
      .def(
          "statCrosstab",
          [](const DataFrame& d, const std::string& a, const std::string& b) {
            return d.stat().crosstab(a, b);
          },
          py::call_guard<py::gil_scoped_release>())
      .def(
          "statFreqItems",
          [](const DataFrame& d, const std::vector<std::string>& cols, double support) {
            return d.stat().freqItems(cols, support);
          },
          py::call_guard<py::gil_scoped_release>())
      .def("statSampleBy",
           [](const DataFrame& d, const Column& col,
              const std::vector<std::pair<Column, double>>& fractions, int64_t seed) {
             // The Python wrapper passes the keys as literals (column._lit_jc).
             std::vector<std::pair<Value, double>> f;
             for (const auto& [k, v] : fractions) f.emplace_back(k.expr()->literal, v);
             return d.stat().sampleBy(col, f, seed);
           })
      .def(
          "statApproxQuantile",
          [](const DataFrame& d, const std::vector<std::string>& cols,
             const std::vector<double>& probabilities, double relative_error) {
            return d.stat().approxQuantile(cols, probabilities, relative_error);
          },
          py::call_guard<py::gil_scoped_release>())
      .def("coalesce", &DataFrame::coalesce)
      .def("hint", &DataFrame::hint)
      .def("repartition",
           [](const DataFrame& d, int n, const std::vector<Column>& c) {
             return c.empty() ? d.repartition(n) : d.repartition(n, c);
           })
      .def("collect", [](const DataFrame& d) { return CollectBatches(d); })
      .def("take",
           [](const DataFrame& d, int64_t n) { return CollectBatches(d.limit(n)); })
      .def("tail",
           [](const DataFrame& d, int64_t n) {
             return Collect(
                 d, [](const DataFrame& x, int64_t k) { return x.tail(k); }, n);
           })
      .def("count", &DataFrame::count, py::call_guard<py::gil_scoped_release>())
      .def("isEmpty", &DataFrame::isEmpty, py::call_guard<py::gil_scoped_release>())
      .def("showString",
           py::overload_cast<int, int, bool>(&DataFrame::showString, py::const_),
           py::call_guard<py::gil_scoped_release>())
      .def("schema", [](const DataFrame& d) { return SchemaToPy(d.schema().fields()); })
      .def("treeString", [](const DataFrame& d) { return d.schema().treeString(); })
      .def("columns", &DataFrame::columns)
      .def("dtypes", &DataFrame::dtypes)
      .def("col", &DataFrame::col)
      .def("colRegex", &DataFrame::colRegex)
      .def("createOrReplaceTempView", &DataFrame::createOrReplaceTempView)
      .def("createTempView", &DataFrame::createTempView)
      .def("createGlobalTempView", &DataFrame::createGlobalTempView)
      .def("createOrReplaceGlobalTempView", &DataFrame::createOrReplaceGlobalTempView)
      .def("explainString", &DataFrame::explainString,
           py::call_guard<py::gil_scoped_release>())
      .def("writeSave",
           [](const DataFrame& d, const std::string& format, const std::string& mode,
              const std::map<std::string, std::string>& options,
              const std::vector<std::string>& partition_by, const std::string& path) {
             api::DataFrameWriter w = d.write();
             w.format(format).mode(mode).options(options);
             if (!partition_by.empty()) w.partitionBy(partition_by);
             py::gil_scoped_release release;
             w.save(path);
           })
      .def("writeSaveAsTable",
           [](const DataFrame& d, const std::string& format, const std::string& mode,
              const std::map<std::string, std::string>& options,
              const std::vector<std::string>& partition_by, const std::string& name) {
             api::DataFrameWriter w = d.write();
             w.format(format).mode(mode).options(options);
             if (!partition_by.empty()) w.partitionBy(partition_by);
             py::gil_scoped_release release;
             w.saveAsTable(name);
           })
      .def("writeInsertInto",
           [](const DataFrame& d, const std::string& name, bool overwrite) {
             py::gil_scoped_release release;
             d.write().insertInto(name, overwrite);
           })
      .def("arrowSchema", &ArrowSchemaCapsule)
      .def("arrowStream", &ArrowStreamCapsule)
      .def("sessionTimeZone",
           [](const DataFrame& d) { return d.session()->conf.session_time_zone(); })
      .def("session", [](const DataFrame& d) { return SparkSession(d.session()); });

  py::class_<GroupedData>(m, "GroupedData")
      .def("agg",
           [](const GroupedData& g, const std::vector<Column>& c) { return g.agg(c); })
      .def("count", &GroupedData::count)
      .def("sum", &GroupedData::sum)
      .def("avg", &GroupedData::avg)
      .def("min", &GroupedData::min)
      .def("max", &GroupedData::max);
}

void BindSession(py::module_& m) {
  py::class_<SparkSession>(m, "SparkSession")
      // Commands (MERGE, INSERT, CTAS, ...) run inside sql(): their Python UDFs run on
      // the engine's threads, which take the GIL, so the caller must not hold it.
      .def("sql", &SparkSession::sql, py::call_guard<py::gil_scoped_release>())
      .def("range", [](const SparkSession& s, int64_t start, int64_t end, int64_t step,
                       int parts) { return s.range(start, end, step, parts); })
      .def("table", &SparkSession::table)
      .def("newSession", &SparkSession::newSession)
      .def("version", &SparkSession::version)
      .def("createDataFrame",
           [](const SparkSession& s, const py::iterable& rows, py::handle schema) {
             DataTypePtr st = TypeFromPy(schema);
             TimeZone tz = SessionZone(s.state());
             std::vector<std::vector<Value>> values;
             for (py::handle row : rows) {
               // Each row is a tuple/list (positional) or a dict (by name): convert it as
               // a struct.
               Value v = ValueFromPy(row, st, tz, "");
               if (v.is_null()) throw py::value_error("a row can not be None");
               values.push_back(v.items());
             }
             return s.createDataFrame(values, api::StructType(st->fields()));
           })
      .def("createDataFrameFromArrow", &FromArrowStream)
      .def("confSet", [](const SparkSession& s, const std::string& k,
                         const std::string& v) { s.conf().set(k, v); })
      .def("confGet",
           [](const SparkSession& s, const std::string& k) { return s.conf().get(k); })
      .def("confGetOr", [](const SparkSession& s, const std::string& k,
                           const std::string& d) { return s.conf().get(k, d); })
      .def("confUnset",
           [](const SparkSession& s, const std::string& k) { s.conf().unset(k); })
      .def("confIsModifiable",
           [](const SparkSession& s, const std::string& k) {
             return s.conf().isModifiable(k);
           })
      .def("appName", [](const SparkSession& s) { return s.state()->app_name; })
      // The monitoring server (spark.ui.enabled=true at getOrCreate): its URL, and
      // stop().
      .def("uiWebUrl", &SparkSession::uiWebUrl)
      .def("stop", &SparkSession::stop, py::call_guard<py::gil_scoped_release>())
      // spark.read...load(paths): the Python DataFrameReader collects the builder state.
      .def("readLoad",
           [](const SparkSession& s, const std::string& format,
              const std::map<std::string, std::string>& options, py::handle schema,
              const std::vector<std::string>& paths) {
             api::DataFrameReader r = s.read();
             r.format(format).options(options);
             if (py::isinstance<py::str>(schema)) {
               r.schema(schema.cast<std::string>());
             } else if (!schema.is_none()) {
               r.schema(api::StructType(TypeFromPy(schema)->fields()));
             }
             py::gil_scoped_release release;
             return r.load(paths);
           })
      // spark.read.options(...).table(name) (readChangeFeed reads the table's change
      // feed).
      .def("readTable",
           [](const SparkSession& s, const std::map<std::string, std::string>& options,
              const std::string& name) {
             api::DataFrameReader r = s.read();
             r.options(options);
             py::gil_scoped_release release;
             return r.table(name);
           })
      .def("same", [](const SparkSession& a, const SparkSession& b) {
        return a.state() == b.state();
      });

  m.def("getOrCreate",
        [](const std::vector<std::pair<std::string, std::string>>& options) {
          auto b = SparkSession::builder();
          for (const auto& [k, v] : options) {
            if (k == "spark.app.name") {
              b.appName(v);
            } else if (k == "spark.master") {
              b.master(v);
            } else {
              b.config(k, v);
            }
          }
          return b.getOrCreate();
        });
}

void BindDelta(py::module_& m) {
  using api::DeltaTable;
  py::class_<DeltaTable>(m, "DeltaTable")
      .def_static("forPath", &DeltaTable::forPath,
                  py::call_guard<py::gil_scoped_release>())
      .def_static("forName", &DeltaTable::forName,
                  py::call_guard<py::gil_scoped_release>())
      .def_static("isDeltaTable", &DeltaTable::isDeltaTable,
                  py::call_guard<py::gil_scoped_release>())
      .def("toDF", &DeltaTable::toDF, py::call_guard<py::gil_scoped_release>())
      .def("history", &DeltaTable::history, py::call_guard<py::gil_scoped_release>())
      .def("detail", &DeltaTable::detail, py::call_guard<py::gil_scoped_release>())
      .def("path", &DeltaTable::path)
      .def("alias", &DeltaTable::alias)
      .def("merge", [](const DeltaTable& t, const api::DataFrame& source,
                       const Column& condition) { return t.merge(source, condition); })
      // condition None: every row; set: (column, Column) pairs.
      .def(
          "update",
          [](const DeltaTable& t, std::optional<Column> condition,
             const std::vector<std::pair<std::string, Column>>& set) {
            return condition ? t.update(*condition, set) : t.update(set);
          },
          py::call_guard<py::gil_scoped_release>())
      .def(
          "delete_",
          [](const DeltaTable& t, std::optional<Column> condition) {
            return condition ? t.delete_(*condition) : t.delete_();
          },
          py::call_guard<py::gil_scoped_release>())
      .def("restoreToVersion", &DeltaTable::restoreToVersion,
           py::call_guard<py::gil_scoped_release>())
      .def("restoreToTimestamp", &DeltaTable::restoreToTimestamp,
           py::call_guard<py::gil_scoped_release>())
      .def(
          "vacuum",
          [](const DeltaTable& t, std::optional<double> hours) {
            return hours ? t.vacuum(*hours) : t.vacuum();
          },
          py::call_guard<py::gil_scoped_release>())
      .def(
          "optimize",
          [](const DeltaTable& t, const std::vector<std::string>& where,
             const std::vector<std::string>& zorder) {
            DeltaTable::OptimizeBuilder b = t.optimize();
            for (const auto& w : where) b = b.where(w);
            return zorder.empty() ? b.executeCompaction() : b.executeZOrderBy(zorder);
          },
          py::call_guard<py::gil_scoped_release>());
  // Clauses arrive in the engine's form: match "matched" | "notMatched" |
  // "notMatchedBySource", action "update" | "delete" | "insert".
  using api::DeltaMergeBuilder;
  py::class_<DeltaMergeBuilder>(m, "DeltaMergeBuilder")
      .def("clause",
           [](const DeltaMergeBuilder& b, const std::string& match,
              const std::string& action, std::optional<Column> condition, bool star,
              const api::MergeAssignments& set) {
             using M = sql::MergeClause::Match;
             using A = sql::MergeClause::Action;
             M mm = match == "matched"      ? M::kMatched
                    : match == "notMatched" ? M::kNotMatched
                                            : M::kNotMatchedBySource;
             A aa = action == "update"   ? A::kUpdate
                    : action == "delete" ? A::kDelete
                                         : A::kInsert;
             return b.With(api::MakeMergeClause(
                 mm, aa, condition ? condition->expr() : nullptr, star, set));
           })
      .def("withSchemaEvolution", &DeltaMergeBuilder::withSchemaEvolution)
      .def("execute", &DeltaMergeBuilder::execute,
           py::call_guard<py::gil_scoped_release>());
}

void BindFunctions(py::module_& m) {
  m.def("col", &F::col);
  m.def("lit", &Lit);
  m.def("expr", &F::expr);
  m.def("call_function", &F::call_function);
  m.def("lambda_function", &F::lambda_function);
  m.def("count", [](const Column& c) { return F::count(c); });
  m.def("count_distinct", &F::countDistinct);
  m.def("sum_distinct", &F::sum_distinct);
  m.def("first", &F::first);
  m.def("last", &F::last);
  m.def("any_value", &F::any_value);
  m.def("when", [](const Column& c, const Column& v) { return F::when(c, v); });
  m.def("lag", [](const Column& c, int offset, std::optional<Column> d) {
    return F::lag(c, offset, d ? &*d : nullptr);
  });
  m.def("lead", [](const Column& c, int offset, std::optional<Column> d) {
    return F::lead(c, offset, d ? &*d : nullptr);
  });
  m.def("nth_value", &F::nth_value);
  // timestamp_add / timestamp_diff build internal calls (compute/datetime_functions.h).
  m.def("timestamp_add", &F::timestamp_add);
  m.def("timestamp_diff", &F::timestamp_diff);
  // listagg / string_agg [DISTINCT](c, delimiter): `name` is "listagg" or "string_agg".
  m.def("listagg", [](const std::string& name, const Column& c, std::optional<Column> d,
                      bool distinct) {
    const Column* dp = d ? &*d : nullptr;
    if (name == "string_agg")
      return distinct ? F::string_agg_distinct(c, dp) : F::string_agg(c, dp);
    return distinct ? F::listagg_distinct(c, dp) : F::listagg(c, dp);
  });
  m.def("struct", &F::struct_);
  m.def("register_udf", &RegisterUdf, py::arg("fn"), py::arg("return_type"),
        py::arg("name"), py::arg("deterministic"), py::arg("sql_name") = "");
  m.def("udf_function_name", []() { return std::string(kUdfFunction); });
  m.def("function_names", []() { return FunctionRegistry::Global().Names(); });
  m.def("parse_datatype", [](const std::string& s) {
    return TypeToPy(api::ValueOrThrow(sql::ParseDataType(s)));
  });
  m.def("parse_ddl", [](const std::string& s) {
    return SchemaToPy(api::StructType::fromDDL(s).fields());
  });
  m.def("type_simple_string", [](py::handle t) { return TypeFromPy(t)->SimpleString(); });
  m.def("tree_string", [](py::handle t) {
    DataTypePtr st = TypeFromPy(t);
    return Schema(st->fields()).TreeString();
  });
}

}  // namespace

void BindStreaming(py::module_& m);  // streaming.cc
void BindStateful(py::module_& m);   // stateful.cc
void BindPipelines(py::module_& m);  // pipelines.cc

}  // namespace spate::python

namespace py = pybind11;

PYBIND11_MODULE(_spate, m) {
  m.doc() = "spate native module (bindings of the C++ API; use the spate.sql package)";
  py::register_exception_translator(&spate::python::TranslateException);
  spate::FunctionRegistry::Global().RegisterScalar(spate::python::kUdfFunction,
                                                   &spate::python::ResolveUdf);
  spate::python::BindColumn(m);
  spate::python::BindWindow(m);
  spate::python::BindDataFrame(m);
  spate::python::BindSession(m);
  spate::python::BindFunctions(m);
  spate::python::BindDelta(m);
  spate::python::BindStreaming(m);
  spate::python::BindStateful(m);
  spate::python::BindPipelines(m);
}
