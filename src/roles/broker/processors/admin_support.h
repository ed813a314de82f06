#pragma once
// Helpers shared by the admin-side processors: responses, typed header reads with Java's
// "required field" errors, MessageQueue keys, and running blocking work off the network threads.
#include <chrono>
#include <asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/wall_clock.h"
#include "net/remoting_command.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {
struct SubscriptionData;
namespace json {
class Writer;
}
}  // namespace rmq::broker

namespace rmq::broker::admin {

using net::RemotingCommand;
using Reply = asio::awaitable<std::optional<RemotingCommand>>;

RemotingCommand success(std::string body = {});
// %RETRY%<group> / %DLQ%<group> as a give-back creates them (Java's
// createTopicInSendMessageBackMethod, read+write); a new one is registered with the name servers soon.
TopicConfig ensureSendBackTopic(BrokerContext& ctx, const std::string& topic, int32_t queues, int32_t sysFlag);
RemotingCommand failure(int code, std::string remark);
inline RemotingCommand failure(const Error& e) { return failure(e.code, e.message); }

// Header fields (extFields). Required ones answer SYSTEM_ERROR naming the missing field, like
// Java's RemotingCommand.decodeCommandCustomHeader ("the custom field <x> is null").
Result<std::string> requireString(const RemotingCommand& cmd, std::string_view key);
Result<int64_t> requireInt(const RemotingCommand& cmd, std::string_view key);
Result<bool> requireBool(const RemotingCommand& cmd, std::string_view key);
std::string optString(const RemotingCommand& cmd, std::string_view key, std::string_view dflt = {});
int64_t optInt(const RemotingCommand& cmd, std::string_view key, int64_t dflt);
bool optBool(const RemotingCommand& cmd, std::string_view key, bool dflt);

// {"brokerName":"b","queueId":0,"topic":"t"} (fastjson field order), for object map keys.
std::string mqJson(std::string_view topic, std::string_view brokerName, int32_t queueId);

// Hands `job` to ctx.background (file writes and deletes must not block network threads);
// inline when there is no background executor. Fire-and-forget: the answer does not wait.
void postBackground(BrokerContext& ctx, std::function<void()> job);
// Registers with every name server now and completes when they answered (or timed out), as
// Java's registerBrokerAll from an admin request; without a registrar, asks for one soon.
asio::awaitable<void> registerWithNameServersNow(BrokerContext& ctx);
// registerTopicNow (the one topic, awaited) when the controller set it, else registerBrokerAllSoon.
asio::awaitable<void> registerTopicWithNameServersNow(BrokerContext& ctx, TopicConfig topic);
// Makes the metadata managers persist on ctx.background instead of the calling thread: a change
// after a quiet spell is written at once; within max(kMetadataPersistDelay, the last write's
// duration) of the last write's end it waits for that gap (changes meanwhile join it). The guarantee an admin answer gives: SUCCESS = in the fsync'd file
// within that delay plus one write of the table (broker README "Topic table durability").
inline constexpr std::chrono::milliseconds kMetadataPersistDelay{100};
void persistManagersInBackground(BrokerContext& ctx);

// SubscriptionData as fastjson writes it (sorted keys).
void writeSubscription(json::Writer& w, const SubscriptionData& s);

// "yyyy-MM-dd HH:mm:ss,SSS" in local time (UtilAll.timeMillisToHumanString2), "" for <= 0.
std::string humanTime(int64_t millis);

}  // namespace rmq::broker::admin
