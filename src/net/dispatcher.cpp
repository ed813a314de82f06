#include "net/dispatcher.h"

#include <string>

#include "common/response_code.h"

namespace rmq::net {

void Dispatcher::registerProcessor(int code, RequestHandler handler) { handlers_[code] = std::move(handler); }

void Dispatcher::setDefaultProcessor(RequestHandler handler) { default_ = std::move(handler); }

asio::awaitable<std::optional<RemotingCommand>> Dispatcher::dispatch(ConnectionPtr conn, RemotingCommand cmd) const {
  if (guard_) {
    if (auto refused = guard_(*conn, cmd)) {
      if (cmd.isOneway()) co_return std::nullopt;
      co_return refused;
    }
  }
  auto it = handlers_.find(cmd.code);
  if (it != handlers_.end()) {
    if (!observer_) co_return co_await it->second(std::move(conn), std::move(cmd));
    int code = cmd.code;
    auto t0 = std::chrono::steady_clock::now();
    auto response = co_await it->second(std::move(conn), std::move(cmd));
    observer_(code, std::chrono::steady_clock::now() - t0);
    co_return response;
  }
  if (default_) co_return co_await default_(std::move(conn), std::move(cmd));
  co_return RemotingCommand::response(ResponseCode::REQUEST_CODE_NOT_SUPPORTED,
                                      " request type " + std::to_string(cmd.code) + " not supported");
}

}  // namespace rmq::net
