// Timer messages and commit-log retention: a timer farther away than timerRollWindowSlot is
// re-parked ("rolled") into the newest commit-log file on its way, so deleting the file it was
// first written to (fileReservedTime forced to 0) loses nothing; with a window longer than the
// wait, the same deletion loses the body — the contrast that shows the roll is what saves it.
#include <doctest/doctest.h>

#include <ctime>
#include <string>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/timer_properties.h"
#include "common/wall_clock.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// One node with 64 KiB commit-log files and a 1 s retention pass; `rollSlots` x 100 ms window.
struct RetentionNode {
  DevNode node;
  TestClient c;
  std::string topic = uniqueName("TimerKeep");
  int64_t parkedAt = -1;  // commit-log offset of the timer's first parked copy

  explicit RetentionNode(int rollSlots)
      : node({.extraStore = "cleanResourceInterval = 1000\ntimerRollWindowSlot = " + std::to_string(rollSlots) + "\n"}) {
    node.replaceConfigLine("mappedFileSizeCommitLog = 67108864", "mappedFileSizeCommitLog = 65536");
  }
  void start() {
    REQUIRE(node.start());
    createTopic(c, node.brokerAddr, topic, 1);
    createTopic(c, node.brokerAddr, topic + "Fill", 1);
  }
  void sendTimer(int64_t due) {
    auto resp = sendOk(c, node.brokerAddr, {.topic = topic, .body = "far", .extraProps = {
        {std::string(prop::TIMER_DELIVER_MS), std::to_string(due)}, {"UNIQ_KEY", "KEEP1"}}});
    std::string msgId(resp.extFields.get("msgId"));  // the offset message id ends with the offset
    REQUIRE(msgId.size() > 16);
    parkedAt = std::stoll(msgId.substr(msgId.size() - 16), nullptr, 16);
  }
  // Three files' worth of other messages: the timer's first file is full and old enough to go.
  void fill() {
    for (int i = 0; i < 100; ++i) sendOk(c, node.brokerAddr, {.topic = topic + "Fill", .body = std::string(2000, 'f')});
    REQUIRE(dispatched(c, node.brokerAddr, topic + "Fill", 0, 100));
  }
  int64_t value(const char* key) { return std::stoll(brokerRuntimeValue(c, node.brokerAddr, key).value_or("-1")); }
  // fileReservedTime 0 and deleteWhen = this hour and the next: every full, dispatched file goes.
  void forceRetention() {
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    std::string hours = std::to_string(local.tm_hour) + ";" + std::to_string((local.tm_hour + 1) % 24);
    auto r = invoke(c, node.brokerAddr,
                    request(RequestCode::UPDATE_BROKER_CONFIG, {}, "fileReservedTime=0\ndeleteWhen=" + hours + "\n"));
    REQUIRE(r.code == ResponseCode::SUCCESS);
  }
  std::vector<MessageExt> delivered() { return pullMessages(c, node.brokerAddr, {.topic = topic, .offset = 0}); }
};

}  // namespace

TEST_CASE("timer retention: a far timer rolled into the newest file survives the deletion of its first file; without the roll it is lost") {
  RetentionNode rolling(20);        // 2 s window: rolls every ~2 s
  RetentionNode still(10'000'000);  // ~11.6 days: never rolls in this test
  rolling.start();
  still.start();
  const int64_t due = nowMillis() + 15'000;
  rolling.sendTimer(due);
  still.sendTimer(due);
  rolling.fill();
  still.fill();
  // A roll after the filling: the pending copy now sits in the active file, which is never deleted.
  int64_t rolledAfterFill = rolling.value("timerRolledCount");
  REQUIRE(eventually([&] { return rolling.value("timerRolledCount") > rolledAfterFill; }, 10s));
  rolling.forceRetention();
  still.forceRetention();
  for (RetentionNode* n : {&rolling, &still}) {
    REQUIRE(eventually([&] { return n->value("commitLogMinOffset") > n->parkedAt; }, 20s));
    // Deleted before the time: nothing delivered yet, the timer still pending.
    auto info = brokerRuntimeInfo(n->c, n->node.brokerAddr, 5s);
    REQUIRE(info);
    CHECK((*info)["timerDeliveredCount"] == "0");
    CHECK((*info)["timerPendingCount"] == "1");
  }
  CHECK(still.value("timerRolledCount") == 0);

  // Rolled: delivered once, at its time, with 5.x's TIMER_ROLL_TIMES.
  std::vector<MessageExt> got;
  REQUIRE(eventually([&] { return !(got = rolling.delivered()).empty(); }, 30s));
  REQUIRE(got.size() == 1);
  CHECK(got[0].body == "far");
  CHECK(got[0].storeTimestamp >= due);
  REQUIRE(got[0].property(prop::TIMER_ROLL_TIMES));
  CHECK(std::stoi(*got[0].property(prop::TIMER_ROLL_TIMES)) >= 1);
  CHECK_FALSE(got[0].property(prop::TIMER_WAKE_MS));
  CHECK(eventually([&] { return rolling.value("timerPendingCount") == 0; }, 5s));
  CHECK(rolling.value("timerDeliveredCount") == 1);

  // Not rolled: at its time the unit points at a deleted record; nothing is delivered.
  REQUIRE(eventually([&] { return still.value("timerPendingCount") == 0; }, 30s));
  CHECK(still.value("timerDeliveredCount") == 0);
  CHECK(still.delivered().empty());
  CHECK(still.node.brokerLog().find("points at no readable record") != std::string::npos);
}
