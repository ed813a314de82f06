#include "roles/broker/transaction/transactional_message_service.h"

#include <asio/executor_work_guard.hpp>
#include <charconv>
#include <chrono>
#include <vector>

#include "common/log.h"
#include "common/message_id.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/topic_config.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/transaction/transactional_message.h"
#include "store/message_store.h"
#include "store/store_config.h"

namespace rmq::broker {

namespace {
constexpr int kRecordsPerRead = 32;
constexpr int64_t kMaxRoundMs = 60000;
constexpr size_t kMaxDecided = 200000;  // remembered decisions (oldest half offsets forgotten first)
const std::string kHalf(topics::TRANS_HALF_TOPIC);
const std::string kOp(topics::TRANS_OP_HALF_TOPIC);
const std::string kGroup(tx::SYS_GROUP);

bool parseRecordView(std::string_view bytes, RecordView& out) {
  return !bytes.empty() && parseRecord(bytes.data(), bytes.size(), out, false) == RecordParse::Ok;
}
}  // namespace

TransactionalMessageService::TransactionalMessageService(BrokerContext& ctx) : ctx_(ctx) {}

TransactionalMessageService::~TransactionalMessageService() { shutdown(); }

store::AppendResult TransactionalMessageService::prepare(store::MessageToStore m) {
  std::string props;
  tx::toHalfMessage(m, props);
  ctx_.topics.createTopicInSendMessageBackMethod(kHalf, 1, perm::READ | perm::WRITE, 0);
  return ctx_.store.append(m);
}

void TransactionalMessageService::markDecided(const std::string& uniqKey, int64_t halfQueueOffset) {
  if (uniqKey.empty() || !decided_.emplace(uniqKey, halfQueueOffset).second) return;
  decidedByOffset_.emplace(halfQueueOffset, uniqKey);
  while (decided_.size() > kMaxDecided) {  // forget the oldest decisions first
    auto oldest = decidedByOffset_.begin();
    decided_.erase(oldest->second);
    decidedByOffset_.erase(oldest);
  }
}

bool TransactionalMessageService::isDecided(const std::string& uniqKey) const {
  return !uniqKey.empty() && decided_.count(uniqKey) != 0;
}

bool TransactionalMessageService::writeOp(int64_t halfQueueOffset) {
  ctx_.topics.createTopicInSendMessageBackMethod(kOp, 1, perm::READ | perm::WRITE, 0);
  std::string body;
  auto op = tx::opMessage(halfQueueOffset, ctx_.storeHost, nowMillis(), body);
  auto res = ctx_.store.append(op);
  if (!res.ok()) log::error("transaction op record for half offset {} not stored: {}", halfQueueOffset, res.error);
  return res.ok();
}

TransactionalMessageService::EndResult TransactionalMessageService::endTransaction(const EndTransactionHeader& h) {
  const int type = h.commitOrRollback;
  if (type != sysflag::TRANSACTION_COMMIT_TYPE && type != sysflag::TRANSACTION_ROLLBACK_TYPE) return {};
  auto view = ctx_.store.lookMessageByOffset(h.commitLogOffset);
  RecordView half;
  if (!parseRecordView(view.bytes, half) || half.topic != kHalf)
    return {ResponseCode::SYSTEM_ERROR, "Find prepared transaction message failed"};
  auto pgroup = findEncodedProperty(half.properties, prop::PGROUP);
  if (!pgroup || *pgroup != h.producerGroup) return {ResponseCode::SYSTEM_ERROR, "The producer group wrong"};
  if (half.queueOffset != h.tranStateTableOffset)
    return {ResponseCode::SYSTEM_ERROR, "The transaction state table offset wrong"};
  if (half.physicalOffset != h.commitLogOffset) return {ResponseCode::SYSTEM_ERROR, "The commit log offset wrong"};
  std::string uniq(findEncodedProperty(half.properties, prop::UNIQ_KEY).value_or(""));

  std::lock_guard lk(mu_);  // one decision at a time: the decided check and the writes are atomic
  if (isDecided(uniq)) {
    log::info("transaction {} already decided; {} from {} ignored", uniq, type == 8 ? "commit" : "rollback",
              h.fromTransactionCheck ? "a check answer" : "the producer");
    return {};
  }
  if (type == sysflag::TRANSACTION_COMMIT_TYPE && alreadyCommitted(half, uniq)) {
    log::info("transaction {} already committed (found in its topic); op record only", uniq);
  } else if (type == sysflag::TRANSACTION_COMMIT_TYPE) {
    auto commit = tx::commitMessage(half);
    if (!commit) return {ResponseCode::SYSTEM_ERROR, "the half message has no usable REAL_TOPIC/REAL_QID"};
    auto res = ctx_.store.append(*commit);
    if (!res.ok()) return {store::toResponseCode(res.status), ctx_.store.remarkFor(res.status, res.error)};
  }
  if (!writeOp(half.queueOffset)) return {ResponseCode::SYSTEM_ERROR, "op record not stored"};
  markDecided(uniq, half.queueOffset);
  return {};
}

bool TransactionalMessageService::alreadyCommitted(const RecordView& half, const std::string& uniq) const {
  auto realTopic = findEncodedProperty(half.properties, prop::REAL_TOPIC);
  if (uniq.empty() || !realTopic) return false;
  // Committed records are indexed by UNIQ_KEY under their real topic: this survives restarts.
  auto q = ctx_.store.queryMessage(*realTopic, uniq, 32, 0, INT64_MAX);
  for (auto bytes : q.records) {
    RecordView r;
    if (!parseRecordView(bytes, r) || sysflag::transactionType(r.sysFlag) != sysflag::TRANSACTION_COMMIT_TYPE)
      continue;
    if (findEncodedProperty(r.properties, prop::UNIQ_KEY) == std::optional<std::string_view>(uniq)) return true;
  }
  return false;
}

std::string TransactionalMessageService::uniqKeyOfHalf(int64_t halfQueueOffset) const {
  int64_t phy = ctx_.store.commitLogOffsetInQueue(kHalf, 0, halfQueueOffset);
  if (phy < 0) return {};
  auto view = ctx_.store.lookMessageByOffset(phy);
  RecordView half;
  if (!parseRecordView(view.bytes, half)) return {};
  return std::string(findEncodedProperty(half.properties, prop::UNIQ_KEY).value_or(""));
}

store::GetMessageResult TransactionalMessageService::readQueue(std::string_view topic, int64_t offset,
                                                               int maxBytes) const {
  auto g = ctx_.store.getMessages(topic, 0, offset, kRecordsPerRead, maxBytes, nullptr);
  if (g.status == store::GetStatus::FOUND && !g.records.empty())
    getStats().found(tx::SYS_GROUP, topic, static_cast<int64_t>(g.records.size()), g.totalBytes);
  return g;
}

bool TransactionalMessageService::readOps(OpScan& s) {
  for (;;) {
    auto g = readQueue(kOp, s.end, 1 << 20);
    if (g.status == store::GetStatus::OFFSET_TOO_SMALL && g.nextBeginOffset > s.end) {
      s.end = g.nextBeginOffset;  // the queue's start moved past our offset
      continue;
    }
    if (g.status != store::GetStatus::FOUND || g.records.empty()) {
      s.exhausted = true;
      return false;
    }
    std::vector<int64_t> halves;
    for (size_t i = 0; i < g.records.size(); ++i) {
      RecordView op;
      int64_t halfOffset = -1;
      if (parseRecordView(g.records[i], op) && op.body.size() > 0)
        std::from_chars(op.body.data(), op.body.data() + op.body.size(), halfOffset);
      if (halfOffset >= 0) {
        s.opByHalf[halfOffset] = g.queueOffsets[i];
        s.halfByOp[g.queueOffsets[i]] = halfOffset;
        halves.push_back(halfOffset);
      }
      s.end = g.queueOffsets[i] + 1;
    }
    // Every decided transaction by UNIQ_KEY: a late decision about an older copy covers newer copies.
    std::lock_guard lk(mu_);
    for (int64_t h : halves) markDecided(uniqKeyOfHalf(h), h);
    return true;
  }
}

bool TransactionalMessageService::hasOp(OpScan& s, int64_t halfOffset) {
  while (s.opByHalf.count(halfOffset) == 0)
    if (s.exhausted || !readOps(s)) return false;
  return true;
}

bool TransactionalMessageService::passImmune(OpScan& ops, const RecordView& half, int32_t checkTimes) {
  auto prepared = tx::preparedQueueOffsetOf(half);
  if (prepared && *prepared == -1) return false;  // unreadable: Java leaves it for a later round
  if (prepared && hasOp(ops, *prepared)) return true;  // the original was decided
  std::string props;
  auto copy = tx::renewImmunityHalfMessage(half, checkTimes, half.queueOffset, props);
  auto res = ctx_.store.append(copy);
  if (!res.ok()) log::error("transaction check: putting back immune half offset {} failed: {}", half.queueOffset, res.error);
  return res.ok();
}

TransactionalMessageService::EndResult TransactionalMessageService::resumeCheck(std::string_view msgId) {
  auto id = parseOffsetMsgId(msgId);
  auto view = id ? ctx_.store.lookMessageByOffset(id->commitLogOffset) : store::ByteView{};
  RecordView rec;
  if (!view || !parseRecordView(view.bytes, rec)) {
    log::error("resume check of {}: no message at that offset", msgId);
    return {ResponseCode::SYSTEM_ERROR, "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC."};
  }
  std::string props;
  auto res = ctx_.store.append(tx::resumedHalfMessage(rec, props));
  if (!res.ok()) {
    log::error("Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed: {}", res.error);
    return {ResponseCode::SYSTEM_ERROR, "Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed."};
  }
  log::info("Put message back to RMQ_SYS_TRANS_HALF_TOPIC. real topic={}",
            findEncodedProperty(rec.properties, prop::REAL_TOPIC).value_or(""));
  return {ResponseCode::SUCCESS, {}};
}

bool TransactionalMessageService::checkBack(const RecordView& half, int32_t checkTimes) {
  std::string props;
  auto renewed = tx::renewHalfMessage(half, checkTimes, props);
  auto res = ctx_.store.append(renewed);
  if (!res.ok()) {
    log::error("transaction check: renewing half offset {} failed: {}", half.queueOffset, res.error);
    return false;
  }
  auto view = ctx_.store.lookMessageByOffset(res.physicalOffset);
  RecordView copy;
  if (!parseRecordView(view.bytes, copy)) return true;
  std::string group(findEncodedProperty(copy.properties, prop::PGROUP).value_or(""));
  auto conn = ctx_.clients.anyProducerChannel(group);
  std::string uniq(findEncodedProperty(copy.properties, prop::UNIQ_KEY).value_or(""));
  if (!conn) {
    log::warn("transaction check of {} (group {}): no live producer connection", uniq, group);
    return true;
  }
  auto req = net::RemotingCommand::request(RequestCode::CHECK_TRANSACTION_STATE);
  req.serializeType = net::SerializeType::Json;  // every client reads JSON (the C++ client only JSON)
  req.extFields.set("tranStateTableOffset", copy.queueOffset);
  req.extFields.set("commitLogOffset", copy.physicalOffset);
  req.extFields.set("msgId", uniq);
  req.extFields.set("transactionId", uniq);
  req.extFields.set("offsetMsgId", createOffsetMsgId(copy.storeHost, copy.physicalOffset));
  req.body = tx::checkStateBody(copy);
  conn->sendOneway(std::move(req));
  checksSent_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void TransactionalMessageService::checkRound() {
  auto& st = ctx_.store;
  const int64_t roundStart = nowMillis();
  int64_t halfOffset = ctx_.offsets.queryOffset(kGroup, kHalf, 0);
  int64_t opOffset = ctx_.offsets.queryOffset(kGroup, kOp, 0);
  if (halfOffset < 0) halfOffset = st.minOffsetInQueue(kHalf, 0);
  if (opOffset < 0) opOffset = st.minOffsetInQueue(kOp, 0);
  const int64_t halfEnd = st.maxOffsetInQueue(kHalf, 0);
  if (halfOffset >= halfEnd) return;
  OpScan ops;
  ops.end = opOffset;
  readOps(ops);

  const int64_t timeout = ctx_.config.transactionTimeOut;
  const int64_t maxAgeMs = static_cast<int64_t>(ctx_.storeConfig.fileReservedTime) * 3600 * 1000;
  bool stop = false;
  while (!stop && halfOffset < halfEnd) {
    auto g = readQueue(kHalf, halfOffset, 4 << 20);
    if (g.status != store::GetStatus::FOUND || g.records.empty()) {
      if (g.nextBeginOffset > halfOffset) {  // removed or unreadable units: move past them
        halfOffset = g.nextBeginOffset;
        continue;
      }
      break;
    }
    for (size_t i = 0; i < g.records.size() && !stop; ++i) {
      const int64_t qo = g.queueOffsets[i];
      RecordView half;
      if (!parseRecordView(g.records[i], half) || hasOp(ops, qo)) {
        halfOffset = qo + 1;
        continue;
      }
      std::string uniq(findEncodedProperty(half.properties, prop::UNIQ_KEY).value_or(""));
      bool decided;
      {
        std::lock_guard lk(mu_);
        decided = isDecided(uniq);
      }
      const int64_t now = nowMillis();
      const int64_t age = now - half.bornTimestamp;
      const int32_t times = tx::checkTimesOf(half);
      const auto immunity = tx::checkImmunityMs(half, timeout);
      if (now - roundStart > kMaxRoundMs) {
        stop = true;  // Java's 60 s per queue and round; the rest next round
      } else if (decided) {
        halfOffset = qo + 1;
      } else if (times >= ctx_.config.transactionCheckMax || age > maxAgeMs) {  // needDiscard / needSkip
        ctx_.topics.createTopicInSendMessageBackMethod(std::string(topics::TRANS_CHECK_MAX_TIME_TOPIC), 1,
                                                       perm::READ | perm::WRITE, 0);
        auto res = st.append(tx::discardMessage(half));
        if (!res.ok()) {
          stop = true;  // retried next round
        } else {
          log::warn("half message {} (group {}) checked {} times, born {} ms ago: discarded to {}", uniq,
                    findEncodedProperty(half.properties, prop::PGROUP).value_or(""), times, age,
                    topics::TRANS_CHECK_MAX_TIME_TOPIC);
          discarded_.fetch_add(1, std::memory_order_relaxed);
          halfOffset = qo + 1;
        }
      } else if (half.storeTimestamp >= roundStart) {
        stop = true;  // stored during this round
      } else if (immunity && age < *immunity) {
        // Java checkPrepareQueueOffset: put back unchecked (counted as a check, as Java's needDiscard does).
        if (passImmune(ops, half, times + 1)) halfOffset = qo + 1;
        else if (age > -1) stop = true;
        else if (checkBack(half, times + 1)) halfOffset = qo + 1;  // born "in the future": Java checks it
        else stop = true;
      } else if (!immunity && age >= 0 && age < timeout) {
        stop = true;  // the rest is younger still
      } else if (alreadyCommitted(half, uniq)) {  // decided before a restart lost our memory of it
        if (!writeOp(qo)) {
          stop = true;
        } else {
          std::lock_guard lk(mu_);
          markDecided(uniq, qo);
          halfOffset = qo + 1;
        }
      } else if (checkBack(half, times + 1)) {
        halfOffset = qo + 1;
      } else {
        stop = true;
      }
    }
  }
  // The op offset moves to its first record about a half message not passed yet (Java's
  // calculateOpOffset over the op records read).
  int64_t newOp = ops.end;
  for (auto& [op, half] : ops.halfByOp)
    if (half >= halfOffset) {
      newOp = op;
      break;
    }
  ctx_.offsets.commitOffset(kGroup, kHalf, 0, halfOffset);
  ctx_.offsets.commitOffset(kGroup, kOp, 0, std::max(newOp, opOffset));
}

void TransactionalMessageService::start() {
  if (running_.exchange(true)) return;
  io_.restart();
  timer_ = std::make_unique<asio::steady_timer>(io_);
  scheduleRound();
  thread_ = std::thread([this] {
    auto guard = asio::make_work_guard(io_);
    io_.run();
  });
  log::info("transaction check service started: every {} ms, timeout {} ms, max {} checks",
            ctx_.config.transactionCheckInterval, ctx_.config.transactionTimeOut, ctx_.config.transactionCheckMax);
}

void TransactionalMessageService::scheduleRound() {
  timer_->expires_after(std::chrono::milliseconds(std::max<int64_t>(ctx_.config.transactionCheckInterval, 10)));
  timer_->async_wait([this](std::error_code ec) {
    if (ec || !running_) return;
    try {
      checkRound();
    } catch (const std::exception& e) {
      log::error("transaction check round failed: {}", e.what());
    }
    scheduleRound();
  });
}

void TransactionalMessageService::shutdown() {
  if (!running_.exchange(false)) return;
  io_.stop();
  if (thread_.joinable()) thread_.join();
  timer_.reset();
}

}  // namespace rmq::broker
