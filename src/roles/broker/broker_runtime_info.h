#pragma once
// GET_BROKER_RUNTIME_INFO body (KVTable, PROTOCOL.md §3.7) and the put-rate sampler behind its
// TPS figures. The sampler counts stored messages as the sum of consume-queue max offsets (every
// put lands in exactly one queue), sampled once a second on ctx.background.
#include <memory>
#include <string>

#include "roles/broker/broker_context.h"

namespace rmq::broker {

class PutStatsSampler;

// Starts the sampler (once per context; later calls reuse it).
std::shared_ptr<PutStatsSampler> startPutStatsSampler(BrokerContext& ctx);
std::string encodeRuntimeInfo(BrokerContext& ctx, const PutStatsSampler* sampler);

}  // namespace rmq::broker
