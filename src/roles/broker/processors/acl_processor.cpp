// The ACL admin codes (Java AdminBrokerProcessor, 4.9.8): UPDATE_AND_CREATE_ACL_CONFIG (50),
// DELETE_ACL_CONFIG (51), GET_BROKER_CLUSTER_ACL_INFO (52), UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53),
// and GET_BROKER_CLUSTER_ACL_CONFIG (54, which 4.9.4 answered and 4.9.8 no longer registers).
// The yml edits are blocking file writes: they run on ctx.background and the answer waits.
#include <asio/co_spawn.hpp>
#include <asio/use_awaitable.hpp>

#include "acl/acl_manager.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"

namespace rmq::broker {
using namespace admin;

namespace {

// What a background edit reports (default-constructible, as co_spawn's result must be).
struct EditOutcome {
  bool applied = false;
  std::optional<Error> error;
};

EditOutcome outcome(const Result<void>& r) { return r ? EditOutcome{true, std::nullopt} : EditOutcome{false, r.error()}; }
EditOutcome outcome(Result<bool> r) { return r ? EditOutcome{*r, std::nullopt} : EditOutcome{false, r.error()}; }

// The three edits, as coroutines for ctx.background (arguments by value: they outlive the caller's frame).
asio::awaitable<EditOutcome> updateAccountJob(acl::AclManager* acl, acl::AccountConfig account) {
  co_return outcome(acl->updateAccount(account));
}
asio::awaitable<EditOutcome> deleteAccountJob(acl::AclManager* acl, std::string accessKey) {
  co_return outcome(acl->deleteAccount(accessKey));
}
asio::awaitable<EditOutcome> globalWhitesJob(acl::AclManager* acl, std::vector<std::string> addrs, std::string file) {
  co_return outcome(acl->updateGlobalWhiteAddrs(addrs, file));
}

// UtilAll.split(str, ","): null stays null; String.split drops trailing empty strings.
std::optional<std::vector<std::string>> splitList(const RemotingCommand& cmd, std::string_view key) {
  auto* v = cmd.extFields.find(key);
  if (!v) return std::nullopt;
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    size_t j = v->find(',', i);
    out.push_back(v->substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::optional<std::string> optField(const RemotingCommand& cmd, std::string_view key) {
  if (auto* v = cmd.extFields.find(key)) return *v;
  return std::nullopt;
}

RemotingCommand notEnabled(int code) {
  return failure(code, "ACL is not enabled on this broker (aclEnable = false)");
}

}  // namespace

void registerAclProcessors(BrokerContext& ctx) {
  acl::AclManager* acl = ctx.acl;
  ctx.registerProcessor(RequestCode::UPDATE_AND_CREATE_ACL_CONFIG,
                        [&ctx, acl](net::ConnectionPtr, RemotingCommand req) -> Reply {
    constexpr int kFailed = ResponseCode::UPDATE_AND_CREATE_ACL_CONFIG_FAILED;
    if (!acl) co_return notEnabled(kFailed);
    auto ak = requireString(req, "accessKey");
    if (!ak) co_return failure(ak.error());
    acl::AccountConfig account;
    account.accessKey = *ak;
    account.secretKey = optField(req, "secretKey");
    account.whiteRemoteAddress = optField(req, "whiteRemoteAddress");
    account.admin = optBool(req, "admin", false);
    account.defaultTopicPerm = optField(req, "defaultTopicPerm");
    account.defaultGroupPerm = optField(req, "defaultGroupPerm");
    account.topicPerms = splitList(req, "topicPerms");
    account.groupPerms = splitList(req, "groupPerms");
    auto job = updateAccountJob(acl, std::move(account));
    EditOutcome out = co_await asio::co_spawn(ctx.background, std::move(job), asio::use_awaitable);
    if (out.error) co_return failure(kFailed, out.error->message);
    co_return success();
  });
  ctx.registerProcessor(RequestCode::DELETE_ACL_CONFIG, [&ctx, acl](net::ConnectionPtr conn, RemotingCommand req) -> Reply {
    constexpr int kFailed = ResponseCode::DELETE_ACL_CONFIG_FAILED;
    if (!acl) co_return notEnabled(kFailed);
    auto ak = requireString(req, "accessKey");
    if (!ak) co_return failure(ak.error());
    log::info("DeleteAccessConfig called by {}", conn->remoteAddress());
    auto job = deleteAccountJob(acl, *ak);
    EditOutcome out = co_await asio::co_spawn(ctx.background, std::move(job), asio::use_awaitable);
    if (out.error) co_return failure(kFailed, out.error->message);
    if (!out.applied)
      co_return failure(kFailed, "The accesskey[" + *ak + "] corresponding to accessConfig has been deleted failed.");
    co_return success();
  });
  ctx.registerProcessor(RequestCode::UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
                        [&ctx, acl](net::ConnectionPtr, RemotingCommand req) -> Reply {
    constexpr int kFailed = ResponseCode::UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED;
    if (!acl) co_return notEnabled(kFailed);
    auto addrs = requireString(req, "globalWhiteAddrs");
    if (!addrs) co_return failure(addrs.error());
    // Java requires aclFileFullPath too; without it we use plain_acl.yml (what Java's
    // updateGlobalWhiteAddrsConfig does with an empty path).
    auto job = globalWhitesJob(acl, splitList(req, "globalWhiteAddrs").value_or(std::vector<std::string>{}),
                               optString(req, "aclFileFullPath"));
    EditOutcome out = co_await asio::co_spawn(ctx.background, std::move(job), asio::use_awaitable);
    if (out.error) co_return failure(kFailed, out.error->message);
    if (!out.applied) co_return failure(kFailed, "The globalWhiteAddresses[" + *addrs + "] has been updated failed.");
    co_return success();
  });
  ctx.registerProcessor(RequestCode::GET_BROKER_CLUSTER_ACL_INFO,
                        [&ctx, acl](net::ConnectionPtr, RemotingCommand) -> Reply {
    if (!acl) co_return notEnabled(ResponseCode::SYSTEM_ERROR);
    auto resp = success();
    resp.extFields.set("version", acl->defaultFileVersionJson());
    resp.extFields.set("allAclFileVersion", acl->allFileVersionsJson());
    resp.extFields.set("brokerName", ctx.config.brokerName);
    resp.extFields.set("brokerAddr", ctx.config.brokerAddr());
    resp.extFields.set("clusterName", ctx.config.brokerClusterName);
    co_return resp;
  });
  ctx.registerProcessor(RequestCode::GET_BROKER_CLUSTER_ACL_CONFIG,
                        [acl](net::ConnectionPtr, RemotingCommand) -> Reply {
    if (!acl) co_return notEnabled(ResponseCode::SYSTEM_ERROR);
    co_return success(acl->allConfigJson());
  });
}

}  // namespace rmq::broker
