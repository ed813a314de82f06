#pragma once
// HeldAnswer: what a server asks about a request one of its connections read but holds because
// the connection's in-flight limit is reached (tcp_connection.h ConnectionHooks::answerHeld,
// RemotingServer::setHeldAnswer): an answer is sent in place of running the request's handler
// (the broker's busy answer once the request has waited its budget); nullopt keeps it held.
// `held` = the connection's other held requests; `holdFull`: the request was just read and the
// hold is full (nullopt then holds it anyway and the connection stops reading until there is
// room). Runs on the network thread: CPU work only.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "net/remoting_command.h"

namespace rmq::net {

using HeldAnswer = std::function<std::optional<RemotingCommand>(
    const RemotingCommand& request, std::chrono::steady_clock::time_point now, int64_t held, bool holdFull)>;

}  // namespace rmq::net
