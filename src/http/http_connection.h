#pragma once
// One HTTP connection: the read-parse-route-write loop and its deadline watchdog, both coroutines
// on the socket's io_context. Used by HttpServer only.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <functional>
#include <memory>

#include "http/http_router.h"
#include "http/http_server.h"

namespace rmq::http {

// Starts serving `socket` (already on its io_context). `onEnd` runs once on that thread when both
// coroutines are done. The returned closer may be called from any thread to close the connection.
std::function<void()> serveConnection(asio::ip::tcp::socket socket, std::shared_ptr<const HttpRouter> router,
                                      const HttpServerOptions& options, std::function<void()> onEnd);

// The response bytes: status line, Content-Type, Content-Length, Connection: close when !keepAlive,
// extra headers, blank line, body (omitted when headOnly).
std::string serializeResponse(const HttpResponse& response, bool keepAlive, bool headOnly);

}  // namespace rmq::http
