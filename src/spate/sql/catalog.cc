// Copyright spate authors.
#include "spate/sql/catalog.h"

namespace spate::sql {

Status Catalog::CreateTempView(const std::string& name, BoundPlanPtr plan, bool replace,
                               bool global) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& views = global ? global_views_ : views_;
  std::string key = ToLower(name);
  if (!replace && views.count(key)) {
    return Status::Error("TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
                         {{"relationName", "`" + name + "`"}});
  }
  views[key] = std::move(plan);
  return Status::OK();
}

bool Catalog::DropTempView(const std::vector<std::string>& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (name.size() == 2 && EqualsIgnoreCase(name[0], "global_temp")) {
    return global_views_.erase(ToLower(name[1])) > 0;
  }
  if (name.size() != 1) return false;
  return views_.erase(ToLower(name[0])) > 0;
}

BoundPlanPtr Catalog::LookupView(const std::vector<std::string>& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (name.size() == 1) {
    auto it = views_.find(ToLower(name[0]));
    return it == views_.end() ? nullptr : it->second;
  }
  if (name.size() == 2 && EqualsIgnoreCase(name[0], "global_temp")) {
    auto it = global_views_.find(ToLower(name[1]));
    return it == global_views_.end() ? nullptr : it->second;
  }
  return nullptr;
}

std::vector<std::string> Catalog::TempViewNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [k, v] : views_) out.push_back(k);
  return out;
}

void Catalog::SetFileSourceResolver(FileSourceResolver resolver) {
  std::lock_guard<std::mutex> lock(mu_);
  file_source_resolver_ = std::move(resolver);
}

Result<DataSourcePtr> Catalog::ResolveFileSource(const std::string& format,
                                                 const std::string& path) const {
  FileSourceResolver r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    r = file_source_resolver_;
  }
  if (!r) return DataSourcePtr();
  return r(format, path);
}

std::string Catalog::current_database() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_database_;
}

void Catalog::SetCurrentDatabase(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  current_database_ = name;
}

void Catalog::SetTableResolver(TableResolver resolver) {
  std::lock_guard<std::mutex> lock(mu_);
  table_resolver_ = std::move(resolver);
}

Result<DataSourcePtr> Catalog::ResolveTable(const std::vector<std::string>& name,
                                            const TimeTravel& travel) const {
  TableResolver r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    r = table_resolver_;
  }
  if (!r) return DataSourcePtr();
  return r(name, travel);
}

void Catalog::SetTableFunctionResolver(TableFunctionResolver resolver) {
  std::lock_guard<std::mutex> lock(mu_);
  table_function_resolver_ = std::move(resolver);
}

Result<DataSourcePtr> Catalog::ResolveTableFunction(
    const std::string& name, const std::vector<Value>& args) const {
  TableFunctionResolver r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    r = table_function_resolver_;
  }
  if (!r) return DataSourcePtr();
  return r(name, args);
}

void Catalog::SetRelationPlanResolver(RelationPlanResolver resolver) {
  std::lock_guard<std::mutex> lock(mu_);
  relation_plan_resolver_ = std::move(resolver);
}

Result<PlanPtr> Catalog::ResolveRelationPlan(
    const LogicalPlan& node,
    const std::vector<std::pair<std::string, Value>>& args) const {
  RelationPlanResolver r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    r = relation_plan_resolver_;
  }
  if (!r) return PlanPtr();
  return r(node, args);
}

void Catalog::SetSubqueryExecutor(SubqueryExecutor executor) {
  std::lock_guard<std::mutex> lock(mu_);
  subquery_executor_ = std::move(executor);
}

Result<std::vector<BatchPtr>> Catalog::ExecuteSubquery(const BoundPlanPtr& plan) const {
  SubqueryExecutor e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e = subquery_executor_;
  }
  if (!e)
    return Status::Invalid("subquery expressions need an executor (none installed)");
  return e(plan);
}

}  // namespace spate::sql
