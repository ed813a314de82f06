#pragma once
// ClientProcessor: HEART_BEAT (34), UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38) —
// PROTOCOL.md §8.7, §3.5. A heartbeat auto-creates the consumer group (when allowed) and its
// %RETRY% topic, and registers producer/consumer channels in the ClientManager. Answers carry
// version 407 (≥ 232 needed by SQL92 clients, §8.9).
// Threads: handlers run on network threads; state lives in the thread-safe managers.
#include <asio/awaitable.hpp>
#include <optional>
#include <string_view>

#include "common/result.h"
#include "net/connection.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/clients/heartbeat_data.h"

namespace rmq::broker {

class ClientProcessor {
 public:
  explicit ClientProcessor(BrokerContext& ctx) : ctx_(ctx) {}
  void registerTo(BrokerContext& ctx);

 private:
  asio::awaitable<std::optional<net::RemotingCommand>> heartbeat(net::ConnectionPtr conn, net::RemotingCommand req);
  asio::awaitable<std::optional<net::RemotingCommand>> unregister(net::ConnectionPtr conn, net::RemotingCommand req);
  asio::awaitable<std::optional<net::RemotingCommand>> consumerList(net::ConnectionPtr conn, net::RemotingCommand req);

  BrokerContext& ctx_;
};

}  // namespace rmq::broker
