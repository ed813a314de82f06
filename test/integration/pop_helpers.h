#pragma once
// POP over remoting for the pop_*_test files: POP_MESSAGE / ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME
// requests with Java 5.x's header fields, the answer decoded (messages carry their receipt handle
// in POP_CK), and a subscription group with POP settings.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/message.h"
#include "net/remoting_command.h"
#include "test_client.h"

namespace rmq::test {

struct PopSpec {
  std::string group;
  std::string topic;
  int32_t queueId = -1;
  int32_t maxNums = 32;
  int64_t invisibleMs = 30000;
  int64_t pollMs = 0;
  std::string expType = "TAG";
  std::string exp = "*";
  bool order = false;
  std::string attemptId;
};

struct Popped {
  int code = -1000;
  std::vector<MessageExt> messages;
  net::RemotingCommand resp;
};

Popped popMessages(TestClient& c, const std::string& addr, const PopSpec& s);
// The same without REQUIREs (threads; a broker that may be down): nullopt on a transport failure.
std::optional<Popped> tryPop(TestClient& c, const std::string& addr, const PopSpec& s);
// The receipt handle of a popped message (its POP_CK).
std::string handleOf(const MessageExt& m);
// ACK_MESSAGE; the response code.
int ackMessage(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
               const MessageExt& m, const std::string& handle = {});
// ACK_MESSAGE of `m`'s own handle without REQUIREs: the code, -1000 on a transport failure.
int tryAck(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
           const MessageExt& m);
// CHANGE_MESSAGE_INVISIBLETIME; the response (code, and extraInfo = the new handle).
net::RemotingCommand changeInvisible(TestClient& c, const std::string& addr, const std::string& group,
                                     const std::string& topic, const MessageExt& m, const std::string& handle,
                                     int64_t invisibleMs);
// BATCH_ACK_MESSAGE (5.x BatchAckMessageRequestBody, fastjson's short names) of `ms`: one BatchAck
// per (queue, popTime of its handle), as a 5.x client groups them, the bits counted from the
// smallest offset. The response.
net::RemotingCommand batchAck(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
                              const std::vector<MessageExt>& ms, const std::string& brokerName = "");
// PEEK_MESSAGE; the response (its messages: pulledMessages).
net::RemotingCommand peekMessages(TestClient& c, const std::string& addr, const std::string& group,
                                  const std::string& topic, int32_t queueId, int32_t maxNums);
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (REQUIREs SUCCESS).
void createPopGroup(TestClient& c, const std::string& addr, const std::string& group, int retryMaxTimes,
                    bool orderly);
// QUERY_CONSUMER_OFFSET, -1 when there is none.
int64_t consumerOffset(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
                       int32_t queueId);

}  // namespace rmq::test
