// Copyright spate authors.
#include "spate/connectors/kafka.h"

#include <librdkafka/rdkafka.h>
#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/connectors/memory.h"
#include "spate/exec/executor.h"
#include "spate/stream/checkpoint.h"
#include "spate/types/format.h"

namespace spate::connectors::kafka {

namespace {

constexpr int64_t kEarliest = -2;
constexpr int64_t kLatest = -1;
constexpr int kMetadataTimeoutMs = 10000;
constexpr int64_t kRowsPerBatch = 8192;

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// ---- Options -----------------------------------------------------------------------

/// Source options by lower-cased name, and the kafka.* ones (prefix removed, case kept).
struct Params {
  std::map<std::string, std::string> source;
  std::vector<std::pair<std::string, std::string>> kafka;
  bool Has(const std::string& key) const { return source.count(key) > 0; }
  std::string Get(const std::string& key, const std::string& dflt = "") const {
    auto it = source.find(key);
    return it == source.end() ? dflt : it->second;
  }
  bool HasKafka(const std::string& key) const {
    for (const auto& [k, v] : kafka)
      if (Lower(k) == key) return true;
    return false;
  }
};

Params ParseParams(const std::map<std::string, std::string>& options) {
  Params p;
  for (const auto& [k, v] : options) {
    std::string lk = Lower(k);
    p.source[lk] = v;
    if (lk.rfind("kafka.", 0) == 0) p.kafka.emplace_back(k.substr(6), v);
  }
  return p;
}

Result<bool> BoolOption(const Params& p, const std::string& key, bool dflt) {
  if (!p.Has(key)) return dflt;
  std::string v = Lower(Trim(p.Get(key)));
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::Invalid("For input string: \"" + p.Get(key) + "\"");
}

Result<std::optional<int64_t>> LongOption(const Params& p, const std::string& key) {
  if (!p.Has(key)) return std::optional<int64_t>();
  SPATE_ASSIGN_OR_RETURN(int64_t x, ParseLong(Trim(p.Get(key))));
  return std::optional<int64_t>(x);
}

enum class StrategyKind : uint8_t { kSubscribe, kPattern, kAssign };

struct Strategy {
  StrategyKind kind = StrategyKind::kSubscribe;
  std::vector<std::string> topics;
  std::string pattern;
  std::vector<TopicPartition> assigned;
  /// Spark's ConsumerStrategy.toString.
  std::string Describe() const {
    std::string out;
    switch (kind) {
      case StrategyKind::kSubscribe:
        out = "Subscribe[";
        for (size_t i = 0; i < topics.size(); ++i) out += (i ? ", " : "") + topics[i];
        return out + "]";
      case StrategyKind::kPattern:
        return "SubscribePattern[" + pattern + "]";
      case StrategyKind::kAssign:
        out = "Assign[";
        for (size_t i = 0; i < assigned.size(); ++i)
          out += (i ? ", " : "") + assigned[i].ToString();
        return out + "]";
    }
    return out;
  }
};

const char* kStrategyKeys = "subscribe, subscribepattern, assign";

Status ValidateGeneral(const Params& p) {
  int n = p.Has("subscribe") + p.Has("subscribepattern") + p.Has("assign");
  if (n == 0) {
    return Status::Invalid(
        std::string("One of the following options must be specified for Kafka source: ") +
        kStrategyKeys + ". See the docs for more details.");
  }
  if (n > 1) {
    return Status::Invalid(
        std::string(
            "Only one of the following options can be specified for Kafka source: ") +
        kStrategyKeys + ". See the docs for more details.");
  }
  if (p.Has("assign") && Trim(p.Get("assign")).rfind('{', 0) != 0) {
    return Status::Invalid(
        "No topicpartitions to assign as specified value for option 'assign' is '" +
        p.Get("assign") + "'");
  }
  if (p.Has("subscribe")) {
    bool any = false;
    std::string v = p.Get("subscribe");
    size_t s = 0;
    while (s <= v.size()) {
      size_t e = v.find(',', s);
      if (e == std::string::npos) e = v.size();
      if (!Trim(v.substr(s, e - s)).empty()) any = true;
      s = e + 1;
    }
    if (!any) {
      return Status::Invalid(
          "No topics to subscribe to as specified value for option 'subscribe' is '" + v +
          "'");
    }
  }
  if (p.Has("subscribepattern") && Trim(p.Get("subscribepattern")).empty()) {
    return Status::Invalid(
        "Pattern to subscribe is empty as specified value for option 'subscribePattern' "
        "is "
        "'" +
        p.Get("subscribepattern") + "'");
  }
  if (p.Has("kafka.auto.offset.reset")) {
    return Status::Invalid(
        "\nKafka option 'auto.offset.reset' is not supported.\nInstead set the source "
        "option "
        "'startingoffsets' to 'earliest' or 'latest'\nto specify where to start. "
        "Structured "
        "Streaming manages which offsets are consumed\ninternally, rather than relying "
        "on the "
        "kafkaConsumer to do it. This will ensure that no\ndata is missed when new "
        "topics/partitions are dynamically subscribed. Note that\n'startingoffsets' only "
        "applies when a new Streaming query is started, and\nthat resuming will always "
        "pick "
        "up from where the query left off. See the docs for more\ndetails.\n");
  }
  if (p.Has("kafka.key.deserializer")) {
    return Status::Invalid(
        "Kafka option 'key.deserializer' is not supported as keys are deserialized as "
        "byte "
        "arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly "
        "deserialize the keys.");
  }
  if (p.Has("kafka.value.deserializer")) {
    return Status::Invalid(
        "Kafka option 'value.deserializer' is not supported as values are deserialized "
        "as "
        "byte arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly "
        "deserialize the values.");
  }
  for (const char* c : {"enable.auto.commit", "interceptor.classes"}) {
    if (p.Has(std::string("kafka.") + c))
      return Status::Invalid(std::string("Kafka option '") + c + "' is not supported");
  }
  if (!p.Has("kafka.bootstrap.servers")) {
    return Status::Invalid(
        "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka "
        "consumer");
  }
  SPATE_ASSIGN_OR_RETURN(auto min_p, LongOption(p, "minpartitions"));
  if (min_p && *min_p <= 0) return Status::Invalid("minPartitions must be positive");
  SPATE_ASSIGN_OR_RETURN(auto max_r, LongOption(p, "maxrecordsperpartition"));
  if (max_r && *max_r <= 0)
    return Status::Invalid("maxRecordsPerPartition must be positive");
  SPATE_ASSIGN_OR_RETURN(auto max_t, LongOption(p, "maxoffsetspertrigger"));
  SPATE_ASSIGN_OR_RETURN(auto min_t, LongOption(p, "minoffsetspertrigger"));
  if (max_t && min_t && *min_t > *max_t) {
    return Status::Invalid("The value of minOffsetPerTrigger(" + std::to_string(*min_t) +
                           ") is higher than the maxOffsetsPerTrigger(" +
                           std::to_string(*max_t) + ").");
  }
  SPATE_RETURN_IF_ERROR(BoolOption(p, "failondataloss", true).status());
  SPATE_RETURN_IF_ERROR(BoolOption(p, "includeheaders", false).status());
  return Status::OK();
}

Result<Strategy> ParseStrategy(const Params& p) {
  Strategy s;
  if (p.Has("assign")) {
    s.kind = StrategyKind::kAssign;
    SPATE_ASSIGN_OR_RETURN(s.assigned, ParsePartitionsText(p.Get("assign")));
  } else if (p.Has("subscribe")) {
    s.kind = StrategyKind::kSubscribe;
    std::string v = p.Get("subscribe");
    size_t b = 0;
    while (b <= v.size()) {
      size_t e = v.find(',', b);
      if (e == std::string::npos) e = v.size();
      std::string t = Trim(v.substr(b, e - b));
      if (!t.empty()) s.topics.push_back(t);
      b = e + 1;
    }
  } else {
    s.kind = StrategyKind::kPattern;
    s.pattern = Trim(p.Get("subscribepattern"));
    RE2 re(s.pattern);
    if (!re.ok()) {
      return Status::Invalid("Invalid subscribePattern '" + s.pattern +
                             "': " + re.error());
    }
  }
  return s;
}

/// startingOffsets / endingOffsets and their timestamp forms (Spark's
/// KafkaOffsetRangeLimit).
struct RangeLimit {
  enum class Kind : uint8_t {
    kEarliest,
    kLatest,
    kSpecific,         // offsets per partition (-2 / -1 allowed)
    kTimestamps,       // timestamps per partition (startingOffsetsByTimestamp)
    kGlobalTimestamp,  // one timestamp for every partition (startingTimestamp)
  } kind = Kind::kEarliest;
  PartitionOffsets specific;     // offsets, or timestamps for kTimestamps
  int64_t timestamp = 0;         // kGlobalTimestamp
  bool no_match_latest = false;  // startingOffsetsByTimestampStrategy=latest
};

/// Spark's getKafkaOffsetRangeLimit: a global timestamp first, then timestamps per
/// partition, then offsets (`prefix` is "starting" or "ending").
Result<RangeLimit> ParseRangeLimit(const Params& p, const std::string& prefix,
                                   RangeLimit::Kind dflt) {
  RangeLimit r;
  r.kind = dflt;
  std::string strategy =
      Lower(Trim(p.Get("startingoffsetsbytimestampstrategy", "error")));
  if (strategy != "error" && strategy != "latest") {
    return Status::Invalid("No value found for '" +
                           p.Get("startingoffsetsbytimestampstrategy") + "'");
  }
  r.no_match_latest = strategy == "latest";
  if (p.Has(prefix + "timestamp")) {
    std::string t = Trim(p.Get(prefix + "timestamp"));
    auto ts = ParseInt64(t);
    if (!ts) return Status::Invalid("Expected a single long value, got " + t);
    r.timestamp = *ts;
    r.kind = RangeLimit::Kind::kGlobalTimestamp;
    return r;
  }
  if (p.Has(prefix + "offsetsbytimestamp")) {
    std::string t = Trim(p.Get(prefix + "offsetsbytimestamp"));
    auto parsed = ParseOffsetsText(t);
    if (!parsed.ok()) {
      return Status::Invalid(
          "Expected e.g. {\"topicA\": {\"0\": 123456789, \"1\": 123456789},\n\"topicB\": "
          "{\"0\": 123456789, \"1\": 123456789}}, got " +
          t);
    }
    r.specific = *parsed;
    r.kind = RangeLimit::Kind::kTimestamps;
    return r;
  }
  const std::string key = prefix + "offsets";
  if (!p.Has(key)) return r;
  std::string v = Trim(p.Get(key));
  std::string lv = Lower(v);
  if (lv == "earliest") {
    r.kind = RangeLimit::Kind::kEarliest;
  } else if (lv == "latest") {
    r.kind = RangeLimit::Kind::kLatest;
  } else {
    r.kind = RangeLimit::Kind::kSpecific;
    SPATE_ASSIGN_OR_RETURN(r.specific, ParseOffsetsText(v));
  }
  return r;
}

// ---- librdkafka handles -------------------------------------------------------------

bool SecretLike(const std::string& key) {
  std::string k = Lower(key);
  for (const char* s : {"password", "secret", "jaas", "token", "key", "credential"}) {
    if (k.find(s) != std::string::npos) return true;
  }
  return false;
}

struct Client {
  rd_kafka_t* rk = nullptr;
  rd_kafka_queue_t* queue = nullptr;
  Client() = default;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() {
    if (queue) rd_kafka_queue_destroy(queue);
    if (!rk) return;
    if (rd_kafka_type(rk) != RD_KAFKA_CONSUMER) {
      rd_kafka_destroy(rk);
      return;
    }
    // librdkafka 2.0.2 can block for ever destroying a consumer whose partition's topic
    // was deleted (its broker thread never lets go of the partition): the consumer is
    // closed on a thread of its own, given up on (left to the process) after 5 s, so that
    // stopping a query never hangs on it.
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> closed = done->get_future();
    std::thread([c = rk, done] {
      rd_kafka_consumer_close(c);
      rd_kafka_destroy(c);
      done->set_value();
    }).detach();
    closed.wait_for(std::chrono::seconds(5));
  }
};

using ConfList = std::vector<std::pair<std::string, std::string>>;

/// A client with the user's kafka.* settings, then `fixed` (spate's own, which win unless
/// the user set the same key and `user_wins`). Error messages never carry a value of a
/// secret-looking key.
/// librdkafka's log lines (connection refused while a broker restarts, ...) go to stderr
/// only with SPATE_KAFKA_LOG=1; errors that matter reach the caller as a Status.
void LogLine(const rd_kafka_t*, int level, const char* fac, const char* buf) {
  static const bool on = [] {
    const char* v = std::getenv("SPATE_KAFKA_LOG");
    return v && std::string(v) == "1";
  }();
  if (on) std::fprintf(stderr, "%%%d|%s|%s\n", level, fac, buf);
}

/// Java client settings that librdkafka spells differently. `sasl.jaas.config` with
/// Kafka's PlainLoginModule or ScramLoginModule (what Spark users set) becomes
/// sasl.username / sasl.password unless those are set too; other login modules are
/// refused naming the module, never the options' values.
Result<ConfList> TranslateJavaConf(const ConfList& user) {
  ConfList out;
  std::optional<std::string> jaas;
  bool has_user = false, has_password = false;
  for (const auto& [k, v] : user) {
    std::string lk = Lower(k);
    if (lk == "sasl.jaas.config") {
      jaas = v;
      continue;
    }
    has_user |= lk == "sasl.username";
    has_password |= lk == "sasl.password";
    out.emplace_back(k, v);
  }
  if (!jaas) return out;
  std::string text = Trim(*jaas);
  size_t sp = text.find_first_of(" \t\n");
  std::string module = text.substr(0, sp);
  auto ends_with = [&](std::string_view suffix) {
    return module.size() >= suffix.size() &&
           module.compare(module.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends_with("PlainLoginModule") && !ends_with("ScramLoginModule")) {
    return Status::Invalid(
        "Kafka option 'kafka.sasl.jaas.config' with login module " + module +
        " is not supported: spate's Kafka client (librdkafka) takes the PLAIN / SCRAM "
        "credentials as kafka.sasl.username and kafka.sasl.password, OAUTHBEARER and "
        "GSSAPI through librdkafka's own sasl.* properties (docs/kafka.md)");
  }
  // key="value" pairs after `required` (values may contain spaces and escaped quotes).
  std::map<std::string, std::string> kv;
  size_t i = sp == std::string::npos ? text.size() : sp;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t eq = text.find('=', i);
    if (eq == std::string::npos) break;
    std::string key = Trim(text.substr(i, eq - i));
    size_t q = eq + 1;
    std::string val;
    if (q < text.size() && text[q] == '"') {
      ++q;
      while (q < text.size() && text[q] != '"') {
        if (text[q] == '\\' && q + 1 < text.size()) ++q;
        val += text[q++];
      }
      i = q + 1;
    } else {
      size_t e = text.find_first_of(" \t\n;", q);
      val = text.substr(q, e == std::string::npos ? std::string::npos : e - q);
      i = e == std::string::npos ? text.size() : e;
    }
    size_t kw = key.find_last_of(" \t");
    if (kw != std::string::npos) key = key.substr(kw + 1);  // drops "required"
    kv[key] = val;
  }
  if (!has_user && kv.count("username"))
    out.emplace_back("sasl.username", kv["username"]);
  if (!has_password && kv.count("password"))
    out.emplace_back("sasl.password", kv["password"]);
  return out;
}

Result<std::unique_ptr<Client>> NewClient(rd_kafka_type_t type, const ConfList& java_user,
                                          const ConfList& defaults,
                                          const ConfList& forced,
                                          rd_kafka_conf_t* base = nullptr) {
  auto translated = TranslateJavaConf(java_user);
  if (!translated.ok()) {
    if (base) rd_kafka_conf_destroy(base);
    return translated.status();
  }
  const ConfList& user = *translated;
  rd_kafka_conf_t* conf = base ? base : rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, &LogLine);
  char err[512];
  auto set = [&](const std::string& k, const std::string& v) -> Status {
    rd_kafka_conf_res_t r =
        rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err));
    if (r == RD_KAFKA_CONF_OK) return Status::OK();
    if (r == RD_KAFKA_CONF_UNKNOWN) {
      return Status::Invalid(
          "Kafka option 'kafka." + k +
          "' is not a librdkafka configuration property (spate's Kafka "
          "client is librdkafka, see docs/kafka.md)");
    }
    if (SecretLike(k))
      return Status::Invalid("Invalid value for Kafka option 'kafka." + k + "'");
    return Status::Invalid("Invalid value for Kafka option 'kafka." + k + "': " + err);
  };
  auto user_has = [&](const std::string& k) {
    for (const auto& [uk, uv] : user)
      if (Lower(uk) == k) return true;
    return false;
  };
  Status st;
  for (const auto& [k, v] : defaults) {
    if (!user_has(k) && st.ok()) st = set(k, v);
  }
  for (const auto& [k, v] : user) {
    if (st.ok()) st = set(k, v);
  }
  for (const auto& [k, v] : forced) {
    if (st.ok()) st = set(k, v);
  }
  if (!st.ok()) {
    rd_kafka_conf_destroy(conf);
    return st;
  }
  auto c = std::make_unique<Client>();
  c->rk = rd_kafka_new(type, conf, err, sizeof(err));
  if (!c->rk) {
    rd_kafka_conf_destroy(conf);
    return Status::IOError(std::string("Cannot create a Kafka client: ") + err);
  }
  if (type == RD_KAFKA_CONSUMER) {
    rd_kafka_poll_set_consumer(c->rk);
    c->queue = rd_kafka_queue_get_consumer(c->rk);
  }
  return c;
}

/// Settings of every consumer spate creates (Spark's kafkaParamsForDriver/Executors, in
/// librdkafka's names): no auto commit, Java's default isolation (read_uncommitted).
ConfList ConsumerDefaults() {
  return {{"isolation.level", "read_uncommitted"},
          {"receive.message.max.bytes", "100000000"},
          // pooled consumers keep prefetching between batches: bound what they hold
          {"queued.max.messages.kbytes", "16384"},
          {"log.connection.close", "false"}};
}

std::string ErrName(rd_kafka_resp_err_t e) { return rd_kafka_err2str(e); }

/// The driver's view of the topics: partitions of the strategy and their offsets.
class OffsetReader {
 public:
  /// `retries` / `retry_interval_ms`: Spark's fetchOffset.numRetries (3) and
  /// fetchOffset.retryIntervalMs (1000): attempts after the first failed one.
  OffsetReader(Strategy strategy, ConfList kafka, std::string group_id, int retries = 3,
               int64_t retry_interval_ms = 1000)
      : strategy_(std::move(strategy)),
        kafka_(std::move(kafka)),
        group_id_(std::move(group_id)),
        retries_(retries),
        retry_interval_ms_(retry_interval_ms) {}

  Status Open() {
    if (client_) return Status::OK();
    SPATE_ASSIGN_OR_RETURN(
        client_, NewClient(RD_KAFKA_CONSUMER, kafka_, ConsumerDefaults(),
                           {{"group.id", group_id_}, {"enable.auto.commit", "false"}}));
    if (strategy_.kind == StrategyKind::kPattern)
      pattern_ = std::make_unique<RE2>(strategy_.pattern);
    return Status::OK();
  }

  const Strategy& strategy() const { return strategy_; }
  void Close() { client_.reset(); }

  /// Before a retry: wait fetchOffset.retryIntervalMs, then a new client (one whose
  /// broker went away can keep stale metadata, e.g. "Unknown partition", for minutes).
  Status Reconnect() {
    std::this_thread::sleep_for(std::chrono::milliseconds(retry_interval_ms_));
    client_.reset();
    return Open();
  }

  Result<std::vector<TopicPartition>> Partitions() {
    SPATE_RETURN_IF_ERROR(Open());
    if (strategy_.kind == StrategyKind::kAssign) return strategy_.assigned;
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;
    for (int attempt = 0; attempt <= retries_; ++attempt) {
      if (attempt > 0) SPATE_RETURN_IF_ERROR(Reconnect());
      e = rd_kafka_metadata(client_->rk, 1, nullptr, &md, kMetadataTimeoutMs);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
    }
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::IOError("Cannot fetch Kafka metadata for " + strategy_.Describe() +
                             ": " + ErrName(e));
    }
    std::vector<TopicPartition> out;
    for (int i = 0; i < md->topic_cnt; ++i) {
      const auto& t = md->topics[i];
      if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
      std::string name = t.topic;
      bool want = false;
      if (strategy_.kind == StrategyKind::kSubscribe) {
        want = std::find(strategy_.topics.begin(), strategy_.topics.end(), name) !=
               strategy_.topics.end();
      } else {
        // Java's consumer leaves internal topics (__consumer_offsets, ...) out of
        // patterns.
        want = name.rfind("__", 0) != 0 && RE2::FullMatch(name, *pattern_);
      }
      if (!want) continue;
      for (int k = 0; k < t.partition_cnt; ++k) out.push_back({name, t.partitions[k].id});
    }
    rd_kafka_metadata_destroy(md);
    std::sort(out.begin(), out.end());
    return out;
  }

  /// Offsets of `parts` at `which` (kEarliest / kLatest), one ListOffsets per leader.
  Result<PartitionOffsets> Fetch(const std::vector<TopicPartition>& parts,
                                 int64_t which) {
    PartitionOffsets query;
    for (const auto& tp : parts) query[tp] = which;
    return FetchQuery(query);
  }

  /// Spark's fetchLatestOffsets(knownOffsets): the latest offsets of `parts`, fetched
  /// again (fetchOffset.retryIntervalMs apart, at most fetchOffset.numRetries fetches in
  /// all, on the same client) while one is below the offset `known` holds for its
  /// partition — a new leader whose high watermark still lags after a leader change
  /// (KAFKA-7703) — then whatever the last fetch gave (a recreated topic looks the same
  /// and stays so).
  Result<PartitionOffsets> FetchLatest(const std::vector<TopicPartition>& parts,
                                       const PartitionOffsets& known) {
    for (int attempt = 1;; ++attempt) {
      SPATE_ASSIGN_OR_RETURN(auto latest, Fetch(parts, kLatest));
      bool below = false;
      for (const auto& [tp, o] : latest) {
        auto it = known.find(tp);
        below |= it != known.end() && it->second > o;
      }
      if (!below || attempt >= retries_) return latest;
      std::this_thread::sleep_for(std::chrono::milliseconds(retry_interval_ms_));
    }
  }

  /// ListOffsets for each partition's value: -2 earliest, -1 latest, else a timestamp
  /// (the first offset whose timestamp is at or after it; -1 when there is none).
  Result<PartitionOffsets> FetchQuery(const PartitionOffsets& query) {
    SPATE_RETURN_IF_ERROR(Open());
    PartitionOffsets out;
    if (query.empty()) return out;
    Status last;
    for (int attempt = 0; attempt <= retries_; ++attempt) {
      if (attempt > 0) SPATE_RETURN_IF_ERROR(Reconnect());
      rd_kafka_topic_partition_list_t* list =
          rd_kafka_topic_partition_list_new(static_cast<int>(query.size()));
      for (const auto& [tp, q] : query) {
        rd_kafka_topic_partition_list_add(list, tp.topic.c_str(), tp.partition)->offset =
            q;
      }
      rd_kafka_resp_err_t e =
          rd_kafka_offsets_for_times(client_->rk, list, kMetadataTimeoutMs);
      last = Status::OK();
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        last = Status::IOError("Cannot fetch Kafka offsets for " + strategy_.Describe() +
                               ": " + ErrName(e));
      } else {
        for (int i = 0; i < list->cnt; ++i) {
          const auto& el = list->elems[i];
          if (el.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            last = Status::IOError("Cannot fetch the offsets of Kafka topic partition " +
                                   std::string(el.topic) + "-" +
                                   std::to_string(el.partition) + ": " + ErrName(el.err));
            break;
          }
          out[{el.topic, el.partition}] = el.offset;
        }
      }
      rd_kafka_topic_partition_list_destroy(list);
      if (last.ok()) return out;
      out.clear();
    }
    return last;
  }

 private:
  Strategy strategy_;
  ConfList kafka_;
  std::string group_id_;
  int retries_;
  int64_t retry_interval_ms_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<RE2> pattern_;
};

std::string PartitionSet(const std::set<TopicPartition>& s) {
  std::string out = "Set(";
  bool first = true;
  for (const auto& tp : s) {
    out += (first ? "" : ", ") + tp.ToString();
    first = false;
  }
  return out + ")";
}

/// A Scala Map of topic-partitions to offsets as Spark prints it: Map(t-0 -> 5, t-1 ->
/// 3).
std::string PartitionMap(const PartitionOffsets& m) {
  std::string out = "Map(";
  bool first = true;
  for (const auto& [tp, o] : m) {
    out += (first ? "" : ", ") + tp.ToString() + " -> " + std::to_string(o);
    first = false;
  }
  return out + ")";
}

// ---- Reading a batch: one consumer per (partition, offset range) --------------------

struct OffsetRange {
  TopicPartition tp;
  int64_t from = 0;
  int64_t until = 0;
};

/// Idle range consumers of a streaming source, one per partition, kept with the offset
/// their queue delivers next: the next batch's range of that partition usually starts
/// there, so its reader goes on with the same consumer (no new connection, and what it
/// fetched meanwhile is ready). Thread safety: a mutex (splits run in parallel).
class ConsumerPool {
 public:
  std::unique_ptr<Client> Take(const TopicPartition& tp, int64_t from) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = idle_.find(tp);
    if (it == idle_.end()) return nullptr;
    std::unique_ptr<Client> c;
    if (it->second.first == from) c = std::move(it->second.second);
    idle_.erase(it);  // a consumer elsewhere in the log is dropped
    return c;
  }
  void Give(const TopicPartition& tp, std::unique_ptr<Client> c, int64_t next) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_[tp] = {next, std::move(c)};
  }
  void Clear() {
    std::map<TopicPartition, std::pair<int64_t, std::unique_ptr<Client>>> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      drop.swap(idle_);
    }
  }

 private:
  std::mutex mu_;
  std::map<TopicPartition, std::pair<int64_t, std::unique_ptr<Client>>> idle_;
};

struct ReadOptions {
  ConfList kafka;
  std::string group_id;
  bool include_headers = false;
  bool fail_on_data_loss = true;
  int64_t poll_timeout_ms = 120000;
  std::shared_ptr<ConsumerPool> pool;  // streaming sources only
};

const std::string& InstructionFailOnDataLossTrue() {
  static const std::string s =
      "\nSome data may have been lost because they are not available in Kafka any more; "
      "either the\n data was aged out by Kafka or the topic may have been deleted before "
      "all "
      "the data in the\n topic was processed. If you don't want your streaming query to "
      "fail "
      "on such cases, set the\n source option \"failOnDataLoss\" to \"false\".\n";
  return s;
}

SchemaPtr ProjectSchema(const SchemaPtr& full, const std::vector<int>& cols) {
  std::vector<Field> f;
  for (int c : cols) f.push_back(full->field(c));
  return std::make_shared<const Schema>(f);
}

/// Reads [from, until) of one partition into columnar batches of up to kRowsPerBatch
/// rows.
class RangeReader final : public BatchReader {
 public:
  RangeReader(OffsetRange r, std::shared_ptr<const ReadOptions> o, SchemaPtr full,
              std::vector<int> cols)
      : r_(std::move(r)),
        o_(std::move(o)),
        full_(std::move(full)),
        cols_(std::move(cols)) {
    next_ = r_.from;
    schema_ = ProjectSchema(full_, cols_);
  }
  ~RangeReader() override {
    if (msgs_.size()) {
      for (size_t i = 0; i < buffered_; ++i) rd_kafka_message_destroy(msgs_[i]);
    }
    Release();
  }

  Result<BatchPtr> Next() override {
    if (next_ >= r_.until) return BatchPtr();
    if (!client_) SPATE_RETURN_IF_ERROR(Start(next_));
    // Only the columns the scan reads are built (the topic, one name per range, at the
    // end); keys and values go into buffers sized from the previous batch (no regrowth
    // copies).
    bool built[8] = {};
    for (int c : cols_) built[c] = true;
    const bool built_ts = built[5] || built[6];
    auto rows_for = [&](int c) { return built[c] ? kRowsPerBatch : int64_t{1}; };
    StringBuilder key(DataType::Binary(), rows_for(0), built[0] ? key_bytes_ : 64),
        value(DataType::Binary(), rows_for(1), built[1] ? value_bytes_ : 64),
        topic(DataType::String(), rows_for(2));
    FixedWidthBuilder<int32_t> part(DataType::Int(), rows_for(3)),
        ts_type(DataType::Int(), rows_for(6));
    FixedWidthBuilder<int64_t> off(DataType::Long(), rows_for(4)),
        ts(DataType::Timestamp(), rows_for(5));
    int64_t key_bytes = 0, value_bytes = 0;
    // headers: array<struct<key,value>> built from its parts.
    std::vector<int32_t> h_offsets{0};
    ValidityBuilder h_valid;
    StringBuilder h_key(DataType::String()), h_value(DataType::Binary());
    int64_t rows = 0;
    auto last_progress = std::chrono::steady_clock::now();
    msgs_.resize(1024);
    while (rows < kRowsPerBatch && next_ < r_.until) {
      // Never more than the range still needs: what stays in the queue is the next
      // batch's (the consumer goes back to the pool knowing where its queue is).
      size_t want = static_cast<size_t>(std::clamp<int64_t>(r_.until - next_, 1, 1024));
      ssize_t got = rd_kafka_consume_batch_queue(client_->queue, 100, msgs_.data(), want);
      if (got < 0) return Status::IOError("Kafka consume failed for " + r_.tp.ToString());
      buffered_ = static_cast<size_t>(got);
      bool restart = false;
      bool progressed = false;
      Status error;
      for (size_t i = 0; i < buffered_; ++i) {
        rd_kafka_message_t* m = msgs_[i];
        if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
          queue_next_ = m->offset + 1;
        } else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          queue_next_ = m->offset;
        } else {
          healthy_ = false;
        }
        if (!error.ok() || restart || next_ >= r_.until) continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          // Position == high watermark: records of control batches (transaction markers)
          // may make the range end without a record at until - 1.
          if (m->offset >= r_.until) next_ = r_.until;
          continue;
        }
        if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
          if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
              m->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
            auto st = OnOutOfRange(&restart);
            if (!st.ok()) error = st;
            continue;
          }
          if (m->err == RD_KAFKA_RESP_ERR__TRANSPORT ||
              m->err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
            continue;  // librdkafka reconnects; the poll timeout bounds the wait
          error =
              Status::IOError("Kafka error reading " + r_.tp.ToString() + " at offset " +
                              std::to_string(next_) + ": " + rd_kafka_message_errstr(m));
          continue;
        }
        if (m->offset < next_) continue;
        if (m->offset >= r_.until) {
          next_ = r_.until;
          continue;
        }
        if (!built[0]) {
        } else if (m->key) {
          key.Append({static_cast<const char*>(m->key), m->key_len});
          key_bytes += static_cast<int64_t>(m->key_len);
        } else {
          key.AppendNull();
        }
        if (!built[1]) {
        } else if (m->payload) {
          value.Append({static_cast<const char*>(m->payload), m->len});
          value_bytes += static_cast<int64_t>(m->len);
        } else {
          value.AppendNull();
        }
        if (built[3]) part.Append(r_.tp.partition);
        if (built[4]) off.Append(m->offset);
        if (built_ts) {
          rd_kafka_timestamp_type_t tt;
          int64_t t = rd_kafka_message_timestamp(m, &tt);
          if (built[5]) ts.Append(t * 1000);
          if (built[6]) {
            ts_type.Append(tt == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? 0
                           : tt == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? 1
                                                                      : -1);
          }
        }
        if (o_->include_headers && built[7]) {
          rd_kafka_headers_t* hdrs = nullptr;
          size_t n = 0;
          if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs)
            n = rd_kafka_header_cnt(hdrs);
          if (n == 0) {
            h_valid.AppendNull();  // Spark: no headers -> NULL
          } else {
            h_valid.AppendValid();
            for (size_t k = 0; k < n; ++k) {
              const char* name;
              const void* val;
              size_t size;
              rd_kafka_header_get_all(hdrs, k, &name, &val, &size);
              h_key.Append(name);
              if (val) {
                h_value.Append({static_cast<const char*>(val), size});
              } else {
                h_value.AppendNull();
              }
            }
          }
          h_offsets.push_back(static_cast<int32_t>(h_key.length()));
        }
        next_ = m->offset + 1;
        ++rows;
        progressed = true;
      }
      if (progressed) last_progress = std::chrono::steady_clock::now();
      for (size_t i = 0; i < buffered_; ++i) rd_kafka_message_destroy(msgs_[i]);
      buffered_ = 0;
      if (!error.ok()) {
        healthy_ = false;
        return error;
      }
      if (restart) {
        client_.reset();
        healthy_ = true;
        queue_next_ = -1;
        if (next_ < r_.until) SPATE_RETURN_IF_ERROR(Start(next_));
        continue;
      }
      if (got == 0 && next_ < r_.until &&
          std::chrono::steady_clock::now() - last_progress >
              std::chrono::milliseconds(o_->poll_timeout_ms)) {
        return Status::IOError("Cannot fetch record for offset " + std::to_string(next_) +
                               " in " + std::to_string(o_->poll_timeout_ms) +
                               " milliseconds (GroupId: " + o_->group_id +
                               ", TopicPartition: " + r_.tp.ToString() + ")");
      }
    }
    if (next_ >= r_.until) Release();
    if (rows == kRowsPerBatch) {
      key_bytes_ = std::max<int64_t>(64, key_bytes + key_bytes / 8);
      value_bytes_ = std::max<int64_t>(64, value_bytes + value_bytes / 8);
    }
    if (built[2]) {
      for (int64_t i = 0; i < rows; ++i) topic.Append(r_.tp.topic);
    }
    std::vector<ColumnPtr> all{key.Finish(),    value.Finish(), topic.Finish(),
                               part.Finish(),   off.Finish(),   ts.Finish(),
                               ts_type.Finish()};
    if (o_->include_headers && built[7]) {
      auto hk = h_key.Finish();
      auto hv = h_value.Finish();
      auto st_type = full_->field(7).type->element_type();
      auto entries =
          std::make_shared<const Column>(st_type, hk->length(), 0, nullptr, nullptr,
                                         nullptr, std::vector<ColumnPtr>{hk, hv});
      auto offs = Buffer::Allocate(static_cast<int64_t>(h_offsets.size()) * 4);
      std::memcpy(offs->mutable_data(), h_offsets.data(), h_offsets.size() * 4);
      int64_t nulls = h_valid.null_count();
      all.push_back(std::make_shared<const Column>(full_->field(7).type, rows, nulls,
                                                   h_valid.Finish(), offs, nullptr,
                                                   std::vector<ColumnPtr>{entries}));
    }
    if (rows == 0) return BatchPtr();
    std::vector<ColumnPtr> out;
    for (int c : cols_) out.push_back(all[static_cast<size_t>(c)]);
    return Batch::Make(schema_, std::move(out), rows);
  }

 private:
  /// Back to the pool (streaming) when the consumer's queue position is known, else
  /// closed.
  void Release() {
    if (!client_) return;
    if (o_->pool && healthy_ && queue_next_ >= 0) {
      o_->pool->Give(r_.tp, std::move(client_), queue_next_);
    }
    client_.reset();
  }

  Status Start(int64_t from) {
    if (o_->pool) {
      client_ = o_->pool->Take(r_.tp, from);
      if (client_) {
        queue_next_ = from;
        healthy_ = true;
        return Status::OK();
      }
    }
    healthy_ = true;
    queue_next_ = -1;
    SPATE_ASSIGN_OR_RETURN(client_,
                           NewClient(RD_KAFKA_CONSUMER, o_->kafka, ConsumerDefaults(),
                                     {{"group.id", o_->group_id},
                                      {"enable.auto.commit", "false"},
                                      {"enable.auto.offset.store", "false"},
                                      {"enable.partition.eof", "true"},
                                      {"auto.offset.reset", "error"}}));
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, r_.tp.topic.c_str(), r_.tp.partition)
        ->offset = from;
    rd_kafka_resp_err_t e = rd_kafka_assign(client_->rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
      return Status::IOError("Cannot assign Kafka topic partition " + r_.tp.ToString() +
                             ": " + ErrName(e));
    return Status::OK();
  }

  /// The next offset is no longer in the log (aged out): Spark's failOnDataLoss handling
  /// (fail, or go on from the earliest offset still there).
  Status OnOutOfRange(bool* restart) {
    if (o_->fail_on_data_loss) {
      return Status(StatusCode::kFailedPrecondition,
                    "Cannot fetch offset " + std::to_string(next_) + " (GroupId: " +
                        o_->group_id + ", TopicPartition: " + r_.tp.ToString() + "). " +
                        InstructionFailOnDataLossTrue());
    }
    int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
        client_->rk, r_.tp.topic.c_str(), r_.tp.partition, &lo, &hi, kMetadataTimeoutMs);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
      return Status::IOError("Cannot fetch the earliest offset of " + r_.tp.ToString() +
                             ": " + ErrName(e));
    next_ = std::max(next_, std::min(lo, r_.until));
    *restart = true;
    return Status::OK();
  }

  OffsetRange r_;
  std::shared_ptr<const ReadOptions> o_;
  SchemaPtr full_, schema_;
  std::vector<int> cols_;
  // Key and value bytes of the last full batch and an eighth more: the next batch's
  // buffers.
  int64_t key_bytes_ = 8192, value_bytes_ = 8192;
  std::unique_ptr<Client> client_;
  std::vector<rd_kafka_message_t*> msgs_;
  size_t buffered_ = 0;
  int64_t next_ = 0;
  int64_t queue_next_ =
      -1;                // the offset the consumer's queue delivers next (-1: unknown)
  bool healthy_ = true;  // no error seen: the consumer may be pooled
};

class RangesDataSource final : public DataSource {
 public:
  RangesDataSource(std::vector<OffsetRange> ranges, std::shared_ptr<const ReadOptions> o,
                   std::string description)
      : ranges_(std::move(ranges)),
        o_(std::move(o)),
        schema_(KafkaSchema(o_->include_headers)),
        description_(std::move(description)) {}
  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(ranges_.size()); }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override {
    std::vector<int> cols = spec.columns;
    return std::unique_ptr<BatchReader>(std::make_unique<RangeReader>(
        ranges_[static_cast<size_t>(split)], o_, schema_, cols));
  }
  std::string Describe() const override { return description_; }

 private:
  std::vector<OffsetRange> ranges_;
  std::shared_ptr<const ReadOptions> o_;
  SchemaPtr schema_;
  std::string description_;
};

int64_t PartCount(int64_t size, int64_t total, int64_t min_parts) {
  return std::max<int64_t>(
      std::llround(static_cast<double>(size) / static_cast<double>(total) *
                   static_cast<double>(min_parts)),
      1);
}

/// Spark's KafkaOffsetRangeCalculator.getRanges: with minPartitions above the number of
/// non-empty ranges, large ranges are cut into about size / total * minPartitions pieces
/// (small ones are left whole and not counted in the proportion).
/// `r` cut into `parts` nearly equal pieces (the last ones take the rounding).
void CutRange(const OffsetRange& r, int64_t parts, std::vector<OffsetRange>* out) {
  int64_t remaining = r.until - r.from, start = r.from;
  for (int64_t k = 0; k < parts; ++k) {
    int64_t piece = remaining / (parts - k);
    remaining -= piece;
    int64_t end = std::min(start + piece, r.until);
    if (end > start) out->push_back({r.tp, start, end});
    start = end;
  }
}

std::vector<OffsetRange> SplitRanges(const std::vector<OffsetRange>& in,
                                     std::optional<int64_t> min_parts,
                                     std::optional<int64_t> max_records = std::nullopt) {
  std::vector<OffsetRange> ranges;
  for (const auto& r : in) {
    if (r.until <= r.from) continue;
    // maxRecordsPerPartition (Spark's documentation): ranges cut to at most that many
    // offsets first; minPartitions then applies to the result.
    if (max_records && r.until - r.from > *max_records) {
      CutRange(r, (r.until - r.from + *max_records - 1) / *max_records, &ranges);
    } else {
      ranges.push_back(r);
    }
  }
  if (!min_parts || static_cast<int64_t>(ranges.size()) >= *min_parts) return ranges;
  int64_t total = 0;
  for (const auto& r : ranges) total += r.until - r.from;
  std::vector<bool> whole(ranges.size());
  int64_t whole_size = 0, whole_count = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    whole[i] = PartCount(ranges[i].until - ranges[i].from, total, *min_parts) == 1;
    if (whole[i]) {
      whole_size += ranges[i].until - ranges[i].from;
      ++whole_count;
    }
  }
  int64_t split_total = total - whole_size;
  int64_t split_min = std::max<int64_t>(*min_parts - whole_count, 1);
  std::vector<OffsetRange> out;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto& r = ranges[i];
    int64_t size = r.until - r.from;
    CutRange(r, whole[i] ? 1 : PartCount(size, split_total, split_min), &out);
  }
  return out;
}

/// Spark's KafkaOffsetReader.getOffsetRangesFromResolvedOffsets: the ranges of a batch
/// from its start and end offsets; partitions new in `until` start at their earliest.
Result<std::vector<OffsetRange>> ResolveRanges(OffsetReader* reader,
                                               const PartitionOffsets& from,
                                               const PartitionOffsets& until,
                                               bool fail_on_data_loss) {
  std::vector<TopicPartition> added;
  for (const auto& [tp, o] : until) {
    if (!from.count(tp)) added.push_back(tp);
  }
  PartitionOffsets start = from;
  if (!added.empty()) {
    SPATE_ASSIGN_OR_RETURN(auto earliest, reader->Fetch(added, kEarliest));
    for (const auto& [tp, o] : earliest) {
      if (o != 0 && fail_on_data_loss) {
        return Status::Error(
            "KAFKA_DATA_LOSS.ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO",
            {{"topicPartition", tp.ToString()}, {"startOffset", std::to_string(o)}});
      }
      start[tp] = o;
    }
  }
  std::set<TopicPartition> deleted;
  for (const auto& [tp, o] : from) {
    if (!until.count(tp)) deleted.insert(tp);
  }
  if (!deleted.empty() && fail_on_data_loss) {
    return Status::Error("KAFKA_DATA_LOSS.PARTITIONS_DELETED",
                         {{"partitions", PartitionSet(deleted)}});
  }
  std::vector<OffsetRange> out;
  for (const auto& [tp, end] : until) {
    int64_t s = start[tp];
    if (end < s) {
      if (fail_on_data_loss) {
        return Status::Error("KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED",
                             {{"topicPartition", tp.ToString()},
                              {"prevOffset", std::to_string(s)},
                              {"newOffset", std::to_string(end)}});
      }
      continue;
    }
    if (end > s) out.push_back({tp, s, end});
  }
  return out;
}

/// minOffsetsPerTrigger / maxTriggerDelay (Spark's ReadMinRows).
struct MinRows {
  int64_t min_rows = 0;
  int64_t max_delay_ms = 15 * 60 * 1000;
};

/// Resolves a startingOffsets / endingOffsets limit against the current partitions.
Result<PartitionOffsets> ResolveLimit(OffsetReader* reader, const RangeLimit& limit,
                                      bool fail_on_data_loss, bool is_start = true) {
  SPATE_ASSIGN_OR_RETURN(auto parts, reader->Partitions());
  if (limit.kind == RangeLimit::Kind::kEarliest) return reader->Fetch(parts, kEarliest);
  if (limit.kind == RangeLimit::Kind::kLatest) return reader->Fetch(parts, kLatest);
  if (limit.kind == RangeLimit::Kind::kTimestamps ||
      limit.kind == RangeLimit::Kind::kGlobalTimestamp) {
    PartitionOffsets query;
    if (limit.kind == RangeLimit::Kind::kGlobalTimestamp) {
      for (const auto& tp : parts) query[tp] = limit.timestamp;
    } else {
      std::set<TopicPartition> assigned(parts.begin(), parts.end()), specified;
      for (const auto& [tp, t] : limit.specific) specified.insert(tp);
      if (assigned != specified) {
        return Status::Error("KAFKA_TIMESTAMP_OFFSET_DOES_NOT_MATCH_ASSIGNED",
                             {{"position", is_start ? "start" : "end"},
                              {"specifiedPartitions", PartitionSet(specified)},
                              {"assignedPartitions", PartitionSet(assigned)}});
      }
      query = limit.specific;
    }
    SPATE_ASSIGN_OR_RETURN(auto found, reader->FetchQuery(query));
    std::vector<TopicPartition> unmatched;
    for (const auto& [tp, o] : found) {
      if (o >= 0) continue;
      if (is_start && !limit.no_match_latest) {
        return Status::Invalid("No offset matched from request of topic-partition " +
                               tp.ToString() + " and timestamp " +
                               std::to_string(query[tp]) + ".");
      }
      unmatched.push_back(tp);
    }
    if (!unmatched.empty()) {
      SPATE_ASSIGN_OR_RETURN(auto latest, reader->Fetch(unmatched, kLatest));
      for (const auto& [tp, o] : latest) found[tp] = o;
    }
    return found;
  }
  std::set<TopicPartition> assigned(parts.begin(), parts.end()), specified;
  for (const auto& [tp, o] : limit.specific) specified.insert(tp);
  if (assigned != specified) {
    return Status::Error("KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED",
                         {{"specifiedPartitions", PartitionSet(specified)},
                          {"assignedPartitions", PartitionSet(assigned)}});
  }
  SPATE_ASSIGN_OR_RETURN(auto earliest, reader->Fetch(parts, kEarliest));
  SPATE_ASSIGN_OR_RETURN(auto latest, reader->Fetch(parts, kLatest));
  PartitionOffsets out;
  for (const auto& [tp, o] : limit.specific) {
    if (o == kEarliest) {
      out[tp] = earliest[tp];
    } else if (o == kLatest) {
      out[tp] = latest[tp];
    } else if (o < earliest[tp] || o > latest[tp]) {
      // Java's consumer (auto.offset.reset=earliest on the driver) resets to the
      // earliest.
      if (fail_on_data_loss) {
        return Status::Error("KAFKA_DATA_LOSS.START_OFFSET_RESET",
                             {{"topicPartition", tp.ToString()},
                              {"offset", std::to_string(o)},
                              {"fetchedOffset", std::to_string(earliest[tp])}});
      }
      out[tp] = earliest[tp];
    } else {
      out[tp] = o;
    }
  }
  return out;
}

std::string UniqueGroupId(const Params& p, const std::string& kind,
                          const std::string& path) {
  if (p.Has("kafka.group.id")) return p.Get("kafka.group.id");
  std::string prefix = p.Get("groupidprefix", "spark-kafka-" + kind);
  std::string id = prefix + "-" + stream::RandomUuid();
  if (!path.empty()) id += "-" + std::to_string(JavaStringHash(path));
  return id;
}

// ---- Streaming source ----------------------------------------------------------------

class KafkaMicroBatchSource final : public stream::Source {
 public:
  KafkaMicroBatchSource(const stream::SourceContext& ctx, const Strategy& strategy,
                        const Params& p, RangeLimit starting,
                        std::optional<int64_t> max_offsets,
                        std::optional<MinRows> min_rows,
                        std::optional<int64_t> min_partitions,
                        std::optional<int64_t> max_records, bool fail_on_data_loss,
                        bool include_headers)
      : ctx_(ctx),
        starting_(std::move(starting)),
        max_offsets_(max_offsets),
        min_rows_(min_rows),
        min_partitions_(min_partitions),
        max_records_(max_records),
        fail_on_data_loss_(fail_on_data_loss),
        schema_(KafkaSchema(include_headers)) {
    std::string group = UniqueGroupId(p, "source", ctx.metadata_path);
    auto retries = LongOption(p, "fetchoffset.numretries");
    auto interval = LongOption(p, "fetchoffset.retryintervalms");
    reader_ = std::make_unique<OffsetReader>(
        strategy, p.kafka, group + "-driver",
        retries.ok() && *retries ? static_cast<int>(**retries) : 3,
        interval.ok() && *interval ? **interval : 1000);
    auto o = std::make_shared<ReadOptions>();
    o->kafka = p.kafka;
    o->group_id = p.Has("kafka.group.id") ? group : group + "-executor";
    o->include_headers = include_headers;
    o->fail_on_data_loss = fail_on_data_loss;
    auto pt = LongOption(p, "kafkaconsumer.polltimeoutms");
    if (pt.ok() && *pt) o->poll_timeout_ms = **pt;
    o->pool = pool_;
    read_ = o;
    kafka_ = p.kafka;
    auto commit = BoolOption(p, "commitoffsetstogroup", false);
    if (commit.ok() && *commit) commit_group_ = p.Get("kafka.group.id");
  }

  Status Init() { return reader_->Open(); }

  /// commitOffsetsToGroup (beyond Spark): the committed batch's end offsets go to the
  /// consumer group kafka.group.id, for lag monitoring only (spate never reads them). A
  /// failed commit does not fail the query; progress counts it (offsetCommitFailures).
  Status Commit(const Json& end) override {
    if (!commit_group_) return Status::OK();
    auto offsets = OffsetsFromJson(end);
    if (!offsets.ok() || offsets->empty()) return Status::OK();
    if (!committer_) {
      auto c = NewClient(RD_KAFKA_CONSUMER, kafka_, ConsumerDefaults(),
                         {{"group.id", *commit_group_}, {"enable.auto.commit", "false"}});
      if (!c.ok()) {
        ++commit_failures_;
        return Status::OK();
      }
      committer_ = std::move(*c);
    }
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(offsets->size()));
    for (const auto& [tp, o] : *offsets)
      rd_kafka_topic_partition_list_add(list, tp.topic.c_str(), tp.partition)->offset = o;
    rd_kafka_resp_err_t e = rd_kafka_commit(committer_->rk, list, 0);
    rd_kafka_topic_partition_list_destroy(list);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) ++commit_failures_;
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_; }
  std::string Describe() const override {
    return "KafkaV2[" + reader_->strategy().Describe() + "]";
  }
  bool SupportsRealTime() const override { return true; }

  Result<std::optional<Json>> LatestOffset(const std::optional<Json>& start) override {
    PartitionOffsets from;
    if (start) {
      SPATE_ASSIGN_OR_RETURN(from, OffsetsFromJson(*start));
    } else {
      SPATE_ASSIGN_OR_RETURN(from, InitialOffsets());
    }
    PartitionOffsets latest;
    if (available_now_requested_ && !available_now_) {
      // Spark 4.2 prefetches on the first latestOffset of the run, not when the trigger
      // is prepared: a batch replayed from the offset log before it is not checked.
      SPATE_ASSIGN_OR_RETURN(auto parts, reader_->Partitions());
      SPATE_ASSIGN_OR_RETURN(auto initial, InitialOffsets());
      SPATE_ASSIGN_OR_RETURN(available_now_, reader_->FetchLatest(parts, initial));
    }
    if (available_now_) {
      latest = *available_now_;
    } else {
      SPATE_ASSIGN_OR_RETURN(auto parts, reader_->Partitions());
      SPATE_ASSIGN_OR_RETURN(latest, reader_->FetchLatest(parts, from));
    }
    latest_ = latest;
    PartitionOffsets end = latest;
    if (!read_all_ && min_rows_ && !available_now_ && DelayBatch(from, latest)) {
      end = from;
    } else if (max_offsets_ && !read_all_) {
      SPATE_ASSIGN_OR_RETURN(end, RateLimit(*max_offsets_, from, latest));
    }
    last_end_ = end;
    return std::optional<Json>(OffsetsToJson(end));
  }

  Status PrepareForAvailableNow() override {
    available_now_requested_ = true;
    return Status::OK();
  }
  void SetReadAllAvailable() override { read_all_ = true; }

  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override {
    PartitionOffsets from;
    if (start) {
      SPATE_ASSIGN_OR_RETURN(from, OffsetsFromJson(*start));
    } else {
      SPATE_ASSIGN_OR_RETURN(from, InitialOffsets());
    }
    SPATE_ASSIGN_OR_RETURN(auto until, OffsetsFromJson(end));
    if (available_now_) SPATE_RETURN_IF_ERROR(VerifyEndForAvailableNow(until));
    last_end_ = until;
    SPATE_ASSIGN_OR_RETURN(auto ranges,
                           ResolveRanges(reader_.get(), from, until, fail_on_data_loss_));
    return DataSourcePtr(std::make_shared<RangesDataSource>(
        SplitRanges(ranges, min_partitions_, max_records_), read_, Describe()));
  }

  void Stop() override {
    reader_->Close();
    committer_.reset();
    pool_->Clear();
  }

  std::optional<Json> ReportLatestOffset() const override {
    if (!latest_) return std::nullopt;
    return OffsetsToJson(*latest_);
  }

  /// Spark's KafkaMicroBatchStream.metrics: how far the batch's end is behind the latest
  /// offsets, per partition of the latest offsets.
  std::vector<std::pair<std::string, std::string>> Metrics() const override {
    if (!latest_ || !last_end_ || latest_->empty()) return {};
    int64_t sum = 0, mn = INT64_MAX, mx = INT64_MIN;
    for (const auto& [tp, o] : *latest_) {
      auto it = last_end_->find(tp);
      int64_t behind = o - (it == last_end_->end() ? 0 : it->second);
      sum += behind;
      mn = std::min(mn, behind);
      mx = std::max(mx, behind);
    }
    double avg = static_cast<double>(sum) / static_cast<double>(latest_->size());
    std::vector<std::pair<std::string, std::string>> out{
        {"avgOffsetsBehindLatest", FormatDouble(avg)},
        {"maxOffsetsBehindLatest", std::to_string(mx)},
        {"minOffsetsBehindLatest", std::to_string(mn)}};
    if (commit_group_)
      out.emplace_back("offsetCommitFailures", std::to_string(commit_failures_));
    return out;
  }

 private:
  /// Spark's verifyEndOffsetForTriggerAvailableNow: a batch's end offsets cover the
  /// partitions prefetched for the AvailableNow run and none is beyond them; then,
  /// against the latest offsets fetched now, none of its partitions is gone and none is
  /// beyond.
  Status VerifyEndForAvailableNow(const PartitionOffsets& end) {
    const PartitionOffsets& pre = *available_now_;
    auto keys = [](const PartitionOffsets& m) {
      std::set<TopicPartition> s;
      for (const auto& kv : m) s.insert(kv.first);
      return s;
    };
    if (keys(pre) != keys(end)) {
      return Status::Error(
          "MISMATCHED_TOPIC_PARTITIONS_BETWEEN_END_OFFSET_AND_PREFETCHED",
          {{"tpsForPrefetched", PartitionSet(keys(pre))},
           {"tpsForEndOffset", PartitionSet(keys(end))}});
    }
    for (const auto& [tp, o] : pre) {
      if (end.at(tp) > o) {
        return Status::Error(
            "END_OFFSET_HAS_GREATER_OFFSET_FOR_TOPIC_PARTITION_THAN_PREFETCHED",
            {{"prefetchedOffset", PartitionMap(pre)}, {"endOffset", PartitionMap(end)}});
      }
    }
    SPATE_ASSIGN_OR_RETURN(auto parts, reader_->Partitions());
    SPATE_ASSIGN_OR_RETURN(auto latest, reader_->Fetch(parts, kLatest));
    for (const auto& kv : end) {
      if (!latest.count(kv.first)) {
        return Status::Error(
            "LOST_TOPIC_PARTITIONS_IN_END_OFFSET_WITH_TRIGGER_AVAILABLENOW",
            {{"tpsForLatestOffset", PartitionSet(keys(latest))},
             {"tpsForEndOffset", PartitionSet(keys(end))}});
      }
    }
    for (const auto& [tp, o] : end) {
      if (latest.at(tp) < o) {
        return Status::Error(
            "END_OFFSET_HAS_GREATER_OFFSET_FOR_TOPIC_PARTITION_THAN_LATEST_WITH_TRIGGER_"
            "AVAILABLENOW",
            {{"latestOffset", PartitionMap(latest)}, {"endOffset", PartitionMap(end)}});
      }
    }
    return Status::OK();
  }

  /// The offsets of the query's first batch: read from sources/<i>/0, or resolved from
  /// startingOffsets and written there (Spark's KafkaSourceInitialOffsetWriter format).
  Result<PartitionOffsets> InitialOffsets() {
    if (initial_) return *initial_;
    std::string path = io::JoinPath(ctx_.metadata_path, "0");
    auto raw = ctx_.fs->ReadAll(path);
    if (raw.ok()) {
      std::string t = *raw;
      if (!t.empty() && t[0] == '\0') t.erase(0, 1);
      size_t nl = t.find('\n');
      if (t.rfind('v', 0) != 0 || nl == std::string::npos) {
        return Status::Error("MALFORMED_LOG_FILE", {{"text", t.substr(0, 40)}})
            .WithContext("Failed to read log file " + path);
      }
      SPATE_ASSIGN_OR_RETURN(auto json, Json::Parse(t.substr(nl + 1)));
      SPATE_ASSIGN_OR_RETURN(auto offsets, OffsetsFromJson(json));
      initial_ = offsets;
      return offsets;
    }
    if (raw.status().code() != StatusCode::kNotFound) return raw.status();
    SPATE_ASSIGN_OR_RETURN(auto offsets,
                           ResolveLimit(reader_.get(), starting_, fail_on_data_loss_));
    SPATE_RETURN_IF_ERROR(ctx_.fs->MakeDirs(ctx_.metadata_path));
    std::string text = std::string(1, '\0') + "v1\n" + OffsetsToJson(offsets).ToString();
    Status st = ctx_.fs->PutIfAbsent(path, text);
    if (!st.ok() && st.code() != StatusCode::kAlreadyExists) return st;
    if (!st.ok()) {
      initial_.reset();
      return InitialOffsets();  // another writer won: use its offsets
    }
    initial_ = offsets;
    return offsets;
  }

  /// Spark's delayBatch: skip this trigger while fewer than minOffsetsPerTrigger records
  /// are new, until maxTriggerDelay has passed since the last batch.
  bool DelayBatch(const PartitionOffsets& from, const PartitionOffsets& latest) {
    int64_t now = ctx_.clock->NowMs();
    if (now - last_trigger_ms_ >= min_rows_->max_delay_ms) {
      last_trigger_ms_ = now;
      return false;
    }
    int64_t fresh = 0;
    for (const auto& [tp, o] : latest) {
      auto it = from.find(tp);
      fresh += o - (it == from.end() ? 0 : it->second);
    }
    if (fresh < min_rows_->min_rows) return true;
    last_trigger_ms_ = now;
    return false;
  }

  /// Spark's KafkaMicroBatchStream.rateLimit: `limit` offsets spread over the partitions
  /// in proportion to how far each is behind.
  Result<PartitionOffsets> RateLimit(int64_t limit, const PartitionOffsets& from,
                                     const PartitionOffsets& until) {
    std::vector<TopicPartition> added;
    for (const auto& [tp, o] : until)
      if (!from.count(tp)) added.push_back(tp);
    PartitionOffsets from_new;
    if (!added.empty()) {
      SPATE_ASSIGN_OR_RETURN(from_new, reader_->Fetch(added, kEarliest));
    }
    auto begin_of = [&](const TopicPartition& tp) -> std::optional<int64_t> {
      auto it = from.find(tp);
      if (it != from.end()) return it->second;
      auto jt = from_new.find(tp);
      if (jt != from_new.end()) return jt->second;
      return std::nullopt;
    };
    std::map<TopicPartition, int64_t> sizes;
    double total = 0;
    for (const auto& [tp, end] : until) {
      auto b = begin_of(tp);
      if (b && end - *b > 0) {
        sizes[tp] = end - *b;
        total += static_cast<double>(end - *b);
      }
    }
    if (total < 1) return until;
    PartitionOffsets out;
    for (const auto& [tp, end] : until) {
      auto it = sizes.find(tp);
      if (it == sizes.end()) {
        out[tp] = end;
        continue;
      }
      int64_t begin = *begin_of(tp);
      double prorate =
          static_cast<double>(limit) * (static_cast<double>(it->second) / total);
      auto prorate_long =
          static_cast<int64_t>(prorate < 1 ? std::ceil(prorate) : std::floor(prorate));
      int64_t o = prorate_long > INT64_MAX - begin ? INT64_MAX : begin + prorate_long;
      out[tp] = std::min(end, o);
    }
    return out;
  }

  stream::SourceContext ctx_;
  RangeLimit starting_;
  std::optional<int64_t> max_offsets_;
  std::optional<MinRows> min_rows_;
  std::optional<int64_t> min_partitions_;
  std::optional<int64_t> max_records_;
  int64_t last_trigger_ms_ = 0;
  ConfList kafka_;
  std::shared_ptr<ConsumerPool> pool_ = std::make_shared<ConsumerPool>();
  std::optional<std::string> commit_group_;
  std::unique_ptr<Client> committer_;
  int64_t commit_failures_ = 0;
  bool fail_on_data_loss_;
  SchemaPtr schema_;
  std::unique_ptr<OffsetReader> reader_;
  std::shared_ptr<const ReadOptions> read_;
  std::optional<PartitionOffsets> initial_, latest_, last_end_, available_now_;
  bool read_all_ = false;
  bool available_now_requested_ =
      false;  // PrepareForAvailableNow: prefetch on LatestOffset
};

// ---- Sink
// ------------------------------------------------------------------------------

struct SinkColumns {
  int topic = -1, key = -1, value = -1, headers = -1, partition = -1;
};

Status Unsupported(const std::string& name, const DataTypePtr& type,
                   const std::string& want) {
  return Status::Error(
      "_LEGACY_ERROR_TEMP_3080",
      {{"msg", name + " attribute unsupported type " + type->CatalogString() + ". " +
                   name + " must be a(n) " + want}});
}

/// Spark's KafkaWriter.validateQuery.
Result<SinkColumns> ValidateWriteSchema(const Schema& schema, bool has_topic_option) {
  SinkColumns c;
  for (int i = 0; i < schema.num_fields(); ++i) {
    const auto& f = schema.field(i);
    if (f.name == "topic" && c.topic < 0) c.topic = i;
    if (f.name == "key" && c.key < 0) c.key = i;
    if (f.name == "value" && c.value < 0) c.value = i;
    if (f.name == "headers" && c.headers < 0) c.headers = i;
    if (f.name == "partition" && c.partition < 0) c.partition = i;
  }
  if (!has_topic_option) {
    if (c.topic < 0) {
      return Status::Error("_LEGACY_ERROR_TEMP_3080",
                           {{"msg",
                             "topic option required when no 'topic' attribute is "
                             "present. Use the topic option "
                             "for setting a topic."}});
    }
    const auto& t = schema.field(c.topic).type;
    if (t->id() != TypeId::kString) return Unsupported("topic", t, "string");
  } else {
    c.topic = -1;
  }
  if (c.key >= 0) {
    const auto& t = schema.field(c.key).type;
    if (!t->IsBinaryLike()) return Unsupported("key", t, "string or binary");
  }
  if (c.value < 0) {
    return Status::Error("_LEGACY_ERROR_TEMP_3080",
                         {{"msg", "Required attribute 'value' not found"}});
  }
  {
    const auto& t = schema.field(c.value).type;
    if (!t->IsBinaryLike()) return Unsupported("value", t, "string or binary");
  }
  if (c.headers >= 0) {
    const auto& t = schema.field(c.headers).type;
    if (!t->SameType(*KafkaSchema(true)->field(7).type)) {
      return Unsupported("headers", t, "array<struct<key:string,value:binary>>");
    }
  }
  if (c.partition >= 0) {
    const auto& t = schema.field(c.partition).type;
    if (t->id() != TypeId::kInt) return Unsupported("partition", t, "int");
  }
  return c;
}

/// A producer writing batches; Flush() waits for every delivery report and returns the
/// first failure.
class Writer {
 public:
  /// `forced`: producer settings that override the user's (the transactional id).
  static Result<std::unique_ptr<Writer>> Make(const Params& p,
                                              const ConfList& forced = {}) {
    auto w = std::unique_ptr<Writer>(new Writer());
    if (p.Has("topic")) w->topic_ = Trim(p.Get("topic"));
    if (!p.Has("kafka.bootstrap.servers")) {
      return Status::Invalid(
          "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka "
          "producer");
    }
    for (const char* k : {"key.serializer", "value.serializer"}) {
      if (p.Has(std::string("kafka.") + k)) {
        return Status::Invalid(
            std::string("Kafka option '") + k +
            "' is not supported as keys and values are serialized with "
            "ByteArraySerializer. Use DataFrame operations to explicitly "
            "serialize them.");
      }
    }
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set_opaque(conf, w.get());
    rd_kafka_conf_set_dr_msg_cb(conf, &Writer::OnDelivery);
    // Java's producer defaults where librdkafka's differ: acks=all, idempotence off.
    SPATE_ASSIGN_OR_RETURN(
        w->client_, NewClient(RD_KAFKA_PRODUCER, p.kafka,
                              {{"acks", "all"},
                               {"linger.ms", "5"},
                               {"message.timeout.ms", "120000"},
                               // librdkafka requires message <= transaction timeout
                               {"transaction.timeout.ms", "120000"}},
                              forced, conf));
    return w;
  }

  rd_kafka_t* rk() const { return client_->rk; }

  const std::optional<std::string>& topic() const { return topic_; }

  /// Sends every row of `b` (columns as `c`).
  Status Send(const Batch& b, const SinkColumns& c) {
    const Column& value = *b.column(c.value);
    const Column* key = c.key >= 0 ? b.column(c.key).get() : nullptr;
    const Column* topic = c.topic >= 0 ? b.column(c.topic).get() : nullptr;
    const Column* part = c.partition >= 0 ? b.column(c.partition).get() : nullptr;
    const Column* hdrs = c.headers >= 0 ? b.column(c.headers).get() : nullptr;
    std::string topic_z;
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      SPATE_RETURN_IF_ERROR(FirstError());
      std::string_view t;
      if (topic) {
        if (topic->IsNull(i)) return Status::Error("KAFKA_NULL_TOPIC_IN_DATA");
        t = topic->GetView(i);
      } else {
        t = *topic_;
      }
      std::string_view v, k;
      bool v_null = value.IsNull(i), k_null = !key || key->IsNull(i);
      if (!v_null) v = value.GetView(i);
      if (!k_null) k = key->GetView(i);
      int32_t partition = RD_KAFKA_PARTITION_UA;
      if (part && !part->IsNull(i)) partition = part->raw_values<int32_t>()[i];
      rd_kafka_headers_t* h = nullptr;
      if (hdrs && !hdrs->IsNull(i)) {
        const int32_t* o = hdrs->offsets();
        const Column& entries = *hdrs->child(0);
        const Column& hk = *entries.child(0);
        const Column& hv = *entries.child(1);
        h = rd_kafka_headers_new(static_cast<size_t>(o[i + 1] - o[i]));
        for (int32_t e = o[i]; e < o[i + 1]; ++e) {
          if (entries.IsNull(e)) continue;
          std::string_view name = hk.GetView(e);
          std::string name_z(name);
          if (hv.IsNull(e)) {
            rd_kafka_header_add(h, name_z.c_str(), -1, nullptr, 0);
          } else {
            auto val = hv.GetView(e);
            rd_kafka_header_add(h, name_z.c_str(), -1, val.data(),
                                static_cast<ssize_t>(val.size()));
          }
        }
      }
      // librdkafka wants a NUL-terminated name: the option's string, or a copy of the
      // row's.
      if (topic) topic_z.assign(t);
      const char* topic_c = topic ? topic_z.c_str() : topic_->c_str();
      for (;;) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            client_->rk, RD_KAFKA_V_TOPIC(topic_c), RD_KAFKA_V_PARTITION(partition),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_VALUE(v_null ? nullptr : const_cast<char*>(v.data()), v.size()),
            RD_KAFKA_V_KEY(k_null ? nullptr : k.data(), k.size()), RD_KAFKA_V_HEADERS(h),
            RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
          break;  // the headers now belong to librdkafka
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
          rd_kafka_poll(client_->rk, 10);
          continue;
        }
        if (h) rd_kafka_headers_destroy(h);
        return Status::IOError("Cannot send a record to Kafka topic " +
                               std::string(topic_c) + ": " + ErrName(e));
      }
      sent_.fetch_add(1, std::memory_order_relaxed);
      if ((i & 1023) == 0) rd_kafka_poll(client_->rk, 0);
    }
    return Status::OK();
  }

  /// Waits until every record sent is acknowledged (or failed).
  Status Flush() {
    for (;;) {
      rd_kafka_resp_err_t e = rd_kafka_flush(client_->rk, 1000);
      SPATE_RETURN_IF_ERROR(FirstError());
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
    }
    return FirstError();
  }

  int64_t sent() const { return sent_.load(); }

 private:
  Writer() = default;
  static void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
    auto* w = static_cast<Writer*>(opaque);
    std::lock_guard<std::mutex> lock(w->mu_);
    if (w->error_.ok()) {
      w->error_ = Status::IOError("Kafka did not accept a record for topic " +
                                  std::string(rd_kafka_topic_name(m->rkt)) + ": " +
                                  rd_kafka_err2str(m->err));
    }
  }
  Status FirstError() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }

  std::optional<std::string> topic_;
  std::unique_ptr<Client> client_;
  std::mutex mu_;
  Status error_;
  std::atomic<int64_t> sent_{0};
};

Result<int64_t> WritePlan(Writer* w, const sql::BoundPlanPtr& plan,
                          const exec::ExecOptions& exec_options) {
  SchemaPtr schema = plan->OutputSchema();
  SPATE_ASSIGN_OR_RETURN(auto cols, ValidateWriteSchema(*schema, w->topic().has_value()));
  SPATE_ASSIGN_OR_RETURN(auto physical, exec::CreatePhysicalPlan(plan, exec_options));
  int64_t before = w->sent();
  SPATE_RETURN_IF_ERROR(exec::ExecuteToSink(
      *physical, exec_options,
      [&](int, const BatchPtr& b) -> Status { return w->Send(*b, cols); }));
  SPATE_RETURN_IF_ERROR(w->Flush());
  return w->sent() - before;
}

/// A librdkafka error object as a Status (and frees it).
Status TxnStatus(rd_kafka_error_t* e, const std::string& what) {
  if (!e) return Status::OK();
  Status st = Status::IOError("Kafka transaction " + what +
                              " failed: " + rd_kafka_error_string(e));
  rd_kafka_error_destroy(e);
  return st;
}

/// Creates `topic` (1 partition, the broker's default replication) unless it exists, and
/// waits until the client's metadata has it.
Status EnsureTopic(rd_kafka_t* rk, const std::string& topic) {
  char err[512];
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), 1, -1, err, sizeof(err));
  if (!nt) return Status::Invalid("Cannot create Kafka topic " + topic + ": " + err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  Status st;
  if (!ev) {
    st = Status::IOError("Timed out creating Kafka topic " + topic);
  } else {
    size_t n = 0;
    const rd_kafka_topic_result_t** r =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    rd_kafka_resp_err_t e =
        n ? rd_kafka_topic_result_error(r[0]) : rd_kafka_event_error(ev);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      st = Status::IOError("Cannot create Kafka topic " + topic + ": " + ErrName(e));
    }
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_NewTopic_destroy(nt);
  rd_kafka_queue_destroy(q);
  SPATE_RETURN_IF_ERROR(st);
  for (int attempt = 0; attempt < 100; ++attempt) {
    rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    bool ok = rd_kafka_metadata(rk, 0, t, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR &&
              md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
              md->topics[0].partition_cnt > 0;
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(t);
    if (ok) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::IOError("Kafka topic " + topic + " does not appear in the metadata");
}

/// The sink. At-least-once (Spark's behaviour) by default. With exactlyOnce=true (beyond
/// Spark) every batch is one Kafka transaction of the producer with transactional.id
/// "<transactionalIdPrefix>-<query id>" (stable across restarts, so a new run fences the
/// old one and aborts its open transaction). The transaction also commits the offset
/// batchId + 1 of the marker partition (exactlyOnceMarkerTopic, default
/// "spate-kafka-sink-batches", partition 0; created when missing) to the consumer group
/// named like the transactional id, atomically with the records; a batch replayed after a
/// crash first reads that group offset and writes nothing when the batch is already in
/// Kafka. A read_committed consumer so sees every row once.
class KafkaSink final : public stream::Sink {
 public:
  KafkaSink(Params p, bool exactly_once, std::string txn_prefix)
      : p_(std::move(p)),
        exactly_once_(exactly_once),
        txn_prefix_(std::move(txn_prefix)) {
    marker_topic_ = Trim(p_.Get("exactlyoncemarkertopic", "spate-kafka-sink-batches"));
  }

  Status Init() {
    if (exactly_once_) return Status::OK();  // the producer needs the query id (Start)
    SPATE_ASSIGN_OR_RETURN(w_, Writer::Make(p_));
    return Status::OK();
  }

  std::string Describe() const override { return "KafkaSink"; }
  // Real-time mode: each piece is produced and flushed as it comes (at least once). The
  // exactly-once mode's one transaction per batch cannot take a batch in pieces.
  bool SupportsRealTime() const override { return !exactly_once_; }

  Status Start(const std::string& query_id) override {
    if (!exactly_once_ || w_) return Status::OK();
    txn_id_ = txn_prefix_ + "-" + query_id;
    SPATE_ASSIGN_OR_RETURN(w_, Writer::Make(p_, {{"transactional.id", txn_id_},
                                                 {"enable.idempotence", "true"}}));
    SPATE_RETURN_IF_ERROR(EnsureTopic(w_->rk(), marker_topic_));
    SPATE_RETURN_IF_ERROR(TxnStatus(rd_kafka_init_transactions(w_->rk(), 60000), "init"));
    SPATE_ASSIGN_OR_RETURN(marker_reader_,
                           NewClient(RD_KAFKA_CONSUMER, p_.kafka, ConsumerDefaults(),
                                     {{"group.id", txn_id_},
                                      {"enable.auto.commit", "false"},
                                      {"isolation.level", "read_committed"}}));
    return Status::OK();
  }

  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override {
    if (!exactly_once_) {
      if (!w_) SPATE_RETURN_IF_ERROR(Init());  // a run after Stop()
      return WritePlan(w_.get(), batch.analyzed, batch.runner->MakeExecOptions());
    }
    if (!w_) SPATE_RETURN_IF_ERROR(Start(batch.query_id));
    SPATE_ASSIGN_OR_RETURN(int64_t done, CommittedBatches());
    if (done > batch.batch_id)
      return 0;  // this batch's transaction committed before a crash
    SPATE_RETURN_IF_ERROR(TxnStatus(rd_kafka_begin_transaction(w_->rk()), "begin"));
    auto written = WritePlan(w_.get(), batch.analyzed, batch.runner->MakeExecOptions());
    if (!written.ok()) {
      (void)TxnStatus(rd_kafka_abort_transaction(w_->rk(), 60000), "abort");
      return written.status();
    }
    rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(offsets, marker_topic_.c_str(), 0)->offset =
        batch.batch_id + 1;
    rd_kafka_consumer_group_metadata_t* group =
        rd_kafka_consumer_group_metadata_new(txn_id_.c_str());
    Status st =
        TxnStatus(rd_kafka_send_offsets_to_transaction(w_->rk(), offsets, group, 60000),
                  "send offsets");
    rd_kafka_consumer_group_metadata_destroy(group);
    rd_kafka_topic_partition_list_destroy(offsets);
    if (st.ok()) st = TxnStatus(rd_kafka_commit_transaction(w_->rk(), 120000), "commit");
    if (!st.ok()) {
      (void)TxnStatus(rd_kafka_abort_transaction(w_->rk(), 60000), "abort");
      return st;
    }
    return written;
  }

  // The query stopped: its producer and marker reader are destroyed now, on the query
  // thread before termination is reported, not whenever the query object goes (which can
  // be while the process exits, with librdkafka's threads half torn down).
  void Stop() override {
    marker_reader_.reset();
    w_.reset();
  }

 private:
  /// The marker offset: batches below it are committed in Kafka (0: none yet).
  Result<int64_t> CommittedBatches() {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, marker_topic_.c_str(), 0);
    rd_kafka_resp_err_t e = rd_kafka_committed(marker_reader_->rk, list, 30000);
    int64_t off = list->elems[0].offset;
    rd_kafka_resp_err_t pe = list->elems[0].err;
    rd_kafka_topic_partition_list_destroy(list);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR || pe != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::IOError(
          "Cannot read the committed batches of Kafka transactional sink " + txn_id_ +
          ": " + ErrName(e != RD_KAFKA_RESP_ERR_NO_ERROR ? e : pe));
    }
    return off < 0 ? 0 : off;
  }

  Params p_;
  bool exactly_once_;
  std::string txn_prefix_, txn_id_, marker_topic_;
  std::unique_ptr<Writer> w_;
  std::unique_ptr<Client> marker_reader_;
};

}  // namespace

// ---- Public
// --------------------------------------------------------------------------------

SchemaPtr KafkaSchema(bool include_headers) {
  static const SchemaPtr plain = std::make_shared<const Schema>(
      std::vector<Field>{{"key", DataType::Binary(), true, ""},
                         {"value", DataType::Binary(), true, ""},
                         {"topic", DataType::String(), true, ""},
                         {"partition", DataType::Int(), true, ""},
                         {"offset", DataType::Long(), true, ""},
                         {"timestamp", DataType::Timestamp(), true, ""},
                         {"timestampType", DataType::Int(), true, ""}});
  static const SchemaPtr with_headers = [] {
    std::vector<Field> f = plain->fields();
    auto entry = DataType::Struct({Field{"key", DataType::String(), true, ""},
                                   Field{"value", DataType::Binary(), true, ""}});
    f.push_back({"headers", DataType::Array(entry, true), true, ""});
    return std::make_shared<const Schema>(f);
  }();
  return include_headers ? with_headers : plain;
}

int32_t JavaStringHash(const std::string& utf8) {
  uint32_t h = 0;
  size_t i = 0;
  while (i < utf8.size()) {
    auto c = static_cast<unsigned char>(utf8[i]);
    uint32_t cp;
    int len;
    if (c < 0x80) {
      cp = c;
      len = 1;
    } else if ((c >> 5) == 6) {
      cp = c & 0x1F;
      len = 2;
    } else if ((c >> 4) == 14) {
      cp = c & 0x0F;
      len = 3;
    } else {
      cp = c & 0x07;
      len = 4;
    }
    for (int k = 1; k < len && i + static_cast<size_t>(k) < utf8.size(); ++k)
      cp = (cp << 6) |
           (static_cast<unsigned char>(utf8[i + static_cast<size_t>(k)]) & 0x3F);
    i += static_cast<size_t>(len);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = 31 * h + (0xD800 + (cp >> 10));
      h = 31 * h + (0xDC00 + (cp & 0x3FF));
    } else {
      h = 31 * h + cp;
    }
  }
  return static_cast<int32_t>(h);
}

std::vector<size_t> ScalaHashMapOrder(const std::vector<int32_t>& hashes) {
  // scala.collection.mutable.HashMap (2.13): table of 16, doubled when an insert would
  // reach 0.75 of it; bucket = improveHash(h) & (size - 1), buckets sorted by hash,
  // equal hashes in insertion order.
  size_t len = 16;
  for (size_t i = 0; i < hashes.size(); ++i) {
    if (static_cast<double>(i + 1) >= static_cast<double>(len) * 0.75) len *= 2;
  }
  std::vector<size_t> order(hashes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto improved = [&](size_t i) {
    auto h = static_cast<uint32_t>(hashes[i]);
    return static_cast<int32_t>(h ^ (h >> 16));
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int32_t ha = improved(a), hb = improved(b);
    size_t ba = static_cast<uint32_t>(ha) & (len - 1),
           bb = static_cast<uint32_t>(hb) & (len - 1);
    if (ba != bb) return ba < bb;
    return ha < hb;
  });
  return order;
}

Json OffsetsToJson(const PartitionOffsets& offsets) {
  std::vector<std::string> topics;
  for (const auto& [tp, o] : offsets) {
    if (topics.empty() || topics.back() != tp.topic) topics.push_back(tp.topic);
  }
  std::vector<int32_t> th;
  for (const auto& t : topics) th.push_back(JavaStringHash(t));
  Json out = Json::Object();
  for (size_t ti : ScalaHashMapOrder(th)) {
    const std::string& t = topics[ti];
    std::vector<std::pair<int32_t, int64_t>> parts;
    for (auto it = offsets.lower_bound({t, INT32_MIN});
         it != offsets.end() && it->first.topic == t; ++it)
      parts.emplace_back(it->first.partition, it->second);
    std::vector<int32_t> ph;
    for (const auto& [p, o] : parts) ph.push_back(p);  // Int's hash is the value
    Json inner = Json::Object();
    for (size_t pi : ScalaHashMapOrder(ph))
      inner.Set(std::to_string(parts[pi].first), Json::Int(parts[pi].second));
    out.Set(t, std::move(inner));
  }
  return out;
}

Result<PartitionOffsets> OffsetsFromJson(const Json& json) {
  auto bad = [&] {
    return Status::Invalid(
        "Expected e.g. {\"topicA\":{\"0\":23,\"1\":-1},\"topicB\":{\"0\":-2}}, got " +
        json.ToString());
  };
  if (!json.is_object()) return bad();
  PartitionOffsets out;
  for (const auto& [topic, parts] : json.fields()) {
    if (!parts.is_object()) return bad();
    for (const auto& [p, o] : parts.fields()) {
      if (!o.is_number()) return bad();
      const std::optional<int32_t> partition = ParseInt32(p);
      if (!partition) return bad();
      out[{topic, *partition}] = o.int_value();
    }
  }
  return out;
}

Result<PartitionOffsets> ParseOffsetsText(const std::string& text) {
  auto json = Json::Parse(text);
  if (!json.ok()) {
    return Status::Invalid(
        "Expected e.g. {\"topicA\":{\"0\":23,\"1\":-1},\"topicB\":{\"0\":-2}}, got " +
        text);
  }
  auto r = OffsetsFromJson(*json);
  if (!r.ok()) {
    return Status::Invalid(
        "Expected e.g. {\"topicA\":{\"0\":23,\"1\":-1},\"topicB\":{\"0\":-2}}, got " +
        text);
  }
  return r;
}

Result<std::vector<TopicPartition>> ParsePartitionsText(const std::string& text) {
  auto bad =
      Status::Invalid("Expected e.g. {\"topicA\":[0,1],\"topicB\":[0,1]}, got " + text);
  auto json = Json::Parse(text);
  if (!json.ok() || !json->is_object()) return bad;
  std::vector<TopicPartition> out;
  for (const auto& [topic, parts] : json->fields()) {
    if (!parts.is_array()) return bad;
    for (const auto& p : parts.items()) {
      if (!p.is_number()) return bad;
      out.push_back({topic, static_cast<int32_t>(p.int_value())});
    }
  }
  return out;
}

Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeKafkaSourceFactory(
    const std::map<std::string, std::string>& options) {
  Params p = ParseParams(options);
  if (p.Has("endingoffsets"))
    return Status::Invalid("ending offset not valid in streaming queries");
  if (p.Has("endingoffsetsbytimestamp") || p.Has("endingtimestamp"))
    return Status::Invalid("ending timestamp not valid in streaming queries");
  SPATE_RETURN_IF_ERROR(ValidateGeneral(p));
  SPATE_ASSIGN_OR_RETURN(auto strategy, ParseStrategy(p));
  SPATE_ASSIGN_OR_RETURN(auto starting,
                         ParseRangeLimit(p, "starting", RangeLimit::Kind::kLatest));
  SPATE_ASSIGN_OR_RETURN(auto max_offsets, LongOption(p, "maxoffsetspertrigger"));
  SPATE_ASSIGN_OR_RETURN(auto min_offsets, LongOption(p, "minoffsetspertrigger"));
  SPATE_ASSIGN_OR_RETURN(auto min_partitions, LongOption(p, "minpartitions"));
  SPATE_ASSIGN_OR_RETURN(auto max_records, LongOption(p, "maxrecordsperpartition"));
  std::optional<MinRows> min_rows;
  if (min_offsets) {
    MinRows m;
    m.min_rows = *min_offsets;
    SPATE_ASSIGN_OR_RETURN(m.max_delay_ms,
                           TimeStringAsMs(p.Get("maxtriggerdelay", "15m")));
    min_rows = m;
  }
  SPATE_ASSIGN_OR_RETURN(bool fail, BoolOption(p, "failondataloss", true));
  SPATE_ASSIGN_OR_RETURN(bool headers, BoolOption(p, "includeheaders", false));
  SPATE_ASSIGN_OR_RETURN(bool commit, BoolOption(p, "commitoffsetstogroup", false));
  if (commit && !p.Has("kafka.group.id")) {
    return Status::Invalid(
        "commitOffsetsToGroup needs the consumer group to commit to: set kafka.group.id");
  }
  SchemaPtr schema = KafkaSchema(headers);
  stream::SourceFactory factory =
      [=](const stream::SourceContext& ctx) -> Result<stream::SourcePtr> {
    auto src = std::make_shared<KafkaMicroBatchSource>(
        ctx, strategy, p, starting, max_offsets, min_rows, min_partitions, max_records,
        fail, headers);
    SPATE_RETURN_IF_ERROR(src->Init());
    return stream::SourcePtr(src);
  };
  return std::make_pair(schema, factory);
}

Result<DataSourcePtr> MakeKafkaRelation(
    const std::map<std::string, std::string>& options) {
  Params p = ParseParams(options);
  SPATE_ASSIGN_OR_RETURN(auto starting,
                         ParseRangeLimit(p, "starting", RangeLimit::Kind::kEarliest));
  if (starting.kind == RangeLimit::Kind::kLatest)
    return Status::Invalid("starting offset can't be latest for batch queries on Kafka");
  for (const auto& [tp, o] : starting.specific) {
    if (o == kLatest) {
      return Status::Invalid("startingOffsets for " + tp.ToString() +
                             " can't be latest for batch queries on Kafka");
    }
  }
  SPATE_ASSIGN_OR_RETURN(auto ending,
                         ParseRangeLimit(p, "ending", RangeLimit::Kind::kLatest));
  if (ending.kind == RangeLimit::Kind::kEarliest)
    return Status::Invalid("ending offset can't be earliest for batch queries on Kafka");
  for (const auto& [tp, o] : ending.specific) {
    if (o == kEarliest) {
      return Status::Invalid("ending offset for " + tp.ToString() +
                             " can't be earliest for batch queries on Kafka");
    }
  }
  SPATE_RETURN_IF_ERROR(ValidateGeneral(p));
  if (starting.kind == RangeLimit::Kind::kSpecific &&
      ending.kind == RangeLimit::Kind::kSpecific) {
    std::set<TopicPartition> a, b;
    for (const auto& [tp, o] : starting.specific) a.insert(tp);
    for (const auto& [tp, o] : ending.specific) b.insert(tp);
    if (a != b) {
      return Status::Error(
          "MISMATCHED_TOPIC_PARTITIONS_BETWEEN_START_OFFSET_AND_END_OFFSET",
          {{"tpsForStartOffset", PartitionSet(a)}, {"tpsForEndOffset", PartitionSet(b)}});
    }
    for (const auto& [tp, s] : starting.specific) {
      int64_t e = ending.specific[tp];
      if (s > e && s >= 0 && e >= 0) {
        return Status::Error("UNRESOLVED_START_OFFSET_GREATER_THAN_END_OFFSET",
                             {{"startOffset", std::to_string(s)},
                              {"endOffset", std::to_string(e)},
                              {"topic", tp.topic},
                              {"partition", std::to_string(tp.partition)}});
      }
    }
  }
  SPATE_ASSIGN_OR_RETURN(auto strategy, ParseStrategy(p));
  SPATE_ASSIGN_OR_RETURN(bool fail, BoolOption(p, "failondataloss", true));
  SPATE_ASSIGN_OR_RETURN(bool headers, BoolOption(p, "includeheaders", false));
  std::string group = UniqueGroupId(p, "relation", "");
  SPATE_ASSIGN_OR_RETURN(auto retries, LongOption(p, "fetchoffset.numretries"));
  SPATE_ASSIGN_OR_RETURN(auto interval, LongOption(p, "fetchoffset.retryintervalms"));
  OffsetReader reader(strategy, p.kafka, group + "-driver",
                      retries ? static_cast<int>(*retries) : 3,
                      interval ? *interval : 1000);
  SPATE_ASSIGN_OR_RETURN(auto from, ResolveLimit(&reader, starting, fail));
  SPATE_ASSIGN_OR_RETURN(auto until,
                         ResolveLimit(&reader, ending, fail, /*is_start=*/false));
  // Spark's KafkaRelation: both ends over the same partitions (the end's set wins).
  std::vector<OffsetRange> ranges;
  for (const auto& [tp, e] : until) {
    auto it = from.find(tp);
    int64_t s = it == from.end() ? 0 : it->second;
    if (s > e) {
      return Status::Error("UNRESOLVED_START_OFFSET_GREATER_THAN_END_OFFSET",
                           {{"startOffset", std::to_string(s)},
                            {"endOffset", std::to_string(e)},
                            {"topic", tp.topic},
                            {"partition", std::to_string(tp.partition)}});
    }
    if (e > s) ranges.push_back({tp, s, e});
  }
  auto o = std::make_shared<ReadOptions>();
  o->kafka = p.kafka;
  o->group_id = p.Has("kafka.group.id") ? group : group + "-executor";
  o->include_headers = headers;
  o->fail_on_data_loss = fail;
  auto pt = LongOption(p, "kafkaconsumer.polltimeoutms");
  if (pt.ok() && *pt) o->poll_timeout_ms = **pt;
  SPATE_ASSIGN_OR_RETURN(auto min_partitions, LongOption(p, "minpartitions"));
  SPATE_ASSIGN_OR_RETURN(auto max_records, LongOption(p, "maxrecordsperpartition"));
  return DataSourcePtr(std::make_shared<RangesDataSource>(
      SplitRanges(ranges, min_partitions, max_records), o,
      "KafkaRelation(strategy=" + strategy.Describe() + ")"));
}

Result<stream::SinkPtr> MakeKafkaSink(const std::map<std::string, std::string>& options,
                                      const Schema& schema) {
  Params p = ParseParams(options);
  SPATE_RETURN_IF_ERROR(ValidateWriteSchema(schema, p.Has("topic")).status());
  SPATE_ASSIGN_OR_RETURN(bool exactly_once, BoolOption(p, "exactlyonce", false));
  if (exactly_once && p.Has("kafka.transactional.id")) {
    return Status::Invalid(
        "Kafka option 'kafka.transactional.id' cannot be set with exactlyOnce: the sink "
        "derives it from transactionalIdPrefix and the query id");
  }
  auto sink = std::make_shared<KafkaSink>(
      p, exactly_once, p.Get("transactionalidprefix", "spate-kafka-sink"));
  SPATE_RETURN_IF_ERROR(sink->Init());
  return stream::SinkPtr(sink);
}

Status WriteKafka(const sql::BoundPlanPtr& plan, const exec::ExecOptions& exec_options,
                  const std::map<std::string, std::string>& options,
                  const std::string& mode) {
  std::string m = Lower(mode);
  if (m == "overwrite" || m == "ignore") {
    return Status::Error("_LEGACY_ERROR_TEMP_3081",
                         {{"mode", m == "overwrite" ? "Overwrite" : "Ignore"},
                          {"append", "Append"},
                          {"errorIfExists", "ErrorIfExists"}});
  }
  SPATE_ASSIGN_OR_RETURN(auto w, Writer::Make(ParseParams(options)));
  return WritePlan(w.get(), plan, exec_options).status();
}

}  // namespace spate::connectors::kafka
