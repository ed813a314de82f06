#include "grpc_client.h"

#include <doctest/doctest.h>
#include <openssl/hmac.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <future>
#include <atomic>
#include <ctime>

#include "common/message_id.h"
#include "grpc/grpc_tls.h"

namespace rmq::test {

namespace {

constexpr std::string_view kService = "/apache.rocketmq.v2.MessagingService/";

// Runs `f` on the client's io thread and waits (20 s at most). Not use_future: Result<T> has no
// default constructor, which asio's future handler needs.
template <class T>
T runOn(net::IoPool& io, std::function<asio::awaitable<T>()> f) {
  auto promise = std::make_shared<std::promise<T>>();
  auto future = promise->get_future();
  auto body = [f, promise]() -> asio::awaitable<void> {
    auto work = f();
    T value = co_await std::move(work);
    promise->set_value(std::move(value));
  };
  asio::co_spawn(io.at(0), std::move(body), [promise](std::exception_ptr e) {
    if (e) promise->set_exception(e);
  });
  REQUIRE(future.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  return future.get();
}

std::string dateTime() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace

GrpcTestClient::GrpcTestClient(uint16_t port, bool tls, std::string clientId) : clientId_(std::move(clientId)) {
  io_.start();
  grpc::ChannelOptions o;
  if (tls) {
    auto ctx = grpc::makeGrpcClientTlsContext();
    REQUIRE(ctx.ok());
    o.tls = *ctx;
  }
  auto ch = runOn<Result<std::shared_ptr<grpc::GrpcChannel>>>(
      io_, [port, o]() { return grpc::GrpcChannel::connect("127.0.0.1", port, o); });
  REQUIRE_MESSAGE(ch.ok(), (ch.ok() ? "" : ch.error().message));
  channel_ = *ch;
}

GrpcTestClient::~GrpcTestClient() {
  if (channel_) {
    auto ch = channel_;
    runOn<bool>(io_, [ch]() -> asio::awaitable<bool> {
      ch->close();
      co_return true;
    });
    channel_.reset();
  }
  io_.stop();
}

void GrpcTestClient::setCredentials(std::string accessKey, std::string secretKey) {
  accessKey_ = std::move(accessKey);
  secretKey_ = std::move(secretKey);
}

grpc::Metadata GrpcTestClient::metadata() const {
  std::string dt = dateTime();
  grpc::Metadata md{{"x-mq-client-id", clientId_}, {"x-mq-language", "CPP"}, {"x-mq-client-version", "5.0.8"},
                    {"x-mq-protocol", "v2"}, {"x-mq-date-time", dt}};
  if (!accessKey_.empty()) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha1(), secretKey_.data(), static_cast<int>(secretKey_.size()),
         reinterpret_cast<const unsigned char*>(dt.data()), dt.size(), mac, &len);
    md.emplace_back("authorization", "MQv2-HMAC-SHA1 Credential=" + accessKey_ +
                                         ", SignedHeaders=x-mq-date-time, Signature=" + toHexUpper(mac, len));
  }
  return md;
}

grpc::UnaryResult GrpcTestClient::unaryRaw(const std::string& rpc, std::string request, grpc::Metadata md) {
  auto ch = channel_;
  std::string path = std::string(kService) + rpc;
  return runOn<grpc::UnaryResult>(io_, [ch, path, request, md]() {
    return ch->unary(path, md, request, std::chrono::seconds(10));
  });
}

void GrpcTestClient::checkParsed(const grpc::UnaryResult& r, bool parsed) {
  REQUIRE_MESSAGE(r.status.isOk(), "gRPC status " << static_cast<int>(r.status.code) << " " << r.status.message);
  REQUIRE(parsed);
}

v2::TelemetryCommand GrpcTestClient::telemetry(const v2::Settings& settings) {
  auto ch = channel_;
  v2::TelemetryCommand cmd;
  *cmd.mutable_settings() = settings;
  std::string bytes = cmd.SerializeAsString();
  auto md = metadata();
  auto first = runOn<std::optional<std::string>>(io_, [ch, bytes, md]() -> asio::awaitable<std::optional<std::string>> {
    auto call = ch->start(std::string(kService) + "Telemetry", md, std::chrono::seconds(10));
    call->write(bytes);
    auto reply = co_await call->read();
    call->writesDone();
    co_await call->finish();
    co_return reply;
  });
  REQUIRE(first);
  v2::TelemetryCommand reply;
  REQUIRE(reply.ParseFromString(*first));
  return reply;
}

std::unique_ptr<GrpcTestClient::Stream> GrpcTestClient::openTelemetry(const v2::Settings& settings,
                                                                      v2::TelemetryCommand& answer) {
  auto ch = channel_;
  v2::TelemetryCommand cmd;
  *cmd.mutable_settings() = settings;
  std::string bytes = cmd.SerializeAsString();
  auto md = metadata();
  auto stream = std::make_unique<Stream>();
  stream->owner_ = this;
  stream->call_ = runOn<std::shared_ptr<grpc::ClientCall>>(
      io_, [ch, md]() -> asio::awaitable<std::shared_ptr<grpc::ClientCall>> {
        co_return ch->start(std::string(kService) + "Telemetry", md);
      });
  auto call = stream->call_;
  auto first = runOn<std::optional<std::string>>(io_, [call, bytes]() -> asio::awaitable<std::optional<std::string>> {
    call->write(bytes);
    auto reply = co_await call->read();
    co_return reply;
  });
  REQUIRE(first);
  REQUIRE(answer.ParseFromString(*first));
  return stream;
}

std::optional<v2::TelemetryCommand> GrpcTestClient::Stream::next(std::chrono::milliseconds wait) {
  // One read at a time, started on the client thread; the test thread waits for it at most
  // `wait`, and a read still pending is waited for again by the next call (the stream stays open).
  if (!call_) return std::nullopt;
  if (!pending_.valid()) {
    auto call = call_;
    auto promise = std::make_shared<std::promise<std::optional<std::string>>>();
    pending_ = promise->get_future();
    asio::co_spawn(owner_->io_.at(0), [call, promise]() -> asio::awaitable<void> {
      auto m = co_await call->read();
      promise->set_value(std::move(m));
    }, asio::detached);
  }
  if (pending_.wait_for(wait) != std::future_status::ready) return std::nullopt;
  auto bytes = pending_.get();
  if (!bytes) return std::nullopt;
  v2::TelemetryCommand cmd;
  if (!cmd.ParseFromString(*bytes)) return std::nullopt;
  return cmd;
}

void GrpcTestClient::Stream::send(const v2::TelemetryCommand& cmd) {
  if (!call_) return;
  auto call = call_;
  std::string bytes = cmd.SerializeAsString();
  runOn<bool>(owner_->io_, [call, bytes]() -> asio::awaitable<bool> {
    call->write(bytes);
    co_return true;
  });
}

void GrpcTestClient::Stream::close() {
  if (!call_) return;
  auto call = std::move(call_);
  runOn<bool>(owner_->io_, [call]() -> asio::awaitable<bool> {
    call->cancel();
    co_return true;
  });
  if (pending_.valid()) pending_.wait_for(std::chrono::seconds(5));  // the cancelled read ends
}

std::string newMessageId() {
  static std::atomic<uint32_t> seq{0};
  char buf[40];
  std::snprintf(buf, sizeof buf, "01%012llX%04X%08X%08X", 0xAABBCCDDEEFFull, static_cast<unsigned>(::getpid() & 0xFFFF),
                static_cast<unsigned>(std::time(nullptr)), seq.fetch_add(1));
  return buf;
}

v2::Message grpcMessage(const std::string& topic, v2::MessageType type, const std::string& id) {
  v2::Message m;
  m.mutable_topic()->set_name(topic);
  m.set_body("body of " + id);
  auto* sp = m.mutable_system_properties();
  sp->set_message_id(id);
  sp->set_message_type(type);
  sp->set_tag("TagA");
  sp->add_keys("key-" + id);
  sp->add_keys("second");
  sp->set_born_host("127.0.0.1");
  sp->mutable_born_timestamp()->set_seconds(std::time(nullptr));
  sp->set_body_encoding(v2::Encoding::IDENTITY);
  (*m.mutable_user_properties())["color"] = "red";
  return m;
}

}  // namespace rmq::test
