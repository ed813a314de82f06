#pragma once
// An in-memory grpc::ServerCall for the MessagingService unit tests: requests queued up front,
// responses and the final status recorded; the handler runs on a test io_context.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grpc/server_call.h"
#include "roles/broker/messaging/messaging_service.h"

namespace rmq::broker::messaging::test {

class FakeCall : public grpc::ServerCall {
 public:
  FakeCall(asio::io_context& io, std::string path) : io_(io), path_(std::move(path)) {}
  std::map<std::string, std::string> meta{{"x-mq-client-id", "host@1@0@abc"}};
  std::deque<std::string> requests;
  std::vector<std::string> written;
  std::optional<grpc::Status> status;
  std::string peer = "127.0.0.1:40000", local = "127.0.0.1:8081";

  const std::string& path() const override { return path_; }
  std::string_view metadata(std::string_view name) const override {
    auto it = meta.find(std::string(name));
    return it == meta.end() ? std::string_view() : std::string_view(it->second);
  }
  const std::string& peerAddress() const override { return peer; }
  const std::string& localAddress() const override { return local; }
  uint64_t connectionId() const override { return 1; }
  bool isTls() const override { return false; }
  std::chrono::steady_clock::time_point deadline() const override { return std::chrono::steady_clock::time_point::max(); }
  asio::any_io_executor executor() const override { return io_.get_executor(); }
  asio::awaitable<std::optional<std::string>> read() override {
    if (requests.empty() || status) co_return std::nullopt;
    std::string r = std::move(requests.front());
    requests.pop_front();
    co_return r;
  }
  bool write(std::string message) override {
    if (status) return false;
    written.push_back(std::move(message));
    return true;
  }
  void finish(grpc::Status s) override {
    if (!status) status = std::move(s);
  }
  bool done() const override { return status.has_value(); }
  void setCancelHandler(std::function<void()>) override {}

  template <class M>
  M response(size_t i = 0) const {
    M m;
    REQUIRE(i < written.size());
    REQUIRE(m.ParseFromString(written[i]));
    return m;
  }

 private:
  asio::io_context& io_;
  std::string path_;
};

// The service's handlers by RPC name, run to completion on a private io_context.
struct ServiceHarness {
  asio::io_context io;
  std::unique_ptr<MessagingService> service;
  std::map<std::string, grpc::CallHandler> handlers;

  explicit ServiceHarness(MessagingDeps deps, const acl::AclManager* acl = nullptr) {
    service = std::make_unique<MessagingService>(std::move(deps), acl);
    service->registerTo([this](std::string path, grpc::CallHandler h) {
      handlers[path.substr(kServicePath.size())] = std::move(h);
    });
  }
  std::shared_ptr<FakeCall> call(const std::string& rpc) {
    return std::make_shared<FakeCall>(io, std::string(kServicePath) + rpc);
  }
  void run(const std::string& rpc, const std::shared_ptr<FakeCall>& c) {
    REQUIRE(handlers.count(rpc));
    asio::co_spawn(io, handlers[rpc](c), asio::detached);
    io.restart();
    io.run();
  }
  // One unary request -> its response.
  template <class Resp, class Req>
  Resp unary(const std::string& rpc, const Req& req, std::shared_ptr<FakeCall> c = nullptr) {
    if (!c) c = call(rpc);
    c->requests.push_back(req.SerializeAsString());
    run(rpc, c);
    REQUIRE(c->status);
    CHECK(c->status->code == grpc::StatusCode::OK);
    return c->template response<Resp>();
  }
};

}  // namespace rmq::broker::messaging::test
