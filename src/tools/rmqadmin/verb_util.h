#pragma once
// Helpers shared by the rmqadmin verb groups: broker targets (-b addr | -c cluster), timestamps,
// and the detail view of one message (queryMsgById, queryMsgByOffset, consumeMessage, printMsg).
#include <optional>
#include <string>
#include <vector>

#include "common/message.h"
#include "tools/rmqadmin/verb.h"

namespace rmq::admin {

// Records a usage error unless -b <addr> or -c <cluster> was given.
void requireBrokerOrCluster(VerbContext& ctx);
// Broker addresses a verb acts on: -b <addr>, else the masters of -c <cluster> (an Error when the
// cluster is unknown or has no master).
Result<std::vector<std::string>> brokerTargets(VerbContext& ctx);
// The shape of every "-b addr | -c cluster" verb: checks the options, resolves the targets and runs
// `each(addr, targetCount)` for each; returns 2 on bad usage, the first non-zero result, else 0.
template <class Each>
int forEachTargetBroker(VerbContext& ctx, Each&& each) {
  requireBrokerOrCluster(ctx);
  if (ctx.badUsage()) return 2;
  auto targets = brokerTargets(ctx);
  if (!targets) return ctx.fail(targets.error());
  for (auto& addr : *targets)
    if (int rc = each(addr, targets->size()); rc != 0) return rc;
  return 0;
}

// Value of a ValueKind::Boolean option ("true"/"false", any case), dflt when absent.
bool boolOption(VerbContext& ctx, std::initializer_list<std::string> names, bool dflt);

// Body as text when it is printable UTF-8 (truncated to `limit` bytes), else "<N bytes, binary>".
std::string bodyText(const std::string& body, size_t limit = 4096);

// "key : value" rows describing one message, mqadmin's queryMsgById layout.
std::vector<std::pair<std::string, std::string>> messageDetail(const MessageExt& m, bool withBody);

}  // namespace rmq::admin
