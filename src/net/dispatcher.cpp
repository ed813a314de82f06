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
  if (it != handlers_.end()) return it->second(std::move(conn), std::move(cmd));
  if (default_) return default_(std::move(conn), std::move(cmd));
  return answered(RemotingCommand::response(ResponseCode::REQUEST_CODE_NOT_SUPPORTED,
                                            " request type " + std::to_string(cmd.code) + " not supported"));
}

void Dispatcher::observe(int code, std::chrono::steady_clock::duration elapsed) const {
  if (observer_ && handlers_.count(code) != 0) observer_(code, elapsed);
}

}  // namespace rmq::net
