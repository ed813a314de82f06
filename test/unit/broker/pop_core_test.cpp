// POP core pieces without a broker: the receipt handle codec, the pop log codec (events and
// snapshots in parts), the invisibility timers' order, FIFO hold/release and the consumer offset
// of PopState, and PopLog recovery (snapshot + replay) over a real store in a temp dir.
#include <doctest/doctest.h>

#include "unit/broker/temp_store.h"

#include <filesystem>
#include <random>
#include <thread>

#include "common/response_code.h"
#include "common/wall_clock.h"
#include "roles/broker/pop/invisibility_timers.h"
#include "roles/broker/pop/pop_log.h"
#include "roles/broker/pop/pop_state.h"
#include "roles/broker/pop/receipt_handle.h"
#include "store/message_store.h"

using namespace rmq;
using namespace rmq::broker::pop;
namespace fs = std::filesystem;

namespace {

PopEvent popEvent(const QueueKey& k, int64_t popTime, int64_t invisible, int64_t next, std::vector<int64_t> offsets,
                  int32_t deliveries = 1) {
  PopEvent e;
  e.kind = PopEvent::Kind::Pop;
  e.key = k;
  e.popTime = popTime;
  e.invisibleTime = invisible;
  e.nextOffset = next;
  for (auto o : offsets) e.items.push_back({o, 1000 + o, deliveries, popTime});
  return e;
}

PopEvent ackEvent(const QueueKey& k, int64_t offset, int64_t popTime) {
  PopEvent e;
  e.kind = PopEvent::Kind::Ack;
  e.key = k;
  e.items.push_back({offset, 0, 0, popTime});
  return e;
}

// Everything that matters of a state, as text (order: map order).
std::string dump(const PopState& s) {
  std::string out;
  for (const auto& [k, q] : s.queues()) {
    if (q.nextOffset < 0 && q.inFlight.empty()) continue;
    out += k.group + "/" + k.topic + "/" + std::to_string(k.queueId) + " next " + std::to_string(q.nextOffset) + ":";
    for (const auto& [o, m] : q.inFlight)
      out += " " + std::to_string(o) + "@" + std::to_string(m.popTime) + "+" + std::to_string(m.invisibleTime) + "#" +
             std::to_string(m.deliveries) + "c" + std::to_string(m.commitLogOffset);
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("pop receipt handle: Java's 9-field text round-trips; the 8-field POP_CK of a Java client decodes") {
  ReceiptHandle h{12, 1700000000123, 30000, kFifoReviveQid, 0, "broker-a", 3, 15, 987654};
  std::string text = h.encode();
  CHECK(text == "12 1700000000123 30000 999 0 broker-a 3 15 987654");
  auto back = decodeReceiptHandle(text);
  REQUIRE(back);
  CHECK(*back == h);
  CHECK(back->visibleAt() == 1700000030123);

  auto java = decodeReceiptHandle("12 1700000000123 30000 0 0 broker-a 3 15");
  REQUIRE(java);
  CHECK(java->commitLogOffset == -1);
  CHECK(java->queueOffset == 15);

  for (const char* bad : {"", "garbage", "1 2 3 4 5 b 6", "1 x 3 4 5 b 6 7", "1 2 3 4 5 b 6 7 8 9", "1 0 3 4 5 b 6 7",
                          "1 2 3 4 5 b -1 7",
                          "0 1000 60000 0 0 -a 3 1172 -456"}) {  // fuzz: a negative 9th field would re-encode as 8
    auto r = decodeReceiptHandle(bad);
    CHECK_MESSAGE(!r, bad);
    if (!r) CHECK(r.error().code == ResponseCode::NO_MESSAGE);
  }
}

TEST_CASE("pop log: every event kind round-trips through its record text") {
  QueueKey k{"GID_a", "Topic-1", 2};
  PopEvent p = popEvent(k, 111, 5000, 9, {5, 7, 8}, 3);
  CHECK(encodeEvent(p) == "P GID_a Topic-1 2 111 5000 9 5:1005:3,7:1007:3,8:1008:3");
  PopEvent change;
  change.kind = PopEvent::Kind::Change;
  change.key = k;
  change.popTime = 222;
  change.invisibleTime = 100;
  change.items.push_back({7, 0, 0, 111});
  PopEvent ack = ackEvent(k, 5, 111);
  ack.items.push_back({8, 0, 0, 111});
  PopEvent empty = popEvent(k, 1, 2, 40, {});
  for (const PopEvent& e : {p, change, ack, empty}) {
    auto back = decodeEvent(encodeEvent(e));
    REQUIRE(back);
    CHECK(encodeEvent(*back) == encodeEvent(e));
    CHECK(back->items.size() == e.items.size());
  }
  CHECK(!decodeEvent("X a b 1"));
  CHECK(!decodeEvent("P a b 1 2 3"));
  CHECK(!decodeEvent("A a b 1 5-111"));
}

TEST_CASE("pop state: ack and change apply only to the delivery they name; the consumer offset is the first not done") {
  PopState s;
  QueueKey k{"g", "t", 0};
  s.apply(popEvent(k, 100, 1000, 4, {0, 1, 2, 3}));
  CHECK(s.inFlightCount() == 4);
  CHECK(s.find(k)->committedOffset() == 0);
  CHECK(s.apply(ackEvent(k, 0, 99)) == 0);  // an older delivery's handle
  CHECK(s.apply(ackEvent(k, 0, 100)) == 1);
  CHECK(s.apply(ackEvent(k, 0, 100)) == 0);  // twice: nothing more
  CHECK(s.find(k)->committedOffset() == 1);
  PopEvent change;
  change.kind = PopEvent::Kind::Change;
  change.key = k;
  change.popTime = 150;
  change.invisibleTime = 10;
  change.items.push_back({1, 0, 0, 100});
  CHECK(s.apply(change) == 1);
  CHECK(s.apply(ackEvent(k, 1, 100)) == 0);  // the old handle is dead
  CHECK(s.find(k)->inFlight.at(1).visibleAt() == 160);
  for (int64_t o : {1, 2, 3}) s.apply(ackEvent(k, o, o == 1 ? 150 : 100));
  CHECK(s.inFlightCount() == 0);
  CHECK(s.find(k)->committedOffset() == 4);
}

TEST_CASE("pop state: a FIFO queue is held while its batch is in flight and invisible, released by ack or time") {
  PopState s;
  QueueKey k{"g", "fifo", 1};
  s.apply(popEvent(k, 1000, 500, 3, {0, 1, 2}));
  PopQueue& q = *s.find(k);
  CHECK(q.fifoBlocked(1000));
  CHECK(q.fifoBlocked(1499));
  CHECK_FALSE(q.fifoBlocked(1500));  // the invisible time is over: the un-acked come back, in order
  s.apply(ackEvent(k, 0, 1000));
  s.apply(ackEvent(k, 2, 1000));
  CHECK(q.fifoBlocked(1200));  // offset 1 is still un-acked and invisible
  s.apply(ackEvent(k, 1, 1000));
  CHECK_FALSE(q.fifoBlocked(1200));
  CHECK(q.committedOffset() == 3);
}

TEST_CASE("invisibility timers: taken in time order, ties by queue then offset, nothing before its time") {
  QueueKey a{"g", "a", 0}, b{"g", "b", 0};
  InvisibilityTimers t;
  std::mt19937 rng(7);
  std::vector<TimerRef> all;
  for (int i = 0; i < 500; ++i) {
    TimerRef r{1000 + int64_t(rng() % 100), (rng() & 1) ? &a : &b, int64_t(rng() % 1000), 1};
    all.push_back(r);
    t.add(r);
  }
  CHECK(t.nextAt() >= 1000);
  CHECK(t.takeDue(999).empty());
  auto first = t.takeDue(1049);
  auto rest = t.takeDue(5000);
  CHECK(first.size() + rest.size() == all.size());
  CHECK(t.size() == 0);
  for (const auto& r : first) CHECK(r.visibleAt <= 1049);
  for (const auto& r : rest) CHECK(r.visibleAt > 1049);
  first.insert(first.end(), rest.begin(), rest.end());
  for (size_t i = 1; i < first.size(); ++i) {
    const auto& x = first[i - 1];
    const auto& y = first[i];
    CHECK(std::tie(x.visibleAt, *x.key, x.queueOffset) <= std::tie(y.visibleAt, *y.key, y.queueOffset));
  }
}

TEST_CASE("pop log: a snapshot split into parts rebuilds the same state") {
  PopState s;
  for (int q = 0; q < 5; ++q) {
    QueueKey k{"group" + std::to_string(q % 2), "topic", q};
    std::vector<int64_t> offs;
    for (int i = 0; i < 40; ++i) offs.push_back(i);
    s.apply(popEvent(k, 500 + q, 3000, 40, offs, q + 1));
  }
  auto parts = encodeSnapshot(s, 7, 1234, 300);  // tiny parts: queues span several
  REQUIRE(parts.size() > 5);
  PopState back;
  for (size_t i = 0; i < parts.size(); ++i) {
    auto h = decodeSnapshotHeader(parts[i]);
    REQUIRE(h);
    CHECK(h->seq == 7);
    CHECK(h->part == int32_t(i));
    CHECK(h->parts == int32_t(parts.size()));
    CHECK(h->replayFrom == 1234);
    REQUIRE(applySnapshotPart(parts[i], back));
  }
  CHECK(dump(back) == dump(s));
  CHECK(back.inFlightCount() == s.inFlightCount());
}

namespace {
struct PopStore : rmq::test::TempStore {
  PopStore() : TempStore("rmq_pop_ut_") {}
  // Waits (bounded) until the pop log's queue holds `count` records.
  void dispatched(int32_t queueId, int64_t count) {
    for (int i = 0; i < 2000 && store->maxOffsetInQueue(kPopLogTopic, queueId) < count; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(store->maxOffsetInQueue(kPopLogTopic, queueId) == count);
  }
};
}  // namespace

TEST_CASE("pop log recovery: the last complete snapshot, then only the events after it; a torn snapshot is skipped") {
  PopStore ps;
  PopLog log(*ps.store);
  PopState live;
  QueueKey k{"g", "t", 0};
  auto record = [&](const PopEvent& e) {
    auto r = log.append(e);
    REQUIRE(r.ok());
    live.apply(e);
    return r.queueOffset;
  };
  record(popEvent(k, 100, 1000, 3, {0, 1, 2}));
  record(ackEvent(k, 1, 100));
  int64_t last = record(popEvent(k, 200, 1000, 5, {3, 4}));
  ps.dispatched(kEventQueueId, last + 1);
  REQUIRE(log.appendSnapshot(encodeSnapshot(live, 1, last + 1, 60)));  // several parts
  record(ackEvent(k, 0, 100));
  last = record(popEvent(k, 300, 1000, 6, {5}));
  ps.dispatched(kEventQueueId, last + 1);
  int64_t snapshotRecords = ps.store->maxOffsetInQueue(kPopLogTopic, kSnapshotQueueId);
  ps.dispatched(kSnapshotQueueId, snapshotRecords);

  PopState rebuilt;
  auto st = log.recover(rebuilt);
  CHECK(st.snapshotSeq == 1);
  CHECK(st.eventsReplayed == 2);  // not the three before the snapshot
  CHECK(st.nextEventOffset == last + 1);
  CHECK(dump(rebuilt) == dump(live));

  // A crash in the middle of the next snapshot: its first part only. Recovery uses snapshot 1.
  auto next = encodeSnapshot(live, 2, last + 1, 60);
  REQUIRE(next.size() > 1);
  REQUIRE(log.appendSnapshot({next[0]}));
  ps.dispatched(kSnapshotQueueId, snapshotRecords + 1);
  PopState again;
  st = log.recover(again);
  CHECK(st.snapshotSeq == 1);
  CHECK(dump(again) == dump(live));
}
