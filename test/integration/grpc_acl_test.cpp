// ACL of the 5.x gRPC API on a real node (aclEnable = true, plain_acl.yml): the SDKs'
// `authorization: MQv2-HMAC-SHA1 ...` checked with the same accounts and permissions as remoting.
#include <doctest/doctest.h>

#include <cstdio>

#include "dev_node.h"
#include "grpc_client.h"

using namespace rmq;
using namespace rmq::test;

namespace {

constexpr const char* kYaml =
    "globalWhiteRemoteAddresses:\n"
    "accounts:\n"
    "  - accessKey: pubUser\n"
    "    secretKey: pubSecret1\n"
    "    defaultTopicPerm: PUB\n"
    "    defaultGroupPerm: SUB\n"
    "  - accessKey: subUser\n"
    "    secretKey: subSecret1\n"
    "    defaultTopicPerm: SUB\n"
    "    defaultGroupPerm: SUB\n";

v2::Code sendCode(GrpcTestClient& g, const std::string& topic) {
  v2::SendMessageRequest req;
  *req.add_messages() = grpcMessage(topic, v2::MessageType::NORMAL, newMessageId());
  return g.unary<v2::SendMessageResponse>("SendMessage", req).status().code();
}

}  // namespace

TEST_CASE("grpc ACL: unsigned and badly signed calls are UNAUTHORIZED, a SUB account FORBIDDEN, a PUB account sends") {
  DevNode node({.extraBroker = "aclEnable = true\n", .grpc = true});
  node.proc.setEnv("ROCKETMQ_HOME", node.proc.dir());
  std::string tmp = node.proc.writeFile("conf/plain_acl.yml.tmp", kYaml);
  std::rename(tmp.c_str(), node.proc.path("conf/plain_acl.yml").c_str());
  REQUIRE(node.start());
  const std::string topic = uniqueName("GrpcAcl");

  GrpcTestClient anonymous(node.grpcPort);
  CHECK(sendCode(anonymous, topic) == v2::Code::UNAUTHORIZED);

  GrpcTestClient wrong(node.grpcPort);
  wrong.setCredentials("pubUser", "not-the-secret");
  CHECK(sendCode(wrong, topic) == v2::Code::UNAUTHORIZED);

  GrpcTestClient sub(node.grpcPort);
  sub.setCredentials("subUser", "subSecret1");
  CHECK(sendCode(sub, topic) == v2::Code::FORBIDDEN);

  GrpcTestClient pub(node.grpcPort);
  pub.setCredentials("pubUser", "pubSecret1");
  CHECK(sendCode(pub, topic) == v2::Code::OK);  // auto-created, as a remoting send
  v2::QueryRouteRequest route;
  route.mutable_topic()->set_name(topic);
  CHECK(eventually([&] { return pub.unary<v2::QueryRouteResponse>("QueryRoute", route).status().code() == v2::Code::OK; },
                   std::chrono::seconds(10)));
  CHECK(anonymous.unary<v2::QueryRouteResponse>("QueryRoute", route).status().code() == v2::Code::UNAUTHORIZED);
}
