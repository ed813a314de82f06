#include "roles/broker/clients/client_manager.h"

#include <algorithm>

#include "common/log.h"
#include "common/request_code.h"

namespace rmq::broker {

namespace {

// Java ConsumerGroupInfo.updateSubscription: new topics are a change, a higher subVersion
// replaces silently, topics missing from the heartbeat are removed (a change).
bool updateSubscriptions(ConsumerGroupInfo& g, const std::vector<SubscriptionData>& subs) {
  bool changed = false;
  for (const auto& s : subs) {
    auto it = g.subscriptions.find(s.topic);
    if (it == g.subscriptions.end()) {
      g.subscriptions.emplace(s.topic, s);
      changed = true;
    } else if (s.subVersion > it->second.subVersion) {
      it->second = s;
    }
  }
  for (auto it = g.subscriptions.begin(); it != g.subscriptions.end();) {
    bool present = std::any_of(subs.begin(), subs.end(), [&](auto& s) { return s.topic == it->first; });
    if (present) {
      ++it;
    } else {
      it = g.subscriptions.erase(it);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

std::vector<net::ConnectionPtr> ClientManager::membersLocked(const ConsumerGroupInfo& g) const {
  std::vector<net::ConnectionPtr> out;
  out.reserve(g.channels.size());
  for (auto& [id, ch] : g.channels) out.push_back(ch.conn);
  return out;
}

void ClientManager::notifyGroup(const std::string& group, std::vector<net::ConnectionPtr> members) const {
  if (!notify_) return;
  for (auto& conn : members) {
    if (!conn || !conn->isOpen()) continue;
    auto req = net::RemotingCommand::request(RequestCode::NOTIFY_CONSUMER_IDS_CHANGED);
    req.serializeType = net::SerializeType::Json;  // every client (ali-ons too) reads JSON
    req.extFields.set("consumerGroup", group);
    conn->sendOneway(std::move(req));
  }
}

bool ClientManager::registerConsumer(const ConsumerRegistration& reg, const ClientChannel& channel) {
  std::vector<net::ConnectionPtr> members;
  {
    std::lock_guard lock(mu_);
    auto& g = consumers_[reg.group];
    g.groupName = reg.group;
    g.consumeType = reg.consumeType;
    g.messageModel = reg.messageModel;
    g.consumeFromWhere = reg.consumeFromWhere;
    auto [it, added] = g.channels.try_emplace(channel.conn->id(), channel);
    if (!added) {
      it->second.lastUpdate = channel.lastUpdate;
      it->second.clientId = channel.clientId;
      it->second.version = channel.version;
    }
    bool subsChanged = updateSubscriptions(g, reg.subscriptions);
    if (!added && !subsChanged) return false;
    members = membersLocked(g);
  }
  notifyGroup(reg.group, std::move(members));
  return true;
}

void ClientManager::registerProducer(const std::string& group, const ClientChannel& channel) {
  std::lock_guard lock(mu_);
  auto& chans = producers_[group];
  auto [it, added] = chans.try_emplace(channel.conn->id(), channel);
  if (!added) it->second.lastUpdate = channel.lastUpdate;
}

void ClientManager::unregisterConsumer(const std::string& group, uint64_t connId) {
  std::vector<net::ConnectionPtr> members;
  {
    std::lock_guard lock(mu_);
    auto it = consumers_.find(group);
    if (it == consumers_.end() || it->second.channels.erase(connId) == 0) return;
    if (it->second.channels.empty()) {
      consumers_.erase(it);
      return;
    }
    members = membersLocked(it->second);
  }
  notifyGroup(group, std::move(members));
}

void ClientManager::unregisterProducer(const std::string& group, uint64_t connId) {
  std::lock_guard lock(mu_);
  auto it = producers_.find(group);
  if (it == producers_.end()) return;
  it->second.erase(connId);
  if (it->second.empty()) producers_.erase(it);
}

void ClientManager::onConnectionClosed(uint64_t connId) {
  std::vector<std::pair<std::string, std::vector<net::ConnectionPtr>>> toNotify;
  {
    std::lock_guard lock(mu_);
    for (auto it = consumers_.begin(); it != consumers_.end();) {
      if (it->second.channels.erase(connId) == 0) { ++it; continue; }
      if (it->second.channels.empty()) { it = consumers_.erase(it); continue; }
      toNotify.emplace_back(it->first, membersLocked(it->second));
      ++it;
    }
    for (auto it = producers_.begin(); it != producers_.end();) {
      it->second.erase(connId);
      it = it->second.empty() ? producers_.erase(it) : std::next(it);
    }
  }
  for (auto& [group, members] : toNotify) notifyGroup(group, std::move(members));
}

size_t ClientManager::scanExpired(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() - timeout;
  std::vector<net::ConnectionPtr> expired;
  {
    std::lock_guard lock(mu_);
    auto collect = [&](std::map<uint64_t, ClientChannel>& chans) {
      for (auto& [id, ch] : chans)
        if (ch.lastUpdate < deadline) expired.push_back(ch.conn);
    };
    for (auto& [name, g] : consumers_) collect(g.channels);
    for (auto& [name, chans] : producers_) collect(chans);
  }
  std::sort(expired.begin(), expired.end());
  expired.erase(std::unique(expired.begin(), expired.end()), expired.end());
  for (auto& conn : expired) {
    log::warn("client channel {} expired (no heartbeat), closing", conn->remoteAddress());
    onConnectionClosed(conn->id());
    conn->close();
  }
  return expired.size();
}

std::vector<std::string> ClientManager::consumerIds(const std::string& group) const {
  std::vector<std::string> ids;
  std::lock_guard lock(mu_);
  auto it = consumers_.find(group);
  if (it == consumers_.end()) return ids;
  for (auto& [id, ch] : it->second.channels) ids.push_back(ch.clientId);
  return ids;
}

std::optional<ConsumerGroupInfo> ClientManager::consumerGroup(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = consumers_.find(group);
  if (it == consumers_.end()) return std::nullopt;
  return it->second;
}

std::optional<SubscriptionData> ClientManager::findSubscription(const std::string& group,
                                                                const std::string& topic) const {
  std::lock_guard lock(mu_);
  auto it = consumers_.find(group);
  if (it == consumers_.end()) return std::nullopt;
  auto s = it->second.subscriptions.find(topic);
  if (s == it->second.subscriptions.end()) return std::nullopt;
  return s->second;
}

std::vector<std::string> ClientManager::consumerGroupsOfTopic(const std::string& topic) const {
  std::vector<std::string> out;
  std::lock_guard lock(mu_);
  for (auto& [name, g] : consumers_)
    if (g.subscriptions.count(topic)) out.push_back(name);
  return out;
}

std::vector<std::string> ClientManager::consumerGroups() const {
  std::vector<std::string> out;
  std::lock_guard lock(mu_);
  for (auto& [name, g] : consumers_) out.push_back(name);
  return out;
}

std::optional<std::vector<ClientChannel>> ClientManager::producerGroup(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = producers_.find(group);
  if (it == producers_.end()) return std::nullopt;
  std::vector<ClientChannel> out;
  for (auto& [id, ch] : it->second) out.push_back(ch);
  return out;
}

std::vector<std::string> ClientManager::producerGroups() const {
  std::vector<std::string> out;
  std::lock_guard lock(mu_);
  for (auto& [name, chans] : producers_) out.push_back(name);
  return out;
}

net::ConnectionPtr ClientManager::anyProducerChannel(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = producers_.find(group);
  if (it == producers_.end()) return nullptr;
  for (auto& [id, ch] : it->second)
    if (ch.conn && ch.conn->isOpen()) return ch.conn;
  return nullptr;
}

net::ConnectionPtr ClientManager::findProducerChannel(const std::string& clientId) const {
  std::lock_guard lock(mu_);
  for (const auto& [group, channels] : producers_)
    for (const auto& [id, ch] : channels)
      if (ch.clientId == clientId && ch.conn && ch.conn->isOpen()) return ch.conn;
  return nullptr;
}

}  // namespace rmq::broker
