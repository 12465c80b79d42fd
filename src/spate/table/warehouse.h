// Copyright spate authors.
#pragma once

// Warehouse: the session catalog's tables and schemas, kept as folders under the
// warehouse directory (spark.sql.warehouse.dir, default ./spate-warehouse) so that they
// survive the process without a metastore:
//
//   <root>/<table>/_delta_log/...            table `spark_catalog`.`default`.`<table>`
//   <root>/<schema>.db/                      schema `<schema>` (Spark's layout)
//   <root>/<schema>.db/<table>/_delta_log/   a managed table in it
//   <dir>/<table>/_spate_location            an external table (CREATE TABLE ...
//   LOCATION):
//                                            the file holds the table's path
//   <root>/<schema>.db/_spate_location       a schema created with LOCATION
//
// Names are case-insensitive and stored lower-case, as Spark's session catalog does; the
// catalog part of a three-part name must be `spark_catalog`. Only the default schema
// exists when the warehouse folder is empty.
//
// Thread safety: stateless apart from the FileSystem; safe from any thread. Concurrent
// CREATE of one name is decided by the table's first Delta commit (put-if-absent), not
// here. Failure: Spark's error classes (SCHEMA_NOT_FOUND, SCHEMA_ALREADY_EXISTS,
// SCHEMA_NOT_EMPTY, TABLE_OR_VIEW_NOT_FOUND, REQUIRES_SINGLE_PART_NAMESPACE, ...) or the
// FileSystem's I/O error naming the path.

#include <optional>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/io/file_system.h"

namespace spate::table {

/// spark_catalog.<schema>.<table>, lower-case.
struct TableIdentifier {
  std::string catalog = "spark_catalog";
  std::string schema = "default";
  std::string table;
  /// `spark_catalog`.`default`.`t` (Spark's quoting in error messages).
  std::string Quoted() const;
  /// spark_catalog.default.t
  std::string Unquoted() const;
};

/// Where a table lives and whether the warehouse owns its files.
struct TableLocation {
  TableIdentifier id;
  std::string path;
  bool managed = true;
};

class Warehouse {
 public:
  static constexpr const char* kDefaultSchema = "default";
  static constexpr const char* kCatalogName = "spark_catalog";

  Warehouse(io::FileSystemPtr fs, std::string root);
  const std::string& root() const { return root_; }
  const io::FileSystemPtr& fs() const { return fs_; }

  /// A schema name from `name` parts ([schema] or [spark_catalog, schema]).
  Result<std::string> QualifySchema(const std::vector<std::string>& name) const;
  /// A table name: [t] (in `current_schema`), [schema, t], [spark_catalog, schema, t].
  Result<TableIdentifier> QualifyTable(const std::vector<std::string>& name,
                                       const std::string& current_schema) const;

  Status CreateSchema(const std::string& schema, bool if_not_exists,
                      const std::optional<std::string>& location);
  /// Without `cascade`, fails with SCHEMA_NOT_EMPTY when the schema holds tables; with
  /// it, drops them (deleting managed tables' files).
  Status DropSchema(const std::string& schema, bool if_exists, bool cascade);
  Result<bool> SchemaExists(const std::string& schema) const;
  /// Sorted, "default" included.
  Result<std::vector<std::string>> ListSchemas() const;

  /// The table's location when it exists (a folder with a _delta_log, or an external
  /// table's pointer); nullopt otherwise. SCHEMA_NOT_FOUND when its schema is missing.
  Result<std::optional<TableLocation>> LookupTable(const TableIdentifier& id) const;
  /// Where a new table goes: its managed folder, or `location` for an external one
  /// (the pointer file is written here, before the table's first commit).
  Result<TableLocation> PrepareTable(const TableIdentifier& id,
                                     const std::optional<std::string>& location);
  /// Removes the table from the catalog; a managed table's files are deleted, an
  /// external table's are kept. Returns false when it did not exist.
  Result<bool> DropTable(const TableIdentifier& id);
  /// Table names of a schema, sorted.
  Result<std::vector<std::string>> ListTables(const std::string& schema) const;

 private:
  Result<std::string> SchemaDir(const std::string& schema) const;

  io::FileSystemPtr fs_;
  std::string root_;
};

}  // namespace spate::table
