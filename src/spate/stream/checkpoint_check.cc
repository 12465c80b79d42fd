// Copyright spate authors.
#include "spate/stream/checkpoint_check.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "spate/base/redact.h"
#include "spate/base/text_parse.h"
#include "spate/stream/state_data_source.h"
#include "spate/stream/streaming_plan.h"
#include "spate/stream/tws_state_schema.h"
#include "spate/types/schema_json.h"

namespace spate::stream {

namespace {

using Verdict = CheckFinding::Verdict;

const char* BoundKindName(sql::BoundKind k) {
  switch (k) {
    case sql::BoundKind::kRange:
      return "Range";
    case sql::BoundKind::kLocal:
      return "LocalRelation";
    case sql::BoundKind::kOneRow:
      return "OneRowRelation";
    case sql::BoundKind::kProject:
      return "Project";
    case sql::BoundKind::kFilter:
      return "Filter";
    case sql::BoundKind::kAggregate:
      return "Aggregate";
    case sql::BoundKind::kJoin:
      return "Join";
    case sql::BoundKind::kSort:
      return "Sort";
    case sql::BoundKind::kLimit:
      return "Limit";
    case sql::BoundKind::kUnion:
      return "Union";
    case sql::BoundKind::kSetOp:
      return "SetOperation";
    case sql::BoundKind::kWindow:
      return "Window";
    case sql::BoundKind::kRepartition:
      return "Repartition";
    case sql::BoundKind::kGenerate:
      return "Generate";
    case sql::BoundKind::kFileScan:
      return "Relation";
    case sql::BoundKind::kWatermark:
      return "EventTimeWatermark";
    case sql::BoundKind::kExtension:
      return "Extension";
  }
  return "?";
}

/// An expression's text without attribute ids ("k#12" -> "k"), stable across runs.
std::string ExprText(const BoundExpr& e) {
  std::string t = e.ToString(), out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '#' && i + 1 < t.size() &&
        std::isdigit(static_cast<unsigned char>(t[i + 1]))) {
      while (i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1]))) ++i;
      // Spark's "L" suffix of a bigint attribute ("v#2L").
      if (i + 1 < t.size() && t[i + 1] == 'L' &&
          (i + 2 >= t.size() || !std::isalnum(static_cast<unsigned char>(t[i + 2]))))
        ++i;
      continue;
    }
    out += t[i];
  }
  return out;
}

void Walk(const sql::BoundPlan& node, QueryShape* shape) {
  std::string entry =
      StreamingLeafOf(node) ? "StreamingRelation" : BoundKindName(node.kind);
  if (node.kind == sql::BoundKind::kProject) {
    entry += " [";
    for (size_t i = 0; i < node.exprs.size(); ++i) {
      if (i) entry += ", ";
      entry += ExprText(*node.exprs[i]);
      if (i < node.output.size()) entry += " AS " + node.output[i].name;
    }
    entry += "]";
  } else if (node.kind == sql::BoundKind::kFilter && node.condition) {
    entry += " [" + ExprText(*node.condition) + "]";
  }
  shape->plan.push_back(std::move(entry));
  if (node.kind == sql::BoundKind::kWatermark && !node.children.empty() &&
      IsStreamingBound(*node.child()) && node.watermark_column >= 0 &&
      static_cast<size_t>(node.watermark_column) < node.output.size()) {
    QueryShape::Watermark w;
    w.column = node.output[static_cast<size_t>(node.watermark_column)].name;
    w.delay_ms = node.watermark_delay_ms;
    w.delay = node.watermark_delay_text;
    shape->watermarks.push_back(std::move(w));
  }
  for (const auto& c : node.children) Walk(*c, shape);
}

std::string Str(const Json& v, std::string_view key) {
  const Json* f = v.Find(key);
  return f && f->is_string() ? f->string_value() : std::string();
}

int64_t Int(const Json& v, std::string_view key, int64_t dflt = 0) {
  const Json* f = v.Find(key);
  return f && f->is_number() ? f->int_value() : dflt;
}

/// Spark's listing of operators in STREAMING_STATEFUL_OPERATOR_* messages:
/// "(OperatorId: 0 -> OperatorName: stateStoreSave), ...".
std::string OpsSeq(const std::map<int64_t, std::string>& ops) {
  std::string out;
  for (const auto& [id, name] : ops) {
    if (!out.empty()) out += ", ";
    out += "(OperatorId: " + std::to_string(id) + " -> OperatorName: " + name + ")";
  }
  return out;
}

/// The source kind an offset JSON belongs to, as far as its shape tells; empty when it
/// does not.
std::string OffsetKind(const Json& o) {
  if (o.is_object()) {
    if (o.Find("logOffset")) return "file";
    if (o.Find("reservoirId")) return "delta";
    if (o.Find("offset") && o.Find("timestamp")) return "rate-micro-batch";
    bool all_objects = !o.fields().empty();
    for (const auto& [k, v] : o.fields()) all_objects &= v.is_object();
    if (all_objects) return "kafka";
  }
  return "";
}

std::string FormatKind(const std::string& format) {
  static const char* kFile[] = {"json", "csv",        "text",      "parquet",
                                "orc",  "cloudfiles", "binaryfile"};
  for (const char* f : kFile) {
    if (format == f) return "file";
  }
  return format;
}

CheckFinding Finding(Verdict v, std::string change, std::string message,
                     std::optional<std::string> error_class = std::nullopt) {
  CheckFinding f;
  f.verdict = v;
  f.change = std::move(change);
  f.message = std::move(message);
  f.error_class = std::move(error_class);
  return f;
}

/// "[CLASS] message" of a status whose class is Spark's.
std::string SparkText(const Status& st) {
  return "[" + st.error_class() + "] " + st.message();
}

/// The operator name Spark 4.x records in state/<id>/_metadata/metadata ("v1"/"v2" line,
/// then {"operatorInfo":{"operatorId":..,"operatorName":..},...}); nullopt without one.
std::optional<std::string> SparkOperatorName(io::FileSystem& fs,
                                             const std::string& state_root, int64_t id) {
  auto text = fs.ReadAll(io::JoinPath(
      io::JoinPath(io::JoinPath(state_root, std::to_string(id)), "_metadata"),
      "metadata"));
  if (!text.ok()) return std::nullopt;
  size_t nl = text->find('\n');
  if (nl == std::string::npos || text->rfind("v", 0) != 0) return std::nullopt;
  auto doc = Json::Parse(std::string_view(*text).substr(nl + 1));
  if (!doc.ok()) return std::nullopt;
  const Json* info = doc->Find("operatorInfo");
  if (!info) return std::nullopt;
  std::string name = Str(*info, "operatorName");
  if (name.empty()) return std::nullopt;
  return name;
}

/// The key and value schemas Spark's schema file holds (state/<id>/0/_metadata/schema:
/// Java writeUTF("v2"), then per schema an int32 count of writeUTF chunks of its JSON;
/// "v1": one writeUTF each). nullopt when there is none or it is not readable.
std::optional<state::StateSchemas> SparkStateSchemas(io::FileSystem& fs,
                                                     const std::string& state_root,
                                                     int64_t id) {
  auto bytes = fs.ReadAll(io::JoinPath(
      io::JoinPath(io::JoinPath(io::JoinPath(state_root, std::to_string(id)), "0"),
                   "_metadata"),
      "schema"));
  if (!bytes.ok()) return std::nullopt;
  JavaDataReader in(*bytes);
  std::string version, key, value;
  if (!in.Utf(&version)) return std::nullopt;
  if (version == "v1") {
    if (!in.Utf(&key) || !in.Utf(&value)) return std::nullopt;
  } else if (version == "v2") {
    if (!in.Chunked(&key) || !in.Chunked(&value)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  auto k = SchemaFromSparkJson(key);
  auto v = SchemaFromSparkJson(value);
  if (!k.ok() || !v.ok()) return std::nullopt;
  return state::StateSchemas{*k, *v};
}

std::mutex g_hook_mu;
QueryStartHook g_hook;

std::mutex g_program_mu;
std::optional<QueryProgram> g_program;

Json StringArray(const std::vector<std::string>& items) {
  Json a = Json::Array();
  for (const auto& i : items) a.Append(Json::String(i));
  return a;
}

std::vector<std::string> Strings(const Json& v, std::string_view key) {
  std::vector<std::string> out;
  if (const Json* a = v.Find(key); a && a->is_array()) {
    for (const auto& j : a->items()) out.push_back(j.is_string() ? j.string_value() : "");
  }
  return out;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + i;
  return out;
}

Status ProgramMissing(const std::string& dir, const std::string& what) {
  return Status::Error(
      "SPATE_STREAMING_INVALID",
      {{"msg", "Cannot run the query of " + dir + " again without --query: " + what +
                   ". Pass --query FILE (a Python script or a " +
                   "pipeline's SQL file that starts the same query)."}});
}

}  // namespace

// ---- QueryProgram

Json QueryProgram::ToJson() const {
  Json o = Json::Object();
  o.Set("kind", Json::String(kind));
  o.Set("cwd", Json::String(cwd));
  if (!executable.empty()) o.Set("executable", Json::String(executable));
  o.Set("files", StringArray(files));
  std::vector<std::string> redacted;
  for (const auto& a : args) redacted.push_back(RedactText(a));
  o.Set("args", StringArray(redacted));
  Json c = Json::Object();
  for (const auto& [k, v] : confs) c.Set(k, Json::String(RedactValue(k, v)));
  o.Set("confs", std::move(c));
  if (!database.empty()) o.Set("database", Json::String(database));
  return o;
}

Result<QueryProgram> QueryProgram::FromJson(const Json& v) {
  if (!v.is_object())
    return Status::Invalid("the query record's program is not an object");
  QueryProgram p;
  p.kind = Str(v, "kind");
  p.cwd = Str(v, "cwd");
  p.executable = Str(v, "executable");
  p.files = Strings(v, "files");
  p.args = Strings(v, "args");
  if (const Json* c = v.Find("confs"); c && c->is_object()) {
    for (const auto& [k, val] : c->fields()) {
      p.confs.emplace_back(k, val.is_string() ? val.string_value() : val.ToString());
    }
  }
  p.database = Str(v, "database");
  return p;
}

void SetQueryProgram(std::optional<QueryProgram> program) {
  std::lock_guard<std::mutex> lock(g_program_mu);
  g_program = std::move(program);
}

QueryProgram CurrentQueryProgram() {
  {
    std::lock_guard<std::mutex> lock(g_program_mu);
    if (g_program) return *g_program;
  }
  QueryProgram p;
  p.kind = "c++";
  std::error_code ec;
  p.cwd = std::filesystem::current_path(ec).string();
  p.executable = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  bool first = true;
  while (std::getline(in, arg, '\0')) {
    if (!first) p.args.push_back(arg);
    first = false;
  }
  return p;
}

Result<QueryProgram> RecordedProgram(io::FileSystem& fs, const std::string& dir) {
  const std::string path = QueryRecordPath(dir);
  auto text = fs.ReadAll(path);
  if (!text.ok()) {
    if (text.status().code() != StatusCode::kNotFound) return text.status();
    return ProgramMissing(dir,
                          "it has no query record (spate-query.json; a checkpoint "
                          "written by Spark, or by a run that committed no batch)");
  }
  SPATE_ASSIGN_OR_RETURN(Json parsed, Json::Parse(*text));
  const Json* program = parsed.Find("program");
  if (program == nullptr) {
    return ProgramMissing(dir, "its query record (" + path +
                                   ") does not name the program "
                                   "that ran it (written by an older spate)");
  }
  SPATE_ASSIGN_OR_RETURN(QueryProgram p, QueryProgram::FromJson(*program));
  if (p.kind == "c++") {
    return ProgramMissing(dir, "it was written by the compiled program " + p.executable +
                                   (p.args.empty() ? "" : " " + Joined(p.args)) +
                                   " (in " + p.cwd +
                                   "), which replay cannot re-run with its query "
                                   "handed over");
  }
  if (p.kind != "python" && p.kind != "pipeline") {
    return ProgramMissing(
        dir, "its query record names a program of unknown kind '" + p.kind + "'");
  }
  if (p.files.empty()) {
    return ProgramMissing(dir,
                          "its query was started by Python code not run from a script "
                          "(an interactive session, python -c, a notebook or a test "
                          "runner)");
  }
  for (const auto& f : p.files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec)) {
      return ProgramMissing(dir, "the recorded program file " + f + " no longer exists");
    }
  }
  return p;
}

// ---- QueryShape

Json QueryShape::ToJson() const {
  Json o = Json::Object();
  o.Set("version", Json::Int(1));
  Json src = Json::Array();
  for (const auto& s : sources) {
    Json j = Json::Object();
    j.Set("format", Json::String(s.format));
    j.Set("description", Json::String(RedactText(s.description)));
    src.Append(std::move(j));
  }
  o.Set("sources", std::move(src));
  o.Set("sink", Json::String(RedactText(sink)));
  o.Set("outputMode", Json::String(output_mode));
  Json wms = Json::Array();
  for (const auto& w : watermarks) {
    Json j = Json::Object();
    j.Set("column", Json::String(w.column));
    j.Set("delay", Json::String(w.delay));
    j.Set("delayMs", Json::Int(w.delay_ms));
    wms.Append(std::move(j));
  }
  o.Set("watermarks", std::move(wms));
  Json ops = Json::Array();
  for (const auto& op : operators) {
    Json j = Json::Object();
    j.Set("operatorId", Json::Int(op.operator_id));
    j.Set("operatorName", Json::String(op.name));
    j.Set("keySchema", Json::String(op.key_schema));
    j.Set("valueSchema", Json::String(op.value_schema));
    j.Set("numPartitions", Json::Int(op.num_partitions));
    ops.Append(std::move(j));
  }
  o.Set("operators", std::move(ops));
  o.Set("outputSchema", Json::String(output_schema));
  Json plan_nodes = Json::Array();
  for (const auto& n : plan) plan_nodes.Append(Json::String(n));
  o.Set("plan", std::move(plan_nodes));
  if (program) o.Set("program", program->ToJson());
  return o;
}

Result<QueryShape> QueryShape::FromJson(const Json& v) {
  if (!v.is_object() || Int(v, "version", -1) != 1) {
    return Status::Invalid("not a spate query record (version 1)");
  }
  QueryShape s;
  if (const Json* a = v.Find("sources"); a && a->is_array()) {
    for (const auto& j : a->items())
      s.sources.push_back({Str(j, "format"), Str(j, "description")});
  }
  s.sink = Str(v, "sink");
  s.output_mode = Str(v, "outputMode");
  if (const Json* a = v.Find("watermarks"); a && a->is_array()) {
    for (const auto& j : a->items()) {
      s.watermarks.push_back({Str(j, "column"), Int(j, "delayMs"), Str(j, "delay")});
    }
  }
  if (const Json* a = v.Find("operators"); a && a->is_array()) {
    for (const auto& j : a->items()) {
      QueryShape::Operator op;
      op.operator_id = Int(j, "operatorId");
      op.name = Str(j, "operatorName");
      op.key_schema = Str(j, "keySchema");
      op.value_schema = Str(j, "valueSchema");
      op.num_partitions = static_cast<int>(Int(j, "numPartitions", 1));
      s.operators.push_back(std::move(op));
    }
  }
  s.output_schema = Str(v, "outputSchema");
  if (const Json* a = v.Find("plan"); a && a->is_array()) {
    for (const auto& j : a->items())
      s.plan.push_back(j.is_string() ? j.string_value() : "");
  }
  if (const Json* p = v.Find("program"); p && p->is_object()) {
    SPATE_ASSIGN_OR_RETURN(QueryProgram program, QueryProgram::FromJson(*p));
    s.program = std::move(program);
  }
  return s;
}

Result<QueryShape> ShapeOfQuery(const sql::BoundPlanPtr& analyzed, OutputMode mode,
                                const std::string& sink, int num_partitions,
                                std::vector<PlannedStatefulOperator>* planned) {
  QueryShape shape;
  for (const auto& rel : FindStreamingRelations(analyzed)) {
    shape.sources.push_back({ToLower(rel->format()), rel->description()});
  }
  shape.sink = sink;
  shape.output_mode = std::string(OutputModeName(mode));
  Walk(*analyzed, &shape);
  shape.output_schema = analyzed->OutputSchema()->ToString();
  SPATE_ASSIGN_OR_RETURN(
      auto ops, StatefulRuntime::PlanStatefulOperators(analyzed, num_partitions));
  for (const auto& p : ops) {
    QueryShape::Operator op;
    op.operator_id = p.operator_id;
    op.name = p.name;
    op.key_schema = p.key_schema->ToString();
    op.value_schema = p.value_schema->ToString();
    op.num_partitions = p.num_partitions;
    shape.operators.push_back(std::move(op));
  }
  if (planned) *planned = std::move(ops);
  return shape;
}

std::string QueryRecordPath(const std::string& checkpoint) {
  return io::JoinPath(checkpoint, "spate-query.json");
}

Status WriteQueryRecord(io::FileSystem& fs, const std::string& checkpoint,
                        const QueryShape& shape) {
  const std::string path = QueryRecordPath(checkpoint);
  QueryShape recorded = shape;
  if (!recorded.program) recorded.program = CurrentQueryProgram();
  const std::string text = recorded.ToJson().ToPrettyString() + "\n";
  auto old = fs.ReadAll(path);
  if (old.ok() && *old == text) return Status::OK();
  return fs.WriteAtomic(path, text);
}

Result<std::optional<QueryShape>> ReadQueryRecord(io::FileSystem& fs,
                                                  const std::string& checkpoint) {
  const std::string path = QueryRecordPath(checkpoint);
  auto text = fs.ReadAll(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return std::optional<QueryShape>();
    return text.status();
  }
  auto parsed = Json::Parse(*text);
  if (!parsed.ok()) return parsed.status().WithContext("Failed to read " + path);
  auto shape = QueryShape::FromJson(*parsed);
  if (!shape.ok()) return shape.status().WithContext("Failed to read " + path);
  return std::optional<QueryShape>(std::move(*shape));
}

// ---- the check

const char* VerdictName(CheckFinding::Verdict v) {
  switch (v) {
    case Verdict::kSafe:
      return "safe";
    case Verdict::kWarning:
      return "warning";
    case Verdict::kRefused:
      return "refused";
  }
  return "?";
}

int CheckpointCheck::ExitCode() const {
  int code = 0;
  for (const auto& f : findings) {
    if (f.verdict == Verdict::kRefused) code = 2;
    if (f.verdict == Verdict::kWarning) code = std::max(code, 1);
  }
  return code;
}

Json CheckpointCheck::ToJson() const {
  Json o = Json::Object();
  o.Set("checkpoint", Json::String(dir));
  o.Set("queryId", query_id ? Json::String(*query_id) : Json::Null());
  o.Set("lastCommittedBatch",
        last_committed_batch ? Json::Int(*last_committed_batch) : Json::Null());
  o.Set("queryRecord", Json::Bool(has_record));
  const int code = ExitCode();
  o.Set("verdict", Json::String(code == 2 ? "refused" : code == 1 ? "warning" : "safe"));
  o.Set("exitCode", Json::Int(code));
  Json a = Json::Array();
  for (const auto& f : findings) {
    Json j = Json::Object();
    j.Set("change", Json::String(f.change));
    j.Set("verdict", Json::String(VerdictName(f.verdict)));
    j.Set("errorClass", f.error_class ? Json::String(*f.error_class) : Json::Null());
    j.Set("message", Json::String(f.message));
    a.Append(std::move(j));
  }
  o.Set("findings", std::move(a));
  return o;
}

std::string CheckpointCheck::ToText() const {
  std::string out = "Checkpoint " + dir + "\n";
  out += "  query id:              " + (query_id ? *query_id : std::string("-")) + "\n";
  out +=
      "  last committed batch:  " +
      (last_committed_batch ? std::to_string(*last_committed_batch) : std::string("-")) +
      "\n";
  out += "  query record:          " +
         std::string(has_record ? "yes (spate-query.json)"
                                : "no (sources, sink, output mode, "
                                  "watermarks not recorded)") +
         "\n\n";
  for (const auto& f : findings) {
    std::string tag = f.verdict == Verdict::kRefused   ? "REFUSED"
                      : f.verdict == Verdict::kWarning ? "WARNING"
                                                       : "safe   ";
    out += tag + "  " + f.change;
    if (f.error_class) out += "  [" + *f.error_class + "]";
    out += "\n";
    // The message, indented.
    std::string msg = f.message;
    size_t start = 0;
    while (start <= msg.size()) {
      size_t nl = msg.find('\n', start);
      out += "         " +
             msg.substr(start, nl == std::string::npos ? std::string::npos : nl - start) +
             "\n";
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  const int code = ExitCode();
  out += "\nVerdict: ";
  out += code == 2
             ? "Spark would refuse to run this query on this checkpoint (exit code 2)\n"
         : code == 1 ? "Spark would run it, with warnings (exit code 1)\n"
                     : "safe to run on this checkpoint (exit code 0)\n";
  return out;
}

Status CheckStatefulOperatorsAgainstState(
    io::FileSystem& fs, const std::string& state_root,
    const std::vector<int64_t>& ids_on_disk,
    const std::vector<PlannedStatefulOperator>& planned, bool has_committed_batch,
    std::map<int64_t, std::string>* recorded) {
  std::map<int64_t, std::string> old_ops, new_ops;
  bool names_known = true;
  for (int64_t id : ids_on_disk) {
    SPATE_ASSIGN_OR_RETURN(auto meta, ReadOperatorMetadata(fs, state_root, id));
    // A checkpoint Spark wrote has its own operator metadata file.
    std::optional<std::string> name =
        meta ? std::optional<std::string>(meta->operator_name)
             : SparkOperatorName(fs, state_root, id);
    names_known &= name.has_value();
    old_ops[id] = name.value_or("?");
  }
  for (const auto& p : planned) new_ops[p.operator_id] = p.name;
  if (recorded) *recorded = old_ops;
  if (old_ops.empty()) {
    if (new_ops.empty() || !has_committed_batch) return Status::OK();
    return Status::Error("STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY",
                         {{"OpsInCurBatchSeq", OpsSeq(new_ops)}});
  }
  // A store folder without its operator file (written after a run's first commit) does
  // not tell its operator: nothing to compare (Spark checks only with its metadata).
  if (!names_known) return Status::OK();
  if (old_ops != new_ops) {
    return Status::Error(
        "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA",
        {{"OpsInMetadataSeq", OpsSeq(old_ops)}, {"OpsInCurBatchSeq", OpsSeq(new_ops)}});
  }
  return Status::OK();
}

Result<CheckpointCheck> CompareWithCheckpoint(
    io::FileSystem& fs, const CheckpointDescription& d,
    const std::optional<QueryShape>& recorded, const QueryShape& next,
    const std::vector<PlannedStatefulOperator>& planned, const Status& unsupported) {
  CheckpointCheck c;
  c.dir = d.dir;
  c.query_id = d.query_id;
  c.last_committed_batch = d.last_committed_batch;
  c.has_record = recorded.has_value();
  auto& out = c.findings;

  // Spark checks the query itself before it looks at the checkpoint.
  if (!unsupported.ok()) {
    out.push_back(Finding(Verdict::kRefused, "unsupported_query", SparkText(unsupported),
                          unsupported.error_class()));
  }
  if (d.batches.empty()) {
    out.push_back(
        Finding(Verdict::kSafe, "new_checkpoint",
                "The checkpoint has no batch yet: the query starts from scratch."));
    return c;
  }

  // ---- sources: the offsets log has one offset per source.
  const CheckpointDescription::Batch& latest = d.batches.back();
  size_t old_sources = latest.offsets ? latest.offsets->offsets.size() : d.sources.size();
  if (old_sources != next.sources.size()) {
    // Spark 4.2: an assertion in MicroBatchExecution.populateStartOffsets (no error
    // class).
    std::string msg = "assertion failed: There are [" + std::to_string(old_sources) +
                      "] sources in the checkpoint offsets and now there are [" +
                      std::to_string(next.sources.size()) +
                      "] sources requested by the query. Cannot continue.";
    out.push_back(Finding(
        Verdict::kRefused,
        next.sources.size() > old_sources ? "source_added" : "source_removed", msg));
  } else {
    for (size_t i = 0; i < next.sources.size(); ++i) {
      const auto& ns = next.sources[i];
      if (recorded && i < recorded->sources.size()) {
        const auto& os = recorded->sources[i];
        if (FormatKind(os.format) != FormatKind(ns.format)) {
          out.push_back(Finding(Verdict::kRefused, "source_changed",
                                "Source " + std::to_string(i) + " changed type: " +
                                    os.description + " -> " + ns.description +
                                    ". Spark does not allow a change in the type of a "
                                    "source: the new source "
                                    "cannot continue from the old one's offsets."));
        } else if (os.description != RedactText(ns.description)) {
          const bool file = FormatKind(ns.format) == "file";
          out.push_back(Finding(
              file ? Verdict::kRefused : Verdict::kWarning, "source_changed",
              "Source " + std::to_string(i) + " changed: " + os.description + " -> " +
                  RedactText(ns.description) +
                  (file ? ". Spark 4.2 fails at the next batch: the source log of files "
                          "seen "
                          "holds the old folder's files (\"Wrong basePath <new folder> "
                          "for "
                          "the root path: <old file>\")."
                        : ". Spark does not allow changing what a source reads (topics, "
                          "paths): the results are unpredictable.")));
        }
        continue;
      }
      // No record: a file source's log says which folder its files came from.
      if (FormatKind(ns.format) == "file") {
        const size_t lb = ns.description.find('['), rb = ns.description.rfind(']');
        const std::string folder =
            lb == std::string::npos || rb == std::string::npos || rb <= lb
                ? std::string()
                : StripFileScheme(ns.description.substr(lb + 1, rb - lb - 1));
        CompactibleLog log(
            io::FileSystemPtr(&fs, [](io::FileSystem*) {}),
            io::JoinPath(io::JoinPath(d.dir, "sources"), std::to_string(i)), 10);
        auto entries = log.AllEntries();
        if (!folder.empty() && entries.ok()) {
          for (const auto& e : *entries) {
            const std::string path = StripFileScheme(Str(e, "path"));
            if (path.empty() || path.rfind(folder + "/", 0) == 0) continue;
            out.push_back(
                Finding(Verdict::kRefused, "source_changed",
                        "Source " + std::to_string(i) + " now reads " + folder +
                            ", but its log of files seen holds " + path +
                            ". Spark 4.2 fails at the next batch: \"Wrong basePath " +
                            folder + " for the root path: " + path + "\"."));
            break;
          }
        }
      }
      // No record: the offset's shape tells the kind of source that wrote it.
      const std::optional<Json>* off = nullptr;
      if (latest.offsets && i < latest.offsets->offsets.size())
        off = &latest.offsets->offsets[i];
      if (off && *off) {
        std::string kind = OffsetKind(**off);
        if (!kind.empty() && kind != FormatKind(ns.format)) {
          out.push_back(Finding(
              Verdict::kRefused, "source_changed",
              "Source " + std::to_string(i) + " is " + ns.description +
                  " but the checkpoint's offset " + (*off)->ToString() + " is a " + kind +
                  " source's. Spark does not allow a change in the type of a source."));
        }
      }
    }
  }

  // ---- stateful operators: state/<id>/_metadata (operator name, schemas) vs the plan.
  std::vector<int64_t> ids_on_disk;
  for (const auto& op : d.operators) ids_on_disk.push_back(op.operator_id);
  std::map<int64_t, std::string> old_ops, new_ops;
  for (const auto& p : planned) new_ops[p.operator_id] = p.name;
  Status ops = CheckStatefulOperatorsAgainstState(
      fs, io::JoinPath(d.dir, "state"), ids_on_disk, planned,
      d.last_committed_batch.has_value(), &old_ops);
  bool old_names_known = true;
  for (const auto& [id, name] : old_ops) old_names_known &= name != "?";
  if (!ops.ok()) {
    std::string change = new_ops.size() > old_ops.size()   ? "stateful_operator_added"
                         : new_ops.size() < old_ops.size() ? "stateful_operator_removed"
                                                           : "stateful_operator_changed";
    if (ops.error_class().rfind("STREAMING_STATEFUL_OPERATOR_", 0) != 0) return ops;
    out.push_back(Finding(Verdict::kRefused, change, SparkText(ops), ops.error_class()));
  }
  std::vector<int64_t> spark_values;  // operators whose state schema Spark wrote
  if (!old_ops.empty()) {
    // Schemas, as the runtime checks them when the operator first runs.
    for (const auto& p : planned) {
      if (!old_ops.count(p.operator_id)) continue;
      if (old_names_known && old_ops[p.operator_id] != p.name) continue;
      const std::string state_root = io::JoinPath(d.dir, "state");
      auto stored = state::ReadStateSchema(fs, state_root, p.operator_id);
      Status st;
      if (stored.ok() && stored->has_value()) {
        st = state::CheckStateSchemaCompatibility(**stored, *p.key_schema,
                                                  *p.value_schema);
      } else if (auto spark = SparkStateSchemas(fs, state_root, p.operator_id)) {
        // Written by Spark: its keys are the grouping / dedup columns as spate's; its
        // values are Spark's own aggregation buffers, compared with the buffers Spark
        // would build for the new query where their layout is known (else keys only).
        if (p.spark_value_schema) {
          st = state::CheckStateSchemaCompatibility(*spark, *p.key_schema,
                                                    *p.spark_value_schema);
        } else {
          st = state::CheckStateSchemaCompatibility(
              state::StateSchemas{spark->key, p.value_schema}, *p.key_schema,
              *p.value_schema);
          if (p.kind == StatefulKind::kAggregate) spark_values.push_back(p.operator_id);
        }
      } else if (!stored.ok()) {
        return stored.status();
      } else {
        continue;
      }
      if (st.ok()) continue;
      const bool key = st.error_class() == "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE";
      out.push_back(
          Finding(Verdict::kRefused,
                  key ? "state_key_schema_changed" : "state_value_schema_changed",
                  "Operator " + std::to_string(p.operator_id) + " (" + p.name + "): " +
                      (key ? "its grouping / deduplication keys changed. "
                           : "its aggregates (the state kept per key) changed. ") +
                      SparkText(st),
                  st.error_class()));
    }
  }

  for (int64_t id : spark_values) {
    out.push_back(
        Finding(Verdict::kSafe, "state_value_schema_not_compared",
                "Operator " + std::to_string(id) +
                    "'s state was written by Spark: its key schema was "
                    "compared, but its aggregation buffers were not (an aggregate whose "
                    "buffer layout in "
                    "Spark is not known here), so an aggregate added or removed is not "
                    "detected (Spark "
                    "refuses it with STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE)."));
  }

  // ---- what only the record knows.
  if (!recorded) {
    out.push_back(Finding(
        Verdict::kSafe, "not_recorded",
        "The checkpoint has no spate-query.json (written by Spark, or before spate "
        "recorded "
        "queries): the sink, the output mode, the watermark columns and the stateless "
        "operators could not be compared."));
  } else {
    const QueryShape& r = *recorded;
    if (!r.sink.empty() && r.sink != RedactText(next.sink)) {
      out.push_back(Finding(
          Verdict::kWarning, "sink_changed",
          "The sink changed: " + r.sink + " -> " + RedactText(next.sink) +
              ". Spark runs it, but the new sink gets only the batches after " +
              (d.last_committed_batch ? std::to_string(*d.last_committed_batch) : "-1") +
              "; whether the change is meaningful depends on the sinks (a file sink's "
              "output folder may not change; Kafka topics may)."));
    }
    if (!r.output_mode.empty() && r.output_mode != next.output_mode) {
      const bool stateful = !new_ops.empty();
      out.push_back(Finding(
          stateful ? Verdict::kWarning : Verdict::kSafe, "output_mode_changed",
          "Output mode " + r.output_mode + " -> " + next.output_mode +
              (stateful
                   ? ". Spark runs it on the same state, but what was already emitted "
                     "was emitted under the old mode: rows already written are not "
                     "revised (Append -> Update emits keys again, Update/Complete -> "
                     "Append waits for the watermark)."
                   : ". Without stateful operators every mode writes the same rows.")));
    }
    // Watermarks, in plan order.
    const size_t nw = std::min(r.watermarks.size(), next.watermarks.size());
    for (size_t i = 0; i < nw; ++i) {
      const auto& ow = r.watermarks[i];
      const auto& w = next.watermarks[i];
      if (ToLower(ow.column) != ToLower(w.column)) {
        out.push_back(Finding(
            Verdict::kWarning, "watermark_column_changed",
            "The watermark moved from column " + ow.column + " to " + w.column +
                ". Spark runs it and keeps the watermark the checkpoint recorded (from " +
                ow.column +
                ") for the new column: rows may be dropped as late or windows "
                "emitted too early or too late, silently."));
      } else if (ow.delay_ms != w.delay_ms) {
        out.push_back(
            Finding(Verdict::kSafe, "watermark_delay_changed",
                    "The watermark delay of " + w.column + " changed: " + ow.delay +
                        " -> " + w.delay +
                        ". Allowed; the recorded watermark never moves back, so a "
                        "longer delay takes effect as event time moves on."));
      }
    }
    if (r.watermarks.size() != next.watermarks.size()) {
      out.push_back(Finding(
          Verdict::kWarning,
          next.watermarks.size() > r.watermarks.size() ? "watermark_added"
                                                       : "watermark_removed",
          "The query has " + std::to_string(next.watermarks.size()) +
              " withWatermark nodes over streams, the checkpoint's had " +
              std::to_string(r.watermarks.size()) +
              ". Spark runs it with the recorded watermark: late rows and evictions may "
              "differ from a fresh run."));
    }
    // Stateless operators: filters and projections may change.
    auto is_filter = [](const std::string& entry) {
      return entry.rfind("Filter", 0) == 0;
    };
    auto count = [&](const std::vector<std::string>& plan) {
      return std::count_if(plan.begin(), plan.end(), is_filter);
    };
    const auto of = count(r.plan), nf = count(next.plan);
    if (nf > of)
      out.push_back(Finding(Verdict::kSafe, "filter_added",
                            "A filter was added (" + std::to_string(nf - of) +
                                "): allowed; rows of batches already committed are not "
                                "filtered again."));
    if (nf < of)
      out.push_back(
          Finding(Verdict::kSafe, "filter_removed",
                  "A filter was removed (" + std::to_string(of - nf) + "): allowed."));
    std::vector<std::string> old_filters, new_filters, op_only, np_only;
    for (const auto& k : r.plan) (is_filter(k) ? old_filters : op_only).push_back(k);
    for (const auto& k : next.plan) (is_filter(k) ? new_filters : np_only).push_back(k);
    if (nf == of && old_filters != new_filters)
      out.push_back(
          Finding(Verdict::kSafe, "filter_changed",
                  "A filter's condition changed: allowed; rows of batches already "
                  "committed are not filtered again."));
    if (!r.output_schema.empty() && r.output_schema != next.output_schema) {
      // Sinks that keep what they wrote (a table, files) must accept the new columns.
      const bool keeps = next.sink.rfind("DeltaSink", 0) == 0 ||
                         next.sink.rfind("FileSink", 0) == 0 ||
                         next.sink.rfind("KafkaSink", 0) == 0;
      out.push_back(Finding(
          keeps ? Verdict::kWarning : Verdict::kSafe, "output_schema_changed",
          "The output schema changed: " + r.output_schema + " -> " + next.output_schema +
              (keeps
                   ? ". Spark allows it only if the sink accepts the new schema (a Delta "
                     "table needs the same columns or mergeSchema; files already written "
                     "keep the old one)."
                   : ". Allowed: " + next.sink + " keeps no schema.")));
    } else if (op_only != np_only && old_ops.size() == new_ops.size()) {
      out.push_back(
          Finding(Verdict::kSafe, "projection_changed",
                  "Projections or other stateless operators changed with the same "
                  "output schema: allowed."));
    }
  }
  if (out.empty() || std::all_of(out.begin(), out.end(), [](const CheckFinding& f) {
        return f.change == "not_recorded" ||
               f.change == "state_value_schema_not_compared";
      })) {
    out.insert(out.begin(), Finding(Verdict::kSafe, "unchanged",
                                    "No change Spark would object to was found."));
  }
  return c;
}

Result<CheckpointCheck> CheckQueryAgainstCheckpoint(const io::FileSystemPtr& fs,
                                                    const std::string& dir,
                                                    const QueryConfig& config) {
  CheckpointDescription d;
  d.dir = dir;
  // A folder that does not exist yet, or has no offsets log: a new checkpoint.
  SPATE_ASSIGN_OR_RETURN(bool exists, fs->Exists(io::JoinPath(dir, "offsets")));
  if (exists) {
    SPATE_ASSIGN_OR_RETURN(d, DescribeCheckpoint(fs, dir, /*load_stores=*/false));
  }
  SPATE_ASSIGN_OR_RETURN(auto analyzed, config.runner->Analyze(config.plan));
  Status unsupported = CheckStreamingQuery(*analyzed, config.output_mode);
  // The shuffle partitions the checkpoint pinned (what the runtime would use).
  std::string parts = config.runner->GetConf("spark.sql.shuffle.partitions", "200");
  for (auto it = d.batches.rbegin(); it != d.batches.rend(); ++it) {
    if (!it->offsets) continue;
    for (const auto& [k, v] : it->offsets->metadata.conf) {
      if (k == "spark.sql.shuffle.partitions") parts = v;
    }
    break;
  }
  const auto parsed_parts = ParseInt32(parts);
  const int num_partitions = parsed_parts ? std::max(1, *parsed_parts) : 200;
  std::vector<PlannedStatefulOperator> planned;
  auto shape = ShapeOfQuery(analyzed, config.output_mode,
                            config.sink ? config.sink->Describe() : std::string(),
                            num_partitions, &planned);
  if (!shape.ok()) {
    // Planning itself fails: Spark fails when the first batch is planned.
    CheckpointCheck c;
    c.dir = d.dir;
    c.query_id = d.query_id;
    c.last_committed_batch = d.last_committed_batch;
    c.findings.push_back(Finding(Verdict::kRefused, "unsupported_query",
                                 SparkText(shape.status()),
                                 shape.status().error_class()));
    return c;
  }
  SPATE_ASSIGN_OR_RETURN(auto recorded, ReadQueryRecord(*fs, dir));
  return CompareWithCheckpoint(*fs, d, recorded, *shape, planned, unsupported);
}

void SetQueryStartHook(QueryStartHook hook) {
  std::lock_guard<std::mutex> lock(g_hook_mu);
  g_hook = std::move(hook);
}

QueryStartHook GetQueryStartHook() {
  std::lock_guard<std::mutex> lock(g_hook_mu);
  return g_hook;
}

}  // namespace spate::stream
