// Copyright spate authors.
#include "spate/table/warehouse.h"

#include <algorithm>

namespace spate::table {

namespace {

constexpr const char* kLocationFile = "_spate_location";

std::string LowerName(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string Quote(const std::string& part) {
  std::string out = "`";
  for (char c : part) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string QuoteParts(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "." : "") + Quote(parts[i]);
  return out;
}

Status SchemaNotFound(const std::string& schema) {
  return Status::Error(
      "SCHEMA_NOT_FOUND",
      {{"schemaName", Quote(Warehouse::kCatalogName) + "." + Quote(schema)}});
}

bool ValidName(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." &&
         name != ".." && name[0] != '_' && name[0] != '.';
}

}  // namespace

std::string TableIdentifier::Quoted() const {
  return Quote(catalog) + "." + Quote(schema) + "." + Quote(table);
}
std::string TableIdentifier::Unquoted() const {
  return catalog + "." + schema + "." + table;
}

Warehouse::Warehouse(io::FileSystemPtr fs, std::string root)
    : fs_(std::move(fs)), root_(std::move(root)) {}

Result<std::string> Warehouse::QualifySchema(const std::vector<std::string>& name) const {
  if (name.size() == 2 && LowerName(name[0]) == kCatalogName) return LowerName(name[1]);
  if (name.size() != 1) {
    // Without catalog plugins every other multi-part name is a nested namespace of the
    // session catalog, which it does not have (as Spark).
    return Status::Error(
        "REQUIRES_SINGLE_PART_NAMESPACE",
        {{"sessionCatalog", kCatalogName}, {"namespace", QuoteParts(name)}});
  }
  if (!ValidName(name[0])) {
    return Status::Error("INVALID_SCHEMA_OR_RELATION_NAME", {{"name", Quote(name[0])}});
  }
  return LowerName(name[0]);
}

Result<TableIdentifier> Warehouse::QualifyTable(const std::vector<std::string>& name,
                                                const std::string& current_schema) const {
  TableIdentifier id;
  if (name.size() == 1) {
    id.schema = LowerName(current_schema);
  } else if (name.size() == 2) {
    id.schema = LowerName(name[0]);
  } else if (name.size() == 3 && LowerName(name[0]) == kCatalogName) {
    id.schema = LowerName(name[1]);
  } else {
    return Status::Error("REQUIRES_SINGLE_PART_NAMESPACE",
                         {{"sessionCatalog", kCatalogName},
                          {"namespace", QuoteParts({name.begin(), name.end() - 1})}});
  }
  id.table = LowerName(name.back());
  if (!ValidName(id.table) || !ValidName(id.schema)) {
    return Status::Error("INVALID_SCHEMA_OR_RELATION_NAME",
                         {{"name", Quote(name.back())}});
  }
  return id;
}

Result<std::string> Warehouse::SchemaDir(const std::string& schema) const {
  if (schema == kDefaultSchema) return root_;
  std::string dir = io::JoinPath(root_, schema + ".db");
  SPATE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(dir));
  if (!exists) return SchemaNotFound(schema);
  std::string pointer = io::JoinPath(dir, kLocationFile);
  SPATE_ASSIGN_OR_RETURN(bool external, fs_->Exists(pointer));
  if (external) return fs_->ReadAll(pointer);
  return dir;
}

Status Warehouse::CreateSchema(const std::string& schema, bool if_not_exists,
                               const std::optional<std::string>& location) {
  SPATE_ASSIGN_OR_RETURN(bool exists, SchemaExists(schema));
  if (exists) {
    if (if_not_exists) return Status::OK();
    return Status::Error("SCHEMA_ALREADY_EXISTS", {{"schemaName", Quote(schema)}});
  }
  std::string dir = io::JoinPath(root_, schema + ".db");
  SPATE_RETURN_IF_ERROR(fs_->MakeDirs(dir));
  if (location) {
    SPATE_RETURN_IF_ERROR(fs_->MakeDirs(*location));
    SPATE_RETURN_IF_ERROR(fs_->WriteAtomic(io::JoinPath(dir, kLocationFile), *location));
  }
  return Status::OK();
}

Status Warehouse::DropSchema(const std::string& schema, bool if_exists, bool cascade) {
  SPATE_ASSIGN_OR_RETURN(bool exists, SchemaExists(schema));
  if (!exists) return if_exists ? Status::OK() : SchemaNotFound(schema);
  if (schema == kDefaultSchema) {
    return Status::Error("UNSUPPORTED_FEATURE.DROP_DATABASE",
                         {{"database", Quote(kDefaultSchema)}});
  }
  SPATE_ASSIGN_OR_RETURN(std::vector<std::string> tables, ListTables(schema));
  if (!tables.empty() && !cascade) {
    return Status::Error("SCHEMA_NOT_EMPTY", {{"schemaName", Quote(schema)}});
  }
  for (const auto& t : tables) {
    TableIdentifier id;
    id.schema = schema;
    id.table = t;
    SPATE_RETURN_IF_ERROR(DropTable(id).status());
  }
  SPATE_ASSIGN_OR_RETURN(std::string dir, SchemaDir(schema));
  std::string own = io::JoinPath(root_, schema + ".db");
  if (dir != own) (void)fs_->Delete(dir, true);
  return fs_->Delete(own, true);
}

Result<bool> Warehouse::SchemaExists(const std::string& schema) const {
  if (schema == kDefaultSchema) return true;
  auto info = fs_->Stat(io::JoinPath(root_, schema + ".db"));
  if (!info.ok()) return false;
  return info->is_directory;
}

Result<std::vector<std::string>> Warehouse::ListSchemas() const {
  std::vector<std::string> out{kDefaultSchema};
  auto entries = fs_->List(root_, false);
  if (entries.ok()) {
    for (const auto& e : *entries) {
      if (!e.is_directory) continue;
      std::string name = io::BaseName(e.path);
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".db") == 0) {
        out.push_back(name.substr(0, name.size() - 3));
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::optional<TableLocation>> Warehouse::LookupTable(
    const TableIdentifier& id) const {
  SPATE_ASSIGN_OR_RETURN(std::string dir, SchemaDir(id.schema));
  std::string folder = io::JoinPath(dir, id.table);
  std::string pointer = io::JoinPath(folder, kLocationFile);
  SPATE_ASSIGN_OR_RETURN(bool external, fs_->Exists(pointer));
  if (external) {
    SPATE_ASSIGN_OR_RETURN(std::string path, fs_->ReadAll(pointer));
    return std::optional<TableLocation>(TableLocation{id, path, false});
  }
  SPATE_ASSIGN_OR_RETURN(bool managed, fs_->Exists(io::JoinPath(folder, "_delta_log")));
  if (!managed) return std::optional<TableLocation>();
  return std::optional<TableLocation>(TableLocation{id, folder, true});
}

Result<TableLocation> Warehouse::PrepareTable(
    const TableIdentifier& id, const std::optional<std::string>& location) {
  SPATE_ASSIGN_OR_RETURN(std::string dir, SchemaDir(id.schema));
  std::string folder = io::JoinPath(dir, id.table);
  SPATE_RETURN_IF_ERROR(fs_->MakeDirs(folder));
  if (!location) return TableLocation{id, folder, true};
  SPATE_RETURN_IF_ERROR(fs_->MakeDirs(*location));
  SPATE_RETURN_IF_ERROR(fs_->WriteAtomic(io::JoinPath(folder, kLocationFile), *location));
  return TableLocation{id, *location, false};
}

Result<bool> Warehouse::DropTable(const TableIdentifier& id) {
  SPATE_ASSIGN_OR_RETURN(std::optional<TableLocation> loc, LookupTable(id));
  if (!loc) return false;
  SPATE_ASSIGN_OR_RETURN(std::string dir, SchemaDir(id.schema));
  std::string folder = io::JoinPath(dir, id.table);
  SPATE_RETURN_IF_ERROR(fs_->Delete(folder, true));
  return true;
}

Result<std::vector<std::string>> Warehouse::ListTables(const std::string& schema) const {
  SPATE_ASSIGN_OR_RETURN(std::string dir, SchemaDir(schema));
  std::vector<std::string> out;
  auto entries = fs_->List(dir, false);
  if (!entries.ok()) return out;  // an empty warehouse has no folder yet
  for (const auto& e : *entries) {
    if (!e.is_directory) continue;
    std::string name = io::BaseName(e.path);
    if (!ValidName(name) ||
        (name.size() > 3 && name.compare(name.size() - 3, 3, ".db") == 0)) {
      continue;
    }
    TableIdentifier id;
    id.schema = schema;
    id.table = name;
    SPATE_ASSIGN_OR_RETURN(std::optional<TableLocation> loc, LookupTable(id));
    if (loc) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace spate::table
