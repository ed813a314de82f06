// EtcdClient's connection reuse (HTTP/1.1 keep-alive), against a fake gateway on the test's
// io_context that counts connections and requests.
#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include <string>

#include "coord/etcd_client.h"
#include "coord_test_util.h"

using namespace rmq::coord;
using rmq::coord::test::runOn;
using asio::use_awaitable;
using asio::experimental::as_tuple;

namespace {

struct FakeGateway {
  // dropSecond: a connection's second request is read and the connection closed unanswered (a
  // server that closed an idle keep-alive connection as the request arrived).
  FakeGateway(asio::io_context& io, bool dropSecond)
      : acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)), dropSecond(dropSecond) {
    asio::co_spawn(io, acceptLoop(), asio::detached);
  }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()); }

  asio::awaitable<void> acceptLoop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(as_tuple(use_awaitable));
      if (ec) co_return;
      ++connections;
      asio::co_spawn(acceptor.get_executor(), session(std::move(socket)), asio::detached);
    }
  }

  // One whole request (head + Content-Length body) out of `buf`; false at EOF.
  static asio::awaitable<bool> readRequest(asio::ip::tcp::socket& socket, std::string& buf) {
    for (;;) {
      auto head = buf.find("\r\n\r\n");
      if (head != std::string::npos) {
        auto at = buf.find("Content-Length: ");
        size_t length = at < head ? std::stoul(buf.substr(at + 16)) : 0;
        if (buf.size() >= head + 4 + length) {
          buf.erase(0, head + 4 + length);
          co_return true;
        }
      }
      char chunk[4096];
      auto [ec, n] = co_await socket.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
      if (ec) co_return false;
      buf.append(chunk, n);
    }
  }

  asio::awaitable<void> session(asio::ip::tcp::socket socket) {
    std::string buf;
    for (int n = 1;; ++n) {
      if (!co_await readRequest(socket, buf)) co_return;
      ++requests;
      if (dropSecond && n == 2) co_return;  // the socket closes with the frame
      const std::string body = R"({"header":{"revision":"7"}})";
      std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body;
      auto [ec, written] = co_await asio::async_write(socket, asio::buffer(answer), as_tuple(use_awaitable));
      if (ec) co_return;
    }
  }

  asio::ip::tcp::acceptor acceptor;
  bool dropSecond;
  int connections = 0;
  int requests = 0;
};

}  // namespace

TEST_CASE("etcd client keep-alive: sequential calls share one connection") {
  asio::io_context io;
  FakeGateway fake(io, false);
  EtcdClient client(io.get_executor(), EtcdOptions{.endpoints = {fake.endpoint()}});
  for (int i = 0; i < 3; ++i) {
    auto r = runOn(io, client.put("/k", "v"));
    REQUIRE_MESSAGE(r, r.error().message);
    CHECK(r.value() == 7);
  }
  CHECK(fake.requests == 3);
  CHECK(fake.connections == 1);
}

TEST_CASE("etcd client keep-alive: a kept connection the server closed is replaced once and the call succeeds") {
  asio::io_context io;
  FakeGateway fake(io, true);
  EtcdClient client(io.get_executor(), EtcdOptions{.endpoints = {fake.endpoint()}});
  REQUIRE(runOn(io, client.put("/k", "v")));
  CHECK(fake.connections == 1);
  auto second = runOn(io, client.put("/k", "v"));
  REQUIRE_MESSAGE(second, second.error().message);
  CHECK(second.value() == 7);
  CHECK(fake.requests == 3);     // the dropped one, then again on a fresh connection
  CHECK(fake.connections == 2);
}
