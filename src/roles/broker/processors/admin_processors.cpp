// registerAdminProcessors (declared in broker_context.h): every admin-side request family.
#include "roles/broker/processors/admin_processors.h"

#include "roles/broker/broker_context.h"

namespace rmq::broker {

void registerAdminProcessors(BrokerContext& ctx) {
  registerTopicAdminProcessors(ctx);
  registerQueryProcessors(ctx);
  registerStatsProcessors(ctx);
  registerClientAdminProcessors(ctx);
  registerOffsetAdminProcessors(ctx);
  registerBrokerConfigProcessors(ctx);
  registerAclProcessors(ctx);
}

}  // namespace rmq::broker
