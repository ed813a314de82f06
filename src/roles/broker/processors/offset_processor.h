#pragma once
// OffsetProcessor: consumer offsets and queue positions — QUERY_CONSUMER_OFFSET (14),
// UPDATE_CONSUMER_OFFSET (15), SEARCH_OFFSET_BY_TIMESTAMP (29), GET_MAX_OFFSET (30),
// GET_MIN_OFFSET (31), GET_EARLIEST_MSG_STORETIME (32). PROTOCOL.md §8.6.
// Threads: network threads; the offset table and the store are thread-safe.
#include <asio/awaitable.hpp>
#include <optional>

#include "net/connection.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

class OffsetProcessor {
 public:
  explicit OffsetProcessor(BrokerContext& ctx) : ctx_(ctx) {}
  void registerTo(BrokerContext& ctx);
  asio::awaitable<std::optional<net::RemotingCommand>> handle(net::ConnectionPtr conn, net::RemotingCommand req);
  // Body of one code (synchronous: offsets and queue positions never wait).
  net::RemotingCommand process(const net::RemotingCommand& req);

 private:
  net::RemotingCommand queryConsumerOffset(const net::RemotingCommand& req);
  net::RemotingCommand updateConsumerOffset(const net::RemotingCommand& req);
  net::RemotingCommand queuePosition(const net::RemotingCommand& req);
  // True when queue offset 0 of topic/queueId is already far behind the commit log head
  // ("on disk": more than accessMessageInMemoryMaxRatio of RAM).
  bool offsetZeroIsCold(const std::string& topic, int32_t queueId) const;

  BrokerContext& ctx_;
};

}  // namespace rmq::broker
