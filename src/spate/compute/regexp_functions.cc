// Copyright spate authors.
// Regular-expression functions with RE2: rlike regexp regexp_like regexp_extract
// regexp_extract_all regexp_replace split. Patterns are Java regex syntax (as Spark's);
// they are translated to RE2 where RE2 has an equivalent ((?<name>...) -> (?P<name>...),
// POSIX \p{...} classes), and Java-only features (backreferences, lookaround, atomic
// groups, possessive quantifiers) fail with INVALID_PARAMETER_VALUE.PATTERN naming the
// unsupported construct. A literal pattern is compiled once when the call is resolved;
// column patterns are compiled once per distinct value within a batch.

#include <re2/re2.h>

#include <cstring>
#include <memory>

#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/java_regex.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/string_kernels.h"

namespace spate {

namespace {

using fn::NullMask;

Status PatternError(const std::string& function, std::string_view pattern,
                    const std::string& why) {
  std::string value = "'" + std::string(pattern) + "'";
  if (!why.empty()) value += " (" + why + ")";
  return Status::Error("INVALID_PARAMETER_VALUE.PATTERN",
                       {{"parameter", "`regexp`"},
                        {"functionName", "`" + function + "`"},
                        {"value", value}});
}

// Java regex -> RE2 syntax, or an error naming the unsupported feature.
Result<std::string> TranslateJavaRegex(const std::string& function, std::string_view p) {
  std::string out;
  out.reserve(p.size() + 8);
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      char d = p[i + 1];
      if (d == 'Q') {  // \Q...\E quoting: copy verbatim (RE2 supports it)
        size_t e = p.find("\\E", i + 2);
        size_t stop = e == std::string_view::npos ? p.size() : e + 2;
        out.append(p.substr(i, stop - i));
        i = stop - 1;
        continue;
      }
      if (!in_class && d >= '1' && d <= '9') {
        return PatternError(function, p, "backreferences are not supported");
      }
      if (d == 'k' && i + 2 < p.size() && p[i + 2] == '<') {
        return PatternError(function, p, "backreferences are not supported");
      }
      if ((d == 'p' || d == 'P') && i + 2 < p.size() && p[i + 2] == '{') {
        size_t e = p.find('}', i + 3);
        if (e != std::string_view::npos) {
          std::string name(p.substr(i + 3, e - i - 3));
          static const std::pair<const char*, const char*> kPosix[] = {
              {"Lower", "a-z"},
              {"Upper", "A-Z"},
              {"ASCII", "\\x00-\\x7F"},
              {"Alpha", "a-zA-Z"},
              {"Digit", "0-9"},
              {"Alnum", "a-zA-Z0-9"},
              {"Punct", "!-/:-@\\[-`{-~"},
              {"Graph", "!-~"},
              {"Print", " -~"},
              {"Blank", " \\t"},
              {"Cntrl", "\\x00-\\x1F\\x7F"},
              {"XDigit", "0-9a-fA-F"},
              {"Space", " \\t\\n\\x0B\\f\\r"}};
          const char* cls = nullptr;
          for (const auto& [k, v] : kPosix) {
            if (name == k) cls = v;
          }
          if (cls) {
            bool neg = d == 'P';
            if (in_class) {
              if (neg)
                return PatternError(
                    function, p, "negated POSIX class inside a class is not supported");
              out += cls;
            } else {
              out += std::string(neg ? "[^" : "[") + cls + "]";
            }
            i = e;
            continue;
          }
          // Unicode categories/scripts (\p{L}, \p{Greek}, \p{IsAlphabetic}...) pass
          // through.
          if (name.rfind("Is", 0) == 0 || name.rfind("In", 0) == 0) {
            out += std::string("\\") + d + "{" + name.substr(2) + "}";
            i = e;
            continue;
          }
        }
      }
      if (d == 'Z') {
        out += "(?:\\n?\\z)";
        ++i;
        continue;
      }
      if (d == 'h') {
        out += in_class ? " \\t\\x{A0}\\x{1680}\\x{180e}\\x{2000}-\\x{200a}\\x{202f}\\x{"
                          "205f}\\x{3000}"
                        : "[ "
                          "\\t\\x{A0}\\x{1680}\\x{180e}\\x{2000}-\\x{200a}\\x{202f}\\x{"
                          "205f}\\x{3000}]";
        ++i;
        continue;
      }
      out.push_back(c);
      out.push_back(d);
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      if (c == '[') {
        // Java class union/intersection ([a-z&&[^b]]) has no RE2 equivalent.
        return PatternError(function, p, "nested character classes are not supported");
      }
      out.push_back(c);
      continue;
    }
    if (c == '[') {
      in_class = true;
      out.push_back(c);
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < p.size() && p[i + 1] == '^') {
        out.push_back('^');
        ++i;
      }
      if (i + 1 < p.size() && p[i + 1] == ']') {
        out += "\\]";
        ++i;
      }
      continue;
    }
    if (c == '(' && i + 2 < p.size() && p[i + 1] == '?') {
      char k = p[i + 2];
      if (k == '=' || k == '!')
        return PatternError(function, p, "lookahead is not supported");
      if (k == '>') return PatternError(function, p, "atomic groups are not supported");
      if (k == '<' && i + 3 < p.size()) {
        if (p[i + 3] == '=' || p[i + 3] == '!')
          return PatternError(function, p, "lookbehind is not supported");
        out += "(?P<";
        i += 2;
        continue;
      }
    }
    if ((c == '+') && i > 0 && !out.empty()) {
      char prev = p[i - 1];
      bool escaped_prev = i >= 2 && p[i - 2] == '\\';
      if (!escaped_prev && (prev == '*' || prev == '+' || prev == '?' || prev == '}')) {
        return PatternError(function, p, "possessive quantifiers are not supported");
      }
    }
    out.push_back(c);
  }
  return out;
}

Result<std::shared_ptr<const RE2>> Compile(const std::string& function,
                                           std::string_view pattern,
                                           bool case_sensitive = true) {
  SPATE_ASSIGN_OR_RETURN(std::string translated, TranslateJavaRegex(function, pattern));
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_case_sensitive(case_sensitive);
  auto re = std::make_shared<const RE2>(translated, opts);
  if (!re->ok()) return PatternError(function, pattern, re->error());
  return std::shared_ptr<const RE2>(re);
}

// Pattern source for a call: compiled once if literal, else per distinct row value.
class PatternCache {
 public:
  PatternCache(std::string function, std::shared_ptr<const RE2> fixed)
      : function_(std::move(function)), fixed_(std::move(fixed)) {}
  Result<const RE2*> Get(const Column& patterns, int64_t i) {
    if (fixed_) return fixed_.get();
    std::string_view p = patterns.GetView(i);
    if (!current_ || p != last_) {
      SPATE_ASSIGN_OR_RETURN(current_, Compile(function_, p));
      last_.assign(p);
    }
    return current_.get();
  }

 private:
  std::string function_;
  std::shared_ptr<const RE2> fixed_;
  std::shared_ptr<const RE2> current_;
  std::string last_;
};

// Compiles a literal pattern argument at resolve time (nullptr for column patterns).
Result<std::shared_ptr<const RE2>> CompileLiteral(const std::string& function,
                                                  const BoundExprPtr& e) {
  const Value* v = e->literal_value();
  if (!v || v->is_null()) return std::shared_ptr<const RE2>();
  return Compile(function, v->str());
}

// Next match at or after `from`; false if none. Groups has 1 + NumberOfCapturingGroups.
bool Find(const RE2& re, std::string_view s, size_t from,
          std::vector<re2::StringPiece>* groups) {
  if (from > s.size()) return false;
  return re.Match(re2::StringPiece(s.data(), s.size()), from, s.size(), RE2::UNANCHORED,
                  groups->data(), static_cast<int>(groups->size()));
}

// Start of the next search after a match [b, e): Java's find() steps one character past
// an empty match.
size_t NextFrom(std::string_view s, size_t b, size_t e) {
  if (e > b) return e;
  if (e >= s.size()) return s.size() + 1;
  return e + static_cast<size_t>(fn::Utf8Len(static_cast<unsigned char>(s[e])));
}

Result<std::vector<BoundExprPtr>> StringArgs(const std::string& name,
                                             std::vector<BoundExprPtr> args,
                                             size_t count) {
  for (size_t k = 0; k < count && k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg(name, args, k));
  }
  return args;
}

// ---- rlike
// -----------------------------------------------------------------------------

Result<BoundExprPtr> ResolveRlike(const std::string& name,
                                  std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(args, StringArgs(name, args, 2));
  SPATE_ASSIGN_OR_RETURN(auto fixed, CompileLiteral(name, args[1]));
  return MakeScalarCall(
      name, DataType::Boolean(), fn::AnyNullable(args), args,
      [name, fixed](const std::vector<ColumnPtr>& c, int64_t n,
                    const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get()}, n);
        auto out = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        PatternCache cache(name, fixed);
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          SPATE_ASSIGN_OR_RETURN(const RE2* re, cache.Get(*c[1], i));
          std::string_view s = c[0]->GetView(i);
          if (RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re))
            bits::Set(o, i);
        }
        return kernel::MakeColumn(DataType::Boolean(), n, mask.null_count(),
                                  mask.validity(), out);
      },
      [name](const std::vector<std::string>& s) {
        if (name == "rlike") return s[0] + " RLIKE " + s[1];
        return CallText(name, s);
      });
}

// ---- regexp_extract(_all)
// --------------------------------------------------------------

Status GroupIndexError(const std::string& name, int groups, int64_t idx) {
  return Status::Error("INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",
                       {{"parameter", "`idx`"},
                        {"functionName", "`" + name + "`"},
                        {"groupCount", std::to_string(groups)},
                        {"groupIndex", std::to_string(idx)}});
}

// ---- regexp_count / regexp_substr / regexp_instr
// ---------------------------------------

enum class FindKind : uint8_t { kCount, kSubstr, kInstr };

// regexp_count: the number of matches; regexp_substr: the first match (NULL without one);
// regexp_instr: the 1-based character position of the first match (0 without one).
Result<BoundExprPtr> ResolveFind(const std::string& name, FindKind kind,
                                 std::vector<BoundExprPtr> args) {
  size_t max_args = kind == FindKind::kInstr ? 3 : 2;
  SPATE_RETURN_IF_ERROR(
      fn::CheckArgs(name, args.size(), 2, max_args, max_args == 3 ? "[2, 3]" : "2"));
  SPATE_ASSIGN_OR_RETURN(args, StringArgs(name, args, 2));
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(args[2], fn::ToIntArg(name, args, 2));
  }
  SPATE_ASSIGN_OR_RETURN(auto fixed, CompileLiteral(name, args[1]));
  DataTypePtr type = kind == FindKind::kSubstr ? DataType::String() : DataType::Int();
  bool nullable = kind == FindKind::kSubstr || fn::AnyNullable(args);
  return MakeScalarCall(
      name, type, nullable, args,
      [name, fixed, kind, type](const std::vector<ColumnPtr>& c, int64_t n,
                                const EvalContext&) -> Result<ColumnPtr> {
        std::vector<const Column*> in;
        for (const auto& x : c) in.push_back(x.get());
        NullMask mask(in, n);
        PatternCache cache(name, fixed);
        Status error = Status::OK();
        if (kind == FindKind::kSubstr) {
          auto col = fn::MapToString(type, mask, n, [&](int64_t i, std::string* out) {
            auto re = cache.Get(*c[1], i);
            if (!re.ok()) {
              error = re.status();
              return false;
            }
            std::vector<re2::StringPiece> g(1);
            std::string_view s = c[0]->GetView(i);
            if (!Find(**re, s, 0, &g)) return false;
            out->assign(g[0].data(), g[0].size());
            return true;
          });
          SPATE_RETURN_IF_ERROR(error);
          return col;
        }
        kernel::Out<int32_t> out(n);
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          SPATE_ASSIGN_OR_RETURN(const RE2* re, cache.Get(*c[1], i));
          std::string_view s = c[0]->GetView(i);
          // Spark's regexp_instr reads its group index but reports the whole match.
          std::vector<re2::StringPiece> g(1);
          if (kind == FindKind::kCount) {
            int32_t count = 0;
            for (size_t from = 0; Find(*re, s, from, &g);) {
              ++count;
              size_t b = static_cast<size_t>(g[0].data() - s.data());
              from = NextFrom(s, b, b + g[0].size());
            }
            out.data[i] = count;
          } else if (!Find(*re, s, 0, &g)) {
            out.data[i] = 0;
          } else {
            size_t b = static_cast<size_t>(g[0].data() - s.data());
            out.data[i] = static_cast<int32_t>(fn::NumChars(s.substr(0, b)) + 1);
          }
        }
        return kernel::MakeColumn(DataType::Int(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

// ---- str_to_map
// ------------------------------------------------------------------------

// Java's String.split(regex, limit): the pieces between matches (a leading empty match
// yields no empty first piece; with limit 0 trailing empty pieces are dropped).
std::vector<std::string_view> SplitJava(const RE2& re, std::string_view s, int limit) {
  std::vector<std::string_view> out;
  std::vector<re2::StringPiece> g(1);
  size_t start = 0;
  for (size_t from = 0; (limit <= 0 || static_cast<int>(out.size()) < limit - 1) &&
                        Find(re, s, from, &g);) {
    size_t b = static_cast<size_t>(g[0].data() - s.data()), e = b + g[0].size();
    if (e == 0) {  // an empty match at the start splits nothing
      from = NextFrom(s, b, e);
      continue;
    }
    out.push_back(s.substr(start, b - start));
    start = e;
    from = NextFrom(s, b, e);
  }
  out.push_back(s.substr(start));
  if (limit == 0) {
    while (out.size() > 1 && out.back().empty()) out.pop_back();
  }
  return out;
}

// str_to_map(text[, pairDelim[, keyValueDelim]]): a map<string, string> from text split
// by the regexes pairDelim (',') and keyValueDelim (':'); a key without a value maps to
// NULL.
Result<BoundExprPtr> ResolveStrToMap(std::vector<BoundExprPtr> args,
                                     const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("str_to_map", args.size(), 1, 3, "[1, 2, 3]"));
  SPATE_ASSIGN_OR_RETURN(args, StringArgs("str_to_map", args, args.size()));
  if (args.size() < 2) args.push_back(MakeLiteral(Value::String(",")));
  if (args.size() < 3) args.push_back(MakeLiteral(Value::String(":")));
  SPATE_ASSIGN_OR_RETURN(auto pair_re, CompileLiteral("str_to_map", args[1]));
  SPATE_ASSIGN_OR_RETURN(auto kv_re, CompileLiteral("str_to_map", args[2]));
  DataTypePtr type = DataType::Map(DataType::String(), DataType::String(), true);
  return MakeScalarCall(
      "str_to_map", type, fn::AnyNullable(args), args,
      [pair_re, kv_re, type](const std::vector<ColumnPtr>& c, int64_t n,
                             const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        PatternCache pairs("str_to_map", pair_re), kvs("str_to_map", kv_re);
        StringBuilder keys(DataType::String(), n, n * 8),
            values(DataType::String(), n, n * 8);
        std::vector<int32_t> offsets{0};
        std::vector<uint8_t> valid;
        int32_t count = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (mask.Valid(i)) {
            SPATE_ASSIGN_OR_RETURN(const RE2* pre, pairs.Get(*c[1], i));
            SPATE_ASSIGN_OR_RETURN(const RE2* kre, kvs.Get(*c[2], i));
            for (std::string_view pair : SplitJava(*pre, c[0]->GetView(i), -1)) {
              auto kv = SplitJava(*kre, pair, 2);
              keys.Append(kv[0]);
              if (kv.size() > 1) {
                values.Append(kv[1]);
              } else {
                values.AppendNull();
              }
              ++count;
            }
          }
          offsets.push_back(count);
          valid.push_back(mask.Valid(i) ? 1 : 0);
        }
        ColumnPtr k = keys.Finish(), v = values.Finish();
        SPATE_RETURN_IF_ERROR(ValidateMapKeys(*k, offsets));
        return MakeListColumn(type, offsets, valid,
                              MakeStructColumn(MapEntryType(type), count, {k, v}));
      });
}

Result<BoundExprPtr> ResolveExtract(const std::string& name, bool all,
                                    std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 3, "[2, 3]"));
  SPATE_ASSIGN_OR_RETURN(args, StringArgs(name, args, 2));
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(args[2], fn::ToIntArg(name, args, 2));
  } else {
    args.push_back(MakeLiteral(Value::Int(1)));
  }
  SPATE_ASSIGN_OR_RETURN(auto fixed, CompileLiteral(name, args[1]));
  if (fixed && args[2]->literal_value() && !args[2]->literal_value()->is_null()) {
    int64_t idx = args[2]->literal_value()->i64();
    if (idx < 0 || idx > fixed->NumberOfCapturingGroups()) {
      return GroupIndexError(name, fixed->NumberOfCapturingGroups(), idx);
    }
  }
  DataTypePtr type = all ? DataType::Array(DataType::String(), true) : DataType::String();
  auto display = [name](const std::vector<std::string>& s) { return CallText(name, s); };
  return MakeScalarCall(
      name, type, fn::AnyNullable(args), args,
      [name, fixed, all](const std::vector<ColumnPtr>& c, int64_t n,
                         const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        PatternCache cache(name, fixed);
        std::vector<re2::StringPiece> groups;
        StringBuilder sb(DataType::String(), n);
        fn::StringArrayBuilder ab(all ? n : 0);
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) {
            all ? ab.AppendNull() : sb.AppendNull();
            continue;
          }
          SPATE_ASSIGN_OR_RETURN(const RE2* re, cache.Get(*c[1], i));
          int ng = re->NumberOfCapturingGroups();
          int64_t idx = c[2]->raw_values<int32_t>()[i];
          if (idx < 0 || idx > ng) return GroupIndexError(name, ng, idx);
          groups.assign(static_cast<size_t>(ng) + 1, re2::StringPiece());
          std::string_view s = c[0]->GetView(i);
          if (!all) {
            if (Find(*re, s, 0, &groups)) {
              const auto& g = groups[static_cast<size_t>(idx)];
              sb.Append(g.data() ? std::string_view(g.data(), g.size())
                                 : std::string_view());
            } else {
              sb.Append("");
            }
            continue;
          }
          size_t from = 0;
          while (Find(*re, s, from, &groups)) {
            const auto& g = groups[static_cast<size_t>(idx)];
            ab.AddItem(g.data() ? std::string_view(g.data(), g.size())
                                : std::string_view());
            size_t b = static_cast<size_t>(groups[0].data() - s.data());
            from = NextFrom(s, b, b + groups[0].size());
          }
          ab.EndRow();
        }
        return all ? ab.Finish() : sb.Finish();
      },
      display);
}

// ---- regexp_replace
// --------------------------------------------------------------------

// Appends Java's Matcher.appendReplacement expansion of `rep`.
Status AppendReplacement(std::string_view rep,
                         const std::vector<re2::StringPiece>& groups, const RE2& re,
                         std::string* out) {
  for (size_t k = 0; k < rep.size(); ++k) {
    char ch = rep[k];
    if (ch == '\\') {
      if (k + 1 >= rep.size()) {
        return Status::Error("INVALID_PARAMETER_VALUE.PATTERN",
                             {{"parameter", "`rep`"},
                              {"functionName", "`regexp_replace`"},
                              {"value", "character to be escaped is missing"}});
      }
      out->push_back(rep[++k]);
      continue;
    }
    if (ch != '$') {
      out->push_back(ch);
      continue;
    }
    if (k + 1 >= rep.size()) {
      return Status::Error(
          "INVALID_PARAMETER_VALUE.PATTERN",
          {{"parameter", "`rep`"},
           {"functionName", "`regexp_replace`"},
           {"value", "Illegal group reference: group index is missing"}});
    }
    int group = -1;
    if (rep[k + 1] == '{') {
      size_t e = rep.find('}', k + 2);
      if (e == std::string_view::npos) {
        return Status::Error(
            "INVALID_PARAMETER_VALUE.PATTERN",
            {{"parameter", "`rep`"},
             {"functionName", "`regexp_replace`"},
             {"value", "named capturing group is missing trailing '}'"}});
      }
      std::string gname(rep.substr(k + 2, e - k - 2));
      auto it = re.NamedCapturingGroups().find(gname);
      if (it == re.NamedCapturingGroups().end()) {
        return Status::Error("INVALID_PARAMETER_VALUE.PATTERN",
                             {{"parameter", "`rep`"},
                              {"functionName", "`regexp_replace`"},
                              {"value", "No group with name {" + gname + "}"}});
      }
      group = it->second;
      k = e;
    } else {
      if (!std::isdigit(static_cast<unsigned char>(rep[k + 1]))) {
        return Status::Error("INVALID_PARAMETER_VALUE.PATTERN",
                             {{"parameter", "`rep`"},
                              {"functionName", "`regexp_replace`"},
                              {"value", "Illegal group reference"}});
      }
      group = rep[++k] - '0';
      if (group >= static_cast<int>(groups.size())) {
        return Status::Error("INVALID_PARAMETER_VALUE.PATTERN",
                             {{"parameter", "`rep`"},
                              {"functionName", "`regexp_replace`"},
                              {"value", "No group " + std::to_string(group)}});
      }
      // Greedy: more digits while the group exists.
      while (k + 1 < rep.size() && std::isdigit(static_cast<unsigned char>(rep[k + 1]))) {
        int next = group * 10 + (rep[k + 1] - '0');
        if (next >= static_cast<int>(groups.size())) break;
        group = next;
        ++k;
      }
    }
    const auto& g = groups[static_cast<size_t>(group)];
    if (g.data()) out->append(g.data(), g.size());
  }
  return Status::OK();
}

Result<BoundExprPtr> ResolveReplace(std::vector<BoundExprPtr> args,
                                    const ResolveContext&) {
  const std::string name = "regexp_replace";
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 3, 4, "[3, 4]"));
  SPATE_ASSIGN_OR_RETURN(args, StringArgs(name, args, 3));
  if (args.size() == 4) {
    SPATE_ASSIGN_OR_RETURN(args[3], fn::ToIntArg(name, args, 3));
    const Value* v = args[3]->literal_value();
    if (v && !v->is_null() && v->i64() <= 0) {
      return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                           {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""},
                            {"exprName", "position"},
                            {"valueRange", "(0, 2147483647]"},
                            {"currentValue", std::to_string(v->i64())}});
    }
  }
  SPATE_ASSIGN_OR_RETURN(auto fixed, CompileLiteral(name, args[1]));
  return MakeScalarCall(
      name, DataType::String(), fn::AnyNullable(args), args,
      [name, fixed](const std::vector<ColumnPtr>& c, int64_t n,
                    const EvalContext&) -> Result<ColumnPtr> {
        std::vector<const Column*> cols;
        for (const auto& col : c) cols.push_back(col.get());
        NullMask mask(cols, n);
        PatternCache cache(name, fixed);
        std::vector<re2::StringPiece> groups;
        StringBuilder sb(DataType::String(), n, n * 16);
        std::string out;
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) {
            sb.AppendNull();
            continue;
          }
          SPATE_ASSIGN_OR_RETURN(const RE2* re, cache.Get(*c[1], i));
          std::string_view full = c[0]->GetView(i), rep = c[2]->GetView(i);
          int64_t pos = c.size() > 3 ? c[3]->raw_values<int32_t>()[i] : 1;
          out.clear();
          size_t prefix = fn::ByteOffsetOfChar(full, pos - 1);
          if (pos - 1 > fn::NumChars(full)) {
            sb.Append(full);
            continue;
          }
          out.append(full.substr(0, prefix));
          std::string_view s = full.substr(prefix);
          groups.assign(static_cast<size_t>(re->NumberOfCapturingGroups()) + 1,
                        re2::StringPiece());
          size_t from = 0, copied = 0;
          while (Find(*re, s, from, &groups)) {
            size_t b = static_cast<size_t>(groups[0].data() - s.data());
            size_t e = b + groups[0].size();
            out.append(s.substr(copied, b - copied));
            SPATE_RETURN_IF_ERROR(AppendReplacement(rep, groups, *re, &out));
            copied = e;
            from = NextFrom(s, b, e);
          }
          out.append(s.substr(copied));
          sb.Append(out);
        }
        return sb.Finish();
      });
}

// ---- split
// -----------------------------------------------------------------------------

// A one-character pattern that is no regex metacharacter: String.split's own fast path
// (the same result as the regex, found with memchr).
bool IsLiteralSplitByte(std::string_view pattern) {
  if (pattern.size() != 1) return false;
  const auto ch = static_cast<unsigned char>(pattern[0]);
  return ch < 0x80 &&
         std::string_view(".$|()[{^?*+\\").find(pattern[0]) == std::string_view::npos;
}

void SplitAtByte(char sep, std::string_view s, int64_t limit,
                 fn::StringArrayBuilder* out) {
  size_t index = 0;
  for (int64_t count = 0; limit <= 0 || count < limit - 1; ++count) {
    const void* hit =
        index < s.size() ? std::memchr(s.data() + index, sep, s.size() - index) : nullptr;
    if (!hit) break;
    const size_t b = static_cast<size_t>(static_cast<const char*>(hit) - s.data());
    out->AddItem(s.substr(index, b - index));
    index = b + 1;
  }
  out->AddItem(s.substr(index));
  out->EndRow();
}

// Java's String.split(regex, limit) with Spark's tweaks (limit 0 behaves as -1; an empty
// pattern splits into characters).
void Split(const RE2& re, std::string_view s, std::string_view pattern, int64_t limit,
           std::vector<re2::StringPiece>* groups, fn::StringArrayBuilder* out) {
  const bool empty_pattern = pattern.empty();
  if (limit == 0) limit = -1;
  if (IsLiteralSplitByte(pattern)) {
    SplitAtByte(pattern[0], s, limit, out);
    return;
  }
  if (!s.empty() && empty_pattern) {
    int64_t chars = fn::NumChars(s);
    int64_t parts = (limit > chars || limit <= 0) ? chars : limit;
    size_t b = 0;
    for (int64_t k = 0; k < parts - 1; ++k) {
      size_t l = static_cast<size_t>(fn::Utf8Len(static_cast<unsigned char>(s[b])));
      out->AddItem(s.substr(b, l));
      b += l;
    }
    out->AddItem(s.substr(b));
    out->EndRow();
    return;
  }
  bool limited = limit > 0;
  int64_t count = 0;
  size_t index = 0, from = 0;
  bool any = false;
  while (Find(re, s, from, groups)) {
    size_t b = static_cast<size_t>((*groups)[0].data() - s.data());
    size_t e = b + (*groups)[0].size();
    from = NextFrom(s, b, e);
    if (!limited || count < limit - 1) {
      if (index == 0 && b == 0 && b == e) continue;
      out->AddItem(s.substr(index, b - index));
      ++count;
      index = e;
      any = true;
    } else {
      break;
    }
  }
  if (!any && index == 0) {
    out->AddItem(s);
    out->EndRow();
    return;
  }
  out->AddItem(s.substr(index));
  out->EndRow();
}

Result<BoundExprPtr> ResolveSplit(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("split", args.size(), 2, 3, "[2, 3]"));
  SPATE_ASSIGN_OR_RETURN(args, StringArgs("split", args, 2));
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(args[2], fn::ToIntArg("split", args, 2));
  } else {
    args.push_back(MakeLiteral(Value::Int(-1)));
  }
  SPATE_ASSIGN_OR_RETURN(auto fixed, CompileLiteral("split", args[1]));
  return MakeScalarCall(
      "split", DataType::Array(DataType::String(), false), fn::AnyNullable(args), args,
      [fixed](const std::vector<ColumnPtr>& c, int64_t n,
              const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        PatternCache cache("split", fixed);
        std::vector<re2::StringPiece> groups;
        fn::StringArrayBuilder ab(n);
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) {
            ab.AppendNull();
            continue;
          }
          SPATE_ASSIGN_OR_RETURN(const RE2* re, cache.Get(*c[1], i));
          groups.assign(static_cast<size_t>(re->NumberOfCapturingGroups()) + 1,
                        re2::StringPiece());
          Split(*re, c[0]->GetView(i), c[1]->GetView(i), c[2]->raw_values<int32_t>()[i],
                &groups, &ab);
        }
        return ab.Finish();
      });
}

}  // namespace

void RegisterRegexpFunctions(FunctionRegistry& r) {
  using Args = std::vector<BoundExprPtr>;
  for (const char* name : {"rlike", "regexp", "regexp_like"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveRlike(name, std::move(a));
    });
  }
  r.RegisterScalar("regexp_extract", [](Args a, const ResolveContext&) {
    return ResolveExtract("regexp_extract", false, std::move(a));
  });
  r.RegisterScalar("regexp_extract_all", [](Args a, const ResolveContext&) {
    return ResolveExtract("regexp_extract_all", true, std::move(a));
  });
  r.RegisterScalar("regexp_replace", ResolveReplace);
  r.RegisterScalar("split", ResolveSplit);
  r.RegisterScalar("str_to_map", ResolveStrToMap);
  r.RegisterScalar("regexp_count", [](Args a, const ResolveContext&) {
    return ResolveFind("regexp_count", FindKind::kCount, std::move(a));
  });
  r.RegisterScalar("regexp_substr", [](Args a, const ResolveContext&) {
    return ResolveFind("regexp_substr", FindKind::kSubstr, std::move(a));
  });
  r.RegisterScalar("regexp_instr", [](Args a, const ResolveContext&) {
    return ResolveFind("regexp_instr", FindKind::kInstr, std::move(a));
  });
}

Result<std::function<bool(std::string_view)>> JavaRegexFullMatcher(
    const std::string& function, std::string_view pattern, bool case_sensitive) {
  SPATE_ASSIGN_OR_RETURN(auto re, Compile(function, pattern, case_sensitive));
  return std::function<bool(std::string_view)>(
      [re](std::string_view text) { return RE2::FullMatch(text, *re); });
}

}  // namespace spate
