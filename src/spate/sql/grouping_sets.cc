// Copyright spate authors.
//
// GROUP BY ROLLUP / CUBE / GROUPING SETS: the keys and sets of a GROUP BY list and the
// expansion below the aggregate (see grouping_sets.h).

#include "spate/sql/grouping_sets.h"

#include <algorithm>
#include <map>
#include <set>

namespace spate::sql {

namespace {

constexpr size_t kMaxKeys = 64;  // the bits of the BIGINT grouping id

bool IsAnalytics(const Expr& e) {
  return e.kind == ExprKind::kCall &&
         (e.name == "rollup" || e.name == "cube" || e.name == "grouping_sets");
}

// A grouping set as written: its expressions.
using ExprSet = std::vector<ExprPtr>;

// The members of a set argument of rollup / cube / grouping_sets (struct(a, b) is {a,
// b}).
ExprSet Members(const ExprPtr& e) {
  if (e->kind == ExprKind::kCall && e->name == "struct") return e->children;
  return {e};
}

ExprSet Concat(const std::vector<ExprSet>& parts, const std::vector<size_t>& which) {
  ExprSet out;
  for (size_t i : which) out.insert(out.end(), parts[i].begin(), parts[i].end());
  return out;
}

// The sets one GROUP BY item stands for, in Spark's order; `keys` collects its
// expressions in order of appearance (a kGroupingKeysCall lists them up front).
std::vector<ExprSet> SetsOf(const ExprPtr& item, std::vector<ExprPtr>* keys) {
  if (!IsAnalytics(*item)) {
    keys->push_back(item);
    return {{item}};
  }
  if (item->name == "grouping_sets") {
    std::vector<ExprSet> out;
    for (const auto& c : item->children) {
      if (c->kind == ExprKind::kCall && c->name == kGroupingKeysCall) {
        keys->insert(keys->end(), c->children.begin(), c->children.end());
        continue;
      }
      if (IsAnalytics(*c)) {
        auto nested = SetsOf(c, keys);
        out.insert(out.end(), nested.begin(), nested.end());
        continue;
      }
      ExprSet m = Members(c);
      keys->insert(keys->end(), m.begin(), m.end());
      out.push_back(std::move(m));
    }
    return out;
  }
  std::vector<ExprSet> parts;
  for (const auto& c : item->children) {
    parts.push_back(Members(c));
    keys->insert(keys->end(), parts.back().begin(), parts.back().end());
  }
  std::vector<ExprSet> out;
  for (const auto& set :
       item->name == "cube" ? CubeSets(parts.size()) : RollupSets(parts.size())) {
    out.push_back(Concat(parts, set));
  }
  return out;
}

}  // namespace

std::vector<std::vector<size_t>> CubeSets(size_t n) {
  // Spark's cubeExprs: cube(x :: xs) = cube(xs).map(x ++ _) ++ cube(xs); the mask's bit
  // (n - 1 - i) set means key i is left out.
  std::vector<std::vector<size_t>> sets;
  if (n >= kMaxKeys) return sets;
  for (uint64_t mask = 0; mask < (uint64_t{1} << n); ++mask) {
    std::vector<size_t> set;
    for (size_t i = 0; i < n; ++i) {
      if (!(mask & (uint64_t{1} << (n - 1 - i)))) set.push_back(i);
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

std::vector<std::vector<size_t>> RollupSets(size_t n) {
  std::vector<std::vector<size_t>> sets;
  for (size_t len = n + 1; len-- > 0;) {
    std::vector<size_t> set;
    for (size_t i = 0; i < len; ++i) set.push_back(i);
    sets.push_back(std::move(set));
  }
  return sets;
}

bool HasGroupingAnalytics(const std::vector<ExprPtr>& group_by) {
  return std::any_of(group_by.begin(), group_by.end(),
                     [](const ExprPtr& e) { return IsAnalytics(*e); });
}

bool GroupingSets::HasRepeats() const {
  std::set<std::vector<size_t>> seen(sets.begin(), sets.end());
  return seen.size() != sets.size();
}

int64_t GroupingSets::IdOf(size_t s) const {
  const size_t n = keys.size();
  uint64_t id = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::binary_search(sets[s].begin(), sets[s].end(), i))
      id |= uint64_t{1} << (n - 1 - i);
  }
  return static_cast<int64_t>(id);
}

Result<GroupingSets> ExpandGroupingAnalytics(
    const std::vector<ExprPtr>& group_by,
    const std::function<Result<std::string>(const ExprPtr&)>& identity) {
  GroupingSets out;
  std::map<std::string, size_t> index;  // identity -> key
  std::map<const Expr*, size_t> key_of;
  auto key = [&](const ExprPtr& e) -> Result<size_t> {
    auto found = key_of.find(e.get());
    if (found != key_of.end()) return found->second;
    SPATE_ASSIGN_OR_RETURN(std::string id, identity(e));
    auto [it, fresh] = index.emplace(id, out.keys.size());
    if (fresh) out.keys.push_back(e);
    key_of[e.get()] = it->second;
    return it->second;
  };
  // Each item's sets; the cartesian product of them all, as Spark's GroupingAnalytics.
  std::vector<std::vector<size_t>> product = {{}};
  for (const auto& item : group_by) {
    std::vector<ExprPtr> written;
    std::vector<ExprSet> sets = SetsOf(item, &written);
    for (const auto& e : written) SPATE_RETURN_IF_ERROR(key(e).status());
    if (out.keys.size() > kMaxKeys) {
      return Status::Error("GROUPING_SIZE_LIMIT_EXCEEDED",
                           {{"maxSize", std::to_string(kMaxKeys)}});
    }
    std::vector<std::vector<size_t>> next;
    for (const auto& left : product) {
      for (const auto& set : sets) {
        std::vector<size_t> merged = left;
        for (const auto& e : set) {
          SPATE_ASSIGN_OR_RETURN(size_t k, key(e));
          merged.push_back(k);
        }
        std::sort(merged.begin(), merged.end());
        merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
        next.push_back(std::move(merged));
      }
    }
    product = std::move(next);
  }
  out.sets = std::move(product);
  return out;
}

std::vector<Attribute> GroupingExpansion(
    const std::vector<Attribute>& input, const std::vector<BoundExprPtr>& keys,
    const std::vector<std::string>& key_names, const GroupingSets& sets,
    const std::function<Attribute(std::string, DataTypePtr, bool)>& make_attr) {
  std::vector<Attribute> out = input;
  for (size_t i = 0; i < keys.size(); ++i) {
    bool nullable = keys[i]->nullable();
    for (const auto& set : sets.sets)
      nullable |= !std::binary_search(set.begin(), set.end(), i);
    out.push_back(make_attr(key_names[i], keys[i]->type(), nullable));
  }
  out.push_back(make_attr(kGroupingIdName, DataType::Long(), false));
  if (sets.HasRepeats())
    out.push_back(make_attr(kGroupingPositionName, DataType::Int(), false));
  return out;
}

namespace {

BoundExprPtr Ref(const std::vector<Attribute>& attrs, size_t i) {
  const Attribute& a = attrs[i];
  return MakeColumnRef(static_cast<int>(i), a.type, a.nullable, a.Label());
}

std::shared_ptr<BoundPlan> ProjectOf(const BoundPlanPtr& child,
                                     std::vector<BoundExprPtr> exprs,
                                     std::vector<Attribute> output) {
  auto p = std::make_shared<BoundPlan>(BoundKind::kProject);
  p->children.push_back(child);
  p->exprs = std::move(exprs);
  p->output = std::move(output);
  return p;
}

}  // namespace

Result<BoundPlanPtr> PlanGroupingAggregate(const BoundPlanPtr& child,
                                           const std::vector<BoundExprPtr>& keys,
                                           const GroupingSets& sets,
                                           const std::vector<Attribute>& expansion,
                                           const std::vector<AggregateCall>& aggs,
                                           const std::vector<Attribute>& output) {
  const size_t width = child->output.size(), n = keys.size();
  const bool positions = sets.HasRepeats();
  const size_t id_column = width + n;
  auto all = std::make_shared<BoundPlan>(BoundKind::kUnion);
  all->output = output;
  for (size_t s = 0; s < sets.sets.size(); ++s) {
    const std::vector<size_t>& set = sets.sets[s];
    auto in_set = [&](size_t i) { return std::binary_search(set.begin(), set.end(), i); };
    const BoundExprPtr id = MakeLiteral(Value::Long(sets.IdOf(s)));
    const BoundExprPtr position = MakeLiteral(Value::Int(static_cast<int32_t>(s)));
    // The input in the expansion's layout, for this set.
    std::vector<BoundExprPtr> expanded;
    for (size_t i = 0; i < width; ++i) expanded.push_back(Ref(child->output, i));
    for (size_t i = 0; i < n; ++i) {
      expanded.push_back(in_set(i) ? keys[i] : MakeLiteral(Value::Null(keys[i]->type())));
    }
    expanded.push_back(id);
    if (positions) expanded.push_back(position);
    auto projected = ProjectOf(child, std::move(expanded), expansion);
    // Aggregated by the set's keys.
    auto agg = std::make_shared<BoundPlan>(BoundKind::kAggregate);
    agg->children.push_back(projected);
    std::vector<size_t> grouped(set.begin(), set.end());
    for (size_t i : grouped) agg->group_exprs.push_back(Ref(expansion, width + i));
    if (set.empty()) agg->group_exprs.push_back(Ref(expansion, id_column));
    agg->aggregates = aggs;
    for (size_t i : grouped) agg->output.push_back(expansion[width + i]);
    if (set.empty()) agg->output.push_back(expansion[id_column]);
    const size_t num_groups = agg->group_exprs.size();
    for (size_t j = 0; j < aggs.size(); ++j)
      agg->output.push_back(output[output.size() - aggs.size() + j]);
    // Laid out as the aggregate's output: [keys, id, (position), aggregates].
    std::vector<BoundExprPtr> laid_out;
    for (size_t i = 0; i < n; ++i) {
      auto at = std::find(grouped.begin(), grouped.end(), i);
      laid_out.push_back(at != grouped.end()
                             ? Ref(agg->output, static_cast<size_t>(at - grouped.begin()))
                             : MakeLiteral(Value::Null(keys[i]->type())));
    }
    laid_out.push_back(id);
    if (positions) laid_out.push_back(position);
    for (size_t j = 0; j < aggs.size(); ++j)
      laid_out.push_back(Ref(agg->output, num_groups + j));
    all->children.push_back(ProjectOf(agg, std::move(laid_out), output));
  }
  if (all->children.size() == 1) return all->children[0];
  return BoundPlanPtr(all);
}

}  // namespace spate::sql
