#include "grpc/stream_buffers.h"

#include <nghttp2/nghttp2.h>

#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <cstring>

#include "grpc/h2_link.h"

namespace rmq::grpc {

size_t Outbox::append(std::string_view message, bool compressed) {
  if (offset_ > 0 && offset_ == bytes_.size()) {
    bytes_.clear();
    offset_ = 0;
  }
  bytes_ += messagePrefix(message.size());
  if (compressed) bytes_[bytes_.size() - kMessagePrefix] = 1;
  bytes_.append(message);
  return kMessagePrefix + message.size();
}

size_t Outbox::take(uint8_t* buf, size_t length, bool& drained) {
  size_t n = std::min(length, pending());
  if (n > 0) std::memcpy(buf, bytes_.data() + offset_, n);
  offset_ += n;
  drained = pending() == 0;
  if (drained) {  // sent: an idle stream keeps no buffer
    std::string().swap(bytes_);
    offset_ = 0;
  }
  return n;
}

std::optional<Status> Inbox::feed(const char* data, size_t size, size_t& consumeNow) {
  size_t before = messages_.size();
  auto bad = reader_.feed(data, size, messages_);
  for (size_t i = before; i < messages_.size(); ++i) queuedBytes_ += messages_[i].size();
  if (queuedBytes_ > kHeld) owed_ += size;
  else consumeNow = size;
  if (messages_.size() > before) wake();
  return bad;
}

void Inbox::end() {
  ended_ = true;
  wake();
}

void Inbox::wake() {
  if (waiter_) waiter_->cancel();
}

asio::awaitable<std::optional<std::string>> Inbox::next(H2Link& link, int32_t streamId) {
  for (;;) {
    if (head_ < messages_.size()) {
      std::string message = std::move(messages_[head_++]);
      if (head_ == messages_.size()) {  // all read: start over (a burst's array is not kept)
        head_ = 0;
        if (messages_.capacity() > 8) std::vector<std::string>().swap(messages_);
        else messages_.clear();
      }
      queuedBytes_ -= std::min(queuedBytes_, message.size());
      if (owed_ > 0 && queuedBytes_ <= kHeld && link.isOpen() && !ended_) {
        nghttp2_session_consume_stream(link.session(), streamId, owed_);
        owed_ = 0;
        link.flush();
      }
      co_return message;
    }
    if (ended_) co_return std::nullopt;
    if (!waiter_) waiter_ = std::make_unique<asio::steady_timer>(link.executor());
    waiter_->expires_at(asio::steady_timer::time_point::max());
    co_await waiter_->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
  }
}

}  // namespace rmq::grpc
