#pragma once
// The REGISTER_BROKER body a broker sends (RegisterBrokerBody JSON, PROTOCOL.md §3.2), as a Java
// 4.9 broker writes it (fastjson: keys sorted). Pure: no I/O.
#include <cstdint>
#include <string>
#include <vector>

#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker {

// `epoch` > 0 (failover on) adds the group's epoch as dataVersion.stateVersion, the field RocketMQ
// 5.x name servers fence stale masters with (Java 4.9 name servers' fastjson ignores it); 0 keeps
// the body byte-identical to Java 4.9's. Each topic's perm is `brokerPermission` when that is not
// read-write (Java registerBrokerAll).
std::string encodeRegisterBody(const DataVersion& version, int64_t epoch, const std::vector<TopicConfig>& topics,
                               int32_t brokerPermission);

}  // namespace rmq::broker
