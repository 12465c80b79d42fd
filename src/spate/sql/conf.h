// Copyright spate authors.
#pragma once

// Session configuration (spark.conf / SET key=value), with Spark's keys and defaults for
// the settings spate honours. Unknown keys are stored and returned as given, like Spark.
//
// Thread safety: all methods are safe from any thread (internally locked).

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/base/status.h"

namespace spate::sql {

class SqlConf {
 public:
  SqlConf();
  SqlConf(const SqlConf& other);
  SqlConf& operator=(const SqlConf&) = delete;

  /// Sets a value after validating known keys (INVALID_CONF_VALUE... for bad values).
  Status Set(const std::string& key, const std::string& value);
  /// Returns the user-set or default value, or nullopt for an unknown unset key.
  std::optional<std::string> Get(const std::string& key) const;
  std::string GetOr(const std::string& key, const std::string& fallback) const;
  /// Back to the default (RESET key), or all keys (RESET).
  void Unset(const std::string& key);
  void Clear();
  /// Explicitly set entries, sorted by key (what `SET` lists).
  std::vector<std::pair<std::string, std::string>> SetEntries() const;
  /// Defaults of the settings spate knows, with their documentation (SET -v).
  struct Entry {
    std::string key;
    std::string default_value;
    std::string doc;
  };
  static const std::vector<Entry>& KnownEntries();

  bool ansi() const;
  int shuffle_partitions() const;
  std::string session_time_zone() const;
  bool case_sensitive() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> values_;
};

}  // namespace spate::sql
