#pragma once
// Helpers of the transaction integration tests (broker_transaction_test, broker_transaction_check_test):
// half-message sends, END_TRANSACTION frames, pulls of the system queues, a test producer's inbox of
// CHECK_TRANSACTION_STATE requests and its answers.
#include <doctest/doctest.h>

#include <chrono>
#include <mutex>

#include "broker_calls.h"
#include "test_client.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::test::tx {


const std::string kHalf = "RMQ_SYS_TRANS_HALF_TOPIC";
const std::string kOp = "RMQ_SYS_TRANS_OP_HALF_TOPIC";

inline SendSpec halfSpec(const std::string& topic, const std::string& body, const std::string& group) {
  SendSpec s;
  s.topic = topic;
  s.queueId = 1;
  s.body = body;
  s.tags = "TagT";
  s.keys = "key-" + body;
  s.bornTimestamp = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();  // checks count age from born
  s.extraProps = {{"TRAN_MSG", "true"}, {"PGROUP", group}, {"UNIQ_KEY", "7F0000010000" + body}};
  return s;
}

inline net::RemotingCommand endTransaction(const std::string& group, int64_t halfQueueOffset, int64_t commitLogOffset,
                                    int decision, const std::string& msgId, bool fromCheck) {
  return request(RequestCode::END_TRANSACTION,
                 {{"producerGroup", group},
                  {"tranStateTableOffset", std::to_string(halfQueueOffset)},
                  {"commitLogOffset", std::to_string(commitLogOffset)},
                  {"commitOrRollback", std::to_string(decision)},
                  {"fromTransactionCheck", fromCheck ? "true" : "false"},
                  {"msgId", msgId},
                  {"transactionId", msgId}});
}

// Messages of topic/queueId from `offset` (group "cg_tx_test").
inline std::vector<MessageExt> pullAt(TestClient& c, const std::string& addr, const std::string& topic, int32_t queueId,
                               int64_t offset = 0, const std::string& group = "cg_tx_test") {
  PullSpec p;
  p.group = group;
  p.topic = topic;
  p.queueId = queueId;
  p.offset = offset;
  return pullMessages(c, addr, p);
}

// A property's value, "<none>" when absent.
inline std::string propOf(const MessageExt& m, std::string_view name) {
  auto* v = m.property(name);
  return v ? *v : "<none>";
}

// Every record of the half queue whose body is `body`, in queue order.
inline std::vector<MessageExt> halvesOf(TestClient& c, const std::string& addr, const std::string& body) {
  std::vector<MessageExt> out;
  for (int64_t off = 0;;) {
    auto msgs = pullAt(c, addr, kHalf, 0, off);
    if (msgs.empty()) break;
    for (auto& m : msgs)
      if (m.body == body) out.push_back(m);
    off = msgs.back().queueOffset + 1;
  }
  return out;
}

// The half record at `halfOffset` (REQUIREd).
inline MessageExt halfAt(TestClient& c, const std::string& addr, int64_t halfOffset) {
  REQUIRE(dispatched(c, addr, kHalf, 0, halfOffset + 1));
  auto msgs = pullAt(c, addr, kHalf, 0, halfOffset, "cg_tx_test");
  REQUIRE(!msgs.empty());
  return msgs[0];
}

// CHECK_TRANSACTION_STATE requests a test producer received.
struct CheckInbox {
  std::mutex mu;
  std::vector<net::RemotingCommand> got;
  void attach(TestClient& c) {
    c.raw().dispatcher().registerProcessor(
        RequestCode::CHECK_TRANSACTION_STATE,
        [this](net::ConnectionPtr, net::RemotingCommand req) -> asio::awaitable<std::optional<net::RemotingCommand>> {
          std::lock_guard lk(mu);
          got.push_back(std::move(req));
          co_return std::nullopt;
        });
  }
  size_t size() {
    std::lock_guard lk(mu);
    return got.size();
  }
  std::optional<net::RemotingCommand> findByBody(const std::string& body) {
    std::lock_guard lk(mu);  // the latest check about that message
    for (auto it = got.rbegin(); it != got.rend(); ++it) {
      auto m = decodeMessage(it->body);
      if (m && m->body == body) return *it;
    }
    return std::nullopt;
  }
  size_t countByBody(const std::string& body) {
    std::lock_guard lk(mu);
    size_t n = 0;
    for (auto& r : got)
      if (auto m = decodeMessage(r.body); m && m->body == body) ++n;
    return n;
  }
};

// Answers a check with a decision (as a client does, fromTransactionCheck=true).
inline void answer(TestClient& c, const std::string& addr, const std::string& group, const net::RemotingCommand& check,
            int decision) {
  auto r = invoke(c, addr,
                endTransaction(group, check.extFields.getInt("tranStateTableOffset").value_or(-1),
                               check.extFields.getInt("commitLogOffset").value_or(-1), decision,
                               std::string(check.extFields.get("msgId")), true));
  CHECK_MESSAGE(r.code == 0, r.remark.value_or(""));
}

// Creates `topic` (2 queues) and makes `producer` a live producer of `group` whose checks land in `inbox`.
inline void setUpCheckedProducer(const std::string& addr, const std::string& topic, TestClient& producer,
                                 CheckInbox& inbox, const std::string& clientId, const std::string& group) {
  {
    TestClient admin;
    createTopic(admin, addr, topic, 2);
  }
  inbox.attach(producer);
  REQUIRE(invoke(producer, addr, heartbeatRequest(clientId, "", {}, {group})).code == 0);
}

}  // namespace rmq::test::tx
