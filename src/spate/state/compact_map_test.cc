// Copyright spate authors.
// CompactMap against a std::map model: random puts (in place and not), removals (backward
// shifts inside probe runs), undo via Restore, compaction and growth, and a table that
// stays bounded under churn.

#include "spate/state/compact_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace spate::state {
namespace {

using Model = std::map<std::string, std::string>;

Model Contents(const CompactMap& m) {
  Model out;
  m.ForEach([&](std::string_view k, std::string_view v) {
    EXPECT_TRUE(out.emplace(std::string(k), std::string(v)).second) << "key twice: " << k;
  });
  return out;
}

void ExpectEqual(const CompactMap& m, const Model& model) {
  ASSERT_EQ(m.size(), static_cast<int64_t>(model.size()));
  ASSERT_EQ(Contents(m), model);
  for (const auto& [k, v] : model) {
    auto got = m.Get(k);
    ASSERT_TRUE(got.has_value()) << k;
    ASSERT_EQ(*got, v);
  }
}

TEST(CompactMap, RandomOperationsMatchAModel) {
  std::mt19937_64 rng(7);
  CompactMap m;
  Model model;
  for (int round = 0; round < 200000; ++round) {
    const std::string key = "k" + std::to_string(rng() % 3000);
    const int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      const std::string value(1 + rng() % 3, static_cast<char>('a' + rng() % 26));
      m.Put(key, value);
      model[key] = value;
    } else if (op < 9) {
      const bool had = model.erase(key) > 0;
      EXPECT_EQ(m.Remove(key) != nullptr, had);
    } else {
      auto got = m.Get(key);
      auto it = model.find(key);
      ASSERT_EQ(got.has_value(), it != model.end()) << key;
      if (got) ASSERT_EQ(*got, it->second);
    }
    if (round % 20000 == 0) {
      ExpectEqual(m, model);
      m.MaybeCompact();
    }
  }
  ExpectEqual(m, model);
  m.Compact();
  ExpectEqual(m, model);
}

// An undo log as the memory provider keeps one: every change undone in reverse order
// brings back the map of before, also across removals that shifted other slots.
TEST(CompactMap, RestoreUndoesPutsAndRemovals) {
  std::mt19937_64 rng(11);
  CompactMap m;
  Model before;
  for (int i = 0; i < 2000; ++i) {
    const std::string k = "key" + std::to_string(i);
    m.Put(k, "v" + std::to_string(i));
    before[k] = "v" + std::to_string(i);
  }
  struct Undo {
    std::string key;
    CompactMap::Entry old;
    bool in_place;
    std::string saved;
  };
  std::vector<Undo> log;
  for (int i = 0; i < 20000; ++i) {
    const std::string k = "key" + std::to_string(rng() % 4000);
    if (rng() % 2) {
      std::string saved;
      CompactMap::Entry now = nullptr;
      const std::string value =
          rng() % 2 ? "w" + std::to_string(i % 10) : "long value " + std::to_string(i);
      CompactMap::Entry old = m.Put(k, value, &now, &saved);
      log.push_back({k, old, old != nullptr && old == now, saved});
    } else {
      log.push_back({k, m.Remove(k), false, ""});
    }
  }
  for (auto it = log.rbegin(); it != log.rend(); ++it) {
    if (it->in_place) {
      CompactMap::OverwriteValue(it->old, it->saved);
    } else {
      m.Restore(it->key, it->old);
    }
  }
  ExpectEqual(m, before);
}

// Keys that come and go (a join's state under a watermark) leave no growing table.
TEST(CompactMap, ChurnKeepsTheTableBounded) {
  CompactMap m;
  Model model;
  int64_t peak = 0;
  for (int64_t i = 0; i < 400000; ++i) {
    const std::string k = "row" + std::to_string(i);
    m.Put(k, "x");
    model[k] = "x";
    if (i >= 1000) {
      const std::string gone = "row" + std::to_string(i - 1000);
      ASSERT_NE(m.Remove(gone), nullptr);
      model.erase(gone);
    }
    m.MaybeCompact();
    if (i > 200000) peak = std::max(peak, m.memory_bytes());
  }
  ExpectEqual(m, model);
  // 1000 live entries of ~10 bytes: slots and arena stay within a few dozen KB.
  EXPECT_LT(peak, 200000);
}

}  // namespace
}  // namespace spate::state
