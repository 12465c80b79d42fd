// Copyright spate authors.
#include "spate/connectors/auto_loader.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "spate/base/json.h"
#include "spate/base/text_parse.h"
#include "spate/connectors/memory.h"
#include "spate/formats/file_index.h"
#include "spate/sql/parser.h"
#include "spate/stream/checkpoint.h"
#include "spate/types/schema_json.h"

namespace spate::connectors {

namespace {

constexpr const char* kPrefix = "cloudfiles.";

Status CloudFilesError(const std::string& msg) {
  return Status::Error("SPATE_CLOUD_FILES_INVALID", {{"msg", msg}});
}

Result<bool> BoolValue(const std::string& key, const std::string& v, bool dflt) {
  if (v.empty()) return dflt;
  const std::string l = ToLower(v);
  if (l == "true") return true;
  if (l == "false") return false;
  return CloudFilesError("Invalid value '" + v + "' for option '" + key +
                         "', must be true or false");
}

Result<SchemaEvolutionMode> ParseMode(const std::string& v) {
  const std::string l = ToLower(v);
  if (l == "addnewcolumns") return SchemaEvolutionMode::kAddNewColumns;
  if (l == "rescue") return SchemaEvolutionMode::kRescue;
  if (l == "failonnewcolumns") return SchemaEvolutionMode::kFailOnNewColumns;
  if (l == "none") return SchemaEvolutionMode::kNone;
  return CloudFilesError("Unsupported value '" + v +
                         "' for cloudFiles.schemaEvolutionMode: expected addNewColumns, "
                         "rescue, failOnNewColumns or none");
}

std::string SchemasDir(const std::string& location) {
  return io::JoinPath(location, "_schemas");
}

// Splits at commas outside <...>, (...) and backticks.
std::vector<std::string> SplitTopLevel(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  bool quoted = false;
  std::string cur;
  for (char c : s) {
    if (c == '`') quoted = !quoted;
    if (!quoted) {
      if (c == '<' || c == '(') ++depth;
      if (c == '>' || c == ')') --depth;
      if (c == ',' && depth == 0) {
        out.push_back(cur);
        cur.clear();
        continue;
      }
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// A dotted column path: `a`.b.`c.d` -> {a, b, c.d}.
std::vector<std::string> SplitPath(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  bool quoted = false;
  for (char c : s) {
    if (c == '`') {
      quoted = !quoted;
      continue;
    }
    if (c == '.' && !quoted) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  parts.push_back(cur);
  return parts;
}

// Sets the type at `path` inside `fields` (adding missing fields and structs).
void SetPathType(std::vector<Field>* fields, const std::vector<std::string>& path,
                 size_t at, const DataTypePtr& type) {
  auto it = std::find_if(fields->begin(), fields->end(), [&](const Field& f) {
    return EqualsIgnoreCase(f.name, path[at]);
  });
  if (it == fields->end()) {
    fields->push_back(
        Field{path[at], at + 1 == path.size() ? type : DataType::Struct({}), true});
    it = fields->end() - 1;
  }
  if (at + 1 == path.size()) {
    it->type = type;
    return;
  }
  std::vector<Field> children =
      it->type->id() == TypeId::kStruct ? it->type->fields() : std::vector<Field>{};
  SetPathType(&children, path, at + 1, type);
  it->type = DataType::Struct(std::move(children));
}

void AddMissing(std::vector<Field>* fields, const std::vector<Field>& seen,
                const std::string& prefix, std::vector<std::string>* added) {
  for (const auto& s : seen) {
    auto it = std::find_if(fields->begin(), fields->end(), [&](const Field& f) {
      return EqualsIgnoreCase(f.name, s.name);
    });
    if (it == fields->end()) {
      fields->push_back(s);
      added->push_back(prefix + s.name);
      continue;
    }
    if (it->type->id() == TypeId::kStruct && s.type->id() == TypeId::kStruct) {
      std::vector<Field> children = it->type->fields();
      const size_t before = added->size();
      AddMissing(&children, s.type->fields(), prefix + it->name + ".", added);
      if (added->size() != before) it->type = DataType::Struct(std::move(children));
    }
  }
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

// The data columns of the stream's schema (the rescued column left out).
std::vector<Field> DataFields(const Schema& schema, const std::string& rescued) {
  std::vector<Field> out;
  for (const auto& f : schema.fields()) {
    if (rescued.empty() || f.name != rescued) out.push_back(f);
  }
  return out;
}

// The initial schema: the data columns of a sample of the path's files (the first by
// name, up to sample_files / sample_bytes), then the partition columns of all of them.
Result<SchemaPtr> InferSample(io::FileSystem& fs, const AutoLoaderOptions& o,
                              const FileSchemaInferrer& infer) {
  std::map<std::string, std::string> listing;
  for (const auto& [k, v] : o.reader_options) {
    const std::string l = ToLower(k);
    if (l == "pathglobfilter" || l == "recursivefilelookup" || l == "modifiedbefore" ||
        l == "modifiedafter")
      listing[k] = v;
  }
  SPATE_ASSIGN_OR_RETURN(
      formats::FileIndex index,
      formats::ListInputFiles(fs, {o.path}, listing, nullptr, o.time_zone));
  if (index.files.empty()) return SchemaPtr();
  std::sort(index.files.begin(), index.files.end(),
            [](const formats::InputFile& a, const formats::InputFile& b) {
              return a.path < b.path;
            });
  std::vector<std::string> sample;
  int64_t bytes = 0;
  for (const auto& f : index.files) {
    if (static_cast<int64_t>(sample.size()) >= o.sample_files ||
        (!sample.empty() && bytes + f.size > o.sample_bytes))
      break;
    sample.push_back(f.path);
    bytes += f.size;
  }
  SPATE_ASSIGN_OR_RETURN(SchemaPtr data, infer(sample));
  if (!data) return data;
  std::vector<Field> fields = data->fields();
  for (const auto& p : index.partition_fields) {
    if (data->FieldIndex(p.name) < 0) fields.push_back(p);
  }
  return std::make_shared<const Schema>(std::move(fields));
}

}  // namespace

Result<int64_t> ParseByteString(const std::string& text, const std::string& what) {
  std::string t = ToLower(Trim(text));
  if (t.size() > 1 && t.back() == 'b' &&
      !std::isdigit(static_cast<unsigned char>(t[t.size() - 2])))
    t.pop_back();
  int64_t mult = 1;
  if (!t.empty() && !std::isdigit(static_cast<unsigned char>(t.back()))) {
    switch (t.back()) {
      case 'b':
        mult = 1;
        break;
      case 'k':
        mult = 1ll << 10;
        break;
      case 'm':
        mult = 1ll << 20;
        break;
      case 'g':
        mult = 1ll << 30;
        break;
      case 't':
        mult = 1ll << 40;
        break;
      default:
        mult = 0;
    }
    t.pop_back();
  }
  if (mult == 0 || t.size() > 12 ||
      t.find_first_not_of("0123456789") != std::string::npos ||
      ParseInt64(t).value_or(0) <= 0) {
    return CloudFilesError(
        "Invalid value '" + text + "' for " + what +
        ", must be a positive byte string such as 10g, 512m or 1048576");
  }
  const int64_t n = ParseInt64(t).value_or(0);
  if (n > INT64_MAX / mult) {
    return CloudFilesError("Invalid value '" + text + "' for " + what + ": too large");
  }
  return n * mult;
}

Result<AutoLoaderOptions> ParseAutoLoaderOptions(
    const std::map<std::string, std::string>& options, std::string path,
    bool has_user_schema) {
  AutoLoaderOptions o;
  o.path = std::move(path);
  o.user_schema = has_user_schema;
  std::map<std::string, std::string> cf;  // lower-case key without the prefix -> value
  std::map<std::string, std::string> spelled;  // ... -> the key as given
  for (const auto& [k, v] : options) {
    const std::string l = ToLower(k);
    if (l.rfind(kPrefix, 0) == 0) {
      cf[l.substr(std::string(kPrefix).size())] = v;
      spelled[l.substr(std::string(kPrefix).size())] = k;
    } else if (l != "path") {
      o.reader_options[k] = v;
    }
  }
  static const std::set<std::string> kKnown = {"format",
                                               "schemalocation",
                                               "infercolumntypes",
                                               "schemahints",
                                               "schemaevolutionmode",
                                               "rescueddatacolumn",
                                               "maxfilespertrigger",
                                               "maxbytespertrigger",
                                               "includeexistingfiles",
                                               "usenotifications",
                                               "validateoptions",
                                               "maxfileage"};
  for (const auto& [k, v] : cf) {
    if (!kKnown.count(k)) {
      return Status::Unimplemented("The Auto Loader option '" + spelled[k] +
                                   "' is not supported by spate");
    }
  }
  o.format = ToLower(cf.count("format") ? cf["format"] : "");
  if (o.format.empty()) {
    return CloudFilesError(
        "The option cloudFiles.format is required (json, csv or parquet)");
  }
  if (o.format != "json" && o.format != "csv" && o.format != "parquet") {
    return Status::Unimplemented(
        "cloudFiles.format '" + cf["format"] +
        "' is not supported by spate (json, csv and parquet are)");
  }
  SPATE_ASSIGN_OR_RETURN(bool notifications, BoolValue("cloudFiles.useNotifications",
                                                       cf["usenotifications"], false));
  if (notifications) {
    return Status::Unimplemented(
        "cloudFiles.useNotifications=true (file notification mode) is not supported by "
        "spate; "
        "Auto Loader lists the directory");
  }
  o.schema_location = cf["schemalocation"];
  SPATE_ASSIGN_OR_RETURN(o.infer_column_types, BoolValue("cloudFiles.inferColumnTypes",
                                                         cf["infercolumntypes"], false));
  SPATE_ASSIGN_OR_RETURN(
      o.include_existing_files,
      BoolValue("cloudFiles.includeExistingFiles", cf["includeexistingfiles"], true));
  o.schema_hints = cf["schemahints"];
  o.mode =
      has_user_schema ? SchemaEvolutionMode::kNone : SchemaEvolutionMode::kAddNewColumns;
  if (!cf["schemaevolutionmode"].empty()) {
    SPATE_ASSIGN_OR_RETURN(o.mode, ParseMode(cf["schemaevolutionmode"]));
  }
  if (has_user_schema && o.mode == SchemaEvolutionMode::kAddNewColumns) {
    return CloudFilesError(
        "Schema evolution mode addNewColumns is not supported when the schema is "
        "specified. "
        "To use this mode, you can provide the schema through cloudFiles.schemaHints "
        "instead.");
  }
  if (!has_user_schema && o.schema_location.empty()) {
    return CloudFilesError(
        "Schema inference needs a place to keep the schema: set "
        "cloudFiles.schemaLocation "
        "(it may be the checkpoint location), or give the stream a schema.");
  }
  // The rescued column: named explicitly, or _rescued_data by default when inferring
  // (unless mode none) and in rescue mode.
  std::string rescued = cf["rescueddatacolumn"];
  for (const auto& [k, v] : o.reader_options) {
    if (ToLower(k) == "rescueddatacolumn" && rescued.empty()) rescued = v;
  }
  const bool explicit_rescue = !rescued.empty();
  if (rescued.empty() && ((!has_user_schema && o.mode != SchemaEvolutionMode::kNone) ||
                          o.mode == SchemaEvolutionMode::kRescue)) {
    rescued = "_rescued_data";
  }
  if (o.format == "parquet" && !rescued.empty()) {
    if (explicit_rescue || o.mode == SchemaEvolutionMode::kRescue) {
      return Status::Unimplemented(
          "The rescued data column is supported for cloudFiles.format json and csv in "
          "spate (not parquet)");
    }
    rescued.clear();
  }
  o.rescued_column = rescued;
  for (auto it = o.reader_options.begin(); it != o.reader_options.end();) {
    if (ToLower(it->first) == "rescueddatacolumn")
      it = o.reader_options.erase(it);
    else
      ++it;
  }
  if (!rescued.empty()) o.reader_options["rescuedDataColumn"] = rescued;
  // Rate limits: Databricks' defaults (1000 files, no byte limit).
  if (cf.count("maxfilespertrigger")) {
    for (auto it = o.reader_options.begin(); it != o.reader_options.end();) {
      if (ToLower(it->first) == "maxfilespertrigger")
        it = o.reader_options.erase(it);
      else
        ++it;
    }
    o.reader_options["maxFilesPerTrigger"] = cf["maxfilespertrigger"];
  } else if (!HasOption(o.reader_options, "maxFilesPerTrigger")) {
    o.reader_options["maxFilesPerTrigger"] = "1000";
  }
  // Databricks tracks files forever unless cloudFiles.maxFileAge is set (the file
  // source's maxFileAge is 7 days: a late file with an old modification time would be
  // skipped).
  if (cf.count("maxfileage")) {
    for (auto it = o.reader_options.begin(); it != o.reader_options.end();) {
      if (ToLower(it->first) == "maxfileage")
        it = o.reader_options.erase(it);
      else
        ++it;
    }
    o.reader_options["maxFileAge"] = cf["maxfileage"];
  } else if (!HasOption(o.reader_options, "maxFileAge")) {
    o.reader_options["maxFileAge"] = "36500d";
  }
  if (cf.count("maxbytespertrigger")) {
    SPATE_ASSIGN_OR_RETURN(int64_t bytes, ParseByteString(cf["maxbytespertrigger"]));
    o.reader_options["maxBytesPerTrigger"] = std::to_string(bytes);
  }
  return o;
}

Result<std::optional<std::pair<int64_t, SchemaPtr>>> ReadLatestSchemaVersion(
    io::FileSystem& fs, const std::string& location) {
  std::optional<std::pair<int64_t, SchemaPtr>> none;
  auto listed = fs.List(SchemasDir(location), false);
  if (!listed.ok()) {
    if (listed.status().code() == StatusCode::kNotFound) return none;
    return listed.status();
  }
  int64_t latest = -1;
  for (const auto& f : *listed) {
    const std::string name = io::BaseName(f.path);
    if (f.is_directory || name.empty() || name.size() > 18 ||
        name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    latest = std::max(latest, ParseInt64(name).value_or(-1));
  }
  if (latest < 0) return none;
  const std::string file = io::JoinPath(SchemasDir(location), std::to_string(latest));
  SPATE_ASSIGN_OR_RETURN(std::string text, fs.ReadAll(file));
  auto corrupt = [&](const std::string& why) {
    return Status(StatusCode::kDataCorruption,
                  "The Auto Loader schema file " + file + " is corrupt: " + why);
  };
  const size_t nl = text.find('\n');
  if (text.rfind("v1", 0) != 0 || nl == std::string::npos) return corrupt("no v1 header");
  auto entry = Json::Parse(std::string_view(text).substr(nl + 1));
  if (!entry.ok() || !entry->is_object())
    return corrupt("the entry is not a JSON object");
  auto data = entry->GetString("dataSchemaJson");
  if (!data) return corrupt("no dataSchemaJson");
  auto schema = SchemaFromSparkJson(*data);
  if (!schema.ok()) return corrupt(schema.status().message());
  std::vector<Field> fields = (*schema)->fields();
  if (auto part = entry->GetString("partitionSchemaJson")) {
    auto ps = SchemaFromSparkJson(*part);
    if (!ps.ok()) return corrupt(ps.status().message());
    for (const auto& f : (*ps)->fields()) fields.push_back(f);
  }
  return std::optional<std::pair<int64_t, SchemaPtr>>(
      std::make_pair(latest, std::make_shared<const Schema>(std::move(fields))));
}

Status WriteSchemaVersion(io::FileSystem& fs, const std::string& location,
                          int64_t version, const Schema& schema) {
  Json entry = Json::Object();
  entry.Set("dataSchemaJson", Json::String(SchemaToSparkJson(schema)));
  entry.Set("partitionSchemaJson",
            Json::String(SchemaToSparkJson(Schema(std::vector<Field>{}))));
  SPATE_RETURN_IF_ERROR(fs.MakeDirs(SchemasDir(location)));
  Status st = fs.PutIfAbsent(io::JoinPath(SchemasDir(location), std::to_string(version)),
                             "v1\n" + entry.ToString());
  if (!st.ok() && st.code() != StatusCode::kAlreadyExists) return st;
  return Status::OK();
}

Result<SchemaPtr> ApplySchemaHints(const Schema& schema, const std::string& hints) {
  std::vector<Field> fields = schema.fields();
  if (Trim(hints).empty()) return std::make_shared<const Schema>(std::move(fields));
  for (const std::string& raw : SplitTopLevel(hints)) {
    const std::string item = Trim(raw);
    if (item.empty()) continue;
    // The column path ends at the first blank outside backticks.
    size_t i = 0;
    bool quoted = false;
    for (; i < item.size(); ++i) {
      if (item[i] == '`') quoted = !quoted;
      if (!quoted && std::isspace(static_cast<unsigned char>(item[i]))) break;
    }
    const std::string name = item.substr(0, i), type_text = Trim(item.substr(i));
    auto type = sql::ParseDataType(type_text);
    if (name.empty() || type_text.empty() || !type.ok()) {
      return CloudFilesError("The following is not a valid schema hint: " + item +
                             (type.ok() ? "" : " (" + type.status().message() + ")"));
    }
    SetPathType(&fields, SplitPath(name), 0, *type);
  }
  return std::make_shared<const Schema>(std::move(fields));
}

SchemaPtr AddNewFields(const Schema& schema, const Schema& seen,
                       std::vector<std::string>* added) {
  std::vector<Field> fields = schema.fields();
  AddMissing(&fields, seen.fields(), "", added);
  return std::make_shared<const Schema>(std::move(fields));
}

Result<AutoLoaderStream> MakeAutoLoaderStream(io::FileSystemPtr fs,
                                              const AutoLoaderOptions& o,
                                              SchemaPtr user_schema,
                                              FileBatchReader reader,
                                              FileSchemaInferrer infer) {
  // The data schema and its version in the schema location.
  SchemaPtr data;
  int64_t version = -1;
  if (user_schema) {
    data = std::make_shared<const Schema>(DataFields(*user_schema, o.rescued_column));
  } else {
    SPATE_ASSIGN_OR_RETURN(auto stored, ReadLatestSchemaVersion(*fs, o.schema_location));
    if (stored) {
      version = stored->first;
      data =
          std::make_shared<const Schema>(DataFields(*stored->second, o.rescued_column));
    } else {
      SPATE_ASSIGN_OR_RETURN(SchemaPtr inferred, InferSample(*fs, o, infer));
      if (!inferred || inferred->num_fields() == 0) {
        return Status::Error("UNABLE_TO_INFER_SCHEMA", {{"format", ToUpper(o.format)}});
      }
      SPATE_ASSIGN_OR_RETURN(inferred, ApplySchemaHints(*inferred, o.schema_hints));
      SPATE_RETURN_IF_ERROR(WriteSchemaVersion(
          *fs, o.schema_location, 0, Schema(DataFields(*inferred, o.rescued_column))));
      // Read back: a stream defined at the same time may have stored version 0 first.
      SPATE_ASSIGN_OR_RETURN(stored, ReadLatestSchemaVersion(*fs, o.schema_location));
      if (!stored) {
        return Status::Internal("The Auto Loader schema written to " + o.schema_location +
                                " cannot be read back");
      }
      version = stored->first;
      data =
          std::make_shared<const Schema>(DataFields(*stored->second, o.rescued_column));
    }
  }
  std::vector<Field> all = data->fields();
  if (!o.rescued_column.empty())
    all.push_back(Field{o.rescued_column, DataType::String(), true});
  auto schema = std::make_shared<const Schema>(std::move(all));

  FileSourceOptions fo;
  fo.format = o.format;
  fo.path = o.path;
  fo.schema = schema;
  fo.options = o.reader_options;
  fo.include_existing_files = o.include_existing_files;
  fo.name = "CloudFilesSource";
  fo.report_backlog = true;
  const bool check = o.mode == SchemaEvolutionMode::kAddNewColumns ||
                     o.mode == SchemaEvolutionMode::kFailOnNewColumns;
  if (!check) {
    fo.reader = std::move(reader);
  } else {
    // New fields are looked for before a batch is read: JSON and Parquet files in one
    // (parallel) inference, then, only when there are new fields, one file at a time so
    // the error names the first file that has one. CSV files always one at a time (a
    // multi-file CSV inference takes the header of one file only).
    fo.reader = [fs, o, data, version, reader, infer](
                    const std::vector<std::string>& files,
                    const SchemaPtr& batch_schema) -> Result<DataSourcePtr> {
      // The corrupt-record column inference adds for a malformed record is not data.
      const std::string corrupt =
          GetOption(o.reader_options, "columnNameOfCorruptRecord", "_corrupt_record");
      auto look = [&](const std::vector<std::string>& paths, SchemaPtr* evolved,
                      std::vector<std::string>* added) -> Status {
        SPATE_ASSIGN_OR_RETURN(SchemaPtr seen, infer(paths));
        if (!seen) return Status::OK();
        if (data->FieldIndex(corrupt, true) < 0 && seen->FieldIndex(corrupt, true) >= 0) {
          std::vector<Field> kept;
          for (const auto& field : seen->fields()) {
            if (field.name != corrupt) kept.push_back(field);
          }
          seen = std::make_shared<const Schema>(std::move(kept));
        }
        *evolved = AddNewFields(**evolved, *seen, added);
        return Status::OK();
      };
      if (o.format != "csv") {
        SchemaPtr all = data;
        std::vector<std::string> any;
        SPATE_RETURN_IF_ERROR(look(files, &all, &any));
        if (any.empty()) return reader(files, batch_schema);
      }
      SchemaPtr evolved = data;
      std::vector<std::string> added;
      std::string first_file;
      for (const auto& f : files) {
        const size_t before = added.size();
        SPATE_RETURN_IF_ERROR(look({f}, &evolved, &added));
        if (first_file.empty() && added.size() != before) first_file = f;
      }
      if (added.empty()) return reader(files, batch_schema);
      std::vector<Field> new_fields;
      for (const auto& f : evolved->fields()) {
        const int i = data->FieldIndex(f.name);
        if (i < 0 || !data->field(i).type->Equals(*f.type)) new_fields.push_back(f);
      }
      const bool add = o.mode == SchemaEvolutionMode::kAddNewColumns;
      if (add) {
        SPATE_ASSIGN_OR_RETURN(evolved, ApplySchemaHints(*evolved, o.schema_hints));
        if (!o.schema_location.empty()) {
          SPATE_RETURN_IF_ERROR(
              WriteSchemaVersion(*fs, o.schema_location, version + 1, *evolved));
        }
      }
      return Status::Error("UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_RECORD_WITH_FILE_PATH",
                           {{"unknownFieldBlob", JoinNames(added)},
                            {"isRetryable", add ? "true" : "false"},
                            {"filePath", stream::QualifyPath(first_file)},
                            {"newColumnsInRecordSchema", Schema(new_fields).ToString()}});
    };
  }
  SPATE_ASSIGN_OR_RETURN(auto factory, MakeFileSourceFactory(std::move(fo)));
  return AutoLoaderStream{schema, std::move(factory)};
}

}  // namespace spate::connectors
