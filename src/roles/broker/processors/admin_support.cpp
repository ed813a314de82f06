#include "roles/broker/processors/admin_support.h"

#include <asio/steady_timer.hpp>

#include <algorithm>

#include <chrono>
#include <ctime>

#include <asio/post.hpp>

#include <fmt/format.h>

#include "common/json.h"
#include "common/response_code.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"

namespace rmq::broker::admin {

TopicConfig ensureSendBackTopic(BrokerContext& ctx, const std::string& topic, int32_t queues, int32_t sysFlag) {
  bool created = false;
  auto config = ctx.topics.createTopicInSendMessageBackMethod(topic, queues, perm::READ | perm::WRITE, sysFlag, &created);
  if (created && ctx.registerBrokerAllSoon) ctx.registerBrokerAllSoon();
  return config;
}

RemotingCommand success(std::string body) {
  auto r = RemotingCommand::response(ResponseCode::SUCCESS);
  r.body = std::move(body);
  return r;
}

RemotingCommand failure(int code, std::string remark) {
  return RemotingCommand::response(code, std::move(remark));
}

namespace {
Error missing(std::string_view key) {
  return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("the custom field <{}> is null", key));
}
}  // namespace

Result<std::string> requireString(const RemotingCommand& cmd, std::string_view key) {
  const std::string* v = cmd.extFields.find(key);
  if (!v) return missing(key);
  return *v;
}

Result<int64_t> requireInt(const RemotingCommand& cmd, std::string_view key) {
  if (!cmd.extFields.contains(key)) return missing(key);
  auto v = cmd.extFields.getInt(key);
  if (!v) return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("the custom field <{}> is not a number", key));
  return *v;
}

Result<bool> requireBool(const RemotingCommand& cmd, std::string_view key) {
  if (!cmd.extFields.contains(key)) return missing(key);
  return cmd.extFields.getBool(key).value_or(false);
}

std::string optString(const RemotingCommand& cmd, std::string_view key, std::string_view dflt) {
  const std::string* v = cmd.extFields.find(key);
  return v ? *v : std::string(dflt);
}

int64_t optInt(const RemotingCommand& cmd, std::string_view key, int64_t dflt) {
  return cmd.extFields.getInt(key).value_or(dflt);
}

bool optBool(const RemotingCommand& cmd, std::string_view key, bool dflt) {
  return cmd.extFields.getBool(key).value_or(dflt);
}

std::string mqJson(std::string_view topic, std::string_view brokerName, int32_t queueId) {
  return rmq::json::messageQueueKeyText({std::string(topic), std::string(brokerName), queueId});
}

void postBackground(BrokerContext& ctx, std::function<void()> job) {
  if (!ctx.background) {
    job();
    return;
  }
  asio::post(ctx.background, std::move(job));
}

asio::awaitable<void> registerWithNameServersNow(BrokerContext& ctx) {
  if (ctx.registerBrokerAllNow) {
    auto registered = ctx.registerBrokerAllNow();
    co_await std::move(registered);
  } else if (ctx.registerBrokerAllSoon) {
    ctx.registerBrokerAllSoon();
  }
}

asio::awaitable<void> registerTopicWithNameServersNow(BrokerContext& ctx, TopicConfig topic) {
  if (ctx.registerTopicNow) {
    auto registered = ctx.registerTopicNow(std::move(topic));
    co_await std::move(registered);
  } else if (ctx.registerBrokerAllSoon) {
    ctx.registerBrokerAllSoon();
  }
}

void persistManagersInBackground(BrokerContext& ctx) {
  if (!ctx.background) return;
  // A write starts at once after a quiet spell, else kMetadataPersistDelay (or the last write's
  // duration, when longer) after the last write ended: the changes of a burst of topic creations
  // share writes (PersistSoon coalesces).
  auto exec = [ex = ctx.background](std::chrono::milliseconds delay, std::function<void()> job) {
    auto timer = std::make_shared<asio::steady_timer>(ex, delay);
    timer->async_wait([timer, job = std::move(job)](const std::error_code&) { job(); });
  };
  ctx.topics.setPersistExecutor(exec, kMetadataPersistDelay);
  ctx.groups.setPersistExecutor(exec, kMetadataPersistDelay);
}

void writeSubscription(json::Writer& w, const SubscriptionData& s) {
  w.beginObject().key("classFilterMode").value(s.classFilterMode).key("codeSet").beginArray();
  for (auto c : s.codeSet) w.value(c);
  w.endArray().key("expressionType").value(s.expressionType).key("subString").value(s.subString)
      .key("subVersion").value(s.subVersion).key("tagsSet").beginArray();
  for (auto& t : s.tagsSet) w.value(t);
  w.endArray().key("topic").value(s.topic).endObject();
}

std::string humanTime(int64_t millis) {
  if (millis <= 0) return {};
  std::time_t secs = static_cast<std::time_t>(millis / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02},{:03}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis % 1000);
}

}  // namespace rmq::broker::admin
