#include "repl/ha_watchdog.h"

#include <algorithm>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>

#include "common/log.h"

namespace rmq::repl {

asio::awaitable<bool> awaitPeerSilence(asio::steady_timer& timer, const std::chrono::steady_clock::time_point& lastRead,
                                       std::chrono::milliseconds limit, const bool& closed, const std::string& peer) {
  using std::chrono::milliseconds;
  const auto period = std::clamp<std::chrono::steady_clock::duration>(limit / 4, milliseconds(50), milliseconds(1000));
  while (!closed) {
    timer.expires_after(period);
    co_await timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    if (closed) break;
    auto silent = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - lastRead);
    if (silent > limit) {
      log::warn("HA: {} sent nothing for {} ms (haHousekeepingInterval {} ms)", peer, silent.count(), limit.count());
      co_return true;
    }
  }
  co_return false;
}

}  // namespace rmq::repl
