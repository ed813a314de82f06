#pragma once
// Shared with the message and monitor verbs: the subscriptions of a consumer's running info, and
// CONSUME_MESSAGE_DIRECTLY of one message to one consumer, printed as mqadmin prints
// ConsumeMessageDirectlyResult (queryMsgById / queryMsgByUniqueKey with -g -d).
#include <rapidjson/document.h>

#include <set>
#include <string>

#include "tools/rmqadmin/verb.h"

namespace rmq::admin {

// The subscriptions of a ConsumerRunningInfo (JSON) as "topic@expression" strings, sorted.
std::set<std::string> subscriptionsOf(const rapidjson::Document& runningInfo);

int pushMessageToConsumer(VerbContext& ctx, const std::string& group, const std::string& clientId,
                          const std::string& topic, const std::string& msgId);

}  // namespace rmq::admin
