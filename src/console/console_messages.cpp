// /api/ handlers for messages: query by key, by id (offset msgId or UNIQ_KEY), by queue + offset; test send.
#include <climits>

#include "client/message_helpers.h"
#include "common/response_code.h"
#include "console/console_handlers.h"
#include "console/console_json.h"

namespace rmq::console {

using http::HttpRequest;
using http::HttpResponse;

asio::awaitable<HttpResponse> getMessagesByKey(Console::State& s, const HttpRequest& req) {
  auto topic = nonEmpty(req, "topic");
  auto key = nonEmpty(req, "key");
  if (!topic || !key) co_return badRequest("topic and key are required");
  auto begin = intField(req, "begin", 0);
  auto end = intField(req, "end", INT64_MAX);
  auto maxNum = intField(req, "maxNum", 64);
  if (!begin || !end || !maxNum || *maxNum < 1 || *maxNum > 1024)
    co_return badRequest("begin/end must be epoch milliseconds, maxNum 1..1024");
  auto msgs = co_await s.admin->asyncQueryMessageByKey(*topic, *key, static_cast<int>(*maxNum), *begin, *end);
  if (!msgs) co_return failure(msgs.error());
  co_return HttpResponse::json(messageListJson(*msgs));
}

asio::awaitable<HttpResponse> getMessageById(Console::State& s, const HttpRequest& req) {
  auto id = nonEmpty(req, "msgId");
  if (!id) co_return badRequest("msgId is required");
  std::string topic = field(req, "topic").value_or("");
  // An offset msgId names the broker and commit log offset; otherwise (or when that fails and a
  // topic is given) it is a UNIQ_KEY looked up in the topic's index, as queryMsgById does.
  auto m = co_await s.admin->asyncViewMessage(*id);
  if (!m && !topic.empty()) {
    auto found = co_await s.admin->asyncQueryMessageByKey(topic, *id, 32, 0, INT64_MAX, true);
    if (!found) co_return failure(found.error());
    if (found->empty()) co_return failure(Error{ResponseCode::NO_MESSAGE, "no message with id " + *id + " in topic " + topic});
    co_return HttpResponse::json(messageListJson(*found));
  }
  if (!m) co_return failure(m.error());
  std::vector<MessageExt> one{std::move(*m)};
  co_return HttpResponse::json(messageListJson(one));
}

asio::awaitable<HttpResponse> getMessageByOffset(Console::State& s, const HttpRequest& req) {
  auto topic = nonEmpty(req, "topic");
  auto broker = nonEmpty(req, "brokerName");
  auto queueId = intField(req, "queueId", -1);
  auto offset = intField(req, "offset", -1);
  if (!topic || !broker || !queueId || !offset || *queueId < 0 || *offset < 0)
    co_return badRequest("topic, brokerName, queueId and offset (integers >= 0) are required");
  client::MessageQueue mq{*topic, *broker, static_cast<int32_t>(*queueId)};
  auto m = co_await s.admin->asyncQueryMessageByOffset(mq, *offset);
  if (!m) co_return failure(m.error());
  co_return HttpResponse::json("{\"messages\":[" + messageJson(*m, *broker) + "]}");
}

asio::awaitable<HttpResponse> postMessage(Console::State& s, const HttpRequest& req) {
  auto topic = nonEmpty(req, "topic");
  if (!topic) co_return badRequest("topic is required");
  if (!s.producer) {
    client::ProducerOptions po;
    po.group = "CONSOLE_PRODUCER_GROUP";
    po.client.namesrvAddr = s.options.namesrvAddr;
    auto producer = std::make_unique<client::Producer>(po);
    if (auto r = producer->start(); !r) co_return failure(r.error());
    s.producer = std::move(producer);
  }
  Message msg;
  msg.topic = *topic;
  msg.body = field(req, "body").value_or("");
  if (msg.body.empty()) co_return badRequest("body is required");
  if (auto tags = nonEmpty(req, "tags")) client::setTags(msg, *tags);
  if (auto keys = nonEmpty(req, "keys")) client::setKeys(msg, *keys);
  auto send = s.producer->asyncSend(std::move(msg));
  auto sent = co_await runOn(s.producer->instance().io(), std::move(send));
  if (!sent) co_return failure(sent.error());
  co_return HttpResponse::json(sendResultJson(*sent));
}

}  // namespace rmq::console
