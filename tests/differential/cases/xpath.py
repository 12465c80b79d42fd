"""Spark's XPath functions (xpath, xpath_boolean, xpath_string, xpath_number / xpath_double,
xpath_float, xpath_long, xpath_int, xpath_short): XPath 1.0 over an XML string, the path a
constant. Node values (NULL for elements), string values, number conversions (Java's
narrowing for the integral types), booleans of node sets, NULL and empty inputs, attributes,
CDATA, comments, entities, functions of XPath 1.0, and the errors: a non-constant path,
a malformed document, an invalid path, a path that is no node set for xpath."""

from dsl import Differs, case, pins, sql_case

pins({
    # D5: Spark fails these with plain Java RuntimeExceptions without an error class; spate's
    # SPATE_XPATH_FAILED carries the same message.
    "errors/invalid_path": Differs("D5", "error", "904319b891"),
    "errors/malformed_xml": Differs("D5", "error", "904319b891"),
    "list/number_result_fails": Differs("D5", "error", "904319b891"),
})

DOC = ("'<a><b>b1</b><b>b2</b><b>b3</b><c>c1</c><c>c2</c>"
       "<n>1</n><n>2.5</n><n>-4</n><t x=\"7\" y=\"q\">text</t></a>'")

# ---- xpath: the node values of a node set ----
sql_case("list/text_nodes", f"SELECT xpath({DOC}, 'a/b/text()') r")
sql_case("list/elements_are_null", f"SELECT xpath({DOC}, 'a/b') r")
sql_case("list/attributes", f"SELECT xpath({DOC}, 'a/t/@*') r")
sql_case("list/no_match", f"SELECT xpath({DOC}, 'a/zzz') r")
sql_case("list/predicate", f"SELECT xpath({DOC}, 'a/b[2]/text()') r")
sql_case("list/union", f"SELECT xpath({DOC}, 'a/c/text() | a/b/text()') r")
sql_case("list/descendants", "SELECT xpath('<r><x>1<y>2</y></x><x>3</x></r>', '//text()') r")
sql_case("list/comment_and_cdata",
         "SELECT xpath('<r><!--note--><![CDATA[<raw>]]>tail</r>', 'r/node()') r")
sql_case("list/processing_instruction", "SELECT xpath('<r><?pi data?></r>', 'r/processing-instruction()') r")
sql_case("list/whitespace_nodes", "SELECT xpath('<r> <x>1</x>\n</r>', 'r/text()') r")
sql_case("list/entities", "SELECT xpath('<r>&lt;&amp;&#65;&#x42;</r>', 'r/text()') r")
sql_case("list/declared_entities",
         "SELECT xpath('<!DOCTYPE r [<!ENTITY e \"ent\">]><r>x&e;y</r>', 'r/text()') a, "
         "xpath_string('<!DOCTYPE r [<!ENTITY e \"ent\">]><r>x&e;y</r>', 'r') b")
sql_case("list/external_entity_not_read",
         "SELECT xpath_string('<!DOCTYPE r [<!ENTITY e SYSTEM \"file:///etc/hostname\">]><r>x&e;y</r>', 'r') a, "
         "xpath('<!DOCTYPE r [<!ENTITY e SYSTEM \"file:///etc/hostname\">]><r>x&e;y</r>', 'r/text()') b")
sql_case("list/namespaces_are_names",
         "SELECT xpath('<p:r xmlns:p=\"u\"><p:x>1</p:x></p:r>', '//text()') a, "
         "xpath_string('<r xmlns=\"u\"><x>1</x></r>', 'r/x') b, "
         "xpath_string('<r xmlns=\"u\" k=\"v\"/>', 'count(r/@*)') c, "
         "xpath_string('<r xmlns=\"u\" k=\"v\"/>', 'name(r/@*[1])') d")
sql_case("list/number_result_fails", f"SELECT xpath({DOC}, 'count(a/b)') r")
sql_case("list/schema", f"SELECT typeof(xpath({DOC}, 'a/b')) t")

# ---- xpath_string ----
sql_case("string/first_node", "SELECT xpath_string('<a><b>b</b><c>cc</c></a>', 'a/c') r")
sql_case("string/element_text", "SELECT xpath_string('<a><b>x<i>y</i>z</b></a>', 'a/b') r")
sql_case("string/first_of_many", f"SELECT xpath_string({DOC}, 'a/b') r")
sql_case("string/no_match", f"SELECT xpath_string({DOC}, 'a/zzz') r")
sql_case("string/attribute", f"SELECT xpath_string({DOC}, 'a/t/@y') r")
sql_case("string/numbers", f"SELECT xpath_string({DOC}, 'sum(a/n)') s, "
         f"xpath_string({DOC}, 'count(a/b)') c, xpath_string({DOC}, '1 div 0') inf, "
         f"xpath_string({DOC}, '0 div 0') nan, xpath_string({DOC}, '-1 div 0') ninf, "
         f"xpath_string({DOC}, '1 div 3') third, xpath_string({DOC}, '0.5 * 2') one")
sql_case("string/number_formats", "SELECT xpath_string('<a/>', '100000000000000000000 * 10') big, "
         "xpath_string('<a/>', '0.00001') small, xpath_string('<a/>', '123456789.125') frac, "
         "xpath_string('<a/>', '-0') negzero, xpath_string('<a/>', '0.1 + 0.2') sum, "
         "xpath_string('<a/>', '1 div 1024') pow")
sql_case("string/boolean", f"SELECT xpath_string({DOC}, 'count(a/b) = 3') r")
sql_case("string/functions", f"SELECT xpath_string({DOC}, 'concat(a/b[1], \"-\", a/c[2])') c, "
         f"xpath_string({DOC}, 'substring(a/t, 2, 2)') s, "
         f"xpath_string({DOC}, 'translate(a/t, \"t\", \"T\")') tr, "
         f"xpath_string({DOC}, 'normalize-space(\"  x   y \")') ns, "
         f"xpath_string({DOC}, 'name(a/*[last()])') nm")

# ---- xpath_boolean ----
sql_case("boolean/node_found", "SELECT xpath_boolean('<a><b>1</b></a>', 'a/b') r")
sql_case("boolean/comparisons", "SELECT xpath_boolean('<a><b>1</b></a>', 'a/b = 2') f, "
         "xpath_boolean('<a><b>1</b></a>', 'a/b = 1') t, "
         "xpath_boolean('<a><b>1</b></a>', 'a/c') none")
sql_case("boolean/of_string_and_number", f"SELECT xpath_boolean({DOC}, 'string(a/zzz)') e, "
         f"xpath_boolean({DOC}, '0') z, xpath_boolean({DOC}, '0 div 0') nan")

# ---- numbers ----
sql_case("number/sum", "SELECT xpath_number('<a><b>1</b><b>2</b></a>', 'sum(a/b)') n, "
         "xpath_double('<a><b>1</b><b>2</b></a>', 'sum(a/b)') d, "
         "xpath_float('<a><b>1</b><b>2</b></a>', 'sum(a/b)') f, "
         "xpath_long('<a><b>1</b><b>2</b></a>', 'sum(a/b)') l, "
         "xpath_int('<a><b>1</b><b>2</b></a>', 'sum(a/b)') i, "
         "xpath_short('<a><b>1</b><b>2</b></a>', 'sum(a/b)') s")
sql_case("number/first_node_value", f"SELECT xpath_double({DOC}, 'a/n') d, xpath_int({DOC}, 'a/n[2]') i")
sql_case("number/not_numeric", f"SELECT xpath_double({DOC}, 'a/b') d, xpath_float({DOC}, 'a/b') f, "
         f"xpath_long({DOC}, 'a/b') l, xpath_int({DOC}, 'a/b') i, xpath_short({DOC}, 'a/b') s")
sql_case("number/no_match", f"SELECT xpath_double({DOC}, 'a/zzz') d, xpath_int({DOC}, 'a/zzz') i")
sql_case("number/truncation", "SELECT xpath_int('<a>-2.7</a>', 'a') i, xpath_long('<a>2.7</a>', 'a') l, "
         "xpath_short('<a>-3.9</a>', 'a') s")
sql_case("number/narrowing", "SELECT xpath_int('<a>3000000000</a>', 'a') i_big, "
         "xpath_int('<a>-3000000000</a>', 'a') i_small, xpath_long('<a>1e30</a>', 'a') l_exp, "
         "xpath_long('<a>100000000000000000000</a>', 'a') l_big, "
         "xpath_short('<a>70000</a>', 'a') s_wrap, xpath_short('<a>3000000000</a>', 'a') s_sat, "
         "xpath_int('<a/>', '1 div 0') i_inf")
sql_case("number/whitespace_and_signs", "SELECT xpath_double('<a> 12 </a>', 'a') ws, "
         "xpath_double('<a>+1</a>', 'a') plus, xpath_double('<a>.5</a>', 'a') dot, "
         "xpath_double('<a>5.</a>', 'a') trail, xpath_double('<a>1e3</a>', 'a') exp, "
         "xpath_double('<a>-0</a>', 'a') negzero")
sql_case("number/float_rounding", "SELECT xpath_float('<a>0.1</a>', 'a') f, xpath_double('<a>0.1</a>', 'a') d")
sql_case("number/schema", "SELECT typeof(xpath_number('<a/>', 'a')) n, typeof(xpath_float('<a/>', 'a')) f, "
         "typeof(xpath_long('<a/>', 'a')) l, typeof(xpath_int('<a/>', 'a')) i, "
         "typeof(xpath_short('<a/>', 'a')) s, typeof(xpath_boolean('<a/>', 'a')) b, "
         "typeof(xpath_string('<a/>', 'a')) str")

# ---- NULL and empty inputs ----
sql_case("nulls/null_xml", "SELECT xpath(CAST(NULL AS STRING), 'a') l, xpath_string(NULL, 'a') s, "
         "xpath_int(NULL, 'a') i, xpath_boolean(NULL, 'a') b, xpath_double(NULL, 'a') d")
sql_case("nulls/null_path", "SELECT xpath('<a/>', CAST(NULL AS STRING)) l, xpath_string('<a/>', NULL) s, "
         "xpath_int('<a/>', NULL) i, xpath_boolean('<a/>', NULL) b")
sql_case("nulls/empty_xml", "SELECT xpath('', 'a') l, xpath_string('', 'a') s, xpath_int('', 'a') i, "
         "xpath_boolean('', 'a') b, xpath_double('', 'a') d")
sql_case("nulls/empty_path", "SELECT xpath('<a/>', '') l, xpath_string('<a/>', '') s, "
         "xpath_int('<a/>', '') i, xpath_boolean('<a/>', '') b")
sql_case("nulls/over_rows", "SELECT x, xpath_string(x, 'r/v') s, xpath_long(x, 'r/v') l, "
         "xpath(x, 'r/v/text()') l2 FROM VALUES ('<r><v>10</v></r>'), (NULL), (''), "
         "('<r><v>x</v><v>20</v></r>'), ('<r/>') AS t(x)")

# ---- errors ----
sql_case("errors/path_not_constant", "SELECT xpath_string(x, p) FROM VALUES ('<a>1</a>', 'a') AS t(x, p)")
sql_case("errors/path_not_string", "SELECT xpath_int('<a>1</a>', 1)")
sql_case("errors/xml_not_string", "SELECT xpath_int(1, 'a')")
sql_case("errors/wrong_arity", "SELECT xpath_int('<a>1</a>')")
sql_case("errors/malformed_xml", "SELECT xpath_string('<a><b></a>', 'a')")
sql_case("errors/invalid_path", "SELECT xpath_string('<a>1</a>', 'a[[')")
sql_case("errors/malformed_row_only_fails_when_read",
         "SELECT xpath_string(x, 'a') FROM VALUES ('<a>1</a>'), ('') AS t(x)")


@case
def api_functions(s):
    F = s.F
    df = s.spark.createDataFrame([("<a><b>1</b><b>2</b><c>x</c></a>",)], "x string")
    return df.select(F.xpath(df.x, F.lit("a/b/text()")).alias("l"),
                     F.xpath_string("x", F.lit("a/c")).alias("s"),
                     F.xpath_boolean("x", F.lit("a/c")).alias("b"),
                     F.xpath_number("x", F.lit("sum(a/b)")).alias("n"),
                     F.xpath_double("x", F.lit("sum(a/b)")).alias("d"),
                     F.xpath_float("x", F.lit("a/b[2]")).alias("f"),
                     F.xpath_long("x", F.lit("a/b[1]")).alias("lg"),
                     F.xpath_int("x", F.lit("count(a/*)")).alias("i"),
                     F.xpath_short("x", F.lit("a/b[2] * 10")).alias("sh"))


@case
def show_with_null_elements(s):
    return s.spark.sql("SELECT xpath('<a><b>1</b><b/></a>', 'a/b') l, "
                       "xpath('<a><b>1</b></a>', 'a/b/text()') t")
