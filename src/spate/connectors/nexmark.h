// Copyright spate authors.
#pragma once

// The Nexmark event generator as a source: `readStream.format("nexmark")` (a stream) and
// `read.format("nexmark")` (a bounded table), one table per event kind.
//
// Events follow the Nexmark benchmark as Beam's and Flink's generators define it
// (docs/nexmark.md): event number n is a person when n % 50 == 0, an auction when
// n % 50 in 1..3, else a bid (1:3:46); ids, the hot sellers/bidders/auctions, prices
// (round(10^(6u) * 100) cents), auction lengths, channels and urls, the names, cities and
// states, and the `extra` padding follow the same rules; event n's time is
// startTime + floor(n * 1e6 / eventsPerSecond µs) in ms. Every field of event n comes
// from its own random stream seeded by (seed, n, field), so an event is the same
// whichever batch, split or subset of columns reads it (values are distributed as
// Flink's, not bit-identical to Flink's java.util.Random draws).
//
// Options: table (person | auction | bid; default bid), events (0 = unbounded; default
// 0), eventsPerSecond (event time rate, default 10000), seed (default 0), startTime (ms
// since the epoch, default 1436918400000 = 2015-07-15T00:00:00Z, Beam's base time),
// maxEventsPerTrigger / rowsPerBatch (events per micro-batch; default: all of a bounded
// source, 1,000,000 of an unbounded one), numPartitions (splits per batch; default: the
// machine's cores). The stream's offset is the number of events consumed (a JSON number):
// a restarted query continues with the next event. The stream is not paced by the wall
// clock: each trigger generates its slice at once.
//
// Ownership: sources and data sources are shared_ptr, owned by the plan / query.
// Thread safety: a NexmarkDataSource is immutable; splits may be read concurrently.
// Failure: invalid options -> IllegalArgumentException-style errors when the reader is
// created.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/stream/source.h"

namespace spate::connectors {

enum class NexmarkTable : uint8_t { kPerson, kAuction, kBid };

struct NexmarkConfig {
  NexmarkTable table = NexmarkTable::kBid;
  int64_t events = 0;  // 0: unbounded
  double events_per_second = 10000;
  uint64_t seed = 0;
  int64_t start_ms = 1436918400000;    // 2015-07-15T00:00:00Z
  int64_t max_events_per_trigger = 0;  // 0: the default (see file comment)
  int num_partitions = 0;              // 0: the machine's cores
  // The benchmark's constants (NexmarkConfiguration's defaults).
  int person_proportion = 1, auction_proportion = 3, bid_proportion = 46;
  int num_active_people = 1000, num_in_flight_auctions = 100;
  int hot_auction_ratio = 2, hot_bidders_ratio = 4, hot_sellers_ratio = 4;
  int avg_person_bytes = 200, avg_auction_bytes = 500, avg_bid_bytes = 100;

  int total_proportion() const {
    return person_proportion + auction_proportion + bid_proportion;
  }
  /// Event time of event n, in ms since the epoch.
  int64_t TimestampMs(int64_t n) const;
};

/// Parses the reader options (file comment).
Result<NexmarkConfig> ParseNexmarkOptions(
    const std::map<std::string, std::string>& options);

/// The table's schema (Flink's nexmark field names and types):
///  person:  id, name, emailAddress, creditCard, city, state, dateTime, extra
///  auction: id, itemName, description, initialBid, reserve, dateTime, expires, seller,
///           category, extra
///  bid:     auction, bidder, price, channel, url, dateTime, extra
SchemaPtr NexmarkSchema(NexmarkTable table);
std::string NexmarkTableName(NexmarkTable table);

/// The rows of `config.table` among events [from, to), with the given columns (indices
/// into NexmarkSchema) in that order. Rows are in event order.
BatchPtr GenerateNexmark(const NexmarkConfig& config, int64_t from, int64_t to,
                         const std::vector<int>& columns);

/// A bounded table: events [from, to) cut into `parts` contiguous splits, generated
/// lazily when a split is read (only the columns the scan asks for).
DataSourcePtr MakeNexmarkDataSource(const NexmarkConfig& config, int64_t from, int64_t to,
                                    int parts, std::string description);

/// `read.format("nexmark")`: a bounded table (`events` is required).
Result<DataSourcePtr> MakeNexmarkRelation(
    const std::map<std::string, std::string>& options);

/// `readStream.format("nexmark")`: the schema and the source factory.
Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeNexmarkSourceFactory(
    const std::map<std::string, std::string>& options);

}  // namespace spate::connectors
