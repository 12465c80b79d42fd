// Copyright spate authors.
// Writes a Delta table with spate for the independent check in check_delta.mjs:
//   write_delta_table <dir>
// v0: 90 rows partitioned by `part` (p0/p1/p2); v1..v11: appends of 10 rows (a Parquet
// checkpoint at v10); v12: overwrite with replaceWhere part = 'p0'. Prints the expected
// final state as JSON: {"version":12,"rows":N,"sum":S,"p0":K}.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/table/delta_writer.h"

using namespace spate;  // NOLINT

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string path = argv[1];
  auto fs = io::LocalFileSystem::Get();
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""},
                         {"name", DataType::String(), true, ""},
                         {"part", DataType::String(), true, ""}});
  std::map<int64_t, std::string> expected;  // id -> part
  auto batch = [&](int64_t from, int64_t n, const std::string* fixed_part) {
    std::vector<Value> ids, names, parts;
    for (int64_t i = from; i < from + n; ++i) {
      std::string p = fixed_part ? *fixed_part : "p" + std::to_string(i % 3);
      ids.push_back(Value::Long(i));
      names.push_back(i % 7 == 0 ? Value::Null(DataType::String())
                                 : Value::String("name " + std::to_string(i)));
      parts.push_back(Value::String(p));
      expected[i] = p;
    }
    return Batch::Make(schema,
                       {ColumnFromValues(DataType::Long(), ids),
                        ColumnFromValues(DataType::String(), names),
                        ColumnFromValues(DataType::String(), parts)},
                       n);
  };
  table::DeltaWriteOptions o;
  o.mode = "errorifexists";
  o.partition_by = {"part"};
  if (!table::WriteBatches(fs, path, {batch(0, 90, nullptr)}, o).ok()) return 1;
  o.mode = "append";
  for (int v = 1; v <= 11; ++v) {
    if (!table::WriteBatches(fs, path, {batch(1000 * v, 10, nullptr)}, o).ok()) return 1;
  }
  // replaceWhere: every p0 row goes, five new ones come.
  for (auto it = expected.begin(); it != expected.end();) {
    it = it->second == "p0" ? expected.erase(it) : std::next(it);
  }
  const std::string p0 = "p0";
  o.mode = "overwrite";
  o.options["replaceWhere"] = "part = 'p0'";
  auto r = table::WriteBatches(fs, path, {batch(50000, 5, &p0)}, o);
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
    return 1;
  }
  int64_t sum = 0, n_p0 = 0;
  for (const auto& [id, p] : expected) {
    sum += id;
    n_p0 += p == "p0";
  }
  std::printf("{\"version\":%lld,\"rows\":%zu,\"sum\":%lld,\"p0\":%lld}\n",
              static_cast<long long>(r->version), expected.size(),
              static_cast<long long>(sum), static_cast<long long>(n_p0));
  return 0;
}
