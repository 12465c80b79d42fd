// Copyright spate authors.
#pragma once

// The math, string, regexp, hash and misc functions of pyspark.sql.functions (included by
// column.h; use through `namespace F = spate::api::functions;`). Each builds an
// unresolved call of the SQL function of the same name; arguments are checked when the
// plan is analyzed, with the same errors as in SQL. Python literal parameters (scales,
// patterns, lengths) are plain C++ values here.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spate/api/column.h"

namespace spate::api::functions {

// ---- math ----
Column pmod(const Column& dividend, const Column& divisor);
Column abs(const Column& c);
Column round(const Column& c, int scale = 0);
Column bround(const Column& c, int scale = 0);
Column ceil(const Column& c);
Column ceil(const Column& c, int scale);
Column ceiling(const Column& c);
Column floor(const Column& c);
Column floor(const Column& c, int scale);
Column sqrt(const Column& c);
Column cbrt(const Column& c);
Column exp(const Column& c);
Column ln(const Column& c);
Column log(const Column& c);
Column log(double base, const Column& c);
Column log10(const Column& c);
Column log2(const Column& c);
Column pow(const Column& base, const Column& exponent);
Column power(const Column& base, const Column& exponent);
Column sign(const Column& c);
Column signum(const Column& c);
Column greatest(const std::vector<Column>& cols);
Column least(const std::vector<Column>& cols);
Column isnan(const Column& c);
Column nanvl(const Column& c1, const Column& c2);
Column nullif(const Column& c1, const Column& c2);
Column nvl2(const Column& c1, const Column& c2, const Column& c3);

// ---- strings ----
Column concat(const std::vector<Column>& cols);
Column concat_ws(const std::string& sep, const std::vector<Column>& cols);
Column length(const Column& c);
Column char_length(const Column& c);
Column character_length(const Column& c);
Column upper(const Column& c);
Column lower(const Column& c);
Column substring(const Column& str, int pos, int len);
Column substr(const Column& str, const Column& pos);
Column substr(const Column& str, const Column& pos, const Column& len);
Column left(const Column& str, const Column& len);
Column right(const Column& str, const Column& len);
Column trim(const Column& c);
Column trim(const Column& c, const std::string& trim_chars);
Column ltrim(const Column& c);
Column ltrim(const Column& c, const std::string& trim_chars);
Column rtrim(const Column& c);
Column rtrim(const Column& c, const std::string& trim_chars);
Column lpad(const Column& c, int len, const std::string& pad);
Column rpad(const Column& c, int len, const std::string& pad);
Column replace(const Column& src, const Column& search);
Column replace(const Column& src, const Column& search, const Column& replacement);
Column split(const Column& str, const std::string& pattern, int limit = -1);
Column split_part(const Column& src, const Column& delimiter, const Column& part_num);
Column instr(const Column& str, const std::string& substr);
Column locate(const std::string& substr, const Column& str, int pos = 1);
Column position(const Column& substr, const Column& str);
Column position(const Column& substr, const Column& str, const Column& start);
Column rlike(const Column& str, const Column& regexp);
Column regexp(const Column& str, const Column& regexp);
Column regexp_like(const Column& str, const Column& regexp);
Column regexp_extract(const Column& str, const std::string& pattern, int idx);
Column regexp_extract_all(const Column& str, const Column& regexp);
Column regexp_extract_all(const Column& str, const Column& regexp, const Column& idx);
Column regexp_replace(const Column& str, const std::string& pattern,
                      const std::string& replacement);
Column regexp_replace(const Column& str, const Column& pattern,
                      const Column& replacement);
Column repeat(const Column& c, int n);
Column reverse(const Column& c);
Column initcap(const Column& c);
Column startswith(const Column& str, const Column& prefix);
Column endswith(const Column& str, const Column& suffix);
Column contains(const Column& left, const Column& right);
Column format_number(const Column& c, int d);
Column format_string(const std::string& format, const std::vector<Column>& cols);
Column printf(const Column& format, const std::vector<Column>& cols);
Column ascii(const Column& c);
Column chr(const Column& c);
Column base64(const Column& c);
Column unbase64(const Column& c);
Column hex(const Column& c);
Column unhex(const Column& c);
Column md5(const Column& c);
Column sha1(const Column& c);
Column sha2(const Column& c, int num_bits);
Column crc32(const Column& c);
Column translate(const Column& src, const std::string& matching,
                 const std::string& replace);

// ---- number and binary formats (Spark's '$99,999.99PR' patterns; 'hex' / 'utf-8' /
// 'base64') ----
/// to_number(str, format): the DECIMAL the pattern describes;
/// INVALID_FORMAT.MISMATCH_INPUT when `str` does not match. try_to_number: NULL instead.
Column to_number(const Column& str, const Column& format);
Column try_to_number(const Column& str, const Column& format);
/// to_char(x, format): a number by the same patterns, a date / timestamp by a datetime
/// pattern, a binary value as 'hex', 'base64' or 'utf-8'. to_varchar is its alias.
Column to_char(const Column& x, const Column& format);
Column to_varchar(const Column& x, const Column& format);
/// to_binary(str[, format]): 'hex' (the default), 'utf-8' / 'utf8' or 'base64';
/// try_to_binary: NULL for malformed input or an unknown format.
Column to_binary(const Column& str);
Column to_binary(const Column& str, const Column& format);
Column try_to_binary(const Column& str);
Column try_to_binary(const Column& str, const Column& format);

// ---- URLs and text ----
/// parse_url(url, part[, key]): HOST, PATH, QUERY (with `key`: that parameter), REF,
/// PROTOCOL, FILE, AUTHORITY or USERINFO of a java.net.URI; INVALID_URL for a malformed
/// URL. try_parse_url: NULL instead.
Column parse_url(const Column& url, const Column& part);
Column parse_url(const Column& url, const Column& part, const Column& key);
Column try_parse_url(const Column& url, const Column& part);
Column try_parse_url(const Column& url, const Column& part, const Column& key);
/// XPath 1.0 over an XML string (`path` a constant string): xpath gives the node values
/// of the matching nodes (ARRAY<STRING>, NULL for elements), xpath_string the string
/// value, xpath_boolean the boolean value, xpath_number / xpath_double / xpath_float /
/// xpath_long / xpath_int / xpath_short the number value narrowed as Java narrows a
/// double (NaN -> 0). A NULL or empty document or path gives NULL.
Column xpath(const Column& xml, const Column& path);
Column xpath_string(const Column& xml, const Column& path);
Column xpath_boolean(const Column& xml, const Column& path);
Column xpath_number(const Column& xml, const Column& path);
Column xpath_double(const Column& xml, const Column& path);
Column xpath_float(const Column& xml, const Column& path);
Column xpath_long(const Column& xml, const Column& path);
Column xpath_int(const Column& xml, const Column& path);
Column xpath_short(const Column& xml, const Column& path);
/// mask(str, upper='X', lower='x', digit='n', other=NULL): a NULL replacement keeps the
/// character class unmasked.
Column mask(const Column& str);
Column mask(const Column& str, const Column& upper, const Column& lower,
            const Column& digit, const Column& other);
/// sentences(str[, language, country]): array of sentences, each an array of words.
Column sentences(const Column& str);
Column sentences(const Column& str, const Column& language, const Column& country);

// ---- AES (GCM by default; CBC, ECB) in Spark's byte layout ----
/// aes_encrypt(input, key[, mode, padding, iv, aad]): an empty `iv` is random.
Column aes_encrypt(const Column& input, const Column& key);
Column aes_encrypt(const Column& input, const Column& key, const Column& mode,
                   const Column& padding, const Column& iv, const Column& aad);
/// aes_decrypt(input, key[, mode, padding, aad]); try_aes_decrypt: NULL instead of
/// errors.
Column aes_decrypt(const Column& input, const Column& key);
Column aes_decrypt(const Column& input, const Column& key, const Column& mode,
                   const Column& padding, const Column& aad);
Column try_aes_decrypt(const Column& input, const Column& key);
Column try_aes_decrypt(const Column& input, const Column& key, const Column& mode,
                       const Column& padding, const Column& aad);

// ---- hashing ----
Column hash(const std::vector<Column>& cols);
Column xxhash64(const std::vector<Column>& cols);

// ---- try_ arithmetic: NULL instead of an overflow or division-by-zero error ----
Column try_add(const Column& left, const Column& right);
Column try_subtract(const Column& left, const Column& right);
Column try_multiply(const Column& left, const Column& right);
Column try_divide(const Column& left, const Column& right);
Column try_mod(const Column& left, const Column& right);

// ---- intervals ----
/// make_dt_interval(days, hours, mins, secs); omitted trailing arguments are 0.
Column make_dt_interval(const std::vector<Column>& parts = {});
/// make_ym_interval(years, months); omitted trailing arguments are 0.
Column make_ym_interval(const std::vector<Column>& parts = {});

// ---- misc ----
Column typeof_(const Column& c);  // functions.typeof (a GNU C++ keyword)
Column current_catalog();
Column current_database();
Column current_schema();
Column monotonically_increasing_id();
Column spark_partition_id();
Column uuid();
Column input_file_name();

// ---- more math (Spark's SHOW FUNCTIONS): double -> double unless noted ----
Column sin(const Column& c);
Column cos(const Column& c);
Column tan(const Column& c);
Column asin(const Column& c);
Column acos(const Column& c);
Column atan(const Column& c);
Column atan2(const Column& y, const Column& x);
Column sinh(const Column& c);
Column cosh(const Column& c);
Column tanh(const Column& c);
Column asinh(const Column& c);
Column acosh(const Column& c);
Column atanh(const Column& c);
Column cot(const Column& c);
Column csc(const Column& c);
Column sec(const Column& c);
Column degrees(const Column& c);
Column radians(const Column& c);
Column expm1(const Column& c);
Column log1p(const Column& c);
Column rint(const Column& c);
Column hypot(const Column& a, const Column& b);
Column e();
Column pi();
Column factorial(const Column& c);  // BIGINT; NULL outside [0, 20]
Column bin(const Column& c);
Column shiftleft(const Column& c, int num_bits);
Column shiftright(const Column& c, int num_bits);
Column shiftrightunsigned(const Column& c, int num_bits);
Column bit_count(const Column& c);
/// bitwise_not(c): SQL's ~c (Column's operator! is the logical NOT, as PySpark's ~).
Column bitwise_not(const Column& c);
/// input_file_block_start() / input_file_block_length(): 0 and the length of the file the
/// rows were read from (spate reads whole files); -1 when they were not read from a file.
Column input_file_block_start();
Column input_file_block_length();
Column bit_get(const Column& c, const Column& pos);
Column getbit(const Column& c, const Column& pos);
Column width_bucket(const Column& v, const Column& min, const Column& max,
                    const Column& num_buckets);

// ---- random: Spark's values for a seed (per partition: seed + partition index) ----
Column rand(int64_t seed);
Column rand();  // a seed drawn per call: nondeterministic
Column randn(int64_t seed);
Column randn();
Column random(int64_t seed);
Column uniform(const Column& min, const Column& max, int64_t seed);
Column randstr(int length, int64_t seed);

// ---- more strings ----
Column levenshtein(const Column& left, const Column& right);
Column levenshtein(const Column& left, const Column& right, int threshold);
Column soundex(const Column& c);
Column space(const Column& n);
Column elt(const std::vector<Column>& inputs);  // elt(n, s1, s2, ...)
Column find_in_set(const Column& str, const Column& str_list);
Column substring_index(const Column& str, const std::string& delim, int count);
Column octet_length(const Column& c);
Column bit_length(const Column& c);
Column quote(const Column& c);
Column luhn_check(const Column& c);
Column url_encode(const Column& c);
Column url_decode(const Column& c);
Column try_url_decode(const Column& c);
Column encode(const Column& c, const std::string& charset);  // STRING -> BINARY
Column decode(const Column& c, const std::string& charset);  // BINARY -> STRING
Column regexp_count(const Column& str, const Column& regexp);
Column regexp_substr(const Column& str, const Column& regexp);
Column regexp_instr(const Column& str, const Column& regexp);
Column str_to_map(const Column& text, const std::string& pair_delim = ",",
                  const std::string& key_value_delim = ":");
Column bitmap_bucket_number(const Column& c);
Column bitmap_bit_position(const Column& c);
Column bitmap_count(const Column& bitmap);
Column overlay(const Column& src, const Column& replace, int pos, int len = -1);
Column conv(const Column& num, int from_base, int to_base);
/// try_make_timestamp(years, months, days, hours, mins, secs[, timezone]): NULL for
/// invalid fields; likewise try_make_timestamp_ltz / try_make_timestamp_ntz (no time
/// zone).
Column try_make_timestamp(const std::vector<Column>& parts);
Column try_make_timestamp_ltz(const std::vector<Column>& parts);
Column try_make_timestamp_ntz(const std::vector<Column>& parts);

// ---- more misc ----
Column equal_null(const Column& a, const Column& b);
Column zeroifnull(const Column& c);
Column nullifzero(const Column& c);
Column current_user();
Column user();
Column session_user();
Column version();
/// "system.builtin,system.session,spark_catalog.<current schema>": where names resolve.
Column current_path();
/// The collation of a string: always "SYSTEM.BUILTIN.UTF8_BINARY" (spate has no others).
Column collation(const Column& c);
Column monthname(const Column& date);
Column dayname(const Column& date);
Column date_diff(const Column& end, const Column& start);
Column raise_error(const Column& message);
Column assert_true(const Column& condition);
Column assert_true(const Column& condition, const Column& message);

}  // namespace spate::api::functions
