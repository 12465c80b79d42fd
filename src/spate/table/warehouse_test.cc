// Copyright spate authors.
#include "spate/table/warehouse.h"

#include <gtest/gtest.h>

#include "spate/testing/status_matchers.h"

namespace spate::table {
namespace {

class WarehouseTest : public ::testing::Test {
 protected:
  std::shared_ptr<io::MemoryFileSystem> fs_ = std::make_shared<io::MemoryFileSystem>();
  Warehouse wh_{fs_, "/wh"};

  // A managed table exists once its folder has a _delta_log.
  void MakeTable(const std::string& folder) {
    ASSERT_TRUE(fs_->MakeDirs(folder + "/_delta_log").ok());
    ASSERT_TRUE(
        fs_->WriteAtomic(folder + "/_delta_log/00000000000000000000.json", "{}").ok());
  }
};

TEST_F(WarehouseTest, QualifiesNamesLikeTheSessionCatalog) {
  auto t = wh_.QualifyTable({"Events"}, "default");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Unquoted(), "spark_catalog.default.events");
  EXPECT_EQ(t->Quoted(), "`spark_catalog`.`default`.`events`");
  auto two = wh_.QualifyTable({"Sales", "t"}, "default");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->schema, "sales");
  auto three = wh_.QualifyTable({"spark_catalog", "s", "t"}, "default");
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->schema, "s");
  auto other = wh_.QualifyTable({"main", "s", "t"}, "default");
  ASSERT_ERROR_CLASS(other, "REQUIRES_SINGLE_PART_NAMESPACE");
  EXPECT_EQ(other.status().message(),
            "spark_catalog requires a single-part namespace, but got `main`.`s`.");
  auto bad = wh_.QualifyTable({"a/b"}, "default");
  ASSERT_ERROR_CLASS(bad, "INVALID_SCHEMA_OR_RELATION_NAME");
  EXPECT_EQ(*wh_.QualifySchema({"spark_catalog", "X"}), "x");
}

TEST_F(WarehouseTest, SchemasAreFoldersNamedDb) {
  EXPECT_EQ(*wh_.ListSchemas(), std::vector<std::string>{"default"});
  ASSERT_TRUE(wh_.CreateSchema("sales", false, std::nullopt).ok());
  EXPECT_TRUE(*fs_->Exists("/wh/sales.db"));
  EXPECT_EQ(*wh_.ListSchemas(), (std::vector<std::string>{"default", "sales"}));
  Status again = wh_.CreateSchema("sales", false, std::nullopt);
  EXPECT_EQ(again.error_class(), "SCHEMA_ALREADY_EXISTS");
  EXPECT_TRUE(wh_.CreateSchema("sales", true, std::nullopt).ok());
  EXPECT_EQ(wh_.DropSchema("nope", false, false).error_class(), "SCHEMA_NOT_FOUND");
  EXPECT_TRUE(wh_.DropSchema("nope", true, false).ok());
  EXPECT_EQ(wh_.DropSchema("default", false, false).error_class(),
            "UNSUPPORTED_FEATURE.DROP_DATABASE");
  ASSERT_TRUE(wh_.DropSchema("sales", false, false).ok());
  EXPECT_EQ(*wh_.ListSchemas(), std::vector<std::string>{"default"});
}

TEST_F(WarehouseTest, ManagedTablesLiveInTheirSchemaFolder) {
  ASSERT_TRUE(wh_.CreateSchema("s", false, std::nullopt).ok());
  TableIdentifier id = *wh_.QualifyTable({"s", "t"}, "default");
  EXPECT_FALSE(wh_.LookupTable(id)->has_value());
  auto loc = wh_.PrepareTable(id, std::nullopt);
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(loc->path, "/wh/s.db/t");
  EXPECT_TRUE(loc->managed);
  // A folder without a log (a create that never committed) is not a table.
  EXPECT_FALSE(wh_.LookupTable(id)->has_value());
  EXPECT_TRUE(wh_.ListTables("s")->empty());
  MakeTable("/wh/s.db/t");
  auto found = wh_.LookupTable(id);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->path, "/wh/s.db/t");
  EXPECT_EQ(*wh_.ListTables("s"), std::vector<std::string>{"t"});
  EXPECT_EQ(wh_.DropSchema("s", false, false).error_class(), "SCHEMA_NOT_EMPTY");
  ASSERT_TRUE(wh_.DropSchema("s", false, true).ok());
  EXPECT_FALSE(*fs_->Exists("/wh/s.db"));
  auto gone = wh_.LookupTable(id);
  EXPECT_EQ(gone.status().error_class(), "SCHEMA_NOT_FOUND");
}

TEST_F(WarehouseTest, ExternalTablesKeepTheirFilesOnDrop) {
  TableIdentifier id = *wh_.QualifyTable({"ext"}, "default");
  auto loc = wh_.PrepareTable(id, std::string("/data/ext"));
  ASSERT_TRUE(loc.ok());
  EXPECT_FALSE(loc->managed);
  EXPECT_EQ(loc->path, "/data/ext");
  MakeTable("/data/ext");
  auto found = wh_.LookupTable(id);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->path, "/data/ext");
  EXPECT_FALSE((*found)->managed);
  EXPECT_EQ(*wh_.ListTables("default"), std::vector<std::string>{"ext"});
  EXPECT_TRUE(*wh_.DropTable(id));
  EXPECT_TRUE(*fs_->Exists("/data/ext/_delta_log"));
  EXPECT_FALSE(*wh_.DropTable(id));
  EXPECT_TRUE(wh_.ListTables("default")->empty());
}

}  // namespace
}  // namespace spate::table
