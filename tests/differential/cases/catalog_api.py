"""spark.catalog's methods by name (PySpark 4.x): catalogs, schemas, tables, views, functions.
Locations and descriptions are each engine's own (its warehouse, its function docs): the
cases compare names, types and flags."""

from dsl import case


def _names(tables):
    return sorted((t.name, t.tableType, t.isTemporary) for t in tables)


@case
def catalog_list_and_set_catalog(s):
    c = s.spark.catalog
    c.setCurrentCatalog("spark_catalog")
    return {"catalogs": [tuple(x) for x in c.listCatalogs()], "pattern": len(c.listCatalogs("x*")),
            "current": c.currentCatalog()}


@case
def catalog_set_unknown_catalog(s):
    s.spark.catalog.setCurrentCatalog("nope")


@case
def catalog_create_get_drop_database(s):
    c = s.spark.catalog
    c.dropDatabase("cat_db1", ifExists=True, cascade=True)
    c.createDatabase("cat_db1")
    c.createDatabase("cat_db1", ifNotExists=True)
    d = c.getDatabase("cat_db1")
    got = (d.name, d.catalog, c.databaseExists("cat_db1"))
    c.dropDatabase("cat_db1")
    return {"db": got, "after": c.databaseExists("cat_db1"), "default": c.getDatabase("default").name}


@case
def catalog_get_missing_database(s):
    s.spark.catalog.getDatabase("no_such_db")


@case
def catalog_create_existing_database(s):
    c = s.spark.catalog
    c.createDatabase("cat_db2", ifNotExists=True)
    try:
        c.createDatabase("cat_db2")
    finally:
        c.dropDatabase("cat_db2")


@case
def catalog_create_table_with_schema(s):
    T = s.T
    c = s.spark.catalog
    c.dropTable("cat_t1", ifExists=True)
    schema = T.StructType([T.StructField("a", T.IntegerType()), T.StructField("b", T.StringType())])
    df = c.createTable("cat_t1", schema=schema, source="delta")
    s.spark.createDataFrame([(1, "x")], "a INT, b STRING").write.insertInto("cat_t1")
    out = {"empty_schema": df.columns, "rows": s.spark.table("cat_t1").collect(),
           "exists": c.tableExists("cat_t1")}
    c.truncateTable("cat_t1")
    out["after_truncate"] = s.spark.table("cat_t1").count()
    c.dropTable("cat_t1")
    out["dropped"] = c.tableExists("cat_t1")
    return out


@case
def catalog_create_table_at_path(s):
    c = s.spark.catalog
    c.dropTable("cat_ext", ifExists=True)
    path = s.tmp + "/ext"
    s.spark.range(3).write.format("delta").save(path)
    df = c.createTable("cat_ext", path=path, source="delta")
    out = {"rows": sorted(r.id for r in df.collect()), "type": c.getTable("cat_ext").tableType}
    c.dropTable("cat_ext")
    return out


@case
def catalog_drop_missing_table(s):
    s.spark.catalog.dropTable("cat_missing_table")


@case
def catalog_views(s):
    c = s.spark.catalog
    s.spark.range(1).createOrReplaceTempView("cat_v1")
    views = _names(c.listViews())
    c.dropView("cat_v1")
    c.dropView("cat_v1", ifExists=True)
    return {"views": [v for v in views if v[0] == "cat_v1"], "after": c.tableExists("cat_v1")}


@case
def catalog_get_function(s):
    f = s.spark.catalog.getFunction("upper")
    return (f.name, f.isTemporary)


@case
def catalog_get_missing_function(s):
    s.spark.catalog.getFunction("no_such_function_here")
