// Verbs answered by one consumer through its broker: consumerStatus (GET_CONSUMER_RUNNING_INFO,
// mqadmin's ConsumerStatusSubCommand; -s asks for the thread stack trace) and the push form of queryMsgById / queryMsgByUniqueKey
// (-g GROUP -d CLIENT_ID: CONSUME_MESSAGE_DIRECTLY, mqadmin's pushMsg).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "client/consumer/consume_directly.h"
#include "common/json.h"
#include "tools/rmqadmin/consumer_verbs.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

std::string str(const rapidjson::Value& v, const char* name) {
  return std::string(json::getString(v, name).value_or(""));
}

// ProcessQueueInfo.toString() of one mqTable value (absent fields as Java's defaults).
std::string processQueueInfoText(const rapidjson::Value& pq) {
  auto num = [&](const char* k) { return json::getInt64(pq, k).value_or(0); };
  auto flag = [&](const char* k) { return json::getBool(pq, k).value_or(false) ? "true" : "false"; };
  return fmt::format(
      "ProcessQueueInfo [commitOffset={}, cachedMsgMinOffset={}, cachedMsgMaxOffset={}, cachedMsgCount={}, "
      "cachedMsgSizeInMiB={}, transactionMsgMinOffset={}, transactionMsgMaxOffset={}, transactionMsgCount={}, "
      "locked={}, tryUnlockTimes={}, lastLockTimestamp={}, droped={}, lastPullTimestamp={}, lastConsumeTimestamp={}]",
      num("commitOffset"), num("cachedMsgMinOffset"), num("cachedMsgMaxOffset"), num("cachedMsgCount"),
      num("cachedMsgSizeInMiB"), num("transactionMsgMinOffset"), num("transactionMsgMaxOffset"),
      num("transactionMsgCount"), flag("locked"), num("tryUnlockTimes"), javaHumanTime(num("lastLockTimestamp")),
      flag("droped"), javaHumanTime(num("lastPullTimestamp")), javaHumanTime(num("lastConsumeTimestamp")));
}

// ConsumerRunningInfo.formatString(): properties, subscriptions, offsets, MQ details, RT/TPS.
void printRunningInfo(VerbContext& ctx, const rapidjson::Document& doc) {
  std::vector<std::pair<std::string, std::string>> props;
  if (doc.HasMember("properties") && doc["properties"].IsObject())
    for (auto& m : doc["properties"].GetObject())
      props.emplace_back(m.name.GetString(), m.value.IsString() ? m.value.GetString() : json::toString(m.value));
  std::sort(props.begin(), props.end());
  ctx.report.line("#Consumer Properties#");
  ctx.report.kv("properties", props, ": ");
  ctx.report.line("");
  ctx.report.line("#Consumer Subscription#");
  auto& subs = ctx.report.table("subscriptions", {"#Index", "#Topic", "#ClassFilter", "#SubExpression"});
  int i = 0;
  if (doc.HasMember("subscriptionSet") && doc["subscriptionSet"].IsArray())
    for (auto& s : doc["subscriptionSet"].GetArray())
      if (s.IsObject())
        subs.add({fmt::format("{:03d}", ++i), str(s, "topic"),
                  json::getBool(s, "classFilterMode").value_or(false) ? "true" : "false",
                  str(s, "subString")});
  ctx.report.line("");
  ctx.report.line("#Consumer Offset#");
  auto& offs = ctx.report.table("offsets", {"#Topic", "#Broker Name", "#QID", "#Consumer Offset"});
  std::vector<std::pair<client::MessageQueue, const rapidjson::Value*>> rows;
  if (doc.HasMember("mqTable") && doc["mqTable"].IsObject())
    for (auto& m : doc["mqTable"].GetObject()) {
      auto key = json::parseMessageQueueKey(json::keyView(m.name));
      if (!key || !m.value.IsObject()) continue;
      rows.push_back({{key->topic, key->brokerName, key->queueId}, &m.value});
    }
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& [mq, pq] : rows)
    offs.add({mq.topic, mq.brokerName, mq.queueId, json::getInt64(*pq, "commitOffset").value_or(-1)});
  ctx.report.line("");
  ctx.report.line("#Consumer MQ Detail#");
  auto& details = ctx.report.table("details", {"#Topic", "#Broker Name", "#QID", "#ProcessQueueInfo"});
  for (auto& [mq, pq] : rows) details.add({mq.topic, mq.brokerName, mq.queueId, processQueueInfoText(*pq)});
  ctx.report.line("");
  ctx.report.line("#Consumer RT&TPS#");
  auto& rt = ctx.report.table("status", {"#Topic", "#Pull RT", "#Pull TPS", "#Consume RT", "#ConsumeOK TPS",
                                         "#ConsumeFailed TPS", "#ConsumeFailedMsgsInHour"});
  if (doc.HasMember("statusTable") && doc["statusTable"].IsObject())
    for (auto& m : doc["statusTable"].GetObject()) {
      auto num = [&](const char* k) { return Cell(m.value.IsObject() && m.value.HasMember(k) && m.value[k].IsNumber()
                                                      ? m.value[k].GetDouble() : 0.0, 2); };
      rt.add({m.name.GetString(), num("pullRT"), num("pullTPS"), num("consumeRT"), num("consumeOKTPS"),
              num("consumeFailedTPS"), num("consumeFailedMsgs")});
    }
  if (auto jstack = json::getString(doc, "jstack"); jstack && !jstack->empty()) {
    ctx.report.line("");
    ctx.report.line("#Consumer jstack#");
    ctx.report.line(std::string(*jstack));
  }
}

int consumerStatus(VerbContext& ctx) {
  std::string group = ctx.required({"g", "consumerGroup"});
  std::string clientId = ctx.args.get({"i", "clientId"}, "");
  const bool jstack = ctx.args.flag("s") || ctx.args.flag("jstack");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  if (!clientId.empty()) {
    auto info = admin.run(admin.asyncConsumerRunningInfo(group, clientId, jstack));
    if (!info) return ctx.fail(info.error());
    rapidjson::Document doc;
    if (auto r = json::parse(*info, doc); !r || !doc.IsObject()) return ctx.fail("malformed ConsumerRunningInfo");
    printRunningInfo(ctx, doc);
    return 0;
  }
  auto cc = admin.run(admin.asyncConsumerConnection(group));
  if (!cc) return ctx.fail(cc.error());
  auto& t = ctx.report.table("clients", {"#Index", "#ClientId", "#Version", "#Subscriptions"});
  std::set<std::set<std::string>> distinct;
  int i = 0;
  for (auto& c : cc->connections) {
    auto info = admin.run(admin.asyncConsumerRunningInfo(group, c.clientId));
    if (!info) continue;
    rapidjson::Document doc;
    if (auto r = json::parse(*info, doc); !r || !doc.IsObject()) continue;
    auto subs = subscriptionsOf(doc);
    std::string joined;
    for (auto& s : subs) joined += (joined.empty() ? "" : ",") + s;
    t.add({fmt::format("{:03d}", i++), c.clientId, c.version, joined});
    distinct.insert(std::move(subs));
  }
  if (t.size() == 0) return ctx.fail("The Consumer Group not online!", 206);
  ctx.report.line("");
  ctx.report.line(distinct.size() == 1 ? "Same subscription in the same group of consumer"
                                       : "WARN: Different subscription in the same group of consumer!!!");
  return 0;
}

}  // namespace

std::set<std::string> subscriptionsOf(const rapidjson::Document& doc) {
  std::set<std::string> out;
  if (doc.HasMember("subscriptionSet") && doc["subscriptionSet"].IsArray())
    for (auto& s : doc["subscriptionSet"].GetArray())
      if (s.IsObject()) out.insert(str(s, "topic") + "@" + str(s, "subString"));
  return out;
}

int pushMessageToConsumer(VerbContext& ctx, const std::string& group, const std::string& clientId,
                          const std::string& topic, const std::string& msgId) {
  auto& admin = ctx.admin();
  // As mqadmin's pushMsg: only a push consumer (CONSUME_PASSIVELY) consumes a pushed message.
  auto info = admin.run(admin.asyncConsumerRunningInfo(group, clientId));
  if (!info) return ctx.fail(info.error());
  rapidjson::Document doc;
  bool push = json::parse(*info, doc).ok() && doc.IsObject() && doc.HasMember("properties") &&
              doc["properties"].IsObject() &&
              json::getString(doc["properties"], "PROP_CONSUME_TYPE").value_or("") == "CONSUME_PASSIVELY";
  if (!push) return ctx.fail(fmt::format("this {} client is not push consumer ,not support direct push", clientId));
  auto body = admin.run(admin.asyncConsumeMessageDirectly(group, clientId, topic, msgId));
  if (!body) return ctx.fail(body.error());
  auto result = client::decodeConsumeDirectlyResult(*body);
  if (!result) return ctx.fail(result.error());
  if (ctx.json) ctx.report.json("result", *body);
  else ctx.report.line(client::toString(*result));
  return 0;
}

namespace {
VerbRegistrar r1({"consumerStatus", "Query consumer's internal data structure",
                  {{"-g, --consumerGroup <group>", "consumer group (required)"},
                   {"-i, --clientId <id>", "one consumer: its full running info"},
                   {"-s, --jstack", "with the consumer's thread stack trace (jstackEnable; a 5.x client's Telemetry)"}},
                  &consumerStatus});
}  // namespace

}  // namespace rmq::admin
