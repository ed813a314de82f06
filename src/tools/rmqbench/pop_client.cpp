#include "tools/rmqbench/pop_client.h"

#include <charconv>
#include <fmt/format.h>

#include "apache/rocketmq/v2/service.pb.h"

namespace rmq::bench {
namespace {

namespace v2 = apache::rocketmq::v2;
constexpr std::string_view kReceivePath = "/apache.rocketmq.v2.MessagingService/ReceiveMessage";
constexpr std::string_view kAckPath = "/apache.rocketmq.v2.MessagingService/AckMessage";

void setDuration(google::protobuf::Duration* d, int64_t ms) {
  d->set_seconds(ms / 1000);
  d->set_nanos(static_cast<int32_t>(ms % 1000) * 1000000);
}

std::string receiveRequest(const ReceiveSpec& s) {
  v2::ReceiveMessageRequest req;
  req.mutable_group()->set_name(s.group);
  req.mutable_message_queue()->mutable_topic()->set_name(s.topic);
  req.mutable_message_queue()->set_id(-1);
  req.mutable_filter_expression()->set_type(v2::FilterType::TAG);
  req.mutable_filter_expression()->set_expression("*");
  req.set_batch_size(s.batch);
  setDuration(req.mutable_invisible_duration(), s.invisibleMs);
  setDuration(req.mutable_long_polling_timeout(), s.pollMs);
  return req.SerializeAsString();
}

Delivered deliveredOf(const v2::Message& m) {
  Delivered d;
  const auto& sp = m.system_properties();
  d.messageId = sp.message_id();
  d.handle = sp.receipt_handle();
  d.body = m.body();
  d.attempt = sp.has_delivery_attempt() ? sp.delivery_attempt() : 1;
  d.queueId = sp.queue_id();
  d.queueOffset = sp.has_queue_offset() ? sp.queue_offset() : -1;
  d.dueMs = dueMillisOfHandle(d.handle);
  return d;
}

}  // namespace

asio::awaitable<Result<std::shared_ptr<PopChannel>>> PopChannel::connect(std::string host, uint16_t port,
                                                                         std::string clientId) {
  auto ch = co_await grpc::GrpcChannel::connect(std::move(host), port, grpc::ChannelOptions{});
  if (!ch) co_return ch.error();
  grpc::Metadata md{{"x-mq-client-id", std::move(clientId)}, {"x-mq-language", "CPP"}, {"x-mq-protocol", "v2"},
                    {"x-mq-client-version", "5.0.8"}};
  co_return std::shared_ptr<PopChannel>(new PopChannel(std::move(*ch), std::move(md)));
}

asio::awaitable<ReceiveOutcome> PopChannel::receive(const ReceiveSpec& spec) {
  ReceiveOutcome out;
  auto timeout = std::chrono::milliseconds(spec.pollMs + 3000);
  auto call = channel_->start(std::string(kReceivePath), md_, timeout);
  call->write(receiveRequest(spec));
  call->writesDone();
  for (;;) {
    auto msg = co_await call->read();
    if (!msg) break;
    v2::ReceiveMessageResponse r;
    if (!r.ParseFromString(*msg)) continue;
    if (r.has_status()) {
      out.code = r.status().code();
      if (out.code != kV2Ok) out.error = r.status().message();
    } else if (r.has_message()) {
      out.messages.push_back(deliveredOf(r.message()));
    }
  }
  grpc::Status st = co_await call->finish();
  if (!st.isOk()) {
    out.transportOk = false;
    out.error = fmt::format("gRPC status {}: {}", static_cast<int>(st.code), st.message);
  }
  co_return out;
}

asio::awaitable<AckOutcome> PopChannel::ack(const std::string& group, const std::string& topic,
                                            const std::vector<const Delivered*>& messages) {
  v2::AckMessageRequest req;
  req.mutable_group()->set_name(group);
  req.mutable_topic()->set_name(topic);
  for (const auto* m : messages) {
    auto* e = req.add_entries();
    e->set_message_id(m->messageId);
    e->set_receipt_handle(m->handle);
  }
  AckOutcome out;
  auto r = co_await channel_->unary(std::string(kAckPath), md_, req.SerializeAsString(), std::chrono::seconds(5));
  v2::AckMessageResponse resp;
  if (!r.status.isOk() || !resp.ParseFromString(r.response)) {
    out.transportOk = false;
    out.error = fmt::format("gRPC status {}: {}", static_cast<int>(r.status.code), r.status.message);
    co_return out;
  }
  out.code = resp.status().code();
  for (const auto& e : resp.entries()) out.codes.push_back(e.status().code());
  co_return out;
}

int64_t dueMillisOfHandle(std::string_view handle) {
  int64_t fields[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    auto space = handle.find(' ');
    auto field = handle.substr(0, space);
    auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), fields[i]);
    if (ec != std::errc() || p != field.data() + field.size() || space == std::string_view::npos) return -1;
    handle.remove_prefix(space + 1);
  }
  return fields[1] + fields[2];
}

}  // namespace rmq::bench
