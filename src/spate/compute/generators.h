// Copyright spate authors.
#pragma once

// Table-generating functions of the SELECT list (Spark's Generator expressions): explode,
// explode_outer, posexplode, posexplode_outer, inline, inline_outer, json_tuple (whose
// struct value comes from the registry's "json_tuple" resolver, registered by
// formats/json), and stack (run as inline of an array of named_structs, one per generated
// row). The analyzer resolves a generator call into a GeneratorSpec (argument bound over
// the input, generated columns with Spark's default names); the exec Generate operator
// runs it per batch.
//
// Thread safety: GeneratorSpec is immutable once built; RunGenerator is pure.
// Failure: type errors at resolve time (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE);
// argument evaluation errors are returned from RunGenerator.

#include <string>
#include <string_view>
#include <vector>

#include "spate/compute/bound_expr.h"

namespace spate {

class FunctionRegistry;

struct GeneratorSpec {
  std::string name;           // "explode", "posexplode_outer", ...
  bool outer = false;         // NULL/empty input still yields one row of NULLs
  bool position = false;      // posexplode: leading int `pos` column
  bool is_inline = false;     // inline: array<struct> -> one column per field
  bool struct_row = false;    // json_tuple: `arg` is a struct; one row per input row, one
                              // column per field
  BoundExprPtr arg;           // over the generator's input
  std::vector<Field> output;  // generated columns, Spark's default names
  /// Sliding window(ts, ...) (Spark's Expand + Filter): `arg` is the time column and the
  /// one output column is struct<start, end>; see compute/time_window.h.
  bool time_window = false;
  int64_t window_micros = 0, slide_micros = 0, start_micros = 0;

  /// "explode(arr#1)" for EXPLAIN.
  std::string ToString() const;
};

/// The rows a generator produces for one input batch: for each output row, the index of
/// its input row, and the generated columns (same length).
struct GeneratedRows {
  std::vector<int32_t> input_rows;
  std::vector<ColumnPtr> columns;
};

bool IsGeneratorName(std::string_view name);
/// Binds generator `name` to its (bound) arguments.
Result<GeneratorSpec> ResolveGenerator(const std::string& name,
                                       std::vector<BoundExprPtr> args);
Result<GeneratedRows> RunGenerator(const GeneratorSpec& spec, const Batch& input,
                                   const EvalContext& ctx);

/// Registers the generator names as scalar functions whose resolution fails with
/// UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS: the analyzer plans generators itself and
/// only reaches the registry for calls nested inside other expressions.
void RegisterGeneratorNames(FunctionRegistry& r);

}  // namespace spate
