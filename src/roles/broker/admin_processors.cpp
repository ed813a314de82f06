#include "roles/broker/admin_processors.h"

namespace rmq::broker {

void registerAdminProcessors(BrokerContext& ctx) {
  registerTopicAdminProcessors(ctx);
  registerQueryProcessors(ctx);
  registerStatsProcessors(ctx);
  registerClientAdminProcessors(ctx);
  registerOffsetAdminProcessors(ctx);
  registerBrokerConfigProcessors(ctx);
  registerSendBackProcessor(ctx);
}

}  // namespace rmq::broker
