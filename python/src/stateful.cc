// Copyright spate authors.
//
// Bindings of transformWithState (spate/stream/stateful_processor.h) for
// spate.sql.streaming.stateful_processor: GroupedData.transformWithState takes a Python
// factory of adapters (stateful_processor._Adapter, one per partition and batch, wrapping
// a copy of the user's StatefulProcessor); the C++ processor calls the adapter's init /
// handle_input / handle_timer / close under the GIL, with rows as tuples. The handle and
// the state variables are bound as _StatefulProcessorHandle, _ValueState, _ListState and
// _MapState, converting values by the schemas the processor declared.
//
// Lifetime: a handle and its variables are valid during the processor calls of their
// batch (the adapter drops them in close()). GIL: processor calls take it (partition
// threads); state calls run with it held (they do not wait). Errors: a Python exception
// in a processor method fails the batch with TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR and
// its text; a state declaration Spark refuses (a TTL outside processing time) raises
// PySparkRuntimeError in it.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convert.h"

#include "spate/api/dataframe.h"
#include "spate/stream/stateful_processor.h"

namespace spate::python {

namespace py = pybind11;
using stream::ProcessorRow;

namespace {

std::vector<Field> FieldsOf(py::handle schema) {
  DataTypePtr t = TypeFromPy(schema);
  if (t->id() != TypeId::kStruct)
    throw py::type_error("a state schema must be a StructType");
  return t->fields();
}

py::tuple RowToPy(const ProcessorRow& row, const TimeZone& tz) {
  py::tuple t(row.size());
  for (size_t i = 0; i < row.size(); ++i) t[i] = ValueToPy(row[i], tz);
  return t;
}

ProcessorRow RowFromPy(py::handle obj, const std::vector<Field>& fields,
                       const TimeZone& tz, const char* what) {
  py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  if (static_cast<size_t>(py::len(seq)) != fields.size()) {
    throw py::value_error(std::string(what) + ": expected " +
                          std::to_string(fields.size()) + " values, got " +
                          std::to_string(py::len(seq)));
  }
  ProcessorRow row;
  for (size_t i = 0; i < fields.size(); ++i)
    row.push_back(ValueFromPy(seq[i], fields[i].type, tz, fields[i].name));
  return row;
}

struct PyValueState {
  stream::ValueState s;
  std::vector<Field> fields;
  TimeZone tz;
};
struct PyListState {
  stream::ListState s;
  std::vector<Field> fields;
  TimeZone tz;
};
struct PyMapState {
  stream::MapState s;
  std::vector<Field> key_fields, fields;
  TimeZone tz;
};
struct PyHandle {
  stream::StatefulProcessorHandle* h;
  TimeZone tz;
};

stream::TTLConfig Ttl(py::handle ms) {
  stream::TTLConfig t;
  if (!ms.is_none()) t.ttl_ms = ms.cast<int64_t>();
  return t;
}

// A state variable's declaration; Spark's refusal of it (a TTL outside processing time, a
// negative TTL) raises what PySpark's handle raises: PySparkRuntimeError("Error
// initializing <kind> state: [CLASS] message SQLSTATE: 42802").
template <typename F>
auto Declare(const char* kind, F&& declare) {
  try {
    return declare();
  } catch (const stream::StateVariableError& e) {
    py::object cls = py::module_::import("spate.errors").attr("PySparkRuntimeError");
    py::object exc =
        cls(std::string("Error initializing ") + kind + " state: " + e.what());
    PyErr_SetObject(cls.ptr(), exc.ptr());
    throw py::error_already_set();
  }
}

// The C++ processor over a Python adapter.
class PyProcessor final : public stream::StatefulProcessor {
 public:
  PyProcessor(py::object adapter, std::vector<Field> out_fields, TimeZone tz)
      : adapter_(std::move(adapter)),
        out_fields_(std::move(out_fields)),
        tz_(std::move(tz)) {}
  ~PyProcessor() override {
    py::gil_scoped_acquire gil;
    adapter_ = py::object();
  }
  void init(stream::StatefulProcessorHandle& handle, stream::OutputMode,
            stream::TimeMode) override {
    py::gil_scoped_acquire gil;
    Call([&] { adapter_.attr("init")(PyHandle{&handle, tz_}); });
  }
  std::vector<ProcessorRow> handleInputRows(const ProcessorRow& key,
                                            const std::vector<ProcessorRow>& rows,
                                            const stream::TimerValues& tv) override {
    py::gil_scoped_acquire gil;
    std::vector<ProcessorRow> out;
    Call([&] {
      py::list in;
      for (const auto& r : rows) in.append(RowToPy(r, tz_));
      Collect(adapter_.attr("handle_input")(RowToPy(key, tz_), in,
                                            tv.current_processing_time_ms,
                                            tv.current_watermark_ms),
              &out);
    });
    return out;
  }
  std::vector<ProcessorRow> handleExpiredTimer(
      const ProcessorRow& key, const stream::TimerValues& tv,
      const stream::ExpiredTimerInfo& info) override {
    py::gil_scoped_acquire gil;
    std::vector<ProcessorRow> out;
    Call([&] {
      Collect(
          adapter_.attr("handle_timer")(RowToPy(key, tz_), tv.current_processing_time_ms,
                                        tv.current_watermark_ms, info.expiry_time_ms),
          &out);
    });
    return out;
  }
  // PySpark's processors take every initial row of a key (pandas: one DataFrame of them;
  // Rows: one call each).
  bool acceptsRepeatedInitialStateKeys() const override { return true; }
  void handleInitialStateRows(const ProcessorRow& key,
                              const std::vector<ProcessorRow>& rows,
                              const stream::TimerValues& tv) override {
    py::gil_scoped_acquire gil;
    Call([&] {
      py::list in;
      for (const auto& r : rows) in.append(RowToPy(r, tz_));
      adapter_.attr("handle_initial_state")(
          RowToPy(key, tz_), in, tv.current_processing_time_ms, tv.current_watermark_ms);
    });
  }
  void close() override {
    py::gil_scoped_acquire gil;
    Call([&] { adapter_.attr("close")(); });
  }

 private:
  // Python errors become C++ exceptions the operator reports with the method's name.
  template <typename F>
  void Call(F&& f) {
    try {
      f();
    } catch (py::error_already_set& e) {
      throw std::runtime_error(e.what());
    }
  }
  void Collect(py::handle rows, std::vector<ProcessorRow>* out) {
    for (auto r : rows) out->push_back(RowFromPy(r, out_fields_, tz_, "an output row"));
  }

  py::object adapter_;
  std::vector<Field> out_fields_;
  TimeZone tz_;
};

// Python objects captured by the factory (which runs on partition threads) are released
// under the GIL.
struct GilObject {
  explicit GilObject(py::object o) : obj(std::move(o)) {}
  ~GilObject() {
    if (!Py_IsInitialized()) {
      obj.release();
      return;
    }
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
  py::object obj;
};

}  // namespace

void BindStateful(py::module_& m) {
  py::class_<PyValueState>(m, "_ValueState")
      .def("exists", [](PyValueState& v) { return v.s.exists(); })
      .def("get",
           [](PyValueState& v) -> py::object {
             auto r = v.s.get();
             if (!r) return py::none();
             return RowToPy(*r, v.tz);
           })
      .def("update",
           [](PyValueState& v, py::handle value) {
             v.s.update(RowFromPy(value, v.fields, v.tz, "ValueState.update"));
           })
      .def("clear", [](PyValueState& v) { v.s.clear(); });
  py::class_<PyListState>(m, "_ListState")
      .def("exists", [](PyListState& v) { return v.s.exists(); })
      .def("get",
           [](PyListState& v) {
             py::list out;
             for (const auto& r : v.s.get()) out.append(RowToPy(r, v.tz));
             return out;
           })
      .def("put",
           [](PyListState& v, py::handle values) {
             std::vector<ProcessorRow> rows;
             for (auto x : values)
               rows.push_back(RowFromPy(x, v.fields, v.tz, "ListState.put"));
             v.s.put(rows);
           })
      .def("appendValue",
           [](PyListState& v, py::handle value) {
             v.s.appendValue(RowFromPy(value, v.fields, v.tz, "ListState.appendValue"));
           })
      .def("appendList",
           [](PyListState& v, py::handle values) {
             std::vector<ProcessorRow> rows;
             for (auto x : values)
               rows.push_back(RowFromPy(x, v.fields, v.tz, "ListState.appendList"));
             v.s.appendList(rows);
           })
      .def("clear", [](PyListState& v) { v.s.clear(); });
  py::class_<PyMapState>(m, "_MapState")
      .def("exists", [](PyMapState& v) { return v.s.exists(); })
      .def("getValue",
           [](PyMapState& v, py::handle key) -> py::object {
             auto r =
                 v.s.getValue(RowFromPy(key, v.key_fields, v.tz, "MapState.getValue"));
             if (!r) return py::none();
             return RowToPy(*r, v.tz);
           })
      .def("containsKey",
           [](PyMapState& v, py::handle key) {
             return v.s.containsKey(
                 RowFromPy(key, v.key_fields, v.tz, "MapState.containsKey"));
           })
      .def("updateValue",
           [](PyMapState& v, py::handle key, py::handle value) {
             v.s.updateValue(RowFromPy(key, v.key_fields, v.tz, "MapState.updateValue"),
                             RowFromPy(value, v.fields, v.tz, "MapState.updateValue"));
           })
      .def("iterator",
           [](PyMapState& v) {
             py::list out;
             for (const auto& [k, x] : v.s.iterator())
               out.append(py::make_tuple(RowToPy(k, v.tz), RowToPy(x, v.tz)));
             return out;
           })
      .def("removeKey",
           [](PyMapState& v, py::handle key) {
             v.s.removeKey(RowFromPy(key, v.key_fields, v.tz, "MapState.removeKey"));
           })
      .def("clear", [](PyMapState& v) { v.s.clear(); });
  py::class_<PyHandle>(m, "_StatefulProcessorHandle")
      .def(
          "getValueState",
          [](PyHandle& h, const std::string& name, py::handle schema, py::handle ttl) {
            auto fields = FieldsOf(schema);
            return Declare("value", [&] {
              return PyValueState{h.h->getValueState(name, Schema(fields), Ttl(ttl)),
                                  fields, h.tz};
            });
          },
          py::arg("stateName"), py::arg("schema"), py::arg("ttlDurationMs") = py::none())
      .def(
          "getListState",
          [](PyHandle& h, const std::string& name, py::handle schema, py::handle ttl) {
            auto fields = FieldsOf(schema);
            return Declare("list", [&] {
              return PyListState{h.h->getListState(name, Schema(fields), Ttl(ttl)),
                                 fields, h.tz};
            });
          },
          py::arg("stateName"), py::arg("schema"), py::arg("ttlDurationMs") = py::none())
      .def(
          "getMapState",
          [](PyHandle& h, const std::string& name, py::handle key_schema,
             py::handle schema, py::handle ttl) {
            auto kf = FieldsOf(key_schema);
            auto fields = FieldsOf(schema);
            return Declare("map", [&] {
              return PyMapState{
                  h.h->getMapState(name, Schema(kf), Schema(fields), Ttl(ttl)), kf,
                  fields, h.tz};
            });
          },
          py::arg("stateName"), py::arg("userKeySchema"), py::arg("valueSchema"),
          py::arg("ttlDurationMs") = py::none())
      .def("registerTimer", [](PyHandle& h, int64_t ms) { h.h->registerTimer(ms); })
      .def("deleteTimer", [](PyHandle& h, int64_t ms) { h.h->deleteTimer(ms); })
      .def("listTimers", [](PyHandle& h) { return h.h->listTimers(); })
      .def("deleteIfExists",
           [](PyHandle& h, const std::string& name) { h.h->deleteIfExists(name); })
      .def("queryId", [](PyHandle& h) { return h.h->queryId(); })
      .def("batchId", [](PyHandle& h) { return h.h->batchId(); })
      .def("partitionId", [](PyHandle& h) { return h.h->partitionId(); });
  // GroupedData.transformWithState(adapter_factory, output schema, mode, time mode[,
  // initial state]): the factory is called under the GIL for each processor.
  m.def(
      "transform_with_state",
      [](const api::GroupedData& g, py::object factory, py::handle output_schema,
         const std::string& mode, const std::string& time_mode, const std::string& tz_id,
         const std::string& operator_name, const api::GroupedData* initial_state) {
        auto fields = FieldsOf(output_schema);
        TimeZone tz = api::ValueOrThrow(TimeZone::Find(tz_id));
        auto shared = std::make_shared<GilObject>(std::move(factory));
        stream::StatefulProcessorFactory make = [shared, fields, tz]() {
          py::gil_scoped_acquire gil;
          py::object adapter;
          try {
            adapter = shared->obj();
          } catch (py::error_already_set& e) {
            throw std::runtime_error(e.what());
          }
          return std::unique_ptr<stream::StatefulProcessor>(
              std::make_unique<PyProcessor>(std::move(adapter), fields, tz));
        };
        if (initial_state) {
          return g.transformWithState(std::move(make), api::StructType(fields), mode,
                                      time_mode, *initial_state);
        }
        return g.transformWithState(std::move(make), api::StructType(fields), mode,
                                    time_mode, operator_name);
      },
      py::arg("grouped"), py::arg("factory"), py::arg("output_schema"), py::arg("mode"),
      py::arg("time_mode"), py::arg("tz"), py::arg("operator_name"),
      py::arg("initial_state") = nullptr);
}

}  // namespace spate::python
