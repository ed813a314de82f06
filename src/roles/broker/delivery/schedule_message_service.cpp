#include "roles/broker/delivery/schedule_message_service.h"
#include "roles/broker/delivery/stored_message.h"

#include <asio/executor_work_guard.hpp>
#include <charconv>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/wall_clock.h"
#include "roles/broker/metadata/config_file.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/metadata/topic_config.h"
#include "roles/broker/stats/broker_stats.h"
#include "store/message_store.h"

namespace rmq::broker {

using namespace std::chrono_literals;

namespace {
constexpr auto kIdlePoll = 100ms;      // empty level queue: look again (Java's 100 ms)
constexpr auto kRetryAfterFailure = 1s;
constexpr int kMessagesPerRead = 32;
constexpr int kMaxPerRun = 1024;       // then yield to the other levels
constexpr std::string_view kScheduleConsumerGroup = "SCHEDULE_CONSUMER";  // Java MixAll.SCHEDULE_CONSUMER_GROUP
}  // namespace

struct ScheduleMessageService::LevelTask {
  int32_t level;
  asio::steady_timer timer;
  LevelTask(int32_t l, asio::io_context& io) : level(l), timer(io) {}
};

ScheduleMessageService::ScheduleMessageService(store::MessageStore& store, DelayLevels levels,
                                               std::string configDir, int64_t flushIntervalMs)
    : store_(store), levels_(std::move(levels)), dir_(std::move(configDir)),
      persistIntervalMs_(flushIntervalMs) {}

ScheduleMessageService::~ScheduleMessageService() { shutdown(); }

std::string ScheduleMessageService::filePath() const {
  return dir_.empty() ? std::string() : dir_ + "/delayOffset.json";
}

Result<void> ScheduleMessageService::load() {
  if (!dir_.empty()) {
    auto r = loadConfigFile(filePath(), [&](std::string_view t) { return decodeAndReplace(t); });
    if (!r) return r.error();
  }
  std::lock_guard lk(mu_);
  for (auto& [level, offset] : offsets_) {
    int queueId = level - 1;
    int64_t min = store_.minOffsetInQueue(topics::SCHEDULE_TOPIC, queueId);
    int64_t max = store_.maxOffsetInQueue(topics::SCHEDULE_TOPIC, queueId);
    if (offset < min || offset > max) {
      log::warn("delay level {}: offset {} outside [{}, {}], corrected", level, offset, min, max);
      offset = offset < min ? min : max;
    }
  }
  return {};
}

void ScheduleMessageService::start() {
  if (running_.exchange(true)) return;
  io_.restart();
  for (int32_t level = 1; level <= levels_.maxLevel(); ++level) {
    tasks_.push_back(std::make_unique<LevelTask>(level, io_));
    scheduleLevel(*tasks_.back(), 1s);  // first run after 1 s, as Java
  }
  persistTimer_ = std::make_unique<asio::steady_timer>(io_);
  schedulePersist();
  thread_ = std::thread([this] {
    auto guard = asio::make_work_guard(io_);
    io_.run();
  });
  log::info("schedule message service started with {} delay levels", levels_.maxLevel());
}

void ScheduleMessageService::shutdown() {
  if (!running_.exchange(false)) return;
  io_.stop();
  if (thread_.joinable()) thread_.join();
  tasks_.clear();
  persistTimer_.reset();
  if (auto r = persist(); !r) log::error("persist delayOffset.json: {}", r.error().message);
}

void ScheduleMessageService::scheduleLevel(LevelTask& task, std::chrono::milliseconds after) {
  task.timer.expires_after(after);
  task.timer.async_wait([this, &task](std::error_code ec) {
    if (ec || !running_) return;
    std::chrono::milliseconds next = kRetryAfterFailure;
    try {
      next = deliverDue(task.level);
    } catch (const std::exception& e) {
      log::error("delay level {} delivery failed: {}", task.level, e.what());
    }
    scheduleLevel(task, next);
  });
}

void ScheduleMessageService::schedulePersist() {
  persistTimer_->expires_after(std::chrono::milliseconds(persistIntervalMs_));
  persistTimer_->async_wait([this](std::error_code ec) {
    if (ec || !running_) return;
    if (auto r = persist(); !r) log::error("persist delayOffset.json: {}", r.error().message);
    schedulePersist();
  });
}

std::chrono::milliseconds ScheduleMessageService::deliverDue(int32_t level) {
  const int queueId = level - 1;
  int64_t offset;
  {
    std::lock_guard lk(mu_);
    auto it = offsets_.find(level);
    offset = it == offsets_.end() ? 0 : it->second;
  }
  for (int done = 0; done < kMaxPerRun;) {
    auto r = store_.getMessages(topics::SCHEDULE_TOPIC, queueId, offset, kMessagesPerRead, 4 << 20, nullptr);
    if (r.status == store::GetStatus::OFFSET_TOO_SMALL || r.status == store::GetStatus::OFFSET_OVERFLOW_BADLY) {
      log::warn("delay level {}: offset {} out of range, moving to {}", level, offset, r.nextBeginOffset);
      offset = r.nextBeginOffset;
      setOffset(level, offset);
      continue;
    }
    if (r.status != store::GetStatus::FOUND || r.records.empty()) {
      if (r.status == store::GetStatus::NO_MATCHED_MESSAGE || r.status == store::GetStatus::MESSAGE_WAS_REMOVING) {
        offset = r.nextBeginOffset;  // units without readable records: skip them
        setOffset(level, offset);
      }
      return kIdlePoll;
    }
    const int64_t delay = levels_.delayMillis(level);
    for (size_t i = 0; i < r.records.size(); ++i, ++done) {
      int64_t now = nowMillis();
      int64_t dueAt = r.tagsCodes[i];
      if (dueAt > now + delay) dueAt = now;  // clock skew: deliver now (Java's correction)
      if (dueAt > now) {
        return std::chrono::milliseconds(std::min<int64_t>(dueAt - now, 1000));
      }
      if (!deliverOne(r.records[i])) return kRetryAfterFailure;  // retried from the same offset
      offset = r.queueOffsets[i] + 1;
      setOffset(level, offset);
    }
  }
  return 0ms;
}

bool ScheduleMessageService::deliverOne(std::string_view record) {
  RecordView rec;
  if (parseRecord(record.data(), record.size(), rec, false) != RecordParse::Ok) {
    log::error("delay queue holds an unreadable record; skipped");
    return true;
  }
  auto timeup = delayTimeup(rec);
  if (!timeup) {
    log::error("delayed message at {} has no usable REAL_TOPIC/REAL_QID; skipped", rec.physicalOffset);
    return true;
  }
  const store::MessageToStore& m = *timeup;
  if (m.topic == topics::TRANS_HALF_TOPIC) {
    log::error("delayed message at {} names the half topic as its real topic; discarded", rec.physicalOffset);
    return true;
  }
  auto res = store_.append(m);
  if (!res.ok()) {
    log::error("delayed message to {}:{} not stored: {} {}", m.topic, m.queueId, store::toString(res.status), res.error);
    return false;
  }
  delivered_.fetch_add(1, std::memory_order_relaxed);
  // As Java 4.9.8's PutResultProcess.onSuccess (enableScheduleMessageStats, on by default): the
  // delivered copy counts as a put of its real topic and as a get of SCHEDULE_TOPIC_XXXX by the
  // internal group SCHEDULE_CONSUMER (not in the broker's get totals, as in Java).
  putStats().stored(res.topic, res.msgNum, res.wroteBytes);
  getStats().groups.add(topics::SCHEDULE_TOPIC, kScheduleConsumerGroup, res.msgNum, res.wroteBytes);
  return true;
}

void ScheduleMessageService::setOffset(int32_t level, int64_t offset) {
  std::lock_guard lk(mu_);
  offsets_[level] = offset;
}

std::map<int32_t, int64_t> ScheduleMessageService::offsets() const {
  std::lock_guard lk(mu_);
  return offsets_;
}

Result<void> ScheduleMessageService::persist() const {
  if (dir_.empty()) return {};
  return writeConfigFile(filePath(), encode(true));
}

std::string ScheduleMessageService::encode(bool pretty) const {
  auto table = offsets();
  json::Writer inner;
  inner.beginObject();
  for (auto& [level, offset] : table) inner.intKey(level).value(offset);
  inner.endObject();
  json::Writer w(pretty);
  w.beginObject().key("offsetTable").rawValue(inner.str()).endObject();
  return w.take();
}

Result<void> ScheduleMessageService::decodeAndReplace(std::string_view text) {
  auto doc = json::parse(text);
  if (!doc) return doc.error();
  const rapidjson::Value& root = *doc;
  if (!root.IsObject()) return makeError(1, "delay offset wrapper is not an object");
  std::map<int32_t, int64_t> fresh;
  if (auto t = root.FindMember("offsetTable"); t != root.MemberEnd() && t->value.IsObject()) {
    for (auto& m : t->value.GetObject()) {
      if (!m.value.IsNumber()) return makeError(1, "delay offset is not a number");
      int32_t level = 0;
      std::string_view k(m.name.GetString(), m.name.GetStringLength());
      auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), level);
      if (ec != std::errc() || level <= 0) return makeError(1, "bad delay level key");
      fresh[level] = m.value.GetInt64();
    }
  }
  std::lock_guard lk(mu_);
  offsets_ = std::move(fresh);
  return {};
}

}  // namespace rmq::broker
