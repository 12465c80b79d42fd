// Copyright spate authors.
#include "spate/sql/hints.h"

#include <gtest/gtest.h>

#include "spate/sql/lexer.h"
#include "spate/sql/parser.h"
#include "spate/testing/status_matchers.h"

namespace spate::sql {
namespace {

std::string Tree(std::string_view sql) {
  Result<Statement> r = ParseStatement(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  return r.ok() && r->plan ? r->plan->TreeString() : "";
}

TEST(HintsTest, NamesOfJoinStrategies) {
  EXPECT_EQ(JoinStrategyHintFromName("BroadcastJoin"), JoinStrategyHint::kBroadcast);
  EXPECT_EQ(JoinStrategyHintFromName("mapjoin"), JoinStrategyHint::kBroadcast);
  EXPECT_EQ(JoinStrategyHintFromName("MERGEJOIN"), JoinStrategyHint::kShuffleMerge);
  EXPECT_EQ(JoinStrategyHintFromName("shuffle_merge"), JoinStrategyHint::kShuffleMerge);
  EXPECT_EQ(JoinStrategyHintFromName("SHUFFLE_HASH"), JoinStrategyHint::kShuffleHash);
  EXPECT_EQ(JoinStrategyHintFromName("shuffle_replicate_nl"),
            JoinStrategyHint::kShuffleReplicateNL);
  EXPECT_EQ(JoinStrategyHintFromName("coalesce"), std::nullopt);
}

// Hint statements after SELECT become UnresolvedHint nodes over the FROM clause, the
// first written outermost; '/*+' elsewhere is a syntax error, as in Spark.
TEST(HintsTest, ParsesHintsAfterSelect) {
  auto tokens = Lexer::Tokenize("SELECT /*+ A(t) */ 2*/*c*/3");
  ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
  std::vector<std::string> texts;
  for (const auto& t : *tokens) texts.push_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"SELECT", "/*+", "A", "(", "t", ")", "*/",
                                             "2", "*", "3", ""}));
  EXPECT_EQ(Tree("SELECT /*+ BROADCAST(t), merge(u, 'v') */ * FROM t JOIN u"),
            "'Project [*]\n"
            "+- 'UnresolvedHint BROADCAST, [t]\n"
            "   +- 'UnresolvedHint merge, [u, 'v']\n"
            "      +- 'Join Inner\n"
            "         :- 'UnresolvedRelation [t], [], false\n"
            "         +- 'UnresolvedRelation [u], [], false");
  EXPECT_EQ(Tree("SELECT /*+ A */ /*+ B C(x) */ 1"),
            "'Project [1]\n"
            "+- 'UnresolvedHint A, []\n"
            "   +- 'UnresolvedHint B, []\n"
            "      +- 'UnresolvedHint C, [x]\n"
            "         +- OneRowRelation");
  EXPECT_ERROR_CLASS(ParseStatement("SELECT * FROM t /*+ BROADCAST(t) */"),
                     "PARSE_SYNTAX_ERROR");
  EXPECT_ERROR_CLASS(ParseStatement("SELECT /*+ BROADCAST(t) * FROM t"),
                     "PARSE_SYNTAX_ERROR");
}

}  // namespace
}  // namespace spate::sql
