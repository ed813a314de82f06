#pragma once
// PullProcessor: PULL_MESSAGE (11), PROTOCOL.md §8.3-8.5. Validates group/topic/queue and the
// subscription (from the header when sysFlag has SUBSCRIPTION, else from the heartbeat
// registry), reads from the store with a tag/SQL92 filter, answers with every header field and
// the records as zero-copy bodySegments (views into the mapped CommitLog kept alive by
// bodyOwner). PULL_NOT_FOUND with the SUSPEND flag parks in PullRequestHold and re-runs the read
// once when woken or timed out (a re-run never parks again): on a remoting connection as a record
// (ParkedPull: the Prepared state and the connection's LaterAnswer, no coroutine frame), elsewhere
// as a suspended coroutine (parkThenRead). A parked pull whose connection closes ends at once
// without an answer (connectionParks).
// Threads: handle() on the connection's network thread; the compiled-filter cache is locked.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/response_code.h"
#include "filter/filter.h"
#include "net/connection.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/processors/request_header.h"
#include "store/store_types.h"

namespace rmq::broker {

class ParkCancel;

class PullProcessor {
 public:
  explicit PullProcessor(BrokerContext& ctx) : ctx_(ctx) {}
  void registerTo(BrokerContext& ctx);  // code 11
  // Not a coroutine: checks and the first read run when called; only a pull that parks becomes
  // one (parkThenRead), holding just its Prepared state while it waits.
  asio::awaitable<std::optional<net::RemotingCommand>> handle(net::ConnectionPtr conn, net::RemotingCommand req);

 private:
  using FilterPtr = std::shared_ptr<const filter::Filter>;
  struct Prepared {
    PullHeader h;
    FilterPtr filter;  // null = match all
    int64_t groupBrokerId = 0;
    int64_t whichBrokerWhenConsumeSlowly = 1;
    bool consumeBroadcastEnable = true;  // the subscription group's (checked against the heartbeat's model)
    // filterSupportRetry, pulling %RETRY%<group>: the group's SQL92 filter of each original topic
    // (RETRY_TOPIC), as Java's ExpressionForRetryMessageFilter.
    std::map<std::string, FilterPtr, std::less<>> retryFilters;
  };
  // All checks before the read; an answer when the pull is refused.
  std::optional<net::RemotingCommand> prepare(const net::RemotingCommand& req, Prepared& p);
  std::optional<net::RemotingCommand> resolveFilter(Prepared& p);
  void resolveRetryFilters(Prepared& p);
  // One store read turned into an answer; `suspend` set when the caller should park (code 19).
  net::RemotingCommand readOnce(const Prepared& p, bool firstRun, bool& suspend);
  std::chrono::milliseconds suspendTimeout(const Prepared& p) const;
  std::function<bool()> arrivedSince(const Prepared& p) const;  // a message at or past the pull's offset
  // Parks until a message arrives or the poll times out, then reads again; answers nothing when
  // `connectionClosed` (the connection's parks) is cancelled meanwhile.
  asio::awaitable<std::optional<net::RemotingCommand>> parkThenRead(Prepared p, std::shared_ptr<ParkCancel> connectionClosed);
  // The same without a coroutine: a ParkedPull record answers through `answer` when resumed.
  struct ParkedPull;
  void parkRecord(Prepared p, net::LaterAnswer answer, const asio::any_io_executor& executor,
                  std::shared_ptr<ParkCancel> connectionClosed);
  void resumeParked(ParkedPull& pull);
  Result<FilterPtr> compiled(std::string_view type, std::string_view expression);

  BrokerContext& ctx_;
  std::mutex cacheMu_;
  std::unordered_map<std::string, FilterPtr> filterCache_;  // "type\nexpression" -> filter
};

// Store status -> response code for a master (§8.3 table).
inline int pullResponseCode(store::GetStatus status, int64_t requestOffset) {
  using store::GetStatus;
  switch (status) {
    case GetStatus::FOUND: return ResponseCode::SUCCESS;
    case GetStatus::NO_MATCHED_MESSAGE:
    case GetStatus::MESSAGE_WAS_REMOVING: return ResponseCode::PULL_RETRY_IMMEDIATELY;
    case GetStatus::NO_MESSAGE_IN_QUEUE:
    case GetStatus::NO_MATCHED_LOGIC_QUEUE:
      return requestOffset != 0 ? ResponseCode::PULL_OFFSET_MOVED : ResponseCode::PULL_NOT_FOUND;
    case GetStatus::OFFSET_TOO_SMALL:
    case GetStatus::OFFSET_OVERFLOW_BADLY: return ResponseCode::PULL_OFFSET_MOVED;
    case GetStatus::OFFSET_OVERFLOW_ONE:
    case GetStatus::OFFSET_FOUND_NULL: return ResponseCode::PULL_NOT_FOUND;
  }
  return ResponseCode::SYSTEM_ERROR;
}

}  // namespace rmq::broker
