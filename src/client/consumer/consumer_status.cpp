#include "client/consumer/consumer_status.h"

#include "common/json.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

void registerConsumerStatus(net::Dispatcher& dispatcher, std::string group, const OffsetStore& offsets) {
  dispatcher.registerProcessor(
      RequestCode::GET_CONSUMER_STATUS_FROM_CLIENT,
      [group = std::move(group), &offsets](net::ConnectionPtr,
                                           net::RemotingCommand req) -> asio::awaitable<std::optional<net::RemotingCommand>> {
        std::string topic(req.extFields.get("topic"));
        bool mine = req.extFields.get("group") == group;
        json::Buffer buf;
        json::Writer w(buf);
        w.StartObject();
        w.Key("consumerTable"); w.StartObject(); w.EndObject();
        w.Key("messageQueueTable"); w.StartObject();
        if (mine) {
          for (const auto& [mq, offset] : offsets.snapshot()) {
            if (mq.topic != topic) continue;
            json::writeMessageQueueKey(w, {mq.topic, mq.brokerName, mq.queueId});
            w.Int64(offset);
          }
        }
        w.EndObject();
        w.EndObject();
        auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
        resp.body.assign(buf.GetString(), buf.GetSize());
        co_return resp;
      });
}

}  // namespace rmq::client
