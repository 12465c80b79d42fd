// Copyright spate authors.
#include "spate/base/status.h"

#include <gtest/gtest.h>

#include <atomic>

#include "spate/base/error_classes.h"
#include "spate/base/thread_pool.h"
#include "spate/testing/status_matchers.h"

namespace spate {
namespace {

TEST(StatusTest, RendersSparkErrorClass) {
  Status st = Status::Error("DIVIDE_BY_ZERO", {{"config", "\"spark.sql.ansi.enabled\""}});
  EXPECT_ERROR_CLASS(st, "DIVIDE_BY_ZERO");
  EXPECT_EQ(st.error_class(), "DIVIDE_BY_ZERO");
  EXPECT_EQ(st.sql_state(), "22012");
  EXPECT_EQ(st.kind(), ErrorKind::kArithmetic);
  EXPECT_EQ(
      st.ToString(),
      "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 "
      "and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to "
      "\"false\" to bypass this error. SQLSTATE: 22012");
}

TEST(StatusTest, UnknownClassIsInternal) {
  Status st = Status::Error("NO_SUCH_CLASS_EVER");
  EXPECT_EQ(st.error_class(), "INTERNAL_ERROR");
  EXPECT_EQ(st.kind(), ErrorKind::kInternal);
}

TEST(StatusTest, EveryTemplateHasSqlState) {
  for (const auto& c : AllErrorClasses()) {
    EXPECT_EQ(c.sql_state.size(), 5u) << c.name;
    EXPECT_FALSE(c.message_template.empty()) << c.name;
  }
}

Result<int> Half(int x) {
  if (x % 2) return Status::Invalid("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  SPATE_ASSIGN_OR_RETURN(int h, Half(x));
  SPATE_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, ResultMacros) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_ERROR_HAS(Quarter(6), "odd");
  EXPECT_EQ(Quarter(6).status().message(), "odd");
}

TEST(ThreadPoolTest, ParallelForRunsAllAndReportsFirstError) {
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  ASSERT_TRUE(pool.ParallelFor(1000, 4,
                               [&](int64_t i) {
                                 sum += i;
                                 return Status::OK();
                               })
                  .ok());
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
  Status st = pool.ParallelFor(10, 2, [&](int64_t i) {
    return i >= 3 ? Status::Invalid("bad " + std::to_string(i)) : Status::OK();
  });
  EXPECT_EQ(st.message(), "bad 3");
}

}  // namespace
}  // namespace spate
