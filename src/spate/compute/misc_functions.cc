// Copyright spate authors.
// Miscellaneous functions: typeof current_catalog current_database current_schema
// monotonically_increasing_id spark_partition_id uuid input_file_name
// input_file_block_start input_file_block_length, and the
// conditionals nullif / nvl2 (rewritten to CASE WHEN as Spark's RuntimeReplaceable), the
// null helpers equal_null zeroifnull nullifzero, the errors raise_error / assert_true and
// the session facts current_user user session_user version current_path, and collation
// (every spate string is Spark's default UTF8_BINARY).

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <random>

#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/input_file.h"
#include "spate/compute/predicates.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;
using fn::Delegate;

// A function of no arguments producing a constant string.
Result<BoundExprPtr> ConstString(const std::string& name, const Args& args,
                                 const std::string& value) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 0, 0, "0"));
  return MakeScalarCall(
      name, DataType::String(), false, {},
      [value](const std::vector<ColumnPtr>&, int64_t n, const EvalContext&)
          -> Result<ColumnPtr> { return MakeConstantColumn(Value::String(value), n); },
      [name](const std::vector<std::string>&) { return name + "()"; });
}

// The file of the rows being evaluated (set per batch by the file scan on this thread).
Result<BoundExprPtr> ResolveInputFileName(const Args& args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("input_file_name", args.size(), 0, 0, "0"));
  return MakeScalarCall(
      "input_file_name", DataType::String(), false, {},
      [](const std::vector<ColumnPtr>&, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        return MakeConstantColumn(Value::String(InputFileName()), n);
      },
      [](const std::vector<std::string>&) { return std::string("input_file_name()"); },
      /*nondeterministic=*/true);
}

// input_file_block_start() / input_file_block_length(): the block of the file the rows
// being evaluated come from; spate reads whole files, so 0 and the file's length (-1 for
// both when the rows are not read from a file).
Result<BoundExprPtr> ResolveInputFileBlock(const std::string& name, bool start,
                                           const Args& args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 0, 0, "0"));
  return MakeScalarCall(
      name, DataType::Long(), false, {},
      [start](const std::vector<ColumnPtr>&, int64_t n,
              const EvalContext&) -> Result<ColumnPtr> {
        int64_t length = InputFileLength();
        int64_t v = length < 0 ? -1 : (start ? 0 : length);
        return MakeConstantColumn(Value::Long(v), n);
      },
      [name](const std::vector<std::string>&) { return name + "()"; },
      /*nondeterministic=*/true);
}

Result<BoundExprPtr> ResolveTypeof(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("typeof", args.size(), 1, 1, "1"));
  // The value is the argument's type; the argument itself is never evaluated.
  return MakeLiteral(Value::String(args[0]->type()->CatalogString()));
}

Result<BoundExprPtr> ResolveMonotonicId(const Args& args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(
      fn::CheckArgs("monotonically_increasing_id", args.size(), 0, 0, "0"));
  return MakeScalarCall(
      "monotonically_increasing_id", DataType::Long(), false, {},
      [](const std::vector<ColumnPtr>&, int64_t n,
         const EvalContext& ctx) -> Result<ColumnPtr> {
        kernel::Out<int64_t> out(n);
        int64_t base = (static_cast<int64_t>(ctx.partition_id) << 33) + ctx.row_offset;
        for (int64_t i = 0; i < n; ++i) out.data[i] = base + i;
        return kernel::MakeColumn(DataType::Long(), n, 0, nullptr, out.buf);
      },
      [](const std::vector<std::string>&) {
        return std::string("monotonically_increasing_id()");
      },
      /*nondeterministic=*/true);
}

Result<BoundExprPtr> ResolvePartitionId(const Args& args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("spark_partition_id", args.size(), 0, 0, "0"));
  return MakeScalarCall(
      "spark_partition_id", DataType::Int(), false, {},
      [](const std::vector<ColumnPtr>&, int64_t n,
         const EvalContext& ctx) -> Result<ColumnPtr> {
        return MakeConstantColumn(Value::Int(ctx.partition_id), n);
      },
      [](const std::vector<std::string>&) { return std::string("SPARK_PARTITION_ID()"); },
      /*nondeterministic=*/true);
}

Result<BoundExprPtr> ResolveUuid(const Args& args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("uuid", args.size(), 0, 1, "[0, 1]"));
  return MakeScalarCall(
      "uuid", DataType::String(), false, {},
      [](const std::vector<ColumnPtr>&, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        thread_local std::mt19937_64 rng(std::random_device{}());
        StringBuilder sb(DataType::String(), n, n * 36);
        static const char kHex[] = "0123456789abcdef";
        char buf[36];
        for (int64_t i = 0; i < n; ++i) {
          uint64_t hi = rng(), lo = rng();
          hi = (hi & ~0xF000ULL) | 0x4000ULL;              // version 4
          lo = (lo & ~(0xC0ULL << 56)) | (0x80ULL << 56);  // IETF variant
          int p = 0;
          for (int k = 0; k < 16; ++k) {
            uint64_t word = k < 8 ? hi : lo;
            int shift = 56 - 8 * (k % 8);
            unsigned byte = static_cast<unsigned>((word >> shift) & 0xFF);
            if (k == 4 || k == 6 || k == 8 || k == 10) buf[p++] = '-';
            buf[p++] = kHex[byte >> 4];
            buf[p++] = kHex[byte & 15];
          }
          sb.Append(std::string_view(buf, 36));
        }
        return sb.Finish();
      },
      [](const std::vector<std::string>&) { return std::string("uuid()"); },
      /*nondeterministic=*/true);
}

Result<BoundExprPtr> ResolveNullif(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("nullif", args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(
      auto eq, (*FunctionRegistry::Global().FindScalar("="))({args[0], args[1]}, rc));
  SPATE_ASSIGN_OR_RETURN(
      auto null_value,
      ImplicitCast(MakeLiteral(Value::Null(DataType::Null())), args[0]->type()));
  SPATE_ASSIGN_OR_RETURN(auto cw, MakeCaseWhen({eq, null_value}, args[0]));
  std::vector<std::string> texts{args[0]->ToString(), args[1]->ToString()};
  return MakeScalarCall(
      "nullif", cw->type(), true, {cw},
      [](const std::vector<ColumnPtr>& c, int64_t,
         const EvalContext&) -> Result<ColumnPtr> { return c[0]; },
      [texts](const std::vector<std::string>&) { return CallText("nullif", texts); });
}

Result<BoundExprPtr> ResolveNvl2(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("nvl2", args.size(), 3, 3, "3"));
  SPATE_ASSIGN_OR_RETURN(
      auto nn, (*FunctionRegistry::Global().FindScalar("isnotnull"))({args[0]}, rc));
  SPATE_ASSIGN_OR_RETURN(auto cw, MakeCaseWhen({nn, args[1]}, args[2]));
  std::vector<std::string> texts{args[0]->ToString(), args[1]->ToString(),
                                 args[2]->ToString()};
  return MakeScalarCall(
      "nvl2", cw->type(), cw->nullable(), {cw},
      [](const std::vector<ColumnPtr>& c, int64_t,
         const EvalContext&) -> Result<ColumnPtr> { return c[0]; },
      [texts](const std::vector<std::string>&) { return CallText("nvl2", texts); });
}

// ---- errors
// ----------------------------------------------------------------------------

Status UserRaised(const std::string& message) {
  return Status::Error("USER_RAISED_EXCEPTION", {{"errorMessage", message}});
}

Result<BoundExprPtr> ResolveRaiseError(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("raise_error", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg("raise_error", args, 0));
  return MakeScalarCall(
      "raise_error", DataType::Null(), true, args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        for (int64_t i = 0; i < n; ++i) {
          return UserRaised(c[0]->IsNull(i) ? "null" : std::string(c[0]->GetView(i)));
        }
        return MakeConstantColumn(Value::Null(DataType::Null()), n);
      },
      nullptr, /*nondeterministic=*/true);
}

Result<BoundExprPtr> ResolveAssertTrue(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("assert_true", args.size(), 1, 2, "[1, 2]"));
  if (args[0]->type()->id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Boolean()));
  }
  if (args[0]->type()->id() != TypeId::kBoolean) {
    return fn::UnexpectedType("assert_true", args, 0, "\"BOOLEAN\"");
  }
  std::string message = "'" + args[0]->ToString() + "' is not true!";
  std::string shown = args.size() == 2 ? args[1]->ToString() : message;
  std::string cond = args[0]->ToString();
  if (args.size() == 2) {
    SPATE_ASSIGN_OR_RETURN(args[1], fn::ToStringArg("assert_true", args, 1));
  }
  return MakeScalarCall(
      "assert_true", DataType::Null(), true, args,
      [message](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const uint8_t* v = c[0]->raw_values<uint8_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (c[0]->IsNull(i) || !bits::Get(v, i)) {
            if (c.size() == 2)
              return UserRaised(c[1]->IsNull(i) ? "null" : std::string(c[1]->GetView(i)));
            return UserRaised(message);
          }
        }
        return MakeConstantColumn(Value::Null(DataType::Null()), n);
      },
      [cond, shown](const std::vector<std::string>&) {
        return "assert_true(" + cond + ", " + shown + ")";
      },
      /*nondeterministic=*/true);
}

// ---- session facts
// ---------------------------------------------------------------------

std::string UserName() {
  if (const passwd* pw = getpwuid(geteuid()); pw != nullptr && pw->pw_name != nullptr)
    return pw->pw_name;
  const char* u = std::getenv("USER");
  return u ? u : "";
}

// collation(s): the collation of a STRING (or NULL) argument, never NULL.
Result<BoundExprPtr> ResolveCollation(const Args& args, const ResolveContext&) {
  const std::string name = "collation";
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  const TypeId t = args[0]->type()->id();
  if (t != TypeId::kString && t != TypeId::kNull) {
    return fn::UnexpectedType(name, args, 0, "\"STRING\"");
  }
  return MakeScalarCall(
      name, DataType::String(), false, args,
      [](const Cols&, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        return MakeConstantColumn(Value::String("SYSTEM.BUILTIN.UTF8_BINARY"), n);
      });
}

Result<BoundExprPtr> ResolveZeroIfNull(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("zeroifnull", args.size(), 1, 1, "1"));
  Args shown = args;
  return Delegate("zeroifnull", "coalesce", {args[0], MakeLiteral(Value::Int(0))}, rc,
                  shown);
}

Result<BoundExprPtr> ResolveNullIfZero(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("nullifzero", args.size(), 1, 1, "1"));
  Args shown = args;
  return Delegate("nullifzero", "nullif", {args[0], MakeLiteral(Value::Int(0))}, rc,
                  shown);
}

}  // namespace

void RegisterMiscFunctions(FunctionRegistry& r) {
  r.RegisterScalar("typeof", ResolveTypeof);
  r.RegisterScalar("current_catalog", [](const Args& a, const ResolveContext&) {
    return ConstString("current_catalog", a, "spark_catalog");
  });
  for (const char* name : {"current_database", "current_schema"}) {
    r.RegisterScalar(name, [name](const Args& a, const ResolveContext& rc) {
      return ConstString(name, a, rc.current_schema);
    });
  }
  r.RegisterScalar("input_file_name", ResolveInputFileName);
  for (bool start : {true, false}) {
    std::string name = start ? "input_file_block_start" : "input_file_block_length";
    r.RegisterScalar(name, [name, start](const Args& a, const ResolveContext&) {
      return ResolveInputFileBlock(name, start, a);
    });
  }
  r.RegisterScalar("monotonically_increasing_id", ResolveMonotonicId);
  r.RegisterScalar("spark_partition_id", ResolvePartitionId);
  r.RegisterScalar("uuid", ResolveUuid);
  r.RegisterScalar("nullif", ResolveNullif);
  r.RegisterScalar("nvl2", ResolveNvl2);
  // grouping(k) / grouping_id(...): the analyzer binds them in the SELECT list, HAVING
  // and ORDER BY of an aggregate over grouping sets (sql/grouping_sets.h); anywhere else
  // they reach the registry and fail as in Spark.
  for (const char* name : {"grouping", "grouping_id"}) {
    r.RegisterScalar(name,
                     [](const Args&, const ResolveContext&) -> Result<BoundExprPtr> {
                       return Status::Error("UNSUPPORTED_GROUPING_EXPRESSION", {});
                     });
  }
  r.RegisterScalar("raise_error", ResolveRaiseError);
  r.RegisterScalar("assert_true", ResolveAssertTrue);
  for (const char* name : {"current_user", "user", "session_user"}) {
    r.RegisterScalar(name, [name](const Args& a, const ResolveContext&) {
      return ConstString(name, a, UserName());
    });
  }
  // The SQL path functions resolve through: built-ins, session UDFs, then the current
  // schema (Spark's default path).
  r.RegisterScalar("current_path", [](const Args& a, const ResolveContext& rc) {
    return ConstString(
        "current_path", a,
        "system.builtin,system.session,spark_catalog." + rc.current_schema);
  });
  r.RegisterScalar("collation", ResolveCollation);
  r.RegisterScalar("version", [](const Args& a, const ResolveContext&) {
    return ConstString("version", a, "4.2.0 spate");
  });
  r.RegisterScalar(
      "equal_null", [](const Args& a, const ResolveContext& rc) -> Result<BoundExprPtr> {
        SPATE_RETURN_IF_ERROR(fn::CheckArgs("equal_null", a.size(), 2, 2, "2"));
        return Delegate("equal_null", "<=>", a, rc, a);
      });
  r.RegisterScalar("zeroifnull", ResolveZeroIfNull);
  r.RegisterScalar("nullifzero", ResolveNullIfZero);
}

}  // namespace spate
