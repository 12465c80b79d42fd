// Copyright spate authors.
#include "spate/connectors/nexmark.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "spate/columnar/builder.h"
#include "spate/connectors/memory.h"

namespace spate::connectors {

namespace {

constexpr int64_t kFirstPersonId = 1000, kFirstAuctionId = 1000, kFirstCategoryId = 10;
constexpr int64_t kNumCategories = 5;
constexpr int64_t kPersonIdLead = 10, kAuctionIdLead = 10;
constexpr int64_t kHotAuctionBatch = 100, kHotBidderBatch = 100, kHotSellerBatch = 100;
constexpr int64_t kHotChannelsRatio = 2, kChannels = 10000;
constexpr int64_t kChunkEvents = 16384;  // events per generated batch
constexpr int64_t kDefaultUnboundedTrigger = 1000000;

constexpr const char* kStates[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
constexpr const char* kCities[] = {"Phoenix",  "Los Angeles", "San Francisco", "Boise",
                                   "Portland", "Bend",        "Redmond",       "Seattle",
                                   "Kent",     "Cheyenne"};
constexpr const char* kFirstNames[] = {"Peter", "Paul",   "Luke",  "John",
                                       "Saul",  "Vicky",  "Kate",  "Julie",
                                       "Sarah", "Deiter", "Walter"};
constexpr const char* kLastNames[] = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                      "Walton", "Smith",  "Jones",   "Noris"};
constexpr const char* kHotChannels[] = {"Google", "Facebook", "Baidu", "Apple"};

inline uint64_t Mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// One random stream per (seed, event, field): SplitMix64 from a mixed starting point.
class Rng {
 public:
  Rng(uint64_t seed, int64_t event, int field)
      : s_(Mix64(seed * 0xd1342543de82ef95ULL + static_cast<uint64_t>(event)) +
           static_cast<uint64_t>(field) * 0x632be59bd9b4e019ULL) {}
  uint64_t Next() {
    s_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = s_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (n > 0).
  int64_t Below(int64_t n) {
    return static_cast<int64_t>(
        (static_cast<unsigned __int128>(Next()) * static_cast<uint64_t>(n)) >> 64);
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_;
};

// ---- the id arithmetic of Nexmark's generators (GeneratorConfig,
// Person/AuctionGenerator)

int64_t LastBase0PersonId(const NexmarkConfig& c, int64_t event) {
  int64_t epoch = event / c.total_proportion(), offset = event % c.total_proportion();
  if (offset >= c.person_proportion) offset = c.person_proportion - 1;
  return epoch * c.person_proportion + offset;
}

int64_t LastBase0AuctionId(const NexmarkConfig& c, int64_t event) {
  int64_t epoch = event / c.total_proportion(), offset = event % c.total_proportion();
  if (offset < c.person_proportion) {
    --epoch;
    offset = c.auction_proportion - 1;
  } else if (offset >= c.person_proportion + c.auction_proportion) {
    offset = c.auction_proportion - 1;
  } else {
    offset -= c.person_proportion;
  }
  return epoch * c.auction_proportion + offset;
}

int64_t NextBase0PersonId(const NexmarkConfig& c, int64_t event, Rng& rng) {
  int64_t people = LastBase0PersonId(c, event) + 1;
  int64_t active = std::min<int64_t>(people, c.num_active_people);
  return people - active + rng.Below(active + kPersonIdLead);
}

int64_t NextBase0AuctionId(const NexmarkConfig& c, int64_t event, Rng& rng) {
  int64_t max_auction = LastBase0AuctionId(c, event);
  int64_t min_auction = std::max<int64_t>(max_auction - c.num_in_flight_auctions, 0);
  return min_auction + rng.Below(max_auction - min_auction + 1 + kAuctionIdLead);
}

/// The generators' hot/cold choice: with probability 1 - 1/ratio the hot id, else a
/// random recent one (plus the lead).
int64_t HotOrRandomId(const NexmarkConfig& c, int64_t n, int field, int ratio,
                      int64_t hot,
                      int64_t (*random)(const NexmarkConfig&, int64_t, Rng&)) {
  Rng rng(c.seed, n, field);
  return rng.Below(ratio) > 0 ? hot : random(c, n, rng);
}

int64_t NextPrice(Rng& rng) {
  return static_cast<int64_t>(std::floor(std::pow(10.0, rng.Unit() * 6.0) * 100.0 + 0.5));
}

/// StringsGenerator.nextString: 3 .. max_length-1 characters, 1 in 13 `special`, trimmed.
void NextString(Rng& rng, int max_length, char special, std::string* out) {
  int64_t len = 3 + rng.Below(max_length - 3);
  size_t start = out->size();
  for (int64_t i = 0; i < len; ++i) {
    out->push_back(rng.Below(13) == 0 ? special : static_cast<char>('a' + rng.Below(26)));
  }
  if (special != ' ') return;
  size_t b = start, e = out->size();
  while (b < e && (*out)[b] == ' ') ++b;
  while (e > b && (*out)[e - 1] == ' ') --e;
  out->erase(e);
  out->erase(start, b - start);
}

/// StringsGenerator.nextExtra: padding so that current_size + length averages `average`.
void NextExtra(Rng& rng, int64_t current_size, int64_t average, std::string* out) {
  out->clear();
  if (current_size > average) return;
  int64_t want = average - current_size;
  auto delta = static_cast<int64_t>(std::floor(static_cast<double>(want) * 0.2 + 0.5));
  int64_t size = want - delta + (delta == 0 ? 0 : rng.Below(2 * delta));
  out->resize(static_cast<size_t>(size));
  char* p = out->data();
  int64_t i = 0;
  while (i < size) {
    uint64_t r = rng.Next();
    for (int k = 0; k < 13 && i < size; ++k, ++i) {
      p[i] = static_cast<char>('a' + r % 26);
      r /= 26;
    }
  }
}

std::string BaseUrl(Rng& rng) {
  std::string url = "https://www.nexmark.com/";
  for (int i = 0; i < 3; ++i) {
    NextString(rng, 5, '_', &url);
    url.push_back('/');
  }
  url += "item.htm?query=1";
  return url;
}

/// The channels' names and urls (Flink's CHANNEL_URL_CACHE and HOT_URLS), the same for
/// every seed.
struct Channels {
  std::vector<std::string> names, urls;
  std::string hot_urls[4];
  Channels() {
    names.reserve(kChannels);
    urls.reserve(kChannels);
    for (int64_t n = 0; n < kChannels; ++n) {
      Rng rng(0x5eed, n, 99);
      names.push_back("channel-" + std::to_string(n));
      std::string url = BaseUrl(rng);
      if (rng.Below(10) > 0) {
        uint32_t x = static_cast<uint32_t>(n), r = 0;
        for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1U) << (31 - b);
        url += "&channel_id=" +
               std::to_string(std::llabs(static_cast<int64_t>(static_cast<int32_t>(r))));
      }
      urls.push_back(std::move(url));
    }
    for (int i = 0; i < 4; ++i) {
      Rng rng(0x5eed, kChannels + i, 99);
      hot_urls[i] = BaseUrl(rng);
    }
  }
};

const Channels& TheChannels() {
  static const Channels channels;
  return channels;
}

// Field stream numbers (any fixed distinct numbers per table).
enum PersonField { kPName = 1, kPEmail, kPCard, kPCity, kPState, kPExtra };
enum AuctionField {
  kASeller = 1,
  kACategory,
  kAInitialBid,
  kAExpires,
  kAName,
  kADesc,
  kAReserve,
  kAExtra
};
enum BidField { kBAuction = 1, kBBidder, kBPrice, kBChannel, kBExtra };

struct PersonText {
  std::string name, email, card;
  int city = 0, state = 0;
};

void PersonName(const NexmarkConfig& c, int64_t n, std::string* out) {
  Rng rng(c.seed, n, kPName);
  out->clear();
  *out += kFirstNames[rng.Below(11)];
  out->push_back(' ');
  *out += kLastNames[rng.Below(9)];
}
void PersonEmail(const NexmarkConfig& c, int64_t n, std::string* out) {
  Rng rng(c.seed, n, kPEmail);
  out->clear();
  NextString(rng, 7, ' ', out);
  out->push_back('@');
  NextString(rng, 5, ' ', out);
  *out += ".com";
}
void PersonCard(const NexmarkConfig& c, int64_t n, std::string* out) {
  Rng rng(c.seed, n, kPCard);
  out->clear();
  char buf[8];
  for (int i = 0; i < 4; ++i) {
    if (i > 0) out->push_back(' ');
    std::snprintf(buf, sizeof buf, "%04d", static_cast<int>(rng.Below(10000)));
    *out += buf;
  }
}
const char* PersonCity(const NexmarkConfig& c, int64_t n) {
  Rng rng(c.seed, n, kPCity);
  return kCities[rng.Below(10)];
}
const char* PersonState(const NexmarkConfig& c, int64_t n) {
  Rng rng(c.seed, n, kPState);
  return kStates[rng.Below(6)];
}
void PersonExtra(const NexmarkConfig& c, int64_t n, std::string* out) {
  std::string tmp;
  int64_t size = 8;
  PersonName(c, n, &tmp);
  size += static_cast<int64_t>(tmp.size());
  PersonEmail(c, n, &tmp);
  size += static_cast<int64_t>(tmp.size());
  PersonCard(c, n, &tmp);
  size += static_cast<int64_t>(tmp.size());
  size += static_cast<int64_t>(std::strlen(PersonCity(c, n)) +
                               std::strlen(PersonState(c, n)));
  Rng rng(c.seed, n, kPExtra);
  NextExtra(rng, size, c.avg_person_bytes, out);
}

int64_t AuctionInitialBid(const NexmarkConfig& c, int64_t n) {
  Rng rng(c.seed, n, kAInitialBid);
  return NextPrice(rng);
}
void AuctionText(const NexmarkConfig& c, int64_t n, int field, int max_length,
                 std::string* out) {
  Rng rng(c.seed, n, field);
  out->clear();
  NextString(rng, max_length, ' ', out);
}

/// Rows of the configured table among events [from, to), calling f(n) per such event.
template <typename F>
void ForEachEvent(const NexmarkConfig& c, int64_t from, int64_t to, F&& f) {
  const int64_t total = c.total_proportion();
  int64_t lo = 0, hi = total;  // offsets within an epoch that belong to the table
  switch (c.table) {
    case NexmarkTable::kPerson:
      lo = 0, hi = c.person_proportion;
      break;
    case NexmarkTable::kAuction:
      lo = c.person_proportion, hi = c.person_proportion + c.auction_proportion;
      break;
    case NexmarkTable::kBid:
      lo = c.person_proportion + c.auction_proportion, hi = total;
      break;
  }
  int64_t n = from;
  while (n < to) {
    int64_t epoch_start = n - n % total;
    int64_t a = std::max(n, epoch_start + lo), b = std::min(to, epoch_start + hi);
    for (int64_t m = a; m < b; ++m) f(m);
    n = epoch_start + total;
  }
}

int64_t CountRows(const NexmarkConfig& c, int64_t from, int64_t to) {
  int64_t rows = 0;
  const int64_t total = c.total_proportion();
  int64_t per_epoch = c.table == NexmarkTable::kPerson    ? c.person_proportion
                      : c.table == NexmarkTable::kAuction ? c.auction_proportion
                                                          : c.bid_proportion;
  // Whole epochs in the middle, the partial ones by counting.
  int64_t first_full = (from + total - 1) / total * total, last_full = to / total * total;
  if (first_full >= last_full) {
    ForEachEvent(c, from, to, [&](int64_t) { ++rows; });
    return rows;
  }
  ForEachEvent(c, from, first_full, [&](int64_t) { ++rows; });
  rows += (last_full - first_full) / total * per_epoch;
  ForEachEvent(c, last_full, to, [&](int64_t) { ++rows; });
  return rows;
}

template <typename F>
ColumnPtr LongColumn(const NexmarkConfig& c, int64_t from, int64_t to, int64_t rows,
                     const DataTypePtr& type, F&& value) {
  FixedWidthBuilder<int64_t> b(type, std::max<int64_t>(1, rows));
  ForEachEvent(c, from, to, [&](int64_t n) { b.Append(value(n)); });
  return b.Finish();
}

template <typename F>
ColumnPtr StringColumn(const NexmarkConfig& c, int64_t from, int64_t to, int64_t rows,
                       int64_t avg_bytes, F&& value) {
  StringBuilder b(DataType::String(), std::max<int64_t>(1, rows),
                  std::max<int64_t>(64, rows * avg_bytes));
  std::string buf;
  ForEachEvent(c, from, to, [&](int64_t n) {
    std::string_view v = value(n, &buf);
    b.Append(v);
  });
  return b.Finish();
}

ColumnPtr PersonColumn(const NexmarkConfig& c, int col, int64_t from, int64_t to,
                       int64_t rows) {
  switch (col) {
    case 0:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        return LastBase0PersonId(c, n) + kFirstPersonId;
      });
    case 1:
      return StringColumn(c, from, to, rows, 12, [&](int64_t n, std::string* s) {
        PersonName(c, n, s);
        return std::string_view(*s);
      });
    case 2:
      return StringColumn(c, from, to, rows, 14, [&](int64_t n, std::string* s) {
        PersonEmail(c, n, s);
        return std::string_view(*s);
      });
    case 3:
      return StringColumn(c, from, to, rows, 19, [&](int64_t n, std::string* s) {
        PersonCard(c, n, s);
        return std::string_view(*s);
      });
    case 4:
      return StringColumn(c, from, to, rows, 8, [&](int64_t n, std::string*) {
        return std::string_view(PersonCity(c, n));
      });
    case 5:
      return StringColumn(c, from, to, rows, 2, [&](int64_t n, std::string*) {
        return std::string_view(PersonState(c, n));
      });
    case 6:
      return LongColumn(c, from, to, rows, DataType::Timestamp(),
                        [&](int64_t n) { return c.TimestampMs(n) * 1000; });
    default:
      return StringColumn(c, from, to, rows, 140, [&](int64_t n, std::string* s) {
        PersonExtra(c, n, s);
        return std::string_view(*s);
      });
  }
}

ColumnPtr AuctionColumn(const NexmarkConfig& c, int col, int64_t from, int64_t to,
                        int64_t rows) {
  switch (col) {
    case 0:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        return LastBase0AuctionId(c, n) + kFirstAuctionId;
      });
    case 1:
      return StringColumn(c, from, to, rows, 12, [&](int64_t n, std::string* s) {
        AuctionText(c, n, kAName, 20, s);
        return std::string_view(*s);
      });
    case 2:
      return StringColumn(c, from, to, rows, 52, [&](int64_t n, std::string* s) {
        AuctionText(c, n, kADesc, 100, s);
        return std::string_view(*s);
      });
    case 3:
      return LongColumn(c, from, to, rows, DataType::Long(),
                        [&](int64_t n) { return AuctionInitialBid(c, n); });
    case 4:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        Rng rng(c.seed, n, kAReserve);
        return AuctionInitialBid(c, n) + NextPrice(rng);
      });
    case 5:
      return LongColumn(c, from, to, rows, DataType::Timestamp(),
                        [&](int64_t n) { return c.TimestampMs(n) * 1000; });
    case 6: {
      const int64_t ahead = static_cast<int64_t>(c.num_in_flight_auctions) *
                            c.total_proportion() / c.auction_proportion;
      return LongColumn(c, from, to, rows, DataType::Timestamp(), [&](int64_t n) {
        int64_t ts = c.TimestampMs(n);
        int64_t horizon = c.TimestampMs(n + ahead) - ts;
        Rng rng(c.seed, n, kAExpires);
        return (ts + 1 + rng.Below(std::max<int64_t>(horizon * 2, 1))) * 1000;
      });
    }
    case 7:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        // Hot: the first person of the last batch of 100.
        return HotOrRandomId(c, n, kASeller, c.hot_sellers_ratio,
                             LastBase0PersonId(c, n) / kHotSellerBatch * kHotSellerBatch,
                             NextBase0PersonId) +
               kFirstPersonId;
      });
    case 8:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        Rng rng(c.seed, n, kACategory);
        return kFirstCategoryId + rng.Below(kNumCategories);
      });
    default:
      return StringColumn(c, from, to, rows, 360, [&](int64_t n, std::string* s) {
        std::string t;
        AuctionText(c, n, kAName, 20, &t);
        int64_t size = 8 + static_cast<int64_t>(t.size()) + 40;
        AuctionText(c, n, kADesc, 100, &t);
        size += static_cast<int64_t>(t.size());
        Rng rng(c.seed, n, kAExtra);
        NextExtra(rng, size, c.avg_auction_bytes, s);
        return std::string_view(*s);
      });
  }
}

ColumnPtr BidColumn(const NexmarkConfig& c, int col, int64_t from, int64_t to,
                    int64_t rows) {
  switch (col) {
    case 0:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        return HotOrRandomId(
                   c, n, kBAuction, c.hot_auction_ratio,
                   LastBase0AuctionId(c, n) / kHotAuctionBatch * kHotAuctionBatch,
                   NextBase0AuctionId) +
               kFirstAuctionId;
      });
    case 1:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        // Hot: the second person of the last batch of 100 (not a hot seller).
        return HotOrRandomId(
                   c, n, kBBidder, c.hot_bidders_ratio,
                   LastBase0PersonId(c, n) / kHotBidderBatch * kHotBidderBatch + 1,
                   NextBase0PersonId) +
               kFirstPersonId;
      });
    case 2:
      return LongColumn(c, from, to, rows, DataType::Long(), [&](int64_t n) {
        Rng rng(c.seed, n, kBPrice);
        return NextPrice(rng);
      });
    case 3:
    case 4: {
      const Channels& ch = TheChannels();
      const bool url = col == 4;
      return StringColumn(c, from, to, rows, url ? 60 : 10,
                          [&](int64_t n, std::string*) -> std::string_view {
                            Rng rng(c.seed, n, kBChannel);
                            if (rng.Below(kHotChannelsRatio) > 0) {
                              int64_t i = rng.Below(4);
                              return url ? std::string_view(ch.hot_urls[i])
                                         : std::string_view(kHotChannels[i]);
                            }
                            int64_t k = rng.Below(kChannels);
                            return url ? ch.urls[k] : ch.names[k];
                          });
    }
    case 5:
      return LongColumn(c, from, to, rows, DataType::Timestamp(),
                        [&](int64_t n) { return c.TimestampMs(n) * 1000; });
    default:
      return StringColumn(c, from, to, rows, 70, [&](int64_t n, std::string* s) {
        Rng rng(c.seed, n, kBExtra);
        NextExtra(rng, 32, c.avg_bid_bytes, s);
        return std::string_view(*s);
      });
  }
}

class NexmarkReader final : public BatchReader {
 public:
  NexmarkReader(const NexmarkConfig& c, int64_t from, int64_t to,
                std::vector<int> columns)
      : config_(c), next_(from), to_(to), columns_(std::move(columns)) {}
  Result<BatchPtr> Next() override {
    while (next_ < to_) {
      int64_t end = std::min(to_, next_ + kChunkEvents);
      BatchPtr b = GenerateNexmark(config_, next_, end, columns_);
      next_ = end;
      if (b->num_rows() > 0) return b;
    }
    return BatchPtr();
  }

 private:
  NexmarkConfig config_;
  int64_t next_, to_;
  std::vector<int> columns_;
};

class NexmarkDataSource final : public DataSource {
 public:
  NexmarkDataSource(const NexmarkConfig& c, int64_t from, int64_t to, int parts,
                    std::string description)
      : config_(c),
        from_(from),
        to_(to),
        parts_(std::max(1, parts)),
        description_(std::move(description)),
        schema_(NexmarkSchema(c.table)) {
    if (to_ - from_ < parts_)
      parts_ = static_cast<int>(std::max<int64_t>(1, to_ - from_));
  }
  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return to_ > from_ ? parts_ : 0; }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override {
    if (split < 0 || split >= num_splits()) return MakeEmptyReader();
    int64_t n = to_ - from_;
    int64_t a = from_ + n * split / parts_, b = from_ + n * (split + 1) / parts_;
    return std::unique_ptr<BatchReader>(new NexmarkReader(config_, a, b, spec.columns));
  }
  std::string Describe() const override { return description_; }

 private:
  NexmarkConfig config_;
  int64_t from_, to_;
  int parts_;
  std::string description_;
  SchemaPtr schema_;
};

std::string Describe(const NexmarkConfig& c) {
  return "NexmarkSource[table=" + NexmarkTableName(c.table) +
         ", events=" + std::to_string(c.events) + ", seed=" + std::to_string(c.seed) +
         "]";
}

class NexmarkSource final : public stream::Source {
 public:
  explicit NexmarkSource(const NexmarkConfig& c)
      : config_(c), schema_(NexmarkSchema(c.table)) {}
  const SchemaPtr& schema() const override { return schema_; }
  std::string Describe() const override { return connectors::Describe(config_); }
  Result<std::optional<Json>> LatestOffset(const std::optional<Json>& start) override {
    int64_t s = start ? start->int_value() : 0;
    int64_t cap = config_.max_events_per_trigger > 0 ? config_.max_events_per_trigger
                  : config_.events > 0               ? config_.events
                                                     : kDefaultUnboundedTrigger;
    if (available_now_pending_) {
      available_now_ = config_.events > 0 ? config_.events : s + cap;
      available_now_pending_ = false;
    }
    int64_t target = config_.events > 0 ? config_.events : INT64_MAX;
    if (available_now_) target = std::min(target, *available_now_);
    int64_t end = read_all_ ? target : std::min(target, s + cap);
    if (read_all_ && target == INT64_MAX) end = s + cap;
    read_all_ = false;
    if (end <= s) return start;
    return std::optional<Json>(Json::Int(end));
  }
  Status PrepareForAvailableNow() override {
    available_now_pending_ = true;
    return Status::OK();
  }
  void SetReadAllAvailable() override { read_all_ = true; }
  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override {
    int64_t s = start ? start->int_value() : 0, e = end.int_value();
    return MakeNexmarkDataSource(config_, s, e, config_.num_partitions, Describe());
  }
  std::optional<Json> ReportLatestOffset() const override {
    if (config_.events > 0) return Json::Int(config_.events);
    return std::nullopt;
  }

 private:
  NexmarkConfig config_;
  SchemaPtr schema_;
  std::optional<int64_t> available_now_;
  bool available_now_pending_ = false;
  bool read_all_ = false;
};

Status BadValue(const std::string& key, const std::string& v, const std::string& why) {
  return Status::Invalid("Invalid value '" + v + "' for option '" + key + "'" +
                         (why.empty() ? "" : ": " + why));
}

Result<int64_t> IntOption(const std::map<std::string, std::string>& o,
                          const std::string& key, int64_t dflt, int64_t min) {
  if (!HasOption(o, key)) return dflt;
  std::string v = GetOption(o, key);
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0) return BadValue(key, v, "not an integer");
  if (x < min) return BadValue(key, v, "must be at least " + std::to_string(min));
  return static_cast<int64_t>(x);
}

}  // namespace

int64_t NexmarkConfig::TimestampMs(int64_t n) const {
  const double inter_event_us = 1e6 / events_per_second;
  return start_ms + static_cast<int64_t>(static_cast<double>(n) * inter_event_us) / 1000;
}

std::string NexmarkTableName(NexmarkTable t) {
  switch (t) {
    case NexmarkTable::kPerson:
      return "person";
    case NexmarkTable::kAuction:
      return "auction";
    case NexmarkTable::kBid:
      return "bid";
  }
  return "bid";
}

SchemaPtr NexmarkSchema(NexmarkTable table) {
  auto f = [](const char* name, const DataTypePtr& t) {
    return Field{name, t, true, ""};
  };
  const auto& L = DataType::Long();
  const auto& S = DataType::String();
  const auto& T = DataType::Timestamp();
  static const SchemaPtr person = std::make_shared<const Schema>(std::vector<Field>{
      f("id", L), f("name", S), f("emailAddress", S), f("creditCard", S), f("city", S),
      f("state", S), f("dateTime", T), f("extra", S)});
  static const SchemaPtr auction = std::make_shared<const Schema>(std::vector<Field>{
      f("id", L), f("itemName", S), f("description", S), f("initialBid", L),
      f("reserve", L), f("dateTime", T), f("expires", T), f("seller", L),
      f("category", L), f("extra", S)});
  static const SchemaPtr bid = std::make_shared<const Schema>(
      std::vector<Field>{f("auction", L), f("bidder", L), f("price", L), f("channel", S),
                         f("url", S), f("dateTime", T), f("extra", S)});
  switch (table) {
    case NexmarkTable::kPerson:
      return person;
    case NexmarkTable::kAuction:
      return auction;
    case NexmarkTable::kBid:
      return bid;
  }
  return bid;
}

Result<NexmarkConfig> ParseNexmarkOptions(const std::map<std::string, std::string>& o) {
  NexmarkConfig c;
  std::string table = ToLower(GetOption(o, "table", "bid"));
  if (table == "person") {
    c.table = NexmarkTable::kPerson;
  } else if (table == "auction") {
    c.table = NexmarkTable::kAuction;
  } else if (table == "bid") {
    c.table = NexmarkTable::kBid;
  } else {
    return BadValue("table", GetOption(o, "table"), "expected person, auction or bid");
  }
  SPATE_ASSIGN_OR_RETURN(c.events, IntOption(o, "events", 0, 0));
  if (HasOption(o, "eventsPerSecond")) {
    std::string v = GetOption(o, "eventsPerSecond");
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(x > 0) || !std::isfinite(x))
      return BadValue("eventsPerSecond", v, "must be a positive number");
    c.events_per_second = x;
  }
  SPATE_ASSIGN_OR_RETURN(int64_t seed, IntOption(o, "seed", 0, INT64_MIN));
  c.seed = static_cast<uint64_t>(seed);
  SPATE_ASSIGN_OR_RETURN(c.start_ms, IntOption(o, "startTime", c.start_ms, 0));
  SPATE_ASSIGN_OR_RETURN(int64_t per_trigger, IntOption(o, "rowsPerBatch", 0, 1));
  SPATE_ASSIGN_OR_RETURN(c.max_events_per_trigger,
                         IntOption(o, "maxEventsPerTrigger", per_trigger, 1));
  int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  SPATE_ASSIGN_OR_RETURN(int64_t parts, IntOption(o, "numPartitions", cores, 1));
  c.num_partitions = static_cast<int>(std::min<int64_t>(parts, 4096));
  return c;
}

BatchPtr GenerateNexmark(const NexmarkConfig& c, int64_t from, int64_t to,
                         const std::vector<int>& columns) {
  const SchemaPtr& full = NexmarkSchema(c.table);
  int64_t rows = CountRows(c, from, to);
  std::vector<Field> fields;
  std::vector<ColumnPtr> cols;
  for (int col : columns) {
    fields.push_back(full->field(col));
    switch (c.table) {
      case NexmarkTable::kPerson:
        cols.push_back(PersonColumn(c, col, from, to, rows));
        break;
      case NexmarkTable::kAuction:
        cols.push_back(AuctionColumn(c, col, from, to, rows));
        break;
      case NexmarkTable::kBid:
        cols.push_back(BidColumn(c, col, from, to, rows));
        break;
    }
  }
  return Batch::Make(std::make_shared<const Schema>(std::move(fields)), std::move(cols),
                     rows);
}

DataSourcePtr MakeNexmarkDataSource(const NexmarkConfig& config, int64_t from, int64_t to,
                                    int parts, std::string description) {
  return std::make_shared<NexmarkDataSource>(config, from, to, parts,
                                             std::move(description));
}

Result<DataSourcePtr> MakeNexmarkRelation(
    const std::map<std::string, std::string>& options) {
  SPATE_ASSIGN_OR_RETURN(NexmarkConfig c, ParseNexmarkOptions(options));
  if (c.events <= 0) {
    return Status::Invalid(
        "The option 'events' must be positive for a batch read of format nexmark");
  }
  return MakeNexmarkDataSource(c, 0, c.events, c.num_partitions, Describe(c));
}

Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeNexmarkSourceFactory(
    const std::map<std::string, std::string>& options) {
  SPATE_ASSIGN_OR_RETURN(NexmarkConfig c, ParseNexmarkOptions(options));
  stream::SourceFactory factory =
      [c](const stream::SourceContext&) -> Result<stream::SourcePtr> {
    return stream::SourcePtr(std::make_shared<NexmarkSource>(c));
  };
  return std::make_pair(NexmarkSchema(c.table), std::move(factory));
}

}  // namespace spate::connectors
