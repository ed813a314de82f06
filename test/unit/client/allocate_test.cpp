#include <doctest/doctest.h>

#include <set>

#include "client/consumer/allocate.h"

using namespace rmq::client;

namespace {

std::vector<MessageQueue> queues(int n, const std::string& broker = "broker-a") {
  std::vector<MessageQueue> out;
  for (int i = 0; i < n; ++i) out.push_back({"T", broker, i});
  return out;
}

std::vector<int> ids(const std::vector<MessageQueue>& mqs) {
  std::vector<int> out;
  for (const auto& q : mqs) out.push_back(q.queueId);
  return out;
}

}  // namespace

TEST_CASE("AllocateMessageQueueAveragely: 8 queues over 3 consumers is 3/3/2 in order") {
  std::vector<std::string> cids{"c3", "c1", "c2"};  // sorted inside: c1, c2, c3
  CHECK(ids(allocateAveragely("c1", queues(8), cids)) == std::vector<int>{0, 1, 2});
  CHECK(ids(allocateAveragely("c2", queues(8), cids)) == std::vector<int>{3, 4, 5});
  CHECK(ids(allocateAveragely("c3", queues(8), cids)) == std::vector<int>{6, 7});
}

TEST_CASE("AllocateMessageQueueAveragely: fewer queues than consumers gives 1/1/0") {
  std::vector<std::string> cids{"a", "b", "c"};
  CHECK(ids(allocateAveragely("a", queues(2), cids)) == std::vector<int>{0});
  CHECK(ids(allocateAveragely("b", queues(2), cids)) == std::vector<int>{1});
  CHECK(allocateAveragely("c", queues(2), cids).empty());
}

TEST_CASE("AllocateMessageQueueAveragely: unknown client, empty inputs") {
  CHECK(allocateAveragely("x", queues(4), {"a", "b"}).empty());
  CHECK(allocateAveragely("a", {}, {"a"}).empty());
  CHECK(allocateAveragely("a", queues(4), {}).empty());
}

TEST_CASE("AllocateMessageQueueAveragely: every queue owned exactly once, sorted by broker then id") {
  std::vector<MessageQueue> all = queues(5, "broker-b");
  for (auto& q : queues(4, "broker-a")) all.push_back(q);
  std::vector<std::string> cids{"10.0.0.1@1#2", "10.0.0.1@1#10", "10.0.0.2@7#1", "10.0.0.1@2#5"};
  std::multiset<std::pair<std::string, int>> seen;
  size_t total = 0;
  for (const auto& c : cids) {
    auto mine = allocateAveragely(c, all, cids);
    total += mine.size();
    CHECK(mine.size() >= 2);
    CHECK(mine.size() <= 3);
    for (const auto& q : mine) seen.insert({q.brokerName, q.queueId});
  }
  CHECK(total == 9);
  CHECK(std::set<std::pair<std::string, int>>(seen.begin(), seen.end()).size() == 9);
  // Java String order: "10.0.0.1@1#10" < "10.0.0.1@1#2"; mod = 1 so the first gets 3 queues:
  // broker-a 0..2 (broker-a sorts before broker-b).
  auto first = allocateAveragely("10.0.0.1@1#10", all, cids);
  REQUIRE(first.size() == 3);
  CHECK(first[0].brokerName == "broker-a");
  CHECK(ids(first) == std::vector<int>{0, 1, 2});
  auto second = allocateAveragely("10.0.0.1@1#2", all, cids);
  CHECK(second[0] == MessageQueue{"T", "broker-a", 3});
  CHECK(second[1] == MessageQueue{"T", "broker-b", 0});
}
