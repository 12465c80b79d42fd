// Copyright spate authors.
// The Nexmark generator on its own: determinism for a seed, the 1:3:46 proportions, the
// id arithmetic, monotone event time, columns and splits independent of how they are
// read, and the stream source's offsets (a source restarted at an offset continues with
// the same events).

#include "spate/connectors/nexmark.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>

#include "spate/testing/status_matchers.h"

namespace spate::connectors {
namespace {

std::vector<int> AllColumns(NexmarkTable t) {
  std::vector<int> cols(static_cast<size_t>(NexmarkSchema(t)->num_fields()));
  std::iota(cols.begin(), cols.end(), 0);
  return cols;
}

NexmarkConfig Config(NexmarkTable t, uint64_t seed = 0) {
  NexmarkConfig c;
  c.table = t;
  c.seed = seed;
  return c;
}

/// Every row of `b` as text, one string per row.
std::vector<std::string> Rows(const BatchPtr& b) {
  std::vector<std::string> out(static_cast<size_t>(b->num_rows()));
  for (int c = 0; c < b->num_columns(); ++c) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      out[static_cast<size_t>(r)] += b->column(c)->GetValue(r).ToString() + "|";
    }
  }
  return out;
}

std::vector<std::string> ReadAll(const DataSourcePtr& ds, const std::vector<int>& cols) {
  std::vector<std::string> out;
  ScanSpec spec;
  spec.columns = cols;
  for (int s = 0; s < ds->num_splits(); ++s) {
    auto reader = ds->OpenSplit(s, spec);
    EXPECT_TRUE(reader.ok());
    while (true) {
      auto b = (*reader)->Next();
      EXPECT_TRUE(b.ok());
      if (!*b) break;
      for (auto& r : Rows(*b)) out.push_back(std::move(r));
    }
  }
  return out;
}

TEST(NexmarkTest, DeterministicForASeed) {
  for (auto t : {NexmarkTable::kPerson, NexmarkTable::kAuction, NexmarkTable::kBid}) {
    auto a = Rows(GenerateNexmark(Config(t, 7), 0, 5000, AllColumns(t)));
    auto b = Rows(GenerateNexmark(Config(t, 7), 0, 5000, AllColumns(t)));
    auto c = Rows(GenerateNexmark(Config(t, 8), 0, 5000, AllColumns(t)));
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
  }
}

TEST(NexmarkTest, ProportionsAndIds) {
  const int64_t n = 50000;
  auto p = GenerateNexmark(Config(NexmarkTable::kPerson), 0, n, {0});
  auto a = GenerateNexmark(Config(NexmarkTable::kAuction), 0, n, {0, 8, 7});
  auto b = GenerateNexmark(Config(NexmarkTable::kBid), 0, n, {0, 1, 2, 3});
  EXPECT_EQ(p->num_rows(), n / 50);
  EXPECT_EQ(a->num_rows(), n / 50 * 3);
  EXPECT_EQ(b->num_rows(), n / 50 * 46);
  // Person and auction ids are dense from 1000 in event order.
  for (int64_t i = 0; i < p->num_rows(); ++i)
    EXPECT_EQ(p->column(0)->raw_values<int64_t>()[i], 1000 + i);
  for (int64_t i = 0; i < a->num_rows(); ++i) {
    EXPECT_EQ(a->column(0)->raw_values<int64_t>()[i], 1000 + i);
    int64_t cat = a->column(1)->raw_values<int64_t>()[i];
    EXPECT_GE(cat, 10);
    EXPECT_LE(cat, 14);
  }
  // Bids: half on the hot auction of their batch of 100, prices in [100, 1e8], channels
  // half the four hot ones.
  int64_t hot = 0, hot_channel = 0;
  const int64_t* auction = b->column(0)->raw_values<int64_t>();
  const int64_t* price = b->column(2)->raw_values<int64_t>();
  for (int64_t i = 0; i < b->num_rows(); ++i) {
    if ((auction[i] - 1000) % 100 == 0) ++hot;
    EXPECT_GE(price[i], 100);
    EXPECT_LE(price[i], 100000000);
    std::string ch(b->column(3)->GetView(i));
    if (ch == "Google" || ch == "Facebook" || ch == "Baidu" || ch == "Apple")
      ++hot_channel;
  }
  double rows = static_cast<double>(b->num_rows());
  EXPECT_NEAR(hot / rows, 0.5, 0.03);
  EXPECT_NEAR(hot_channel / rows, 0.5, 0.03);
  // Average extra sizes close to the benchmark's targets (100 / 500 / 200 bytes a row).
  auto bx = GenerateNexmark(Config(NexmarkTable::kBid), 0, n, {6});
  double extra = 0;
  for (int64_t i = 0; i < bx->num_rows(); ++i) extra += bx->column(0)->GetView(i).size();
  EXPECT_NEAR(extra / rows, 68, 2);
}

TEST(NexmarkTest, EventTimeIsMonotoneAtTheRate) {
  NexmarkConfig c = Config(NexmarkTable::kBid);
  c.events_per_second = 1000;
  c.start_ms = 1000000;
  auto b = GenerateNexmark(c, 0, 20000, {5});
  const int64_t* ts = b->column(0)->raw_values<int64_t>();
  for (int64_t i = 1; i < b->num_rows(); ++i) EXPECT_LE(ts[i - 1], ts[i]);
  EXPECT_EQ(c.TimestampMs(0), 1000000);
  EXPECT_EQ(c.TimestampMs(1000), 1001000);  // 1000 events a second: event n at n ms
  EXPECT_EQ(ts[0], (1000000 + 4) * 1000);   // event 4 is the first bid
}

TEST(NexmarkTest, ColumnsAndSplitsDoNotChangeTheEvents) {
  for (auto t : {NexmarkTable::kPerson, NexmarkTable::kAuction, NexmarkTable::kBid}) {
    NexmarkConfig c = Config(t, 3);
    auto whole = Rows(GenerateNexmark(c, 0, 7000, AllColumns(t)));
    // Any number of splits, the same rows in the same order.
    for (int parts : {1, 3, 16}) {
      EXPECT_EQ(ReadAll(MakeNexmarkDataSource(c, 0, 7000, parts, "x"), AllColumns(t)),
                whole);
    }
    // A column read alone equals that column of the full read.
    auto last = static_cast<int>(AllColumns(t).size()) - 1;
    auto alone = Rows(GenerateNexmark(c, 0, 7000, {last}));
    auto full = GenerateNexmark(c, 0, 7000, AllColumns(t));
    ASSERT_EQ(alone.size(), static_cast<size_t>(full->num_rows()));
    for (int64_t r = 0; r < full->num_rows(); ++r)
      EXPECT_EQ(alone[static_cast<size_t>(r)],
                full->column(last)->GetValue(r).ToString() + "|");
  }
}

TEST(NexmarkTest, StreamOffsetsContinueAfterRestart) {
  auto [schema, factory] = *MakeNexmarkSourceFactory({{"events", "10000"},
                                                      {"maxEventsPerTrigger", "3000"},
                                                      {"seed", "5"},
                                                      {"numPartitions", "2"}});
  stream::SourceContext ctx;
  auto src = *factory(ctx);
  std::vector<std::string> streamed;
  std::optional<Json> at;
  std::vector<int64_t> ends;
  for (int batch = 0; batch < 2; ++batch) {
    auto end = *src->LatestOffset(at);
    ASSERT_TRUE(end.has_value());
    auto ds = *src->GetBatch(at, *end);
    for (auto& r : ReadAll(ds, AllColumns(NexmarkTable::kBid))) streamed.push_back(r);
    ends.push_back(end->int_value());
    at = end;
  }
  EXPECT_EQ(ends, (std::vector<int64_t>{3000, 6000}));
  // A new source (a restarted query) given the checkpointed offset.
  auto again = *factory(ctx);
  while (true) {
    auto end = *again->LatestOffset(at);
    if (end && at && end->int_value() == at->int_value()) break;
    auto ds = *again->GetBatch(at, *end);
    for (auto& r : ReadAll(ds, AllColumns(NexmarkTable::kBid))) streamed.push_back(r);
    at = end;
  }
  EXPECT_EQ(at->int_value(), 10000);
  NexmarkConfig c = Config(NexmarkTable::kBid, 5);
  EXPECT_EQ(streamed, Rows(GenerateNexmark(c, 0, 10000, AllColumns(NexmarkTable::kBid))));
}

TEST(NexmarkTest, Options) {
  EXPECT_ERROR_HAS(ParseNexmarkOptions({{"table", "bids"}}),
                   "Invalid value 'bids' for option 'table'");
  EXPECT_ERROR_HAS(ParseNexmarkOptions({{"eventsPerSecond", "0"}}),
                   "Invalid value '0' for option 'eventsPerSecond'");
  EXPECT_ERROR_HAS(ParseNexmarkOptions({{"events", "-1"}}),
                   "Invalid value '-1' for option 'events'");
  EXPECT_ERROR_HAS(
      MakeNexmarkRelation({{"table", "person"}}),
      "The option 'events' must be positive for a batch read");  // batch needs events
  auto c = *ParseNexmarkOptions({{"TABLE", "Auction"}, {"rowsPerBatch", "10"}});
  EXPECT_EQ(c.table, NexmarkTable::kAuction);
  EXPECT_EQ(c.max_events_per_trigger, 10);
}

}  // namespace
}  // namespace spate::connectors
