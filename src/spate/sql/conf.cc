// Copyright spate authors.
#include "spate/sql/conf.h"

#include <thread>

#include "spate/types/data_type.h"
#include "spate/types/timezone.h"

namespace spate::sql {

namespace {
std::string DefaultParallelism() {
  unsigned n = std::thread::hardware_concurrency();
  return std::to_string(n == 0 ? 2 : n);
}

bool ParseBool(const std::string& v, bool* out) {
  std::string l = ToLower(v);
  if (l == "true") {
    *out = true;
    return true;
  }
  if (l == "false") {
    *out = false;
    return true;
  }
  return false;
}
}  // namespace

const std::vector<SqlConf::Entry>& SqlConf::KnownEntries() {
  static const std::vector<Entry>* entries = new std::vector<Entry>{
      {"spark.sql.ansi.enabled", "true",
       "When true, Spark SQL uses an ANSI compliant dialect: runtime errors on overflow, "
       "invalid casts and division by zero."},
      {"spark.sql.shuffle.partitions", DefaultParallelism(),
       "The default number of partitions to use when shuffling data for joins or "
       "aggregations (spate: defaults to the number of cores)."},
      {"spark.sql.session.timeZone", "UTC", "The ID of session local timezone."},
      {"spark.sql.caseSensitive", "false",
       "Whether the query analyzer should be case sensitive."},
      {"spark.sql.groupByOrdinal", "true",
       "Whether ordinal numbers in group by clauses are treated as positions."},
      {"spark.sql.orderByOrdinal", "true",
       "Whether ordinal numbers in order by clauses are treated as positions."},
      {"spark.sql.groupByAliases", "true",
       "Whether aliases in a select list can be used in group by clauses."},
      {"spark.default.parallelism", DefaultParallelism(),
       "Default number of partitions of range() and local data."},
      {"spark.sql.warehouse.dir", "spate-warehouse",
       "The default location for managed databases and tables (relative paths are under "
       "the working directory)."},
  };
  return *entries;
}

SqlConf::SqlConf() = default;

SqlConf::SqlConf(const SqlConf& other) {
  std::lock_guard<std::mutex> lock(other.mu_);
  values_ = other.values_;
}

Status SqlConf::Set(const std::string& key, const std::string& value) {
  bool b;
  if ((key == "spark.sql.ansi.enabled" || key == "spark.sql.caseSensitive" ||
       key == "spark.sql.groupByOrdinal" || key == "spark.sql.orderByOrdinal" ||
       key == "spark.sql.groupByAliases") &&
      !ParseBool(value, &b)) {
    return Status::Invalid(key + " should be boolean, but was " + value);
  }
  if (key == "spark.sql.shuffle.partitions" || key == "spark.default.parallelism") {
    char* end = nullptr;
    long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n <= 0) {
      return Status::Invalid(key + " should be a positive int, but was " + value);
    }
  }
  if (key == "spark.sql.session.timeZone") {
    SPATE_RETURN_IF_ERROR(TimeZone::Find(value));
  }
  std::lock_guard<std::mutex> lock(mu_);
  values_[key] = value;
  return Status::OK();
}

std::optional<std::string> SqlConf::Get(const std::string& key) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = values_.find(key);
    if (it != values_.end()) return it->second;
  }
  for (const auto& e : KnownEntries()) {
    if (e.key == key) return e.default_value;
  }
  return std::nullopt;
}

std::string SqlConf::GetOr(const std::string& key, const std::string& fallback) const {
  auto v = Get(key);
  return v ? *v : fallback;
}

void SqlConf::Unset(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  values_.erase(key);
}

void SqlConf::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  values_.clear();
}

std::vector<std::pair<std::string, std::string>> SqlConf::SetEntries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {values_.begin(), values_.end()};
}

bool SqlConf::ansi() const {
  return ToLower(GetOr("spark.sql.ansi.enabled", "true")) == "true";
}
int SqlConf::shuffle_partitions() const {
  return std::max(1, std::atoi(GetOr("spark.sql.shuffle.partitions", "2").c_str()));
}
std::string SqlConf::session_time_zone() const {
  return GetOr("spark.sql.session.timeZone", "UTC");
}
bool SqlConf::case_sensitive() const {
  return ToLower(GetOr("spark.sql.caseSensitive", "false")) == "true";
}

}  // namespace spate::sql
