#pragma once
// Test-side helpers for talking to a name server with our net client: a blocking client,
// request builders for REGISTER_BROKER and friends, and JSON body access.
#include <rapidjson/document.h>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "common/result.h"
#include "net/io_pool.h"
#include "net/remoting_client.h"
#include "node_process.h"

namespace rmq::test {

using Fields = std::initializer_list<std::pair<const char*, std::string>>;

class BlockingClient {
 public:
  BlockingClient();
  ~BlockingClient();
  Result<net::RemotingCommand> call(const std::string& addr, int code, Fields fields = {}, std::string body = {},
                                    int version = net::kCurrentVersion);
  Result<net::RemotingCommand> send(const std::string& addr, net::RemotingCommand cmd);
  void closeConnection(const std::string& addr) { client_->closeConnection(addr); }

 private:
  std::unique_ptr<net::IoPool> pool_;
  std::unique_ptr<net::RemotingClient> client_;
};

// RegisterBrokerBody JSON as a 4.9.7 broker sends it; topics are "name:queues[:perm[:sysFlag]]".
std::string registerBody(int64_t counter, std::initializer_list<std::string> topics);
// REGISTER_BROKER request (uncompressed JSON body, bodyCrc32 set).
net::RemotingCommand registerRequest(const std::string& cluster, const std::string& name, int64_t id,
                                     const std::string& addr, const std::string& body);

rapidjson::Document parseJson(const std::string& text);
// Polls `cond` every 50 ms until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout);

// A name server process on a free loopback port (`extra`: more TOML lines); call node.start().
struct Namesrv {
  NodeProcess node;
  uint16_t port = freePort();
  std::string addr = "127.0.0.1:" + std::to_string(port);

  explicit Namesrv(const std::string& extra = "") {
    node.writeFile("ns.toml", namesrvToml(node, port, extra));
    node.setArgs({"--role=namesrv", "-c", node.path("ns.toml")});
    node.waitForPorts({port});
  }
};

// Response code of an invoke, or -1000 for a transport failure.
inline int codeOf(const Result<net::RemotingCommand>& r) { return r ? r->code : -1000; }

}  // namespace rmq::test
