// Message verbs: queryMsgById, resumeCheckHalfMessage, queryMsgByUniqueKey, queryMsgByKey, queryMsgByOffset, sendMessage,
// checkMsgSendRT, consumeMessage, printMsgByQueue,
// printMsg. Reads go through the AdminClient (view/query) or a PullConsumer of group
// TOOLS_CONSUMER (range reads), sends through a Producer.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/pull_consumer.h"
#include "tools/rmqadmin/consumer_verbs.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

void printMessage(VerbContext& ctx, const MessageExt& m, bool withBody) {
  ctx.report.kv("message", messageDetail(m, withBody), ":  ");
}

int queryMsgById(VerbContext& ctx) {
  std::string id = ctx.required({"i", "msgId"});
  std::string topic = ctx.args.get({"t", "topic"}, "");
  std::string group = ctx.args.get({"g", "consumerGroup"}, "");
  std::string clientId = ctx.args.get({"d", "clientId"}, "");
  if (group.empty() != clientId.empty()) ctx.usageError("-g and -d go together");
  if (ctx.badUsage()) return 2;
  if (!group.empty()) return pushMessageToConsumer(ctx, group, clientId, topic, id);
  auto& admin = ctx.admin();
  // An offset msgId names the broker and commit log offset; otherwise (or when that fails and a
  // topic is given) treat it as a UNIQ_KEY and look it up in the index.
  auto m = admin.run(admin.asyncViewMessage(id));
  if (!m && !topic.empty()) {
    auto found = admin.run(admin.asyncQueryMessageByKey(topic, id, 32, 0, INT64_MAX, true));
    if (found && !found->empty()) m = std::move(found->front());
    else if (!found) m = found.error();
    else m = Error{208, fmt::format("no message with id {} in topic {}", id, topic)};
  }
  if (!m) return ctx.fail(m.error());
  printMessage(ctx, *m, true);
  return 0;
}

// Not an mqadmin command in 4.9.8, but MQAdminExt.resumeCheckHalfMessage(msgId) as a verb.
int resumeCheckHalfMessage(VerbContext& ctx) {
  std::string id = ctx.required({"i", "msgId"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto r = admin.run(admin.asyncResumeCheckHalfMessage(id));
  if (!r) return ctx.fail(r.error());
  ctx.report.line(fmt::format("resume check of {}: OK", id));
  return 0;
}

int queryMsgByUniqueKey(VerbContext& ctx) {
  std::string key = ctx.required({"i", "msgId"});
  std::string topic = ctx.required({"t", "topic"});
  std::string group = ctx.args.get({"g", "consumerGroup"}, "");
  std::string clientId = ctx.args.get({"d", "clientId"}, "");
  if (group.empty() != clientId.empty()) ctx.usageError("-g and -d go together");
  if (ctx.badUsage()) return 2;
  if (!group.empty()) return pushMessageToConsumer(ctx, group, clientId, topic, key);
  auto& admin = ctx.admin();
  auto found = admin.run(admin.asyncQueryMessageByKey(topic, key, 32, 0, INT64_MAX, true));
  if (!found) return ctx.fail(found.error());
  if (found->empty()) return ctx.fail(fmt::format("no message with unique key {} in topic {}", key, topic), 208);
  bool all = boolOption(ctx, {"a", "showAll"}, false);
  for (size_t i = 0; i < (all ? found->size() : 1); ++i) {
    if (i > 0) ctx.report.line("");
    printMessage(ctx, (*found)[i], true);
  }
  return 0;
}

int queryMsgByKey(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  std::string key = ctx.required({"k", "msgKey"});
  int64_t begin = ctx.args.getInt({"b", "beginTimestamp"}, 0);
  int64_t end = ctx.args.getInt({"e", "endTimestamp"}, INT64_MAX);
  int maxNum = static_cast<int>(ctx.args.getInt({"c", "maxNum"}, 64));
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto msgs = admin.run(admin.asyncQueryMessageByKey(topic, key, maxNum, begin, end));
  if (!msgs) return ctx.fail(msgs.error());
  auto& t = ctx.report.table("messages", {"#Message ID", "#QID", "#Offset", "#OffsetID", "#StoreTime"});
  for (auto& m : *msgs) {
    std::string uniq = client::uniqKey(m);
    t.add({uniq.empty() ? m.offsetMsgId() : uniq, m.queueId, m.queueOffset, m.offsetMsgId(),
           formatTimestamp(m.storeTimestamp)});
  }
  return 0;
}

int queryMsgByOffset(VerbContext& ctx) {
  client::MessageQueue mq;
  mq.topic = ctx.required({"t", "topic"});
  mq.brokerName = ctx.required({"b", "brokerName"});
  mq.queueId = static_cast<int32_t>(ctx.args.getInt({"i", "queueId"}, -1));
  int64_t offset = ctx.args.getInt({"o", "offset"}, -1);
  if (mq.queueId < 0) ctx.usageError("missing option -i (queue id)");
  if (offset < 0) ctx.usageError("missing option -o (queue offset)");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto m = admin.run(admin.asyncQueryMessageByOffset(mq, offset));
  if (!m) return ctx.fail(m.error());
  printMessage(ctx, *m, true);
  return 0;
}

int sendMessage(VerbContext& ctx) {
  Message msg;
  msg.topic = ctx.required({"t", "topic"});
  msg.body = ctx.required({"p", "body"});
  if (auto k = ctx.args.get({"k", "key"})) client::setKeys(msg, *k);
  if (auto tag = ctx.args.get({"c", "tags"})) client::setTags(msg, *tag);
  auto brokerName = ctx.args.get({"b", "broker"});
  int32_t queueId = static_cast<int32_t>(ctx.args.getInt({"i", "qid"}, -1));
  if (brokerName.has_value() != (queueId >= 0)) ctx.usageError("-b and -i go together");
  if (ctx.badUsage()) return 2;
  client::ProducerOptions po;
  po.group = "PID_RMQADMIN_SEND";
  po.client = toolClientConfig(ctx);
  client::Producer producer(po);
  if (auto r = producer.start(); !r) return ctx.fail(r.error());
  auto sent = brokerName ? producer.send(msg, client::MessageQueue{msg.topic, *brokerName, queueId})
                         : producer.send(msg);
  producer.shutdown();
  if (!sent) return ctx.fail(sent.error());
  auto& t = ctx.report.table("result", {"#Broker Name", "#QID", "#Send Result", "#MsgId", "#OffsetMsgId", "#Queue Offset"});
  t.add({sent->queue.brokerName, sent->queue.queueId, client::sendStatusName(sent->status), sent->msgId,
         sent->offsetMsgId, sent->queueOffset});
  return 0;
}

// mqadmin checkMsgSendRT: `amount` sends of a `size`-byte body, queue i % queues for send i; the
// average RT leaves out the first send (route lookup, connection).
int checkMsgSendRT(VerbContext& ctx) {
  Message msg;
  msg.topic = ctx.required({"t", "topic"});
  int64_t amount = ctx.args.getInt({"a", "amount"}, 100);
  int64_t size = ctx.args.getInt({"s", "size"}, 128);
  if (amount < 1) ctx.usageError("-a must be at least 1");
  if (size < 0) ctx.usageError("-s must not be negative");
  if (ctx.badUsage()) return 2;
  msg.body.assign(static_cast<size_t>(size), 'a');
  client::ProducerOptions po;
  po.group = "PID_RMQADMIN_SEND";
  po.client = toolClientConfig(ctx);
  client::Producer producer(po);
  if (auto r = producer.start(); !r) return ctx.fail(r.error());
  auto& t = ctx.report.table("sends", {"#Broker Name", "#QID", "#Send Result", "#RT"});
  int64_t elapsed = 0;
  client::MessageQueue picked;
  auto selector = [&picked](const std::vector<client::MessageQueue>& mqs, const Message&, int64_t arg) {
    picked = mqs[static_cast<size_t>(arg) % mqs.size()];
    return picked;
  };
  for (int64_t i = 0; i < amount; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto sent = producer.send(msg, selector, i);
    int64_t rt = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    if (i != 0) elapsed += rt;
    t.add({picked.brokerName, picked.queueId, sent.ok() ? "true" : "false", rt});
  }
  producer.shutdown();
  ctx.report.line(fmt::format("Avg RT: {:.2f}", amount > 1 ? static_cast<double>(elapsed) / static_cast<double>(amount - 1) : 0.0));
  return 0;
}

// Called with each message read and the queue it came from (its broker name is not in the record).
using EachMessage = std::function<void(const client::MessageQueue&, const MessageExt&)>;

// Pulls [from, to) of one queue in batches, calling `each` until `limit` messages were seen.
// Returns the number seen, or the pull error.
Result<int64_t> pullRange(client::PullConsumer& c, const client::MessageQueue& mq, const std::string& expr, int64_t from,
                          int64_t to, int64_t limit, const EachMessage& each) {
  int64_t seen = 0;
  for (int64_t offset = from; offset < to && seen < limit;) {
    auto r = c.pull(mq, expr, offset, 32);
    if (!r) return r.error();
    if (r->status == client::PullStatus::OFFSET_ILLEGAL || r->nextBeginOffset <= offset) break;
    for (auto& m : r->messages) {
      if (m.queueOffset >= to || seen >= limit) break;
      each(mq, m);
      ++seen;
    }
    offset = r->nextBeginOffset;
  }
  return seen;
}

struct RangeOptions {
  std::string topic, expr = "*";
  std::optional<int64_t> beginMs, endMs;
  int64_t limit = INT64_MAX;
};

// Every queue of the topic (or the one given by -b/-i), from the offset at beginMs (or min, or -o)
// to the offset at endMs (or max).
int readRange(VerbContext& ctx, const RangeOptions& o, std::optional<client::MessageQueue> only,
              std::optional<int64_t> startOffset, const EachMessage& each) {
  client::PullConsumerOptions po;
  po.group = ctx.args.get({"g", "consumerGroup"}, "TOOLS_CONSUMER");
  po.client = toolClientConfig(ctx);
  client::PullConsumer consumer(po);
  if (auto r = consumer.start(); !r) return ctx.fail(r.error());
  std::vector<client::MessageQueue> queues;
  if (only) {
    queues.push_back(*only);
  } else {
    auto qs = consumer.fetchSubscribeMessageQueues(o.topic);
    if (!qs) return ctx.fail(qs.error());
    queues = std::move(*qs);
  }
  int64_t remaining = o.limit;
  for (auto& mq : queues) {
    auto from = startOffset ? Result<int64_t>(*startOffset)
                            : o.beginMs ? consumer.searchOffset(mq, *o.beginMs) : consumer.minOffset(mq);
    auto to = o.endMs ? consumer.searchOffset(mq, *o.endMs) : consumer.maxOffset(mq);
    if (!from || !to) return ctx.fail(!from ? from.error() : to.error());
    auto seen = pullRange(consumer, mq, o.expr, *from, *to, remaining, each);
    if (!seen) return ctx.fail(seen.error());
    remaining -= *seen;
    if (remaining <= 0) break;
  }
  consumer.shutdown();
  return 0;
}

bool timestampOption(VerbContext& ctx, std::initializer_list<std::string> names, std::optional<int64_t>& out) {
  auto v = ctx.args.get(names);
  if (!v) return true;
  out = parseTimestamp(*v);
  if (!out) ctx.usageError(fmt::format("-{} expects epoch millis or yyyy-MM-dd#HH:mm:ss:SSS", *names.begin()));
  return out.has_value();
}

int consumeMessage(VerbContext& ctx) {
  RangeOptions o;
  o.topic = ctx.required({"t", "topic"});
  auto brokerName = ctx.args.get({"b", "brokerName"});
  int32_t queueId = static_cast<int32_t>(ctx.args.getInt({"i", "queueId"}, -1));
  int64_t offset = ctx.args.getInt({"o", "offset"}, -1);
  o.limit = ctx.args.getInt({"c", "MessageNumber"}, 128);
  timestampOption(ctx, {"s", "beginTimestamp"}, o.beginMs);
  timestampOption(ctx, {"e", "endTimestamp"}, o.endMs);
  if (brokerName.has_value() != (queueId >= 0)) ctx.usageError("-b and -i go together");
  if (offset >= 0 && !brokerName) ctx.usageError("-o needs -b and -i");
  if (ctx.badUsage()) return 2;
  std::optional<client::MessageQueue> only;
  if (brokerName) only = client::MessageQueue{o.topic, *brokerName, queueId};
  auto& t = ctx.report.table("messages", {"#Broker Name", "#QID", "#Offset", "#MsgId", "#Tags", "#Keys", "#StoreTime", "#Body"});
  std::optional<int64_t> start;
  if (offset >= 0) start = offset;
  return readRange(ctx, o, only, start, [&](const client::MessageQueue& mq, const MessageExt& m) {
    std::string uniq = client::uniqKey(m);
    t.add({mq.brokerName, m.queueId, m.queueOffset, uniq.empty() ? m.offsetMsgId() : uniq, m.tags(),
           m.keys(), formatTimestamp(m.storeTimestamp), bodyText(m.body, 120)});
  });
}

int printMsg(VerbContext& ctx) {
  RangeOptions o;
  o.topic = ctx.required({"t", "topic"});
  o.expr = ctx.args.get({"s", "subExpression"}, "*");
  timestampOption(ctx, {"b", "beginTimestamp"}, o.beginMs);
  timestampOption(ctx, {"e", "endTimestamp"}, o.endMs);
  bool withBody = boolOption(ctx, {"d", "printBody"}, true);
  if (ctx.badUsage()) return 2;
  auto& t = ctx.report.table("messages", {"#MSGID", "#QID", "#Offset", "#Tags", "#Keys", "#StoreTime", "#BODY"});
  return readRange(ctx, o, std::nullopt, std::nullopt, [&](const client::MessageQueue&, const MessageExt& m) {
    std::string uniq = client::uniqKey(m);
    t.add({uniq.empty() ? m.offsetMsgId() : uniq, m.queueId, m.queueOffset, m.tags(), m.keys(),
           formatTimestamp(m.storeTimestamp), withBody ? bodyText(m.body, 200) : std::string()});
  });
}

// mqadmin printMsgByQueue: one queue from min (or -b time) to max (or -e time); -p prints the
// messages, -f counts them by tag (most frequent first).
int printMsgByQueue(VerbContext& ctx) {
  RangeOptions o;
  o.topic = ctx.required({"t", "topic"});
  client::MessageQueue mq{o.topic, ctx.required({"a", "brokerName"}), static_cast<int32_t>(ctx.args.getInt({"i", "queueId"}, -1))};
  if (mq.queueId < 0) ctx.usageError("missing option -i (queue id)");
  o.expr = ctx.args.get({"s", "subExpression"}, "*");
  timestampOption(ctx, {"b", "beginTimestamp"}, o.beginMs);
  timestampOption(ctx, {"e", "endTimestamp"}, o.endMs);
  bool printMessages = boolOption(ctx, {"p", "printMsg"}, false);
  bool withBody = boolOption(ctx, {"d", "printBody"}, false);
  bool byTag = boolOption(ctx, {"f", "calculate"}, false);
  if (ctx.badUsage()) return 2;
  std::map<std::string, int64_t> tagCounts;
  Table* msgs = printMessages ? &ctx.report.table("messages", {"#MSGID", "#Offset", "#Tags", "#Keys", "#StoreTime", "#BODY"})
                              : nullptr;
  int64_t total = 0;
  int rc = readRange(ctx, o, mq, std::nullopt, [&](const client::MessageQueue&, const MessageExt& m) {
    ++total;
    if (byTag) ++tagCounts[m.tags()];
    if (!msgs) return;
    std::string uniq = client::uniqKey(m);
    msgs->add({uniq.empty() ? m.offsetMsgId() : uniq, m.queueOffset, m.tags(), m.keys(), formatTimestamp(m.storeTimestamp),
               withBody ? bodyText(m.body, 200) : std::string("NOT PRINT BODY")});
  });
  if (rc != 0) return rc;
  if (byTag) {
    std::vector<std::pair<std::string, int64_t>> sorted(tagCounts.begin(), tagCounts.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second > b.second; });
    auto& t = ctx.report.table("tags", {"#Tag", "#Count"});
    for (auto& [tag, n] : sorted) t.add({tag, n});
  }
  ctx.report.line(fmt::format("Total: {}", total));
  return 0;
}

constexpr auto kInt = ValueKind::Integer;
constexpr auto kBool = ValueKind::Boolean;
const OptionSpec kTopic{"-t, --topic <topic>", "topic (required)"};

VerbRegistrar r1({"queryMsgById", "Query Message by Id (offset msgId, or UNIQ_KEY with -t)",
                  {{"-i, --msgId <id>", "message id (required)"}, {"-t, --topic <topic>", "topic, to look up a UNIQ_KEY"},
                   {"-g, --consumerGroup <group>", "push the message to a consumer of this group (with -d)"},
                   {"-d, --clientId <id>", "the consumer's client id (with -g)"}},
                  &queryMsgById});
VerbRegistrar r1r({"resumeCheckHalfMessage", "Check a transaction message again from a check count of 0",
                   {{"-i, --msgId <id>", "offset message id of the half (or discarded) message (required)"}},
                   &resumeCheckHalfMessage});
VerbRegistrar r1u({"queryMsgByUniqueKey", "Query Message by Unique key",
                   {{"-i, --msgId <key>", "UNIQ_KEY (required)"}, kTopic,
                    {"-g, --consumerGroup <group>", "push the message to a consumer of this group (with -d)"},
                    {"-d, --clientId <id>", "the consumer's client id (with -g)"},
                    {"-a, --showAll <bool>", "print every message with this key (default false)", kBool}},
                   &queryMsgByUniqueKey});
VerbRegistrar r2({"queryMsgByKey", "Query Message by Key",
                  {kTopic, {"-k, --msgKey <key>", "message key (required)"},
                   {"-b, --beginTimestamp <ms>", "default 0", kInt}, {"-e, --endTimestamp <ms>", "default now", kInt},
                   {"-c, --maxNum <n>", "at most n (default 64)", kInt}},
                  &queryMsgByKey});
VerbRegistrar r3({"queryMsgByOffset", "Query Message by offset",
                  {kTopic, {"-b, --brokerName <name>", "broker name (required)"},
                   {"-i, --queueId <id>", "queue id (required)", kInt}, {"-o, --offset <n>", "queue offset (required)", kInt}},
                  &queryMsgByOffset});
VerbRegistrar r4({"sendMessage", "Send a message",
                  {kTopic, {"-p, --body <text>", "message body (required)"},
                   {"-k, --key <keys>", "message keys"}, {"-c, --tags <tag>", "message tag"},
                   {"-b, --broker <name>", "send to this broker (with -i)"}, {"-i, --qid <id>", "queue id (with -b)", kInt}},
                  &sendMessage});
VerbRegistrar r5({"consumeMessage", "Consume message (pull and print, offsets not committed)",
                  {kTopic, {"-b, --brokerName <name>", "one queue: broker"},
                   {"-i, --queueId <id>", "one queue: id", kInt}, {"-o, --offset <n>", "start offset (with -b/-i)", kInt},
                   {"-g, --consumerGroup <group>", "default TOOLS_CONSUMER"},
                   {"-s, --beginTimestamp <when>", "from this store time"}, {"-e, --endTimestamp <when>", "to this store time"},
                   {"-c, --MessageNumber <n>", "at most n (default 128)", kInt}},
                  &consumeMessage});
VerbRegistrar r7({"checkMsgSendRT", "check message send response time",
                  {kTopic, {"-a, --amount <n>", "message amount (default 100)", kInt},
                   {"-s, --size <bytes>", "message size (default 128)", kInt}},
                  &checkMsgSendRT});
VerbRegistrar r8({"printMsgByQueue", "print Message Detail of one queue",
                  {kTopic, {"-a, --brokerName <name>", "broker name (required)"},
                   {"-i, --queueId <id>", "queue id (required)", kInt},
                   {"-s, --subExpression <expr>", "tag expression (default *)"},
                   {"-b, --beginTimestamp <when>", "from this store time"}, {"-e, --endTimestamp <when>", "to this store time"},
                   {"-p, --printMsg <bool>", "print the messages (default false)", kBool},
                   {"-d, --printBody <bool>", "print bodies (default false)", kBool},
                   {"-f, --calculate <bool>", "count by tag (default false)", kBool}},
                  &printMsgByQueue});
VerbRegistrar r6({"printMsg", "Print Message Detail",
                  {kTopic, {"-s, --subExpression <expr>", "tag expression (default *)"},
                   {"-b, --beginTimestamp <when>", "from this store time"}, {"-e, --endTimestamp <when>", "to this store time"},
                   {"-d, --printBody <bool>", "print bodies (default true)", kBool}},
                  &printMsg});

}  // namespace
}  // namespace rmq::admin
