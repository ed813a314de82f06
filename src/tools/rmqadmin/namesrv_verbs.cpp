// Name server verbs: updateKvConfig, deleteKvConfig, updateOrderConf (KV namespace
// ORDER_TOPIC_CONFIG), wipeWritePerm, addWritePerm, getNamesrvConfig, updateNamesrvConfig.
// The write-permission and config verbs ask every name server of -n at once and print one line
// (or block) per name server, as mqadmin's loops over its name server list do.
#include <fmt/format.h>

#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

const std::string kOrderTopicConfig = "ORDER_TOPIC_CONFIG";  // NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG

int updateKvConfig(VerbContext& ctx) {
  std::string ns = ctx.required({"s", "namespace"});
  std::string key = ctx.required({"k", "key"});
  std::string value = ctx.required({"v", "value"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  if (auto r = admin.run(admin.asyncPutKvConfig(ns, key, value)); !r) return ctx.fail(r.error());
  ctx.report.line("create or update kv config to namespace success.");
  return 0;
}

int deleteKvConfig(VerbContext& ctx) {
  std::string ns = ctx.required({"s", "namespace"});
  std::string key = ctx.required({"k", "key"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  if (auto r = admin.run(admin.asyncDeleteKvConfig(ns, key)); !r) return ctx.fail(r.error());
  ctx.report.line("delete kv config from namespace success.");
  return 0;
}

int updateOrderConf(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  std::string method = ctx.required({"m", "method"});
  std::string conf = ctx.args.get({"v", "orderConf"}, "");
  if (!method.empty() && method != "get" && method != "put" && method != "delete")
    ctx.usageError("-m must be put, get or delete");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  if (method == "get") {
    auto value = admin.run(admin.asyncGetKvConfig(kOrderTopicConfig, topic));
    if (!value) return ctx.fail(value.error());
    ctx.report.line(fmt::format("get orderConf success. topic=[{}], orderConf=[{}] ", topic, *value));
  } else if (method == "put") {
    if (conf.empty()) return ctx.fail("please set orderConf with option -v.");
    if (auto r = admin.run(admin.asyncPutKvConfig(kOrderTopicConfig, topic, conf)); !r) return ctx.fail(r.error());
    ctx.report.line(fmt::format("update orderConf success. topic=[{}], orderConf=[{}]", topic, conf));
  } else {
    if (auto r = admin.run(admin.asyncDeleteKvConfig(kOrderTopicConfig, topic)); !r) return ctx.fail(r.error());
    ctx.report.line(fmt::format("delete orderConf success. topic=[{}]", topic));
  }
  return 0;
}

// wipeWritePerm / addWritePerm: "... OK, <topics changed>" or "... Failed" per name server; exit 1
// when one failed.
int changeWritePerm(VerbContext& ctx, bool wipe) {
  std::string brokerName = ctx.required({"b", "brokerName"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  const char* verb = wipe ? "wipe" : "add";
  int rc = 0;
  for (auto& [addr, count] : admin.run(admin.asyncChangeWritePerm(brokerName, wipe))) {
    if (count) {
      ctx.report.line(fmt::format("{} write perm of broker[{}] in name server[{}] OK, {}", verb, brokerName, addr, *count));
    } else {
      ctx.report.line(fmt::format("{} write perm of broker[{}] in name server[{}] Failed", verb, brokerName, addr));
      rc = failAt(ctx, addr, count.error());
    }
  }
  return rc;
}

int wipeWritePerm(VerbContext& ctx) { return changeWritePerm(ctx, true); }
int addWritePerm(VerbContext& ctx) { return changeWritePerm(ctx, false); }

int getNamesrvConfig(VerbContext& ctx) {
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  for (auto& [addr, config] : admin.run(admin.asyncNamesrvConfig({}))) {
    if (!config) return failAt(ctx, addr, config.error());
    ctx.report.line(fmt::format("============{}============", addr));
    ctx.report.kv(addr, {config->begin(), config->end()}, "=  ");
  }
  return 0;
}

int updateNamesrvConfig(VerbContext& ctx) {
  std::string key = ctx.required({"k", "key"});
  auto value = ctx.args.get({"v", "value"});
  if (!value) ctx.usageError("missing option -v");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  std::vector<std::string> servers = admin.nameServers();
  for (auto& [addr, r] : admin.run(admin.asyncUpdateNamesrvConfig({{key, *value}}, servers)))
    if (!r) return failAt(ctx, addr, r.error());
  ctx.report.line(fmt::format("update name server config success![{}]", fmt::join(servers, ", ")));
  ctx.report.line(fmt::format("{} : {}", key, *value));
  return 0;
}

const OptionSpec kNamespace{"-s, --namespace <ns>", "set the namespace (required)"};
const OptionSpec kKey{"-k, --key <key>", "set the key name (required)"};
const OptionSpec kBrokerName{"-b, --brokerName <name>", "broker name (required)"};

VerbRegistrar r1({"updateKvConfig", "Create or update KV config.",
                  {kNamespace, kKey, {"-v, --value <value>", "set the key value (required)"}}, &updateKvConfig});
VerbRegistrar r2({"deleteKvConfig", "Delete KV config.", {kNamespace, kKey}, &deleteKvConfig});
VerbRegistrar r3({"updateOrderConf", "Create or update or delete order conf",
                  {{"-t, --topic <topic>", "topic name (required)"},
                   {"-v, --orderConf <conf>", "set order conf [eg. brokerName1:num;brokerName2:num]"},
                   {"-m, --method <method>", "option type [eg. put|get|delete] (required)"}},
                  &updateOrderConf});
VerbRegistrar r4({"wipeWritePerm", "Wipe write perm of broker in all name server you defined in the -n param",
                  {kBrokerName}, &wipeWritePerm});
VerbRegistrar r5({"addWritePerm", "Add write perm of broker in all name server you defined in the -n param",
                  {kBrokerName}, &addWritePerm});
VerbRegistrar r6({"getNamesrvConfig", "Get configs of name server.", {}, &getNamesrvConfig});
VerbRegistrar r7({"updateNamesrvConfig", "Update configs of name server.",
                  {{"-k, --key <key>", "config key (required)"}, {"-v, --value <value>", "config value (required)"}},
                  &updateNamesrvConfig});

}  // namespace
}  // namespace rmq::admin
