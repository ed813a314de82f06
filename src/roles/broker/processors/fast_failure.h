#pragma once
// Fast failure under load (Java 4.9.8 BrokerFastFailure and NettyRemotingAbstract's rejectRequest):
// a request that cannot start within its budget is answered SYSTEM_BUSY (2) at once, so that the
// client gives up on this broker now instead of timing out after 3 s, and the connection goes on
// serving. Java measures the time a request sat in its thread pool's queue; rmqnode has no such
// queues (requests are coroutines on the network threads), so a request's "queue" here is
//  - the time from the read of its frame (RemotingCommand::receivedAt) to the start of its
//    processor: frames handled before it in the same read, or held back by backpressure; and
//  - for sends, the time spent waiting for the commit-log lock while another append holds it
//    (a stalled disk): the send parks on a timer of its own executor (the network thread keeps
//    serving its other connections) instead of blocking on the lock.
// Answers, with Java's remarks (SYSTEM_BUSY unless noted):
//  - "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: Nms, size
//    of queue: M" — waited waitTimeMillsIn{Send,Pull,Heartbeat,Transaction}Queue or more;
//  - "[PCBUSY_CLEAN_QUEUE]broker busy, ..." (same tail) — a parked send while the lock holder has
//    held it longer than osPageCacheBusyTimeOutMills;
//  - "[REJECTREQUEST]system busy, start flow control for a while" — a send arriving while that is
//    so (Java answers it whatever brokerFastFailureEnable says, and so do we);
//  - SYSTEM_ERROR "[PC_SYNCHRONIZED]broker busy, ..." — the store's own refusal (MessageStore::
//    isOSPageCacheBusy) for the rare send that passed the checks just before the lock went busy.
// "size of queue" is the number of other sends parked for the lock (0 for pulls, heartbeats and
// transactions, which never park). brokerFastFailureEnable=false: no budgets and no parking (a send
// blocks on the lock, as before).
// Cost per request: the processor's own clock read, a comparison, and for sends one relaxed load of
// the lock's begin time (plus a wall-clock read only while another append holds the lock).
#include <asio/awaitable.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string_view>

#include "net/remoting_command.h"

namespace rmq::store {
class MessageStore;
class AppendWork;
}

namespace rmq::broker {

struct BrokerConfig;

enum class WaitQueue { Send, Pull, Heartbeat, Transaction };

inline constexpr std::string_view kRejectRequestRemark = "[REJECTREQUEST]system busy, start flow control for a while";
inline constexpr std::string_view kOverloadRemark = "[OVERLOAD]system busy, start flow control for a while";

// "[<tag>]broker busy, start flow control for a while, period in queue: <waitedMs>ms, size of queue: <queueSize>"
// (SYSTEM_BUSY), tag TIMEOUT_CLEAN_QUEUE or PCBUSY_CLEAN_QUEUE.
net::RemotingCommand cleanedFromQueue(std::string_view tag, int64_t waitedMs, int64_t queueSize);

// TIMEOUT_CLEAN_QUEUE: `req` waited its queue's budget or more from its read to `now` (the start of
// its processor). nullopt when it may run (or fast failure is off, or the time of its read is unknown).
// `queueSize`: what the remark's "size of queue" says.
std::optional<net::RemotingCommand> expiredInQueue(const BrokerConfig& cfg, WaitQueue queue,
                                                   const net::RemotingCommand& req,
                                                   std::chrono::steady_clock::time_point now, int64_t queueSize = 0);
// The same for a request read at `receivedAt` (time_point{} = unknown: never expired).
std::optional<net::RemotingCommand> expiredInQueue(const BrokerConfig& cfg, WaitQueue queue,
                                                   std::chrono::steady_clock::time_point receivedAt,
                                                   std::chrono::steady_clock::time_point now, int64_t queueSize);

// The budget a request of `code` waits under (Java: the executor its processor runs on): sends
// and CONSUMER_SEND_MSG_BACK -> Send, PULL_MESSAGE -> Pull, HEART_BEAT -> Heartbeat,
// END_TRANSACTION -> Transaction; nullopt for every other code (no budget).
std::optional<WaitQueue> waitQueueOf(int code);

// The answer for a request a connection read and holds because its in-flight limit is reached
// (net::HeldAnswer, asked every few ms): TIMEOUT_CLEAN_QUEUE once it has waited its code's
// budget, as Java's BrokerFastFailure cleans its executors' queues; when the hold is full
// (`holdFull`), SYSTEM_BUSY "[OVERLOAD]system busy, start flow control for a while" at once, as
// Java's full executor queue. nullopt while it may still run, for a code without a budget, and
// with brokerFastFailureEnable = false (the connection then stops reading: TCP backpressure).
// `held` = the connection's other held requests.
std::optional<net::RemotingCommand> heldTooLong(const BrokerConfig& cfg, const net::RemotingCommand& req,
                                                std::chrono::steady_clock::time_point now, int64_t held,
                                                bool holdFull);

// Runs `append` on the store's append thread (store/append_thread.h): a stalled append holds that
// thread, not the network thread of the send. That thread's queue is the send queue of Java's send
// executor: with sendThreadPoolQueueCapacity appends already waiting in it, `append` does not run
// and the answer is SYSTEM_BUSY "[OVERLOAD]system busy, start flow control for a while" at once
// (Java's RejectedExecutionException answer). An append whose send (read at `receivedAt`) has
// waited waitTimeMillsInSendQueue or more when the thread reaches it does not run either: the
// answer is [TIMEOUT_CLEAN_QUEUE] with "size of queue" = the appends still waiting (Java's
// BrokerFastFailure cleaning the send queue; the one clock read per append is the thread's).
// With sendAppendThreadEnable = false it runs here, on the calling network thread (no queue, no
// [OVERLOAD], no budget past the admission's).
// While the append thread is idle, this network thread waits for the append in place for up to
// kAppendWaitInPlace and goes on without a post back (store/append_thread.h runWaiting),
// suspending only when the append takes longer. Not under SYNC_MASTER, whose sends wait for the
// slave's ack anyway (StoreEngine::applyRoleToThreads).
asio::awaitable<std::optional<net::RemotingCommand>> appendInQueue(const BrokerConfig& cfg, store::MessageStore& store,
                                                                   store::AppendWork append,
                                                                   std::chrono::steady_clock::time_point receivedAt);
// How long a network thread waits in place for its append on an idle append thread (an append
// takes ~5-10 us; a wake-up of the sleeping append thread ~10-40 us on this VM). A stall that
// starts during that wait costs the network thread this once; past it the send suspends.
inline constexpr std::chrono::microseconds kAppendWaitInPlace{50};

// The send path's admission: page-cache busy, its queue budget, and the wait for the commit-log lock.
class SendAdmission {
 public:
  SendAdmission(const BrokerConfig& cfg, const store::MessageStore& store) : cfg_(cfg), store_(store) {}
  // Plain checks, no wait: the busy answer, or nullopt. Sets `mustWait` when another append has
  // held the lock for a while: the caller then co_awaits waitForLock() before appending.
  std::optional<net::RemotingCommand> check(const net::RemotingCommand& req, std::chrono::steady_clock::time_point now,
                                            bool& mustWait) const;
  // Parks until the lock is free (nullopt: append now) or the send's budget / the page-cache
  // timeout has passed (the busy answer). Only on the slow path: its coroutine frame is the only
  // allocation it adds.
  asio::awaitable<std::optional<net::RemotingCommand>> waitForLock(std::chrono::steady_clock::time_point receivedAt);
  int64_t parked() const { return parked_.load(std::memory_order_relaxed); }

  // A lock held this long (ms) is a stall, not a neighbour's append: park rather than block.
  static constexpr int64_t kParkAfterMs = 2;
  static constexpr std::chrono::milliseconds kPoll{2};  // parked sends look at the lock this often

 private:
  const BrokerConfig& cfg_;
  const store::MessageStore& store_;
  std::atomic<int64_t> parked_{0};
};

}  // namespace rmq::broker
