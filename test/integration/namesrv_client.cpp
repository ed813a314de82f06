#include "namesrv_client.h"

#include <fmt/format.h>
#include <zlib.h>

#include "common/request_code.h"

namespace rmq::test {

std::string registerBody(int64_t counter, std::initializer_list<std::string> topics, int64_t epoch) {
  std::string table;
  for (auto& t : topics) {
    int queues = 4, perm = 6, sysFlag = 0;
    std::string name = t.substr(0, t.find(':'));
    std::sscanf(t.c_str() + std::min(t.size(), name.size() + 1), "%d:%d:%d", &queues, &perm, &sysFlag);
    if (!table.empty()) table += ",";
    table += fmt::format(
        "\"{0}\":{{\"order\":false,\"perm\":{2},\"readQueueNums\":{1},\"topicFilterType\":\"SINGLE_TAG\","
        "\"topicName\":\"{0}\",\"topicSysFlag\":{3},\"writeQueueNums\":{1}}}",
        name, queues, perm, sysFlag);
  }
  std::string state = epoch > 0 ? fmt::format("\"stateVersion\":{},", epoch) : "";
  return fmt::format(
      "{{\"filterServerList\":[],\"topicConfigSerializeWrapper\":{{\"dataVersion\":{{\"counter\":{},{}"
      "\"timestamp\":1700000000000}},\"topicConfigTable\":{{{}}}}}}}",
      counter, state, table);
}

net::RemotingCommand registerRequest(const std::string& cluster, const std::string& name, int64_t id,
                                     const std::string& addr, const std::string& body) {
  auto cmd = net::RemotingCommand::request(RequestCode::REGISTER_BROKER);
  cmd.extFields.set("brokerName", name);
  cmd.extFields.set("brokerAddr", addr);
  cmd.extFields.set("clusterName", cluster);
  cmd.extFields.set("haServerAddr", addr + "-ha");
  cmd.extFields.set("brokerId", id);
  cmd.extFields.setBool("compressed", false);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  cmd.extFields.set("bodyCrc32", static_cast<int64_t>(static_cast<int32_t>(crc & 0x7FFFFFFF)));
  cmd.body = body;
  return cmd;
}

}  // namespace rmq::test
