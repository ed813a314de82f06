#include "net/connection_watchdog.h"

#include <asio/execution/context.hpp>
#include <asio/query.hpp>
#include <memory>
#include <vector>

#include "net/tcp_connection.h"

namespace rmq::net {

asio::execution_context::id ConnectionWatchdog::id;

ConnectionWatchdog& ConnectionWatchdog::of(const asio::any_io_executor& ex) {
  return asio::use_service<ConnectionWatchdog>(asio::query(ex, asio::execution::context));
}

void ConnectionWatchdog::watch(TcpConnection& c, const asio::any_io_executor& ex) {
  c.watchdog_ = this;
  c.watchPrev_ = nullptr;
  c.watchNext_ = head_;
  if (head_) head_->watchPrev_ = &c;
  head_ = &c;
  ++count_;
  if (!timer_) timer_.emplace(ex);
  arm();
}

void ConnectionWatchdog::unwatch(TcpConnection& c) {
  if (c.watchdog_ != this) return;
  if (c.watchPrev_) c.watchPrev_->watchNext_ = c.watchNext_;
  else head_ = c.watchNext_;
  if (c.watchNext_) c.watchNext_->watchPrev_ = c.watchPrev_;
  c.watchdog_ = nullptr;
  c.watchPrev_ = c.watchNext_ = nullptr;
  --count_;
}

void ConnectionWatchdog::arm() {
  if (armed_ || count_ == 0 || !timer_) return;
  armed_ = true;
  timer_->expires_after(kSweep);
  timer_->async_wait([this](const asio::error_code& ec) {
    armed_ = false;
    if (ec) return;  // shut down
    sweep();
    arm();  // not while no connection is watched: the next one re-arms
  });
}

// The overdue are collected first (kept alive), then closed: a close unlinks its connection and
// runs the server's hooks, which must not see a list being walked.
void ConnectionWatchdog::sweep() {
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<TcpConnection>> overdue;
  for (TcpConnection* c = head_; c != nullptr; c = c->watchNext_)
    if (c->overdue(now)) overdue.push_back(c->self());
  for (auto& c : overdue) c->closeIfOverdue(now);
}

void ConnectionWatchdog::shutdown() {
  while (head_) unwatch(*head_);
  timer_.reset();
}

}  // namespace rmq::net
