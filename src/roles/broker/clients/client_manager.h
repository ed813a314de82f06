#pragma once
// ClientManager: the broker's producer and consumer registries (PROTOCOL.md §8.7), filled by
// HEART_BEAT, emptied by UNREGISTER_CLIENT, connection close and expiry (no heartbeat for
// channelExpiredTimeout). Consumer-group membership changes push NOTIFY_CONSUMER_IDS_CHANGED
// (oneway, JSON) to every member of the group.
// Thread-safety: every method may be called from any thread; one mutex guards the tables and is
// never held while sending (pushes are posted by Connection::sendOneway).
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "net/connection.h"
#include "roles/broker/clients/heartbeat_data.h"

namespace rmq::broker {

struct ClientChannel {
  net::ConnectionPtr conn;
  std::string clientId;
  std::string language = "JAVA";
  int32_t version = 0;
  std::chrono::steady_clock::time_point lastUpdate;
};

struct ConsumerGroupInfo {
  std::string groupName;
  std::string consumeType = "CONSUME_PASSIVELY";
  std::string messageModel = "CLUSTERING";
  std::string consumeFromWhere = "CONSUME_FROM_LAST_OFFSET";
  std::map<std::string, SubscriptionData> subscriptions;  // topic -> subscription
  std::map<uint64_t, ClientChannel> channels;              // connection id -> client
};

class ClientManager {
 public:
  explicit ClientManager(bool notifyConsumerIdsChanged) : notify_(notifyConsumerIdsChanged) {}

  // Registers (or refreshes) a consumer channel. Returns true when the group's membership or
  // subscription set changed (a notification has then been pushed to the group).
  bool registerConsumer(const ConsumerRegistration& reg, const ClientChannel& channel);
  void registerProducer(const std::string& group, const ClientChannel& channel);
  void unregisterConsumer(const std::string& group, uint64_t connId);
  void unregisterProducer(const std::string& group, uint64_t connId);
  // Connection closed: drop it everywhere, notify affected consumer groups.
  void onConnectionClosed(uint64_t connId);
  // Drops channels silent for longer than `timeout` (closing their connections). Returns count.
  size_t scanExpired(std::chrono::milliseconds timeout);

  std::vector<std::string> consumerIds(const std::string& group) const;
  std::optional<ConsumerGroupInfo> consumerGroup(const std::string& group) const;
  std::optional<SubscriptionData> findSubscription(const std::string& group, const std::string& topic) const;
  std::vector<std::string> consumerGroupsOfTopic(const std::string& topic) const;
  std::vector<std::string> consumerGroups() const;
  // producer group -> channels (GET_PRODUCER_CONNECTION_LIST, GET_ALL_PRODUCER_INFO).
  std::optional<std::vector<ClientChannel>> producerGroup(const std::string& group) const;
  std::vector<std::string> producerGroups() const;
  // Any producer channel of the group (transaction state checks).
  net::ConnectionPtr anyProducerChannel(const std::string& group) const;
  // The open producer channel a client id registered (Java ProducerManager.findChannel; replies).
  net::ConnectionPtr findProducerChannel(const std::string& clientId) const;

 private:
  void notifyGroup(const std::string& group, std::vector<net::ConnectionPtr> members) const;
  std::vector<net::ConnectionPtr> membersLocked(const ConsumerGroupInfo& g) const;

  bool notify_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, ConsumerGroupInfo> consumers_;
  std::unordered_map<std::string, std::map<uint64_t, ClientChannel>> producers_;
};

}  // namespace rmq::broker
