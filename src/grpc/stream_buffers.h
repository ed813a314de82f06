#pragma once
// The two message queues of one gRPC stream, the same on both sides: Outbox (framed messages
// waiting for nghttp2 to pull them into DATA frames) and Inbox (received messages waiting for
// read(), and the flow-control credit they hold back). Link thread only.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <vector>
#include <memory>
#include <optional>
#include <string>

#include "grpc/grpc_wire.h"

namespace rmq::grpc {

class H2Link;

// Outgoing messages of one stream, framed, in one buffer that the DATA frames are copied from.
class Outbox {
 public:
  // Appends prefix + message (`compressed`: the flag of a message the caller compressed); returns
  // the bytes queued.
  size_t append(std::string_view message, bool compressed = false);
  // nghttp2's data source read: copies up to `length` bytes. `drained` when nothing is left.
  size_t take(uint8_t* buf, size_t length, bool& drained);
  size_t pending() const { return bytes_.size() - offset_; }
  bool deferred = false;  // the data source answered NGHTTP2_ERR_DEFERRED: resume on the next append
  bool last = false;      // no more messages: end the body after these bytes

 private:
  std::string bytes_;
  size_t offset_ = 0;
};

// Received messages of one stream. Flow control: bytes of a message still being received are
// credited back to the peer at once (the reader bounds them by the inbound limit); complete
// messages the handler has not read yet hold their credit back once more than kHeld bytes wait,
// so a peer cannot make a slow handler buffer more than kHeld + one stream window.
class Inbox {
 public:
  static constexpr size_t kHeld = 4 * 1024 * 1024;
  Inbox(size_t maxMessage, std::string encoding) : reader_(maxMessage, std::move(encoding)) {}

  // DATA bytes; returns an error status to end the stream with. `consumeNow`: credit to give back.
  std::optional<Status> feed(const char* data, size_t size, size_t& consumeNow);
  // No more messages will come (END_STREAM, or the call is over); wakes a reader.
  void end();
  bool ended() const { return ended_; }
  // The next message; nullopt once ended and empty. `link`/`streamId` give the held credit back.
  asio::awaitable<std::optional<std::string>> next(H2Link& link, int32_t streamId);

 private:
  void wake();
  MessageReader reader_;
  // Complete messages not yet read: [head_, size). A vector, not a std::deque: libstdc++'s deque
  // allocates a 512-byte block even when empty, and a parked call's inbox is usually empty.
  std::vector<std::string> messages_;
  size_t head_ = 0;
  size_t queuedBytes_ = 0, owed_ = 0;
  bool ended_ = false;
  std::unique_ptr<asio::steady_timer> waiter_;  // made by the first read that has to wait
};

}  // namespace rmq::grpc
