// Copyright spate authors.
//
// Bindings of the Structured Streaming API (spate/api/streaming.h) for
// spate.sql.streaming: readStream, writeStream (with Python foreachBatch/foreach
// callbacks), StreamingQuery, StreamingQueryManager and Python StreamingQueryListeners.
//
// GIL: every call that may wait for a query thread (start, stop, awaitTermination,
// processAllAvailable, status, progress, ...) releases the GIL; Python callbacks run on
// the query thread and take the GIL (py::gil_scoped_acquire). Python objects held by C++
// (callbacks, listeners) are released under the GIL, or leaked when the interpreter is
// finalizing. Queries started from Python are stopped by an atexit hook
// (stop_all_queries) before the interpreter finalizes, so no query thread waits for a GIL
// that no longer exists.
//
// Errors: a Python callback that raises fails its query with STREAM_FAILED whose cause is
// FOREACH_BATCH_USER_FUNCTION_ERROR / FOREACH_USER_FUNCTION_ERROR carrying the Python
// traceback text. Exceptions raised by listeners are reported as unraisable (printed) and
// ignored, as Spark's listener bus logs and ignores them.

#include "spate/api/streaming.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "convert.h"

#include "spate/api/checkpoint_replay.h"
#include "spate/api/session.h"
#include "spate/api/session_state.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/checkpoint_check.h"
#include "spate/stream/checkpoint_describe.h"
#include "spate/stream/streaming_query.h"

namespace spate::python {
namespace {

using api::DataFrame;
using api::SparkSession;

// ---- Python objects owned by C++
// ------------------------------------------------------------

bool PythonAlive() { return Py_IsInitialized() != 0 && _Py_IsFinalizing() == 0; }

/// A strong reference to a Python object that may be dropped on any thread: the reference
/// is released under the GIL (or leaked while the interpreter finalizes).
using PyRef = std::shared_ptr<py::object>;

PyRef MakeRef(py::object o) {
  return PyRef(new py::object(std::move(o)), [](py::object* p) {
    if (PythonAlive()) {
      py::gil_scoped_acquire gil;
      delete p;
    } else {
      p->release();  // leaked: the interpreter is gone
      delete p;
    }
  });
}

// ---- queries started from Python (stopped at exit)
// ------------------------------------------

std::mutex g_started_mu;
std::vector<std::weak_ptr<stream::StreamingQuery>>& Started() {
  static auto* v = new std::vector<std::weak_ptr<stream::StreamingQuery>>();
  return *v;
}
// The streaming DataFrame of each query, for explain() (keyed by run id).
std::map<std::string, DataFrame>& Plans() {
  static auto* m = new std::map<std::string, DataFrame>();
  return *m;
}

void Remember(const api::StreamingQuery& q, const DataFrame& df) {
  std::lock_guard<std::mutex> lock(g_started_mu);
  auto& v = Started();
  std::erase_if(v, [](const auto& w) {
    auto p = w.lock();
    return !p || !p->IsActive();
  });
  for (auto it = Plans().begin(); it != Plans().end();) {
    bool live = false;
    for (const auto& w : v) {
      auto p = w.lock();
      if (p && p->run_id() == it->first) live = true;
    }
    it = live ? std::next(it) : Plans().erase(it);
  }
  v.push_back(q.impl());
  Plans().insert_or_assign(q.runId(), df);
}

void StopAllQueries() {
  std::vector<std::shared_ptr<stream::StreamingQuery>> qs;
  {
    std::lock_guard<std::mutex> lock(g_started_mu);
    for (const auto& w : Started()) {
      if (auto p = w.lock()) qs.push_back(p);
    }
    Started().clear();
  }
  py::gil_scoped_release release;
  for (auto& q : qs) q->Stop();
  qs.clear();  // a last reference joins the query's thread: without the GIL
}

// ---- temporary checkpoints of foreach/foreachBatch queries
// ----------------------------------

/// Deletes the temporary checkpoint of a query started by writeStreamStart when it ends
/// without error (as Spark deletes temporary checkpoint locations). One per manager.
class TempCheckpointCleaner final : public stream::StreamingQueryListener {
 public:
  /// Called after start() returned: the query may already have ended.
  void Add(const std::string& run_id, const std::string& path) {
    bool ended_ok = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = ended_.find(run_id);
      if (it == ended_.end()) {
        paths_[run_id] = path;
        return;
      }
      ended_ok = it->second;
      ended_.erase(it);
    }
    if (ended_ok) (void)io::LocalFileSystem::Get()->Delete(path, true);
  }
  void onQueryTerminated(const stream::QueryTerminatedEvent& e) override {
    std::string path;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = paths_.find(e.run_id);
      if (it == paths_.end()) {
        if (expected_ > 0) ended_[e.run_id] = !e.exception;
        return;
      }
      path = it->second;
      paths_.erase(it);
    }
    if (!e.exception) (void)io::LocalFileSystem::Get()->Delete(path, true);
  }
  /// Brackets a start(): only then are unknown terminations remembered.
  void Expect(int delta) {
    std::lock_guard<std::mutex> lock(mu_);
    expected_ += delta;
    if (expected_ == 0) ended_.clear();
  }

 private:
  std::mutex mu_;
  int expected_ = 0;
  std::map<std::string, std::string> paths_;  // run id -> temporary checkpoint
  std::map<std::string, bool> ended_;         // run id -> ended without error, before Add
};

std::mutex g_cleaners_mu;
std::shared_ptr<TempCheckpointCleaner> CleanerOf(const api::StreamingQueryManager& m) {
  using Entry = std::pair<std::weak_ptr<stream::StreamingQueryManager>,
                          std::shared_ptr<TempCheckpointCleaner>>;
  static auto* cleaners = new std::map<const stream::StreamingQueryManager*, Entry>();
  std::lock_guard<std::mutex> lock(g_cleaners_mu);
  std::erase_if(*cleaners, [](const auto& e) { return e.second.first.expired(); });
  auto& e = (*cleaners)[m.impl().get()];
  if (!e.second) {
    e = {m.impl(), std::make_shared<TempCheckpointCleaner>()};
    m.addListener(e.second);
  }
  return e.second;
}

// ---- callbacks
// ----------------------------------------------------------------------------

/// Runs `wrapper(native_df, batch_id)` under the GIL. The wrapper (spate.sql.streaming)
/// returns None, or the formatted traceback of the exception the user function raised.
void RunBatchCallback(const PyRef& wrapper, const DataFrame& df, int64_t batch_id,
                      const char* error_class) {
  std::optional<std::string> failure;
  if (!PythonAlive()) failure = "the Python interpreter is shutting down";
  if (!failure) {
    py::gil_scoped_acquire gil;
    try {
      py::object r = (*wrapper)(df, batch_id);
      if (!r.is_none()) failure = r.cast<std::string>();
    } catch (py::error_already_set& e) {
      failure = e.what();
    }
  }
  if (failure) api::ThrowStatus(Status::Error(error_class, {{"reason", *failure}}));
}

/// A Python foreach writer behind the C++ ForeachWriter contract, so Python and C++ share
/// one foreach sink (real-time mode keeps it open across a batch's pieces). `adapter` is
/// spate.sql.streaming's _ForeachAdapter: open(partition, epoch) -> bool, process(row)
/// and close(error) -> None, or a traceback text when the user's code raised.
class PyForeachWriter final : public api::ForeachWriter {
 public:
  PyForeachWriter(PyRef adapter, std::vector<std::string> names, TimeZone tz)
      : adapter_(std::move(adapter)), names_(std::move(names)), tz_(std::move(tz)) {}
  bool open(int64_t partition_id, int64_t epoch_id) override {
    bool go = true;
    Call([&] {
      py::object r = adapter_->attr("open")(partition_id, epoch_id);
      if (py::isinstance<py::str>(r)) return r.cast<std::string>();
      go = r.cast<bool>();
      return std::string();
    });
    return go;
  }
  void process(const api::Row& row) override {
    Call([&] {
      py::list names, values;
      for (const auto& n : names_) names.append(n);
      for (const auto& v : row.values()) values.append(ValueToPy(v, tz_));
      py::object r = adapter_->attr("process")(names, values);
      return r.is_none() ? std::string() : r.cast<std::string>();
    });
  }
  void close(const std::optional<std::string>& error) override {
    Call([&] {
      py::object r =
          adapter_->attr("close")(error ? py::object(py::str(*error)) : py::none());
      return r.is_none() ? std::string() : r.cast<std::string>();
    });
  }

 private:
  template <typename Fn>
  void Call(Fn fn) {
    std::string failure;
    if (!PythonAlive()) {
      failure = "the Python interpreter is shutting down";
    } else {
      py::gil_scoped_acquire gil;
      try {
        failure = fn();
      } catch (py::error_already_set& e) {
        failure = e.what();
      }
    }
    if (!failure.empty())
      api::ThrowStatus(
          Status::Error("FOREACH_USER_FUNCTION_ERROR", {{"reason", failure}}));
  }
  PyRef adapter_;
  std::vector<std::string> names_;
  TimeZone tz_;
};

/// A Python StreamingQueryListener: `adapter` is the listener's spate.sql.streaming
/// dispatcher, called as adapter(kind, dict) under the GIL.
class PyListener final : public stream::StreamingQueryListener {
 public:
  PyListener(PyRef listener, PyRef adapter)
      : listener_(std::move(listener)), adapter_(std::move(adapter)) {}
  const PyRef& listener() const { return listener_; }

  void onQueryStarted(const stream::QueryStartedEvent& e) override {
    Call("started", [&](py::dict& d) {
      d["id"] = e.id;
      d["runId"] = e.run_id;
      d["name"] = e.name ? py::object(py::str(*e.name)) : py::object(py::none());
      d["timestamp"] = e.timestamp;
    });
  }
  void onQueryProgress(const stream::QueryProgressEvent& e) override {
    std::string json = e.progress.json(), pretty = e.progress.prettyJson();
    Call("progress", [&](py::dict& d) {
      d["json"] = json;
      d["prettyJson"] = pretty;
    });
  }
  void onQueryIdle(const stream::QueryIdleEvent& e) override {
    Call("idle", [&](py::dict& d) {
      d["id"] = e.id;
      d["runId"] = e.run_id;
      d["timestamp"] = e.timestamp;
    });
  }
  void onQueryTerminated(const stream::QueryTerminatedEvent& e) override {
    Call("terminated", [&](py::dict& d) {
      d["id"] = e.id;
      d["runId"] = e.run_id;
      d["exception"] =
          e.exception ? py::object(py::str(*e.exception)) : py::object(py::none());
      d["errorClassOnException"] = e.error_class_on_exception
                                       ? py::object(py::str(*e.error_class_on_exception))
                                       : py::object(py::none());
    });
  }

 private:
  template <typename Fill>
  void Call(const char* kind, Fill fill) {
    if (!PythonAlive()) return;
    py::gil_scoped_acquire gil;
    try {
      py::dict d;
      fill(d);
      (*adapter_)(kind, d);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(*listener_);
    } catch (const std::exception&) {
      // Listener failures never fail the query (Spark logs and ignores them).
    }
  }

  PyRef listener_;
  PyRef adapter_;
};

// ---- StreamingQuery
// -------------------------------------------------------------------------

/// Python holds queries through this shared_ptr: dropping the last reference of a query
/// joins its thread, which may be waiting for the GIL in a callback, so the GIL is
/// released first.
using QueryPtr = std::shared_ptr<api::StreamingQuery>;

QueryPtr Wrap(api::StreamingQuery q) {
  return QueryPtr(new api::StreamingQuery(std::move(q)), [](api::StreamingQuery* p) {
    if (PythonAlive() && PyGILState_Check()) {
      py::gil_scoped_release release;
      delete p;
    } else {
      delete p;
    }
  });
}

/// Waits for `wait(slice_seconds)` to return true, in short slices with the GIL released,
/// checking for signals between them: Ctrl-C stops `q` (when given) and raises
/// KeyboardInterrupt. `timeout` < 0 waits forever. Returns whether `wait` became true.
template <typename Wait>
bool InterruptibleWait(Wait wait, double timeout, const api::StreamingQuery* q) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  for (;;) {
    double slice = 0.1;
    if (timeout >= 0) {
      double left = timeout - std::chrono::duration<double>(Clock::now() - start).count();
      if (left <= 0) return false;
      slice = std::min(slice, left);
    }
    bool done;
    {
      py::gil_scoped_release release;
      done = wait(slice);
    }
    // Signals first: a Ctrl-C that arrived while the wait ended still stops the query.
    if (PyErr_CheckSignals() != 0) {
      if (q != nullptr) {
        // Keep the KeyboardInterrupt pending while the query stops.
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        {
          py::gil_scoped_release release;
          q->stop();
        }
        PyErr_Restore(type, value, tb);
      }
      throw py::error_already_set();
    }
    if (done) return true;
  }
}

py::object ExceptionTuple(const std::optional<api::StreamingQueryException>& e) {
  if (!e) return py::none();
  py::dict params;
  for (const auto& [k, v] : e->getMessageParameters()) params[py::str(k)] = v;
  return py::make_tuple(std::string(e->what()), e->getErrorClass(), e->getSqlState(),
                        params);
}

void BindQuery(py::module_& m) {
  using api::StreamingQuery;
  py::class_<StreamingQuery, QueryPtr>(m, "StreamingQuery")
      .def("id", &StreamingQuery::id)
      .def("runId", &StreamingQuery::runId)
      .def("name", &StreamingQuery::name)
      .def("isActive", &StreamingQuery::isActive,
           py::call_guard<py::gil_scoped_release>())
      .def("statusJson",
           [](const StreamingQuery& q) {
             py::gil_scoped_release release;
             return q.status().json();
           })
      // (json, prettyJson) of the last progress, or None.
      .def("lastProgressJson",
           [](const StreamingQuery& q)
               -> std::optional<std::pair<std::string, std::string>> {
             py::gil_scoped_release release;
             auto p = q.lastProgress();
             if (!p) return std::nullopt;
             return std::make_pair(p->json(), p->prettyJson());
           })
      .def("recentProgressJson",
           [](const StreamingQuery& q) {
             py::gil_scoped_release release;
             std::vector<std::pair<std::string, std::string>> out;
             for (const auto& p : q.recentProgress())
               out.emplace_back(p.json(), p.prettyJson());
             return out;
           })
      // awaitTermination(timeout_seconds or None): None -> waits; Ctrl-C stops the query.
      .def("awaitTermination",
           [](const StreamingQuery& q, std::optional<double> timeout) -> py::object {
             bool done =
                 InterruptibleWait([&](double s) { return q.awaitTermination(s); },
                                   timeout ? *timeout : -1, &q);
             if (!timeout) return py::none();
             return py::bool_(done);
           })
      // processAllAvailable(): waits on a helper thread so that Ctrl-C can stop the query
      // (which ends the wait) and propagate.
      .def("processAllAvailable",
           [](const StreamingQuery& q) {
             struct Wait {
               std::mutex mu;
               std::condition_variable cv;
               bool done = false;
               Status st;
             };
             auto w = std::make_shared<Wait>();
             std::thread t([impl = q.impl(), w] {
               Status st = impl->ProcessAllAvailable();
               std::lock_guard<std::mutex> lock(w->mu);
               w->st = st;
               w->done = true;
               w->cv.notify_all();
             });
             auto join = [&] {
               py::gil_scoped_release release;
               t.join();
             };
             try {
               InterruptibleWait(
                   [&](double s) {
                     std::unique_lock<std::mutex> lock(w->mu);
                     return w->cv.wait_for(lock, std::chrono::duration<double>(s),
                                           [&] { return w->done; });
                   },
                   -1, &q);
             } catch (...) {
               join();  // the query was stopped: the wait ends
               throw;
             }
             join();
             api::CheckOrThrow(w->st);
           })
      .def("stop", &StreamingQuery::stop, py::call_guard<py::gil_scoped_release>())
      .def("exception",
           [](const StreamingQuery& q) {
             std::optional<api::StreamingQueryException> e;
             {
               py::gil_scoped_release release;
               e = q.exception();
             }
             return ExceptionTuple(e);
           })
      .def("explainString", [](const StreamingQuery& q, bool extended) {
        std::optional<DataFrame> df;
        {
          std::lock_guard<std::mutex> lock(g_started_mu);
          auto it = Plans().find(q.runId());
          if (it != Plans().end()) df = it->second;
        }
        // As Spark's explainInternal: nothing before the first micro-batch ran.
        if (!df || !q.lastProgress())
          return std::string("No physical plan. Waiting for data.");
        py::gil_scoped_release release;
        // The last micro-batch's physical plan (stateful operators included); extended
        // adds the streaming DataFrame's logical plans.
        if (!extended) return q.explainString();
        return df->explainString("extended");
      });

  using api::StreamingQueryManager;
  py::class_<StreamingQueryManager>(m, "StreamingQueryManager")
      .def("active",
           [](const StreamingQueryManager& sqm) {
             std::vector<api::StreamingQuery> qs;
             {
               py::gil_scoped_release release;
               qs = sqm.active();
             }
             std::vector<QueryPtr> out;
             for (auto& q : qs) out.push_back(Wrap(std::move(q)));
             return out;
           })
      .def("get",
           [](const StreamingQueryManager& sqm, const std::string& id) -> QueryPtr {
             std::optional<api::StreamingQuery> q;
             {
               py::gil_scoped_release release;
               q = sqm.get(id);
             }
             if (!q) return nullptr;
             return Wrap(std::move(*q));
           })
      .def("awaitAnyTermination",
           [](const StreamingQueryManager& sqm,
              std::optional<double> timeout) -> py::object {
             bool done =
                 InterruptibleWait([&](double s) { return sqm.awaitAnyTermination(s); },
                                   timeout ? *timeout : -1, nullptr);
             if (!timeout) return py::none();
             return py::bool_(done);
           })
      .def("resetTerminated", &StreamingQueryManager::resetTerminated,
           py::call_guard<py::gil_scoped_release>())
      // addListener(listener, adapter): adapter(kind, dict) is called for each event.
      .def("addListener",
           [](const StreamingQueryManager& sqm, py::object listener, py::object adapter) {
             auto l = std::make_shared<PyListener>(MakeRef(std::move(listener)),
                                                   MakeRef(std::move(adapter)));
             py::gil_scoped_release release;
             sqm.addListener(l);
           })
      .def("removeListener",
           [](const StreamingQueryManager& sqm, const py::object& listener) {
             for (const auto& l : sqm.impl()->Listeners()) {
               auto pl = std::dynamic_pointer_cast<PyListener>(l);
               if (pl && pl->listener()->is(listener)) {
                 py::gil_scoped_release release;
                 sqm.removeListener(l);
               }
             }
           });
}

// ---- readStream / writeStream
// -------------------------------------------------------------

void ApplySchema(api::DataStreamReader& r, py::handle schema) {
  if (schema.is_none()) return;
  if (py::isinstance<py::str>(schema)) {
    r.schema(schema.cast<std::string>());
  } else {
    r.schema(api::StructType(TypeFromPy(schema)->fields()));
  }
}

stream::Trigger MakeTrigger(const std::string& kind, const std::string& interval) {
  if (kind == "processingTime") return api::Trigger::ProcessingTime(interval);
  if (kind == "once") return api::Trigger::Once();
  if (kind == "availableNow") return api::Trigger::AvailableNow();
  if (kind == "continuous") return api::Trigger::Continuous(interval);
  if (kind == "realTime") return api::Trigger::RealTime(interval);
  return stream::Trigger::Default();
}

void BindReadWrite(py::module_& m) {
  m.def("readStreamLoad", [](const SparkSession& s, const std::string& format,
                             const std::map<std::string, std::string>& options,
                             py::handle schema, std::optional<std::string> path) {
    api::DataStreamReader r = s.readStream();
    if (!format.empty()) r.format(format);
    r.options(options);
    ApplySchema(r, schema);
    py::gil_scoped_release release;
    return path ? r.load(*path) : r.load();
  });
  m.def("readStreamTable",
        [](const SparkSession& s, const std::map<std::string, std::string>& options,
           const std::string& name) {
          api::DataStreamReader r = s.readStream();
          r.options(options);
          py::gil_scoped_release release;
          return r.table(name);
        });
  m.def("isStreaming", [](const DataFrame& d) { return d.isStreaming(); });
  // Trigger intervals are checked when trigger() is called, as Trigger.ProcessingTime
  // does.
  m.def("triggerIntervalMs", [](const std::string& interval) {
    return api::ValueOrThrow(stream::Trigger::ParseIntervalMs(interval));
  });
  m.def("streams", [](const SparkSession& s) { return s.streams(); });
  m.def("stop_all_queries", &StopAllQueries);

  // writeStreamStart(df, spec, batch_fn, foreach_mode): spec is a dict with format,
  // outputMode, options, queryName, partitionBy, trigger (kind, interval), path, table.
  // batch_fn(native_df, batch_id) -> None | traceback text, for foreachBatch/foreach.
  m.def("writeStreamStart", [](const DataFrame& df, const py::dict& spec,
                               py::object batch_fn, bool foreach_mode) {
    // foreach_mode: batch_fn is a _ForeachAdapter (open/process/close), not a batch
    // function.
    api::DataStreamWriter w = df.writeStream();
    std::optional<std::string> temp_checkpoint;
    auto format = spec["format"].cast<std::optional<std::string>>();
    if (format) w.format(*format);
    auto mode = spec["outputMode"].cast<std::optional<std::string>>();
    if (mode) w.outputMode(*mode);
    w.options(spec["options"].cast<std::map<std::string, std::string>>());
    auto name = spec["queryName"].cast<std::optional<std::string>>();
    if (name) w.queryName(*name);
    auto parts = spec["partitionBy"].cast<std::vector<std::string>>();
    if (!parts.empty()) w.partitionBy(parts);
    auto trigger = spec["trigger"].cast<std::pair<std::string, std::string>>();
    if (!trigger.first.empty()) w.trigger(MakeTrigger(trigger.first, trigger.second));
    if (!batch_fn.is_none()) {
      // As Spark (SOURCES_ALLOW_ONE_TIME_QUERY), foreach/foreachBatch queries may run
      // without a checkpoint location: a temporary one is used (kept after the query).
      auto opts = spec["options"].cast<std::map<std::string, std::string>>();
      bool has_location = false;
      for (const auto& [k, v] : opts)
        has_location |= ToLower(k) == "checkpointlocation" && !v.empty();
      if (!has_location && df.session()
                               ->conf.GetOr("spark.sql.streaming.checkpointLocation", "")
                               .empty()) {
        const char* tmp = std::getenv("TMPDIR");
        temp_checkpoint =
            io::JoinPath(tmp && *tmp ? tmp : "/tmp", "temporary-" + stream::RandomUuid());
        w.option("checkpointLocation", *temp_checkpoint);
      }
      PyRef fn = MakeRef(std::move(batch_fn));
      if (foreach_mode) {
        std::vector<std::string> names;
        const auto schema = df.schema();  // fields() refers into it: keep it alive
        for (const auto& f : schema.fields()) names.push_back(f.name);
        auto tz = TimeZone::Find(df.session()->conf.session_time_zone());
        w.foreach (std::make_shared<PyForeachWriter>(fn, std::move(names),
                                                     tz.ok() ? *tz : TimeZone()));
      } else {
        w.foreachBatch([fn](const DataFrame& batch, int64_t id) {
          RunBatchCallback(fn, batch, id, "FOREACH_BATCH_USER_FUNCTION_ERROR");
        });
      }
    }
    auto path = spec["path"].cast<std::optional<std::string>>();
    auto table = spec["table"].cast<std::optional<std::string>>();
    std::optional<api::StreamingQuery> q;
    {
      py::gil_scoped_release release;
      // Registered before the start, so even a query that ends at once is cleaned up.
      std::shared_ptr<TempCheckpointCleaner> cleaner;
      if (temp_checkpoint) {
        cleaner = CleanerOf(api::StreamingQueryManager(api::StreamsOf(df.session())));
        cleaner->Expect(1);
      }
      try {
        if (table) {
          q = w.toTable(*table);
        } else if (path) {
          q = w.start(*path);
        } else {
          q = w.start();
        }
      } catch (...) {
        if (cleaner) cleaner->Expect(-1);
        throw;
      }
      if (cleaner) {
        cleaner->Add(q->runId(), *temp_checkpoint);
        cleaner->Expect(-1);
      }
      Remember(*q, df);  // may drop the last reference of an ended query: no GIL
    }
    return Wrap(std::move(*q));
  });
}

}  // namespace

static std::mutex& CapturedMu() {
  static std::mutex mu;
  return mu;
}
static std::optional<stream::QueryConfig>& Captured() {
  static std::optional<stream::QueryConfig> config;
  return config;
}

// Clears the start hook and takes the query it caught (nullopt: none was started).
static std::optional<stream::QueryConfig> TakeCaptured() {
  stream::SetQueryStartHook(nullptr);
  std::lock_guard<std::mutex> lock(CapturedMu());
  std::optional<stream::QueryConfig> config = std::move(Captured());
  Captured().reset();
  return config;
}

void BindStreaming(py::module_& m) {
  BindQuery(m);
  BindReadWrite(m);
  // spate.checkpoint.check: while a query script runs, writeStream...start() / toTable()
  // hand the query to the check instead of starting it (stream::SetQueryStartHook); the
  // first query so handed is checked against the checkpoint.
  m.def("checkpointCheckBegin", [] {
    {
      std::lock_guard<std::mutex> lock(CapturedMu());
      Captured().reset();
    }
    stream::SetQueryStartHook([](const stream::QueryConfig& config) -> Status {
      std::lock_guard<std::mutex> lock(CapturedMu());
      if (!Captured()) Captured() = config;
      return Status::OK();
    });
  });
  // -> None (no query was started) or (json text, text, exit code).
  m.def(
      "checkpointCheckEnd",
      [](const std::string& dir)
          -> std::optional<std::tuple<std::string, std::string, int>> {
        std::optional<stream::QueryConfig> config = TakeCaptured();
        if (!config) return std::nullopt;
        auto c = api::ValueOrThrow(stream::CheckQueryAgainstCheckpoint(
            io::LocalFileSystem::Get(), dir, *config));
        return std::make_tuple(c.ToJson().ToPrettyString(), c.ToText(), c.ExitCode());
      },
      py::call_guard<py::gil_scoped_release>());
  // spate.checkpoint.replay: the query handed over as for the check, then batch N
  // replayed (api/checkpoint_replay.h). -> None (no query was started) or (json text,
  // text, exit code).
  m.def(
      "checkpointReplayEnd",
      [](const SparkSession& spark, const std::string& dir, int64_t batch,
         const std::optional<std::string>& out)
          -> std::optional<std::tuple<std::string, std::string, int>> {
        std::optional<stream::QueryConfig> config = TakeCaptured();
        if (!config) return std::nullopt;
        api::BatchReplay r = api::ReplayBatch(spark, *config, dir, batch, out);
        return std::make_tuple(r.ToJson().ToPrettyString(), r.ToText(), r.ExitCode());
      },
      py::call_guard<py::gil_scoped_release>());
  // The program that starts this process's queries (its record names it; the JSON of
  // stream::QueryProgram), set by spate's writeStream before each start.
  m.def("setQueryProgram", [](const std::string& json) {
    auto v = api::ValueOrThrow(Json::Parse(json));
    stream::SetQueryProgram(api::ValueOrThrow(stream::QueryProgram::FromJson(v)));
  });
  // The program the checkpoint's record names when it can run again (JSON), else the
  // engine's error naming what is missing.
  m.def(
      "recordedProgram",
      [](const std::string& dir) {
        return api::ValueOrThrow(
                   stream::RecordedProgram(*io::LocalFileSystem::Get(), dir))
            .ToJson()
            .ToString();
      },
      py::call_guard<py::gil_scoped_release>());
  // spate.checkpoint.describe: `spate checkpoint describe` as (json text, text).
  m.def(
      "describeCheckpoint",
      [](const std::string& dir) {
        auto d = api::ValueOrThrow(
            stream::DescribeCheckpoint(io::LocalFileSystem::Get(), dir));
        return std::make_pair(d.ToJson().ToString(), d.ToText());
      },
      py::call_guard<py::gil_scoped_release>());
}

}  // namespace spate::python
