#pragma once
// What the MessagingService needs from the broker, as functions: the controller fills them from
// BrokerContext (broker_messaging.cpp), unit tests with fakes (test/unit/broker/grpc_*). Every
// function may be called on any network thread.
#include <asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "apache/rocketmq/v2/definition.pb.h"
#include "client/route.h"
#include "common/message.h"
#include "common/result.h"
#include "roles/broker/processors/request_header.h"
#include "roles/broker/pop/pop_service.h"
#include "roles/broker/processors/send_processor.h"
#include "roles/broker/transaction/transactional_message_service.h"

namespace rmq::broker {
class ClientManager;
}

namespace rmq::broker::messaging {

// A topic as this broker's topic table has it.
struct LocalTopic {
  std::string messageType;  // the `message.type` attribute ("" = none: NORMAL)
  int32_t writeQueueNums = 0;
};

// A consumer group's settings the Telemetry answer carries.
struct GroupSettings {
  bool orderly = false;        // consumeMessageOrderly -> subscription.fifo
  int32_t retryMaxTimes = 16;  // -> backoff_policy.max_attempts = retryMaxTimes + 1
};

// The broker's POP engine (pop/pop_service.h) as functions: ReceiveMessage, AckMessage,
// ChangeInvisibleDuration and ForwardMessageToDeadLetterQueue. Unset (unit tests of other RPCs, a
// broker without POP) = the consumer RPCs answer INTERNAL_SERVER_ERROR "POP is not available".
struct PopDeps {
  std::function<asio::awaitable<Result<pop::PopResult>>(pop::PopRequest)> pop;
  std::function<asio::awaitable<Result<void>>(std::string group, std::string topic, std::string handle)> ack;
  std::function<asio::awaitable<Result<std::string>>(std::string group, std::string topic, std::string handle,
                                                     int64_t invisibleMs)> changeInvisible;
  std::function<asio::awaitable<Result<void>>(std::string group, std::string topic, std::string handle)> toDeadLetter;
};

struct MessagingDeps {
  std::function<int32_t()> maxMessageSize;  // the broker's maxMessageSize (read per call: config may change)
  std::string clusterName, brokerName;
  // GET_ROUTEINFO_BY_TOPIC through the name servers; an Error with code TOPIC_NOT_EXIST when none has it.
  std::function<asio::awaitable<Result<client::TopicRouteData>>(std::string topic)> queryRoute;
  // The gRPC port the broker at remoting address `addr` serves; 0 when it serves none (or is unreachable).
  std::function<asio::awaitable<int>(std::string addr)> grpcPortOf;
  std::function<std::optional<LocalTopic>(std::string_view topic)> localTopic;
  std::function<std::optional<GroupSettings>(std::string_view group)> group;
  // A 5.x consumer of `group` sent its Settings: as a 4.x heartbeat, the group is found or
  // auto-created and its %RETRY% topic made (admin tools find a group's brokers by that route).
  std::function<void(const std::string& group)> consumerJoined;
  // The broker's put path (SendProcessor::put). `body` is not copied: it must stay valid until the
  // returned awaitable completes (the request message it points into outlives the call).
  std::function<asio::awaitable<SendProcessor::PutOutcome>(SendHeader h, std::string_view body, HostAddress born)> put;
  std::function<TransactionalMessageService::EndResult(const EndTransactionHeader&)> endTransaction;
  PopDeps pop;
  ClientManager* clients = nullptr;  // 5.x producers are listed here (admin views, transaction checks)
};

}  // namespace rmq::broker::messaging
