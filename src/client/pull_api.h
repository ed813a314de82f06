#pragma once
// Which node of a broker group a queue is pulled from (Java PullAPIWrapper): every pull response
// carries suggestWhichBrokerId (the master suggests a slave when the consumer reads far behind
// and slaveReadEnable is on; a slave suggests the master back) and the next pull of that queue
// goes there. A node missing from the route falls back as findBrokerInSubscribe does, so pulls
// continue from a slave while the master is gone. Pulls from a slave never commit offsets.
// Thread-safe (PullFromWhichNode); pullKernel runs on the ClientInstance io thread.
#include <asio/awaitable.hpp>
#include <chrono>
#include <map>
#include <mutex>

#include "client/broker_api.h"
#include "client/client_instance.h"
#include "client/request_headers.h"
#include "client/types.h"
#include "common/result.h"
#include "filter/filter.h"

namespace rmq::client {

// Java pullFromWhichNodeTable: the broker id suggested by the last pull response of each queue.
class PullFromWhichNode {
 public:
  void update(const MessageQueue& mq, int64_t brokerId);
  int64_t recalculate(const MessageQueue& mq) const;  // the master (0) until a response suggested otherwise

 private:
  mutable std::mutex mu_;
  std::map<MessageQueue, int64_t> table_;
};

// Java pullKernelImpl + processPullResult: picks the node (refreshing the route once when the
// broker is unknown), clears the commit-offset flag for a slave, pulls, records the suggestion.
asio::awaitable<Result<PullResult>> pullKernel(ClientInstance& inst, PullFromWhichNode& nodes, const MessageQueue& mq,
                                               PullMessageHeader header, std::chrono::milliseconds timeout,
                                               const filter::Filter* recheck, InvokeMode mode = InvokeMode::Sync);

}  // namespace rmq::client
