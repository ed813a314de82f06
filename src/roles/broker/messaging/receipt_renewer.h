#pragma once
// ReceiptRenewer: ReceiveMessage's `auto_renew` (5.x push consumers). As the proxy's receipt
// handle manager does, the server keeps a delivered message invisible while the client lives: 10 s
// before its invisible time ends it is changed to another full invisible time (a new handle
// inside; the client keeps the handle it got), for at most 3 h. An ack / change / dead-letter of
// the client's handle acts on the latest one (take()). When the client's Telemetry stream ends its
// messages come back ~1 s later (changed to 1 s), not after the whole invisible time.
// Work is bounded by the messages tracked: one coroutine ticks once a second while any is.
// Threads: any; the ticking coroutine runs on the executor of the call that tracked first.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <memory>
#include <string>

#include "roles/broker/messaging/messaging_deps.h"

namespace rmq::broker::messaging {

class ReceiptRenewer {
 public:
  explicit ReceiptRenewer(const PopDeps& pop);
  ~ReceiptRenewer();  // stops renewing (the ticking coroutine ends at its next tick)
  ReceiptRenewer(const ReceiptRenewer&) = delete;
  ReceiptRenewer& operator=(const ReceiptRenewer&) = delete;

  struct Tracked {
    std::string clientId, group, topic, handle;
    int64_t invisibleMs = 60000;
  };
  void track(asio::any_io_executor ex, Tracked t);
  // The handle to use for the client's `handle` (its latest renewal), no longer renewed; `handle`
  // itself when it is not tracked. Waits for a renewal in progress (milliseconds: a local change).
  asio::awaitable<std::string> take(std::string handle);
  // The client's Telemetry stream ended: its messages are made visible in 1 s.
  void clientGone(const std::string& clientId);
  size_t size() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace rmq::broker::messaging
