#pragma once
// Broker calls that assert as they go (doctest REQUIRE), for tests that talk to a broker over a
// TestClient: the shared send / wait-for-dispatch / pull steps and JSON bodies.
#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker_requests.h"
#include "test_client.h"

namespace rmq::test {

// Calls and REQUIREs a transport-level answer (any response code).
net::RemotingCommand invoke(TestClient& c, const std::string& addr, net::RemotingCommand req);
// The response body as JSON (REQUIREs JSON).
rapidjson::Document parseBody(const net::RemotingCommand& resp);

// UPDATE_AND_CREATE_TOPIC (REQUIREs SUCCESS).
void createTopic(TestClient& c, const std::string& addr, const std::string& topic, int queues);

// Sends and returns the answer (REQUIREs SUCCESS).
net::RemotingCommand sendOk(TestClient& c, const std::string& addr, const SendSpec& s);
// Sends each (REQUIREs SUCCESS), then waits until every queue written holds what was sent in its
// consume queue (REQUIREd): a send is acknowledged once in the commit log, dispatch follows.
std::vector<net::RemotingCommand> sendDispatched(TestClient& c, const std::string& addr,
                                                 const std::vector<SendSpec>& sends);

// The consume queue's max offset (GET_MAX_OFFSET), -1 without an answer.
int64_t maxOffset(TestClient& c, const std::string& addr, const std::string& topic, int32_t queueId);
// Waits (bounded, 10 s) until topic/queueId's consume queue holds `count` messages.
bool dispatched(TestClient& c, const std::string& addr, const std::string& topic, int32_t queueId, int64_t count);

// PULL_MESSAGE (REQUIREs an answer); the messages when FOUND, else none.
std::vector<MessageExt> pullMessages(TestClient& c, const std::string& addr, const PullSpec& p);

// A broker's GET_BROKER_RUNTIME_INFO table; nullopt when it does not answer in `timeout` (no REQUIRE:
// pollers call it while brokers die and come back).
std::optional<std::map<std::string, std::string>> brokerRuntimeInfo(TestClient& c, const std::string& addr,
                                                                    std::chrono::milliseconds timeout);
// One value of it; nullopt when the broker does not answer or has no such key.
std::optional<std::string> brokerRuntimeValue(TestClient& c, const std::string& addr, const std::string& key,
                                              std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace rmq::test
