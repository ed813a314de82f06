#include "repl/replica_set.h"

#include <algorithm>

namespace rmq::repl {

void ReplicaSet::begin(int64_t epoch, int64_t epochStart, std::vector<int64_t> inSync) {
  std::lock_guard lock(mu_);
  epoch_ = epoch;
  epochStart_ = epochStart;
  lastTickEnd_ = epochStart;
  for (auto& [id, r] : replicas_) r.ack = -1;  // acks of an earlier mastership mean nothing now
  inSync_ = std::move(inSync);
  for (auto& [id, r] : replicas_) r.inSync = std::count(inSync_.begin(), inSync_.end(), id) > 0;
  confirmed_ = -2;  // the store's ack belongs to an earlier mastership: always replace it
  publishLocked();
}

int64_t ReplicaSet::epoch() const {
  std::lock_guard lock(mu_);
  return epoch_;
}

int64_t ReplicaSet::epochStart() const {
  std::lock_guard lock(mu_);
  return epochStart_;
}

void ReplicaSet::setInSync(std::vector<int64_t> ids) {
  std::lock_guard lock(mu_);
  inSync_ = std::move(ids);
  for (auto& [id, r] : replicas_) r.inSync = std::count(inSync_.begin(), inSync_.end(), id) > 0;
  publishLocked();
}

std::vector<int64_t> ReplicaSet::inSync() const {
  std::lock_guard lock(mu_);
  return inSync_;
}

int64_t ReplicaSet::confirmedOffset() const {
  std::lock_guard lock(mu_);
  return confirmed_;
}

uint64_t ReplicaSet::onConnected(int64_t id) {
  std::lock_guard lock(mu_);
  auto& r = replicas_[id];
  r.id = id;
  r.connected = true;
  r.inSync = std::count(inSync_.begin(), inSync_.end(), id) > 0;
  r.token = ++nextToken_;
  return r.token;
}

void ReplicaSet::onDisconnected(int64_t id, uint64_t token) {
  std::lock_guard lock(mu_);
  if (auto it = replicas_.find(id); it != replicas_.end() && it->second.token == token) it->second.connected = false;
}

void ReplicaSet::noteEpochHeard(int64_t epoch) {
  std::lock_guard lock(mu_);
  epochHeard_ = std::max(epochHeard_, epoch);
}

int64_t ReplicaSet::highestEpochHeard() const {
  std::lock_guard lock(mu_);
  return epochHeard_;
}

void ReplicaSet::onReport(int64_t id, int64_t ackOffset) {
  std::lock_guard lock(mu_);
  auto& r = replicas_[id];
  r.id = id;
  r.ack = ackOffset;
  if (r.inSync) publishLocked();
}

void ReplicaSet::tick(int64_t end) {
  std::lock_guard lock(mu_);
  auto now = Clock::now();
  for (auto& [id, r] : replicas_)
    if (r.connected && r.ack >= lastTickEnd_ && r.ack >= epochStart_) r.caughtUpAt = now;
  lastTickEnd_ = end;
}

std::vector<ReplicaSet::Replica> ReplicaSet::replicas() const {
  std::lock_guard lock(mu_);
  std::vector<Replica> out;
  for (auto& [id, r] : replicas_) out.push_back(r);
  return out;
}

void ReplicaSet::publishLocked() {
  int64_t confirmed = INT64_MAX;
  for (int64_t id : inSync_) {
    auto it = replicas_.find(id);
    confirmed = std::min(confirmed, it == replicas_.end() ? int64_t{-1} : it->second.ack);
  }
  if (confirmed == confirmed_) return;
  confirmed_ = confirmed;
  store_.resetSlaveAck(confirmed);
}

}  // namespace rmq::repl
