// Copyright spate authors.
#include "spate/connectors/socket_source.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "spate/columnar/builder.h"
#include "spate/connectors/memory.h"
#include "spate/stream/batch_source.h"
#include "spate/types/data_type.h"

namespace spate::connectors {

namespace {

class SocketSource final : public stream::Source {
 public:
  SocketSource(std::string host, std::string port, bool include_ts, SchemaPtr schema,
               ClockPtr clock)
      : host_(std::move(host)),
        port_(std::move(port)),
        include_ts_(include_ts),
        schema_(std::move(schema)),
        clock_(std::move(clock)) {}
  ~SocketSource() override { Stop(); }

  Status Connect() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = getaddrinfo(host_.c_str(), port_.c_str(), &hints, &res);
    if (rc != 0)
      return Status::IOError("socket source: cannot resolve " + host_ + ": " +
                             gai_strerror(rc));
    int fd = -1;
    for (addrinfo* a = res; a; a = a->ai_next) {
      fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
      if (fd < 0) continue;
      if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
      close(fd);
      fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
      return Status::IOError("socket source: cannot connect to " + host_ + ":" + port_ +
                             ": " + std::strerror(errno));
    }
    fd_ = fd;
    reader_ = std::thread([this] { ReadLoop(); });
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_; }
  std::string Describe() const override {
    return "TextSocketV2[host: " + host_ + ", port: " + port_ + "]";
  }

  Result<std::optional<Json>> LatestOffset(const std::optional<Json>&) override {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t last = base_ + static_cast<int64_t>(lines_.size()) - 1;
    if (last < 0) return std::optional<Json>();
    return std::optional<Json>(Json::Int(last));
  }

  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override {
    int64_t from = start ? start->int_value() + 1 : 0, to = end.int_value();
    StringBuilder values;
    FixedWidthBuilder<int64_t> ts(DataType::Timestamp());
    int64_t n = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int64_t i = std::max(from, base_);
           i <= to && i - base_ < static_cast<int64_t>(lines_.size()); ++i) {
        const auto& [line, ms] = lines_[static_cast<size_t>(i - base_)];
        values.Append(line);
        ts.Append(ms * 1000);
        ++n;
      }
    }
    std::vector<ColumnPtr> cols{values.Finish()};
    if (include_ts_) cols.push_back(ts.Finish());
    std::vector<BatchPtr> batches;
    if (n > 0) batches.push_back(Batch::Make(schema_, cols, n));
    return DataSourcePtr(
        std::make_shared<stream::BatchesDataSource>(schema_, batches, Describe()));
  }

  Status Commit(const Json& end) override {
    std::lock_guard<std::mutex> lock(mu_);
    while (!lines_.empty() && base_ <= end.int_value()) {
      lines_.pop_front();
      ++base_;
    }
    return Status::OK();
  }

  void Stop() override {
    stop_ = true;
    if (reader_.joinable()) reader_.join();
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
  }

 private:
  void ReadLoop() {
    std::string pending;
    char buf[65536];
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      int r = poll(&p, 1, 20);
      if (r <= 0) continue;
      ssize_t got = read(fd_, buf, sizeof(buf));
      if (got <= 0) break;
      pending.append(buf, static_cast<size_t>(got));
      size_t pos;
      while ((pos = pending.find('\n')) != std::string::npos) {
        std::string line = pending.substr(0, pos);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        pending.erase(0, pos + 1);
        std::lock_guard<std::mutex> lock(mu_);
        lines_.emplace_back(std::move(line), clock_->NowMs());
      }
    }
  }

  std::string host_, port_;
  bool include_ts_;
  SchemaPtr schema_;
  ClockPtr clock_;
  int fd_ = -1;
  std::thread reader_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::deque<std::pair<std::string, int64_t>> lines_;
  int64_t base_ = 0;
};

}  // namespace

Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeSocketSourceFactory(
    const std::map<std::string, std::string>& options) {
  if (!HasOption(options, "host")) {
    return Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", "Set a host to read from with option(\"host\", ...)."}});
  }
  if (!HasOption(options, "port")) {
    return Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", "Set a port to read from with option(\"port\", ...)."}});
  }
  std::string host = GetOption(options, "host"), port = GetOption(options, "port");
  std::string inc = ToLower(GetOption(options, "includeTimestamp", "false"));
  if (inc != "true" && inc != "false") {
    return Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", "includeTimestamp must be set to either \"true\" or \"false\""}});
  }
  bool include_ts = inc == "true";
  std::vector<Field> fields{{"value", DataType::String(), true, ""}};
  if (include_ts) fields.push_back({"timestamp", DataType::Timestamp(), true, ""});
  auto schema = std::make_shared<const Schema>(fields);
  stream::SourceFactory factory =
      [host, port, include_ts,
       schema](const stream::SourceContext& ctx) -> Result<stream::SourcePtr> {
    auto src = std::make_shared<SocketSource>(host, port, include_ts, schema, ctx.clock);
    SPATE_RETURN_IF_ERROR(src->Connect());
    return stream::SourcePtr(src);
  };
  return std::make_pair(schema, factory);
}

}  // namespace spate::connectors
