// AdminClient: the ACL admin codes 50-54 (Java MQClientAPIImpl.createPlainAccessConfig,
// deletePlainAccessConfig, getBrokerClusterAclInfo, updateGlobalWhiteAddrsConfig,
// getBrokerClusterConfig).
#include "client/admin/admin_client.h"
#include "common/request_code.h"

namespace rmq::client {

asio::awaitable<Result<void>> AdminClient::asyncUpdateAclConfig(std::string addr,
                                                               std::map<std::string, std::string> fields) {
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_AND_CREATE_ACL_CONFIG);
  for (auto& [k, v] : fields) cmd.extFields.set(k, v);
  auto resp = co_await callOk(std::move(addr), std::move(cmd));
  if (!resp) co_return resp.error();
  co_return Result<void>{};
}

asio::awaitable<Result<void>> AdminClient::asyncDeleteAclConfig(std::string addr, std::string accessKey) {
  auto cmd = net::RemotingCommand::request(RequestCode::DELETE_ACL_CONFIG);
  cmd.extFields.set("accessKey", std::move(accessKey));
  auto resp = co_await callOk(std::move(addr), std::move(cmd));
  if (!resp) co_return resp.error();
  co_return Result<void>{};
}

asio::awaitable<Result<std::map<std::string, std::string>>> AdminClient::asyncAclConfigVersion(std::string addr) {
  auto resp = co_await callOk(std::move(addr), net::RemotingCommand::request(RequestCode::GET_BROKER_CLUSTER_ACL_INFO));
  if (!resp) co_return resp.error();
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : resp->extFields) out[k] = v;
  co_return out;
}

asio::awaitable<Result<void>> AdminClient::asyncUpdateGlobalWhiteAddrs(std::string addr, std::string addrs,
                                                                      std::string aclFile) {
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_GLOBAL_WHITE_ADDRS_CONFIG);
  cmd.extFields.set("globalWhiteAddrs", std::move(addrs));
  if (!aclFile.empty()) cmd.extFields.set("aclFileFullPath", std::move(aclFile));
  auto resp = co_await callOk(std::move(addr), std::move(cmd));
  if (!resp) co_return resp.error();
  co_return Result<void>{};
}

asio::awaitable<Result<std::string>> AdminClient::asyncGetAclConfig(std::string addr) {
  auto resp = co_await callOk(std::move(addr), net::RemotingCommand::request(RequestCode::GET_BROKER_CLUSTER_ACL_CONFIG));
  if (!resp) co_return resp.error();
  co_return std::move(resp->body);
}

}  // namespace rmq::client
