// Producer request-reply (Java DefaultMQProducerImpl.request / prepareSendRequest): see
// request_reply.h for the flow.
#include <future>

#include "client/producer/producer.h"
#include "common/response_code.h"
#include "net/async_result.h"

namespace rmq::client {

void Producer::requestAsync(Message msg, std::chrono::milliseconds timeout, RequestCallback done) {
  if (!instance_->running()) {
    done(makeError(ResponseCode::SYSTEM_ERROR, "The producer service state not OK, maybe started once"));
    return;
  }
  std::string id = createCorrelationId();
  msg.putProperty(prop::CORRELATION_ID, id);
  msg.putProperty(prop::REPLY_TO_CLIENT, instance_->clientId());
  msg.putProperty(prop::TTL, std::to_string(timeout.count()));
  requests_->add(*instance_, id, msg.topic, timeout, std::move(done));
  instance_->spawn(sendRequest(std::move(msg), std::move(id)));
}

// Java sends a request in CommunicationMode.ASYNC: it holds one of clientAsyncSemaphoreValue permits.
asio::awaitable<void> Producer::sendRequest(Message msg, std::string correlationId) {
  auto sent = co_await prepareAndSend(std::move(msg), Mode::Async);
  if (sent) requests_->markSent(correlationId);
  else requests_->fail(correlationId, sent.error());
}

asio::awaitable<Result<MessageExt>> Producer::asyncRequest(Message msg, std::chrono::milliseconds timeout) {
  auto outcome = std::make_shared<net::AsyncResult<Result<MessageExt>>>();
  RequestCallback done = [outcome](Result<MessageExt> r) { outcome->set(std::move(r)); };
  requestAsync(std::move(msg), timeout, std::move(done));
  // requestAsync always reports (reply, timeout, send failure, shutdown); the longer wait only guards.
  const auto guard = timeout + std::chrono::seconds(10);
  bool reported = co_await outcome->wait(guard);
  if (!reported) co_return makeError(ResponseCode::SYSTEM_ERROR, "request: no outcome reported");
  co_return outcome->take();
}

Result<MessageExt> Producer::request(Message msg, std::chrono::milliseconds timeout) {
  auto done = std::make_shared<std::promise<Result<MessageExt>>>();
  auto fut = done->get_future();
  requestAsync(std::move(msg), timeout, [done](Result<MessageExt> r) { done->set_value(std::move(r)); });
  return fut.get();
}

}  // namespace rmq::client
