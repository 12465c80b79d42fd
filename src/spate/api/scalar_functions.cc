// Copyright spate authors.
#include "spate/api/scalar_functions.h"

namespace spate::api::functions {

namespace {

Column Fn(const std::string& name, const std::vector<Column>& args) {
  return call_function(name, args);
}
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
Column log(double base, const Column& c) {
  return Fn("log", {lit(Value::Double(base)), c});
}
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
Column nvl2(const Column& a, const Column& b, const Column& c) {
  return Fn("nvl2", {a, b, c});
}

Column concat(const std::vector<Column>& cols) { return Fn("concat", cols); }
Column concat_ws(const std::string& sep, const std::vector<Column>& cols) {
  return Fn("concat_ws", Prepend(S(sep), cols));
}
Column length(const Column& c) { return Fn("length", {c}); }
Column char_length(const Column& c) { return Fn("char_length", {c}); }
Column character_length(const Column& c) { return Fn("character_length", {c}); }
Column upper(const Column& c) { return Fn("upper", {c}); }
Column lower(const Column& c) { return Fn("lower", {c}); }
Column substring(const Column& str, int pos, int len) {
  return Fn("substring", {str, I(pos), I(len)});
}
Column substr(const Column& str, const Column& pos) { return Fn("substr", {str, pos}); }
Column substr(const Column& str, const Column& pos, const Column& len) {
  return Fn("substr", {str, pos, len});
}
Column left(const Column& str, const Column& len) { return Fn("left", {str, len}); }
Column right(const Column& str, const Column& len) { return Fn("right", {str, len}); }
Column trim(const Column& c) { return Fn("trim", {c}); }
Column trim(const Column& c, const std::string& t) { return Fn("trim", {c, S(t)}); }
Column ltrim(const Column& c) { return Fn("ltrim", {c}); }
Column ltrim(const Column& c, const std::string& t) { return Fn("ltrim", {c, S(t)}); }
Column rtrim(const Column& c) { return Fn("rtrim", {c}); }
Column rtrim(const Column& c, const std::string& t) { return Fn("rtrim", {c, S(t)}); }
Column lpad(const Column& c, int len, const std::string& pad) {
  return Fn("lpad", {c, I(len), S(pad)});
}
Column rpad(const Column& c, int len, const std::string& pad) {
  return Fn("rpad", {c, I(len), S(pad)});
}
Column replace(const Column& src, const Column& search) {
  return Fn("replace", {src, search});
}
Column replace(const Column& src, const Column& search, const Column& r) {
  return Fn("replace", {src, search, r});
}
Column split(const Column& str, const std::string& pattern, int limit) {
  return Fn("split", {str, S(pattern), I(limit)});
}
Column split_part(const Column& src, const Column& d, const Column& n) {
  return Fn("split_part", {src, d, n});
}
Column instr(const Column& str, const std::string& substr) {
  return Fn("instr", {str, S(substr)});
}
Column locate(const std::string& substr, const Column& str, int pos) {
  return Fn("locate", {S(substr), str, I(pos)});
}
Column position(const Column& substr, const Column& str) {
  return Fn("position", {substr, str});
}
Column position(const Column& substr, const Column& str, const Column& start) {
  return Fn("position", {substr, str, start});
}
Column rlike(const Column& str, const Column& re) { return Fn("rlike", {str, re}); }
Column regexp(const Column& str, const Column& re) { return Fn("regexp", {str, re}); }
Column regexp_like(const Column& str, const Column& re) {
  return Fn("regexp_like", {str, re});
}
Column regexp_extract(const Column& str, const std::string& pattern, int idx) {
  return Fn("regexp_extract", {str, S(pattern), I(idx)});
}
Column regexp_extract_all(const Column& str, const Column& re) {
  return Fn("regexp_extract_all", {str, re});
}
Column regexp_extract_all(const Column& str, const Column& re, const Column& idx) {
  return Fn("regexp_extract_all", {str, re, idx});
}
Column regexp_replace(const Column& str, const std::string& pattern,
                      const std::string& replacement) {
  return Fn("regexp_replace", {str, S(pattern), S(replacement)});
}
Column regexp_replace(const Column& str, const Column& pattern,
                      const Column& replacement) {
  return Fn("regexp_replace", {str, pattern, replacement});
}
Column repeat(const Column& c, int n) { return Fn("repeat", {c, I(n)}); }
Column reverse(const Column& c) { return Fn("reverse", {c}); }
Column initcap(const Column& c) { return Fn("initcap", {c}); }
Column startswith(const Column& s, const Column& p) { return Fn("startswith", {s, p}); }
Column endswith(const Column& s, const Column& p) { return Fn("endswith", {s, p}); }
Column contains(const Column& l, const Column& r) { return Fn("contains", {l, r}); }
Column format_number(const Column& c, int d) { return Fn("format_number", {c, I(d)}); }
Column to_number(const Column& str, const Column& format) {
  return Fn("to_number", {str, format});
}
Column try_to_number(const Column& str, const Column& format) {
  return Fn("try_to_number", {str, format});
}
Column to_char(const Column& x, const Column& format) {
  return Fn("to_char", {x, format});
}
Column to_varchar(const Column& x, const Column& format) {
  return Fn("to_varchar", {x, format});
}
Column to_binary(const Column& str) { return Fn("to_binary", {str}); }
Column to_binary(const Column& str, const Column& format) {
  return Fn("to_binary", {str, format});
}
Column try_to_binary(const Column& str) { return Fn("try_to_binary", {str}); }
Column try_to_binary(const Column& str, const Column& format) {
  return Fn("try_to_binary", {str, format});
}
Column xpath(const Column& xml, const Column& path) { return Fn("xpath", {xml, path}); }
Column xpath_string(const Column& xml, const Column& path) {
  return Fn("xpath_string", {xml, path});
}
Column xpath_boolean(const Column& xml, const Column& path) {
  return Fn("xpath_boolean", {xml, path});
}
Column xpath_number(const Column& xml, const Column& path) {
  return Fn("xpath_number", {xml, path});
}
Column xpath_double(const Column& xml, const Column& path) {
  return Fn("xpath_double", {xml, path});
}
Column xpath_float(const Column& xml, const Column& path) {
  return Fn("xpath_float", {xml, path});
}
Column xpath_long(const Column& xml, const Column& path) {
  return Fn("xpath_long", {xml, path});
}
Column xpath_int(const Column& xml, const Column& path) {
  return Fn("xpath_int", {xml, path});
}
Column xpath_short(const Column& xml, const Column& path) {
  return Fn("xpath_short", {xml, path});
}
Column parse_url(const Column& url, const Column& part) {
  return Fn("parse_url", {url, part});
}
Column parse_url(const Column& url, const Column& part, const Column& key) {
  return Fn("parse_url", {url, part, key});
}
Column try_parse_url(const Column& url, const Column& part) {
  return Fn("try_parse_url", {url, part});
}
Column try_parse_url(const Column& url, const Column& part, const Column& key) {
  return Fn("try_parse_url", {url, part, key});
}
Column mask(const Column& str) { return Fn("mask", {str}); }
Column mask(const Column& str, const Column& upper, const Column& lower,
            const Column& digit, const Column& other) {
  return Fn("mask", {str, upper, lower, digit, other});
}
Column sentences(const Column& str) { return Fn("sentences", {str}); }
Column sentences(const Column& str, const Column& language, const Column& country) {
  return Fn("sentences", {str, language, country});
}
Column aes_encrypt(const Column& input, const Column& key) {
  return Fn("aes_encrypt", {input, key});
}
Column aes_encrypt(const Column& input, const Column& key, const Column& mode,
                   const Column& padding, const Column& iv, const Column& aad) {
  return Fn("aes_encrypt", {input, key, mode, padding, iv, aad});
}
Column aes_decrypt(const Column& input, const Column& key) {
  return Fn("aes_decrypt", {input, key});
}
Column aes_decrypt(const Column& input, const Column& key, const Column& mode,
                   const Column& padding, const Column& aad) {
  return Fn("aes_decrypt", {input, key, mode, padding, aad});
}
Column try_aes_decrypt(const Column& input, const Column& key) {
  return Fn("try_aes_decrypt", {input, key});
}
Column try_aes_decrypt(const Column& input, const Column& key, const Column& mode,
                       const Column& padding, const Column& aad) {
  return Fn("try_aes_decrypt", {input, key, mode, padding, aad});
}
Column format_string(const std::string& format, const std::vector<Column>& cols) {
  return Fn("format_string", Prepend(S(format), cols));
}
Column printf(const Column& format, const std::vector<Column>& cols) {
  return Fn("printf", Prepend(format, cols));
}
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
Column try_subtract(const Column& a, const Column& b) {
  return Fn("try_subtract", {a, b});
}
Column try_multiply(const Column& a, const Column& b) {
  return Fn("try_multiply", {a, b});
}
Column try_divide(const Column& a, const Column& b) { return Fn("try_divide", {a, b}); }
Column try_mod(const Column& a, const Column& b) { return Fn("try_mod", {a, b}); }
Column make_dt_interval(const std::vector<Column>& parts) {
  return Fn("make_dt_interval", parts);
}
Column make_ym_interval(const std::vector<Column>& parts) {
  return Fn("make_ym_interval", parts);
}
Column typeof_(const Column& c) { return Fn("typeof", {c}); }
Column current_catalog() { return Fn("current_catalog", {}); }
Column current_database() { return Fn("current_database", {}); }
Column current_schema() { return Fn("current_schema", {}); }
Column monotonically_increasing_id() { return Fn("monotonically_increasing_id", {}); }
Column spark_partition_id() { return Fn("spark_partition_id", {}); }
Column uuid() { return Fn("uuid", {}); }
Column input_file_name() { return Fn("input_file_name", {}); }

Column sin(const Column& c) { return Fn("sin", {c}); }
Column cos(const Column& c) { return Fn("cos", {c}); }
Column tan(const Column& c) { return Fn("tan", {c}); }
Column asin(const Column& c) { return Fn("asin", {c}); }
Column acos(const Column& c) { return Fn("acos", {c}); }
Column atan(const Column& c) { return Fn("atan", {c}); }
Column atan2(const Column& y, const Column& x) { return Fn("atan2", {y, x}); }
Column sinh(const Column& c) { return Fn("sinh", {c}); }
Column cosh(const Column& c) { return Fn("cosh", {c}); }
Column tanh(const Column& c) { return Fn("tanh", {c}); }
Column asinh(const Column& c) { return Fn("asinh", {c}); }
Column acosh(const Column& c) { return Fn("acosh", {c}); }
Column atanh(const Column& c) { return Fn("atanh", {c}); }
Column cot(const Column& c) { return Fn("cot", {c}); }
Column csc(const Column& c) { return Fn("csc", {c}); }
Column sec(const Column& c) { return Fn("sec", {c}); }
Column degrees(const Column& c) { return Fn("degrees", {c}); }
Column radians(const Column& c) { return Fn("radians", {c}); }
Column expm1(const Column& c) { return Fn("expm1", {c}); }
Column log1p(const Column& c) { return Fn("log1p", {c}); }
Column rint(const Column& c) { return Fn("rint", {c}); }
Column hypot(const Column& a, const Column& b) { return Fn("hypot", {a, b}); }
Column e() { return Fn("e", {}); }
Column pi() { return Fn("pi", {}); }
Column factorial(const Column& c) { return Fn("factorial", {c}); }
Column bin(const Column& c) { return Fn("bin", {c}); }
Column shiftleft(const Column& c, int n) { return Fn("shiftleft", {c, I(n)}); }
Column shiftright(const Column& c, int n) { return Fn("shiftright", {c, I(n)}); }
Column shiftrightunsigned(const Column& c, int n) {
  return Fn("shiftrightunsigned", {c, I(n)});
}
Column bit_count(const Column& c) { return Fn("bit_count", {c}); }
Column bitwise_not(const Column& c) { return Fn("~", {c}); }
Column input_file_block_start() { return Fn("input_file_block_start", {}); }
Column input_file_block_length() { return Fn("input_file_block_length", {}); }
Column bit_get(const Column& c, const Column& pos) { return Fn("bit_get", {c, pos}); }
Column getbit(const Column& c, const Column& pos) { return Fn("getbit", {c, pos}); }
Column width_bucket(const Column& v, const Column& min, const Column& max,
                    const Column& n) {
  return Fn("width_bucket", {v, min, max, n});
}

Column rand(int64_t seed) { return Fn("rand", {lit(Value::Long(seed))}); }
Column rand() { return Fn("rand", {}); }
Column randn(int64_t seed) { return Fn("randn", {lit(Value::Long(seed))}); }
Column randn() { return Fn("randn", {}); }
Column random(int64_t seed) { return Fn("random", {lit(Value::Long(seed))}); }
Column uniform(const Column& min, const Column& max, int64_t seed) {
  return Fn("uniform", {min, max, lit(Value::Long(seed))});
}
Column randstr(int length, int64_t seed) {
  return Fn("randstr", {I(length), lit(Value::Long(seed))});
}

Column levenshtein(const Column& l, const Column& r) { return Fn("levenshtein", {l, r}); }
Column levenshtein(const Column& l, const Column& r, int threshold) {
  return Fn("levenshtein", {l, r, I(threshold)});
}
Column soundex(const Column& c) { return Fn("soundex", {c}); }
Column space(const Column& n) { return Fn("space", {n}); }
Column elt(const std::vector<Column>& inputs) { return Fn("elt", inputs); }
Column find_in_set(const Column& s, const Column& list) {
  return Fn("find_in_set", {s, list});
}
Column substring_index(const Column& s, const std::string& delim, int count) {
  return Fn("substring_index", {s, S(delim), I(count)});
}
Column octet_length(const Column& c) { return Fn("octet_length", {c}); }
Column bit_length(const Column& c) { return Fn("bit_length", {c}); }
Column quote(const Column& c) { return Fn("quote", {c}); }
Column luhn_check(const Column& c) { return Fn("luhn_check", {c}); }
Column url_encode(const Column& c) { return Fn("url_encode", {c}); }
Column url_decode(const Column& c) { return Fn("url_decode", {c}); }
Column try_url_decode(const Column& c) { return Fn("try_url_decode", {c}); }
Column encode(const Column& c, const std::string& charset) {
  return Fn("encode", {c, S(charset)});
}
Column decode(const Column& c, const std::string& charset) {
  return Fn("decode", {c, S(charset)});
}
Column regexp_count(const Column& s, const Column& re) {
  return Fn("regexp_count", {s, re});
}
Column regexp_substr(const Column& s, const Column& re) {
  return Fn("regexp_substr", {s, re});
}
Column regexp_instr(const Column& s, const Column& re) {
  return Fn("regexp_instr", {s, re});
}
Column str_to_map(const Column& text, const std::string& pair_delim,
                  const std::string& key_value_delim) {
  return Fn("str_to_map", {text, S(pair_delim), S(key_value_delim)});
}
Column bitmap_bucket_number(const Column& c) { return Fn("bitmap_bucket_number", {c}); }
Column bitmap_bit_position(const Column& c) { return Fn("bitmap_bit_position", {c}); }
Column bitmap_count(const Column& b) { return Fn("bitmap_count", {b}); }
Column overlay(const Column& src, const Column& replace, int pos, int len) {
  return Fn("overlay", {src, replace, I(pos), I(len)});
}
Column conv(const Column& num, int from_base, int to_base) {
  return Fn("conv", {num, I(from_base), I(to_base)});
}
Column try_make_timestamp(const std::vector<Column>& parts) {
  return Fn("try_make_timestamp", parts);
}
Column try_make_timestamp_ltz(const std::vector<Column>& parts) {
  return Fn("try_make_timestamp_ltz", parts);
}
Column try_make_timestamp_ntz(const std::vector<Column>& parts) {
  return Fn("try_make_timestamp_ntz", parts);
}

Column equal_null(const Column& a, const Column& b) { return Fn("equal_null", {a, b}); }
Column zeroifnull(const Column& c) { return Fn("zeroifnull", {c}); }
Column nullifzero(const Column& c) { return Fn("nullifzero", {c}); }
Column current_user() { return Fn("current_user", {}); }
Column user() { return Fn("user", {}); }
Column session_user() { return Fn("session_user", {}); }
Column version() { return Fn("version", {}); }
Column current_path() { return Fn("current_path", {}); }
Column collation(const Column& c) { return Fn("collation", {c}); }
Column monthname(const Column& d) { return Fn("monthname", {d}); }
Column dayname(const Column& d) { return Fn("dayname", {d}); }
Column date_diff(const Column& end, const Column& start) {
  return Fn("date_diff", {end, start});
}
Column raise_error(const Column& message) { return Fn("raise_error", {message}); }
Column assert_true(const Column& c) { return Fn("assert_true", {c}); }
Column assert_true(const Column& c, const Column& message) {
  return Fn("assert_true", {c, message});
}

}  // namespace spate::api::functions
