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
// EXPECT/ASSERT_ERROR_HAS: the value is an error whose rendering (Status::ToString(): class,
// message and context) contains the substring; use it for internal and IO errors, naming
// the file, row or column, or the specific cause.
// On failure both print the expression and the actual status ("OK" when it succeeded).
//
// Header only, for tests (not installed); depends on gtest and base/status.h only, so any
// module's test can include it. Thread safety: pure functions.

#include <string>
#include <string_view>

#include <gtest/gtest.h>

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

}  // namespace spate::testing

#define EXPECT_ERROR_CLASS(value, error_class) \
  EXPECT_PRED_FORMAT2(::spate::testing::ErrorClassIs, value, error_class)
#define ASSERT_ERROR_CLASS(value, error_class) \
  ASSERT_PRED_FORMAT2(::spate::testing::ErrorClassIs, value, error_class)
#define EXPECT_ERROR_HAS(value, text) EXPECT_PRED_FORMAT2(::spate::testing::ErrorHas, value, text)
#define ASSERT_ERROR_HAS(value, text) ASSERT_PRED_FORMAT2(::spate::testing::ErrorHas, value, text)
