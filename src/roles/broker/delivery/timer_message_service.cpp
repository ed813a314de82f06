#include "roles/broker/delivery/timer_message_service.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "common/timer_properties.h"
#include "common/java_string_map.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/wall_clock.h"
#include "roles/broker/delivery/stored_message.h"
#include "roles/broker/metadata/topic_config.h"
#include "roles/broker/stats/broker_stats.h"
#include "store/live_store_keys.h"
#include "store/message_store.h"
#include "store/timer_rewrite.h"

namespace rmq::broker {

namespace {
constexpr int64_t kReadBatch = 65536;     // units read per pass (rebuild: per step)
constexpr int64_t kIdlePollMs = 100;      // nothing due: look at the queue again (wake() is sooner)
constexpr int64_t kScanFromRefreshMs = 1000;
constexpr size_t kLagWindow = 8192;

struct Loaded {
  TimerEntry entry;
  store::ByteView bytes;
  RecordView rec;
  int64_t outMs = 0;  // TIMER_OUT_MS; above the entry's time: a wake to roll, not the delivery
  bool rolls() const { return outMs > entry.deliverMs; }
};

int64_t timerOutMs(const RecordView& rec) {
  auto out = findEncodedProperty(rec.properties, prop::TIMER_OUT_MS);
  int64_t ms = 0;
  if (!out || std::from_chars(out->data(), out->data() + out->size(), ms).ec != std::errc()) return 0;
  return ms;
}

bool retryable(store::PutStatus s) {
  switch (s) {
    case store::PutStatus::MESSAGE_ILLEGAL:
    case store::PutStatus::PROPERTIES_SIZE_EXCEEDED:
    case store::PutStatus::WHEEL_TIMER_MSG_ILLEGAL:
    case store::PutStatus::WHEEL_TIMER_NOT_ENABLE: return false;
    default: return true;
  }
}

// The delivered message's properties: the parked ones minus REAL_TOPIC / REAL_QID, plus
// TIMER_ENQUEUE_MS (when it was parked) and TIMER_DEQUEUE_MS (now), as 5.x's convertMessage.
std::string deliveredProperties(const RecordView& rec, int64_t now) {
  thread_local JavaStringMap props;
  props.clear();
  putEncodedProperties(props, rec.properties);
  props.remove(prop::REAL_TOPIC);
  props.remove(prop::REAL_QID);
  props.remove(prop::TIMER_WAKE_MS);
  std::string enqueue = std::to_string(rec.storeTimestamp), dequeue = std::to_string(now);
  props.put(prop::TIMER_ENQUEUE_MS, enqueue);
  props.put(prop::TIMER_DEQUEUE_MS, dequeue);
  std::string out;
  appendProperties(out, props);
  return out;
}

// A far timer's copy re-parked closer to its time (5.x convert(..., needRoll)): TIMER_ROLL_TIMES
// + 1, TIMER_WAKE_MS = its next wake, the enqueue / dequeue times of this copy.
std::string rolledProperties(const RecordView& rec, int64_t wakeMs, int64_t now) {
  thread_local JavaStringMap props;
  props.clear();
  putEncodedProperties(props, rec.properties);
  int64_t times = 0;
  if (auto t = props.get(prop::TIMER_ROLL_TIMES)) std::from_chars(t->data(), t->data() + t->size(), times);
  std::string rolls = std::to_string(times + 1), wake = std::to_string(wakeMs);
  std::string enqueue = std::to_string(rec.storeTimestamp), dequeue = std::to_string(now);
  props.put(prop::TIMER_ROLL_TIMES, rolls);
  props.put(prop::TIMER_WAKE_MS, wake);
  props.put(prop::TIMER_ENQUEUE_MS, enqueue);
  props.put(prop::TIMER_DEQUEUE_MS, dequeue);
  std::string out;
  appendProperties(out, props);
  return out;
}

std::string cancelKey(const RecordView& rec) {
  auto topic = findEncodedProperty(rec.properties, prop::REAL_TOPIC);
  auto uniq = findEncodedProperty(rec.properties, prop::UNIQ_KEY);
  if (!topic || !uniq) return {};
  return std::string(*topic) + "+" + std::string(*uniq);
}
}  // namespace

TimerMessageService::TimerMessageService(store::MessageStore& store, const store::StoreConfig& cfg,
                                         int64_t progressIntervalMs)
    : store_(store), cfg_(cfg), progressIntervalMs_(progressIntervalMs) {}

TimerMessageService::~TimerMessageService() { shutdown(); }

void TimerMessageService::start() {
  if (running_.exchange(true)) return;
  const int32_t reservedHours = store::liveRead(cfg_.fileReservedTime);
  if (cfg_.timerRollWindowMs() >= int64_t{reservedHours} * 3600 * 1000)
    log::warn("timerRollWindowSlot x timerPrecisionMs ({} ms) is not below fileReservedTime ({} h): retention may "
              "delete the body of a far pending timer before it is rolled", cfg_.timerRollWindowMs(),
              reservedHours);
  {
    std::lock_guard lk(mu_);
    rebuild();
  }
  thread_ = std::thread([this] { run(); });
}

void TimerMessageService::shutdown() {
  if (!running_.exchange(false)) return;
  wake();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lk(mu_);
  writeProgress(true);
  index_.clear();
}

void TimerMessageService::wake() {
  std::lock_guard lk(wakeMu_);
  woken_ = true;
  cv_.notify_one();
}

// The last progress record of queue 1, then every pending unit of queue 0 from its scanFrom.
void TimerMessageService::rebuild() {
  TimerProgress progress;
  int64_t last = store_.maxOffsetInQueue(store::kTimerTopic, store::kTimerProgressQueueId) - 1;
  if (last >= 0) {
    auto r = store_.getMessages(store::kTimerTopic, store::kTimerProgressQueueId, last, 1, 1 << 20, nullptr);
    RecordView rec;
    if (r.status == store::GetStatus::FOUND && !r.records.empty() &&
        parseRecord(r.records[0].data(), r.records[0].size(), rec, false) == RecordParse::Ok) {
      if (auto p = decodeProgress(rec.body)) progress = *p;
      else log::error("timer progress record at {} unreadable: rebuilding from the queue start", rec.physicalOffset);
    }
  }
  index_.clear();
  int64_t from = progress.scanFrom;
  for (;;) {
    auto units = store_.queueUnits(store::kTimerTopic, store::kTimerQueueId, from, kReadBatch);
    if (units.empty()) break;
    for (const auto& u : units) {
      TimerEntry e{u.tagsCode, u.queueOffset};
      if (progress.pending(e)) index_.add(e);
    }
    from = units.back().queueOffset + 1;
  }
  done_ = progress;
  done_.readOffset = from;  // every unit below it was considered (a cut store may hold fewer than the record says)
  scanFrom_ = std::min(progress.scanFrom, done_.readOffset);
  tokens_ = 0;
  tokensAtMs_ = nowMillis();
  log::info("timer: {} pending timer messages (index {} KiB), done up to {}:{}, read from {}", index_.size(),
            index_.memoryBytes() / 1024, progress.doneMs, progress.doneOffset, done_.readOffset);
}

void TimerMessageService::run() {
  while (running_.load()) {
    int64_t wait;
    {
      std::lock_guard lk(mu_);
      try {
        readNew();
        int64_t now = nowMillis();
        deliverDue(now);
        writeProgress(false);
        wait = waitMillis(nowMillis());
      } catch (const std::exception& e) {
        log::error("timer delivery failed: {}", e.what());
        wait = kIdlePollMs;
      }
    }
    std::unique_lock wl(wakeMu_);
    if (wait > 0) cv_.wait_for(wl, std::chrono::milliseconds(wait), [&] { return woken_ || !running_.load(); });
    woken_ = false;
  }
}

void TimerMessageService::readNew() {
  auto units = store_.queueUnits(store::kTimerTopic, store::kTimerQueueId, done_.readOffset, kReadBatch);
  for (const auto& u : units) index_.add({u.tagsCode, u.queueOffset});
  if (!units.empty()) done_.readOffset = units.back().queueOffset + 1;
}

// Token bucket at timerMaxDeliverRate (burst: 100 ms worth): a backlog after a restart, or many
// timers of one millisecond, go out at a bounded rate; normal sends take the commit log between.
size_t TimerMessageService::deliverDue(int64_t now) {
  const double rate = std::max(1, cfg_.timerMaxDeliverRate);
  tokens_ = std::min(std::max(1.0, rate / 10), tokens_ + rate * double(now - tokensAtMs_) / 1000.0);
  tokensAtMs_ = now;
  size_t taken = 0;
  while (!index_.empty() && index_.top().deliverMs <= now && tokens_ >= 1 && running_.load()) {
    auto r = deliverGroup(index_.popGroup(), now, static_cast<size_t>(tokens_));
    if (r.taken == 0) break;  // the store refused: retried on the next pass
    tokens_ -= double(r.taken);
    taken += r.taken;
    if (done_.doneKey() < r.last) {
      done_.doneMs = r.last.deliverMs;
      done_.doneOffset = r.last.queueOffset;
    }
    progressDirty_ = true;
  }
  return taken;
}

TimerMessageService::GroupResult TimerMessageService::deliverGroup(const std::vector<TimerEntry>& group, int64_t now,
                                                                   size_t budget) {
  std::vector<Loaded> loaded;
  std::vector<TimerEntry> markers;
  std::set<std::string> cancels;  // delete markers of this millisecond
  GroupResult result;
  for (const auto& e : group) {
    int64_t phy = store_.commitLogOffsetInQueue(store::kTimerTopic, store::kTimerQueueId, e.queueOffset);
    Loaded l{e, store_.lookMessageByOffset(phy), {}};
    if (!l.bytes || parseRecord(l.bytes.bytes.data(), l.bytes.bytes.size(), l.rec, false) != RecordParse::Ok) {
      log::error("timer unit {} points at no readable record; skipped", e.queueOffset);
      continue;
    }
    l.outMs = timerOutMs(l.rec);
    if (l.rolls()) {  // a delete marker rolls too: it meets its target at their common last wake
      loaded.push_back(std::move(l));
      continue;
    }
    if (auto del = findEncodedProperty(l.rec.properties, prop::TIMER_DEL_UNIQKEY)) {
      cancels.emplace(*del);
      markers.push_back(e);
      continue;
    }
    loaded.push_back(std::move(l));
  }
  size_t i = 0;
  for (; i < loaded.size() && result.taken < budget; ++i) {
    bool retry = false;
    if (loaded[i].rolls()) {
      if (!rollRecord(loaded[i].rec, loaded[i].outMs, now, retry) && retry) break;
    } else if (auto key = cancelKey(loaded[i].rec); !key.empty() && cancels.count(key)) {
      cancelled_.fetch_add(1, std::memory_order_relaxed);
    } else {
      if (!deliverRecord(loaded[i].rec, loaded[i].entry.deliverMs, now, retry) && retry) break;
    }
    ++result.taken;
    result.last = loaded[i].entry;
  }
  if (i == loaded.size()) {  // the whole group is done: its markers too
    result.taken += markers.size();
    for (const auto& m : markers) result.last = std::max(result.last, m);
    return result;
  }
  for (; i < loaded.size(); ++i) index_.add(loaded[i].entry);
  for (const auto& m : markers) index_.add(m);
  return result;
}

// false: not delivered (retry: the store may take it later; else it is dropped, logged).
bool TimerMessageService::deliverRecord(const RecordView& rec, int64_t deliverMs, int64_t now, bool& retry) {
  std::string props = deliveredProperties(rec, now);
  auto m = timeupMessage(rec, props);
  if (!m || m->topic == topics::TRANS_HALF_TOPIC) {
    log::error("timer message at {} has no usable REAL_TOPIC/REAL_QID; skipped", rec.physicalOffset);
    return false;
  }
  auto res = store_.append(*m);
  if (!res.ok()) {
    retry = retryable(res.status);
    auto what = retry ? "retried" : "dropped";
    log::warn("timer delivery to {}:{} not stored ({}): {}", m->topic, m->queueId, store::toString(res.status), what);
    return false;
  }
  delivered_.fetch_add(1, std::memory_order_relaxed);
  putStats().stored(res.topic, res.msgNum, res.wroteBytes);
  noteLag(res.storeTimestamp - deliverMs);
  return true;
}

// Re-parks a far timer's copy in the newest commit-log file (its old file may expire before the
// time): a new unit of queue 0 at its next wake; this one is done. false as deliverRecord.
bool TimerMessageService::rollRecord(const RecordView& rec, int64_t outMs, int64_t now, bool& retry) {
  int64_t wake = store::timerWakeMs(outMs, now, cfg_.timerRollWindowMs());
  std::string props = rolledProperties(rec, wake, now);
  store::MessageToStore m = reputMessage(rec, store::kTimerTopic, store::kTimerQueueId, props);
  m.delayDelivered = true;
  auto res = store_.append(m);
  if (!res.ok()) {
    retry = retryable(res.status);
    log::warn("timer roll of the record at {} not stored ({}): {}", rec.physicalOffset, store::toString(res.status),
              retry ? "retried" : "dropped");
    return false;
  }
  rolled_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void TimerMessageService::noteLag(int64_t lagMs) {
  if (lags_.size() < kLagWindow) lags_.push_back(lagMs);
  else lags_[lagNext_] = lagMs;
  lagNext_ = (lagNext_ + 1) % kLagWindow;
  ++lagSamples_;
}

// Appends the progress record (at most every progressIntervalMs unless forced). The done key is
// capped below the index's earliest entry: a unit read late (its time already behind the done key)
// stays pending in the record until it is delivered.
void TimerMessageService::writeProgress(bool force) {
  if (!progressDirty_) return;
  int64_t now = nowMillis();
  if (!force && now - lastProgressMs_ < progressIntervalMs_) return;
  if (force || now - scanFromAtMs_ >= kScanFromRefreshMs) {
    scanFrom_ = std::min(index_.minQueueOffset(), done_.readOffset);
    scanFromAtMs_ = now;
  }
  TimerProgress p = done_;
  p.scanFrom = scanFrom_;
  if (!index_.empty() && index_.top() <= p.doneKey()) {
    p.doneMs = index_.top().deliverMs;
    p.doneOffset = index_.top().queueOffset - 1;
  }
  std::string body = encodeProgress(p);
  store::MessageToStore m;
  m.topic = store::kTimerTopic;
  m.queueId = store::kTimerProgressQueueId;
  m.body = body;
  m.bornTimestamp = now;
  m.bornHost = store_.storeHost();
  m.delayDelivered = true;
  auto res = store_.append(m);
  lastProgressMs_ = now;
  if (!res.ok()) {
    log::warn("timer progress not stored ({}); the next pass tries again", store::toString(res.status));
    return;
  }
  progressDirty_ = false;
}

int64_t TimerMessageService::waitMillis(int64_t now) const {
  int64_t wait = kIdlePollMs;
  if (!index_.empty()) {
    int64_t due = index_.top().deliverMs - now;
    // Due but out of tokens: the time one token takes to refill.
    wait = due > 0 ? due : std::max<int64_t>(1, 1000 / std::max(1, cfg_.timerMaxDeliverRate));
  }
  if (progressDirty_) wait = std::min(wait, std::max<int64_t>(1, lastProgressMs_ + progressIntervalMs_ - now));
  return std::min(wait, kIdlePollMs);
}

TimerStats TimerMessageService::stats() const {
  std::lock_guard lk(mu_);
  TimerStats s;
  s.running = running_.load();
  s.pending = index_.size();
  s.delivered = delivered_.load(std::memory_order_relaxed);
  s.cancelled = cancelled_.load(std::memory_order_relaxed);
  s.rolled = rolled_.load(std::memory_order_relaxed);
  s.indexBytes = index_.memoryBytes();
  if (!index_.empty()) s.overdueMs = std::max<int64_t>(0, nowMillis() - index_.top().deliverMs);
  s.lagSamples = lagSamples_;
  if (!lags_.empty()) {
    std::vector<int64_t> v = lags_;
    std::sort(v.begin(), v.end());
    s.lagP50Ms = v[v.size() / 2];
    s.lagP99Ms = v[std::min(v.size() - 1, v.size() * 99 / 100)];
    s.lagMaxMs = v.back();
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> TimerMessageService::runtimeInfo() const {
  TimerStats s = stats();
  return {{"timerPendingCount", std::to_string(s.pending)},
          {"timerDeliveredCount", std::to_string(s.delivered)},
          {"timerCancelledCount", std::to_string(s.cancelled)},
          {"timerRolledCount", std::to_string(s.rolled)},
          {"timerIndexBytes", std::to_string(s.indexBytes)},
          {"timerOverdueMs", std::to_string(s.overdueMs)},
          {"timerLagP50Ms", std::to_string(s.lagP50Ms)},
          {"timerLagP99Ms", std::to_string(s.lagP99Ms)}};
}

}  // namespace rmq::broker
