#include "net/connection.h"

namespace rmq::net {

void LiveConnectionOptions::store(const ConnectionOptions& o) {
  constexpr auto r = std::memory_order_relaxed;
  maxFrameSize_.store(o.maxFrameSize, r);
  idleSeconds_.store(o.idleTimeout.count(), r);
  partialFrameSeconds_.store(o.partialFrameTimeout.count(), r);
  maxPendingWriteBytes_.store(o.maxPendingWriteBytes, r);
  maxInFlightRequests_.store(o.maxInFlightRequests, r);
  writeStallSeconds_.store(o.writeStallTimeout.count(), r);
}

ConnectionOptions LiveConnectionOptions::load() const {
  ConnectionOptions o;
  o.maxFrameSize = maxFrameSize();
  o.idleTimeout = idleTimeout();
  o.partialFrameTimeout = partialFrameTimeout();
  o.maxPendingWriteBytes = maxPendingWriteBytes();
  o.maxInFlightRequests = maxInFlightRequests();
  o.writeStallTimeout = writeStallTimeout();
  return o;
}

LaterAnswer Connection::answerLater(const RemotingCommand&) { return {}; }

void Connection::finishLater(const RequestInfo&, std::optional<RemotingCommand>) {}

LaterAnswer& LaterAnswer::operator=(LaterAnswer&& other) noexcept {
  if (this != &other) {
    send(std::nullopt);
    conn_ = std::move(other.conn_);
    info_ = other.info_;
  }
  return *this;
}

void LaterAnswer::send(std::optional<RemotingCommand> response) {
  if (!conn_) return;
  auto conn = std::move(conn_);
  conn_.reset();
  conn->finishLater(info_, std::move(response));
}

}  // namespace rmq::net
