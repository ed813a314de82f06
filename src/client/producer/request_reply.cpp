#include "client/producer/request_reply.h"

#include <asio/post.hpp>
#include <random>

#include "client/client_instance.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"

namespace rmq::client {

namespace {
constexpr std::string_view kReplyFlag = "reply";        // Java MixAll.REPLY_MESSAGE_FLAG
constexpr std::string_view kReplyTopicSuffix = "_REPLY_TOPIC";
// Timers are not thread-safe: cancel (and release) on the io thread that waits on them.
void cancelOnItsThread(std::shared_ptr<asio::steady_timer> timer) {
  if (!timer) return;
  auto ex = timer->get_executor();
  asio::post(ex, [t = std::move(timer)] { t->cancel(); });
}

}  // namespace

Result<Message> createReplyMessage(const Message& request, std::string body) {
  const std::string* cluster = request.property(prop::CLUSTER);
  if (!cluster)
    return makeError(client_error::CREATE_REPLY_MESSAGE_EXCEPTION,
                     "create reply message fail, requestMessage error, property[CLUSTER] is null.");
  Message reply;
  reply.topic = *cluster + std::string(kReplyTopicSuffix);
  reply.body = std::move(body);
  reply.putProperty(prop::MSG_TYPE, kReplyFlag);
  for (auto name : {prop::CORRELATION_ID, prop::REPLY_TO_CLIENT, prop::TTL})
    if (const std::string* v = request.property(name)) reply.putProperty(name, *v);
  return reply;
}

std::string createCorrelationId() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ull) | 0x4000ull;                      // version 4
  lo = (lo & ~(0xC0ull << 56)) | (0x80ull << 56);          // variant 10
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    uint64_t word = i < 16 ? hi : lo;
    out += hex[(word >> (60 - 4 * (i % 16))) & 0xF];
  }
  return out;
}

bool isReplyProperties(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    size_t end = s.find(prop::PROPERTY_SEPARATOR, pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view item = s.substr(pos, end - pos);
    size_t eq = item.find(prop::NAME_VALUE_SEPARATOR);
    if (eq != std::string_view::npos && item.substr(0, eq) == prop::MSG_TYPE && item.substr(eq + 1) == kReplyFlag)
      return true;
    pos = end + 1;
  }
  return false;
}

Result<MessageExt> decodePushedReply(const net::RemotingCommand& push) {
  const auto& f = push.extFields;
  MessageExt msg;
  msg.topic = std::string(f.get("topic"));
  msg.queueId = static_cast<int32_t>(f.getInt("queueId").value_or(0));
  msg.storeTimestamp = f.getInt("storeTimestamp").value_or(0);
  if (auto h = f.get("bornHost"); !h.empty()) HostAddress::parse(h, msg.bornHost);
  if (auto h = f.get("storeHost"); !h.empty()) HostAddress::parse(h, msg.storeHost);
  msg.sysFlag = static_cast<int32_t>(f.getInt("sysFlag").value_or(0));
  msg.body = push.body;
  if (msg.sysFlag & sysflag::COMPRESSED) {
    auto inflated = zlibInflate(msg.body);
    if (!inflated) return makeError(ResponseCode::SYSTEM_ERROR, "reply body: " + inflated.error().message);
    msg.body = std::move(*inflated);
  }
  msg.flag = static_cast<int32_t>(f.getInt("flag").value_or(0));
  msg.properties = decodeProperties(f.get("properties"));
  msg.putProperty(prop::ARRIVE_TIME, std::to_string(nowMillis()));
  msg.bornTimestamp = f.getInt("bornTimestamp").value_or(0);
  msg.reconsumeTimes = static_cast<int32_t>(f.getInt("reconsumeTimes").value_or(0));
  return msg;
}

void RequestFutureTable::attach(ClientInstance& instance) {
  std::weak_ptr<RequestFutureTable> weak = shared_from_this();
  instance.remoting().dispatcher().registerProcessor(
      RequestCode::PUSH_REPLY_MESSAGE_TO_CLIENT,
      [weak](net::ConnectionPtr, net::RemotingCommand req) -> asio::awaitable<std::optional<net::RemotingCommand>> {
        auto reply = decodePushedReply(req);
        if (!reply) {
          log::warn("unknown err when receiveReplyMsg: {}", reply.error().message);
          co_return net::RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "process reply message fail");
        }
        auto self = weak.lock();
        if (!self || !self->complete(std::move(*reply)))
          log::warn("receive reply message, but not matched any request");
        co_return net::RemotingCommand::response(ResponseCode::SUCCESS);
      });
}

void RequestFutureTable::add(ClientInstance& instance, const std::string& correlationId, const std::string& topic,
                             std::chrono::milliseconds timeout, RequestCallback done) {
  auto timer = std::make_shared<asio::steady_timer>(instance.io(), timeout);
  {
    std::lock_guard lk(mu_);
    entries_[correlationId] = Entry{topic, timeout, false, std::move(done), timer};
  }
  std::weak_ptr<RequestFutureTable> weak = shared_from_this();
  timer->async_wait([weak, correlationId](const std::error_code& ec) {
    if (ec) return;  // cancelled: completed earlier
    if (auto self = weak.lock()) self->expire(correlationId);
  });
}

void RequestFutureTable::markSent(const std::string& correlationId) {
  std::lock_guard lk(mu_);
  if (auto it = entries_.find(correlationId); it != entries_.end()) it->second.sent = true;
}

RequestCallback RequestFutureTable::take(const std::string& correlationId, Entry* out) {
  std::lock_guard lk(mu_);
  auto it = entries_.find(correlationId);
  if (it == entries_.end()) return nullptr;
  Entry e = std::move(it->second);
  entries_.erase(it);
  cancelOnItsThread(std::move(e.timer));
  RequestCallback done = std::move(e.done);
  if (out) *out = std::move(e);
  return done;
}

void RequestFutureTable::expire(const std::string& correlationId) {
  Entry e;
  auto done = take(correlationId, &e);
  if (!done) return;
  if (e.sent)
    done(makeError(client_error::REQUEST_TIMEOUT_EXCEPTION,
                   "send request message to <" + e.topic + "> OK, but wait reply message timeout, " +
                       std::to_string(e.timeout.count()) + " ms."));
  else
    done(makeError(client_error::REQUEST_TIMEOUT_EXCEPTION,
                   "send request message to <" + e.topic + "> fail: no send result within " +
                       std::to_string(e.timeout.count()) + " ms"));
}

void RequestFutureTable::fail(const std::string& correlationId, Error error) {
  Entry e;
  if (auto done = take(correlationId, &e))
    done(makeError(error.code, "send request message to <" + e.topic + "> fail: " + error.message));
}

bool RequestFutureTable::complete(MessageExt reply) {
  const std::string* id = reply.property(prop::CORRELATION_ID);
  if (!id) return false;
  auto done = take(*id);
  if (!done) return false;
  done(std::move(reply));
  return true;
}

void RequestFutureTable::failAll(const Error& error) {
  std::map<std::string, Entry> all;
  {
    std::lock_guard lk(mu_);
    all.swap(entries_);
  }
  for (auto& [id, e] : all) {
    cancelOnItsThread(std::move(e.timer));
    e.done(makeError(error.code, "request to <" + e.topic + ">: " + error.message));
  }
}

size_t RequestFutureTable::pending() const {
  std::lock_guard lk(mu_);
  return entries_.size();
}

}  // namespace rmq::client
