#include "roles/broker/messaging/receipt_renewer.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/use_awaitable.hpp>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "common/log.h"
#include "common/wall_clock.h"

namespace rmq::broker::messaging {

namespace {
constexpr int64_t kRenewAheadMs = 10000;          // the proxy's renewal lead
constexpr int64_t kMaxRenewMs = 3 * 3600 * 1000;  // the proxy's renewal limit
constexpr int64_t kGoneInvisibleMs = 1000;        // client gone: back in about a second
constexpr auto kTick = std::chrono::seconds(1);
}  // namespace

struct ReceiptRenewer::State {
  struct Entry {
    Tracked t;
    std::string current;  // the latest handle of the message
    int64_t endMs = 0;    // its invisible time ends
    int64_t sinceMs = 0;  // first delivery
    bool renewing = false;
    bool gone = false;    // the client went: make visible soon, then forget
  };
  PopDeps pop;
  mutable std::mutex mu;
  std::map<std::string, Entry> byHandle;  // the client's handle -> entry
  bool ticking = false;
  bool stopped = false;
  std::optional<asio::steady_timer> timer;

  // Entries due for work now (marked renewing), by the client's handle.
  std::vector<std::pair<std::string, Entry>> due(int64_t now) {
    std::vector<std::pair<std::string, Entry>> out;
    std::lock_guard lk(mu);
    for (auto it = byHandle.begin(); it != byHandle.end();) {
      auto& e = it->second;
      if (!e.gone && now - e.sinceMs > kMaxRenewMs) {
        it = byHandle.erase(it);  // renewed long enough: let it come back on its own
        continue;
      }
      if (!e.renewing && (e.gone || e.endMs - now <= kRenewAheadMs)) {
        e.renewing = true;
        out.emplace_back(it->first, e);
      }
      ++it;
    }
    return out;
  }

  void renewed(const std::string& key, Result<std::string>& r, int64_t now, int64_t invisibleMs, bool gone) {
    std::lock_guard lk(mu);
    auto it = byHandle.find(key);
    if (it == byHandle.end()) return;
    if (!r || gone || it->second.gone) {
      // Acked meanwhile through another handle, expired, or released: nothing more to renew. A
      // release that raced a renewal is redone at the next tick.
      if (r && !gone && it->second.gone) {
        it->second.current = *r;
        it->second.renewing = false;
        return;
      }
      byHandle.erase(it);
      return;
    }
    it->second.current = *r;
    it->second.endMs = now + invisibleMs;
    it->second.renewing = false;
  }
};

namespace {

asio::awaitable<void> tick(std::shared_ptr<ReceiptRenewer::State> s) {
  for (;;) {
    auto wait = s->timer->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    co_await std::move(wait);
    const int64_t now = nowMillis();
    auto work = s->due(now);
    for (auto& [key, e] : work) {
      const int64_t ms = e.gone ? kGoneInvisibleMs : e.t.invisibleMs;
      auto change = s->pop.changeInvisible(e.t.group, e.t.topic, e.current, ms);
      auto r = co_await std::move(change);
      if (!r) log::debug("auto_renew of {} ended: {}", key, r.error().message);
      s->renewed(key, r, nowMillis(), ms, e.gone);
    }
    std::lock_guard lk(s->mu);
    if (s->stopped || s->byHandle.empty()) {
      s->ticking = false;
      s->timer.reset();
      co_return;
    }
    s->timer->expires_after(kTick);
  }
}

}  // namespace

ReceiptRenewer::ReceiptRenewer(const PopDeps& pop) : state_(std::make_shared<State>()) { state_->pop = pop; }

ReceiptRenewer::~ReceiptRenewer() {
  std::lock_guard lk(state_->mu);
  state_->stopped = true;
  state_->byHandle.clear();
}

void ReceiptRenewer::track(asio::any_io_executor ex, Tracked t) {
  if (!state_->pop.changeInvisible) return;
  const int64_t now = nowMillis();
  std::lock_guard lk(state_->mu);
  if (state_->stopped) return;
  State::Entry e;
  e.current = t.handle;
  e.endMs = now + t.invisibleMs;
  e.sinceMs = now;
  std::string key = t.handle;
  e.t = std::move(t);
  state_->byHandle.emplace(std::move(key), std::move(e));
  if (state_->ticking) return;
  state_->ticking = true;
  // A strand: clientGone() posts to the timer from other threads of a multi-threaded io_context.
  auto strand = asio::make_strand(ex);
  state_->timer.emplace(strand, kTick);
  asio::co_spawn(strand, tick(state_), asio::detached);
}

asio::awaitable<std::string> ReceiptRenewer::take(std::string handle) {
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lk(state_->mu);
      auto it = state_->byHandle.find(handle);
      if (it == state_->byHandle.end()) co_return handle;
      if (!it->second.renewing) {
        std::string current = std::move(it->second.current);
        state_->byHandle.erase(it);
        co_return current;
      }
    }
    asio::steady_timer pause(co_await asio::this_coro::executor, std::chrono::milliseconds(5));
    auto wait = pause.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    co_await std::move(wait);
  }
  co_return handle;  // a renewal that never finished: the old handle answers for itself
}

void ReceiptRenewer::clientGone(const std::string& clientId) {
  std::lock_guard lk(state_->mu);
  bool any = false;
  for (auto& [key, e] : state_->byHandle) {
    if (e.t.clientId != clientId) continue;
    e.gone = true;
    any = true;
  }
  if (!any || !state_->timer) return;
  // Release at once rather than at the next tick (the timer belongs to its executor's thread).
  asio::post(state_->timer->get_executor(), [s = state_] {
    std::lock_guard lk(s->mu);
    if (s->timer) s->timer->expires_after(std::chrono::milliseconds(0));
  });
}

size_t ReceiptRenewer::size() const {
  std::lock_guard lk(state_->mu);
  return state_->byHandle.size();
}

}  // namespace rmq::broker::messaging
