#include "test_client.h"

#include "common/json.h"

namespace rmq::test {

net::RemotingCommand request(int code, Fields fields, std::string body, int version) {
  auto cmd = net::RemotingCommand::request(code);
  for (auto& [k, v] : fields) cmd.extFields.set(k, v);
  cmd.body = std::move(body);
  cmd.version = version;
  return cmd;
}

TestClient::TestClient() : TestClient(net::ClientOptions{}) {}

TestClient::TestClient(net::ClientOptions options) : pool_(std::make_unique<net::IoPool>(1)) {
  pool_->start();
  client_ = std::make_unique<net::RemotingClient>(*pool_, std::move(options));
}

TestClient::~TestClient() {
  client_->shutdown();
  client_.reset();
  pool_->stop();
}

Result<net::RemotingCommand> TestClient::call(const std::string& addr, net::RemotingCommand req,
                                              std::chrono::milliseconds timeout) {
  return client_->invokeSync(addr, std::move(req), timeout);
}

std::string bodyOf(const net::RemotingCommand& resp) {
  std::string b = resp.body;
  for (auto& seg : resp.bodySegments) b.append(seg.data, seg.size);
  return b;
}

rapidjson::Document parseJson(const std::string& text) {
  rapidjson::Document doc;
  auto r = json::parse(text, doc);
  if (!r) doc.SetNull();
  return doc;
}

}  // namespace rmq::test
