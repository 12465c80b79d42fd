// Copyright spate authors.
#include "spate/base/redact.h"

#include <gtest/gtest.h>

#include <random>

namespace spate {
namespace {

TEST(Redact, SecretKeys) {
  EXPECT_TRUE(IsSecretKey("kafka.ssl.keystore.password"));
  EXPECT_TRUE(IsSecretKey("fs.s3a.secret.key"));
  EXPECT_TRUE(IsSecretKey("spark.hadoop.fs.s3a.access.key"));
  EXPECT_TRUE(IsSecretKey("AWS_SESSION_TOKEN"));
  EXPECT_TRUE(IsSecretKey("kafka.sasl.jaas.config"));
  EXPECT_TRUE(IsSecretKey("spark.ssl.keyPassword"));
  EXPECT_FALSE(IsSecretKey("kafka.bootstrap.servers"));
  EXPECT_FALSE(IsSecretKey("spark.sql.shuffle.partitions"));
  EXPECT_EQ(RedactValue("my.Password", "hunter2"), "*********(redacted)");
  EXPECT_EQ(RedactValue("subscribe", "topic"), "topic");
}

TEST(Redact, Text) {
  EXPECT_EQ(RedactText("login failed: password=hunter2, user=bob"),
            "login failed: password=*********(redacted), user=bob");
  EXPECT_EQ(RedactText("{\"fs.s3a.secret.key\":\"abc\\\"d\",\"x\":1}"),
            "{\"fs.s3a.secret.key\":\"*********(redacted)\",\"x\":1}");
  EXPECT_EQ(RedactText("token: abc def"), "token: *********(redacted) def");
  EXPECT_EQ(RedactText("kafka.sasl.jaas.config=org.PlainLoginModule required "
                       "username=\"u\" password=\"p\";\nnext line"),
            "kafka.sasl.jaas.config=*********(redacted)\nnext line");
  // Words without a value, and other keys, stay.
  EXPECT_EQ(RedactText("Wrong password for user x"), "Wrong password for user x");
  EXPECT_EQ(RedactText("mypasswordfield is fine; a=b"), "mypasswordfield is fine; a=b");
  EXPECT_EQ(RedactText("password="), "password=");
}

// Random text over an alphabet of key and separator pieces: redaction only ever replaces
// values by the marker, so text without a marker in the output is unchanged, and every
// secret value that follows `password=` is gone.
TEST(Redact, RandomTextOnlyReplacesValues) {
  const std::vector<std::string> pieces = {
      "password", "token", "jaas.config", "a",  "=",  ":",   "\"", "'",
      " ",        ",",     ";",           "\n", "\\", "x.y", "}"};
  std::mt19937 rng(16);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    int n = std::uniform_int_distribution<int>(0, 12)(rng);
    for (int j = 0; j < n; ++j) {
      text += pieces[std::uniform_int_distribution<size_t>(0, pieces.size() - 1)(rng)];
    }
    std::string out = RedactText(text);
    if (out.find(kRedactedText) == std::string::npos) {
      EXPECT_EQ(out, text);
    }
    EXPECT_EQ(out.find("password=a"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace spate
