// AdminClient: name server, topic and broker operations. Group/consumer/message operations are
// in admin_client_groups.cpp.
#include "client/admin/admin_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "client/request_headers.h"
#include "common/json.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "net/when_all.h"

namespace rmq::client {

AdminClient::AdminClient(ClientConfig config) {
  if (config.clientIp.empty()) config.clientIp = rmq::localIPv4();
  if (config.instanceName == "DEFAULT") config.instanceName = uniqueInstanceName();
  std::string id = buildClientId(config.clientIp, config.instanceName, config.unitName);
  instance_ = ClientInstance::create(std::move(config), std::move(id));
}

AdminClient::~AdminClient() { shutdown(); }
Result<void> AdminClient::start() { return instance_->start(); }
void AdminClient::shutdown() { instance_->shutdown(); }

asio::awaitable<Result<net::RemotingCommand>> AdminClient::callOk(std::string addr, net::RemotingCommand cmd,
                                                                std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) timeout = instance_->config().rpcTimeout;
  auto resp = co_await instance_->invoke(addr, std::move(cmd), timeout);
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  co_return resp;
}

asio::awaitable<std::vector<Result<net::RemotingCommand>>> AdminClient::callEach(std::vector<std::string> addrs,
                                                                                 net::RemotingCommand cmd,
                                                                                 std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) timeout = instance_->config().rpcTimeout;
  std::vector<asio::awaitable<Result<net::RemotingCommand>>> calls;
  for (const auto& addr : addrs) calls.push_back(callOk(addr, cmd, timeout));
  co_return co_await net::whenAll(std::move(calls), timeout);
}

asio::awaitable<std::vector<NodeAnswer<net::RemotingCommand>>> AdminClient::askEach(std::vector<std::string> addrs,
                                                                                      net::RemotingCommand cmd) {
  std::vector<std::string> asked = addrs;
  auto answers = co_await callEach(std::move(asked), std::move(cmd));
  std::vector<NodeAnswer<net::RemotingCommand>> out;
  for (size_t i = 0; i < addrs.size(); ++i) out.push_back({addrs[i], std::move(answers[i])});
  co_return out;
}

asio::awaitable<Result<void>> AdminClient::callCode(std::string addr, int requestCode) {
  auto r = co_await callOk(std::move(addr), net::RemotingCommand::request(requestCode));
  if (!r) co_return r.error();
  co_return Result<void>{};
}

asio::awaitable<Result<net::RemotingCommand>> AdminClient::namesrvOk(net::RemotingCommand cmd) {
  auto resp = co_await instance_->invokeNamesrv(std::move(cmd));
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  co_return resp;
}

asio::awaitable<Result<ClusterInfo>> AdminClient::asyncClusterInfo() {
  auto resp = co_await namesrvOk(net::RemotingCommand::request(RequestCode::GET_BROKER_CLUSTER_INFO));
  if (!resp) co_return resp.error();
  co_return parseClusterInfo(resp->body);
}

asio::awaitable<Result<std::vector<std::string>>> AdminClient::asyncTopicList() {
  auto resp = co_await namesrvOk(net::RemotingCommand::request(RequestCode::GET_ALL_TOPIC_LIST_FROM_NAMESERVER));
  if (!resp) co_return resp.error();
  co_return parseTopicList(resp->body);
}

asio::awaitable<Result<TopicRouteData>> AdminClient::asyncTopicRoute(std::string topic) {
  co_return co_await instance_->route(topic, true);
}

asio::awaitable<Result<void>> AdminClient::asyncPutKvConfig(std::string ns, std::string key, std::string value) {
  auto cmd = net::RemotingCommand::request(RequestCode::PUT_KV_CONFIG);
  cmd.extFields.set("namespace", ns);
  cmd.extFields.set("key", key);
  cmd.extFields.set("value", value);
  std::vector<std::string> namesrvs = instance_->nameServers();  // each keeps its own copy
  auto answers = co_await callEach(std::move(namesrvs), std::move(cmd));
  if (auto e = net::firstError(answers)) co_return *e;
  co_return Result<void>{};
}

asio::awaitable<Result<std::string>> AdminClient::asyncGetKvConfig(std::string ns, std::string key) {
  auto cmd = net::RemotingCommand::request(RequestCode::GET_KV_CONFIG);
  cmd.extFields.set("namespace", ns);
  cmd.extFields.set("key", key);
  auto resp = co_await namesrvOk(std::move(cmd));
  if (!resp) co_return resp.error();
  co_return std::string(resp->extFields.get("value"));
}

asio::awaitable<Result<void>> AdminClient::asyncDeleteKvConfig(std::string ns, std::string key) {
  auto cmd = net::RemotingCommand::request(RequestCode::DELETE_KV_CONFIG);
  cmd.extFields.set("namespace", ns);
  cmd.extFields.set("key", key);
  std::vector<std::string> namesrvs = instance_->nameServers();
  auto answers = co_await callEach(std::move(namesrvs), std::move(cmd));
  if (auto e = net::firstError(answers)) co_return *e;
  co_return Result<void>{};
}

asio::awaitable<Result<std::map<std::string, std::string>>> AdminClient::asyncKvList(std::string ns) {
  auto cmd = net::RemotingCommand::request(RequestCode::GET_KVLIST_BY_NAMESPACE);
  cmd.extFields.set("namespace", ns);
  auto resp = co_await namesrvOk(std::move(cmd));
  if (!resp) co_return resp.error();
  co_return parseKvTable(resp->body);
}

asio::awaitable<Result<std::vector<std::string>>> AdminClient::asyncMasterAddrs(std::string cluster) {
  auto info = co_await asyncClusterInfo();
  if (!info) co_return info.error();
  std::vector<std::string> out;
  for (const BrokerData* b : info->brokersOf(cluster))
    if (auto* m = b->masterAddr()) out.push_back(*m);
  if (out.empty()) co_return makeError(ResponseCode::SYSTEM_ERROR, "no master broker in cluster " + cluster);
  co_return out;
}

asio::awaitable<Result<std::vector<std::string>>> AdminClient::asyncBrokerAddrs(std::string cluster) {
  auto info = co_await asyncClusterInfo();
  if (!info) co_return info.error();
  std::vector<std::string> out;
  for (const BrokerData* b : info->brokersOf(cluster))
    for (const auto& [id, addr] : b->brokerAddrs) out.push_back(addr);
  if (out.empty()) co_return makeError(ResponseCode::SYSTEM_ERROR, "no broker in cluster " + cluster);
  co_return out;
}

asio::awaitable<Result<std::vector<std::string>>> AdminClient::asyncTopicClusters(std::string topic) {
  auto route = co_await instance_->route(topic, true);
  if (!route) co_return route.error();
  auto info = co_await asyncClusterInfo();
  if (!info) co_return info.error();
  std::set<std::string> clusters;
  for (const auto& b : route->brokerDatas)
    for (const auto& [cluster, names] : info->clusterAddrTable)
      if (std::find(names.begin(), names.end(), b.brokerName) != names.end()) clusters.insert(cluster);
  co_return std::vector<std::string>(clusters.begin(), clusters.end());
}

asio::awaitable<Result<void>> AdminClient::asyncCreateTopicOnBroker(std::string brokerAddr, TopicConfigSpec spec) {
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_AND_CREATE_TOPIC);
  cmd.extFields.set("topic", spec.topicName);
  cmd.extFields.set("defaultTopic", "TBW102");
  cmd.extFields.set("readQueueNums", int64_t{spec.readQueueNums});
  cmd.extFields.set("writeQueueNums", int64_t{spec.writeQueueNums});
  cmd.extFields.set("perm", int64_t{spec.perm});
  cmd.extFields.set("topicFilterType", spec.topicFilterType);
  cmd.extFields.set("topicSysFlag", int64_t{spec.topicSysFlag});
  cmd.extFields.setBool("order", spec.order);
  if (!spec.attributes.empty()) cmd.extFields.set("attributes", spec.attributes);
  auto r = co_await callOk(brokerAddr, std::move(cmd));
  if (!r) co_return r.error();
  co_return Result<void>{};
}

asio::awaitable<Result<std::vector<std::string>>> AdminClient::asyncCreateTopic(TopicConfigSpec spec,
                                                                                std::string cluster,
                                                                                std::string brokerAddr) {
  std::vector<std::string> addrs;
  if (!brokerAddr.empty()) {
    addrs.push_back(brokerAddr);
  } else {
    auto masters = co_await asyncMasterAddrs(cluster);
    if (!masters) co_return masters.error();
    addrs = masters.value();
  }
  std::vector<asio::awaitable<Result<void>>> creates;
  for (const auto& addr : addrs) creates.push_back(asyncCreateTopicOnBroker(addr, spec));
  std::chrono::milliseconds timeout = instance_->config().rpcTimeout;
  auto created = co_await net::whenAll(std::move(creates), timeout);
  for (size_t i = 0; i < addrs.size(); ++i)
    if (!created[i])
      co_return makeError(created[i].error().code,
                          fmt::format("create topic on {}: {}", addrs[i], created[i].error().message));
  if (spec.order && brokerAddr.empty()) {
    auto info = co_await asyncClusterInfo();
    if (!info) co_return info.error();
    std::string conf;
    for (const auto& b : info->clusterAddrTable[cluster])
      conf += fmt::format("{}{}:{}", conf.empty() ? "" : ";", b, spec.writeQueueNums);
    std::string ns = "ORDER_TOPIC_CONFIG";
    auto kv = co_await asyncPutKvConfig(ns, spec.topicName, conf);
    if (!kv) co_return kv.error();
  }
  co_return addrs;
}

asio::awaitable<Result<void>> AdminClient::asyncDeleteTopic(std::string topic, std::string cluster) {
  auto masters = co_await asyncMasterAddrs(cluster);
  if (!masters) co_return masters.error();
  auto inBrokers = net::RemotingCommand::request(RequestCode::DELETE_TOPIC_IN_BROKER);
  inBrokers.extFields.set("topic", topic);
  std::vector<std::string> brokers = std::move(*masters);
  auto brokerAnswers = co_await callEach(std::move(brokers), std::move(inBrokers));
  if (auto e = net::firstError(brokerAnswers)) co_return *e;
  auto inNamesrvs = net::RemotingCommand::request(RequestCode::DELETE_TOPIC_IN_NAMESRV);
  inNamesrvs.extFields.set("topic", topic);
  if (!cluster.empty()) inNamesrvs.extFields.set("clusterName", cluster);
  std::vector<std::string> namesrvs = instance_->nameServers();
  auto namesrvAnswers = co_await callEach(std::move(namesrvs), std::move(inNamesrvs));
  if (auto e = net::firstError(namesrvAnswers)) co_return *e;
  co_return Result<void>{};
}

asio::awaitable<Result<std::vector<TopicOffset>>> AdminClient::asyncTopicStats(std::string topic) {
  auto route = co_await instance_->route(topic, true);
  if (!route) co_return route.error();
  std::vector<std::string> addrs;
  for (const auto& b : route->brokerDatas)
    if (auto* addr = b.selectAddr()) addrs.push_back(*addr);  // examineTopicStats: master, else a slave
  auto cmd = net::RemotingCommand::request(RequestCode::GET_TOPIC_STATS_INFO);
  cmd.extFields.set("topic", topic);
  auto answers = co_await callEach(std::move(addrs), std::move(cmd));
  std::vector<TopicOffset> out;
  for (auto& resp : answers) {
    if (!resp) co_return resp.error();
    rapidjson::Document doc;
    if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
    if (!doc.IsObject() || !doc.HasMember("offsetTable") || !doc["offsetTable"].IsObject()) continue;
    for (auto& m : doc["offsetTable"].GetObject()) {
      auto key = json::parseMessageQueueKey(json::keyView(m.name));
      if (!key || !m.value.IsObject()) continue;
      out.push_back(TopicOffset{{key->topic, key->brokerName, key->queueId},
                                json::getInt64(m.value, "minOffset").value_or(0),
                                json::getInt64(m.value, "maxOffset").value_or(0),
                                json::getInt64(m.value, "lastUpdateTimestamp").value_or(0)});
    }
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.queue < b.queue; });
  co_return out;
}

asio::awaitable<Result<std::map<std::string, std::string>>> AdminClient::asyncBrokerRuntimeInfo(std::string brokerAddr) {
  auto resp = co_await callOk(brokerAddr, net::RemotingCommand::request(RequestCode::GET_BROKER_RUNTIME_INFO));
  if (!resp) co_return resp.error();
  co_return parseKvTable(resp->body);
}

asio::awaitable<Result<std::string>> AdminClient::asyncFailoverStatus(std::string brokerAddr) {
  auto resp = co_await callOk(brokerAddr, net::RemotingCommand::request(RequestCode::RMQNODE_FAILOVER_STATUS));
  if (!resp) co_return resp.error();
  co_return std::move(resp->body);
}

asio::awaitable<Result<std::string>> AdminClient::asyncFailoverSwitch(std::string masterAddr, int64_t targetId,
                                                                      std::chrono::milliseconds timeout) {
  auto cmd = net::RemotingCommand::request(RequestCode::RMQNODE_FAILOVER_SWITCH);
  cmd.extFields.set("brokerId", targetId);
  cmd.extFields.set("timeoutMillis", static_cast<int64_t>(timeout.count()));
  auto resp = co_await callOk(masterAddr, std::move(cmd), timeout + std::chrono::seconds(5));
  if (!resp) co_return resp.error();
  co_return resp->remark.value_or("");
}

asio::awaitable<Result<std::map<std::string, std::string>>> AdminClient::asyncBrokerConfig(std::string brokerAddr) {
  auto resp = co_await callOk(brokerAddr, net::RemotingCommand::request(RequestCode::GET_BROKER_CONFIG));
  if (!resp) co_return resp.error();
  co_return parsePropertiesText(resp->body);
}

namespace {
BrokerStatsItem parseStatsItem(const rapidjson::Value& doc, const char* name) {
  BrokerStatsItem item;
  if (!doc.HasMember(name) || !doc[name].IsObject()) return item;
  const auto& v = doc[name];
  item.sum = json::getInt64(v, "sum").value_or(0);
  if (v.HasMember("tps") && v["tps"].IsNumber()) item.tps = v["tps"].GetDouble();
  if (v.HasMember("avgpt") && v["avgpt"].IsNumber()) item.avgpt = v["avgpt"].GetDouble();
  return item;
}
}  // namespace

int64_t BrokerStatsData::sum24Hours() const {
  if (statsDay.sum != 0) return statsDay.sum;
  if (statsHour.sum != 0) return statsHour.sum;
  return statsMinute.sum;
}

asio::awaitable<Result<BrokerStatsData>> AdminClient::asyncViewBrokerStatsData(std::string brokerAddr,
                                                                                std::string statsName,
                                                                                std::string statsKey) {
  auto cmd = net::RemotingCommand::request(RequestCode::VIEW_BROKER_STATS_DATA);
  cmd.extFields.set("statsName", statsName);
  cmd.extFields.set("statsKey", statsKey);
  auto resp = co_await callOk(brokerAddr, std::move(cmd));
  if (!resp) co_return resp.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  if (!doc.IsObject()) co_return makeError(ResponseCode::SYSTEM_ERROR, "BrokerStatsData is not a JSON object");
  BrokerStatsData data;
  data.statsMinute = parseStatsItem(doc, "statsMinute");
  data.statsHour = parseStatsItem(doc, "statsHour");
  data.statsDay = parseStatsItem(doc, "statsDay");
  co_return data;
}

asio::awaitable<Result<void>> AdminClient::asyncUpdateBrokerConfig(std::string brokerAddr,
                                                                   std::map<std::string, std::string> kv) {
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_BROKER_CONFIG);
  cmd.body = toPropertiesText(kv);
  auto r = co_await callOk(brokerAddr, std::move(cmd));
  if (!r) co_return r.error();
  co_return Result<void>{};
}

std::map<std::string, std::string> parsePropertiesText(std::string_view text) {
  std::map<std::string, std::string> out;
  while (!text.empty()) {
    auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto eq = line.find('=');
    if (!line.empty() && line[0] != '#' && line[0] != '!' && eq != std::string_view::npos)
      out[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

std::string toPropertiesText(const std::map<std::string, std::string>& kv) {
  std::string out;
  for (const auto& [k, v] : kv) out += k + "=" + v + "\n";
  return out;
}

}  // namespace rmq::client
