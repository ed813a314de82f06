#include "net/dispatcher.h"

#include <string>

#include "common/response_code.h"

namespace rmq::net {

void Dispatcher::registerProcessor(int code, RequestHandler handler) { handlers_[code] = std::move(handler); }

void Dispatcher::setDefaultProcessor(RequestHandler handler) { default_ = std::move(handler); }

asio::awaitable<std::optional<RemotingCommand>> answered(std::optional<RemotingCommand> response) {
  co_return std::move(response);
}

asio::awaitable<std::optional<RemotingCommand>> Dispatcher::dispatch(ConnectionPtr conn, RemotingCommand cmd) const {
  if (guard_) {
    if (auto refused = guard_(*conn, cmd)) {
      if (cmd.isOneway()) return answered(std::nullopt);
      return answered(std::move(refused));
    }
  }
  auto it = handlers_.find(cmd.code);
  if (it != handlers_.end()) {
    if (!observer_) return it->second(std::move(conn), std::move(cmd));
    const int code = cmd.code;
    const auto start = std::chrono::steady_clock::now();  // a handler may do its work when called
    return timed(it->second(std::move(conn), std::move(cmd)), code, start);
  }
  if (default_) return default_(std::move(conn), std::move(cmd));
  return answered(RemotingCommand::response(ResponseCode::REQUEST_CODE_NOT_SUPPORTED,
                                            " request type " + std::to_string(cmd.code) + " not supported"));
}

asio::awaitable<std::optional<RemotingCommand>> Dispatcher::timed(asio::awaitable<std::optional<RemotingCommand>> work,
                                                                  int code, std::chrono::steady_clock::time_point start) const {
  auto response = co_await std::move(work);
  observer_(code, std::chrono::steady_clock::now() - start);
  co_return response;
}

}  // namespace rmq::net
