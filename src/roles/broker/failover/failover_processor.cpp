#include "roles/broker/failover/failover_processor.h"

#include <asio/co_spawn.hpp>
#include <asio/use_awaitable.hpp>

#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/failover/failover_coordinator.h"

namespace rmq::broker {

namespace {
using net::RemotingCommand;

int64_t extInt(const RemotingCommand& req, const char* key, int64_t dflt) {
  auto text = req.extFields.get(key);
  if (text.empty()) return dflt;
  try {
    return std::stoll(std::string(text));
  } catch (...) {
    return dflt;
  }
}
}  // namespace

void registerFailoverProcessor(BrokerContext& ctx, FailoverCoordinator& coordinator) {
  ctx.registerProcessor(RequestCode::RMQNODE_FAILOVER_STATUS,
                        [&coordinator](net::ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
                          auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
                          resp.body = coordinator.statusJson();
                          co_return resp;
                        });
  ctx.registerProcessor(
      RequestCode::RMQNODE_FAILOVER_SWITCH,
      [&coordinator](net::ConnectionPtr, RemotingCommand req) -> asio::awaitable<std::optional<RemotingCommand>> {
        const int64_t target = extInt(req, "brokerId", -1);
        const auto timeout = std::chrono::milliseconds(extInt(req, "timeoutMillis", 10000));
        if (target < 0) co_return RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "brokerId (the successor) is missing");
        // Runs on the coordinator's thread; this network coroutine resumes when it is done.
        auto handOver = coordinator.handOver(target, timeout);
        auto& io = coordinator.executorContext();
        auto done = co_await asio::co_spawn(io, std::move(handOver), asio::use_awaitable);
        co_return RemotingCommand::response(done.ok ? ResponseCode::SUCCESS : ResponseCode::SYSTEM_ERROR, done.message);
      });
}

}  // namespace rmq::broker
