// Message lookups for admin tools: QUERY_MESSAGE (by key via the index), VIEW_MESSAGE_BY_ID
// (by commit log offset), QUERY_CONSUME_QUEUE (raw consume queue units).
#include "common/log.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "store/message_store.h"

namespace rmq::broker {
using namespace admin;

namespace {

Reply queryMessage(BrokerContext& ctx, RemotingCommand cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  auto key = requireString(cmd, "key");
  if (!key) co_return failure(key.error());
  auto maxNum = requireInt(cmd, "maxNum");
  if (!maxNum) co_return failure(maxNum.error());
  auto begin = requireInt(cmd, "beginTimestamp");
  if (!begin) co_return failure(begin.error());
  auto end = requireInt(cmd, "endTimestamp");
  if (!end) co_return failure(end.error());
  int num = static_cast<int>(*maxNum);
  if (cmd.extFields.get("_UNIQUE_KEY_QUERY") == "true") num = ctx.storeConfig.defaultQueryMaxNum;

  auto result = ctx.store.queryMessage(*topic, *key, num, *begin, *end);
  auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
  resp.extFields.set("indexLastUpdateTimestamp", result.indexLastUpdateTimestamp);
  resp.extFields.set("indexLastUpdatePhyoffset", result.indexLastUpdatePhyoffset);
  if (result.records.empty()) {
    resp.code = ResponseCode::QUERY_NOT_FOUND;
    resp.remark = "can not find message, maybe time range not correct";
    co_return resp;
  }
  // Records are views into mapped files; send them without copying, kept alive by the owners.
  auto owners = std::make_shared<std::vector<std::shared_ptr<const void>>>(std::move(result.owners));
  for (auto rec : result.records) resp.bodySegments.push_back({rec.data(), rec.size()});
  resp.bodyOwner = owners;
  co_return resp;
}

Reply viewMessageById(BrokerContext& ctx, RemotingCommand cmd) {
  auto offset = requireInt(cmd, "offset");
  if (!offset) co_return failure(offset.error());
  auto view = ctx.store.lookMessageByOffset(*offset);
  if (!view) {
    co_return failure(ResponseCode::SYSTEM_ERROR,
                      "can not find message by the offset, " + std::to_string(*offset));
  }
  auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
  resp.bodySegments.push_back({view.bytes.data(), view.bytes.size()});
  resp.bodyOwner = view.owner;
  co_return resp;
}

Reply queryConsumeQueue(BrokerContext& ctx, RemotingCommand cmd) {
  std::string topic = optString(cmd, "topic");
  int queueId = static_cast<int>(optInt(cmd, "queueId", 0));
  int64_t index = optInt(cmd, "index", 0);
  int count = static_cast<int>(optInt(cmd, "count", 0));
  std::string group = optString(cmd, "consumerGroup");
  auto queues = ctx.store.queues();
  auto qt = queues.find(topic);
  if (qt == queues.end() || !qt->second.count(queueId)) {
    co_return failure(ResponseCode::SYSTEM_ERROR, std::to_string(queueId) + "@" + topic + " is not exist!");
  }
  json::Writer w;
  w.beginObject();
  w.key("maxQueueIndex").value(ctx.store.maxOffsetInQueue(topic, queueId));
  w.key("minQueueIndex").value(ctx.store.minOffsetInQueue(topic, queueId));
  w.key("queueData").beginArray();
  if (count > 0) {
    auto r = ctx.store.getMessages(topic, queueId, index, std::min(count, 1024), 64 << 20, nullptr);
    for (size_t i = 0; i < r.records.size(); ++i) {
      RecordView rec;
      if (parseRecord(r.records[i].data(), r.records[i].size(), rec, false) != RecordParse::Ok) continue;
      w.beginObject()
          .key("bitMap").value("")
          .key("eval").value(false)
          .key("physicOffset").value(rec.physicalOffset)
          .key("physicSize").value(rec.totalSize)
          .key("tagsCode").value(r.tagsCodes[i])
          .endObject();
    }
  }
  w.endArray();
  if (!group.empty()) {
    if (auto sub = ctx.clients.findSubscription(group, topic)) {
      w.key("subscriptionData");
      writeSubscription(w, *sub);
    }
  }
  w.endObject();
  co_return success(w.take());
}

}  // namespace

void registerQueryProcessors(BrokerContext& ctx) {
  BrokerContext* c = &ctx;
  ctx.registerProcessor(RequestCode::QUERY_MESSAGE,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return queryMessage(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::VIEW_MESSAGE_BY_ID,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return viewMessageById(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::QUERY_CONSUME_QUEUE,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return queryConsumeQueue(*c, std::move(cmd)); });
}

}  // namespace rmq::broker
