// Copyright spate authors.
#pragma once

// Test assertions on failed Status / Result<T> values: an error-path test checks WHAT
// failed, not only that something did.
//
//   EXPECT_ERROR_CLASS(ParseStatement("SELEC 1"), "PARSE_SYNTAX_ERROR");
//   ASSERT_ERROR_HAS(ReadLog(path), "00000000000000000003.json");
//
// EXPECT/ASSERT_ERROR_CLASS: the value is an error of exactly that Spark error class
// (Status::error_class(), e.g. "UNRESOLVED_COLUMN.WITH_SUGGESTION"); use it for
// user-facing errors, with the class real Spark / Delta raises for the same input.
// EXPECT/ASSERT_ERROR_HAS: the value is an error whose rendering (Status::ToString():
// class, message and context) contains the substring; use it for internal and IO errors,
// naming the file, row or column, or the specific cause. On failure both print the
// expression and the actual status ("OK" when it succeeded).
//
//   EXPECT_THROW_CLASS(spark.sql("SELECT nope"), AnalysisException,
//                      "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION");
// EXPECT/ASSERT_THROW_CLASS: the statement throws that api exception type
// (api/exceptions.h) carrying exactly that error class; EXPECT/ASSERT_THROW_HAS: ...
// whose message contains the text (for errors Spark raises without a class). On failure
// they print what was thrown.
//
// Header only, for tests (not installed); depends on gtest, base/status.h and the header
// api/exceptions.h only, so any module's test can include it. Thread safety: pure
// functions.

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <string_view>

#include "spate/api/exceptions.h"
#include "spate/base/status.h"

namespace spate::testing {

/// gtest predicate-formatter behind EXPECT_ERROR_CLASS.
template <typename S>
::testing::AssertionResult ErrorClassIs(const char* expr, const char* /*class_expr*/,
                                        const S& value, std::string_view error_class) {
  const Status& st = ::spate::ToStatus(value);
  if (!st.ok() && st.error_class() == error_class) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << expr << "\n  expected: an error of class " << error_class
         << "\n  actual:   " << (st.ok() ? std::string("OK") : st.ToString())
         << (st.ok() || !st.error_class().empty() ? "" : " (no error class)");
}

/// gtest predicate-formatter behind EXPECT_ERROR_HAS.
template <typename S>
::testing::AssertionResult ErrorHas(const char* expr, const char* /*text_expr*/,
                                    const S& value, std::string_view text) {
  const Status& st = ::spate::ToStatus(value);
  if (!st.ok() && st.ToString().find(text) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << expr << "\n  expected: an error containing \"" << text << "\""
         << "\n  actual:   " << (st.ok() ? std::string("OK") : st.ToString());
}

/// Behind EXPECT_THROW_CLASS / _HAS: runs `body`, which must throw E of class
/// `error_class` (by_class) or whose message contains `text` (otherwise).
template <typename E, typename Body>
::testing::AssertionResult Throws(const char* statement, const char* type_name,
                                  Body&& body, bool by_class, std::string_view text) {
  std::string actual;
  try {
    body();
    actual = "no exception";
  } catch (const E& e) {
    const std::string what = e.what();
    if (by_class ? e.getCondition() == text : what.find(text) != std::string::npos) {
      return ::testing::AssertionSuccess();
    }
    actual = std::string(type_name) + " of class " +
             (e.getCondition().empty() ? std::string("(none)") : e.getCondition()) +
             ": " + what;
  } catch (const std::exception& e) {
    actual = std::string("another exception: ") + e.what();
  }
  return ::testing::AssertionFailure()
         << statement << "\n  expected: " << type_name
         << (by_class ? " of class " : " with a message containing ") << text
         << "\n  actual:   " << actual;
}

}  // namespace spate::testing

#define EXPECT_ERROR_CLASS(value, error_class) \
  EXPECT_PRED_FORMAT2(::spate::testing::ErrorClassIs, value, error_class)
#define ASSERT_ERROR_CLASS(value, error_class) \
  ASSERT_PRED_FORMAT2(::spate::testing::ErrorClassIs, value, error_class)
#define EXPECT_ERROR_HAS(value, text) \
  EXPECT_PRED_FORMAT2(::spate::testing::ErrorHas, value, text)
#define ASSERT_ERROR_HAS(value, text) \
  ASSERT_PRED_FORMAT2(::spate::testing::ErrorHas, value, text)
#define SPATE_THROWS_(statement, exception_type, by_class, text) \
  ::spate::testing::Throws<exception_type>(                      \
      #statement, #exception_type, [&] { statement; }, by_class, text)
#define EXPECT_THROW_CLASS(statement, exception_type, error_class) \
  EXPECT_TRUE(SPATE_THROWS_(statement, exception_type, true, error_class))
#define ASSERT_THROW_CLASS(statement, exception_type, error_class) \
  ASSERT_TRUE(SPATE_THROWS_(statement, exception_type, true, error_class))
#define EXPECT_THROW_HAS(statement, exception_type, text) \
  EXPECT_TRUE(SPATE_THROWS_(statement, exception_type, false, text))
#define ASSERT_THROW_HAS(statement, exception_type, text) \
  ASSERT_TRUE(SPATE_THROWS_(statement, exception_type, false, text))
