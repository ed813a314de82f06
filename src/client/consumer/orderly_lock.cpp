#include "client/consumer/orderly_lock.h"

#include <chrono>

#include "client/request_headers.h"
#include "common/json.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

namespace {

constexpr std::chrono::milliseconds kLockTimeout{1000};  // Java uses 1000 ms for both calls

asio::awaitable<Result<net::RemotingCommand>> lockCall(ClientInstance& inst, int code, const std::string& brokerName,
                                                       const std::string& group, const std::vector<MessageQueue>& mqs) {
  auto addr = inst.masterAddr(brokerName);
  if (!addr) {
    if (!mqs.empty()) co_await inst.route(mqs.front().topic, true);
    addr = inst.masterAddr(brokerName);
  }
  if (!addr) co_return makeError(ResponseCode::SYSTEM_ERROR, "no master of " + brokerName);
  auto cmd = net::RemotingCommand::request(code);
  cmd.body = encodeLockBody(group, inst.clientId(), mqs);
  auto resp = co_await inst.invoke(*addr, std::move(cmd), kLockTimeout);
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  co_return std::move(*resp);
}

}  // namespace

std::string encodeLockBody(const std::string& group, const std::string& clientId, const std::vector<MessageQueue>& mqs) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("clientId"); w.String(clientId.c_str(), static_cast<rapidjson::SizeType>(clientId.size()));
  w.Key("consumerGroup"); w.String(group.c_str(), static_cast<rapidjson::SizeType>(group.size()));
  w.Key("mqSet"); w.StartArray();
  for (const auto& mq : mqs) {
    w.StartObject();
    w.Key("brokerName"); w.String(mq.brokerName.c_str(), static_cast<rapidjson::SizeType>(mq.brokerName.size()));
    w.Key("queueId"); w.Int(mq.queueId);
    w.Key("topic"); w.String(mq.topic.c_str(), static_cast<rapidjson::SizeType>(mq.topic.size()));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<std::vector<MessageQueue>> decodeLockedSet(std::string_view body) {
  std::vector<MessageQueue> out;
  if (body.empty()) return out;
  rapidjson::Document doc;
  if (auto r = json::parse(body, doc); !r) return r.error();
  if (!doc.IsObject()) return makeError(ResponseCode::SYSTEM_ERROR, "lock answer is not an object");
  auto set = doc.FindMember("lockOKMQSet");
  if (set == doc.MemberEnd() || !set->value.IsArray()) return out;
  for (const auto& v : set->value.GetArray()) {
    if (!v.IsObject()) continue;
    MessageQueue mq;
    mq.topic = std::string(json::getString(v, "topic").value_or(""));
    mq.brokerName = std::string(json::getString(v, "brokerName").value_or(""));
    mq.queueId = static_cast<int32_t>(json::getInt64(v, "queueId").value_or(0));
    out.push_back(std::move(mq));
  }
  return out;
}

asio::awaitable<Result<std::vector<MessageQueue>>> lockBatchMQ(ClientInstance& inst, const std::string& brokerName,
                                                               const std::string& group,
                                                               const std::vector<MessageQueue>& mqs) {
  auto resp = co_await lockCall(inst, RequestCode::LOCK_BATCH_MQ, brokerName, group, mqs);
  if (!resp) co_return resp.error();
  co_return decodeLockedSet(resp->body);
}

asio::awaitable<Result<void>> unlockBatchMQ(ClientInstance& inst, const std::string& brokerName,
                                            const std::string& group, const std::vector<MessageQueue>& mqs) {
  auto resp = co_await lockCall(inst, RequestCode::UNLOCK_BATCH_MQ, brokerName, group, mqs);
  if (!resp) co_return resp.error();
  co_return Result<void>{};
}

}  // namespace rmq::client
