"""Scalar functions of Spark's SHOW FUNCTIONS added in session 12 (docs/functions.md):
Spark's number-format patterns (to_char / to_varchar, to_number / try_to_number), to_binary
/ try_to_binary, to_char of datetimes and binary, convert_timezone, parse_url /
try_parse_url, mask and sentences."""

from dsl import case, expr_cases, sql_case

NUMS = ("VALUES ('454', 454, 454.00BD), ('12,454', 12454, 12454.8BD), ('-4', -4, -0.5BD), "
        "(NULL, NULL, NULL), ('0', 0, 0BD) AS t(s, i, d)")

# ---- to_number / try_to_number ----
expr_cases("to_number", "", [
    "to_number('454', '999')", "to_number('454.00', '000.00')", "to_number('12,454', '99,999')",
    "to_number('$78.12', '$99.99')", "to_number('12,454.8-', '99,999.9S')",
    "to_number('-12,454.8', 'S99,999.9')", "to_number('+12,454.8', 'S99,999.9')",
    "to_number('12,454.8-', '99,999.9MI')", "to_number('12,454.8', '99,999.9MI')",
    "to_number('<12,454.8>', '99,999.9PR')", "to_number('12,454.8', '99,999.9PR')",
    "to_number('454', '99')", "to_number('4', '999')", "to_number('4', '000')", "to_number('04', '000')",
    "to_number('004', '000')", "to_number('4', '0999')", "to_number('04', '0999')", "to_number('0004', '0999')",
    "to_number('abc', '999')", "try_to_number('abc', '999')", "to_number('454', 'abc')",
    "to_number('454', '')", "to_number('1.2', '9.9.9')", "to_number('1', '9,')", "to_number('1', ',9')",
    "to_number('1', '9,,9')", "to_number('12,34', '99G99')", "to_number('12.34', '99D99')",
    "to_number('1,2,3', '9,9,9')", "to_number('123', '9,99')", "to_number('1,23', '9,99')",
    "to_number('23', '9,99')", "to_number(',23', '9,99')", "to_number('1,2', '9,99')",
    "to_number('.5', '.9')", "to_number('5.', '9.')", "to_number('5', '9.')", "to_number('5', '9.9')",
    "to_number('5.55', '9.9')", "to_number('5.5', '9.99')", "to_number('5.5', '9.00')",
    "to_number('$5', '9$')", "to_number(NULL, '999')", "to_number('1', NULL)", "to_number('  1', '999')",
    "to_number('1 ', '999')", "to_number('12', 'S9S9')", "to_number('12', 'MI99')", "to_number('12', '99MIS')",
    "to_number('-12', 'S99PR')", "to_number('12', '$$99')", "to_number('12', '99$.99')",
    "to_number('12', '.99$')", "to_number('12', '99.9,9')", "to_number('12', '9PR9')",
    "to_number('12', 'PR99')", "to_number('12', '99MIMI')", "to_number('12', 'x99')",
    "to_number('1', '9999999999999999999999999999999999999999')",
    "typeof(to_number('1', '999.00'))", "typeof(to_number('1', '0,000.00'))", "to_number('12,345', '9G999')",
    "to_number('1,234', '0,000')", "to_number('1234', '0,000')", "to_number(454, '999')", "to_number('-5', '9')",
    "to_number('5-', '9S')", "to_number('5+', '9S')", "to_number('5 ', '9MI')", "to_number('5', '9MI')",
    "to_number('<5>', '9PR')", "to_number('<5', '9PR')", "to_number('5>', '9PR')", "to_number('-<5>', 'S9PR')",
    "to_number('$', '$9')", "to_number('', '9')", "to_number('.', '9.9')", "to_number('-', 'S9')",
    "to_number('$-5', '$S9')", "to_number('-$5', 'S$9')", "to_number('12.5', '99d9')", "to_number('12', 's99')",
    "try_to_number('5', '9.9.9')", "try_to_number('12,345', '99,999')", "try_to_number(NULL, '99')",
    "to_number('1,2345', '9,9999')", "to_number('1,234,567.89', '9,999,999.99')", "to_number('0.001', '0.000')",
    "to_number(x'3132', '99')", "to_number('12', 99)",
])
expr_cases("to_number_rows", NUMS, ["to_number(s, '99,999')", "try_to_number(s, 'S99,999')",
                                    "to_number(s, '99,999MI')"])
sql_case("to_number_rows/format_not_foldable",
         "SELECT to_number(s, f) r FROM VALUES ('1', '9') t(s, f)")

# ---- to_char / to_varchar of numbers ----
expr_cases("to_char_number", "", [
    "to_char(454, '999')", "to_char(454.00, '000D00')", "to_char(12454, '99G999')", "to_char(78.12, '$99.99')",
    "to_char(-12454.8, '99G999D9S')", "to_char(12454.8, '99G999D9S')", "to_char(-12454.8, 'S99G999D9')",
    "to_char(-12454.8, '99G999D9MI')", "to_char(12454.8, '99G999D9MI')", "to_char(-12454.8, '99G999D9PR')",
    "to_char(12454.8, '99G999D9PR')", "to_char(454, '99')", "to_char(4, '999')", "to_char(4, '000')",
    "to_char(1.5, '9')", "to_char(1.25, '9.9')", "to_char(1.35, '9.9')", "to_char(0.25, '9.9')",
    "to_char(0.35, '9.9')", "to_char(0.05, '9.9')", "to_char(0.5, '9.99')", "to_char(0.5, '0.99')",
    "to_char(12, '9,999')", "to_char(1234, '0,000')", "to_char(12, '0,000')", "to_char(12, '$9999')",
    "to_char(12, '$0000')", "to_char(1.5D, '9.9')", "to_char(1.55D, '9.9')", "to_char(CAST(12 AS BIGINT), '999')",
    "to_char(12, 'abc')", "to_char(NULL, '999')", "to_char(12, NULL)", "to_char(-0.5, '9.9')",
    "to_char(0, '9.9')", "to_char(0, '9')", "to_char(0, '0')", "to_char(0, '99.99')", "to_char(100, '9.99')",
    "to_char(-5, '9')", "to_char(-5, 'S9')", "to_char(5, 'S9')", "to_char(5, '9S')", "to_char(5, 'MI9')",
    "to_char(-5, 'MI9')", "to_char(-5, '$9PR')", "to_char(5, '$9PR')", "to_char(12, '9.')",
    "to_char(12, '.99')", "to_char(0.12, '.99')", "to_char(12, '9,9')", "to_char(1, '9,9')",
    "to_char(12345678901234567890, '99999999999999999999')", "to_char(1234567.891, '9,999,999.999')",
    "to_char(1234567.891, '9,999,999')", "to_char(12.3456, '99.99')", "to_char(-12.345, '99.99S')",
    "to_char(12, '9.9.9')", "to_char(12, '99$')", "to_char(3Y, '9')", "to_char(CAST(5 AS SMALLINT), '09')",
    "to_char(99.99, '99.9')", "to_char(9.99, '9.9')", "to_varchar(454, '999')", "to_char(12, 'g99')",
    "to_char(12, 'x99')", "to_char(1e3D, '9999')", "to_char(true, '9')",
])
expr_cases("to_char_rows", NUMS, ["to_char(i, '99,999')", "to_char(d, 'S00,000.00')", "to_varchar(d, '99G999D9PR')"])
sql_case("to_char_rows/format_not_foldable", "SELECT to_char(i, f) r FROM VALUES (1, '9') t(i, f)")

# ---- to_char of datetimes and binary ----
expr_cases("to_char_other", "", [
    "to_char(date'2021-03-04', 'yyyy-MM-dd')", "to_char(timestamp'2021-03-04 05:06:07', 'yyyy/MM/dd HH:mm')",
    "to_char(timestamp_ntz'2021-03-04 05:06:07', 'HH:mm:ss')", "to_char(date'2021-03-04', NULL)",
    "to_char(X'616263', 'hex')", "to_char(X'616263', 'base64')", "to_char(X'616263', 'utf-8')",
    "to_char(X'616263', 'UTF-8')", "to_char(X'616263', 'HEX')", "to_char(X'616263', 'utf8')",
    "to_char(X'616263', 'foo')", "to_char(X'616263', NULL)", "to_char(CAST(NULL AS BINARY), 'hex')",
    "to_char(X'00ff', 'hex')", "to_char(X'ff', 'utf-8')", "to_varchar(X'6162', 'base64')",
    "to_char('abc', '999')", "to_char('12', '999')",
])
sql_case("to_char_other/binary_rows",
         "SELECT to_char(b, 'hex') h, to_char(b, 'base64') b64, to_char(b, 'utf-8') u "
         "FROM VALUES (X'616263'), (X''), (NULL), (X'e282ac') t(b)")
sql_case("to_char_other/datetime_rows",
         "SELECT to_char(d, 'dd.MM.yyyy') a, to_varchar(ts, 'yyyy-MM-dd HH:mm:ss') b FROM VALUES "
         "(date'2020-02-29', timestamp'2020-02-29 23:59:59'), (NULL, NULL) t(d, ts)")

# ---- to_binary / try_to_binary ----
expr_cases("to_binary", "", [
    "to_binary('abc')", "to_binary('abc', 'utf-8')", "to_binary('abc', 'UTF8')", "to_binary('YWJj', 'base64')",
    "to_binary('YWJ', 'base64')", "to_binary('YW Jj', 'base64')", "to_binary('6162', 'hex')",
    "to_binary('616', 'hex')", "to_binary('zz', 'hex')", "to_binary('abc', 'foo')", "try_to_binary('zz', 'hex')",
    "try_to_binary('abc', 'foo')", "to_binary(NULL, 'hex')", "to_binary('61', NULL)", "try_to_binary('61', NULL)",
    "to_binary('YWJj', 'BASE64')", "to_binary('YWJj==', 'base64')", "to_binary('YWI=', 'base64')",
    "to_binary('YQ==', 'base64')", "to_binary('YQ', 'base64')", "to_binary('Y', 'base64')",
    "to_binary('Y!WJj', 'base64')", "try_to_binary('Y!WJj', 'base64')", "to_binary('', 'hex')",
    "to_binary('', 'base64')", "to_binary('abc', 'utf-16')", "to_binary('ä€', 'utf-8')", "to_binary(12, 'hex')",
    "to_binary('6x', 'hex')", "try_to_binary('abc')", "to_binary('YWJj\\n', 'base64')",
    "to_binary('YW=Jj', 'base64')", "to_binary('YWJjZA=', 'base64')",
])
sql_case("to_binary/rows",
         "SELECT to_binary(s, 'hex') h, try_to_binary(s, 'base64') b, to_binary(s, 'utf-8') u FROM VALUES "
         "('6162'), (NULL), ('ABCD'), ('') t(s)")
sql_case("to_binary/format_not_foldable", "SELECT to_binary(s, f) r FROM VALUES ('61', 'hex') t(s, f)")

# ---- convert_timezone ----
TSN = ("VALUES (timestamp_ntz'2021-12-06 00:00:00'), (timestamp_ntz'2021-03-14 02:30:00'), "
       "(timestamp_ntz'2021-11-07 01:30:00'), (NULL) AS t(ts)")
expr_cases("convert_timezone", TSN, [
    "convert_timezone('Europe/Brussels', 'America/Los_Angeles', ts)", "convert_timezone('America/New_York', ts)",
    "convert_timezone('America/New_York', 'UTC', ts)", "convert_timezone('UTC', 'America/New_York', ts)",
    "convert_timezone('+05:00', 'UTC', ts)", "convert_timezone('UTC', '-08:30', ts)",
])
expr_cases("convert_timezone_literal", "", [
    "convert_timezone('Europe/Brussels', timestamp'2021-12-05 15:00:00')",
    "convert_timezone('Europe/Brussels', '2021-12-05 15:00:00')", "convert_timezone('Europe/Brussels', date'2021-12-05')",
    "convert_timezone('Foo/Bar', timestamp_ntz'2021-12-05 15:00:00')", "convert_timezone(NULL, timestamp_ntz'2021-12-05 15:00:00')",
    "convert_timezone('UTC', NULL, timestamp_ntz'2021-12-05 15:00:00')", "convert_timezone('UTC', 'UTC', NULL)",
    "convert_timezone('Europe/Brussels', 1)", "convert_timezone('UTC')", "typeof(convert_timezone('UTC', 'UTC', '2021-01-01'))",
])
expr_cases("convert_timezone_session", TSN, ["convert_timezone('UTC', ts)"],
           conf={"spark.sql.session.timeZone": "Asia/Kolkata"})
sql_case("convert_timezone/zone_column",
         "SELECT z, convert_timezone(z, 'UTC', timestamp_ntz'2021-06-01 12:00:00') r FROM VALUES "
         "('Asia/Tokyo'), ('America/Sao_Paulo'), (NULL), ('Z') t(z)")

# ---- parse_url / try_parse_url ----
URLS = ("VALUES ('http://user:pw@spark.apache.org:8080/path/p.html?query=1&k=v&k=w#Ref'), "
        "('https://example.com'), ('ftp://a.b/'), ('mailto:someone@x.org'), ('/relative/path?q=2'), "
        "('http://[::1]:80/x'), ('http://1.2.3.4/x?y'), ('http://my_host.com/p'), ('http://a.1b/p'), "
        "('http://h/p?k=1&kk=2&k=3'), ('http://h/p?=1&k'), ('http://h/%41b?q=%20#f%20'), ('http://h:/p'), "
        "('HTTP://H.EXAMPLE/'), ('http://h/p#'), ('http://h/p?'), ('//h.x/p'), ('http:/x'), (''), (NULL) AS t(u)")
_PARTS = ["HOST", "PATH", "QUERY", "REF", "PROTOCOL", "FILE", "AUTHORITY", "USERINFO"]
expr_cases("parse_url", URLS, [f"parse_url(u, '{p}')" for p in _PARTS] + [
    "parse_url(u, 'QUERY', 'k')", "parse_url(u, 'QUERY', 'kk')", "parse_url(u, 'QUERY', '')",
    "parse_url(u, 'host')", "parse_url(u, 'HOST', 'k')", "parse_url(u, 'PORT')", "try_parse_url(u, 'HOST')",
])
expr_cases("parse_url_invalid", "", [
    "parse_url('http://a b/', 'HOST')", "try_parse_url('http://a b/', 'HOST')", "parse_url('http://h/a b', 'PATH')",
    "parse_url('http://h/p?a=%zz', 'QUERY')", "parse_url('http://h/p?a=|', 'QUERY')", "parse_url(':x', 'HOST')",
    "try_parse_url(':x', 'PROTOCOL')", "parse_url('http:', 'HOST')", "parse_url('http://', 'HOST')",
    "parse_url('http://h/{x}', 'PATH')", "parse_url('http://h/p#a#b', 'REF')", "parse_url('1http://h', 'HOST')",
    "parse_url('http://h/p', NULL)", "parse_url(NULL, 'HOST')", "parse_url('http://h/p?k=v', 'QUERY', NULL)",
    "parse_url('http://h/p?a.b=1', 'QUERY', 'a.b')", "parse_url('http://h/p?a+b=1', 'QUERY', 'a+b')",
    "parse_url('http://h/p?k=1', 'QUERY', '(k)')", "parse_url('http://ä.de/ü', 'HOST')",
    "parse_url('http://ä.de/ü', 'PATH')", "parse_url('http://h/p', 'HOST', 'x', 'y')", "parse_url('http://h')",
    "parse_url('http://h:99999/p', 'AUTHORITY')", "parse_url('http://h:8a/p', 'HOST')",
    "parse_url('http://h:8a/p', 'AUTHORITY')", "parse_url('http://-h.com/', 'HOST')", "parse_url('http://h-.com/', 'HOST')",
    "parse_url('http://h.com./', 'HOST')", "parse_url('http://h..com/', 'HOST')", "parse_url('http://u@/p', 'HOST')",
    "parse_url('http://[::1/x', 'HOST')", "parse_url('http://1.2.3/x', 'HOST')", "parse_url('http://1.2.3.999/x', 'HOST')",
    "parse_url('a:b:c', 'PATH')", "parse_url('http://h/p\\\\q', 'PATH')", "parse_url('http://h/^', 'PATH')",
    "parse_url(123, 'HOST')",
])

# ---- mask ----
MASKS = "VALUES ('AbCD123-@$#'), ('ÄäÉé١٢३ß𝐀'), (''), (NULL), ('abc def') AS t(s)"
expr_cases("mask", MASKS, [
    "mask(s)", "mask(s, 'Q')", "mask(s, 'Q', 'q')", "mask(s, 'Q', 'q', 'd', 'o')", "mask(s, NULL, 'q', 'd', 'o')",
    "mask(s, NULL, NULL, NULL, NULL)", "mask(s, 'x', 'y', 'z', NULL)", "mask(s, 'é', '€', '𝄞', '-')",
])
expr_cases("mask_literal", "", [
    "mask(NULL)", "mask('AbCD', 'QQ')", "mask('AbCD', '')", "mask(123)", "mask('a', 'b', 'c', 'd', 'e', 'f')",
    "mask('a1', upperChar => 'U', digitChar => '#')", "mask(lowerChar => '-', str => 'aB')",
    "mask(CAST(NULL AS STRING))", "mask('AbC', 1)",
])
sql_case("mask/not_foldable", "SELECT mask(s, c) r FROM VALUES ('ab', 'Q') t(s, c)")

# ---- sentences ----
SENTS = ("VALUES ('Hi there! How are you?'), ('one. two three.'), ('Mr. Smith went to Washington.'), "
         "('don\\'t stop, e.g. now'), ('3.14 is pi; 1,000 items'), ('über Größe. Ça va?'), ('日本語の文。次の文'), "
         "(''), ('   '), (NULL), ('a...b c'), ('Hello\nworld. New line') AS t(s)")
expr_cases("sentences", SENTS, ["sentences(s)", "sentences(s, 'en')", "sentences(s, 'en', 'US')"])
SENT_EDGES = ("VALUES ('Go. 3 b'), ('Go. (Bee c)'), ('Go. \"Bee\" c'), ('Go. - dash'), ('Go! two'), ('Go? 3 x'), "
              "('Go!3 x'), ('Go. $5 x'), ('Go.Bee x'), ('Go... Bee x'), ('Go; Bee. ä b'), ('Go. Édith b'), "
              "('Go. 日本'), ('Hi there! How are you? Mr. Smith went to Washington. 3.14 is pi') AS t(s)")
sql_case("sentences/edges", f"SELECT s, sentences(s) r FROM {SENT_EDGES}")
expr_cases("sentences_literal", "", [
    "sentences('Hi there')", "sentences(NULL)", "sentences('a b', NULL)", "sentences('a b', 'en', NULL)",
    "sentences(12)", "sentences('x', 'de', 'DE', 'y')", "typeof(sentences('a'))",
])


@case
def functions_format_dataframe(s):
    F = s.F
    df = s.spark.createDataFrame([("12,454.8-", "AbCd1", "http://h/p?k=v", "6162")], "n string, m string, u string, h string")
    return df.select(
        F.to_number("n", F.lit("99,999.9S")).alias("num"),
        F.try_to_number(F.lit("x"), F.lit("9")).alias("try_num"),
        F.to_char(F.lit(12454.8).cast("decimal(6,1)"), F.lit("99G999D9")).alias("chr"),
        F.to_varchar(F.lit(5), F.lit("S9")).alias("vchr"),
        F.to_binary("h", F.lit("hex")).alias("bin"),
        F.try_to_binary(F.lit("zz")).alias("try_bin"),
        F.mask("m").alias("m1"),
        F.mask("m", F.lit("U"), F.lit("l"), F.lit("D"), F.lit("O")).alias("m2"),
        F.parse_url("u", F.lit("QUERY"), F.lit("k")).alias("q"),
        F.try_parse_url("u", F.lit("HOST")).alias("h"),
        F.convert_timezone(F.lit("UTC"), F.lit("Asia/Tokyo"), F.lit("2021-01-01 00:00:00").cast("timestamp_ntz")).alias("tz3"),
        F.convert_timezone(None, F.lit("Asia/Tokyo"), F.lit("2021-01-01 00:00:00").cast("timestamp_ntz")).alias("tz2"),
        F.sentences(F.lit("Hi there. Bye now")).alias("sen"),
    )

# ---- aes_encrypt / aes_decrypt / try_aes_decrypt (explicit IVs make encryption deterministic) ----
expr_cases("aes", "", [
    "hex(aes_encrypt('Spark', '0000111122223333', 'GCM', 'DEFAULT', unhex('000000000000000000000000')))",
    "hex(aes_encrypt('Spark', '0000111122223333', 'GCM', 'DEFAULT', unhex('000000000000000000000000'), 'an AAD'))",
    "hex(aes_encrypt('Spark', '0000111122223333', 'CBC', 'DEFAULT', unhex('00000000000000000000000000000000')))",
    "hex(aes_encrypt('Spark', 'abcdefghijklmnopqrstuvwx', 'cbc', 'pkcs', unhex('0102030405060708090a0b0c0d0e0f10')))",
    "hex(aes_encrypt('Spark', 'abcdefghijklmnopqrstuvwxyz012345', 'ECB'))",
    "hex(aes_encrypt('', '0000111122223333', 'ECB', 'PKCS'))",
    "hex(aes_encrypt('Spark', '0000111122223333', 'CBC', 'NONE'))", "hex(aes_encrypt('Spark', '0000111122223333', 'GCM', 'PKCS'))",
    "aes_encrypt('Spark', '000011112222333')", "aes_encrypt('Spark', '0000111122223333', 'XYZ')",
    "aes_encrypt('Spark', '0000111122223333', 'ECB', 'DEFAULT', unhex('00000000000000000000000000000000'))",
    "aes_encrypt('Spark', '0000111122223333', 'CBC', 'DEFAULT', unhex('0000'))",
    "aes_encrypt('Spark', '0000111122223333', 'CBC', 'DEFAULT', unhex('00000000000000000000000000000000'), 'aad')",
    "cast(aes_decrypt(unhex('83F16B2AA704794132802D248E6BFD4E380078182D1544813898AC97E709B28A94'), '0000111122223333') AS STRING)",
    "cast(aes_decrypt(unhex('6E7CA17BBB468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210'), '0000111122223333', 'GCM') AS STRING)",
    "cast(aes_decrypt(unbase64('3lmwu+Mw0H3fi5NDvcu9lg=='), '1234567890abcdef', 'ECB', 'PKCS') AS STRING)",
    "cast(aes_decrypt(unbase64('2NYmDCjgXTbbxGA3/SnJEfFC/JQ7olk2VQWReIAAFKo='), '1234567890abcdef', 'CBC') AS STRING)",
    "cast(aes_decrypt(unhex('00000000000000000000000046C4EF1C6A51487FED3CAC184086329C72D48C83F7'), '0000111122223333', 'GCM', 'DEFAULT', 'wrong aad') AS STRING)",
    "cast(try_aes_decrypt(unhex('00000000000000000000000046C4EF1C6A51487FED3CAC184086329C72D48C83F7'), '0000111122223333', 'GCM', 'DEFAULT', 'wrong aad') AS STRING)",
    "aes_decrypt(unhex('00'), '0000111122223333')", "try_aes_decrypt(unhex('00'), '0000111122223333')",
    "aes_decrypt(unhex('00'), '000011112222333')", "try_aes_decrypt(unhex('00'), '000011112222333')",
    "aes_encrypt(NULL, '0000111122223333')", "aes_decrypt('x', NULL)", "typeof(aes_encrypt('a', 'b'))",
    "aes_encrypt(1, '0000111122223333')", "aes_encrypt('a')",
])
sql_case("aes/roundtrip_random_iv",
         "SELECT m, cast(aes_decrypt(aes_encrypt(s, k, m), k, m) AS STRING) = s ok, "
         "length(aes_encrypt(s, k, m)) n FROM VALUES ('GCM', '0000111122223333', 'Spark SQL'), "
         "('CBC', 'abcdefghijklmnopqrstuvwx', 'Apache Spark'), ('ECB', 'abcdefghijklmnopqrstuvwxyz012345', ''), "
         "('GCM', 'abcdefghijklmnopqrstuvwxyz012345', NULL) t(m, k, s)")


@case
def aes_dataframe(s):
    F = s.F
    df = s.spark.createDataFrame([("Spark", "0000111122223333")], "v string, k string")
    enc = F.aes_encrypt("v", "k", F.lit("GCM"), F.lit("DEFAULT"), F.unhex(F.lit("000000000000000000000000")))
    return df.select(F.hex(enc).alias("e"),
                     F.aes_decrypt(enc, "k").cast("string").alias("d"),
                     F.try_aes_decrypt(F.lit("xx").cast("binary"), "k").alias("t"))
