#pragma once
// The listening-socket steps the remoting server and the HTTP server share: open + bind + listen
// with an error naming the address, a short pause after a failed accept (EMFILE: keep serving
// without spinning), and closing the acceptor on its own io_context from another thread.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::net {

using AcceptorPtr = std::shared_ptr<asio::ip::tcp::acceptor>;

// Bound and listening (reuse_address) on host:port, on `ctx`. Errors: "<what>: bad address
// host:port: ..." or "<what>: cannot listen on host:port: ...".
Result<AcceptorPtr> listenTcp(asio::io_context& ctx, const std::string& host, uint16_t port, std::string_view what);

// After an accept error other than cancellation: logs it and waits 100 ms.
asio::awaitable<void> pauseAfterAcceptError(const AcceptorPtr& acc, const asio::error_code& ec, std::string_view what);

// Closes `acc` on `ctx` (asio objects are not thread-safe) and waits for it (up to 5 s), or
// closes it here when the io_context's thread no longer runs (`running` false).
void closeAcceptor(asio::io_context& ctx, const AcceptorPtr& acc, bool running);

}  // namespace rmq::net
