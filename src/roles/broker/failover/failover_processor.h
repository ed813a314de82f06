#pragma once
// RMQNODE_FAILOVER_STATUS (9101) and RMQNODE_FAILOVER_SWITCH (9102): rmqadmin's failoverStatus and
// failoverSwitch (planned switchover). Registered only when failoverEnable.
namespace rmq::broker {
struct BrokerContext;
class FailoverCoordinator;
void registerFailoverProcessor(BrokerContext& ctx, FailoverCoordinator& coordinator);
}  // namespace rmq::broker
