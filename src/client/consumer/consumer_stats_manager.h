#pragma once
// ConsumerStatsManager: Java's ConsumerStatsManager for one consumer group — per topic, the pull RT and
// TPS, consume RT, consume OK / failed TPS over the last minute and the failed messages of the last
// hour, answered in GET_CONSUMER_RUNNING_INFO's statusTable as Java's ConsumeStatus
// {pullRT, pullTPS, consumeRT, consumeOKTPS, consumeFailedTPS, consumeFailedMsgs}.
// Counters go into one-second buckets (a ring of 60) and one-minute buckets (a ring of 60) per
// topic; a rate divides the sum of the buckets inside the window by the window's length (shorter
// while the consumer is younger than the window, at least one second).
// Threads: record from any thread (pull coroutines, consume threads), read from the io thread.
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace rmq::client {

struct ConsumeStatusView {
  double pullRT = 0, pullTPS = 0, consumeRT = 0, consumeOKTPS = 0, consumeFailedTPS = 0;
  int64_t consumeFailedMsgs = 0;
};

class ConsumerStatsManager {
 public:
  // `nowMs` defaults to the wall clock; tests pass their own times.
  void pullRT(const std::string& topic, int64_t rtMs, int64_t nowMs = 0);
  void pullTPS(const std::string& topic, int64_t msgs, int64_t nowMs = 0);
  void consumeRT(const std::string& topic, int64_t rtMs, int64_t nowMs = 0);
  void consumeOK(const std::string& topic, int64_t msgs, int64_t nowMs = 0);
  void consumeFailed(const std::string& topic, int64_t msgs, int64_t nowMs = 0);

  ConsumeStatusView status(const std::string& topic, int64_t nowMs = 0) const;
  // {"topic": ConsumeStatus, ...}: the statusTable object of ConsumerRunningInfo.
  std::string statusTableJson(int64_t nowMs = 0) const;

 private:
  struct Bucket {
    int64_t stamp = -1;  // second (or minute) this bucket holds
    int64_t pullRtSum = 0, pullRtCount = 0, pulled = 0;
    int64_t consumeRtSum = 0, consumeRtCount = 0, ok = 0, failed = 0;
  };
  struct Topic {
    int64_t firstMs = 0;
    std::array<Bucket, 60> seconds;
    std::array<Bucket, 60> minutes;
  };
  // Adds `value` to field `sum` (and 1 to `count` when given) of this second's and minute's buckets.
  void add(const std::string& topic, int64_t nowMs, int64_t Bucket::*sum, int64_t value,
           int64_t Bucket::*count = nullptr);
  static int64_t now(int64_t nowMs);

  mutable std::mutex mu_;
  std::map<std::string, Topic> topics_;
};

}  // namespace rmq::client
