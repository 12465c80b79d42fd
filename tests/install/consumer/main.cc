// Uses the installed spate through its public headers: a batch query, a SQL query and a
// Delta table written and read back. Prints results the test compares.
#include <cstdio>
#include <string>

#include "spate/spate.h"

using namespace spate::api;
namespace F = spate::api::functions;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer WAREHOUSE\n");
    return 2;
  }
  auto spark = SparkSession::builder()
                   .appName("consumer")
                   .config("spark.sql.warehouse.dir", argv[1])
                   .getOrCreate();
  auto df = spark.range(10)
                .selectExpr("id % 3 AS k", "id AS v")
                .groupBy("k")
                .agg(F::sum(F::col("v")).alias("s"));
  df.orderBy("k").show();
  df.write().format("delta").saveAsTable("t");
  std::printf("%s\n", spark.sql("SELECT count(*) AS n, sum(s) AS total FROM t")
                          .collect()[0]
                          .toString()
                          .c_str());
  return 0;
}
