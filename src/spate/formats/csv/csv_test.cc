// Copyright spate authors.
// The CSV tokenizer, converter and schema inference, and CsvDataSource over the in-memory
// file system: quotes, escapes, multiLine, CRLF, BOM, blank/comment lines, ragged rows,
// huge fields, parse modes, header handling, partitions, splits, malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "spate/formats/csv/parser.h"
#include "spate/formats/csv_source.h"
#include "spate/formats/json_source.h"
#include "spate/testing/status_matchers.h"

namespace spate::formats::csv {
namespace {

CsvOptions Opts(std::map<std::string, std::string> m = {}) {
  auto o = CsvOptions::FromMap(m);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  return *o;
}

// Tokens rendered as  a|b|<null>  one record per line; quoted fields as [x].
std::string Tokens(std::string_view text, const CsvOptions& o) {
  CsvTokenizer tok(o);
  CsvRecords recs;
  size_t pos = tok.Tokenize(text, 0, 1 << 20, &recs);
  EXPECT_EQ(pos, text.size());
  std::string out;
  for (size_t r = 0; r < recs.size(); ++r) {
    for (int64_t i = recs.field_begin[r]; i < recs.field_begin[r + 1]; ++i) {
      const CsvField& f = recs.fields[static_cast<size_t>(i)];
      if (i > recs.field_begin[r]) out += "|";
      if (f.flags & CsvField::kSkip) {
        out += "<skip>";
      } else if (f.flags & CsvField::kQuoted) {
        out += "[" + std::string(recs.value(text, f)) + "]";
      } else {
        out += std::string(recs.value(text, f));
      }
    }
    if (recs.error[r]) out += " !" + std::to_string(recs.error[r]);
    out += "\n";
  }
  return out;
}

TEST(CsvTokenizerTest, BasicQuotesAndLineEnds) {
  auto o = Opts();
  EXPECT_EQ(Tokens("a,b,c\n1,2,3\n", o), "a|b|c\n1|2|3\n");
  EXPECT_EQ(Tokens("a,b\r\n1,2\r\n", o), "a|b\n1|2\n");
  EXPECT_EQ(Tokens("a,b\r1,2", o), "a|b\n1|2\n");  // lone CR ends a line
  EXPECT_EQ(Tokens("a,,c,\n", o), "a||c|\n");
  EXPECT_EQ(Tokens("\"x,y\",\"\",z\n", o), "[x,y]|[]|z\n");
  EXPECT_EQ(Tokens("\"a\"\"b\",\"c\\\"d\"\n", o), "[a\"b]|[c\"d]\n");
  // Blank and whitespace-only lines hold no record.
  EXPECT_EQ(Tokens("\n\n  \na\n\r\n", o), "a\n");
  // Without multiLine a quoted newline ends the record.
  EXPECT_EQ(Tokens("\"a\nb\",c\n", o), "[a]\nb\"|c\n");
  EXPECT_EQ(Tokens("\"a\nb\",c\n", Opts({{"multiLine", "true"}})), "[a\nb]|c\n");
  EXPECT_EQ(Tokens("\"a\r\nb\",c\r\nd,e", Opts({{"multiLine", "true"}})),
            "[a\r\nb]|c\nd|e\n");
  // A quote inside an unquoted value is content.
  EXPECT_EQ(Tokens("a\"b,c\n", o), "a\"b|c\n");
  // Whitespace between a closing quote and the delimiter is dropped.
  EXPECT_EQ(Tokens("\"a\"  ,b\n", o), "[a]|b\n");
  // An unterminated quote ends with the input.
  EXPECT_EQ(Tokens("\"abc", o), "[abc]\n");
}

TEST(CsvTokenizerTest, Options) {
  EXPECT_EQ(Tokens("a;b\n", Opts({{"sep", ";"}})), "a|b\n");
  EXPECT_EQ(Tokens("a\tb\n", Opts({{"sep", "\\t"}})), "a|b\n");
  EXPECT_EQ(Tokens("a||b||c\n", Opts({{"sep", "||"}})), "a|b|c\n");
  EXPECT_EQ(Tokens("'a,b',c\n", Opts({{"quote", "'"}})), "[a,b]|c\n");
  EXPECT_EQ(Tokens("\"a,b\",c\n", Opts({{"quote", ""}})), "\"a|b\"|c\n");
  EXPECT_EQ(Tokens("\"a'\"b\"\n", Opts({{"escape", "'"}})), "[a\"b]\n");
  EXPECT_EQ(Tokens("#x,y\na,b\n#z\n", Opts({{"comment", "#"}})), "a|b\n");
  EXPECT_EQ(Tokens("#x,y\n", Opts()), "#x|y\n");
  EXPECT_EQ(Tokens("  a  ,  b  \n", Opts({{"ignoreLeadingWhiteSpace", "true"}})),
            "a  |b  \n");
  EXPECT_EQ(Tokens("  a  ,  b  \n", Opts({{"ignoreTrailingWhiteSpace", "true"}})),
            "  a|  b\n");
  EXPECT_EQ(Tokens("a,b|c,d|", Opts({{"lineSep", "|"}})), "a|b\nc|d\n");
  // charToEscapeQuoteEscaping (default: the escape): "a\\" ends with a backslash.
  EXPECT_EQ(Tokens("\"a\\\\\",b\n", Opts()), "[a\\]|b\n");
  EXPECT_EQ(Tokens("\"C:\\\\dir\"\n", Opts()), "[C:\\\\dir]\n");
}

TEST(CsvTokenizerTest, UnescapedQuoteHandling) {
  const char* text = "\"a\"b,c\n";
  EXPECT_EQ(Tokens(text, Opts()), "[a\"b]|c\n");
  EXPECT_EQ(Tokens(text, Opts({{"unescapedQuoteHandling", "BACK_TO_DELIMITER"}})),
            "\"a\"b|c\n");
  EXPECT_EQ(Tokens("\"a\"b,c\",d\n",
                   Opts({{"unescapedQuoteHandling", "STOP_AT_CLOSING_QUOTE"}})),
            "[a\"b,c]|d\n");
  EXPECT_EQ(Tokens(text, Opts({{"unescapedQuoteHandling", "SKIP_VALUE"}})), "<skip>|c\n");
  EXPECT_EQ(Tokens(text, Opts({{"unescapedQuoteHandling", "RAISE_ERROR"}})),
            "<skip>|c !1\n");
  EXPECT_ERROR_HAS(
      CsvOptions::FromMap({{"unescapedQuoteHandling", "nope"}}),
      "No enum constant com.univocity.parsers.csv.UnescapedQuoteHandling.NOPE");
}

TEST(CsvTokenizerTest, LimitsAndHugeFields) {
  std::string big(1 << 20, 'x');
  EXPECT_EQ(Tokens(big + ",\"" + big + "\"\n", Opts()), big + "|[" + big + "]\n");
  EXPECT_EQ(Tokens("abcdef,g\n", Opts({{"maxCharsPerColumn", "3"}})), "abcdef|g !3\n");
  EXPECT_EQ(Tokens("a,b,c\n", Opts({{"maxColumns", "2"}})), "a|b !2\n");
}

TEST(CsvOptionsTest, Errors) {
  EXPECT_ERROR_CLASS(CsvOptions::FromMap({{"quote", "ab"}}),
                     "OPTION_VALUE_EXCEEDS_ONE_CHARACTER");
  EXPECT_ERROR_CLASS(CsvOptions::FromMap({{"header", "yes"}}), "_LEGACY_ERROR_TEMP_2147");
  EXPECT_ERROR_HAS(CsvOptions::FromMap({{"sep", ""}}), "Delimiter cannot be empty");
  EXPECT_ERROR_HAS(CsvOptions::FromMap({{"sep", "\\"}}),
                   "Single backslash is prohibited");
  EXPECT_ERROR_HAS(CsvOptions::FromMap({{"encoding", "UTF-16"}}),
                   "The CSV encoding 'UTF-16' is not supported");
  EXPECT_TRUE(CsvOptions::FromMap({{"encoding", "utf-8"}}).ok());
  EXPECT_ERROR_CLASS(CsvOptions::FromMap({{"maxColumns", "x"}}),
                     "_LEGACY_ERROR_TEMP_2146");
  EXPECT_ERROR_HAS(CsvOptions::FromMap({{"lineSep", "abc"}}),
                   "'lineSep' can contain only 1 character");
}

TEST(CsvParseTest, JavaNumbers) {
  int64_t v;
  EXPECT_TRUE(ParseJavaLong("+12", INT32_MIN, INT32_MAX, &v));
  EXPECT_EQ(v, 12);
  EXPECT_TRUE(ParseJavaLong("-2147483648", INT32_MIN, INT32_MAX, &v));
  EXPECT_FALSE(ParseJavaLong("2147483648", INT32_MIN, INT32_MAX, &v));
  EXPECT_TRUE(ParseJavaLong("-9223372036854775808", INT64_MIN, INT64_MAX, &v));
  EXPECT_FALSE(ParseJavaLong("9223372036854775808", INT64_MIN, INT64_MAX, &v));
  EXPECT_FALSE(ParseJavaLong(" 1", INT32_MIN, INT32_MAX, &v));
  EXPECT_FALSE(ParseJavaLong("", INT32_MIN, INT32_MAX, &v));
  EXPECT_FALSE(ParseJavaLong("-", INT32_MIN, INT32_MAX, &v));
  double d;
  EXPECT_TRUE(ParseJavaDouble(" 1.5 ", &d));
  EXPECT_EQ(d, 1.5);
  EXPECT_TRUE(ParseJavaDouble("1e3d", &d));
  EXPECT_EQ(d, 1000);
  EXPECT_TRUE(ParseJavaDouble(".5", &d));
  EXPECT_TRUE(ParseJavaDouble("-Infinity", &d));
  EXPECT_TRUE(std::isinf(d) && d < 0);
  EXPECT_TRUE(ParseJavaDouble("1e999", &d));
  EXPECT_TRUE(std::isinf(d));
  EXPECT_FALSE(ParseJavaDouble("inf", &d));
  EXPECT_FALSE(ParseJavaDouble("1,5", &d));
  EXPECT_FALSE(ParseJavaDouble("e5", &d));
  EXPECT_FALSE(ParseJavaDouble("1e", &d));
}

std::vector<Field> Infer(std::string_view text,
                         std::map<std::string, std::string> m = {}) {
  m["inferSchema"] = "true";
  auto o = Opts(m);
  CsvTokenizer tok(o);
  CsvRecords recs;
  tok.Tokenize(text, 0, 1 << 20, &recs);
  auto inf = CsvSchemaInferrer::Make(o);
  EXPECT_TRUE(inf.ok());
  (*inf)->Add(text, recs);
  std::vector<std::string> names;
  for (int64_t i = 0; i < recs.num_fields(0); ++i)
    names.push_back("_c" + std::to_string(i));
  return (*inf)->Finish(names);
}

std::string Types(const std::vector<Field>& f) {
  std::string s;
  for (const auto& x : f) s += (s.empty() ? "" : ",") + x.type->SimpleString();
  return s;
}

TEST(CsvParseTest, Utf8Replacement) {
  std::string scratch;
  EXPECT_EQ(SanitizeUtf8("plain ascii text", &scratch), "plain ascii text");
  EXPECT_EQ(SanitizeUtf8("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", &scratch),
            "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(SanitizeUtf8("a\xff"
                         "b",
                         &scratch),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(SanitizeUtf8("\xe2\x82", &scratch), "\xef\xbf\xbd");              // truncated
  EXPECT_EQ(SanitizeUtf8("\xc0\xaf", &scratch), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong
  EXPECT_EQ(SanitizeUtf8("\xed\xa0\x80x", &scratch),
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx");  // surrogate
}

TEST(CsvInferTest, SparkOrder) {
  EXPECT_EQ(Types(Infer("1,1,1.5,true,x,,2020-01-01,2020-01-01 10:00:00\n"
                        "2,3000000000,2,false,1,,2020-02-01,2020-01-01T10:00:00Z\n")),
            "int,bigint,double,boolean,string,string,date,timestamp");
  // Integers past bigint are decimal(p,0); past 38 digits double.
  EXPECT_EQ(Types(Infer("12345678901234567890\n1\n")), "decimal(20,0)");
  EXPECT_EQ(Types(Infer("123456789012345678901234567890123456789\n")), "double");
  EXPECT_EQ(Types(Infer("1e3\n")), "double");
  EXPECT_EQ(Types(Infer("1.5\n12345678901234567890\n")), "double");
  EXPECT_EQ(Types(Infer("NaN\nInf\n-Inf\n")), "double");
  // Dates and timestamps mixed give string; preferDate=false infers timestamps.
  EXPECT_EQ(Types(Infer("2020-01-01\n2020-01-01 10:00:00\n")), "string");
  EXPECT_EQ(Types(Infer("2020-01-01\n", {{"preferDate", "false"}})), "timestamp");
  EXPECT_EQ(Types(Infer("01/02/2020\n", {{"dateFormat", "MM/dd/yyyy"}})), "date");
  EXPECT_EQ(Types(Infer("true\n1\n")), "string");
  EXPECT_EQ(Types(Infer("1\ntrue\n")), "string");
  // nullValue fields do not count.
  EXPECT_EQ(Types(Infer("NA\n5\n", {{"nullValue", "NA"}})), "int");
  // " 1" is a Java double (parseDouble trims), not an int.
  EXPECT_EQ(Types(Infer("\" 1\"\n")), "double");
}

TEST(CsvInferTest, SafeHeader) {
  auto o = Opts();
  EXPECT_EQ(MakeSafeHeader({"a", "", "A", "b", "a"}, true, o),
            (std::vector<std::string>{"a0", "_c1", "A2", "b", "a4"}));
  EXPECT_EQ(MakeSafeHeader({"a", "A"}, true, o, /*case_sensitive=*/true),
            (std::vector<std::string>{"a", "A"}));
  EXPECT_EQ(MakeSafeHeader({"x", "y"}, false, o),
            (std::vector<std::string>{"_c0", "_c1"}));
}

// ---- CsvDataSource over the in-memory file system
// ---------------------------------------

class CsvSourceTest : public ::testing::Test {
 protected:
  std::shared_ptr<io::MemoryFileSystem> fs_ = std::make_shared<io::MemoryFileSystem>();
  void Write(const std::string& path, const std::string& text) {
    ASSERT_TRUE(fs_->MakeDirs(io::ParentPath(path)).ok());
    ASSERT_TRUE(fs_->WriteAtomic(path, text).ok());
  }
  Result<std::shared_ptr<CsvDataSource>> Source(const std::string& path,
                                                const std::string& ddl,
                                                std::map<std::string, std::string> opts,
                                                int64_t split_bytes = 1 << 20) {
    SchemaPtr schema;
    if (!ddl.empty()) {
      std::vector<Field> fields;
      // "name:type,..." with a few types (tests only).
      size_t pos = 0;
      while (pos < ddl.size()) {
        size_t comma = ddl.find(',', pos);
        std::string item =
            ddl.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        size_t colon = item.find(':');
        std::string n = item.substr(0, colon), t = item.substr(colon + 1);
        DataTypePtr type = t == "int"         ? DataType::Int()
                           : t == "bigint"    ? DataType::Long()
                           : t == "double"    ? DataType::Double()
                           : t == "boolean"   ? DataType::Boolean()
                           : t == "date"      ? DataType::Date()
                           : t == "timestamp" ? DataType::Timestamp()
                           : t == "decimal"   ? DataType::Decimal(10, 2)
                           : t == "array"     ? DataType::Array(DataType::Int())
                                              : DataType::String();
        fields.push_back(Field{n, type, true});
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
      schema = std::make_shared<const Schema>(fields);
    }
    // Spark's partitions as on two cores (inference depends on them, as Spark's does).
    return CsvDataSource::Make(fs_, {path}, schema, opts, "UTC", "_corrupt_record",
                               split_bytes, FilePacking{128ll << 20, 4ll << 20, 2});
  }
  // All rows of all splits, one line per row: v1|v2|...
  Result<std::string> ReadAll(const CsvDataSource& src) {
    ScanSpec spec;
    for (int i = 0; i < src.schema()->num_fields(); ++i) spec.columns.push_back(i);
    std::string out;
    for (int s = 0; s < src.num_splits(); ++s) {
      SPATE_ASSIGN_OR_RETURN(auto reader, src.OpenSplit(s, spec));
      while (true) {
        SPATE_ASSIGN_OR_RETURN(auto batch, reader->Next());
        if (!batch) break;
        for (int64_t r = 0; r < batch->num_rows(); ++r) {
          for (int c = 0; c < batch->num_columns(); ++c) {
            if (c) out += "|";
            Value v = batch->column(c)->GetValue(r);
            out += v.is_null() ? "null" : v.ToString();
          }
          out += "\n";
        }
      }
    }
    return out;
  }
  std::string Names(const CsvDataSource& src) {
    std::string s;
    for (const auto& f : src.schema()->fields())
      s += (s.empty() ? "" : ",") + f.name + ":" + f.type->SimpleString();
    return s;
  }
};

TEST_F(CsvSourceTest, HeaderInferAndBom) {
  Write("/d/a.csv", "\xEF\xBB\xBFid,name,score\r\n1,ann,1.5\r\n2,\"bob, jr\",\r\n");
  auto src = Source("/d/a.csv", "", {{"header", "true"}, {"inferSchema", "true"}});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ(Names(**src), "id:int,name:string,score:double");
  EXPECT_EQ(*ReadAll(**src), "1|ann|1.5\n2|bob, jr|null\n");
  auto plain = Source("/d/a.csv", "", {{"header", "true"}});
  EXPECT_EQ(Names(**plain), "id:string,name:string,score:string");
  auto nohdr = Source("/d/a.csv", "", {});
  EXPECT_EQ(Names(**nohdr), "_c0:string,_c1:string,_c2:string");
  EXPECT_EQ(*ReadAll(**nohdr), "id|name|score\n1|ann|1.5\n2|bob, jr|null\n");
}

TEST_F(CsvSourceTest, NullAndEmptyValues) {
  Write("/n.csv", "a,\"\",NA,\n");
  EXPECT_EQ(*ReadAll(**Source("/n.csv", "", {})), "a|null|NA|null\n");
  EXPECT_EQ(*ReadAll(**Source("/n.csv", "", {{"nullValue", "NA"}})), "a||null|null\n");
  EXPECT_EQ(*ReadAll(**Source("/n.csv", "", {{"nullValue", "NA"}, {"emptyValue", "E"}})),
            "a|E|null|null\n");
  Write("/f.csv", "NaN,Inf,-Inf,nan\nx,y,z,1\n");
  EXPECT_EQ(*ReadAll(**Source("/f.csv", "a:double,b:double,c:double,d:double", {})),
            "NaN|Infinity|-Infinity|null\nnull|null|null|1.0\n");
  EXPECT_EQ(*ReadAll(**Source("/f.csv", "a:double,b:double,c:double,d:double",
                              {{"nanValue", "nan"}, {"positiveInf", "y"}})),
            "NaN|null|-Infinity|NaN\nnull|Infinity|null|1.0\n");  // Java parses "NaN"
}

TEST_F(CsvSourceTest, ParseModes) {
  Write("/m.csv", "1,a\nx,b\n3\n4,d,extra\n5,e\n");
  const std::string ddl = "i:int,s:string";
  EXPECT_EQ(*ReadAll(**Source("/m.csv", ddl, {})), "1|a\nnull|b\n3|null\n4|d\n5|e\n");
  EXPECT_EQ(*ReadAll(**Source("/m.csv", ddl + ",_corrupt_record:string", {})),
            "1|a|null\nnull|b|x,b\n3|null|3\n4|d|4,d,extra\n5|e|null\n");
  EXPECT_EQ(*ReadAll(**Source("/m.csv", ddl, {{"mode", "DROPMALFORMED"}})), "1|a\n5|e\n");
  auto ff = ReadAll(**Source("/m.csv", ddl, {{"mode", "FAILFAST"}}));
  ASSERT_ERROR_CLASS(ff, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
  EXPECT_ERROR_HAS(ff, "file:/m.csv");
  // The partially converted row, as Spark's InternalRow prints it.
  EXPECT_ERROR_HAS(ff, "record parsing: [null,b]");
  auto ff2 = ReadAll(**Source("/m.csv", "s:string,i:int,_corrupt_record:string",
                              {{"mode", "FAILFAST"}}));
  EXPECT_NE(ff2.status().ToString().find("[1,null,1,a]"), std::string::npos)
      << ff2.status().ToString();
  EXPECT_NE(ff.status().ToString().find("/m.csv"), std::string::npos);
  // A custom corrupt-record column name.
  EXPECT_EQ(
      *ReadAll(**Source("/m.csv", ddl + ",bad:string",
                        {{"columnNameOfCorruptRecord", "bad"}, {"mode", "permissive"}})),
      "1|a|null\nnull|b|x,b\n3|null|3\n4|d|4,d,extra\n5|e|null\n");
  auto wrong = Source("/m.csv", "i:int,_corrupt_record:int", {});
  EXPECT_EQ(wrong.status().error_class(), "INVALID_CORRUPT_RECORD_TYPE");
  auto nested = Source("/m.csv", "i:int,a:array", {});
  EXPECT_EQ(nested.status().error_class(), "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE");
}

TEST_F(CsvSourceTest, TypedColumnsAndFormats) {
  Write("/t.csv",
        "1.239,2020-01-02,2020-01-02 03:04:05,TRUE\n"
        "x,2020-13-01,nope,maybe\n");
  EXPECT_EQ(*ReadAll(**Source("/t.csv", "d:decimal,dt:date,ts:timestamp,b:boolean", {})),
            "1.24|2020-01-02|2020-01-02 03:04:05|true\nnull|null|null|null\n");
  Write("/u.csv", "02/01/2020,2020/01/02 03:04\n");
  EXPECT_EQ(*ReadAll(**Source(
                "/u.csv", "dt:date,ts:timestamp",
                {{"dateFormat", "dd/MM/yyyy"}, {"timestampFormat", "yyyy/MM/dd HH:mm"}})),
            "2020-01-02|2020-01-02 03:04:00\n");
}

TEST_F(CsvSourceTest, IntervalColumns) {
  Write("/iv.csv",
        "INTERVAL '1-2' YEAR TO MONTH,INTERVAL '3 04:05:06' DAY TO SECOND\nx,y\n");
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"ym", DataType::YearMonthInterval(IntervalField::kYear, IntervalField::kMonth),
       true},
      {"dt", DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kSecond),
       true}});
  auto src = CsvDataSource::Make(fs_, {"/iv.csv"}, schema, {});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ(
      *ReadAll(**src),
      "INTERVAL '1-2' YEAR TO MONTH|INTERVAL '3 04:05:06' DAY TO SECOND\nnull|null\n");
}

TEST_F(CsvSourceTest, TimestampNtzRejectsZones) {
  Write("/ntz.csv",
        "2024-01-02 03:04:05\n2024-01-02T03:04:05.5\n2024-01-02T03:04:05Z\n"
        "2024-01-02 03:04:05+01:00\n2024-01-02\n");
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"t", DataType::TimestampNtz(), true}});
  auto src = CsvDataSource::Make(fs_, {"/ntz.csv"}, schema, {});
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(
      *ReadAll(**src),
      "2024-01-02 03:04:05\n2024-01-02 03:04:05.5\nnull\nnull\n2024-01-02 00:00:00\n");
}

TEST_F(CsvSourceTest, EnforceSchemaFalseChecksHeaders) {
  Write("/h/a.csv", "a,b\n1,2\n");
  Write("/h/b.csv", "a,c\n3,4\n");
  auto ok =
      Source("/h/a.csv", "A:int,b:int", {{"header", "true"}, {"enforceSchema", "false"}});
  EXPECT_EQ(*ReadAll(**ok), "1|2\n");
  auto bad =
      Source("/h", "a:int,b:int", {{"header", "true"}, {"enforceSchema", "false"}});
  auto r = ReadAll(**bad);
  ASSERT_ERROR_CLASS(r, "_LEGACY_ERROR_TEMP_3241");
  EXPECT_ERROR_HAS(r, "file:/h/b.csv: CSV header does not conform to the schema");
  // enforceSchema=true (default): positional.
  EXPECT_EQ(*ReadAll(**Source("/h", "a:int,b:int", {{"header", "true"}})), "1|2\n3|4\n");
}

TEST_F(CsvSourceTest, PartitionsSplitsAndFileOptions) {
  std::string big;
  for (int i = 0; i < 1000; ++i)
    big += std::to_string(i) + ",\"v" + std::to_string(i) + "\"\n";
  Write("/p/k=1/a.csv", big);
  Write("/p/k=2/b.csv", "x,y\n");
  Write("/p/k=2/skip.txt", "no,no\n");
  auto src = Source("/p", "", {{"pathGlobFilter", "*.csv"}}, /*split_bytes=*/1000);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ(Names(**src), "_c0:string,_c1:string,k:int");
  EXPECT_GT((*src)->num_splits(), 5);
  std::string all = *ReadAll(**src);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1001);
  EXPECT_NE(all.find("999|v999|1\n"), std::string::npos);
  EXPECT_NE(all.find("x|y|2\n"), std::string::npos);
  auto rec =
      Source("/p", "", {{"recursiveFileLookup", "true"}, {"pathGlobFilter", "b*"}});
  EXPECT_EQ(Names(**rec), "_c0:string,_c1:string");
  EXPECT_EQ(*ReadAll(**rec), "x|y\n");
  auto none = Source("/p", "", {{"modifiedAfter", "2999-01-01T00:00:00"}});
  EXPECT_EQ(none.status().error_class(), "UNABLE_TO_INFER_SCHEMA");
  auto all_files = Source(
      "/p", "", {{"modifiedBefore", "2999-01-01T00:00:00"}, {"pathGlobFilter", "*.csv"}});
  EXPECT_EQ((*all_files)->num_splits(), 2);
  EXPECT_ERROR_CLASS(Source("/p", "", {{"modifiedBefore", "yesterday"}}),
                     "_LEGACY_ERROR_TEMP_1294");
  EXPECT_EQ(Source("/nope", "", {}).status().error_class(), "PATH_NOT_FOUND");
}

TEST_F(CsvSourceTest, EveryLineOnceForAnySplitSize) {
  std::string text = "h1,h2\r\n";
  std::string expected;
  for (int i = 0; i < 60; ++i) {
    std::string v(static_cast<size_t>(i % 7), 'x');
    text += std::to_string(i) + "," + v + (i % 5 == 0 ? "\r\n" : "\n");
    if (i % 9 == 0) text += "\n";  // blank lines
    expected += std::to_string(i) + "|" + (v.empty() ? "null" : v) + "\n";
  }
  text += "60,last";  // no final line end
  expected += "60|last\n";
  Write("/split.csv", text);
  for (int64_t bytes : {1, 2, 3, 5, 8, 13, 64, 100, 1000}) {
    auto src = Source("/split.csv", "", {{"header", "true"}}, bytes);
    ASSERT_TRUE(src.ok());
    EXPECT_EQ(*ReadAll(**src), expected) << bytes;
    auto semi = Source("/split.csv", "a:int,b:string",
                       {{"header", "true"}, {"mode", "FAILFAST"}}, bytes);
    ASSERT_TRUE(ReadAll(**semi).ok()) << bytes;
  }
}

// Files larger than the reader's 4 MiB window: every row once, across windows and splits.
TEST_F(CsvSourceTest, LargeFileWindows) {
  std::string text;
  int64_t n = 0, sum = 0;
  while (text.size() < (9u << 20)) {
    text += std::to_string(n) + ",\"some, quoted text\"\n";
    sum += n++;
  }
  Write("/big.csv", text);
  for (int64_t split : {int64_t{3} << 20, int64_t{64} << 20}) {
    auto src = Source("/big.csv", "a:bigint,b:string", {{"mode", "FAILFAST"}}, split);
    ASSERT_TRUE(src.ok());
    ScanSpec spec{{0}, {}};
    int64_t rows = 0, got = 0;
    for (int s = 0; s < (*src)->num_splits(); ++s) {
      auto reader = std::move((*src)->OpenSplit(s, spec)).value();
      while (auto b = std::move(reader->Next()).value()) {
        for (int64_t r = 0; r < b->num_rows(); ++r)
          got += b->column(0)->raw_values<int64_t>()[r];
        rows += b->num_rows();
      }
    }
    EXPECT_EQ(rows, n) << split;
    EXPECT_EQ(got, sum) << split;
  }
  // Inference streams the file window by window too; a late value widens the type.
  Write("/big2.csv", text + "x,y\n");
  EXPECT_EQ(Names(**Source("/big.csv", "", {{"inferSchema", "true"}})),
            "_c0:int,_c1:string");
  EXPECT_EQ(Names(**Source("/big2.csv", "", {{"inferSchema", "true"}})),
            "_c0:string,_c1:string");
}

TEST_F(CsvSourceTest, MultiLineAndLineSep) {
  Write("/ml.csv", "id,text\n1,\"line one\nline two\"\n2,plain\n");
  auto src = Source("/ml.csv", "", {{"header", "true"}, {"multiLine", "true"}});
  EXPECT_EQ(*ReadAll(**src), "1|line one\nline two\n2|plain\n");
  Write("/ls.csv", "a,b;c,d;");
  EXPECT_EQ(*ReadAll(**Source("/ls.csv", "", {{"lineSep", ";"}})), "a|b\nc|d\n");
}

TEST_F(CsvSourceTest, HeaderEdgeCasesAndSampling) {
  // Lines equal to the header are left out of inference (Spark's filterHeaderLine).
  Write("/hh/a.csv", "n\n1\nn\n2\n");
  EXPECT_EQ(
      Names(**Source("/hh/a.csv", "", {{"header", "true"}, {"inferSchema", "true"}})),
      "n:int");
  // Duplicate / empty header names (makeSafeHeader); an empty first file is skipped.
  Write("/e/a.csv", "");
  Write("/e/b.csv", "x,X,,y\n1,2,3,4\n");
  auto src = Source("/e", "", {{"header", "true"}, {"inferSchema", "true"}});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ(Names(**src), "x0:int,X1:int,_c2:int,y:int");
  EXPECT_EQ(*ReadAll(**src), "1|2|3|4\n");
  // enforceSchema=false checks a file's header against the safe names, so b.csv's own
  // "x,X,,y" fails (as in Spark 4.2: the schema says x0, X1, _c2).
  auto safe = Source("/e", "", {{"header", "true"}, {"enforceSchema", "false"}});
  ASSERT_TRUE(safe.ok());
  EXPECT_ERROR_HAS(ReadAll(**safe),
                   "file:/e/b.csv: CSV header does not conform to the schema");
  // enforceSchema=false with an inferred schema checks every file's header, not only the
  // one the schema came from.
  Write("/e2/b.csv", "x,y\n1,2\n");
  Write("/e2/c.csv", "x,z\n5,6\n");
  auto bad = Source("/e2", "", {{"header", "true"}, {"enforceSchema", "false"}});
  ASSERT_TRUE(bad.ok());
  auto r = ReadAll(**bad);
  EXPECT_ERROR_CLASS(r, "_LEGACY_ERROR_TEMP_3241");
  EXPECT_ERROR_HAS(r, "file:/e2/c.csv: CSV header does not conform to the schema");
  EXPECT_ERROR_HAS(r, "Expected: y but found: z");
  // samplingRatio: a sample still sees the column count; types from sampled rows only.
  std::string many;
  for (int i = 0; i < 2000; ++i) many += std::to_string(i) + "\n";
  Write("/s.csv", many);
  auto sampled =
      Source("/s.csv", "", {{"inferSchema", "true"}, {"samplingRatio", "0.1"}});
  EXPECT_EQ(Names(**sampled), "_c0:int");
  EXPECT_ERROR_HAS(Source("/s.csv", "", {{"samplingRatio", "0"}}),
                   "samplingRatio (0) should be greater than 0");
  // An empty file without a schema: no columns, no rows (Spark infers an empty schema).
  Write("/empty.csv", "");
  auto empty = Source("/empty.csv", "", {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->schema()->num_fields(), 0);
}

// Files are packed into Spark's partitions (the largest first), the records of a
// partition folded in order, partitions merged (tests/differential
// readers/csv_infer_across_files*).
TEST_F(CsvSourceTest, InferenceMergesFiles) {
  // (A header longer than a short string: the header-line filter compares real text.)
  Write("/mf/a.csv", "k,x,y,z_with_a_long_name\n1,1,1,2020-01-01\n");
  Write("/mf/b.csv", "k,x,y,z_with_a_long_name\n2,2.5,true,2020-01-01 10:00:00\n");
  Write("/mf/c.csv", "k,x,y,z_with_a_long_name\n3,,,\n");
  auto src = Source("/mf", "", {{"header", "true"}, {"inferSchema", "true"}});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  // b.csv (largest) and a.csv are one partition: TIMESTAMP then a date stays TIMESTAMP.
  EXPECT_EQ(Names(**src), "k:int,x:double,y:string,z_with_a_long_name:timestamp");
  auto bad = Source("/mf", "", {{"inferSchema", "true"}, {"maxColumns", "2"}});
  ASSERT_ERROR_HAS(bad,
                   "Number of columns processed may have exceeded limit of 2 columns");
  EXPECT_NE(bad.status().ToString().find("/mf/b.csv"), std::string::npos)
      << bad.status().ToString();
}

TEST_F(CsvSourceTest, JsonAndTextShareFileOptions) {
  Write("/j/a.json", "{\"a\": 1}\n");
  Write("/j/b.txt", "{\"a\": 2}\n");
  using Fmt = LineFileDataSource::Format;
  auto all = LineFileDataSource::Make(fs_, Fmt::kJson, {"/j"}, nullptr,
                                      {{"modifiedBefore", "2999-12-31T00:00:00"}});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ((*all)->num_splits(), 2);
  auto none = LineFileDataSource::Make(fs_, Fmt::kText, {"/j"}, nullptr,
                                       {{"modifiedAfter", "2999-12-31T00:00:00"}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->num_splits(), 0);
  auto glob = LineFileDataSource::Make(fs_, Fmt::kJson, {"/j"}, nullptr,
                                       {{"pathGlobFilter", "*.json"}});
  EXPECT_EQ((*glob)->num_splits(), 1);
  EXPECT_FALSE(LineFileDataSource::Make(fs_, Fmt::kJson, {"/j"}, nullptr,
                                        {{"modifiedAfter", "not a time"}})
                   .ok());
  EXPECT_FALSE(
      LineFileDataSource::Make(fs_, Fmt::kJson, {"/j"}, nullptr, {{"multiLine", "maybe"}})
          .ok());
  EXPECT_FALSE(
      LineFileDataSource::Make(fs_, Fmt::kJson, {"/j"}, nullptr, {{"encoding", "UTF-16"}})
          .ok());
  EXPECT_FALSE(
      LineFileDataSource::Make(fs_, Fmt::kJson, {"/j"}, nullptr, {{"samplingRatio", "0"}})
          .ok());
}

// JSON inference: all-NULL fields become STRING, or are dropped with dropFieldIfAllNull;
// empty structs are dropped (SPARK-8093); samplingRatio samples records.
TEST_F(CsvSourceTest, JsonInferenceOptions) {
  using Fmt = LineFileDataSource::Format;
  Write("/ji/a.json",
        "{\"a\": 1, \"n\": null, \"e\": {}, \"arr\": [null]}\n{\"a\": 2}\n");
  auto plain = LineFileDataSource::Make(fs_, Fmt::kJson, {"/ji"}, nullptr, {});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  std::string names;
  for (const auto& f : (*plain)->schema()->fields())
    names += f.name + ":" + f.type->SimpleString() + ",";
  EXPECT_EQ(names, "a:bigint,arr:array<string>,n:string,");
  auto dropped = LineFileDataSource::Make(fs_, Fmt::kJson, {"/ji"}, nullptr,
                                          {{"dropFieldIfAllNull", "true"}});
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ((*dropped)->schema()->num_fields(), 1);
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "{\"x\": " + std::to_string(i) + "}\n";
  Write("/js/a.json", many);
  auto sampled = LineFileDataSource::Make(fs_, Fmt::kJson, {"/js"}, nullptr,
                                          {{"samplingRatio", "0.05"}});
  ASSERT_TRUE(sampled.ok());
  EXPECT_EQ((*sampled)->schema()->field(0).type->SimpleString(), "bigint");
}

// Malformed input in every mode: a result or an error, never a crash.
TEST_F(CsvSourceTest, MalformedInputEveryMode) {
  const std::vector<std::string> inputs = {
      "1,\"unterminated\n2,x\n",
      "1,2,3,4,5,6,7,8\n",
      "\xff\xfe,\xc3\x28\n1,\xe2\x82\n",  // bad UTF-8
      "99999999999999999999,1e400,-1e-400\n",
      std::string("\0,\0\n", 4),
      "\"\"\"\"\"\"\"\",\"\n",
      "a\"b\"c,\"d\"e\"f\n",
      std::string(100000, ','),
      std::string(50000, '"'),
      "\r\r\n\n\r,\r",
  };
  for (const char* mode : {"PERMISSIVE", "DROPMALFORMED", "FAILFAST"}) {
    for (const char* ml : {"false", "true"}) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        Write("/bad.csv", inputs[i]);
        auto typed = Source("/bad.csv", "a:int,b:double,c:date,_corrupt_record:string",
                            {{"mode", mode}, {"multiLine", ml}});
        ASSERT_TRUE(typed.ok()) << typed.status().ToString();
        auto r = ReadAll(**typed);
        if (!r.ok()) {
          EXPECT_NE(r.status().ToString().find("/bad.csv"), std::string::npos) << i;
        }
        auto inferred = Source("/bad.csv", "",
                               {{"mode", mode},
                                {"multiLine", ml},
                                {"inferSchema", "true"},
                                {"header", "true"}});
        if (inferred.ok()) (void)ReadAll(**inferred);
      }
    }
  }
}

}  // namespace
}  // namespace spate::formats::csv
