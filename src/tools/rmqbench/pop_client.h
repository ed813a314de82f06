#pragma once
// PopChannel: the RocketMQ 5.x consumer calls of the POP benchmarks and the POP drill over one
// gRPC connection (grpc/grpc_channel.h): ReceiveMessage (the server stream a SimpleConsumer reads:
// status, messages, delivery timestamp) and AckMessage (one request for a batch of entries).
// Like the GrpcChannel under it, a PopChannel lives on the io_context whose thread connected it.
// Transport failures (broker gone, deadline) are `transportOk = false`, never exceptions.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "grpc/grpc_channel.h"

namespace rmq::bench {

struct ReceiveSpec {
  std::string group, topic;
  int batch = 32;
  int64_t invisibleMs = 30000;
  int64_t pollMs = 1000;  // long polling; the call's deadline is this + 3 s
};

// One delivered message as the benchmarks use it.
struct Delivered {
  std::string messageId, handle, body;
  int attempt = 1;
  int32_t queueId = 0;
  int64_t queueOffset = -1;
  int64_t dueMs = -1;  // when this delivery's invisible time ends (epoch ms; from the handle), -1 unknown
};

struct ReceiveOutcome {
  bool transportOk = true;   // false: the call failed (status in `error`)
  int code = 0;              // v2 Code of the stream's status (20000 OK, 40401 MESSAGE_NOT_FOUND, ...)
  std::string error;
  std::vector<Delivered> messages;
};

struct AckOutcome {
  bool transportOk = true;
  int code = 0;             // the response's top-level v2 code
  std::vector<int> codes;   // per entry, in request order (empty when the call failed)
  std::string error;
};

inline constexpr int kV2Ok = 20000;
inline constexpr int kV2MessageNotFound = 40401;

class PopChannel {
 public:
  static asio::awaitable<Result<std::shared_ptr<PopChannel>>> connect(std::string host, uint16_t port,
                                                                      std::string clientId);
  asio::awaitable<ReceiveOutcome> receive(const ReceiveSpec& spec);
  asio::awaitable<AckOutcome> ack(const std::string& group, const std::string& topic,
                                  const std::vector<const Delivered*>& messages);
  bool isOpen() const { return channel_->isOpen(); }
  void close() { channel_->close(); }

 private:
  PopChannel(std::shared_ptr<grpc::GrpcChannel> ch, grpc::Metadata md) : channel_(std::move(ch)), md_(std::move(md)) {}
  std::shared_ptr<grpc::GrpcChannel> channel_;
  grpc::Metadata md_;
};

// popTime + invisibleTime of a receipt handle in our broker's text form (space-separated:
// startOffset popTime invisibleTime ...): when the delivery becomes due again. -1 for another shape
// (handles are opaque to clients; a benchmark may peek to measure the redelivery delay exactly).
int64_t dueMillisOfHandle(std::string_view handle);

}  // namespace rmq::bench
