#pragma once
// TestClient: a blocking remoting client for integration tests (our net::RemotingClient on its
// own network thread), request building from (code, fields) and response body access.
// Server-initiated requests reach raw().dispatcher().
#include <rapidjson/document.h>

#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "common/result.h"
#include "net/io_pool.h"
#include "net/remoting_client.h"
#include "net/remoting_command.h"

namespace rmq::test {

using Fields = std::initializer_list<std::pair<const char*, std::string>>;

// A request with string ext fields and a body.
net::RemotingCommand request(int code, Fields fields = {}, std::string body = {}, int version = net::kCurrentVersion);

class TestClient {
 public:
  TestClient();
  explicit TestClient(net::ClientOptions options);  // e.g. with a TLS context
  ~TestClient();
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  net::RemotingClient& raw() { return *client_; }
  Result<net::RemotingCommand> call(const std::string& addr, net::RemotingCommand req,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(10));
  Result<net::RemotingCommand> call(const std::string& addr, int code, Fields fields = {}, std::string body = {},
                                    int version = net::kCurrentVersion) {
    return call(addr, request(code, fields, std::move(body), version));
  }
  void closeConnection(const std::string& addr) { client_->closeConnection(addr); }

 private:
  std::unique_ptr<net::IoPool> pool_;
  std::unique_ptr<net::RemotingClient> client_;
};

// Response code of an invoke, or -1000 for a transport failure.
inline int codeOf(const Result<net::RemotingCommand>& r) { return r ? r->code : -1000; }
// The body of a response, its segments (zero-copy pull answers) appended.
std::string bodyOf(const net::RemotingCommand& resp);
// A JSON document (Null when `text` is not JSON).
rapidjson::Document parseJson(const std::string& text);

}  // namespace rmq::test
