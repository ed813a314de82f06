#pragma once
// Helpers shared by the rmqadmin verb groups: broker targets (-b addr | -c cluster), timestamps,
// and the detail view of one message (queryMsgById, queryMsgByOffset, consumeMessage, printMsg).
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/message.h"
#include "tools/rmqadmin/verb.h"

namespace rmq::admin {

// Records a usage error unless -b <addr> or -c <cluster> was given.
void requireBrokerOrCluster(VerbContext& ctx);
// Broker addresses a verb acts on: -b <addr>, else the masters of -c <cluster> (an Error when the
// cluster is unknown or has no master).
Result<std::vector<std::string>> brokerTargets(VerbContext& ctx);
// Runs `call(addr)` (an AdminClient operation, a coroutine owning its arguments) for every address
// at once (AdminClient::asyncAll, one deadline); the answers in address order.
template <class Call>
auto runEach(VerbContext& ctx, const std::vector<std::string>& addrs, Call&& call) {
  using Task = std::invoke_result_t<Call&, const std::string&>;  // asio::awaitable<Result<T>>
  std::vector<Task> tasks;
  for (const auto& addr : addrs) tasks.push_back(call(addr));
  auto& admin = ctx.admin();
  return admin.run(admin.asyncAll(std::move(tasks)));
}

// The shape of every "-b addr | -c cluster" verb: checks the options, resolves the targets, runs
// `call(addr)` on all of them at once (runEach), then `print(addr, answer, targetCount)` for each in
// target order; returns 2 on bad usage, the first non-zero print result, else 0.
template <class Call, class Print>
int forEachTargetBroker(VerbContext& ctx, Call&& call, Print&& print) {
  requireBrokerOrCluster(ctx);
  if (ctx.badUsage()) return 2;
  auto targets = brokerTargets(ctx);
  if (!targets) return ctx.fail(targets.error());
  auto answers = runEach(ctx, *targets, call);
  for (size_t i = 0; i < targets->size(); ++i)
    if (int rc = print((*targets)[i], answers[i], targets->size()); rc != 0) return rc;
  return 0;
}

// ctx.fail with "<addr>: <message>" and the error's code.
int failAt(VerbContext& ctx, const std::string& addr, const Error& e);

// Client settings of a producer or consumer a verb starts: -n, the ACL keys, an instance name of this process.
client::ClientConfig toolClientConfig(VerbContext& ctx);

// Value of a ValueKind::Boolean option ("true"/"false", any case), dflt when absent.
bool boolOption(VerbContext& ctx, std::initializer_list<std::string> names, bool dflt);

// MQVersion.getVersionDesc: "V4_9_8" for 409, "HIGHER_VERSION" past V5_9_9; the irregular V3
// names (ordinals below V4_0_0_SNAPSHOT, 212) as the number itself.
std::string mqVersionDesc(int32_t version);

// Body as text when it is printable UTF-8 (truncated to `limit` bytes), else "<N bytes, binary>".
std::string bodyText(const std::string& body, size_t limit = 4096);

// "key : value" rows describing one message, mqadmin's queryMsgById layout.
std::vector<std::pair<std::string, std::string>> messageDetail(const MessageExt& m, bool withBody);

}  // namespace rmq::admin
