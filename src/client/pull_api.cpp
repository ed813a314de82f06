#include "client/pull_api.h"

#include "common/response_code.h"

namespace rmq::client {

void PullFromWhichNode::update(const MessageQueue& mq, int64_t brokerId) {
  std::lock_guard lk(mu_);
  table_[mq] = brokerId;
}

int64_t PullFromWhichNode::recalculate(const MessageQueue& mq) const {
  std::lock_guard lk(mu_);
  auto it = table_.find(mq);
  return it == table_.end() ? kMasterId : it->second;
}

asio::awaitable<Result<PullResult>> pullKernel(ClientInstance& inst, PullFromWhichNode& nodes, const MessageQueue& mq,
                                               PullMessageHeader header, std::chrono::milliseconds timeout,
                                               const filter::Filter* recheck, InvokeMode mode) {
  auto found = inst.findBrokerAddressInSubscribe(mq.brokerName, nodes.recalculate(mq), false);
  if (!found) {
    co_await inst.route(mq.topic, true);
    found = inst.findBrokerAddressInSubscribe(mq.brokerName, nodes.recalculate(mq), false);
  }
  if (!found)
    co_return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "The broker[" + mq.brokerName + "] not exist");
  if (found->slave) header.sysFlag &= ~kPullCommitOffset;  // a slave does not store consumer offsets from pulls
  header.brokerName = mq.brokerName;
  auto r = co_await pullMessage(inst, found->addr, header, timeout, recheck, mode);
  if (r) nodes.update(mq, r->suggestWhichBrokerId);
  co_return r;
}

}  // namespace rmq::client
