#include "client/consumer/consume_directly.h"

#include <asio/co_spawn.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>

#include "common/json.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"

namespace rmq::client {
namespace {

constexpr const char* kResultNames[] = {"CR_SUCCESS", "CR_LATER", "CR_ROLLBACK", "CR_COMMIT", "CR_THROW_EXCEPTION",
                                        "CR_RETURN_NULL"};

int64_t steadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Runs on the consume pool: the listener with one message, timed, exceptions caught.
ConsumeDirectlyResult consumeOne(const MessageListener& concurrent, const OrderlyListener& orderly,
                                 std::vector<MessageExt> msgs, MessageQueue mq) {
  ConsumeDirectlyResult r;
  r.order = static_cast<bool>(orderly);
  int64_t begin = steadyMs();
  try {
    bool ok = orderly ? orderly(msgs, mq) == ConsumeOrderlyStatus::SUCCESS
                      : concurrent(msgs, mq) == ConsumeStatus::CONSUME_SUCCESS;
    r.consumeResult = ok ? DirectConsumeResult::CR_SUCCESS : DirectConsumeResult::CR_LATER;
  } catch (const std::exception& e) {
    r.consumeResult = DirectConsumeResult::CR_THROW_EXCEPTION;
    r.remark = e.what();
  }
  r.spentTimeMills = steadyMs() - begin;
  return r;
}

asio::awaitable<std::optional<net::RemotingCommand>> handle(std::string group, const MessageListener& concurrent,
                                                            const OrderlyListener& orderly, asio::thread_pool& pool,
                                                            net::RemotingCommand req) {
  std::string reqGroup(req.extFields.get("consumerGroup"));
  if (reqGroup != group || (!concurrent && !orderly)) {
    co_return net::RemotingCommand::response(
        ResponseCode::SYSTEM_ERROR, "The Consumer Group <" + reqGroup + "> not exist in this consumer");
  }
  auto msg = decodeMessage(req.body, true);
  if (!msg) co_return net::RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "bad message: " + msg.error().message);
  const std::string retry = retryTopic(group);
  if (auto* origin = msg->property(prop::RETRY_TOPIC); origin && msg->topic == retry) msg->topic = *origin;
  msg->putProperty(prop::CONSUME_START_TIME, std::to_string(nowMillis()));
  MessageQueue mq{msg->topic, std::string(req.extFields.get("brokerName")), msg->queueId};
  std::vector<MessageExt> msgs;
  msgs.push_back(std::move(*msg));
  log::info("consume message directly: group {} msgId {}", group, req.extFields.get("msgId"));
  auto task = [&concurrent, &orderly, msgs = std::move(msgs), mq]() mutable -> asio::awaitable<ConsumeDirectlyResult> {
    co_return consumeOne(concurrent, orderly, std::move(msgs), mq);
  };
  auto onPool = asio::co_spawn(pool.get_executor(), std::move(task), asio::use_awaitable);
  ConsumeDirectlyResult result = co_await std::move(onPool);
  auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
  std::string body = encodeConsumeDirectlyResult(result);
  resp.body = std::move(body);
  co_return resp;
}

}  // namespace

const char* directConsumeResultName(DirectConsumeResult r) { return kResultNames[static_cast<int>(r)]; }

std::string encodeConsumeDirectlyResult(const ConsumeDirectlyResult& r) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("autoCommit"); w.Bool(r.autoCommit);
  w.Key("consumeResult"); w.String(directConsumeResultName(r.consumeResult));
  w.Key("order"); w.Bool(r.order);
  if (!r.remark.empty()) { w.Key("remark"); w.String(r.remark.c_str(), static_cast<rapidjson::SizeType>(r.remark.size())); }
  w.Key("spentTimeMills"); w.Int64(r.spentTimeMills);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<ConsumeDirectlyResult> decodeConsumeDirectlyResult(std::string_view text) {
  rapidjson::Document doc;
  if (auto ok = json::parse(text, doc); !ok) return ok.error();
  if (!doc.IsObject()) return Error{ResponseCode::SYSTEM_ERROR, "ConsumeMessageDirectlyResult is not an object"};
  ConsumeDirectlyResult r;
  if (doc.HasMember("order") && doc["order"].IsBool()) r.order = doc["order"].GetBool();
  if (doc.HasMember("autoCommit") && doc["autoCommit"].IsBool()) r.autoCommit = doc["autoCommit"].GetBool();
  if (doc.HasMember("remark") && doc["remark"].IsString()) r.remark = doc["remark"].GetString();
  if (doc.HasMember("spentTimeMills") && doc["spentTimeMills"].IsInt64()) r.spentTimeMills = doc["spentTimeMills"].GetInt64();
  if (doc.HasMember("consumeResult") && doc["consumeResult"].IsString()) {
    std::string_view name = doc["consumeResult"].GetString();
    for (int i = 0; i < 6; ++i) {
      if (name == kResultNames[i]) r.consumeResult = static_cast<DirectConsumeResult>(i);
    }
  }
  return r;
}

std::string toString(const ConsumeDirectlyResult& r) {
  return "ConsumeMessageDirectlyResult [order=" + std::string(r.order ? "true" : "false") +
         ", autoCommit=" + (r.autoCommit ? "true" : "false") + ", consumeResult=" +
         directConsumeResultName(r.consumeResult) + ", remark=" + (r.remark.empty() ? "null" : r.remark) +
         ", spentTimeMills=" + std::to_string(r.spentTimeMills) + "]";
}

void registerConsumeDirectly(net::Dispatcher& dispatcher, std::string group, const MessageListener& concurrent,
                             const OrderlyListener& orderly, asio::thread_pool& pool) {
  dispatcher.registerProcessor(
      RequestCode::CONSUME_MESSAGE_DIRECTLY,
      [group = std::move(group), &concurrent, &orderly, &pool](net::ConnectionPtr, net::RemotingCommand req) {
        return handle(group, concurrent, orderly, pool, std::move(req));
      });
}

}  // namespace rmq::client
