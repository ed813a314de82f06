#include "roles/namesrv/namesrv_processor.h"

#include <asio/co_spawn.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>

#include "common/log.h"
#include "common/wall_clock.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "config/config_loader.h"
#include "config/config_printer.h"
#include "roles/namesrv/register_body.h"

namespace rmq::namesrv {
namespace {

using net::RemotingCommand;
constexpr int32_t kVersionV3_0_11 = 37;  // REGISTER_BROKER body is RegisterBrokerBody from here
constexpr int32_t kVersionV4_9_4 = 401;  // route body in standard JSON from here

RemotingCommand ok() { return RemotingCommand::response(ResponseCode::SUCCESS); }
RemotingCommand fail(int code, std::string remark) { return RemotingCommand::response(code, std::move(remark)); }

// @CFNotNull header fields: the first missing one gives Java's error remark.
std::optional<RemotingCommand> missingField(const RemotingCommand& req, std::initializer_list<const char*> names) {
  for (auto n : names) {
    if (!req.extFields.contains(n)) return fail(ResponseCode::SYSTEM_ERROR, fmt::format("the custom field <{}> is null", n));
  }
  return std::nullopt;
}

std::string field(const RemotingCommand& req, std::string_view name) { return std::string(req.extFields.get(name)); }

RemotingCommand withBody(std::string body) {
  auto r = ok();
  r.body = std::move(body);
  return r;
}

}  // namespace

LiveNamesrvConfig::LiveNamesrvConfig(NamesrvConfig ns, config::ProcessConfig process)
    : ns_(std::move(ns)), process_(std::move(process)) {
  refreshAtomicsLocked();
}

void LiveNamesrvConfig::refreshAtomicsLocked() {
  orderMessageEnable = ns_.orderMessageEnable;
  brokerExpiredMillis = ns_.brokerExpiredMillis;
  scanNotActiveBrokerInterval = ns_.scanNotActiveBrokerInterval;
}

Result<config::PendingUpdate> LiveNamesrvConfig::update(std::string_view text, config::ConfigFilePersister& file) {
  auto entries = config::parseProperties(text, "UPDATE_NAMESRV_CONFIG");
  if (!entries) return entries.error();
  for (auto& e : *entries) {
    if (e.key == "kvConfigPath" || e.key == "configStorePath") {
      return makeError(ResponseCode::NO_PERMISSION, "Can not update config path");
    }
  }
  std::lock_guard lk(mu_);
  std::vector<config::ConfigSection> sections{config::section("process", process_), config::section("namesrv", ns_)};
  auto applied = config::applyEntries(*entries, sections);
  if (!applied) return applied.error();
  log::Level level;
  if (log::parseLevel(process_.logLevel, level)) log::setLevel(level);
  refreshAtomicsLocked();
  if (onConnectionLimits) onConnectionLimits(ns_.connection);
  return file.capture(sections, *applied);
}

std::string LiveNamesrvConfig::renderProperties() {
  std::lock_guard lk(mu_);
  return config::renderProperties({config::section("process", process_), config::section("namesrv", ns_)});
}

NamesrvConfig LiveNamesrvConfig::snapshot() {
  std::lock_guard lk(mu_);
  return ns_;
}

NamesrvProcessor::NamesrvProcessor(RouteInfoManager& routes, KvConfigManager& kv, LiveNamesrvConfig& config,
                                   asio::thread_pool& worker, std::shared_ptr<config::ConfigFilePersister> configFile)
    : routes_(routes),
      kv_(kv),
      config_(config),
      worker_(worker),
      configFile_(configFile ? std::move(configFile) : std::make_shared<config::ConfigFilePersister>()) {}

void NamesrvProcessor::onNetwork(net::Dispatcher& d, int code, std::function<Cmd(const Conn&, const Cmd&)> fn) {
  d.registerProcessor(code, [fn = std::move(fn)](Conn conn, Cmd req) -> asio::awaitable<std::optional<Cmd>> {
    co_return fn(conn, req);
  });
}

void NamesrvProcessor::onWorker(net::Dispatcher& d, int code, std::function<Cmd(const Cmd&)> fn) {
  d.registerProcessor(code, [this, fn = std::move(fn)](Conn, Cmd req) -> asio::awaitable<std::optional<Cmd>> {
    // Runs on the worker pool; the awaiting coroutine resumes on its own network thread.
    Cmd resp = co_await asio::co_spawn(
        worker_, [&]() -> asio::awaitable<Cmd> { co_return fn(req); }, asio::use_awaitable);
    co_return resp;
  });
}

void NamesrvProcessor::registerAll(net::Dispatcher& d) {
  namespace RC = RequestCode;
  onNetwork(d, RC::REGISTER_BROKER, [this](const Conn& c, const Cmd& r) { return registerBroker(c, r); });
  onNetwork(d, RC::UNREGISTER_BROKER, [this](const Conn&, const Cmd& r) { return unregisterBroker(r); });
  onNetwork(d, RC::GET_ROUTEINFO_BY_TOPIC, [this](const Conn&, const Cmd& r) { return getRouteInfoByTopic(r); });
  onNetwork(d, RC::GET_BROKER_CLUSTER_INFO, [this](const Conn&, const Cmd&) { return withBody(routes_.clusterInfoJson()); });
  onNetwork(d, RC::GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
            [this](const Conn&, const Cmd&) { return withBody(encodeTopicList(routes_.allTopics())); });
  onNetwork(d, RC::GET_TOPICS_BY_CLUSTER, [this](const Conn&, const Cmd& r) {
    if (auto e = missingField(r, {"cluster"})) return *e;
    return withBody(encodeTopicList(routes_.topicsByCluster(field(r, "cluster"))));
  });
  onNetwork(d, RC::GET_SYSTEM_TOPIC_LIST_FROM_NS, [this](const Conn&, const Cmd&) {
    auto list = routes_.systemTopicList();
    return withBody(encodeTopicList(list.topics, list.brokerAddr));
  });
  onNetwork(d, RC::GET_UNIT_TOPIC_LIST, [this](const Conn&, const Cmd&) { return withBody(encodeTopicList(routes_.unitTopics())); });
  onNetwork(d, RC::GET_HAS_UNIT_SUB_TOPIC_LIST,
            [this](const Conn&, const Cmd&) { return withBody(encodeTopicList(routes_.hasUnitSubTopics())); });
  onNetwork(d, RC::GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST,
            [this](const Conn&, const Cmd&) { return withBody(encodeTopicList(routes_.hasUnitSubUnUnitTopics())); });
  onNetwork(d, RC::DELETE_TOPIC_IN_NAMESRV, [this](const Conn&, const Cmd& r) { return deleteTopic(r); });
  onNetwork(d, RC::WIPE_WRITE_PERM_OF_BROKER, [this](const Conn&, const Cmd& r) { return changeWritePerm(r, true); });
  onNetwork(d, RC::ADD_WRITE_PERM_OF_BROKER, [this](const Conn&, const Cmd& r) { return changeWritePerm(r, false); });
  onNetwork(d, RC::QUERY_DATA_VERSION, [this](const Conn&, const Cmd& r) { return queryDataVersion(r); });
  onNetwork(d, RC::GET_KV_CONFIG, [this](const Conn&, const Cmd& r) { return getKvConfig(r); });
  onNetwork(d, RC::GET_KVLIST_BY_NAMESPACE, [this](const Conn&, const Cmd& r) { return getKvList(r); });
  onNetwork(d, RC::GET_NAMESRV_CONFIG, [this](const Conn&, const Cmd&) { return withBody(config_.renderProperties()); });
  onWorker(d, RC::PUT_KV_CONFIG, [this](const Cmd& r) { return putKvConfig(r); });
  onWorker(d, RC::DELETE_KV_CONFIG, [this](const Cmd& r) { return deleteKvConfig(r); });
  onWorker(d, RC::UPDATE_NAMESRV_CONFIG, [this](const Cmd& r) { return updateConfig(r); });
}

RemotingCommand NamesrvProcessor::registerBroker(const Conn& conn, const Cmd& req) {
  if (auto e = missingField(req, {"brokerName", "brokerAddr", "clusterName", "haServerAddr", "brokerId"})) return *e;
  auto brokerId = req.extFields.getInt("brokerId");
  if (!brokerId) return fail(ResponseCode::SYSTEM_ERROR, "brokerId is not a number");
  int64_t crc = req.extFields.getInt("bodyCrc32").value_or(0);
  if (crc != 0 && crc != rocketmqCrc32(req.body)) {
    log::warn("REGISTER_BROKER from {}: crc32 not match", conn->remoteAddress());
    return fail(ResponseCode::SYSTEM_ERROR, "crc32 not match");
  }
  Result<RegisterBrokerBody> body = RegisterBrokerBody{};
  if (req.body.empty()) {
    if (req.version >= kVersionV3_0_11) body->filterServerList.emplace();
  } else if (req.version >= kVersionV3_0_11) {
    body = decodeRegisterBrokerBody(req.body, req.extFields.getBool("compressed").value_or(false));
  } else {
    body = decodeTopicConfigWrapper(req.body);
  }
  if (!body) {
    log::warn("REGISTER_BROKER from {}: {}", conn->remoteAddress(), body.error().message);
    return fail(ResponseCode::SYSTEM_ERROR, body.error().message);
  }
  BrokerRegistration reg{field(req, "clusterName"), field(req, "brokerAddr"), field(req, "brokerName"), *brokerId,
                         field(req, "haServerAddr")};
  bool known = routes_.dataVersionOf(reg.brokerAddr).has_value();
  auto result = routes_.registerBroker(reg, *body, ChannelRef{conn->id(), conn}, steadyMillis());
  if (!result) {
    // A master of an older epoch (failover fencing): the broker logs the remark.
    log::warn("REGISTER_BROKER from {} refused: {}", conn->remoteAddress(), result.error().message);
    return fail(result.error().code, result.error().message);
  }
  if (!result->replacedMaster.empty()) {
    log::info("broker group {}/{}: {} (epoch {}) replaces master {} under brokerId 0", reg.clusterName,
              reg.brokerName, reg.brokerAddr, body->dataVersion.stateVersion.value_or(0), result->replacedMaster);
  }
  if (!known) {
    log::info("new broker registered: cluster={} name={} id={} addr={} ha={} topics={} from {}", reg.clusterName,
              reg.brokerName, reg.brokerId, reg.brokerAddr, reg.haServerAddr, body->topics.size(), conn->remoteAddress());
  }
  auto resp = ok();
  if (!result->masterAddr.empty()) resp.extFields.set("masterAddr", result->masterAddr);
  if (!result->haServerAddr.empty()) resp.extFields.set("haServerAddr", result->haServerAddr);
  if (auto order = kv_.kvListJson(kNamespaceOrderTopicConfig)) resp.body = std::move(*order);
  return resp;
}

RemotingCommand NamesrvProcessor::unregisterBroker(const Cmd& req) {
  if (auto e = missingField(req, {"brokerName", "brokerAddr", "clusterName", "brokerId"})) return *e;
  auto brokerId = req.extFields.getInt("brokerId");
  if (!brokerId) return fail(ResponseCode::SYSTEM_ERROR, "brokerId is not a number");
  routes_.unregisterBroker(field(req, "clusterName"), field(req, "brokerAddr"), field(req, "brokerName"), *brokerId);
  log::info("broker unregistered: {} {} id={}", field(req, "brokerName"), field(req, "brokerAddr"), *brokerId);
  return ok();
}

RemotingCommand NamesrvProcessor::getRouteInfoByTopic(const Cmd& req) {
  if (auto e = missingField(req, {"topic"})) return *e;
  std::string topic = field(req, "topic");
  auto route = routes_.pickupTopicRouteData(topic);
  if (!route) {
    return fail(ResponseCode::TOPIC_NOT_EXIST,
                "No topic route info in name server for the topic: " + topic +
                    "\nSee http://rocketmq.apache.org/docs/faq/ for further details.");
  }
  if (config_.orderMessageEnable.load(std::memory_order_relaxed)) {
    route->orderTopicConf = kv_.get(kNamespaceOrderTopicConfig, topic);
  }
  bool standard = req.version >= kVersionV4_9_4 || req.extFields.getBool("acceptStandardJsonOnly").value_or(false);
  return withBody(encodeTopicRouteData(*route, standard));
}

RemotingCommand NamesrvProcessor::queryDataVersion(const Cmd& req) {
  if (auto e = missingField(req, {"brokerName", "brokerAddr", "clusterName", "brokerId"})) return *e;
  auto version = decodeDataVersion(req.body);
  if (!version) return fail(ResponseCode::SYSTEM_ERROR, version.error().message);
  std::string addr = field(req, "brokerAddr");
  bool changed = routes_.isBrokerTopicConfigChanged(addr, *version);
  if (!changed) routes_.refreshLastUpdate(addr, steadyMillis());
  auto resp = ok();
  if (auto stored = routes_.dataVersionOf(addr)) resp.body = encodeDataVersion(*stored);
  resp.extFields.setBool("changed", changed);
  return resp;
}

RemotingCommand NamesrvProcessor::deleteTopic(const Cmd& req) {
  if (auto e = missingField(req, {"topic"})) return *e;
  std::string cluster = field(req, "clusterName");
  if (cluster.empty()) routes_.deleteTopic(field(req, "topic"));
  else routes_.deleteTopic(field(req, "topic"), cluster);
  return ok();
}

RemotingCommand NamesrvProcessor::changeWritePerm(const Cmd& req, bool wipe) {
  if (auto e = missingField(req, {"brokerName"})) return *e;
  std::string name = field(req, "brokerName");
  int count = wipe ? routes_.wipeWritePerm(name) : routes_.addWritePerm(name);
  log::info("{} write perm of broker {}: {} topics", wipe ? "wipe" : "add", name, count);
  auto resp = ok();
  resp.extFields.set(wipe ? "wipeTopicCount" : "addTopicCount", static_cast<int64_t>(count));
  return resp;
}

RemotingCommand NamesrvProcessor::getKvConfig(const Cmd& req) {
  if (auto e = missingField(req, {"namespace", "key"})) return *e;
  auto value = kv_.get(field(req, "namespace"), field(req, "key"));
  if (!value) {
    return fail(ResponseCode::QUERY_NOT_FOUND,
                fmt::format("No config item, Namespace: {} Key: {}", field(req, "namespace"), field(req, "key")));
  }
  auto resp = ok();
  resp.extFields.set("value", *value);
  return resp;
}

RemotingCommand NamesrvProcessor::getKvList(const Cmd& req) {
  if (auto e = missingField(req, {"namespace"})) return *e;
  auto json = kv_.kvListJson(field(req, "namespace"));
  if (!json) return fail(ResponseCode::QUERY_NOT_FOUND, "No config item, Namespace: " + field(req, "namespace"));
  return withBody(std::move(*json));
}

RemotingCommand NamesrvProcessor::putKvConfig(const Cmd& req) {
  if (auto e = missingField(req, {"namespace", "key", "value"})) return *e;
  auto r = kv_.put(field(req, "namespace"), field(req, "key"), field(req, "value"));
  return r ? ok() : fail(ResponseCode::SYSTEM_ERROR, r.error().message);
}

RemotingCommand NamesrvProcessor::deleteKvConfig(const Cmd& req) {
  if (auto e = missingField(req, {"namespace", "key"})) return *e;
  auto r = kv_.remove(field(req, "namespace"), field(req, "key"));
  return r ? ok() : fail(ResponseCode::SYSTEM_ERROR, r.error().message);
}

RemotingCommand NamesrvProcessor::updateConfig(const Cmd& req) {
  if (req.body.empty()) return ok();
  auto r = config_.update(req.body, *configFile_);
  if (!r) return fail(r.error().code, r.error().message);
  log::info("name server config updated: {}", req.body);
  // Like Java's Configuration.persist() into the -c file; SUCCESS even when that fails (logged).
  configFile_->write(*r);
  return ok();
}

}  // namespace rmq::namesrv
