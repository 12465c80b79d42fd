// Copyright spate authors.
// A right outer join of a small left side with a large right side, planned both ways in
// one run: unhinted (spark.sql.autoBroadcastJoinThreshold=-1: ShuffledHashJoin, both
// sides hash-exchanged, build right) and with functions::broadcast(left)
// (BroadcastHashJoin BuildLeft: the left side's table built once, the right side neither
// shuffled nor built). Prints each plan's best wall time of the repetitions, alternating,
// and the ratio.
//
//   build/release/bench/spate_join_hint_bench [right_rows] [left_rows] [repetitions]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "timing.h"

#include "spate/spate.h"

using namespace spate::api;  // NOLINT
namespace F = spate::api::functions;

int main(int argc, char** argv) {
  const int64_t right_rows = argc > 1 ? std::atoll(argv[1]) : 10'000'000;
  const int64_t left_rows = argc > 2 ? std::atoll(argv[2]) : 10'000;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  SparkSession spark = SparkSession::builder().getOrCreate();
  spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
  DataFrame left = spark.range(left_rows).select((F::col("id") * 7).alias("k"),
                                                 F::col("id").alias("lv"));
  DataFrame right =
      spark.range(right_rows)
          .select((F::col("id") % (left_rows * 10)).alias("k"), F::col("id").alias("rv"));
  auto query = [&](const DataFrame& l) {
    return l.join(right, "k", "right_outer")
        .agg({F::count(F::lit(1)).alias("n"), F::count(F::col("lv")).alias("matched"),
              F::sum(F::col("lv")).alias("s")});
  };
  DataFrame plain = query(left);
  DataFrame hinted = query(F::broadcast(left));
  auto join_line = [](const DataFrame& df) {
    std::string plan = df.explainString();
    size_t at = plan.find("HashJoin");
    at = plan.rfind(' ', at) + 1;
    return plan.substr(at, plan.find('\n', at) - at);
  };
  std::printf("unhinted: %s\nhinted:   %s\n", join_line(plain).c_str(),
              join_line(hinted).c_str());
  double best_plain = 1e9, best_hinted = 1e9;
  std::string rows_plain, rows_hinted;
  for (int i = 0; i < reps; ++i) {
    auto t0 = spate::bench::Steady::now();
    rows_plain = plain.collect()[0].toString();
    best_plain = std::min(best_plain, spate::bench::Seconds(t0));
    t0 = spate::bench::Steady::now();
    rows_hinted = hinted.collect()[0].toString();
    best_hinted = std::min(best_hinted, spate::bench::Seconds(t0));
  }
  std::printf("rows: %s\n", rows_plain.c_str());
  if (rows_plain != rows_hinted) {
    std::printf("MISMATCH: hinted %s\n", rows_hinted.c_str());
    return 1;
  }
  std::printf(
      "right outer join, %lld x %lld rows: unhinted (shuffled) %.3f s, hinted "
      "(broadcast BuildLeft) %.3f s: %.2fx\n",
      static_cast<long long>(left_rows), static_cast<long long>(right_rows), best_plain,
      best_hinted, best_plain / best_hinted);
  return 0;
}
