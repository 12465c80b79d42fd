// Copyright spate authors.
#pragma once

// Redaction of secrets wherever confs, options or messages are shown (the monitoring
// server, `spate checkpoint describe`, ...), as Spark's spark.redaction.regex
// ("(?i)secret|password|token|access[.]?key") does for its UI and logs, plus Kafka's
// JAAS config (kafka.sasl.jaas.config, which holds a password inside its text) and
// credentials. A secret value is shown as Spark shows it: "*********(redacted)".
//
// Thread safety: pure functions. Failure: none.

#include <string>
#include <string_view>

namespace spate {

/// Spark's replacement text for a redacted value.
inline constexpr std::string_view kRedactedText = "*********(redacted)";

/// Whether a conf or option key names a secret (case-insensitive: contains "secret",
/// "password", "token", "access.key"/"accesskey", "credential" or "jaas.config").
bool IsSecretKey(std::string_view key);

/// `value`, or kRedactedText when `key` names a secret.
std::string RedactValue(std::string_view key, std::string_view value);

/// Free text (an error message, a source description) with the value of every
/// `<secret key>=<value>`, `<secret key>: <value>` and `"<secret key>":"<value>"`
/// replaced by kRedactedText. A value runs to the next blank, quote, ',', ';', ')', ']'
/// or '}' (a quoted value to its closing quote; a JAAS config to the end of its line).
std::string RedactText(std::string_view text);

}  // namespace spate
