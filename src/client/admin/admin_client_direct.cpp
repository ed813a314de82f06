// AdminClient: calls answered by one consumer, relayed by a broker (GET_CONSUMER_RUNNING_INFO,
// CONSUME_MESSAGE_DIRECTLY), as DefaultMQAdminExtImpl makes them.
#include "client/admin/admin_client.h"
#include "client/types.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

asio::awaitable<Result<std::string>> AdminClient::asyncConsumerRunningInfo(std::string group, std::string clientId,
                                                                            bool jstack) {
  const std::string retry = retryTopic(group);
  auto route = co_await instance_->route(retry, true);
  if (!route) co_return route.error();
  const std::string* addr = nullptr;
  for (const auto& b : route->brokerDatas)
    if ((addr = b.selectAddr())) break;
  if (!addr) co_return Error{ResponseCode::CONSUMER_NOT_ONLINE, "no broker serves %RETRY%" + group};
  auto cmd = net::RemotingCommand::request(RequestCode::GET_CONSUMER_RUNNING_INFO);
  cmd.extFields.set("consumerGroup", group);
  cmd.extFields.set("clientId", clientId);
  cmd.extFields.setBool("jstackEnable", jstack);
  auto resp = co_await callOk(*addr, std::move(cmd));
  if (!resp) co_return resp.error();
  co_return std::move(resp->body);
}

asio::awaitable<Result<std::string>> AdminClient::asyncConsumeMessageDirectly(std::string group, std::string clientId,
                                                                               std::string topic, std::string msgId) {
  // viewMessage(topic, msgId): an offset msgId first, else a UNIQ_KEY of the topic.
  auto msg = co_await asyncViewMessage(msgId);
  if (!msg && !topic.empty()) {
    auto found = co_await asyncQueryMessageByKey(topic, msgId, 32, 0, INT64_MAX, true);
    if (!found) co_return found.error();
    if (found->empty()) co_return Error{ResponseCode::NO_MESSAGE, "no message with id " + msgId + " in topic " + topic};
    msg = std::move(found->front());
  }
  if (!msg) co_return msg.error();
  auto cmd = net::RemotingCommand::request(RequestCode::CONSUME_MESSAGE_DIRECTLY);
  cmd.extFields.set("consumerGroup", group);
  cmd.extFields.set("clientId", clientId);
  cmd.extFields.set("msgId", msg->offsetMsgId());
  auto resp = co_await callOk(msg->storeHost.toString(), std::move(cmd));
  if (!resp) co_return resp.error();
  co_return std::move(resp->body);
}

}  // namespace rmq::client
