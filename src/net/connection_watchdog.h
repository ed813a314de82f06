#pragma once
// ConnectionWatchdog: the limits in time of every TcpConnection on one io_context (an asio service,
// one per io_context): every kSweep it asks each watched connection whether a deadline passed
// (idle, incomplete frame, write stall; TcpConnection::closeIfOverdue) and the connection closes
// itself with the same reasons as ever. One timer per thread instead of a coroutine and a timer per
// connection (~0.6 KB each); a deadline is met up to kSweep late.
// Thread: everything on the io_context's one thread (watch / unwatch from the connection's thread).
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/any_io_executor.hpp>
#include <asio/execution_context.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <optional>

namespace rmq::net {

class TcpConnection;

class ConnectionWatchdog final : public asio::execution_context::service {
 public:
  static constexpr std::chrono::milliseconds kSweep{250};
  static asio::execution_context::id id;  // asio's service key

  explicit ConnectionWatchdog(asio::execution_context& ctx) : service(ctx) {}
  // The watchdog of the io_context `ex` runs on (made by its first connection).
  static ConnectionWatchdog& of(const asio::any_io_executor& ex);

  void watch(TcpConnection& c, const asio::any_io_executor& ex);  // links c; arms the sweep
  void unwatch(TcpConnection& c);                                  // at close or destruction
  size_t watched() const { return count_; }

 private:
  void shutdown() override;  // the io_context ends: its connections are forgotten (not closed)
  void arm();
  void sweep();

  TcpConnection* head_ = nullptr;  // intrusive list through TcpConnection::watchPrev_ / watchNext_
  size_t count_ = 0;
  std::optional<asio::steady_timer> timer_;  // made with the first connection's executor
  bool armed_ = false;
};

}  // namespace rmq::net
