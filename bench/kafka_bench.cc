// Copyright spate authors.
// Kafka benchmarks (printed, never pass/fail), against a local broker this program starts
// with scripts/kafka.sh (KRaft, loopback):
//  1. a bare librdkafka consumer (assign + rd_kafka_consume_batch_queue, touching every
//     key and value) reading the whole topic: the reference;
//  2. spate's batch read of the same topic (read.format("kafka"), sum of value lengths);
//  3. spate's Kafka -> Delta streaming ingest (AvailableNow, from_json of the value, the
//     article's bronze shape) of the same topic;
//  4. latency: one record produced, then processAllAvailable of a running Kafka -> noop
//     query, p50/p99 of produce-to-processed and of the batch's triggerExecution;
//  5. latency at a fixed input rate: a producer thread at RATE events/s, a running Kafka
//  ->
//     Delta query (foreachBatch: append to Delta, then each row's latency = the time the
//     append returned - the record's Kafka timestamp), SECONDS after its first batch;
//  6. local Spark (bench/kafka_spark.py, local[2], Spark's own Kafka source from
//     build/spark-kafka-jars) on the same broker: 3. on the same topic and 5. on a topic
//     of its own at the same rate, with the spate/Spark ratios.
// Each line gives events/s of wall time and per CPU-second of the process, and the ratio
// to the bare consumer measured in the same run.
//
//   build/release/bench/spate_kafka_bench [events=1000000] [partitions=2] [rate=10000]
//                                         [seconds=10]
// SPATE_BENCH_NO_SPARK=1 leaves Spark out.

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "timing.h"

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"

#ifndef SPATE_SOURCE_DIR
#error "SPATE_SOURCE_DIR must be defined"
#endif

using namespace spate;
using bench::Seconds;
using bench::Steady;

namespace {

std::string Run(const std::string& cmd, int* rc) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  int status = pclose(f);
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

double CpuSeconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

rd_kafka_t* NewClient(rd_kafka_type_t type, const std::string& bootstrap,
                      const std::vector<std::pair<std::string, std::string>>& conf_kv) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  for (const auto& [k, v] : conf_kv) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) !=
        RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "conf %s: %s\n", k.c_str(), err);
      std::exit(1);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof(err));
  if (!rk) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", err);
    std::exit(1);
  }
  return rk;
}

void Report(const char* what, int64_t events, double wall, double cpu, double ref_rate) {
  double rate = events / wall;
  std::printf("%-46s %9.0f events/s  %9.0f events/cpu-s", what, rate, events / cpu);
  if (ref_rate > 0) std::printf("  %.2fx of bare", rate / ref_rate);
  std::printf("\n");
}

/// Produces small JSON events to `topic` at `rate` events/s (paced every millisecond)
/// until stop() is called; the Kafka timestamp (CreateTime) is the produce time.
class RateProducer {
 public:
  RateProducer(const std::string& bootstrap, std::string topic, int64_t rate)
      : topic_(std::move(topic)), rate_(rate) {
    p_ = NewClient(RD_KAFKA_PRODUCER, bootstrap, {{"linger.ms", "1"}});
    thread_ = std::thread([this] { Loop(); });
  }
  ~RateProducer() { stop(); }
  int64_t stop() {
    if (thread_.joinable()) {
      stop_ = true;
      thread_.join();
      rd_kafka_flush(p_, 30000);
      rd_kafka_destroy(p_);
    }
    return sent_;
  }

 private:
  void Loop() {
    auto t0 = Steady::now();
    while (!stop_) {
      double elapsed = std::chrono::duration<double>(Steady::now() - t0).count();
      auto due = static_cast<int64_t>(elapsed * static_cast<double>(rate_));
      for (; sent_ < due; ++sent_) {
        std::string v =
            "{\"order_id\":\"l" + std::to_string(sent_) + "\",\"amount\":1.5}";
        while (rd_kafka_producev(p_, RD_KAFKA_V_TOPIC(topic_.c_str()),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_VALUE(v.data(), v.size()),
                                 RD_KAFKA_V_END) != RD_KAFKA_RESP_ERR_NO_ERROR) {
          rd_kafka_poll(p_, 1);
        }
      }
      rd_kafka_poll(p_, 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  std::string topic_;
  int64_t rate_;
  rd_kafka_t* p_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  int64_t sent_ = 0;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t events = argc > 1 ? std::atoll(argv[1]) : 1000000;
  int partitions = argc > 2 ? std::atoi(argv[2]) : 2;
  int64_t rate = argc > 3 ? std::atoll(argv[3]) : 10000;
  double seconds = argc > 4 ? std::atof(argv[4]) : 10;
  const char* tmp = std::getenv("TMPDIR");
  std::string root = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                  "spate-kafka-bench-" + stream::RandomUuid());
  int rc = 0;
  std::string out =
      Run("bash " SPATE_SOURCE_DIR "/scripts/kafka.sh start --dir " + root +
              "/broker --port 0 --owner " + std::to_string(getpid()) + " 2>&1",
          &rc);
  if (rc != 0) {
    std::fprintf(stderr, "the broker did not start: %s\n", out.c_str());
    return 1;
  }
  std::string last = out.substr(0, out.find_last_not_of('\n') + 1);
  std::string bootstrap = last.substr(last.find_last_of('\n') + 1);
  const std::string topic = "bench-events";

  // Topic and data.
  {
    rd_kafka_t* admin = NewClient(RD_KAFKA_PRODUCER, bootstrap, {});
    char err[512];
    rd_kafka_NewTopic_t* nt =
        rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof(err));
    rd_kafka_queue_t* q = rd_kafka_queue_new(admin);
    rd_kafka_CreateTopics(admin, &nt, 1, nullptr, q);
    rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
    if (ev) rd_kafka_event_destroy(ev);
    rd_kafka_NewTopic_destroy(nt);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(admin);
  }
  int64_t bytes = 0;
  {
    rd_kafka_t* p = NewClient(RD_KAFKA_PRODUCER, bootstrap,
                              {{"linger.ms", "20"},
                               {"batch.size", "1000000"},
                               {"queue.buffering.max.messages", "1000000"}});
    auto t0 = Steady::now();
    for (int64_t i = 0; i < events; ++i) {
      std::string v = "{\"order_id\":\"o" + std::to_string(i) +
                      "\",\"user_id\":" + std::to_string(i % 9973) +
                      ",\"amount\":" + std::to_string((i % 1000) / 10.0) +
                      ",\"country\":\"" + (i % 3 ? "DE" : "FR") + "\"}";
      std::string k = "o" + std::to_string(i);
      bytes += static_cast<int64_t>(v.size());
      for (;;) {
        auto e =
            rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic.c_str()),
                              RD_KAFKA_V_PARTITION(static_cast<int32_t>(i % partitions)),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_VALUE(v.data(), v.size()),
                              RD_KAFKA_V_KEY(k.data(), k.size()), RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
        rd_kafka_poll(p, 10);
      }
      if ((i & 4095) == 0) rd_kafka_poll(p, 0);
    }
    rd_kafka_flush(p, 120000);
    rd_kafka_destroy(p);
    std::printf("produced %lld events (%.1f MB of values) in %.2f s over %d partitions\n",
                static_cast<long long>(events), bytes / 1e6, Seconds(t0), partitions);
  }

  // 1. Bare consumer.
  double bare_rate = 0, bare_cpu_rate = 0;
  {
    double c0 = CpuSeconds();
    auto t0 = Steady::now();
    rd_kafka_t* c = NewClient(RD_KAFKA_CONSUMER, bootstrap,
                              {{"group.id", "bench-bare"},
                               {"enable.auto.commit", "false"},
                               {"enable.partition.eof", "true"}});
    rd_kafka_poll_set_consumer(c);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
    for (int i = 0; i < partitions; ++i)
      rd_kafka_topic_partition_list_add(list, topic.c_str(), i)->offset = 0;
    rd_kafka_assign(c, list);
    rd_kafka_topic_partition_list_destroy(list);
    rd_kafka_queue_t* q = rd_kafka_queue_get_consumer(c);
    std::vector<rd_kafka_message_t*> msgs(1024);
    int64_t got = 0, eofs = 0, sum = 0;
    while (got < events && eofs < partitions * 1000) {
      ssize_t n = rd_kafka_consume_batch_queue(q, 100, msgs.data(), msgs.size());
      for (ssize_t i = 0; i < n; ++i) {
        if (msgs[i]->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
          ++got;
          sum += static_cast<int64_t>(msgs[i]->len + msgs[i]->key_len);
        } else {
          ++eofs;
        }
        rd_kafka_message_destroy(msgs[i]);
      }
    }
    rd_kafka_queue_destroy(q);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    double wall = Seconds(t0), cpu = CpuSeconds() - c0;
    bare_rate = got / wall;
    bare_cpu_rate = got / cpu;
    Report("bare librdkafka consumer (assign + batch)", got, wall, cpu, 0);
    if (got != events)
      std::printf("  (read %lld of %lld)\n", static_cast<long long>(got),
                  static_cast<long long>(events));
    (void)sum;
  }

  auto spark = api::SparkSession::builder().appName("kafka-bench").getOrCreate();
  double spate_delta_per_cpu = 0;
  // 2. spate batch read.
  {
    double c0 = CpuSeconds();
    auto t0 = Steady::now();
    auto rows = spark.read()
                    .format("kafka")
                    .option("kafka.bootstrap.servers", bootstrap)
                    .option("subscribe", topic)
                    .load()
                    .selectExpr("count(*) AS n", "sum(length(value)) AS b")
                    .collect();
    double wall = Seconds(t0), cpu = CpuSeconds() - c0;
    int64_t n = rows.empty() ? 0 : rows[0][0].i64();
    Report("spate read.format(kafka) count + sum(length)", n, wall, cpu, bare_rate);
  }
  // 3. spate Kafka -> Delta (bronze).
  {
    std::string delta = io::JoinPath(root, "bronze"), chk = io::JoinPath(root, "chk");
    double c0 = CpuSeconds();
    auto t0 = Steady::now();
    auto q =
        spark.readStream()
            .format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", topic)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", "500000")
            .load()
            .selectExpr(
                "from_json(CAST(value AS STRING), "
                "'order_id STRING, user_id BIGINT, amount DOUBLE, country STRING') AS o",
                "timestamp AS kafka_ts")
            .selectExpr("o.*", "kafka_ts", "current_timestamp() AS _ingested_at")
            .writeStream()
            .format("delta")
            .option("checkpointLocation", chk)
            .trigger(api::Trigger::AvailableNow())
            .start(delta);
    q.awaitTermination();
    double wall = Seconds(t0), cpu = CpuSeconds() - c0;
    int64_t n = 0;
    for (const auto& p : q.recentProgress()) n += p.num_input_rows;
    Report("spate Kafka -> Delta bronze (from_json)", n, wall, cpu, bare_rate);
    spate_delta_per_cpu = n / cpu;
  }
  // 4. Latency of one-record batches.
  {
    const std::string lt = "bench-latency";
    rd_kafka_t* p = NewClient(RD_KAFKA_PRODUCER, bootstrap, {{"linger.ms", "0"}});
    auto produce = [&](int i) {
      std::string v = "{\"i\":" + std::to_string(i) + "}";
      rd_kafka_producev(p, RD_KAFKA_V_TOPIC(lt.c_str()), RD_KAFKA_V_PARTITION(0),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                        RD_KAFKA_V_VALUE(v.data(), v.size()), RD_KAFKA_V_END);
      rd_kafka_flush(p, 10000);
    };
    produce(-1);
    auto q = spark.readStream()
                 .format("kafka")
                 .option("kafka.bootstrap.servers", bootstrap)
                 .option("subscribe", lt)
                 .option("startingOffsets", "earliest")
                 .load()
                 .writeStream()
                 .format("noop")
                 .option("checkpointLocation", io::JoinPath(root, "chk-latency"))
                 .start();
    q.processAllAvailable();
    std::vector<double> e2e;
    for (int i = 0; i < 200; ++i) {
      auto t0 = Steady::now();
      produce(i);
      q.processAllAvailable();
      e2e.push_back(Seconds(t0) * 1e6);
    }
    std::vector<double> trig;
    for (const auto& pr : q.recentProgress()) {
      auto it = pr.duration_ms.find("triggerExecution");
      if (pr.num_input_rows == 1 && it != pr.duration_ms.end())
        trig.push_back(it->second * 1000.0);
    }
    q.stop();
    rd_kafka_destroy(p);
    bench::Percentiles("1-record batch: produce -> processed", e2e);
    bench::Percentiles("1-record batch: triggerExecution", trig);
  }
  // 5. Latency at a fixed input rate.
  std::vector<double> spate_lat;
  {
    const std::string lt = "bench-rate-spate", out = io::JoinPath(root, "latency");
    { RateProducer(bootstrap, lt, 1).stop(); }  // the topic exists before "latest"
    std::mutex mu;
    int64_t first_ms = 0;
    auto q = spark.readStream()
                 .format("kafka")
                 .option("kafka.bootstrap.servers", bootstrap)
                 .option("subscribe", lt)
                 .option("startingOffsets", "latest")
                 .load()
                 .writeStream()
                 .foreachBatch([&](api::DataFrame df, int64_t) {
                   df = df.selectExpr("CAST(value AS STRING) AS v", "timestamp");
                   df.write().format("delta").mode("append").save(out);
                   auto rows = df.selectExpr("unix_millis(timestamp)").collect();
                   int64_t now = NowMs();
                   std::lock_guard<std::mutex> lock(mu);
                   if (!rows.empty() && first_ms == 0) first_ms = now;
                   for (const auto& r : rows)
                     spate_lat.push_back((now - r[0].i64()) * 1000.0);
                 })
                 .option("checkpointLocation", io::JoinPath(root, "chk-rate"))
                 .start();
    q.processAllAvailable();
    RateProducer producer(bootstrap, lt, rate);
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::lock_guard<std::mutex> lock(mu);
      if (first_ms != 0 && NowMs() - first_ms >= seconds * 1000) break;
    }
    q.stop();
    int64_t sent = producer.stop();
    char what[128];
    std::snprintf(what, sizeof(what), "spate Kafka -> Delta at %lld events/s",
                  static_cast<long long>(rate));
    bench::Percentiles(what, spate_lat);
    std::printf("  (%lld produced, %zu measured over %.0f s)\n",
                static_cast<long long>(sent), spate_lat.size(), seconds);
  }
  // 6. Local Spark's Kafka source on the same broker.
  const std::string py = std::string(SPATE_SOURCE_DIR) + "/build/spark-venv/bin/python";
  if (std::getenv("SPATE_BENCH_NO_SPARK")) {
    std::printf("Spark run skipped (SPATE_BENCH_NO_SPARK)\n");
  } else if (access(py.c_str(), X_OK) != 0) {
    std::printf("Spark run skipped (no %s: scripts/install-spark.sh)\n", py.c_str());
  } else {
    const std::string cmd = py + " " + SPATE_SOURCE_DIR + "/bench/kafka_spark.py " +
                            bootstrap + " " + topic + " " + std::to_string(events) + " " +
                            io::JoinPath(root, "spark") + " bench-rate-spark " +
                            std::to_string(seconds) + " 2>/dev/null";
    { RateProducer(bootstrap, "bench-rate-spark", 1).stop(); }
    std::fflush(stdout);
    FILE* pipe = popen(cmd.c_str(), "r");
    double spark_rate = 0, p50 = 0, p99 = 0;
    std::unique_ptr<RateProducer> producer;
    char line[512];
    while (pipe && std::fgets(line, sizeof(line), pipe)) {
      if (std::strncmp(line, "SPARK_LATENCY_STARTED", 21) == 0) {
        producer = std::make_unique<RateProducer>(bootstrap, "bench-rate-spark", rate);
        continue;
      }
      std::fputs(line, stdout);
      std::sscanf(line, "SPARK_EVENTS_PER_CPU_S %lf", &spark_rate);
      std::sscanf(line, "SPARK_LATENCY_MS %lf %lf", &p50, &p99);
    }
    if (pipe) pclose(pipe);
    if (producer) producer->stop();
    if (spark_rate > 0 && spate_delta_per_cpu > 0) {
      std::printf(
          "%-46s spate %.0f / Spark %.0f events/cpu-s = %.2fx (bare consumer %.2fx of "
          "Spark)\n",
          "ratio Kafka -> Delta per core", spate_delta_per_cpu, spark_rate,
          spate_delta_per_cpu / spark_rate, bare_cpu_rate / spark_rate);
    } else {
      std::printf("Spark run failed (see bench/kafka_spark.py)\n");
    }
    if (p50 > 0 && !spate_lat.empty()) {
      std::sort(spate_lat.begin(), spate_lat.end());
      auto at = [&](double f) {
        return spate_lat[std::min(spate_lat.size() - 1,
                                  static_cast<size_t>(f * spate_lat.size()))] /
               1000;
      };
      std::printf("%-46s p50 %.1f / %.1f ms = %.2fx, p99 %.1f / %.1f ms = %.2fx\n",
                  "ratio latency spate / Spark", at(0.5), p50, at(0.5) / p50, at(0.99),
                  p99, at(0.99) / p99);
    }
  }
  Run("bash " SPATE_SOURCE_DIR "/scripts/kafka.sh stop --dir " + root + "/broker 2>&1",
      &rc);
  (void)io::LocalFileSystem::Get()->Delete(root, true);
  return 0;
}
