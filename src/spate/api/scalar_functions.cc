// Copyright spate authors.
#include "spate/api/scalar_functions.h"

namespace spate::api::functions {

namespace {

Column Fn(const std::string& name, const std::vector<Column>& args) { return call_function(name, args); }
Column S(const std::string& s) { return lit(Value::String(s)); }
Column I(int v) { return lit(Value::Int(v)); }
std::vector<Column> Prepend(Column first, const std::vector<Column>& rest) {
  std::vector<Column> out{std::move(first)};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace

Column pmod(const Column& a, const Column& b) { return Fn("pmod", {a, b}); }
Column abs(const Column& c) { return Fn("abs", {c}); }
Column round(const Column& c, int scale) { return Fn("round", {c, I(scale)}); }
Column bround(const Column& c, int scale) { return Fn("bround", {c, I(scale)}); }
Column ceil(const Column& c) { return Fn("ceil", {c}); }
Column ceil(const Column& c, int scale) { return Fn("ceil", {c, I(scale)}); }
Column ceiling(const Column& c) { return Fn("ceiling", {c}); }
Column floor(const Column& c) { return Fn("floor", {c}); }
Column floor(const Column& c, int scale) { return Fn("floor", {c, I(scale)}); }
Column sqrt(const Column& c) { return Fn("sqrt", {c}); }
Column cbrt(const Column& c) { return Fn("cbrt", {c}); }
Column exp(const Column& c) { return Fn("exp", {c}); }
Column ln(const Column& c) { return Fn("ln", {c}); }
Column log(const Column& c) { return Fn("ln", {c}); }
Column log(double base, const Column& c) { return Fn("log", {lit(Value::Double(base)), c}); }
Column log10(const Column& c) { return Fn("log10", {c}); }
Column log2(const Column& c) { return Fn("log2", {c}); }
Column pow(const Column& a, const Column& b) { return Fn("pow", {a, b}); }
Column power(const Column& a, const Column& b) { return Fn("power", {a, b}); }
Column sign(const Column& c) { return Fn("sign", {c}); }
Column signum(const Column& c) { return Fn("signum", {c}); }
Column greatest(const std::vector<Column>& cols) { return Fn("greatest", cols); }
Column least(const std::vector<Column>& cols) { return Fn("least", cols); }
Column isnan(const Column& c) { return Fn("isnan", {c}); }
Column nanvl(const Column& a, const Column& b) { return Fn("nanvl", {a, b}); }
Column nullif(const Column& a, const Column& b) { return Fn("nullif", {a, b}); }
Column nvl2(const Column& a, const Column& b, const Column& c) { return Fn("nvl2", {a, b, c}); }

Column concat(const std::vector<Column>& cols) { return Fn("concat", cols); }
Column concat_ws(const std::string& sep, const std::vector<Column>& cols) {
  return Fn("concat_ws", Prepend(S(sep), cols));
}
Column length(const Column& c) { return Fn("length", {c}); }
Column char_length(const Column& c) { return Fn("char_length", {c}); }
Column character_length(const Column& c) { return Fn("character_length", {c}); }
Column upper(const Column& c) { return Fn("upper", {c}); }
Column lower(const Column& c) { return Fn("lower", {c}); }
Column substring(const Column& str, int pos, int len) { return Fn("substring", {str, I(pos), I(len)}); }
Column substr(const Column& str, const Column& pos) { return Fn("substr", {str, pos}); }
Column substr(const Column& str, const Column& pos, const Column& len) { return Fn("substr", {str, pos, len}); }
Column left(const Column& str, const Column& len) { return Fn("left", {str, len}); }
Column right(const Column& str, const Column& len) { return Fn("right", {str, len}); }
Column trim(const Column& c) { return Fn("trim", {c}); }
Column trim(const Column& c, const std::string& t) { return Fn("trim", {c, S(t)}); }
Column ltrim(const Column& c) { return Fn("ltrim", {c}); }
Column ltrim(const Column& c, const std::string& t) { return Fn("ltrim", {c, S(t)}); }
Column rtrim(const Column& c) { return Fn("rtrim", {c}); }
Column rtrim(const Column& c, const std::string& t) { return Fn("rtrim", {c, S(t)}); }
Column lpad(const Column& c, int len, const std::string& pad) { return Fn("lpad", {c, I(len), S(pad)}); }
Column rpad(const Column& c, int len, const std::string& pad) { return Fn("rpad", {c, I(len), S(pad)}); }
Column replace(const Column& src, const Column& search) { return Fn("replace", {src, search}); }
Column replace(const Column& src, const Column& search, const Column& r) { return Fn("replace", {src, search, r}); }
Column split(const Column& str, const std::string& pattern, int limit) {
  return Fn("split", {str, S(pattern), I(limit)});
}
Column split_part(const Column& src, const Column& d, const Column& n) { return Fn("split_part", {src, d, n}); }
Column instr(const Column& str, const std::string& substr) { return Fn("instr", {str, S(substr)}); }
Column locate(const std::string& substr, const Column& str, int pos) {
  return Fn("locate", {S(substr), str, I(pos)});
}
Column position(const Column& substr, const Column& str) { return Fn("position", {substr, str}); }
Column position(const Column& substr, const Column& str, const Column& start) {
  return Fn("position", {substr, str, start});
}
Column rlike(const Column& str, const Column& re) { return Fn("rlike", {str, re}); }
Column regexp(const Column& str, const Column& re) { return Fn("regexp", {str, re}); }
Column regexp_like(const Column& str, const Column& re) { return Fn("regexp_like", {str, re}); }
Column regexp_extract(const Column& str, const std::string& pattern, int idx) {
  return Fn("regexp_extract", {str, S(pattern), I(idx)});
}
Column regexp_extract_all(const Column& str, const Column& re) { return Fn("regexp_extract_all", {str, re}); }
Column regexp_extract_all(const Column& str, const Column& re, const Column& idx) {
  return Fn("regexp_extract_all", {str, re, idx});
}
Column regexp_replace(const Column& str, const std::string& pattern, const std::string& replacement) {
  return Fn("regexp_replace", {str, S(pattern), S(replacement)});
}
Column regexp_replace(const Column& str, const Column& pattern, const Column& replacement) {
  return Fn("regexp_replace", {str, pattern, replacement});
}
Column repeat(const Column& c, int n) { return Fn("repeat", {c, I(n)}); }
Column reverse(const Column& c) { return Fn("reverse", {c}); }
Column initcap(const Column& c) { return Fn("initcap", {c}); }
Column startswith(const Column& s, const Column& p) { return Fn("startswith", {s, p}); }
Column endswith(const Column& s, const Column& p) { return Fn("endswith", {s, p}); }
Column contains(const Column& l, const Column& r) { return Fn("contains", {l, r}); }
Column format_number(const Column& c, int d) { return Fn("format_number", {c, I(d)}); }
Column format_string(const std::string& format, const std::vector<Column>& cols) {
  return Fn("format_string", Prepend(S(format), cols));
}
Column printf(const Column& format, const std::vector<Column>& cols) { return Fn("printf", Prepend(format, cols)); }
Column ascii(const Column& c) { return Fn("ascii", {c}); }
Column chr(const Column& c) { return Fn("chr", {c}); }
Column base64(const Column& c) { return Fn("base64", {c}); }
Column unbase64(const Column& c) { return Fn("unbase64", {c}); }
Column hex(const Column& c) { return Fn("hex", {c}); }
Column unhex(const Column& c) { return Fn("unhex", {c}); }
Column md5(const Column& c) { return Fn("md5", {c}); }
Column sha1(const Column& c) { return Fn("sha1", {c}); }
Column sha2(const Column& c, int bits) { return Fn("sha2", {c, I(bits)}); }
Column crc32(const Column& c) { return Fn("crc32", {c}); }
Column translate(const Column& src, const std::string& m, const std::string& r) {
  return Fn("translate", {src, S(m), S(r)});
}

Column hash(const std::vector<Column>& cols) { return Fn("hash", cols); }
Column xxhash64(const std::vector<Column>& cols) { return Fn("xxhash64", cols); }

Column try_add(const Column& a, const Column& b) { return Fn("try_add", {a, b}); }
Column try_subtract(const Column& a, const Column& b) { return Fn("try_subtract", {a, b}); }
Column try_multiply(const Column& a, const Column& b) { return Fn("try_multiply", {a, b}); }
Column try_divide(const Column& a, const Column& b) { return Fn("try_divide", {a, b}); }
Column try_mod(const Column& a, const Column& b) { return Fn("try_mod", {a, b}); }
Column make_dt_interval(const std::vector<Column>& parts) { return Fn("make_dt_interval", parts); }
Column make_ym_interval(const std::vector<Column>& parts) { return Fn("make_ym_interval", parts); }
Column typeof_(const Column& c) { return Fn("typeof", {c}); }
Column current_catalog() { return Fn("current_catalog", {}); }
Column current_database() { return Fn("current_database", {}); }
Column current_schema() { return Fn("current_schema", {}); }
Column monotonically_increasing_id() { return Fn("monotonically_increasing_id", {}); }
Column spark_partition_id() { return Fn("spark_partition_id", {}); }
Column uuid() { return Fn("uuid", {}); }
Column input_file_name() { return Fn("input_file_name", {}); }

}  // namespace spate::api::functions
