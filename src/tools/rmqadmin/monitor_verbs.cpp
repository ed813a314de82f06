// startMonitoring (mqadmin's StartMonitoringSubCommand over tools/monitor/MonitorService with the
// DefaultMonitorListener): every round, for each consumer group (a %RETRY% topic) that is online,
// its undone messages per topic (UndoneMsgs: total lag, largest queue lag, how far the consumer's
// last commit lags behind the newest message) and the running-info checks of its consumers
// (subscriptions that differ, queues that seem blocked); between rounds, each OffsetMovedEvent the
// brokers store (a pull beyond a queue's range; push consumer of group __MONITOR_CONSUMER on topic
// OFFSET_MOVED_EVENT, from its last offset). The lines DefaultMonitorListener logs are printed to
// stdout as they happen (--json: one object per line).
// Rounds: the first after -d ms (default 20000, as MonitorService), then every -i ms (default
// 60000); -r bounds the number of rounds (default 0: until killed), which mqadmin has no option for.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "client/consumer/push_consumer.h"

#include "common/json.h"
#include "common/wall_clock.h"
#include "tools/rmqadmin/consumer_verbs.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

const std::string kPrefix = "[MONITOR] ";
const std::string kNotify = kPrefix + " [NOTIFY] ";

// Prints one listener event at once: the logged text, or with --json {"type": .., fields..}. Called
// from the rounds (main thread) and the event consumer's thread.
class MonitorOutput {
 public:
  explicit MonitorOutput(bool json) : json_(json) {}
  void event(const std::string& type, const std::string& text,
             const std::vector<std::pair<std::string, std::string>>& strings = {},
             const std::vector<std::pair<std::string, int64_t>>& numbers = {}) {
    std::string out;
    if (json_) {
      json::Buffer buf;
      json::Writer w(buf);
      w.StartObject();
      w.Key("type"); w.String(type.c_str());
      for (auto& [k, v] : strings) { w.Key(k.c_str()); w.String(v.c_str()); }
      for (auto& [k, v] : numbers) { w.Key(k.c_str()); w.Int64(v); }
      if (strings.empty() && numbers.empty()) { w.Key("message"); w.String(text.c_str()); }
      w.EndObject();
      out.assign(buf.GetString(), buf.GetSize());
    } else {
      out = text;
    }
    out += '\n';
    std::lock_guard lk(mu_);
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
  }

 private:
  bool json_;
  std::mutex mu_;
};

struct UndoneMsgs {
  int64_t total = 0, singleMQ = 0, delayMillis = 0;
};

// MonitorService.computeUndoneMsgs over one topic's queues: lag summed (positive ones), the largest
// lag, and the largest gap between the newest message's store time and the consumer's last commit.
UndoneMsgs computeUndone(client::AdminClient& admin, const std::vector<client::ConsumeOffsetEntry>& queues) {
  UndoneMsgs u;
  for (const auto& q : queues) {
    int64_t diff = q.brokerOffset - q.consumerOffset;
    u.singleMQ = std::max(u.singleMQ, diff);
    if (diff > 0) u.total += diff;
    if (q.lastTimestamp <= 0) continue;
    auto maxOffset = admin.run(admin.asyncMaxOffset(q.queue));
    if (!maxOffset || *maxOffset <= 0) continue;
    auto newest = admin.run(admin.asyncQueryMessageByOffset(q.queue, *maxOffset - 1));
    if (newest) u.delayMillis = std::max(u.delayMillis, newest->storeTimestamp - q.lastTimestamp);
  }
  return u;
}

void reportUndoneMsgs(client::AdminClient& admin, MonitorOutput& out, const std::string& group) {
  auto stats = admin.run(admin.asyncConsumeStats(group));
  if (!stats) return;
  if (!admin.run(admin.asyncConsumerConnection(group))) return;  // not online: nothing reported
  std::map<std::string, std::vector<client::ConsumeOffsetEntry>> byTopic;
  for (auto& e : stats->offsets) byTopic[e.queue.topic].push_back(e);
  for (auto& [topic, queues] : byTopic) {
    UndoneMsgs u = computeUndone(admin, queues);
    out.event("undoneMsgs",
              fmt::format("{}reportUndoneMsgs: UndoneMsgs [consumerGroup={}, topic={}, undoneMsgsTotal={}, "
                          "undoneMsgsSingleMQ={}, undoneMsgsDelayTimeMills={}]",
                          kPrefix, group, topic, u.total, u.singleMQ, u.delayMillis),
              {{"consumerGroup", group}, {"topic", topic}},
              {{"undoneMsgsTotal", u.total}, {"undoneMsgsSingleMQ", u.singleMQ},
               {"undoneMsgsDelayTimeMills", u.delayMillis}});
  }
}

std::string property(const rapidjson::Document& info, const char* key) {
  if (!info.HasMember("properties") || !info["properties"].IsObject()) return {};
  return std::string(json::getString(info["properties"], key).value_or(""));
}

// ConsumerRunningInfo.analyzeSubscription: a push consumer group started over 2 minutes ago whose
// members subscribe differently (or the last one to nothing).
bool subscriptionsAgree(const std::map<std::string, rapidjson::Document>& infos) {
  const auto& first = infos.begin()->second;
  if (property(first, "PROP_CONSUME_TYPE") != "CONSUME_PASSIVELY") return true;
  int64_t started = 0;
  try { started = std::stoll(property(first, "PROP_CONSUMER_START_TIMESTAMP")); } catch (...) { return true; }
  if (nowMillis() - started <= 2 * 60 * 1000) return true;
  auto expected = subscriptionsOf(first);
  for (auto& [_, info] : infos)
    if (subscriptionsOf(info) != expected) return false;
  return !subscriptionsOf(infos.rbegin()->second).empty();
}

// ConsumerRunningInfo.analyzeProcessQueue: queues of a push consumer that cannot lock (orderly) or
// hold messages not consumed for a minute. A field the client does not report is not judged.
std::string analyzeProcessQueues(const std::string& clientId, const rapidjson::Document& info) {
  if (property(info, "PROP_CONSUME_TYPE") != "CONSUME_PASSIVELY") return {};
  bool orderly = property(info, "PROP_CONSUMEORDERLY") == "true";
  if (!info.HasMember("mqTable") || !info["mqTable"].IsObject()) return {};
  std::string out;
  int64_t now = nowMillis();
  for (auto& m : info["mqTable"].GetObject()) {
    auto mq = json::parseMessageQueueKey(json::keyView(m.name));
    if (!mq || !m.value.IsObject()) continue;
    std::string mqText = fmt::format("MessageQueue [topic={}, brokerName={}, queueId={}]", mq->topic, mq->brokerName,
                                     mq->queueId);
    const auto& pq = m.value;
    if (orderly) {
      if (!json::getBool(pq, "locked").value_or(true)) {
        out += fmt::format("{} {} can't lock for a while, {}ms\n", clientId, mqText,
                           now - json::getInt64(pq, "lastLockTimestamp").value_or(0));
      } else if (json::getBool(pq, "droped").value_or(false) && json::getInt64(pq, "tryUnlockTimes").value_or(0) > 0) {
        out += fmt::format("{} {} unlock {} times, still failed\n", clientId, mqText,
                           json::getInt64(pq, "tryUnlockTimes").value_or(0));
      }
    } else if (auto last = json::getInt64(pq, "lastConsumeTimestamp")) {
      int64_t diff = now - *last;
      if (diff > 60 * 1000 && json::getInt64(pq, "cachedMsgCount").value_or(0) > 0)
        out += fmt::format("{} {} can't consume for a while, maybe blocked, {}ms\n", clientId, mqText, diff);
    }
  }
  return out;
}

void reportConsumerRunningInfo(client::AdminClient& admin, MonitorOutput& out, const std::string& group) {
  auto cc = admin.run(admin.asyncConsumerConnection(group));
  if (!cc) return;
  constexpr int32_t kV3_1_8_SNAPSHOT = 62;  // MQVersion ordinal: older clients have no running info
  std::map<std::string, rapidjson::Document> infos;  // clientId -> ConsumerRunningInfo
  for (auto& c : cc->connections) {
    if (c.version < kV3_1_8_SNAPSHOT) continue;
    auto text = admin.run(admin.asyncConsumerRunningInfo(group, c.clientId));
    if (!text) continue;
    rapidjson::Document doc;
    if (json::parse(*text, doc).ok() && doc.IsObject()) infos.emplace(c.clientId, std::move(doc));
  }
  if (infos.empty()) return;
  std::string groupName = property(infos.begin()->second, "consumerGroup");
  if (!subscriptionsAgree(infos))
    out.event("notify", fmt::format("{}reportConsumerRunningInfo: ConsumerGroup: {}, Subscription different", kNotify,
                                    groupName));
  for (auto& [clientId, info] : infos)
    if (auto result = analyzeProcessQueues(clientId, info); !result.empty())
      out.event("notify", fmt::format("{}reportConsumerRunningInfo: ConsumerGroup: {}, ClientId: {}, {}", kNotify,
                                      groupName, clientId, result));
}

// DefaultMonitorListener.reportDeleteMsgsEvent of one OFFSET_MOVED_EVENT message (OffsetMovedEvent JSON).
void reportDeleteMsgsEvent(MonitorOutput& out, const MessageExt& m) {
  rapidjson::Document e;
  if (!json::parse(m.body, e).ok() || !e.IsObject()) return;
  std::string group(json::getString(e, "consumerGroup").value_or(""));
  std::string topic, brokerName;
  int64_t queueId = 0;
  if (e.HasMember("messageQueue") && e["messageQueue"].IsObject()) {
    const auto& mq = e["messageQueue"];
    topic = json::getString(mq, "topic").value_or("");
    brokerName = json::getString(mq, "brokerName").value_or("");
    queueId = json::getInt64(mq, "queueId").value_or(0);
  }
  int64_t requested = json::getInt64(e, "offsetRequest").value_or(0);
  int64_t moved = json::getInt64(e, "offsetNew").value_or(0);
  out.event("deleteMsgsEvent",
            fmt::format("{}reportDeleteMsgsEvent: DeleteMsgsEvent [offsetMovedEvent=OffsetMovedEvent [consumerGroup={}, "
                        "messageQueue=MessageQueue [topic={}, brokerName={}, queueId={}], offsetRequest={}, "
                        "offsetNew={}], eventTimestamp={}]",
                        kPrefix, group, topic, brokerName, queueId, requested, moved, m.storeTimestamp),
            {{"consumerGroup", group}, {"topic", topic}, {"brokerName", brokerName}},
            {{"queueId", queueId}, {"offsetRequest", requested}, {"offsetNew", moved},
             {"eventTimestamp", m.storeTimestamp}});
}

void monitorRound(client::AdminClient& admin, MonitorOutput& out) {
  out.event("beginRound", kPrefix + "=========================================beginRound");
  auto topics = admin.run(admin.asyncTopicList());
  if (topics) {
    for (const auto& topic : *topics) {
      if (!client::isRetryTopic(topic)) continue;
      std::string group = topic.substr(std::string_view("%RETRY%").size());
      reportUndoneMsgs(admin, out, group);
      reportConsumerRunningInfo(admin, out, group);
    }
  }
  out.event("endRound", kPrefix + "=========================================endRound");
}

int startMonitoring(VerbContext& ctx) {
  int64_t firstDelay = ctx.args.getInt({"d", "firstDelay"}, 20000);
  int64_t interval = ctx.args.getInt({"i", "roundInterval"}, 60000);
  int64_t rounds = ctx.args.getInt({"r", "rounds"}, 0);
  if (firstDelay < 0 || interval < 0 || rounds < 0) ctx.usageError("-d, -i and -r must not be negative");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  MonitorOutput out(ctx.json);
  client::PushConsumerOptions po;
  po.group = "__MONITOR_CONSUMER";  // MixAll.MONITOR_CONSUMER_GROUP
  po.client = toolClientConfig(ctx);
  po.client.instanceName += "-monitor";
  po.consumeThreadMin = po.consumeThreadMax = 1;
  client::PushConsumer events(po);
  if (auto r = events.subscribe("OFFSET_MOVED_EVENT", "*"); !r) return ctx.fail(r.error());
  events.registerListener([&out](const std::vector<MessageExt>& msgs, const client::MessageQueue&) {
    for (const auto& m : msgs) reportDeleteMsgsEvent(out, m);
    return client::ConsumeStatus::CONSUME_SUCCESS;
  });
  if (auto r = events.start(); !r) return ctx.fail(r.error());
  std::this_thread::sleep_for(std::chrono::milliseconds(firstDelay));
  for (int64_t round = 1; rounds == 0 || round <= rounds; ++round) {
    if (round > 1) std::this_thread::sleep_for(std::chrono::milliseconds(interval));
    monitorRound(admin, out);
  }
  events.shutdown();
  return 0;
}

constexpr auto kInt = ValueKind::Integer;

VerbRegistrar r1({"startMonitoring", "Start Monitoring",
                  {{"-d, --firstDelay <ms>", "before the first round (default 20000)", kInt},
                   {"-i, --roundInterval <ms>", "between rounds (default 60000)", kInt},
                   {"-r, --rounds <n>", "stop after n rounds (default 0: until killed)", kInt}},
                  &startMonitoring});

}  // namespace
}  // namespace rmq::admin
