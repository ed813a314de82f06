#include "roles/broker/processors/fast_failure.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <fmt/format.h>

#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/broker_config.h"
#include "store/append_thread.h"
#include "store/message_store.h"

namespace rmq::broker {
namespace {

using net::RemotingCommand;
using Clock = std::chrono::steady_clock;

int64_t budgetOf(const BrokerConfig& cfg, WaitQueue queue) {
  switch (queue) {
    case WaitQueue::Send: return cfg.waitTimeMillsInSendQueue;
    case WaitQueue::Pull: return cfg.waitTimeMillsInPullQueue;
    case WaitQueue::Heartbeat: return cfg.waitTimeMillsInHeartbeatQueue;
    case WaitQueue::Transaction: return cfg.waitTimeMillsInTransactionQueue;
  }
  return cfg.waitTimeMillsInSendQueue;
}

int64_t millisSince(Clock::time_point since, Clock::time_point now) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - since).count();
}

// Counts a parked send for the scope (the "size of queue" of the answers).
class ParkedCount {
 public:
  explicit ParkedCount(std::atomic<int64_t>& n) : n_(n) { n_.fetch_add(1, std::memory_order_relaxed); }
  ~ParkedCount() { n_.fetch_sub(1, std::memory_order_relaxed); }
  ParkedCount(const ParkedCount&) = delete;
  ParkedCount& operator=(const ParkedCount&) = delete;

 private:
  std::atomic<int64_t>& n_;
};

}  // namespace

// Java's RequestTask.returnResponse(SYSTEM_BUSY, String.format(...)) of BrokerFastFailure.
RemotingCommand cleanedFromQueue(std::string_view tag, int64_t waitedMs, int64_t queueSize) {
  return RemotingCommand::response(
      ResponseCode::SYSTEM_BUSY,
      fmt::format("[{}]broker busy, start flow control for a while, period in queue: {}ms, size of queue: {}", tag,
                  waitedMs, queueSize));
}

std::optional<RemotingCommand> expiredInQueue(const BrokerConfig& cfg, WaitQueue queue, Clock::time_point receivedAt,
                                              Clock::time_point now, int64_t queueSize) {
  if (!cfg.brokerFastFailureEnable || receivedAt == Clock::time_point{}) return std::nullopt;
  const int64_t waited = millisSince(receivedAt, now);
  if (waited < budgetOf(cfg, queue)) return std::nullopt;
  return cleanedFromQueue("TIMEOUT_CLEAN_QUEUE", waited, queueSize);
}

std::optional<RemotingCommand> expiredInQueue(const BrokerConfig& cfg, WaitQueue queue, const RemotingCommand& req,
                                              Clock::time_point now, int64_t queueSize) {
  return expiredInQueue(cfg, queue, req.receivedAt, now, queueSize);
}

std::optional<WaitQueue> waitQueueOf(int code) {
  switch (code) {
    case RequestCode::SEND_MESSAGE:
    case RequestCode::SEND_MESSAGE_V2:
    case RequestCode::SEND_BATCH_MESSAGE:
    case RequestCode::CONSUMER_SEND_MSG_BACK: return WaitQueue::Send;
    case RequestCode::PULL_MESSAGE: return WaitQueue::Pull;
    case RequestCode::HEART_BEAT: return WaitQueue::Heartbeat;
    case RequestCode::END_TRANSACTION: return WaitQueue::Transaction;
    default: return std::nullopt;
  }
}

std::optional<RemotingCommand> heldTooLong(const BrokerConfig& cfg, const RemotingCommand& req, Clock::time_point now,
                                           int64_t held, bool holdFull) {
  const auto queue = waitQueueOf(req.code);
  if (!queue || !cfg.brokerFastFailureEnable) return std::nullopt;
  if (auto late = expiredInQueue(cfg, *queue, req.receivedAt, now, held)) return late;
  if (!holdFull) return std::nullopt;
  return RemotingCommand::response(ResponseCode::SYSTEM_BUSY, std::string(kOverloadRemark));
}

asio::awaitable<std::optional<RemotingCommand>> appendInQueue(const BrokerConfig& cfg, store::MessageStore& store,
                                                              store::AppendWork append, Clock::time_point receivedAt) {
  if (!cfg.sendAppendThreadEnable) {
    append();
    co_return std::nullopt;
  }
  auto& appender = store.appender();
  if (appender.pending() >= cfg.sendThreadPoolQueueCapacity)
    co_return RemotingCommand::response(ResponseCode::SYSTEM_BUSY, std::string(kOverloadRemark));
  std::optional<RemotingCommand> late;  // set on the append thread, read after it ran
  auto appendInBudget = [&] {
    late = expiredInQueue(cfg, WaitQueue::Send, receivedAt, Clock::now(), appender.pending());
    if (!late) append();
  };
  const store::AppendWork work(appendInBudget);  // referenced from this frame: no allocation
  store::AppendTicket ticket;
  bool submitted = false;
  if (appender.runWaiting(ticket, work, kAppendWaitInPlace, submitted)) co_return std::move(late);
  if (submitted)
    co_await appender.awaitTicket(ticket, asio::use_awaitable);
  else
    co_await appender.run(work, asio::use_awaitable);
  co_return std::move(late);
}

std::optional<RemotingCommand> SendAdmission::check(const RemotingCommand& req, Clock::time_point now,
                                                    bool& mustWait) const {
  mustWait = false;
  if (store_.isOSPageCacheBusy())  // no clock read while the lock is free
    return RemotingCommand::response(ResponseCode::SYSTEM_BUSY, std::string(kRejectRequestRemark));
  if (!cfg_.brokerFastFailureEnable) return std::nullopt;
  if (auto late = expiredInQueue(cfg_, WaitQueue::Send, req, now, parked())) return late;
  mustWait = store_.lockTimeMills() >= kParkAfterMs;
  return std::nullopt;
}

asio::awaitable<std::optional<RemotingCommand>> SendAdmission::waitForLock(Clock::time_point receivedAt) {
  ParkedCount count(parked_);
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    const int64_t held = store_.lockTimeMills();
    if (held < kParkAfterMs) co_return std::nullopt;  // free again (or a neighbour's short append)
    const auto now = Clock::now();
    const int64_t waited = receivedAt == Clock::time_point{} ? 0 : millisSince(receivedAt, now);
    if (store_.isOSPageCacheBusy())
      co_return cleanedFromQueue("PCBUSY_CLEAN_QUEUE", waited, parked() - 1);
    if (waited >= cfg_.waitTimeMillsInSendQueue) co_return cleanedFromQueue("TIMEOUT_CLEAN_QUEUE", waited, parked() - 1);
    timer.expires_after(kPoll);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

}  // namespace rmq::broker
