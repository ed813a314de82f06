// The failover records of a broker group in etcd (roles/broker/failover/group_record.h): JSON round
// trips, the epoch history (where a replica must cut its log), candidate ranking.
#include <doctest/doctest.h>

#include "roles/broker/failover/group_record.h"

using namespace rmq::broker;

TEST_CASE("failover group state: JSON round trip, keys under the prefix") {
  GroupKeys keys("/rmqnode", "C", "broker-a");
  CHECK(keys.state() == "/rmqnode/C/broker-a/state");
  CHECK(keys.leader() == "/rmqnode/C/broker-a/leader");
  CHECK(keys.member(3) == "/rmqnode/C/broker-a/member/3");

  GroupState s;
  s.epoch = 4;
  s.masterId = 2;
  s.masterAddr = "127.0.0.1:10921";
  s.masterHaAddr = "127.0.0.1:10922";
  s.mode = "ASYNC_MASTER";
  s.inSync = {1, 3};
  s.handoverTo = 3;
  s.history = {{1, 0}, {2, 4096}, {4, 9000}};
  auto back = parseGroupState(toJson(s));
  REQUIRE(back.ok());
  CHECK(back->epoch == 4);
  CHECK(back->masterId == 2);
  CHECK(back->masterAddr == s.masterAddr);
  CHECK(back->masterHaAddr == s.masterHaAddr);
  CHECK(back->mode == "ASYNC_MASTER");
  CHECK(back->inSync == s.inSync);
  CHECK(back->handoverTo == 3);
  CHECK(back->history == s.history);
  CHECK(back->epochStart() == 9000);

  CHECK_FALSE(parseGroupState("{\"epoch\":0}").ok());  // no epoch, no master: not a state
  CHECK_FALSE(parseGroupState("not json").ok());
  auto l = parseLeader(toJson(LeaderRecord{2, 4}));
  REQUIRE(l.ok());
  CHECK(l->brokerId == 2);
  CHECK(l->epoch == 4);
}

TEST_CASE("failover group state: the end of an epoch is where the next one began; a new epoch clears the set") {
  GroupState s;
  s.epoch = 4;
  s.masterId = 2;
  s.inSync = {1};
  s.handoverTo = 1;
  s.history = {{1, 0}, {2, 4096}, {4, 9000}};
  CHECK(s.endOfEpoch(1) == 4096);
  CHECK(s.endOfEpoch(2) == 9000);
  CHECK(s.endOfEpoch(3) == 9000);  // an epoch this group never had ends where the next one began
  CHECK(s.endOfEpoch(4) == INT64_MAX);
  CHECK(s.endOfEpoch(0) == 0);

  auto n = s.nextEpoch(1, "a:1", "a:2", 12000);
  CHECK(n.epoch == 5);
  CHECK(n.masterId == 1);
  CHECK(n.inSync.empty());
  CHECK(n.handoverTo == -1);
  CHECK(n.history.back() == std::pair<int64_t, int64_t>(5, 12000));
  CHECK(n.endOfEpoch(4) == 12000);
}

TEST_CASE("failover candidates: the most advanced in-sync replica ranks first, then the lower priority, then the lower id") {
  GroupState s;
  s.epoch = 2;
  s.masterId = 1;
  s.inSync = {2, 3, 4};
  auto m = [](int64_t id, int64_t offset, int32_t prio) {
    MemberRecord r;
    r.brokerId = id;
    r.maxOffset = offset;
    r.priority = prio;
    return r;
  };
  std::vector<MemberRecord> members{m(2, 500, 5), m(3, 700, 9), m(4, 700, 1), m(5, 9999, 0)};
  CHECK(rankAmong(s, members, members[2]) == 0);  // 4: highest offset, lowest priority
  CHECK(rankAmong(s, members, members[1]) == 1);  // 3: same offset, higher priority
  CHECK(rankAmong(s, members, members[0]) == 2);  // 2: behind both
  // 5 is not in the in-sync set: it never outranks anyone, however far it is.
  auto tie = members;
  tie[1].priority = 1;
  CHECK(rankAmong(s, tie, tie[2]) == 1);  // equal offset and priority: the lower id (3) first
  CHECK(rankAmong(s, tie, tie[1]) == 0);
}
