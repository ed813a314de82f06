#pragma once
// Shared by the message verbs: CONSUME_MESSAGE_DIRECTLY of one message to one consumer, printed as
// mqadmin prints ConsumeMessageDirectlyResult (queryMsgById / queryMsgByUniqueKey with -g -d).
#include <string>

#include "tools/rmqadmin/verb.h"

namespace rmq::admin {

int pushMessageToConsumer(VerbContext& ctx, const std::string& group, const std::string& clientId,
                          const std::string& topic, const std::string& msgId);

}  // namespace rmq::admin
