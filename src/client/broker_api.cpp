#include "client/broker_api.h"

#include <random>

#include "common/json.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

namespace {

Error brokerNotExist(const MessageQueue& mq) {
  return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "The broker[" + mq.brokerName + "] not exist");
}

}  // namespace

asio::awaitable<Result<std::string>> findOffsetBrokerAddr(ClientInstance& inst, const MessageQueue& mq) {
  auto found = inst.findBrokerAddressInSubscribe(mq.brokerName, kMasterId, true);
  if (!found) {
    co_await inst.route(mq.topic, true);
    found = inst.findBrokerAddressInSubscribe(mq.brokerName, kMasterId, false);
  }
  if (!found) co_return brokerNotExist(mq);
  co_return found->addr;
}

namespace {

// Sends cmd to mq's master, else (master gone from the route) to its slave.
asio::awaitable<Result<net::RemotingCommand>> call(ClientInstance& inst, const MessageQueue& mq, net::RemotingCommand cmd) {
  auto addr = co_await findOffsetBrokerAddr(inst, mq);
  if (!addr) co_return addr.error();
  if (!mq.brokerName.empty()) cmd.extFields.set("bname", mq.brokerName);
  co_return co_await inst.invoke(*addr, std::move(cmd), inst.config().rpcTimeout);
}

asio::awaitable<Result<int64_t>> offsetFrom(ClientInstance& inst, const MessageQueue& mq, net::RemotingCommand cmd,
                                            const char* key) {
  auto resp = co_await call(inst, mq, std::move(cmd));
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  auto v = resp->extFields.getInt(key);
  if (!v) co_return makeError(ResponseCode::SYSTEM_ERROR, std::string("response without ") + key);
  co_return *v;
}

}  // namespace

asio::awaitable<Result<int64_t>> queryConsumerOffset(ClientInstance& inst, const std::string& group, const MessageQueue& mq) {
  auto resp = co_await call(inst, mq, makeQueryConsumerOffset(group, mq.topic, mq.queueId));
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return int64_t{-1};
  co_return resp->extFields.getInt("offset").value_or(-1);
}

asio::awaitable<Result<void>> updateConsumerOffset(ClientInstance& inst, const std::string& group, const MessageQueue& mq,
                                                   int64_t offset, bool oneway) {
  auto cmd = makeUpdateConsumerOffset(group, mq.topic, mq.queueId, offset);
  if (oneway) {
    auto addr = co_await findOffsetBrokerAddr(inst, mq);
    if (!addr) co_return addr.error();
    cmd.extFields.set("bname", mq.brokerName);
    const std::chrono::milliseconds timeout(5000);  // Java updateConsumerOffsetOneway's
    co_return co_await inst.remoting().invokeOneway(*addr, std::move(cmd), timeout);
  }
  auto resp = co_await call(inst, mq, std::move(cmd));
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  co_return Result<void>{};
}

asio::awaitable<Result<int64_t>> queueOffsetQuery(ClientInstance& inst, int code, const MessageQueue& mq) {
  const char* key = code == RequestCode::GET_EARLIEST_MSG_STORETIME ? "timestamp" : "offset";
  co_return co_await offsetFrom(inst, mq, makeQueueOffsetRequest(code, mq.topic, mq.queueId), key);
}

asio::awaitable<Result<int64_t>> searchOffset(ClientInstance& inst, const MessageQueue& mq, int64_t timestampMs) {
  auto cmd = makeSearchOffset(mq.topic, mq.queueId, timestampMs);
  co_return co_await offsetFrom(inst, mq, std::move(cmd), "offset");
}

asio::awaitable<Result<std::vector<std::string>>> consumerIdList(ClientInstance& inst, const std::string& group,
                                                                 const std::string& topic) {
  auto route = co_await inst.route(topic);
  if (!route) co_return route.error();
  std::vector<std::string> addrs;  // Java findBrokerAddrByTopic: a random broker, master or else a slave
  for (const auto& b : route->brokerDatas)
    if (auto* a = b.selectAddr()) addrs.push_back(*a);
  if (addrs.empty()) co_return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "no broker hosts topic " + topic);
  static thread_local std::mt19937 rng{std::random_device{}()};
  const std::string& addr = addrs[rng() % addrs.size()];
  auto resp = co_await inst.invoke(addr, makeConsumerListRequest(group), inst.config().rpcTimeout);
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  std::vector<std::string> ids;
  if (doc.IsObject() && doc.HasMember("consumerIdList") && doc["consumerIdList"].IsArray())
    for (auto& v : doc["consumerIdList"].GetArray())
      if (v.IsString()) ids.emplace_back(v.GetString());
  co_return ids;
}

asio::awaitable<Result<void>> sendMessageBack(ClientInstance& inst, const std::string& group, const MessageExt& msg,
                                              const std::string& brokerName, int delayLevel, int maxReconsumeTimes) {
  std::string addr = msg.storeHost.toString();  // Java sends to the store host of the message
  if (auto master = inst.masterAddr(brokerName)) addr = *master;
  auto* originId = msg.property(prop::UNIQ_KEY);
  auto cmd = makeSendBack(msg.commitLogOffset, group, delayLevel, originId ? *originId : msg.offsetMsgId(), msg.topic,
                          maxReconsumeTimes);
  cmd.extFields.set("bname", brokerName);
  const std::chrono::milliseconds timeout(5000);
  auto resp = co_await inst.invoke(addr, std::move(cmd), timeout);
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  co_return Result<void>{};
}

Result<PullResult> processPullResponse(const net::RemotingCommand& resp, const filter::Filter* recheck) {
  PullResult r;
  switch (resp.code) {
    case ResponseCode::SUCCESS: r.status = PullStatus::FOUND; break;
    case ResponseCode::PULL_NOT_FOUND: r.status = PullStatus::NO_NEW_MSG; break;
    case ResponseCode::PULL_RETRY_IMMEDIATELY: r.status = PullStatus::NO_MATCHED_MSG; break;
    case ResponseCode::PULL_OFFSET_MOVED: r.status = PullStatus::OFFSET_ILLEGAL; break;
    default: return responseError(resp);
  }
  r.nextBeginOffset = resp.extFields.getInt("nextBeginOffset").value_or(0);
  r.minOffset = resp.extFields.getInt("minOffset").value_or(0);
  r.maxOffset = resp.extFields.getInt("maxOffset").value_or(0);
  r.suggestWhichBrokerId = resp.extFields.getInt("suggestWhichBrokerId").value_or(0);
  if (r.status != PullStatus::FOUND) return r;
  auto msgs = decodeMessages(resp.body, true);
  if (!msgs) return msgs.error();
  r.messages.reserve(msgs->size());
  const std::string minText = std::to_string(r.minOffset), maxText = std::to_string(r.maxOffset);
  for (auto& m : msgs.value()) {
    if (recheck && recheck->type() == filter::ExpressionType::Tag && !recheck->matchAll() &&
        !recheck->matchesTags(m.tags()))
      continue;
    m.putProperty(prop::MIN_OFFSET, minText);
    m.putProperty(prop::MAX_OFFSET, maxText);
    r.messages.push_back(std::move(m));
  }
  return r;
}

asio::awaitable<Result<PullResult>> pullMessage(ClientInstance& inst, const std::string& addr, PullMessageHeader header,
                                                std::chrono::milliseconds timeout, const filter::Filter* recheck,
                                                InvokeMode mode) {
  auto resp = co_await inst.invoke(addr, makePullRequest(header), timeout, mode);
  if (!resp) co_return resp.error();
  co_return processPullResponse(*resp, recheck);
}

}  // namespace rmq::client
