#pragma once
// How a TLS connection starts: the server's look at the first byte (Java's HandshakeHandler:
// 0x16, a TLS handshake record, or anything else = a remoting frame, whose first byte is the high
// byte of its length) and the handshake itself, both bounded in time. Run on the socket's
// io_context before the connection's loops start; a failure closes only that connection.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <chrono>
#include <memory>

#include "common/result.h"
#include "net/tls_context.h"
#include "net/tls_session.h"

namespace rmq::net {

constexpr uint8_t kTlsHandshakeRecord = 0x16;  // TLS record type "handshake" (a ClientHello starts so)

// What a server in `mode` does with a connection whose first byte is `first`. Disabled servers do
// not call this: they never look (a ClientHello is then a bad frame length, as before).
enum class FirstByteVerdict { Plaintext, Tls, Refuse };
FirstByteVerdict judgeFirstByte(uint8_t first, TlsMode mode);

// A server port's TLS: mode and context (null when disabled).
struct ServerTls {
  TlsMode mode = TlsMode::Disabled;
  TlsContextPtr context;
};

// A newly accepted connection on a permissive or enforcing port: waits (up to `firstByteTimeout`,
// 0 = no bound) for its first byte without taking it, then either hands it back as plaintext
// (null session), or completes the TLS handshake within `handshakeTimeout` (session), or refuses
// it (error naming the reason, for one log line; the caller closes the socket). A peer that
// closes before sending anything (a port probe) is CLIENT_CONNECTION_CLOSED: not worth a warning.
asio::awaitable<Result<std::unique_ptr<TlsSession>>> admitConnection(asio::ip::tcp::socket& socket,
                                                                      const ServerTls& tls,
                                                                      std::chrono::seconds firstByteTimeout,
                                                                      std::chrono::seconds handshakeTimeout);

// The client side: a TLS session on a connected socket, handshake done within `timeout`.
asio::awaitable<Result<std::unique_ptr<TlsSession>>> connectTls(asio::ip::tcp::socket& socket, const TlsContext& tls,
                                                                std::chrono::milliseconds timeout);

// Sends all of `data` through `tls` on `socket`, waiting for the socket whenever OpenSSL must (a
// write it could not finish is retried with the same bytes: SSL_write's rule). `progress`, when
// given, is set to now each time bytes went out (a write-stall clock). Used by every TLS writer.
asio::awaitable<asio::error_code> writeAllTls(asio::ip::tcp::socket& socket, TlsSession& tls, const char* data,
                                              size_t size, std::chrono::steady_clock::time_point* progress = nullptr);

}  // namespace rmq::net
