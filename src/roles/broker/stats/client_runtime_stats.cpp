#include "roles/broker/stats/client_runtime_stats.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdlib>
#include <tuple>
#include <utility>
#include <vector>

#include "common/json.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/clients/client_manager.h"

namespace rmq::broker {

namespace {

constexpr std::chrono::milliseconds kAskTimeout{3000};

// A number member as fastjson writes it (number, or a numeric string); 0 when absent.
double numberField(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) return 0;
  if (it->value.IsNumber()) return it->value.GetDouble();
  if (it->value.IsString()) return std::strtod(it->value.GetString(), nullptr);
  return 0;
}

struct Asked {
  std::string group, clientId, clientAddr;
  net::ConnectionPtr conn;
};

// Every online consumer connected here, as (group, client) pairs.
std::vector<Asked> onlineConsumers(ClientManager& clients) {
  std::vector<Asked> out;
  for (const auto& group : clients.consumerGroups()) {
    auto info = clients.consumerGroup(group);
    if (!info) continue;
    for (const auto& [_, ch] : info->channels) {
      if (!ch.conn || !ch.conn->isOpen()) continue;
      out.push_back({group, ch.clientId, ch.conn->remoteAddress(), ch.conn});
    }
  }
  return out;
}

}  // namespace

std::optional<std::map<std::string, ClientConsumeStatus>> parseStatusTable(std::string_view runningInfoJson) {
  rapidjson::Document doc;
  if (auto r = rmq::json::parse(runningInfoJson, doc); !r || !doc.IsObject()) return std::nullopt;
  std::map<std::string, ClientConsumeStatus> out;
  auto table = doc.FindMember("statusTable");
  if (table == doc.MemberEnd() || !table->value.IsObject()) return out;
  for (const auto& m : table->value.GetObject()) {
    if (!m.value.IsObject()) continue;
    ClientConsumeStatus s;
    s.pullRT = numberField(m.value, "pullRT");
    s.pullTPS = numberField(m.value, "pullTPS");
    s.consumeRT = numberField(m.value, "consumeRT");
    s.consumeOKTPS = numberField(m.value, "consumeOKTPS");
    s.consumeFailedTPS = numberField(m.value, "consumeFailedTPS");
    s.consumeFailedMsgs = static_cast<int64_t>(numberField(m.value, "consumeFailedMsgs"));
    out.emplace(std::string(rmq::json::keyView(m.name)), s);
  }
  return out;
}

bool ClientRuntimeStats::Key::operator<(const Key& o) const {
  return std::tie(group, topic, clientId, clientAddr) < std::tie(o.group, o.topic, o.clientId, o.clientAddr);
}

std::shared_ptr<ClientRuntimeStats> ClientRuntimeStats::start(BrokerContext& ctx, std::chrono::milliseconds period) {
  std::shared_ptr<ClientRuntimeStats> self(new ClientRuntimeStats(ctx));
  asio::co_spawn(ctx.background, self->run(period), asio::detached);
  return self;
}

// The coroutine frame holds `self` (a shared_ptr) so the cache outlives the controller's handle
// until the background io_context drops the frame.
asio::awaitable<void> ClientRuntimeStats::run(std::chrono::milliseconds period) {
  auto self = shared_from_this();
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (!ctx_.isShuttingDown()) {
    Table round = co_await collectRound();
    {
      std::lock_guard lk(mu_);
      table_ = std::move(round);
    }
    timer.expires_after(period);
    auto [ec] = co_await timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    if (ec) co_return;
  }
}

// One client after another (each answer within kAskTimeout): a round costs the background thread
// no waiting, only the parsing of the answers.
asio::awaitable<ClientRuntimeStats::Table> ClientRuntimeStats::collectRound() {
  Table round;
  std::vector<Asked> consumers = onlineConsumers(ctx_.clients);
  for (auto& asked : consumers) {
    if (ctx_.isShuttingDown()) break;
    auto request = net::RemotingCommand::request(RequestCode::GET_CONSUMER_RUNNING_INFO);
    request.extFields.set("consumerGroup", asked.group);
    request.extFields.set("clientId", asked.clientId);
    request.extFields.set("jstackEnable", "false");
    auto answer = co_await asked.conn->invoke(std::move(request), kAskTimeout);
    if (!answer || answer->code != ResponseCode::SUCCESS) continue;  // skipped this round
    auto statuses = parseStatusTable(answer->body);
    if (!statuses) continue;
    for (auto& [topic, status] : *statuses) round[Key{asked.clientAddr, asked.clientId, asked.group, topic}] = status;
  }
  co_return round;
}

ClientRuntimeStats::Table ClientRuntimeStats::snapshot() const {
  std::lock_guard lk(mu_);
  return table_;
}

void ClientRuntimeStats::write(const Table& table, metrics::TextWriter& w) {
  struct Family {
    std::string_view name, help;
    double (*value)(const ClientConsumeStatus&);
  };
  static constexpr Family kFamilies[] = {
      {"rocketmq_client_consume_fail_msg_count", "consumerClientFailedMsgCounts",
       [](const ClientConsumeStatus& s) { return static_cast<double>(s.consumeFailedMsgs); }},
      {"rocketmq_client_consume_fail_msg_tps", "consumerClientFailedTPS",
       [](const ClientConsumeStatus& s) { return s.consumeFailedTPS; }},
      {"rocketmq_client_consume_ok_msg_tps", "consumerClientOKTPS", [](const ClientConsumeStatus& s) { return s.consumeOKTPS; }},
      {"rocketmq_client_consume_rt", "consumerClientRT", [](const ClientConsumeStatus& s) { return s.consumeRT; }},
      {"rocketmq_client_consumer_pull_rt", "consumerClientPullRT", [](const ClientConsumeStatus& s) { return s.pullRT; }},
      {"rocketmq_client_consumer_pull_tps", "consumerClientPullTPS", [](const ClientConsumeStatus& s) { return s.pullTPS; }},
  };
  for (const auto& f : kFamilies) {
    w.family(f.name, f.help, "gauge");
    for (const auto& [key, status] : table) {
      w.sample(f.name, {{"clientAddr", key.clientAddr}, {"clientId", key.clientId}, {"group", key.group},
                        {"topic", key.topic}},
               f.value(status));
    }
  }
}

}  // namespace rmq::broker
