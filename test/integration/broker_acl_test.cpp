// ACL 1.0 (aclEnable = true) with real processes: a node reading <ROCKETMQ_HOME>/conf/plain_acl.yml,
// clients of the client library and raw requests signed or not, the file edited while the node
// runs, the admin codes 50-54 through rmqadmin.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "acl/signature.h"
#include "broker_requests.h"
#include "client_fixture.h"
#include "dev_node.h"
#include "test_client.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;

namespace {

constexpr const char* kAdminKey = "RocketMQAdmin";
constexpr const char* kAdminSecret = "12345678";
constexpr const char* kSubKey = "subOnlyUser";
constexpr const char* kSubSecret = "87654321";

std::string aclYaml(const std::string& globalWhites = "") {
  return "globalWhiteRemoteAddresses:\n" + globalWhites +
         "accounts:\n"
         "  - accessKey: RocketMQAdmin\n"
         "    secretKey: 12345678\n"
         "    admin: true\n"
         "  - accessKey: subOnlyUser\n"
         "    secretKey: 87654321\n"
         "    whiteRemoteAddress: 10.9.9.9\n"
         "    defaultTopicPerm: SUB\n"
         "    defaultGroupPerm: SUB\n";
}

// A dev node with aclEnable = true and ROCKETMQ_HOME = its own directory.
struct AclNode {
  DevNode node{{.extraBroker = "aclEnable = true\n"}};
  explicit AclNode(const std::string& yaml) {
    node.proc.setEnv("ROCKETMQ_HOME", node.proc.dir());
    writeAcl(yaml);
    REQUIRE(node.start());
  }
  std::string aclPath() const { return node.proc.path("conf/plain_acl.yml"); }
  void writeAcl(const std::string& yaml) const {
    std::string tmp = node.proc.writeFile("conf/plain_acl.yml.tmp", yaml);
    std::rename(tmp.c_str(), aclPath().c_str());
  }
  std::string readAcl() const {
    std::ifstream in(aclPath());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

net::RemotingCommand signedBy(net::RemotingCommand cmd, const char* ak, const char* sk) {
  acl::signRequest(cmd, {ak, sk, ""});
  return cmd;
}

std::string remarkOf(const Result<net::RemotingCommand>& r) { return r.ok() && r->remark ? *r->remark : ""; }

client::ProducerOptions producerWith(const DevNode& node, const char* ak, const char* sk) {
  auto o = producerOptions(node);
  o.client.accessKey = ak;
  o.client.secretKey = sk;
  o.retryTimesWhenSendFailed = 0;
  return o;
}

Message msg(const std::string& topic, const std::string& body) {
  Message m;
  m.topic = topic;
  m.body = body;
  return m;
}

constexpr const char* kFrame = "org.apache.rocketmq.acl.plain.PlainPermissionManager.";

}  // namespace

TEST_CASE("broker acl: signed clients pass, unsigned / unknown / wrong-secret / no-PUB are refused as RocketMQ does") {
  AclNode acl(aclYaml());
  const DevNode& node = acl.node;
  TestClient c;
  std::string topic = uniqueName("AclTopic");

  // Creating a topic needs an admin account (code 17 is an admin code).
  auto subCreate = c.call(node.brokerAddr, signedBy(createTopicRequest(topic, 4), kSubKey, kSubSecret));
  CHECK(codeOf(subCreate) == 1);
  CHECK(remarkOf(subCreate) == std::string("org.apache.rocketmq.acl.common.AclException: Need admin permission for "
                                           "request code=17, but accessKey=subOnlyUser is not, ") +
                                   kFrame + "checkPerm(PlainPermissionManager.java:581)");
  REQUIRE(codeOf(c.call(node.brokerAddr, signedBy(createTopicRequest(topic, 4), kAdminKey, kAdminSecret))) == 0);

  // The client library signs every request (heartbeat, route, send) when given credentials.
  auto producer = startProducer(producerWith(node, kAdminKey, kAdminSecret));
  auto sent = producer->send(msg(topic, "signed body"));
  REQUIRE_MESSAGE(sent.ok(), (sent.ok() ? "" : sent.error().message));
  CHECK(sent->status == client::SendStatus::SEND_OK);

  // Unsigned: SYSTEM_ERROR with RocketMQ's remark, from the raw protocol and from the library.
  auto unsignedSend = c.call(node.brokerAddr, sendRequest({.topic = topic}));
  CHECK(codeOf(unsignedSend) == 1);
  CHECK(remarkOf(unsignedSend) == std::string("org.apache.rocketmq.acl.common.AclException: No accessKey is "
                                              "configured, ") + kFrame + "validate(PlainPermissionManager.java:664)");
  auto anonymous = startProducer(producerWith(node, "", ""));
  auto refused = anonymous->send(msg(topic, "unsigned body"));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("No accessKey is configured") != std::string::npos);

  auto unknown = c.call(node.brokerAddr, signedBy(sendRequest({.topic = topic}), "nobodyKnowsMe", "12345678"));
  CHECK(remarkOf(unknown).starts_with("org.apache.rocketmq.acl.common.AclException: No acl config for nobodyKnowsMe, "));
  auto wrongSecret = c.call(node.brokerAddr, signedBy(sendRequest({.topic = topic}), kAdminKey, "wrong-secret"));
  CHECK(remarkOf(wrongSecret) == std::string("org.apache.rocketmq.acl.common.AclException: Check signature failed "
                                             "for accessKey=RocketMQAdmin, ") +
                                     kFrame + "validate(PlainPermissionManager.java:684)");

  // A sub-account with SUB only: its producer cannot send, its pulls pass.
  auto subProducer = startProducer(producerWith(node, kSubKey, kSubSecret));
  auto subSend = subProducer->send(msg(topic, "no PUB"));
  REQUIRE_FALSE(subSend.ok());
  CHECK(subSend.error().message.find("No default permission for topic:" + topic) != std::string::npos);
  auto subRaw = c.call(node.brokerAddr, signedBy(sendRequest({.topic = topic}), kSubKey, kSubSecret));
  CHECK(remarkOf(subRaw) == "org.apache.rocketmq.acl.common.AclException: No default permission for topic:" + topic +
                                ", " + kFrame + "checkPerm(PlainPermissionManager.java:606)");
  auto pull = c.call(node.brokerAddr, signedBy(pullRequest({.group = "cg_acl", .topic = topic}), kSubKey, kSubSecret));
  REQUIRE(pull.ok());
  CHECK(pull->code != 1);

  // The file changes while the node runs: 127.0.0.1 becomes a global white address, so unsigned
  // requests pass (Java's watch service; ours polls every second).
  acl.writeAcl(aclYaml("  - 127.0.0.1\n"));
  CHECK(eventually([&] { return codeOf(c.call(node.brokerAddr, sendRequest({.topic = topic}))) == 0; },
                   std::chrono::seconds(15)));
  // A malformed file is reported and changes nothing: the last good content stays in force.
  acl.writeAcl("accounts: [unclosed\n");
  CHECK(eventually([&] { return node.brokerLog().find("last good content") != std::string::npos; },
                   std::chrono::seconds(15)));
  CHECK(codeOf(c.call(node.brokerAddr, sendRequest({.topic = topic}))) == 0);
  // Back to no white list: refused again.
  acl.writeAcl(aclYaml());
  CHECK(eventually([&] { return codeOf(c.call(node.brokerAddr, sendRequest({.topic = topic}))) == 1; },
                   std::chrono::seconds(15)));
}

TEST_CASE("broker acl: admin codes 50-54 through rmqadmin edit plain_acl.yml and take effect at once") {
  AclNode acl(aclYaml());
  const DevNode& node = acl.node;
  TestClient c;
  std::string topic = uniqueName("AclAdmin");
  REQUIRE(codeOf(c.call(node.brokerAddr, signedBy(createTopicRequest(topic, 4), kAdminKey, kAdminSecret))) == 0);
  std::vector<std::string> creds{"-b", node.brokerAddr, "--access-key", kAdminKey, "--secret-key", kAdminSecret};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), creds.begin(), creds.end());
    return args;
  };

  // Without credentials rmqadmin is refused like any client.
  auto anon = tools::admin(node, "updateAclConfig", {"-b", node.brokerAddr, "-a", "newUser01", "-s", "newSecret01"});
  CHECK(anon.exitCode == 1);
  CHECK(anon.err.find("No accessKey is configured") != std::string::npos);

  auto created = tools::admin(node, "updateAclConfig", with({"-a", "newUser01", "-s", "newSecret01", "-t", topic + "=PUB"}));
  REQUIRE_MESSAGE(created.exitCode == 0, tools::describe(created));
  CHECK(created.out.find("create or update plain access config to " + node.brokerAddr + " success.") != std::string::npos);
  CHECK(acl.readAcl().find("newUser01") != std::string::npos);
  auto p = startProducer(producerWith(node, "newUser01", "newSecret01"));
  auto ok = p->send(msg(topic, "new account"));
  CHECK_MESSAGE(ok.ok(), (ok.ok() ? "" : ok.error().message));

  // A bad permission string is refused with Java's code and message.
  auto bad = c.call(node.brokerAddr, signedBy(request(50, {{"accessKey", "newUser02"}, {"secretKey", "secret02x"},
                                                                      {"topicPerms", "t=READ"}}),
                                              kAdminKey, kAdminSecret));
  CHECK(codeOf(bad) == 209);
  CHECK(remarkOf(bad).starts_with("Parse resource permission error for t=READ."));

  auto versions = tools::adminJson(node, "clusterAclConfigVersion", with({}));
  auto& rows = tools::rows(versions, "versions");
  REQUIRE(rows.Size() == 1);
  CHECK(tools::str(rows[0], "#AclFilePath") == acl.aclPath());
  CHECK(tools::str(rows[0], "#AclConfigVersionNum") == "1");

  auto config = tools::admin(node, "getAclConfig", with({}));
  REQUIRE_MESSAGE(config.exitCode == 0, tools::describe(config));
  CHECK(config.out.find(R"("accessKey":"newUser01")") != std::string::npos);
  CHECK(config.out.find(R"("topicPerms":[")" + topic + "=PUB\"]") != std::string::npos);

  auto deleted = tools::admin(node, "deleteAclConfig", with({"-a", "newUser01"}));
  REQUIRE_MESSAGE(deleted.exitCode == 0, tools::describe(deleted));
  CHECK(acl.readAcl().find("newUser01") == std::string::npos);
  auto gone = c.call(node.brokerAddr, signedBy(sendRequest({.topic = topic}), "newUser01", "newSecret01"));
  CHECK(remarkOf(gone).find("No acl config for newUser01") != std::string::npos);
  auto again = c.call(node.brokerAddr, signedBy(request(51, {{"accessKey", "newUser01"}}), kAdminKey, kAdminSecret));
  CHECK(codeOf(again) == 210);
  CHECK(remarkOf(again) == "The accesskey[newUser01] corresponding to accessConfig has been deleted failed.");

  auto whites = tools::admin(node, "updateGlobalWhiteAddr", with({"-g", "127.0.0.1,10.10.103.*"}));
  REQUIRE_MESSAGE(whites.exitCode == 0, tools::describe(whites));
  CHECK(acl.readAcl().find("10.10.103.*") != std::string::npos);
  CHECK(codeOf(c.call(node.brokerAddr, sendRequest({.topic = topic}))) == 0);  // unsigned, white-listed now

  auto v3 = c.call(node.brokerAddr, request(52));  // white-listed: no signature needed
  REQUIRE(codeOf(v3) == 0);
  CHECK(v3->extFields.get("version").starts_with(R"({"counter":3,"timestamp":)"));
  CHECK(v3->extFields.get("brokerAddr") == node.brokerAddr);
}
