#pragma once
// The failover records of one broker group (cluster + brokerName) in etcd, under
// <failoverEtcdPrefix>/<cluster>/<brokerName>/:
//   state        GroupState: the epoch, its master, the in-sync set, where each epoch began.
//                No lease: it outlives every broker. Changed only by etcd transactions that
//                compare its mod revision (and, for a master, that its leader key is still its own).
//   leader       LeaderRecord of the master, attached to the master's lease: gone when the lease is.
//                A slave elects itself only in a transaction that finds it absent.
//   member/<id>  MemberRecord of every live broker of the group (its own lease): addresses,
//                commit-log end, election priority (ranking candidates, rmqadmin's lag view).
// JSON text (pure functions, no I/O).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace rmq::broker {

struct GroupKeys {
  std::string base;  // <prefix>/<cluster>/<brokerName>/
  GroupKeys(const std::string& prefix, const std::string& cluster, const std::string& brokerName);
  std::string state() const { return base + "state"; }
  std::string leader() const { return base + "leader"; }
  std::string memberPrefix() const { return base + "member/"; }
  std::string member(int64_t id) const { return memberPrefix() + std::to_string(id); }
};

struct GroupState {
  int64_t epoch = 0;
  int64_t masterId = -1;           // the master's own (permanent) brokerId
  std::string masterAddr;          // remoting ip:port
  std::string masterHaAddr;        // HA ip:port
  std::vector<int64_t> inSync;     // slaves every acknowledged send reached (the master excluded)
  std::string mode = "SYNC_MASTER";  // the group's brokerRole when master: SYNC_MASTER | ASYNC_MASTER
  int64_t handoverTo = -1;  // planned switchover: only this broker may take mastership (-1: anyone)
  // (epoch, commit-log offset where it began), oldest first; the last one is `epoch`. Bounded.
  std::vector<std::pair<int64_t, int64_t>> history;

  int64_t epochStart() const { return history.empty() ? 0 : history.back().second; }
  bool inSyncHas(int64_t id) const;
  // Where the bytes of `epoch` end in the group's log: the start of the next epoch in history
  // (INT64_MAX when `epoch` is the newest, or newer than any). A replica whose newest local epoch
  // is `epoch` keeps its commit log up to there and cuts the rest.
  int64_t endOfEpoch(int64_t epoch) const;
  // The state after `id` took mastership at `start` (epoch + 1, in-sync set empty).
  GroupState nextEpoch(int64_t id, std::string addr, std::string haAddr, int64_t start) const;
};

struct LeaderRecord {
  int64_t brokerId = -1;
  int64_t epoch = 0;
};

struct MemberRecord {
  int64_t brokerId = -1;
  std::string addr, haAddr;
  int64_t maxOffset = 0;     // commit-log end
  int64_t epoch = 0;         // newest epoch in its epoch file
  int32_t priority = 0;      // brokerElectionPriority
  bool master = false;
};

std::string toJson(const GroupState& s);
std::string toJson(const LeaderRecord& l);
std::string toJson(const MemberRecord& m);
Result<GroupState> parseGroupState(std::string_view text);
Result<LeaderRecord> parseLeader(std::string_view text);
Result<MemberRecord> parseMember(std::string_view text);

// Election order among candidates: higher maxOffset, then lower priority, then lower brokerId.
// Returns `self`'s rank (0 = best) among `members` filtered to the in-sync set of `state`.
int rankAmong(const GroupState& state, const std::vector<MemberRecord>& members, const MemberRecord& self);

}  // namespace rmq::broker
