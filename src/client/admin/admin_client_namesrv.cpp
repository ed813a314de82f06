// AdminClient: name server administration (write permission of a broker, the name servers' own
// config), each request sent to every name server at once, as mqadmin loops over its -n list.
#include "client/admin/admin_client.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

asio::awaitable<std::vector<NodeAnswer<int64_t>>> AdminClient::asyncChangeWritePerm(std::string brokerName, bool wipe) {
  auto cmd = net::RemotingCommand::request(wipe ? RequestCode::WIPE_WRITE_PERM_OF_BROKER
                                                : RequestCode::ADD_WRITE_PERM_OF_BROKER);
  cmd.extFields.set("brokerName", brokerName);
  std::vector<std::string> namesrvs = instance_->nameServers();
  auto answers = co_await askEach(std::move(namesrvs), std::move(cmd));
  const char* countField = wipe ? "wipeTopicCount" : "addTopicCount";
  std::vector<NodeAnswer<int64_t>> out;
  for (auto& a : answers) {
    if (!a.result) out.push_back({a.addr, a.result.error()});
    else out.push_back({a.addr, a.result->extFields.getInt(countField).value_or(0)});
  }
  co_return out;
}

asio::awaitable<std::vector<NodeAnswer<std::map<std::string, std::string>>>> AdminClient::asyncNamesrvConfig(
    std::vector<std::string> addrs) {
  if (addrs.empty()) addrs = instance_->nameServers();
  auto cmd = net::RemotingCommand::request(RequestCode::GET_NAMESRV_CONFIG);
  auto answers = co_await askEach(std::move(addrs), std::move(cmd));
  std::vector<NodeAnswer<std::map<std::string, std::string>>> out;
  for (auto& a : answers) {
    if (!a.result) out.push_back({a.addr, a.result.error()});
    else out.push_back({a.addr, parsePropertiesText(a.result->body)});
  }
  co_return out;
}

asio::awaitable<std::vector<NodeAnswer<void>>> AdminClient::asyncUpdateNamesrvConfig(std::map<std::string, std::string> kv,
                                                                                     std::vector<std::string> addrs) {
  if (addrs.empty()) addrs = instance_->nameServers();
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_NAMESRV_CONFIG);
  cmd.body = toPropertiesText(kv);
  auto answers = co_await askEach(std::move(addrs), std::move(cmd));
  std::vector<NodeAnswer<void>> out;
  for (auto& a : answers) {
    if (!a.result) out.push_back({a.addr, a.result.error()});
    else out.push_back({a.addr, Result<void>{}});
  }
  co_return out;
}

}  // namespace rmq::client
