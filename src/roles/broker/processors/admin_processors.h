#pragma once
// Registration of the admin-side request processors (PROTOCOL.md §2.2 codes marked B that are
// not send/pull/heartbeat/offset-query). registerAdminProcessors(ctx) (broker_context.h) calls
// each group below. Processors run on network threads; anything that writes files goes through
// admin::postBackground / the managers' persist executor.
#include "roles/broker/broker_context.h"

namespace rmq::broker {

void registerTopicAdminProcessors(BrokerContext& ctx);    // 17, 215, 21, 305, 200, 207, 201, 43, 45
void registerQueryProcessors(BrokerContext& ctx);         // 12, 33, 321
void registerStatsProcessors(BrokerContext& ctx);         // 28, 202, 208, 317, 303, 300, 315
void registerClientAdminProcessors(BrokerContext& ctx);   // 203, 204, 328, 46, 41, 42, 307, 309
void registerOffsetAdminProcessors(BrokerContext& ctx);   // 222, 223, 314, 308
void registerBrokerConfigProcessors(BrokerContext& ctx);  // 25, 26, 306, 316, 329
void registerAclProcessors(BrokerContext& ctx);           // 50, 51, 52, 53, 54 (acl_processor.cpp)

}  // namespace rmq::broker
