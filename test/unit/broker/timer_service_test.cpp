// TimerMessageService against a real store in a temp dir: parking, delivery at the time with the
// 5.x properties, cancel by delete marker, progress records and the rebuild after a restart.
#include <doctest/doctest.h>

#include "unit/broker/temp_store.h"

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "common/timer_properties.h"
#include "common/message_codec.h"
#include "common/wall_clock.h"
#include "roles/broker/delivery/timer_index.h"
#include "roles/broker/delivery/timer_message_service.h"
#include "store/message_store.h"

using namespace rmq;
using namespace rmq::broker;
namespace fs = std::filesystem;

namespace {

bool waitFor(const std::function<bool()>& cond, int ms = 5000) {
  for (int i = 0; i < ms / 5 && !cond(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return cond();
}

struct TimerStore : rmq::test::TempStore {
  TimerStore() : TempStore("rmq_timer_ut_") {}
  store::AppendResult send(const Properties& p, std::string body = "b") {
    std::string props = encodeProperties(p);
    store::MessageToStore m;
    m.topic = "Orders";
    m.queueId = 1;
    m.body = body;
    m.properties = props;
    m.bornTimestamp = nowMillis();
    m.bornHost = HostAddress::ipv4(0x7F000001, 5000);
    return store->append(m);
  }
  std::vector<MessageExt> delivered() {
    // Reads go through the consume queue: let the dispatcher catch up with what the service appended.
    REQUIRE(waitFor([&] { return store->dispatchedPhyOffset() >= store->maxPhyOffset(); }));
    std::vector<MessageExt> out;
    for (int64_t offset = 0;;) {  // a read returns at most maxTransferCountOnMessageInMemory
      auto r = store->getMessages("Orders", 1, offset, 1000, 64 << 20, nullptr);
      if (r.records.empty()) return out;
      for (auto rec : r.records) {
        auto m = decodeMessage(rec);
        REQUIRE(m);
        out.push_back(std::move(m.value()));
      }
      offset = r.nextBeginOffset;
    }
  }
};

std::string propOf(const MessageExt& m, std::string_view k) {
  for (auto& [key, v] : m.properties)
    if (key == k) return v;
  return "<absent>";
}

}  // namespace

TEST_CASE("timer index pops in (time, offset) order and groups one millisecond") {
  TimerIndex ix;
  ix.add({300, 1});
  ix.add({100, 5});
  ix.add({100, 2});
  ix.add({200, 3});
  CHECK(ix.minQueueOffset() == 1);
  auto g = ix.popGroup();
  REQUIRE(g.size() == 2);
  CHECK(g[0].queueOffset == 2);
  CHECK(g[1].queueOffset == 5);
  CHECK(ix.pop().deliverMs == 200);
  CHECK(ix.size() == 1);
}

TEST_CASE("timer progress record round-trips and says which units are pending") {
  TimerProgress p{1000, 7, 20, 3};
  auto back = decodeProgress(encodeProgress(p));
  REQUIRE(back);
  CHECK(back->doneMs == 1000);
  CHECK(back->doneOffset == 7);
  CHECK(back->readOffset == 20);
  CHECK(back->scanFrom == 3);
  CHECK_FALSE(back->pending({999, 9}));   // read, at or below the done key: delivered
  CHECK_FALSE(back->pending({1000, 7}));
  CHECK(back->pending({1000, 8}));        // same ms, later unit
  CHECK(back->pending({500, 20}));        // not read yet when the record was written
  CHECK_FALSE(decodeProgress("timer-progress v1 1 2 3"));
  CHECK_FALSE(decodeProgress("junk"));
}

TEST_CASE("timer service delivers at the time with the 5.x properties, cancels, and survives a restart") {
  TimerStore ts;
  int64_t t0 = nowMillis();
  int64_t due1 = t0 + 400, due2 = t0 + 600, dueLate = t0 + 60'000;
  auto a = ts.send({{"TIMER_DELIVER_MS", std::to_string(due1)}, {"KEYS", "first"}, {"UNIQ_KEY", "U1"}, {"TAGS", "T"}});
  REQUIRE(a.ok());
  CHECK(a.topic == "rmq_sys_wheel_timer");
  REQUIRE(ts.send({{"TIMER_DELIVER_MS", std::to_string(due2)}, {"UNIQ_KEY", "U2"}}).ok());
  // The delete marker for U2: same time, names <topic>+<UNIQ_KEY>.
  REQUIRE(ts.send({{"TIMER_DELIVER_MS", std::to_string(due2)}, {"TIMER_DEL_UNIQKEY", "Orders+U2"}}).ok());
  REQUIRE(ts.send({{"TIMER_DELIVER_MS", std::to_string(dueLate)}, {"UNIQ_KEY", "U3"}}).ok());
  // Due now: a normal message at once.
  auto now = ts.send({{"TIMER_DELIVER_MS", std::to_string(t0 - 1000)}, {"UNIQ_KEY", "U0"}});
  CHECK(now.topic == "Orders");
  REQUIRE(waitFor([&] { return ts.store->maxOffsetInQueue("rmq_sys_wheel_timer", 0) == 4; }));
  auto units = ts.store->queueUnits("rmq_sys_wheel_timer", 0, 0, 10);
  REQUIRE(units.size() == 4);
  CHECK(units[0].tagsCode == due1);  // tags code = delivery time

  {
    TimerMessageService svc(*ts.store, ts.store->config(), 1);
    svc.start();
    REQUIRE(waitFor([&] { return svc.stats().cancelled == 1; }));
    auto got = ts.delivered();
    REQUIRE(got.size() == 2);
    CHECK(propOf(got[0], "UNIQ_KEY") == "U0");
    const MessageExt& m = got[1];
    CHECK(propOf(m, "UNIQ_KEY") == "U1");
    CHECK(m.storeTimestamp >= due1);  // never early (how late: the lag figures of bench.sh timer)
    CHECK(propOf(m, "KEYS") == "first");
    CHECK(propOf(m, "TAGS") == "T");
    CHECK(propOf(m, "TIMER_OUT_MS") == std::to_string(due1));
    CHECK(propOf(m, "TIMER_ENQUEUE_MS") != "<absent>");
    CHECK(propOf(m, "TIMER_DEQUEUE_MS") != "<absent>");
    CHECK(propOf(m, "REAL_TOPIC") == "<absent>");
    CHECK(propOf(m, "REAL_QID") == "<absent>");
    CHECK(svc.stats().pending == 1);
    CHECK(svc.stats().delivered == 1);
    svc.shutdown();
  }
  // Restart: the delivered and the cancelled stay done, U3 is pending again.
  ts.reopen();
  TimerMessageService again(*ts.store, ts.store->config(), 1);
  again.start();
  CHECK(again.stats().pending == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a pass would have redelivered by now
  CHECK(ts.delivered().size() == 2);
  again.shutdown();
}

TEST_CASE("timer service: a backlog drains at timerMaxDeliverRate") {
  TimerStore ts;
  ts.cfg.timerMaxDeliverRate = 500;
  ts.reopen();
  int64_t due = nowMillis() + 300;
  for (int i = 0; i < 300; ++i) REQUIRE(ts.send({{"TIMER_DELIVER_MS", std::to_string(due + i)}}).ok());
  REQUIRE(waitFor([&] { return ts.store->maxOffsetInQueue("rmq_sys_wheel_timer", 0) == 300; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // all due before the service starts
  TimerMessageService svc(*ts.store, ts.store->config(), 5);
  auto started = std::chrono::steady_clock::now();
  svc.start();
  REQUIRE(waitFor([&] { return svc.stats().delivered == 300; }));
  // 300 at 500/s, starting with no tokens: about 0.6 s.
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(450));
  CHECK(ts.delivered().size() == 300);
}

TEST_CASE("timer service: a timer beyond the roll window is re-parked on its way, delivered once at its time; a rolled marker still cancels") {
  TimerStore ts;
  ts.cfg.timerPrecisionMs = 100;
  ts.cfg.timerRollWindowSlot = 4;  // 400 ms
  ts.reopen();
  int64_t due = nowMillis() + 1500;
  REQUIRE(ts.send({{"TIMER_DELIVER_MS", std::to_string(due)}, {"UNIQ_KEY", "R1"}, {"KEYS", "rolled"}}).ok());
  REQUIRE(ts.send({{"TIMER_DELIVER_MS", std::to_string(due)}, {"UNIQ_KEY", "R2"}}).ok());
  REQUIRE(ts.send({{"TIMER_DELIVER_MS", std::to_string(due)}, {"TIMER_DEL_UNIQKEY", "Orders+R2"}}).ok());
  REQUIRE(waitFor([&] { return ts.store->maxOffsetInQueue("rmq_sys_wheel_timer", 0) == 3; }));
  for (auto& u : ts.store->queueUnits("rmq_sys_wheel_timer", 0, 0, 10)) CHECK(u.tagsCode < due);  // wakes first

  TimerMessageService svc(*ts.store, ts.store->config(), 1);
  svc.start();
  REQUIRE(waitFor([&] { return svc.stats().delivered == 1 && svc.stats().cancelled == 1; }));
  auto st = svc.stats();
  CHECK(st.rolled >= 3);  // each of the three at least once
  CHECK(st.pending == 0);
  CHECK(ts.store->maxOffsetInQueue("rmq_sys_wheel_timer", 0) == int64_t(3 + st.rolled));
  auto got = ts.delivered();
  REQUIRE(got.size() == 1);
  const MessageExt& m = got[0];
  CHECK(propOf(m, "UNIQ_KEY") == "R1");
  CHECK(propOf(m, "KEYS") == "rolled");
  CHECK(m.storeTimestamp >= due);
  CHECK(propOf(m, "TIMER_OUT_MS") == std::to_string(due));
  CHECK(std::stoi(propOf(m, "TIMER_ROLL_TIMES")) >= 1);
  CHECK(propOf(m, "TIMER_WAKE_MS") == "<absent>");
  CHECK(propOf(m, "REAL_TOPIC") == "<absent>");
  svc.shutdown();

  // Restart: the originals and the rolled copies are all done.
  ts.reopen();
  TimerMessageService again(*ts.store, ts.store->config(), 1);
  again.start();
  CHECK(again.stats().pending == 0);
  again.shutdown();
  CHECK(ts.delivered().size() == 1);
}
