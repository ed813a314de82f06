#pragma once
// The REGISTER_BROKER body a broker sends (RegisterBrokerBody, PROTOCOL.md §3.2), as a Java 4.9
// broker writes it: JSON (fastjson: keys sorted) or, with compressedRegister, Java's
// RegisterBrokerBody.encode(true) form. Pure: no I/O.
#include <cstdint>
#include <string>
#include <vector>

#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker {

// DataVersion JSON as the bodies carry it: {"counter":N,["stateVersion":E,]"timestamp":T}
// (QUERY_DATA_VERSION's body too, so the name server compares like with like).
std::string encodeDataVersion(const DataVersion& version, int64_t epoch);
// Whether two DataVersion JSON texts hold the same counter, timestamp and stateVersion (Java's
// DataVersion.equals; key order and spacing do not matter). Unparsable = not the same.
bool sameDataVersionJson(std::string_view a, std::string_view b);

// `epoch` > 0 (failover on) adds the group's epoch as dataVersion.stateVersion, the field RocketMQ
// 5.x name servers fence stale masters with (Java 4.9 name servers' fastjson ignores it); 0 keeps
// the body byte-identical to Java 4.9's. Each topic's perm is `brokerPermission` when that is not
// read-write (Java registerBrokerAll).
std::string encodeRegisterBody(const DataVersion& version, int64_t epoch, const std::vector<TopicConfig>& topics,
                               int32_t brokerPermission);

// Java's compressed form (REGISTER_BROKER header compressed=true): zlib over int32 BE length + the
// DataVersion JSON (stateVersion as above), int32 BE topic count, per topic int32 BE length +
// TopicConfig.encode() ("name read write perm filterType": order and topicSysFlag are not carried,
// as in Java), int32 BE length + the filter-server list JSON ("[]"). About 5-20x smaller than the
// JSON: 100,000 topics fit a frame. Java deflates at level 9 (Deflater BEST_COMPRESSION); we use
// kRegisterBodyZlibLevel: the name server inflates any level (a zlib stream's level is only a hint
// in its header), and level 9 cost ~6x the time for < 1-9 % fewer bytes on 100,000 topics
// (figures in src/roles/broker/README.md).
inline constexpr int kRegisterBodyZlibLevel = 3;
std::string encodeRegisterBodyCompressed(const DataVersion& version, int64_t epoch,
                                         const std::vector<TopicConfig>& topics, int32_t brokerPermission);

}  // namespace rmq::broker
