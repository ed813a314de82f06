#pragma once
// The shape every unary MessagingService RPC shares: read the one request message, parse it, run
// the RPC's body, write the response, finish with gRPC OK (business errors are the response's
// Status). A request that does not parse ends with INVALID_ARGUMENT (a protocol problem).
#include <asio/awaitable.hpp>
#include <string>

#include "grpc/server_call.h"

namespace rmq::broker::messaging {

// Reads and parses the single request message; false when the call was finished here.
template <class Req>
asio::awaitable<bool> readRequest(grpc::ServerCall& call, Req& req) {
  auto bytes = co_await call.read();
  if (!bytes) {
    call.finish({grpc::StatusCode::INVALID_ARGUMENT, "missing request message"});
    co_return false;
  }
  if (!req.ParseFromString(*bytes)) {
    call.finish({grpc::StatusCode::INVALID_ARGUMENT, "malformed " + req.GetTypeName()});
    co_return false;
  }
  co_return true;
}

template <class Resp>
void answer(grpc::ServerCall& call, const Resp& resp) {
  call.write(resp.SerializeAsString());
  call.finish(grpc::Status::ok());
}

}  // namespace rmq::broker::messaging
