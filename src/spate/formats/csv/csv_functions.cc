// Copyright spate authors.
#include "spate/formats/csv/csv_functions.h"

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/formats/csv/parser.h"
#include "spate/formats/text_writers.h"

namespace spate::formats::csv {

namespace {

json::SchemaStringParser g_parse_schema = nullptr;

// The options argument (Spark's convertToMapData) as CsvOptions takes it.
Result<std::map<std::string, std::string>> OptionsArg(const BoundExprPtr& e) {
  SPATE_ASSIGN_OR_RETURN(auto pairs, fn::OptionsArg(e));
  std::map<std::string, std::string> out;
  for (auto& [key, value] : pairs) out[key] = std::move(value);
  return out;
}

DataTypePtr NullableStruct(const DataTypePtr& t) {
  std::vector<Field> fields;
  for (const auto& f : t->fields())
    fields.push_back(Field{f.name, f.type, true, f.comment});
  return DataType::Struct(std::move(fields));
}

// Parses every non-NULL string of `in` as one CSV record of `type`'s fields.
Result<ColumnPtr> ParseCsvStrings(const Column& in, const DataTypePtr& type,
                                  const CsvOptions& o) {
  const int64_t n = in.length();
  if (in.type_id() == TypeId::kNull || in.null_count() == n)
    return Column::MakeNull(type, n);
  auto schema = std::make_shared<const Schema>(type->fields());
  SPATE_ASSIGN_OR_RETURN(auto conv, CsvConverter::Make(schema, o));
  CsvTokenizer tok(o);
  CsvRecords recs;
  // All strings share the column's data buffer: tokenize each as its own text, then shift
  // the offsets so that one text (the buffer) serves the converter.
  const int32_t* off = in.offsets();
  const char* base = in.data() ? reinterpret_cast<const char*>(in.data()->data()) : "";
  std::string_view all(base, static_cast<size_t>(off[n]));
  std::vector<int32_t> take(static_cast<size_t>(n), 0);
  for (int64_t r = 0; r < n; ++r) {
    if (in.IsNull(r)) continue;
    std::string_view text =
        all.substr(static_cast<size_t>(off[r]), static_cast<size_t>(off[r + 1] - off[r]));
    const size_t first_field = recs.fields.size();
    const size_t before = recs.size();
    tok.Tokenize(text, 0, 1, &recs);
    if (recs.size() == before) {
      // Blank input: a record without fields (NULL fields, malformed like Spark's).
      recs.raw_begin.push_back(0);
      recs.raw_end.push_back(0);
      recs.error.push_back(CsvRecords::kOk);
      recs.field_begin.push_back(static_cast<int64_t>(recs.fields.size()));
    }
    for (size_t i = first_field; i < recs.fields.size(); ++i) {
      if (!(recs.fields[i].flags & CsvField::kScratch)) recs.fields[i].offset += off[r];
    }
    recs.raw_begin.back() += off[r];
    recs.raw_end.back() += off[r];
    take[static_cast<size_t>(r)] = static_cast<int32_t>(recs.size() - 1);
  }
  std::vector<int> needed;
  for (int i = 0; i < schema->num_fields(); ++i) needed.push_back(i);
  int64_t rows = 0;
  SPATE_ASSIGN_OR_RETURN(auto cols, conv->Convert(all, recs, needed, &rows));
  const bool dense = static_cast<int64_t>(recs.size()) == n;
  std::vector<ColumnPtr> children;
  for (auto& c : cols) {
    children.push_back(dense ? c : Take(*c, take.data(), n));
  }
  BufferPtr validity;
  if (in.null_count() > 0) {
    validity = Buffer::Allocate(bits::BytesFor(n));
    for (int64_t r = 0; r < n; ++r) {
      if (!in.IsNull(r)) bits::Set(validity->mutable_data(), r);
    }
  }
  return std::make_shared<const Column>(type, n, in.null_count(), validity, nullptr,
                                        nullptr, std::move(children));
}

// ---- from_csv -------------------------------------------------------------------------

Result<BoundExprPtr> ResolveFromCsv(std::vector<BoundExprPtr> args,
                                    const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("from_csv", args.size(), 2, 3, "[2, 3]"));
  TypeId id = args[0]->type()->id();
  if (id != TypeId::kString && id != TypeId::kNull) {
    return fn::UnexpectedType("from_csv", args, 0, "\"STRING\"");
  }
  const BoundExprPtr& schema_arg = args[1];
  SPATE_ASSIGN_OR_RETURN(std::string schema_text, fn::SchemaLiteralArg(schema_arg));
  if (!g_parse_schema) return Status::Internal("from_csv: no schema parser installed");
  SPATE_ASSIGN_OR_RETURN(DataTypePtr schema, g_parse_schema(schema_text));
  if (schema->id() != TypeId::kStruct) {
    return Status::Error(
        "INVALID_SCHEMA.NON_STRUCT_TYPE",
        {{"inputSchema", "\"" + schema_text + "\""}, {"dataType", QuoteType(*schema)}});
  }
  std::map<std::string, std::string> opts;
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(opts, OptionsArg(args[2]));
  }
  SPATE_ASSIGN_OR_RETURN(CsvOptions probe, CsvOptions::FromMap(opts));
  if (probe.mode == ParseMode::kDropMalformed) {
    return Status::Error("PARSE_MODE_UNSUPPORTED",
                         {{"funcName", "`from_csv`"}, {"mode", "DROPMALFORMED"}});
  }
  DataTypePtr out_type = NullableStruct(schema);
  SPATE_RETURN_IF_ERROR(
      CsvConverter::Make(std::make_shared<const Schema>(out_type->fields()), probe)
          .status());
  ScalarKernel kernel = [out_type, opts](const std::vector<ColumnPtr>& in, int64_t n,
                                         const EvalContext& ctx) -> Result<ColumnPtr> {
    if (in[0]->type_id() == TypeId::kNull) return Column::MakeNull(out_type, n);
    SPATE_ASSIGN_OR_RETURN(CsvOptions o, CsvOptions::FromMap(opts, ctx.time_zone_id));
    return ParseCsvStrings(*in[0], out_type, o);
  };
  return MakeScalarCall("from_csv", out_type, args[0]->nullable(), {args[0]},
                        std::move(kernel));
}

// ---- to_csv ---------------------------------------------------------------------------

Result<BoundExprPtr> ResolveToCsv(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("to_csv", args.size(), 1, 2, "[1, 2]"));
  const DataTypePtr& t = args[0]->type();
  if (t->id() != TypeId::kStruct) {
    return fn::UnexpectedType("to_csv", args, 0, "\"STRUCT\"");
  }
  for (const auto& f : t->fields()) {
    if (f.type->IsNested()) {
      return Status::Error("DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE",
                           {{"sqlExpr", "\"" + fn::CallSql("to_csv", {args[0]}) + "\""},
                            {"functionName", "`to_csv`"},
                            {"dataType", QuoteType(*t)}});
    }
  }
  std::map<std::string, std::string> opts;
  if (args.size() == 2) {
    SPATE_ASSIGN_OR_RETURN(opts, OptionsArg(args[1]));
  }
  SPATE_RETURN_IF_ERROR(CsvRowFormatter::Make(opts, "UTC").status());
  ScalarKernel kernel = [opts](const std::vector<ColumnPtr>& in, int64_t n,
                               const EvalContext& ctx) -> Result<ColumnPtr> {
    SPATE_ASSIGN_OR_RETURN(auto f, CsvRowFormatter::Make(opts, ctx.time_zone_id));
    const Column& s = *in[0];
    StringBuilder b(DataType::String(), n);
    std::string row, scratch;
    for (int64_t r = 0; r < n; ++r) {
      if (s.IsNull(r)) {
        b.AppendNull();
        continue;
      }
      row.clear();
      f->AppendRow(s.children(), r, &row, &scratch);
      b.Append(row);
    }
    return b.Finish();
  };
  return MakeScalarCall("to_csv", DataType::String(), true, {args[0]},  // Spark: nullable
                        std::move(kernel));
}

// ---- schema_of_csv
// ----------------------------------------------------------------------

Result<BoundExprPtr> ResolveSchemaOfCsv(std::vector<BoundExprPtr> args,
                                        const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("schema_of_csv", args.size(), 1, 2, "[1, 2]"));
  const BoundExprPtr& c = args[0];
  SPATE_ASSIGN_OR_RETURN(
      std::string text,
      fn::ConstantStringArg(fn::CallSql("schema_of_csv", {c}), "csv", c));
  std::map<std::string, std::string> opts;
  if (args.size() == 2) {
    SPATE_ASSIGN_OR_RETURN(opts, OptionsArg(args[1]));
  }
  opts["inferSchema"] = "true";
  SPATE_ASSIGN_OR_RETURN(CsvOptions o, CsvOptions::FromMap(opts));
  CsvTokenizer tok(o);
  CsvRecords recs;
  tok.Tokenize(text, 0, 1, &recs);
  SPATE_ASSIGN_OR_RETURN(auto inferrer, CsvSchemaInferrer::Make(o));
  inferrer->Add(text, recs);
  std::vector<std::string> names;
  const int64_t nf = recs.size() ? recs.num_fields(0) : 0;
  for (int64_t i = 0; i < nf; ++i) names.push_back("_c" + std::to_string(i));
  std::string ddl = DataType::Struct(inferrer->Finish(names))->Sql();
  ScalarKernel kernel = [ddl](const std::vector<ColumnPtr>&, int64_t n,
                              const EvalContext&) -> Result<ColumnPtr> {
    return MakeConstantColumn(Value::String(ddl), n);
  };
  return MakeScalarCall("schema_of_csv", DataType::String(), false, {c},
                        std::move(kernel));
}

}  // namespace

void RegisterCsvFunctions(FunctionRegistry& r, json::SchemaStringParser parse_schema) {
  g_parse_schema = parse_schema;
  r.RegisterScalar("from_csv", ResolveFromCsv);
  r.RegisterScalar("to_csv", ResolveToCsv);
  r.RegisterScalar("schema_of_csv", ResolveSchemaOfCsv);
}

}  // namespace spate::formats::csv
