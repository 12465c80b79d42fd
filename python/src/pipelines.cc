// Copyright spate authors.
//
// Bindings of declarative pipelines (spate/api/pipeline.h) for spate.pipelines: the graph
// of datasets and flows, SQL files added as they are, Python flows as callables that
// return a spate.sql DataFrame (called under the GIL when the flow runs).
//
// GIL: run() releases it (its streaming queries run on their threads); a Python flow's
// callable takes it back. stop() is thread-safe.

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "spate/api/exceptions.h"
#include "spate/api/pipeline.h"

namespace py = pybind11;

namespace spate::python {

using api::DataFrame;
using api::Pipeline;
using api::PipelineOptions;
using api::SparkSession;

namespace {

/// A run's per-flow results as dicts (flow, target, kind, batches, rows, status, error).
py::list FlowResults(const std::vector<Pipeline::FlowResult>& results) {
  py::list out;
  for (const auto& r : results) {
    py::dict d;
    d["flow"] = r.flow;
    d["target"] = r.target;
    d["kind"] = r.kind;
    d["batches"] = r.batches;
    d["rows"] = r.rows;
    d["status"] = r.status;
    d["error"] = r.error.empty() ? py::object(py::none()) : py::object(py::str(r.error));
    out.append(d);
  }
  return out;
}

}  // namespace

void BindPipelines(py::module_& m) {
  py::enum_<Pipeline::DatasetKind>(m, "PipelineDatasetKind")
      .value("STREAMING_TABLE", Pipeline::DatasetKind::kStreamingTable)
      .value("MATERIALIZED_VIEW", Pipeline::DatasetKind::kMaterializedView)
      .value("TEMPORARY_VIEW", Pipeline::DatasetKind::kTemporaryView);
  py::class_<Pipeline, std::shared_ptr<Pipeline>>(m, "Pipeline")
      .def(
          py::init([](const SparkSession& spark, const std::string& storage,
                      std::optional<std::string> database, bool continuous,
                      const std::string& trigger_interval,
                      const std::vector<std::string>& full_refresh, bool full_refresh_all,
                      std::optional<py::function> on_event, bool dry_run) {
            PipelineOptions o;
            o.dry_run = dry_run;
            o.storage = storage;
            o.database = std::move(database);
            o.continuous = continuous;
            o.trigger_interval = trigger_interval;
            o.full_refresh = full_refresh;
            o.full_refresh_all = full_refresh_all;
            if (on_event) {
              auto fn = std::make_shared<py::function>(*on_event);
              o.on_event = [fn](const std::string& line) {
                py::gil_scoped_acquire gil;
                (*fn)(line);
              };
            }
            // Ctrl-C in Python: a continuous run polls for a pending KeyboardInterrupt.
            o.should_stop = [] {
              py::gil_scoped_acquire gil;
              return PyErr_CheckSignals() != 0;
            };
            return std::make_shared<Pipeline>(spark, std::move(o));
          }),
          py::arg("spark"), py::arg("storage"), py::arg("database") = py::none(),
          py::arg("continuous") = false, py::arg("trigger_interval") = "10 seconds",
          py::arg("full_refresh") = std::vector<std::string>{},
          py::arg("full_refresh_all") = false, py::arg("on_event") = py::none(),
          py::arg("dry_run") = false)
      .def("add_sql", &Pipeline::addSql, py::arg("text"), py::arg("file") = "")
      .def(
          "define_dataset",
          [](Pipeline& p, const std::string& name, Pipeline::DatasetKind kind,
             std::optional<std::string> comment,
             const std::vector<std::pair<std::string, std::string>>& properties,
             const std::vector<std::string>& partition_columns,
             std::optional<std::string> schema_ddl) {
            Pipeline::Dataset d;
            d.name = name;
            d.kind = kind;
            d.comment = std::move(comment);
            d.properties = properties;
            d.partition_columns = partition_columns;
            if (schema_ddl) d.schema = api::StructType::fromDDL(*schema_ddl).ToSchema();
            p.defineDataset(d);
          },
          py::arg("name"), py::arg("kind"), py::arg("comment") = py::none(),
          py::arg("properties") = std::vector<std::pair<std::string, std::string>>{},
          py::arg("partition_columns") = std::vector<std::string>{},
          py::arg("schema") = py::none())
      .def(
          "define_flow",
          [](Pipeline& p, const std::string& name, const std::string& target,
             py::function query, bool by_name) {
            auto fn = std::shared_ptr<py::function>(new py::function(std::move(query)),
                                                    [](py::function* f) {
                                                      py::gil_scoped_acquire gil;
                                                      delete f;
                                                    });
            Pipeline::Flow f;
            f.name = name;
            f.target = target;
            f.by_name = by_name;
            f.query = [fn]() {
              py::gil_scoped_acquire gil;
              try {
                py::object df = (*fn)();
                return df.attr("_jdf").cast<DataFrame>();
              } catch (py::error_already_set& e) {
                // An engine error raised in the function goes back as the engine's (the
                // runner defers a flow whose input does not exist yet).
                py::object v = e.value();
                if (py::hasattr(v, "getErrorClass")) {
                  py::object cls = v.attr("getErrorClass")();
                  if (!cls.is_none()) {
                    std::vector<ErrorParam> params;
                    for (auto item : v.attr("getMessageParameters")().cast<py::dict>()) {
                      params.push_back({py::str(item.first), py::str(item.second)});
                    }
                    api::ThrowStatus(
                        Status::Error(cls.cast<std::string>(), std::move(params)));
                  }
                }
                throw;
              }
            };
            p.defineFlow(std::move(f));
          },
          py::arg("name"), py::arg("target"), py::arg("query"),
          py::arg("by_name") = false)
      .def("flow_order", &Pipeline::flowOrder)
      .def("run",
           [](Pipeline& p) {
             std::vector<Pipeline::FlowResult> results;
             {
               py::gil_scoped_release release;
               results = p.run();
             }
             return FlowResults(results);
           })
      .def("last_run", [](const Pipeline& p) { return FlowResults(p.lastRun()); })
      // spate.checkpoint.check / replay of a spec's flow: (json text, text, exit code).
      .def(
          "checkpoint_check",
          [](Pipeline& p, const std::string& dir) {
            stream::CheckpointCheck c = p.checkCheckpoint(dir);
            return std::make_tuple(c.ToJson().ToPrettyString(), c.ToText(), c.ExitCode());
          },
          py::arg("dir"), py::call_guard<py::gil_scoped_release>())
      .def(
          "checkpoint_replay",
          [](Pipeline& p, const std::string& dir, int64_t batch,
             std::optional<std::string> out) {
            api::BatchReplay r = p.replayCheckpoint(dir, batch, out);
            return std::make_tuple(r.ToJson().ToPrettyString(), r.ToText(), r.ExitCode());
          },
          py::arg("dir"), py::arg("batch"), py::arg("out") = std::nullopt,
          py::call_guard<py::gil_scoped_release>())
      .def("stop", &Pipeline::stop);
  // spate.checkpoint.check on a pipeline's SQL file: (json text, text, exit code).
  m.def(
      "checkpointCheckSql",
      [](const SparkSession& spark, const std::string& dir, const std::string& text,
         const std::string& name) {
        stream::CheckpointCheck c =
            api::CheckSqlFlowAgainstCheckpoint(spark, dir, text, name);
        return std::make_tuple(c.ToJson().ToPrettyString(), c.ToText(), c.ExitCode());
      },
      py::arg("spark"), py::arg("dir"), py::arg("text"), py::arg("name") = "",
      py::call_guard<py::gil_scoped_release>());
  // spate.checkpoint.replay on a pipeline's SQL file: (json text, text, exit code).
  m.def(
      "checkpointReplaySql",
      [](const SparkSession& spark, const std::string& dir, const std::string& text,
         const std::string& name, int64_t batch, std::optional<std::string> out) {
        api::BatchReplay r = api::ReplaySqlFlowBatch(spark, dir, text, name, batch, out);
        return std::make_tuple(r.ToJson().ToPrettyString(), r.ToText(), r.ExitCode());
      },
      py::arg("spark"), py::arg("dir"), py::arg("text"), py::arg("name"),
      py::arg("batch"), py::arg("out") = std::nullopt,
      py::call_guard<py::gil_scoped_release>());
}

}  // namespace spate::python
