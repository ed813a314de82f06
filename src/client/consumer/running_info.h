#pragma once
// GET_CONSUMER_RUNNING_INFO (307) answers (Java ConsumerRunningInfo, JSON): properties, the queues
// in hand (mqTable), per-topic ConsumeStatus (statusTable), subscriptions, jstack. Push and pull
// consumers fill the parts they have (a pull consumer, as Java's DefaultMQPullConsumerImpl, only
// properties and subscriptions; MQClientInstance adds PROP_NAMESERVER_ADDR, PROP_CONSUME_TYPE and
// PROP_CLIENT_VERSION to both).
#include <string>
#include <utility>
#include <vector>

#include "client/client_instance.h"
#include "client/consumer/process_queue.h"
#include "common/json.h"

namespace rmq::client {

struct RunningInfoParts {
  std::vector<std::pair<std::string, std::string>> properties;
  std::string mqTableJson = "{}";      // {"<MessageQueue key>": ProcessQueueInfo, ...}
  std::string statusTableJson = "{}";  // {"<topic>": ConsumeStatus, ...}
  std::vector<std::string> subscriptionJsons;
  std::string jstack;  // a thread dump when one was asked for (the broker's 5.x channels fill it)
};

// PROP_NAMESERVER_ADDR ("a;b;"), PROP_CONSUME_TYPE and PROP_CLIENT_VERSION as MQClientInstance adds them.
void addInstanceProperties(RunningInfoParts& parts, const ClientInstance& instance, bool push);
std::string encodeRunningInfo(const RunningInfoParts& parts);
// One mqTable value: Java's ProcessQueueInfo, every field, as ProcessQueue.fillProcessQueueInfo fills it.
void writeProcessQueueInfo(json::Writer& w, const ProcessQueue& pq, int64_t commitOffset);

}  // namespace rmq::client
