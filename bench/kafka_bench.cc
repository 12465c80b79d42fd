// Copyright spate authors.
// Kafka benchmarks (printed, never pass/fail), against a local broker this program starts
// with scripts/kafka.sh (KRaft, loopback):
//  1. a bare librdkafka consumer (assign + rd_kafka_consume_batch_queue, touching every
//     key and value) reading the whole topic: the reference;
//  2. spate's batch read of the same topic (read.format("kafka"), sum of value lengths);
//  3. spate's Kafka -> Delta streaming ingest (AvailableNow, from_json of the value, the
//     article's bronze shape) of the same topic;
//  4. latency: one record produced, then processAllAvailable of a running Kafka -> noop
//     query, p50/p99 of produce-to-processed and of the batch's triggerExecution.
// Each line gives events/s of wall time and per CPU-second of the process, and the ratio
// to the bare consumer measured in the same run.
//
//   build/release/bench/spate_kafka_bench [events=1000000] [partitions=2]

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "timing.h"

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
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
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

}  // namespace

int main(int argc, char** argv) {
  int64_t events = argc > 1 ? std::atoll(argv[1]) : 1000000;
  int partitions = argc > 2 ? std::atoi(argv[2]) : 2;
  const char* tmp = std::getenv("TMPDIR");
  std::string root = io::JoinPath(tmp && *tmp ? tmp : "/tmp", "spate-kafka-bench-" + stream::RandomUuid());
  int rc = 0;
  std::string out = Run("bash " SPATE_SOURCE_DIR "/scripts/kafka.sh start --dir " + root +
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
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof(err));
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
                              {{"linger.ms", "20"}, {"batch.size", "1000000"},
                               {"queue.buffering.max.messages", "1000000"}});
    auto t0 = Steady::now();
    for (int64_t i = 0; i < events; ++i) {
      std::string v = "{\"order_id\":\"o" + std::to_string(i) + "\",\"user_id\":" +
                      std::to_string(i % 9973) + ",\"amount\":" + std::to_string((i % 1000) / 10.0) +
                      ",\"country\":\"" + (i % 3 ? "DE" : "FR") + "\"}";
      std::string k = "o" + std::to_string(i);
      bytes += static_cast<int64_t>(v.size());
      for (;;) {
        auto e = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic.c_str()),
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
  double bare_rate = 0;
  {
    double c0 = CpuSeconds();
    auto t0 = Steady::now();
    rd_kafka_t* c = NewClient(RD_KAFKA_CONSUMER, bootstrap,
                              {{"group.id", "bench-bare"}, {"enable.auto.commit", "false"},
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
    Report("bare librdkafka consumer (assign + batch)", got, wall, cpu, 0);
    if (got != events) std::printf("  (read %lld of %lld)\n", static_cast<long long>(got),
                                   static_cast<long long>(events));
    (void)sum;
  }

  auto spark = api::SparkSession::builder().appName("kafka-bench").getOrCreate();
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
    auto q = spark.readStream()
                 .format("kafka")
                 .option("kafka.bootstrap.servers", bootstrap)
                 .option("subscribe", topic)
                 .option("startingOffsets", "earliest")
                 .option("maxOffsetsPerTrigger", "500000")
                 .load()
                 .selectExpr("from_json(CAST(value AS STRING), "
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
      if (pr.num_input_rows == 1 && it != pr.duration_ms.end()) trig.push_back(it->second * 1000.0);
    }
    q.stop();
    rd_kafka_destroy(p);
    bench::Percentiles("1-record batch: produce -> processed", e2e);
    bench::Percentiles("1-record batch: triggerExecution", trig);
  }
  Run("bash " SPATE_SOURCE_DIR "/scripts/kafka.sh stop --dir " + root + "/broker 2>&1", &rc);
  (void)io::LocalFileSystem::Get()->Delete(root, true);
  return 0;
}
