// Copyright spate authors.
#pragma once

// The table of Spark error classes spate raises: name, SQLSTATE, exception family and
// message template with <param> placeholders. Entries live in error_classes.inc, with
// Spark's names, SQLSTATEs and wording (common/utils/src/main/resources/error/
// error-conditions.json) where the meaning is the same.

#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"

namespace spate {

struct ErrorClassInfo {
  std::string_view name;
  std::string_view sql_state;
  ErrorKind kind;
  std::string_view message_template;
};

/// Looks up "CLASS" or "CLASS.SUBCLASS"; nullptr when unknown.
const ErrorClassInfo* FindErrorClass(std::string_view name);

/// All entries, for documentation and tests.
const std::vector<ErrorClassInfo>& AllErrorClasses();

/// Replaces each <name> in `tmpl` by the parameter's value; unknown names stay as is.
std::string RenderErrorTemplate(std::string_view tmpl,
                                const std::vector<ErrorParam>& params);

}  // namespace spate
