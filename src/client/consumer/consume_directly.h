#pragma once
// CONSUME_MESSAGE_DIRECTLY (309) on the consumer side (Java ClientRemotingProcessor
// .consumeMessageDirectly + ConsumeMessage{Concurrently,Orderly}Service.consumeMessageDirectly): the broker
// forwards a stored message (body = the message record) that an admin tool pushes to this client;
// it is handed to the listener once, outside any queue (no offset, no retry), and the answer is a
// ConsumeMessageDirectlyResult JSON body. The listener runs on `pool`, never on the io thread.
#include <asio/thread_pool.hpp>
#include <functional>
#include <string>
#include <vector>

#include "client/consumer/push_consumer.h"
#include "client/types.h"
#include "common/message.h"
#include "net/dispatcher.h"

namespace rmq::client {

// Java CMResult names.
enum class DirectConsumeResult { CR_SUCCESS, CR_LATER, CR_ROLLBACK, CR_COMMIT, CR_THROW_EXCEPTION, CR_RETURN_NULL };
const char* directConsumeResultName(DirectConsumeResult r);

struct ConsumeDirectlyResult {  // Java ConsumeMessageDirectlyResult
  bool order = false;
  bool autoCommit = true;
  DirectConsumeResult consumeResult = DirectConsumeResult::CR_SUCCESS;
  std::string remark;  // empty = null
  int64_t spentTimeMills = 0;
};
std::string encodeConsumeDirectlyResult(const ConsumeDirectlyResult& r);
Result<ConsumeDirectlyResult> decodeConsumeDirectlyResult(std::string_view json);
// mqadmin's text: "ConsumeMessageDirectlyResult [order=false, autoCommit=true, consumeResult=..., ...]".
std::string toString(const ConsumeDirectlyResult& r);

// Registers the 309 handler for consumer `group`: the orderly listener answers when set (order=true),
// else the concurrent one. Both listeners and `pool` must outlive the dispatcher's use.
void registerConsumeDirectly(net::Dispatcher& dispatcher, std::string group, const MessageListener& concurrent,
                             const OrderlyListener& orderly, asio::thread_pool& pool);

}  // namespace rmq::client
