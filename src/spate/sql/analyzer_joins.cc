// Copyright spate authors.
// The analyzer: joins (conditions, USING / NATURAL columns) and set operations.

#include "spate/sql/analyzer_internal.h"

namespace spate::sql {

Result<BoundPlanPtr> Analyzer::Impl::PlanJoin(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(auto left, Plan(*p.children[0]));
  SPATE_ASSIGN_OR_RETURN(auto right, Plan(*p.children[1]));
  auto j = std::make_shared<BoundPlan>(BoundKind::kJoin);
  j->join_type = p.join_type == JoinType::kCross ? JoinType::kInner : p.join_type;
  j->children = {left, right};
  std::vector<Attribute> both = left->output;
  both.insert(both.end(), right->output.begin(), right->output.end());
  int nleft = static_cast<int>(left->output.size());
  auto& registry = FunctionRegistry::Global();
  ResolveContext rc;
  rc.ansi = conf_.ansi();
  std::vector<BoundExprPtr> residual;
  auto add_key = [&](BoundExprPtr l, BoundExprPtr r, bool null_safe) -> Status {
    DataTypePtr t = CommonType(l->type(), r->type());
    if (!t) {
      return Status::Error(
          "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
          {{"sqlExpr", "\"(" + l->ToString() + " = " + r->ToString() + ")\""},
           {"left", QuoteType(*l->type())},
           {"right", QuoteType(*r->type())}});
    }
    SPATE_ASSIGN_OR_RETURN(l, ImplicitCast(l, t));
    SPATE_ASSIGN_OR_RETURN(r, ImplicitCast(r, t));
    j->left_keys.push_back(l);
    j->right_keys.push_back(r);
    j->null_safe_keys.push_back(null_safe);
    return Status::OK();
  };
  std::vector<std::pair<int, int>> using_pairs;
  std::vector<std::string> using_columns = p.using_columns;
  if (p.natural) {
    for (const auto& la : left->output) {
      for (const auto& ra : right->output) {
        if (NameEq(la.name, ra.name)) using_columns.push_back(la.name);
      }
    }
  }
  if (!using_columns.empty()) {
    for (const auto& name : using_columns) {
      int li = -1, ri = -1;
      for (int i = 0; i < nleft; ++i) {
        if (NameEq(left->output[i].name, name)) li = i;
      }
      for (size_t i = 0; i < right->output.size(); ++i) {
        if (NameEq(right->output[i].name, name)) ri = static_cast<int>(i);
      }
      if (li < 0 || ri < 0) {
        const auto& side = li < 0 ? left->output : right->output;
        std::string cols;
        for (size_t k = 0; k < side.size(); ++k)
          cols += (k ? ", " : "") + QuoteIdentifier({side[k].name});
        return Status::Error("UNRESOLVED_USING_COLUMN_FOR_JOIN",
                             {{"colName", QuoteIdentifier({name})},
                              {"side", li < 0 ? "left" : "right"},
                              {"suggestion", cols}});
      }
      const Attribute& la = left->output[li];
      const Attribute& ra = right->output[ri];
      SPATE_RETURN_IF_ERROR(add_key(MakeColumnRef(li, la.type, la.nullable, la.Label()),
                                    MakeColumnRef(ri, ra.type, ra.nullable, ra.Label()),
                                    false));
      using_pairs.emplace_back(li, ri);
    }
  } else if (p.condition) {
    // Split conjunctions; equalities between one side and the other become keys.
    std::vector<ExprPtr> conjuncts = SplitConjuncts(p.condition);
    for (const auto& c : conjuncts) {
      // Full binding first: surfaces unresolved/ambiguous names.
      SPATE_ASSIGN_OR_RETURN(auto whole, Bind(*c, both, nullptr));
      bool is_eq = c->kind == ExprKind::kCall && (c->name == "=" || c->name == "<=>") &&
                   c->children.size() == 2;
      bool done = false;
      if (is_eq && j->join_type != JoinType::kCross) {
        for (int swap = 0; swap < 2 && !done; ++swap) {
          const Expr& x = *c->children[swap];
          const Expr& y = *c->children[1 - swap];
          auto bl = Bind(x, left->output, nullptr);
          auto br = Bind(y, right->output, nullptr);
          if (bl.ok() && br.ok() && !(*bl)->IsConstant() && !(*br)->IsConstant()) {
            // Make sure the same expression did not also resolve on the other side (a
            // name that binds there only as a niladic function, such as `user`, does not
            // count: the column shadows it).
            auto xr = Bind(x, right->output, nullptr);
            auto yl = Bind(y, left->output, nullptr);
            if ((xr.ok() && !(*xr)->IsConstant()) || (yl.ok() && !(*yl)->IsConstant()))
              continue;
            SPATE_RETURN_IF_ERROR(add_key(*bl, *br, c->name == "<=>"));
            done = true;
          }
        }
      }
      if (!done) {
        if (whole->type()->id() != TypeId::kBoolean &&
            whole->type()->id() != TypeId::kNull) {
          return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                               {{"sqlExpr", "\"" + c->DisplayName() + "\""},
                                {"paramIndex", "first"},
                                {"requiredType", "\"BOOLEAN\""},
                                {"inputSql", "\"" + c->DisplayName() + "\""},
                                {"inputType", QuoteType(*whole->type())}});
        }
        residual.push_back(whole);
      }
    }
  }
  if (!residual.empty()) {
    BoundExprPtr cond = residual[0];
    for (size_t i = 1; i < residual.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(cond,
                             (*registry.FindScalar("and"))({cond, residual[i]}, rc));
    }
    j->condition = cond;
  }
  // Output.
  bool left_only =
      j->join_type == JoinType::kLeftSemi || j->join_type == JoinType::kLeftAnti;
  bool left_nullable =
      j->join_type == JoinType::kRightOuter || j->join_type == JoinType::kFullOuter;
  bool right_nullable =
      j->join_type == JoinType::kLeftOuter || j->join_type == JoinType::kFullOuter;
  for (auto a : left->output) {
    a.nullable |= left_nullable;
    j->output.push_back(a);
  }
  if (!left_only) {
    for (auto a : right->output) {
      a.nullable |= right_nullable;
      j->output.push_back(a);
    }
  }
  if (using_pairs.empty() || left_only) return Finish(j);
  // USING: the join columns once, then the remaining left and right columns.
  std::vector<BoundExprPtr> exprs;
  std::vector<std::string> names;
  std::vector<const Attribute*> pass;
  std::set<int> used_left, used_right;
  for (auto [li, ri] : using_pairs) {
    used_left.insert(li);
    used_right.insert(ri);
    const Attribute& la = j->output[li];
    const Attribute& ra = j->output[nleft + ri];
    BoundExprPtr l = MakeColumnRef(li, la.type, la.nullable, la.Label());
    BoundExprPtr r = MakeColumnRef(nleft + ri, ra.type, ra.nullable, ra.Label());
    if (j->join_type == JoinType::kRightOuter) {
      exprs.push_back(r);
      pass.push_back(&j->output[nleft + ri]);
    } else if (j->join_type == JoinType::kFullOuter) {
      SPATE_ASSIGN_OR_RETURN(auto co, (*registry.FindScalar("coalesce"))({l, r}, rc));
      exprs.push_back(co);
      pass.push_back(nullptr);
    } else {
      exprs.push_back(l);
      pass.push_back(&j->output[li]);
    }
    names.push_back(la.name);
  }
  for (int i = 0; i < static_cast<int>(j->output.size()); ++i) {
    bool is_left = i < nleft;
    if (is_left ? used_left.count(i) : used_right.count(i - nleft)) continue;
    const Attribute& a = j->output[i];
    exprs.push_back(MakeColumnRef(i, a.type, a.nullable, a.Label()));
    names.push_back(a.name);
    pass.push_back(&j->output[i]);
  }
  return Project(j, exprs, names, pass);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanSetOp(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(auto left, Plan(*p.children[0]));
  SPATE_ASSIGN_OR_RETURN(auto right, Plan(*p.children[1]));
  const char* op_name = p.set_op == SetOpKind::kUnion       ? "UNION"
                        : p.set_op == SetOpKind::kIntersect ? "INTERSECT"
                                                            : "EXCEPT";
  if (p.by_name) {
    // Reorder (and pad) the right side by the left side's names.
    std::vector<BoundExprPtr> exprs;
    std::vector<std::string> names;
    for (const auto& la : left->output) {
      int found = -1;
      for (size_t i = 0; i < right->output.size(); ++i) {
        if (NameEq(right->output[i].name, la.name)) found = static_cast<int>(i);
      }
      if (found < 0) {
        if (!p.allow_missing_columns) {
          std::string cols;
          for (size_t i = 0; i < right->output.size(); ++i)
            cols += (i ? ", " : "") + QuoteIdentifier({right->output[i].name});
          return Status::Error(
              "NUM_COLUMNS_MISMATCH",
              {{"operator", op_name},
               {"firstNumColumns", std::to_string(left->output.size())},
               {"invalidOrdinalNum", "second"},
               {"invalidNumColumns", std::to_string(right->output.size())}});
        }
        exprs.push_back(MakeLiteral(Value::Null(la.type)));
      } else {
        const Attribute& ra = right->output[found];
        exprs.push_back(MakeColumnRef(found, ra.type, ra.nullable, ra.Label()));
      }
      names.push_back(la.name);
    }
    if (p.allow_missing_columns) {
      // Columns only on the right are appended, with NULLs on the left.
      std::vector<BoundExprPtr> lexprs;
      std::vector<std::string> lnames;
      for (size_t i = 0; i < left->output.size(); ++i) {
        const Attribute& la = left->output[i];
        lexprs.push_back(
            MakeColumnRef(static_cast<int>(i), la.type, la.nullable, la.Label()));
        lnames.push_back(la.name);
      }
      for (size_t i = 0; i < right->output.size(); ++i) {
        const Attribute& ra = right->output[i];
        bool in_left = false;
        for (const auto& la : left->output) in_left |= NameEq(la.name, ra.name);
        if (in_left) continue;
        lexprs.push_back(MakeLiteral(Value::Null(ra.type)));
        lnames.push_back(ra.name);
        exprs.push_back(
            MakeColumnRef(static_cast<int>(i), ra.type, ra.nullable, ra.Label()));
        names.push_back(ra.name);
      }
      SPATE_ASSIGN_OR_RETURN(left, Project(left, lexprs, lnames));
    } else if (right->output.size() != left->output.size()) {
      return Status::Error("NUM_COLUMNS_MISMATCH",
                           {{"operator", op_name},
                            {"firstNumColumns", std::to_string(left->output.size())},
                            {"invalidOrdinalNum", "second"},
                            {"invalidNumColumns", std::to_string(right->output.size())}});
    }
    SPATE_ASSIGN_OR_RETURN(right, Project(right, exprs, names));
  }
  if (left->output.size() != right->output.size()) {
    return Status::Error("NUM_COLUMNS_MISMATCH",
                         {{"operator", op_name},
                          {"firstNumColumns", std::to_string(left->output.size())},
                          {"invalidOrdinalNum", "second"},
                          {"invalidNumColumns", std::to_string(right->output.size())}});
  }
  // Widen column types.
  std::vector<DataTypePtr> types;
  for (size_t i = 0; i < left->output.size(); ++i) {
    DataTypePtr t = CommonType(left->output[i].type, right->output[i].type);
    if (!t) {
      static const char* kOrd[] = {"first", "second",  "third",  "fourth", "fifth",
                                   "sixth", "seventh", "eighth", "ninth",  "tenth"};
      return Status::Error(
          "INCOMPATIBLE_COLUMN_TYPE",
          {{"operator", op_name},
           {"columnOrdinalNumber", i < 10 ? kOrd[i] : std::to_string(i + 1) + "th"},
           {"tableOrdinalNumber", "second"},
           {"dataType1", QuoteType(*right->output[i].type)},
           {"dataType2", QuoteType(*left->output[i].type)},
           {"hint", ""}});
    }
    types.push_back(t);
  }
  auto widen = [&](BoundPlanPtr side) -> Result<BoundPlanPtr> {
    bool needed = false;
    for (size_t i = 0; i < types.size(); ++i)
      needed |= !side->output[i].type->Equals(*types[i]);
    if (!needed) return side;
    std::vector<BoundExprPtr> exprs;
    std::vector<std::string> names;
    for (size_t i = 0; i < types.size(); ++i) {
      const Attribute& a = side->output[i];
      SPATE_ASSIGN_OR_RETURN(
          auto e,
          ImplicitCast(MakeColumnRef(static_cast<int>(i), a.type, a.nullable, a.Label()),
                       types[i]));
      exprs.push_back(e);
      names.push_back(a.name);
    }
    return Project(side, exprs, names);
  };
  SPATE_ASSIGN_OR_RETURN(left, widen(left));
  SPATE_ASSIGN_OR_RETURN(right, widen(right));
  std::vector<Attribute> out;
  for (size_t i = 0; i < types.size(); ++i) {
    Attribute a = left->output[i];
    a.type = types[i];
    a.nullable = left->output[i].nullable || right->output[i].nullable;
    out.push_back(a);
  }
  if (p.set_op == SetOpKind::kUnion) {
    auto u = std::make_shared<BoundPlan>(BoundKind::kUnion);
    u->children = {left, right};
    u->output = out;
    if (p.set_all) return Finish(u);
    return MakeDistinct(u);
  }
  auto s = std::make_shared<BoundPlan>(BoundKind::kSetOp);
  s->set_op = p.set_op;
  s->set_all = p.set_all;
  s->children = {left, right};
  s->output = out;
  return Finish(s);
}

}  // namespace spate::sql
