// plain_acl.yml parsing, address patterns, permissions and the validator's answers (Java's
// AclException texts and the stack frame the client sees in the remark).
#include <doctest/doctest.h>

#include "acl/access_request.h"
#include "acl/acl_rules.h"
#include "acl/permission.h"
#include "acl/remote_address.h"
#include "acl/signature.h"
#include "common/request_code.h"

using namespace rmq;
using namespace rmq::acl;

namespace {

bool matches(const char* pattern, const char* ip) {
  auto p = RemoteAddressPattern::parse(pattern);
  REQUIRE_MESSAGE(p, pattern << ": " << (p ? std::string() : p.error().message));
  return p->match(ip);
}

constexpr const char* kYaml = R"(globalWhiteRemoteAddresses:
  - 10.10.103.*
  - 192.168.0.*
accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      - groupA=DENY
      - groupB=PUB|SUB
      - groupC=SUB
  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    admin: true
dataVersion:
  - counter: 3
    timestamp: 1700000000000
)";

std::shared_ptr<const AclRules> rules(const char* yaml = kYaml) {
  auto file = parseAclFile("plain_acl.yml", yaml, 1);
  REQUIRE(file);
  auto r = compileRules({&*file});
  REQUIRE(r);
  return *r;
}

std::optional<AclDenied> check(const AclRules& rules, net::RemotingCommand cmd, const std::string& ip,
                               const SessionCredentials* creds) {
  if (creds) signRequest(cmd, *creds);
  auto parsed = parseAccess(cmd, ip + ":50000");
  if (parsed.error) return parseFailure(*parsed.error);
  return validate(rules, parsed.request);
}

net::RemotingCommand sendV2(const char* topic, const char* group = "pg") {
  net::RemotingCommand cmd;
  cmd.code = RequestCode::SEND_MESSAGE_V2;
  cmd.extFields.set("a", group);
  cmd.extFields.set("b", topic);
  cmd.body = "hello";
  return cmd;
}

}  // namespace

TEST_CASE("acl address patterns: RocketMQ's forms") {
  CHECK(matches("*", "1.2.3.4"));
  CHECK(matches("*.*.*.*", "1.2.3.4"));
  CHECK_FALSE(matches("", "1.2.3.4"));
  CHECK(matches("192.168.0.{1,2}", "192.168.0.2"));
  CHECK_FALSE(matches("192.168.0.{1,2}", "192.168.0.3"));
  CHECK(matches("192.168.0.1,192.168.0.9", "192.168.0.9"));
  CHECK(matches("192.168.1.1-100", "192.168.1.100"));
  CHECK_FALSE(matches("192.168.1.1-100", "192.168.1.101"));
  CHECK_FALSE(matches("192.168.1.1-100", "192.168.2.50"));
  CHECK(matches("192.168.*.*", "192.168.77.1"));
  CHECK_FALSE(matches("192.168.*.*", "192.169.77.1"));
  CHECK(matches("192.*.*.*", "192.1.2.3"));
  CHECK(matches("127.0.0.1", "127.0.0.1"));
  CHECK_FALSE(matches("127.0.0.1", "127.0.0.2"));
  CHECK(matches("::1", "0:0:0:0:0:0:0:1"));
  CHECK(matches("1050::0005:*", "1050:0:0:0:0:0:5:abcd"));
  CHECK(matches("1050::0005:1-ff", "1050:0:0:0:0:0:5:80"));
  CHECK_FALSE(matches("1050::0005:1-ff", "1050:0:0:0:0:0:5:100"));
  auto bad = RemoteAddressPattern::parse("192.168.1.300-1");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "RangeRemoteAddressStrategy netaddress examine scope Exception start is 300 , end is 1");
  CHECK(RemoteAddressPattern::parse("192.168.1.256").error().message ==
        "Netaddress examine Exception netaddress is 192.168.1.256");
  CHECK(RemoteAddressPattern::parse("192.*").error().message == "Netaddress examine scope Exception netaddress is 192.*");
}

TEST_CASE("acl permissions: strings and the check") {
  CHECK(parsePerm("PUB|SUB") == (Perm::PUB | Perm::SUB));
  CHECK(parsePerm(" SUB ") == Perm::SUB);
  CHECK(parsePerm("pub") == Perm::DENY);
  CHECK(checkPermission(Perm::PUB, Perm::PUB | Perm::SUB));
  CHECK_FALSE(checkPermission(Perm::PUB, Perm::SUB));
  CHECK(checkPermission(Perm::ANY, Perm::SUB));
  CHECK_FALSE(checkPermission(Perm::SUB, Perm::DENY | Perm::SUB));
  CHECK(checkResourcePerm("topicA=SUB").empty());
  CHECK(checkResourcePerm("topicA=READ") == "Parse resource permission error for topicA=READ.\nThe expected "
                                            "permissions are 'SUB' or 'PUB' or 'SUB|PUB' or 'PUB|SUB'.");
}

TEST_CASE("acl yml: accounts, white lists and dataVersion are read") {
  auto file = parseAclFile("plain_acl.yml", kYaml, 1);
  REQUIRE(file);
  CHECK(file->globalWhiteRemoteAddresses.size() == 2);
  REQUIRE(file->accounts.size() == 2);
  CHECK(file->accounts[0].secretKey == "12345678");
  CHECK(file->accounts[1].admin);
  CHECK(file->dataVersion.counter == 3);
  CHECK(file->dataVersion.toJson() == R"({"counter":3,"timestamp":1700000000000})");
  auto broken = parseAclFile("/x/plain_acl.yml", "accounts:\n  - accessKey: [unclosed\n", 1);
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.find("/x/plain_acl.yml") == 0);
  auto shortKey = parseAclFile("f.yml", "accounts:\n  - accessKey: abc\n    secretKey: 12345678\n", 1);
  REQUIRE(shortKey);
  auto compiled = compileRules({&*shortKey});
  REQUIRE_FALSE(compiled);
  CHECK(compiled.error().message ==
        "f.yml: The accessKey=abc and secretKey=12345678 cannot be null and length should longer than 6");
}

TEST_CASE("acl yml edits: upsert, delete and white addresses bump dataVersion and re-read") {
  auto file = parseAclFile("plain_acl.yml", kYaml, 1);
  REQUIRE(file);
  AccountConfig a;
  a.accessKey = "newAccount1";
  a.secretKey = "newSecret1";
  a.topicPerms = std::vector<std::string>{"t1=PUB"};
  upsertAccount(*file, a, 42);
  CHECK(file->dataVersion.counter == 4);
  CHECK(deleteAccount(*file, "rocketmq2", 43));
  CHECK_FALSE(deleteAccount(*file, "nobody-here", 44));
  setGlobalWhiteAddresses(*file, {"127.0.0.1"}, 45);
  auto again = parseAclFile("plain_acl.yml", emitAclFile(*file), 1);
  REQUIRE(again);
  CHECK(again->dataVersion.counter == 6);
  CHECK(again->dataVersion.timestamp == 45);
  REQUIRE(again->accounts.size() == 2);
  CHECK(again->accounts[1].accessKey == "newAccount1");
  CHECK(again->accounts[1].topicPerms == std::vector<std::string>{"t1=PUB"});
  CHECK(again->globalWhiteRemoteAddresses == std::vector<std::string>{"127.0.0.1"});
}

TEST_CASE("acl validate: Java's messages for each refusal") {
  auto r = rules();
  SessionCredentials good{"RocketMQ", "12345678", ""};
  SessionCredentials wrong{"RocketMQ", "87654321", ""};
  SessionCredentials unknown{"someone-else", "12345678", ""};

  CHECK_FALSE(check(*r, sendV2("topicB"), "127.0.0.1", &good));  // topicB=PUB|SUB
  auto none = check(*r, sendV2("topicB"), "127.0.0.1", nullptr);
  REQUIRE(none);
  CHECK(none->remark() == "org.apache.rocketmq.acl.common.AclException: No accessKey is configured, "
                          "org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)");
  auto bad = check(*r, sendV2("topicB"), "127.0.0.1", &wrong);
  REQUIRE(bad);
  CHECK(bad->remark() == "org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=RocketMQ, "
                         "org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)");
  auto who = check(*r, sendV2("topicB"), "127.0.0.1", &unknown);
  REQUIRE(who);
  CHECK(who->message == "No acl config for someone-else");
  auto sub = check(*r, sendV2("topicC"), "127.0.0.1", &good);  // topicC=SUB: no PUB
  REQUIRE(sub);
  CHECK(sub->remark() == "org.apache.rocketmq.acl.common.AclException: No default permission for topic:topicC, "
                         "org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)");
  auto dflt = check(*r, sendV2("unlisted"), "127.0.0.1", &good);  // defaultTopicPerm DENY
  REQUIRE(dflt);
  CHECK(dflt->frame.ends_with("checkPerm(PlainPermissionManager.java:606)"));
  CHECK_FALSE(check(*r, sendV2("RMQ_SYS_TRACE_TOPIC"), "127.0.0.1", &good));  // trace topic PUB passes

  net::RemotingCommand create;
  create.code = RequestCode::UPDATE_AND_CREATE_TOPIC;
  create.extFields.set("topic", "x");
  auto admin = check(*r, create, "127.0.0.1", &good);
  REQUIRE(admin);
  CHECK(admin->message == "Need admin permission for request code=17, but accessKey=RocketMQ is not");
}

TEST_CASE("acl validate: white lists pass without a signature") {
  auto r = rules();
  CHECK_FALSE(check(*r, sendV2("anything"), "10.10.103.7", nullptr));  // global white list
  CHECK(check(*r, sendV2("anything"), "10.10.104.7", nullptr));
  net::RemotingCommand cmd = sendV2("anything");
  cmd.extFields.set("AccessKey", "rocketmq2");  // account white list: no signature, no perm check
  CHECK_FALSE(check(*r, cmd, "192.168.1.20", nullptr));
  CHECK(check(*r, cmd, "192.168.2.20", nullptr));
}

TEST_CASE("acl parse: resources per request code, in Java's HashMap order") {
  net::RemotingCommand pull;
  pull.code = RequestCode::PULL_MESSAGE;
  pull.extFields.set("consumerGroup", "please_rename_unique_group_name_4");
  pull.extFields.set("topic", "TopicTest");
  auto parsed = parseAccess(pull, "127.0.0.1:1");
  REQUIRE_FALSE(parsed.error);
  REQUIRE(parsed.request.resources.size() == 2);
  CHECK(parsed.request.resources[0].first == "%RETRY%please_rename_unique_group_name_4");  // as JDK 17 iterates
  CHECK(parsed.request.resources[1].first == "TopicTest");

  net::RemotingCommand hb;
  hb.code = RequestCode::HEART_BEAT;
  hb.body = R"({"clientID":"c","consumerDataSet":[{"groupName":"g1","subscriptionDataSet":[{"topic":"topicA"},)"
            R"({"topic":"topicB"}]},{"groupName":"groupX","subscriptionDataSet":[]}],"producerDataSet":[]})";
  auto h = parseAccess(hb, "127.0.0.1:1");
  REQUIRE_FALSE(h.error);
  std::string order;
  for (auto& [res, perm] : h.request.resources) order += res + ",";
  CHECK(order == "topicA,topicB,%RETRY%groupX,%RETRY%g1,");  // JDK 17 HashMap order of the same keys

  net::RemotingCommand upd;
  upd.code = RequestCode::UPDATE_CONSUMER_OFFSET;
  upd.extFields.set("consumerGroup", "g");
  auto u = parseAccess(upd, "127.0.0.1:1");
  REQUIRE(u.error);
  CHECK(parseFailure(*u.error).remark() ==
        "org.apache.rocketmq.acl.common.AclException: the custom field <topic> is null, "
        "org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:134)");
}
