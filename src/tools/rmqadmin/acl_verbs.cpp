// ACL verbs (mqadmin's updateAclConfig, deleteAclConfig, clusterAclConfigVersion,
// updateGlobalWhiteAddr, and getAclConfig of 4.9.4): codes 50-54 on one broker (-b) or every
// master of a cluster (-c). The broker must have aclEnable = true; with ACL on, the caller needs an
// admin account's --access-key/--secret-key (or a white-listed address).
#include <fmt/format.h>

#include "common/json.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

int updateAclConfig(VerbContext& ctx) {
  std::string ak = ctx.required({"a", "accessKey"});
  std::map<std::string, std::string> fields{{"accessKey", ak}};
  auto copy = [&](std::initializer_list<std::string> names, const char* field) {
    if (auto v = ctx.args.get(names)) fields[field] = *v;
  };
  copy({"s", "secretKey"}, "secretKey");
  copy({"w", "whiteRemoteAddress"}, "whiteRemoteAddress");
  copy({"i", "defaultTopicPerm"}, "defaultTopicPerm");
  copy({"u", "defaultGroupPerm"}, "defaultGroupPerm");
  copy({"t", "topicPerms"}, "topicPerms");
  copy({"g", "groupPerms"}, "groupPerms");
  fields["admin"] = boolOption(ctx, {"m", "admin"}, false) ? "true" : "false";
  auto call = [&](const std::string& addr) { return ctx.admin().asyncUpdateAclConfig(addr, fields); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return failAt(ctx, addr, r.error());
    ctx.report.line(fmt::format("create or update plain access config to {} success.", addr));
    return 0;
  });
}

int deleteAclConfig(VerbContext& ctx) {
  std::string ak = ctx.required({"a", "accessKey"});
  auto call = [&](const std::string& addr) { return ctx.admin().asyncDeleteAclConfig(addr, ak); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return failAt(ctx, addr, r.error());
    ctx.report.line(fmt::format("delete plain access config account from {} success.", addr));
    ctx.report.line(fmt::format("account's accesskey is:{}", ak));
    return 0;
  });
}

int clusterAclConfigVersion(VerbContext& ctx) {
  auto* t = &ctx.report.table("versions", {"#Cluster Name", "#Broker Name", "#Broker Addr", "#AclFilePath",
                                           "#AclConfigVersionNum", "#AclLastUpdateTime"});
  auto call = [&](const std::string& addr) { return ctx.admin().asyncAclConfigVersion(addr); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return failAt(ctx, addr, r.error());
    auto& kv = *r;
    rapidjson::Document doc;
    if (json::parse(kv["allAclFileVersion"], doc) && doc.IsObject()) {
      for (auto& m : doc.GetObject()) {
        t->add({kv["clusterName"], kv["brokerName"], kv["brokerAddr"], std::string(json::keyView(m.name)),
                std::to_string(json::getInt64(m.value, "counter").value_or(0)),
                formatTimestamp(json::getInt64(m.value, "timestamp").value_or(0))});
      }
    }
    return 0;
  });
}

int updateGlobalWhiteAddr(VerbContext& ctx) {
  std::string addrs = ctx.required({"g", "globalWhiteRemoteAddresses"});
  std::string file = ctx.args.get({"p", "aclFileFullPath"}, "");
  auto call = [&](const std::string& addr) { return ctx.admin().asyncUpdateGlobalWhiteAddrs(addr, addrs, file); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return failAt(ctx, addr, r.error());
    ctx.report.line(fmt::format("update global white remote addresses to {} success.", addr));
    return 0;
  });
}

int getAclConfig(VerbContext& ctx) {
  auto call = [&](const std::string& addr) { return ctx.admin().asyncGetAclConfig(addr); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return failAt(ctx, addr, r.error());
    ctx.report.line(fmt::format("============{}============", addr));
    ctx.report.line(*r);
    return 0;
  });
}

const OptionSpec kBroker{"-b, --brokerAddr <addr>", "one broker"};
const OptionSpec kCluster{"-c, --clusterName <name>", "every master of the cluster"};

VerbRegistrar r1({"updateAclConfig", "Update acl config yaml file in broker",
                  {kBroker, kCluster, {"-a, --accessKey <key>", "accessKey of the account (required)"},
                   {"-s, --secretKey <key>", "secretKey"},
                   {"-w, --whiteRemoteAddress <addr>", "white IP address of the account"},
                   {"-i, --defaultTopicPerm <perm>", "default topic perm (PUB, SUB, PUB|SUB, DENY)"},
                   {"-u, --defaultGroupPerm <perm>", "default group perm"},
                   {"-t, --topicPerms <list>", "topicPerms list, e.g. topicA=DENY,topicD=SUB"},
                   {"-g, --groupPerms <list>", "groupPerms list, e.g. groupD=DENY,groupD=SUB"},
                   {"-m, --admin <bool>", "admin flag", ValueKind::Boolean}},
                  &updateAclConfig});
VerbRegistrar r2({"deleteAclConfig", "Delete Acl Config Account in broker",
                  {kBroker, kCluster, {"-a, --accessKey <key>", "accessKey of the account to delete (required)"}},
                  &deleteAclConfig});
VerbRegistrar r3({"clusterAclConfigVersion", "List all of acl config version information in cluster",
                  {kBroker, kCluster}, &clusterAclConfigVersion});
VerbRegistrar r4({"updateGlobalWhiteAddr", "Update global white address for acl Config File in broker",
                  {kBroker, kCluster,
                   {"-g, --globalWhiteRemoteAddresses <list>", "addresses, e.g. 10.10.103.*,192.168.0.* (required)"},
                   {"-p, --aclFileFullPath <path>", "the acl file to change (default plain_acl.yml)"}},
                  &updateGlobalWhiteAddr});
VerbRegistrar r5({"getAclConfig", "List all of acl config information in cluster (GET_BROKER_CLUSTER_ACL_CONFIG)",
                  {kBroker, kCluster}, &getAclConfig});

}  // namespace
}  // namespace rmq::admin
