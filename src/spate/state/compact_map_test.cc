// Copyright spate authors.
// CompactMap against a std::map model: random puts (in place and not), removals (backward
// shifts inside probe runs), undo via Restore, one-pass rewrites, compaction and growth,
// live/dead entries, a change right after a lookup of the same key, and a table that
// stays bounded under churn.

#include "spate/state/compact_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "spate/columnar/row_encoding.h"

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
    // The lookups with the caller's hash find the same entry.
    m.Prefetch(k, HashBytes(k), false);
    m.Prefetch(k, HashBytes(k), true);
    ASSERT_EQ(m.Get(k, HashBytes(k)), got) << k;
  }
  EXPECT_FALSE(m.Get("not a key", HashBytes("not a key")).has_value());
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

// An entry is live while it is its key's current one.
TEST(CompactMap, IsLiveTellsTheCurrentEntry) {
  CompactMap m;
  CompactMap::Entry e1 = nullptr, e2 = nullptr, e3 = nullptr;
  m.Put("k", "v1", &e1);
  EXPECT_TRUE(CompactMap::IsLive(e1));
  EXPECT_EQ(m.Put("k", "longer", &e2), e1);
  EXPECT_FALSE(CompactMap::IsLive(e1));
  EXPECT_TRUE(CompactMap::IsLive(e2));
  std::string saved;
  EXPECT_EQ(m.Put("k", "LONGER", &e3, &saved), e2);  // same length: in place
  EXPECT_EQ(e3, e2);
  EXPECT_TRUE(CompactMap::IsLive(e2));
  EXPECT_EQ(m.Remove("k"), e2);
  EXPECT_FALSE(CompactMap::IsLive(e2));
  m.Restore("k", e1);
  EXPECT_TRUE(CompactMap::IsLive(e1));
  EXPECT_EQ(m.Get("k"), "v1");
  m.Restore("k", e2);
  EXPECT_FALSE(CompactMap::IsLive(e1));
  EXPECT_TRUE(CompactMap::IsLive(e2));
  m.Restore("k", nullptr);
  EXPECT_FALSE(CompactMap::IsLive(e2));
  EXPECT_EQ(m.size(), 0);
}

// A Put or Remove right after a lookup reuses it only for the same key.
TEST(CompactMap, AChangeAfterALookup) {
  CompactMap m;
  Model model;
  for (int i = 0; i < 50; ++i) {
    m.Put("k" + std::to_string(i), "v");
    model["k" + std::to_string(i)] = "v";
  }
  EXPECT_FALSE(m.Get("absent").has_value());
  m.Put("other", "o");  // not the key looked up
  model["other"] = "o";
  EXPECT_FALSE(m.Get("absent").has_value());
  m.Put("absent", "now");
  model["absent"] = "now";
  EXPECT_TRUE(m.Get("k3").has_value());
  m.Put("k4", "changed");
  model["k4"] = "changed";
  EXPECT_TRUE(m.Get("k3").has_value());
  m.Put("k3", "changed too");
  model["k3"] = "changed too";
  EXPECT_TRUE(m.Get("k5").has_value());
  EXPECT_NE(m.Remove("k5"), nullptr);
  model.erase("k5");
  EXPECT_FALSE(m.Get("gone").has_value());
  EXPECT_EQ(m.Remove("gone"), nullptr);
  EXPECT_TRUE(m.Get("k6").has_value());
  EXPECT_NE(m.Remove("k7"), nullptr);
  model.erase("k7");
  ExpectEqual(m, model);
}

// One pass that removes and rewrites entries (a join's eviction) leaves every other key
// reachable, also in probe runs that wrap around the table's end, and its changes undo.
TEST(CompactMap, RewriteEachRemovesAndReplacesInOnePass) {
  std::mt19937_64 rng(5);
  CompactMap m;
  Model model;
  for (int round = 0; round < 30; ++round) {
    for (int i = 0; i < 3000; ++i) {
      const std::string k = "key" + std::to_string(rng() % 20000);
      const std::string v(1 + rng() % 5, 'v');
      m.Put(k, v);
      model[k] = v;
    }
    const Model before = model;
    std::vector<std::pair<CompactMap::Entry, CompactMap::Entry>> changes;
    m.RewriteEach(
        [&](std::string_view k, std::string_view v, std::string* replacement) {
          EXPECT_EQ(model.at(std::string(k)), v);
          switch (rng() % 3) {
            case 0:
              return CompactMap::Rewrite::kKeep;
            case 1:
              model.erase(std::string(k));
              return CompactMap::Rewrite::kRemove;
            default:
              *replacement = std::string(v) + "+";
              model[std::string(k)] = *replacement;
              return CompactMap::Rewrite::kReplace;
          }
        },
        [&](CompactMap::Entry now, CompactMap::Entry old) {
          EXPECT_FALSE(CompactMap::IsLive(old));
          EXPECT_EQ(CompactMap::IsLive(now), now != old);
          changes.emplace_back(now, old);
        });
    ExpectEqual(m, model);
    if (round % 3 == 0) {
      for (auto it = changes.rbegin(); it != changes.rend(); ++it)
        m.Restore(CompactMap::KeyOf(it->second), it->second);
      model = before;
      ExpectEqual(m, model);
    }
    m.MaybeCompact();
  }
}

}  // namespace
}  // namespace spate::state
