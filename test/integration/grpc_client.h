#pragma once
// A RocketMQ 5.x client's calls for integration tests: the transport's GrpcChannel on its own io
// thread, apache.rocketmq.v2 messages in and out, the metadata the official clients send.
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "apache/rocketmq/v2/service.pb.h"
#include "grpc/grpc_channel.h"
#include "net/io_pool.h"

namespace rmq::test {

namespace v2 = apache::rocketmq::v2;

class GrpcTestClient {
 public:
  // Connects to 127.0.0.1:port (plaintext, or TLS with `tls`).
  explicit GrpcTestClient(uint16_t port, bool tls = false, std::string clientId = "127.0.0.1@4242@0@test");
  ~GrpcTestClient();

  grpc::Metadata metadata() const;  // x-mq-client-id, language, version, date-time (+ authorization)
  // Signs every call as the 5.x SDKs do (MQv2-HMAC-SHA1 over x-mq-date-time).
  void setCredentials(std::string accessKey, std::string secretKey);

  // One unary call; REQUIREs gRPC OK and a parsable response.
  template <class Resp, class Req>
  Resp unary(const std::string& rpc, const Req& req, grpc::Metadata md) {
    auto r = unaryRaw(rpc, req.SerializeAsString(), std::move(md));
    Resp resp;
    checkParsed(r, resp.ParseFromString(r.response));
    return resp;
  }
  template <class Resp, class Req>
  Resp unary(const std::string& rpc, const Req& req) {
    return unary<Resp>(rpc, req, metadata());
  }
  grpc::UnaryResult unaryRaw(const std::string& rpc, std::string request, grpc::Metadata md);
  // Opens Telemetry, sends `settings`, returns the first command the server answers.
  v2::TelemetryCommand telemetry(const v2::Settings& settings);

  // A Telemetry stream kept open (server -> client commands): open() sends `settings` and returns
  // the settings answer; next() the following command (nullopt: none within `wait`).
  class Stream {
   public:
    std::optional<v2::TelemetryCommand> next(std::chrono::milliseconds wait);
    // Writes a command to the server (an answer: ThreadStackTrace, VerifyMessageResult).
    void send(const v2::TelemetryCommand& cmd);
    void close();
    ~Stream() { close(); }

   private:
    friend class GrpcTestClient;
    GrpcTestClient* owner_ = nullptr;
    std::shared_ptr<grpc::ClientCall> call_;
    std::future<std::optional<std::string>> pending_;  // a read not answered yet (kept across next())
  };
  std::unique_ptr<Stream> openTelemetry(const v2::Settings& settings, v2::TelemetryCommand& answer);

 private:
  void checkParsed(const grpc::UnaryResult& r, bool parsed);

  net::IoPool io_{1};
  std::shared_ptr<grpc::GrpcChannel> channel_;
  std::string clientId_;
  std::string accessKey_, secretKey_;
};

v2::Message grpcMessage(const std::string& topic, v2::MessageType type, const std::string& id);
// A 34-hex 5.x message id, unique in this process.
std::string newMessageId();

}  // namespace rmq::test
