#include "roles/broker/processors/offset_processor.h"

#include <unistd.h>

#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/processors/request_header.h"
#include "store/message_store.h"

namespace rmq::broker {

using net::RemotingCommand;

void OffsetProcessor::registerTo(BrokerContext& ctx) {
  auto h = [this](net::ConnectionPtr c, RemotingCommand r) { return handle(std::move(c), std::move(r)); };
  for (int code : {RequestCode::QUERY_CONSUMER_OFFSET, RequestCode::UPDATE_CONSUMER_OFFSET,
                   RequestCode::SEARCH_OFFSET_BY_TIMESTAMP, RequestCode::GET_MAX_OFFSET, RequestCode::GET_MIN_OFFSET,
                   RequestCode::GET_EARLIEST_MSG_STORETIME})
    ctx.registerProcessor(code, h);
}

asio::awaitable<std::optional<RemotingCommand>> OffsetProcessor::handle(net::ConnectionPtr, RemotingCommand req) {
  co_return process(req);
}

RemotingCommand OffsetProcessor::process(const RemotingCommand& req) {
  switch (req.code) {
    case RequestCode::QUERY_CONSUMER_OFFSET: return queryConsumerOffset(req);
    case RequestCode::UPDATE_CONSUMER_OFFSET: return updateConsumerOffset(req);
    default: return queuePosition(req);
  }
}

bool OffsetProcessor::offsetZeroIsCold(const std::string& topic, int32_t queueId) const {
  int64_t phy = ctx_.store.commitLogOffsetInQueue(topic, queueId, 0);
  if (phy < 0) return false;
  static const int64_t ram = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  int64_t memoryWindow = ram / 100 * ctx_.storeConfig.accessMessageInMemoryMaxRatio;
  return ctx_.store.maxPhyOffset() - phy > memoryWindow;
}

RemotingCommand OffsetProcessor::queryConsumerOffset(const RemotingCommand& req) {
  HeaderReader r(req.extFields);
  std::string group = r.str("consumerGroup"), topic = r.str("topic");
  int32_t queueId = r.i32("queueId");
  if (!r.ok()) return RemotingCommand::response(r.error().code, r.error().message);
  int64_t offset = ctx_.offsets.queryOffset(group, topic, queueId);
  if (offset < 0) {
    // A new group on a queue that still starts at 0 (and is hot) consumes from 0 (§8.6).
    if (ctx_.store.minOffsetInQueue(topic, queueId) <= 0 && !offsetZeroIsCold(topic, queueId)) {
      offset = 0;
    } else {
      return RemotingCommand::response(ResponseCode::QUERY_NOT_FOUND, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first");
    }
  }
  auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
  resp.extFields.set("offset", offset);
  return resp;
}

RemotingCommand OffsetProcessor::updateConsumerOffset(const RemotingCommand& req) {
  HeaderReader r(req.extFields);
  std::string group = r.str("consumerGroup"), topic = r.str("topic");
  int32_t queueId = r.i32("queueId");
  int64_t offset = r.i64("commitOffset");
  if (!r.ok()) return RemotingCommand::response(r.error().code, r.error().message);
  ctx_.offsets.commitOffset(group, topic, queueId, offset);  // no validation, -1 included (§8.6)
  return RemotingCommand::response(ResponseCode::SUCCESS);
}

RemotingCommand OffsetProcessor::queuePosition(const RemotingCommand& req) {
  HeaderReader r(req.extFields);
  std::string topic = r.str("topic");
  int32_t queueId = r.i32("queueId");
  int64_t timestamp = req.code == RequestCode::SEARCH_OFFSET_BY_TIMESTAMP ? r.i64("timestamp") : 0;
  if (!r.ok()) return RemotingCommand::response(r.error().code, r.error().message);
  auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
  switch (req.code) {
    case RequestCode::GET_MAX_OFFSET: resp.extFields.set("offset", ctx_.store.maxOffsetInQueue(topic, queueId)); break;
    case RequestCode::GET_MIN_OFFSET: resp.extFields.set("offset", ctx_.store.minOffsetInQueue(topic, queueId)); break;
    case RequestCode::SEARCH_OFFSET_BY_TIMESTAMP:
      resp.extFields.set("offset", ctx_.store.offsetInQueueByTime(topic, queueId, timestamp));
      break;
    case RequestCode::GET_EARLIEST_MSG_STORETIME:
      resp.extFields.set("timestamp", ctx_.store.earliestMessageTime(topic, queueId));
      break;
  }
  return resp;
}

}  // namespace rmq::broker
