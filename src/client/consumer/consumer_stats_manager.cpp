#include "client/consumer/consumer_stats_manager.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <vector>

namespace rmq::client {

namespace {
// The bucket of `stamp` in `ring`, emptied when it held an older stamp.
template <class Ring>
auto& bucketFor(Ring& ring, int64_t stamp) {
  auto& b = ring[static_cast<size_t>(stamp % static_cast<int64_t>(ring.size()))];
  if (b.stamp != stamp) {
    b = {};
    b.stamp = stamp;
  }
  return b;
}
}  // namespace

int64_t ConsumerStatsManager::now(int64_t nowMs) {
  if (nowMs > 0) return nowMs;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void ConsumerStatsManager::add(const std::string& topic, int64_t nowMs, int64_t Bucket::*sum, int64_t value,
                               int64_t Bucket::*count) {
  const int64_t t = now(nowMs);
  std::lock_guard lk(mu_);
  auto& tp = topics_[topic];
  if (tp.firstMs == 0) tp.firstMs = t;
  for (Bucket* b : {&bucketFor(tp.seconds, t / 1000), &bucketFor(tp.minutes, t / 60000)}) {
    b->*sum += value;
    if (count) ++(b->*count);
  }
}

void ConsumerStatsManager::pullRT(const std::string& topic, int64_t rtMs, int64_t nowMs) {
  add(topic, nowMs, &Bucket::pullRtSum, rtMs, &Bucket::pullRtCount);
}
void ConsumerStatsManager::pullTPS(const std::string& topic, int64_t msgs, int64_t nowMs) {
  add(topic, nowMs, &Bucket::pulled, msgs);
}
void ConsumerStatsManager::consumeRT(const std::string& topic, int64_t rtMs, int64_t nowMs) {
  add(topic, nowMs, &Bucket::consumeRtSum, rtMs, &Bucket::consumeRtCount);
}
void ConsumerStatsManager::consumeOK(const std::string& topic, int64_t msgs, int64_t nowMs) {
  add(topic, nowMs, &Bucket::ok, msgs);
}
void ConsumerStatsManager::consumeFailed(const std::string& topic, int64_t msgs, int64_t nowMs) {
  add(topic, nowMs, &Bucket::failed, msgs);
}

ConsumeStatusView ConsumerStatsManager::status(const std::string& topic, int64_t nowMs) const {
  const int64_t t = now(nowMs);
  std::lock_guard lk(mu_);
  ConsumeStatusView v;
  auto it = topics_.find(topic);
  if (it == topics_.end()) return v;
  const auto& tp = it->second;
  Bucket minute;  // the last 60 seconds (this one included)
  for (const auto& b : tp.seconds) {
    if (b.stamp < 0 || b.stamp > t / 1000 || b.stamp <= t / 1000 - 60) continue;
    minute.pullRtSum += b.pullRtSum;
    minute.pullRtCount += b.pullRtCount;
    minute.pulled += b.pulled;
    minute.consumeRtSum += b.consumeRtSum;
    minute.consumeRtCount += b.consumeRtCount;
    minute.ok += b.ok;
    minute.failed += b.failed;
  }
  int64_t hourFailed = 0, hourRtSum = 0, hourRtCount = 0;
  for (const auto& b : tp.minutes) {
    if (b.stamp < 0 || b.stamp > t / 60000 || b.stamp <= t / 60000 - 60) continue;
    hourFailed += b.failed;
    hourRtSum += b.consumeRtSum;
    hourRtCount += b.consumeRtCount;
  }
  const double seconds = std::clamp<double>(static_cast<double>(t - tp.firstMs) / 1000.0, 1.0, 60.0);
  v.pullRT = minute.pullRtCount ? static_cast<double>(minute.pullRtSum) / static_cast<double>(minute.pullRtCount) : 0;
  v.pullTPS = static_cast<double>(minute.pulled) / seconds;
  // Java: the minute's average consume RT, the hour's when the minute had none.
  if (minute.consumeRtCount) v.consumeRT = static_cast<double>(minute.consumeRtSum) / static_cast<double>(minute.consumeRtCount);
  else if (hourRtCount) v.consumeRT = static_cast<double>(hourRtSum) / static_cast<double>(hourRtCount);
  v.consumeOKTPS = static_cast<double>(minute.ok) / seconds;
  v.consumeFailedTPS = static_cast<double>(minute.failed) / seconds;
  v.consumeFailedMsgs = hourFailed;
  return v;
}

std::string ConsumerStatsManager::statusTableJson(int64_t nowMs) const {
  std::vector<std::string> topics;
  {
    std::lock_guard lk(mu_);
    for (const auto& [topic, tp] : topics_) topics.push_back(topic);
  }
  std::string out = "{";
  for (const auto& topic : topics) {
    auto v = status(topic, nowMs);
    if (out.size() > 1) out += ',';
    out += fmt::format(
        "\"{}\":{{\"consumeFailedMsgs\":{},\"consumeFailedTPS\":{:.4f},\"consumeOKTPS\":{:.4f},\"consumeRT\":{:.4f},"
        "\"pullRT\":{:.4f},\"pullTPS\":{:.4f}}}",
        topic, v.consumeFailedMsgs, v.consumeFailedTPS, v.consumeOKTPS, v.consumeRT, v.pullRT, v.pullTPS);
  }
  return out + "}";
}

}  // namespace rmq::client
