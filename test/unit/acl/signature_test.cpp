// ACL signatures byte for byte as Java 4.9.8 computes them: the expected values were printed by
// test/reference/acl/AclVectors.java (AclUtils.combineRequestContent + AclSigner: TreeMap of the
// ext fields without Signature, values concatenated, body appended, HmacSHA1, Base64) on JDK 17.
#include <doctest/doctest.h>

#include "acl/signature.h"

using namespace rmq;
using rmq::acl::hmacSha1Base64;
using rmq::acl::signedContent;
using rmq::acl::signedParts;
using rmq::acl::signatureOf;

namespace {
net::RemotingCommand withFields(std::initializer_list<std::pair<const char*, const char*>> fields, std::string body = {}) {
  net::RemotingCommand cmd;
  for (auto& [k, v] : fields) cmd.extFields.set(k, v);
  cmd.body = std::move(body);
  return cmd;
}
}  // namespace

TEST_CASE("acl signature: SEND_MESSAGE_V2 header + body matches Java's AclClientRPCHook") {
  auto cmd = withFields({{"AccessKey", "RocketMQ"}, {"a", "ProducerGroupA"}, {"b", "TopicTest"}, {"c", "TBW102"},
                         {"d", "4"}, {"e", "0"}, {"f", "0"}, {"g", "1700000000000"}, {"h", "0"},
                         {"i", "UNIQ_KEY\x01" "C0A8000100002A9F\x02WAIT\x01true\x02TAGS\x01TagA\x02"},
                         {"j", "0"}, {"k", "false"}, {"m", "false"}},
                        "Hello RocketMQ");
  CHECK(hmacSha1Base64(signedContent(cmd, false), "12345678") == "ACiiDTOFRDn+e9Fw5Oxo2YFrWA4=");
}

TEST_CASE("acl signature: only the access key, no body") {
  auto cmd = withFields({{"AccessKey", "rocketmq2"}});
  CHECK(signedContent(cmd, false) == "rocketmq2");
  // also `printf rocketmq2 | openssl dgst -sha1 -hmac 12345678 -binary | base64`
  CHECK(hmacSha1Base64(signedContent(cmd, false), "12345678") == "Ou1T58RIcyZWaTIwzkhJZWn/Zvs=");
}

TEST_CASE("acl signature: UTF-8 values and key, binary body, SecurityToken signed, Signature left out") {
  auto cmd = withFields({{"AccessKey", "RocketMQ"}, {"SecurityToken", "tok"}, {"topic", "T\xc3\xa9st"},
                         {"Signature", "ignored"}},
                        std::string("\0\xff\n", 3));
  CHECK(hmacSha1Base64(signedContent(cmd, false), "s\xc3\xa9" "cret-key") == "fMD4sXBUkTYfscskjQ8xgdtTcpg=");
}

TEST_CASE("acl signature: keys in Java String order (upper case < '_' < lower case)") {
  auto cmd = withFields({{"a", "lower"}, {"_x", "under"}, {"B", "upper"}, {"AccessKey", "RocketMQ"}});
  CHECK(signedContent(cmd, false) == "RocketMQupperunderlower");
  CHECK(hmacSha1Base64(signedContent(cmd, false), "12345678") == "KvopJPODyg7vpK3vzHj0LsekDGw=");
}

TEST_CASE("acl signature: the broker leaves _UNIQUE_KEY_QUERY out, the client signs it") {
  auto cmd = withFields({{"AccessKey", "ak"}, {"_UNIQUE_KEY_QUERY", "true"}, {"topic", "T"}});
  CHECK(signedContent(cmd, false) == "aktrueT");
  CHECK(signedContent(cmd, true) == "akT");
}

TEST_CASE("acl signRequest sets AccessKey, SecurityToken and a Signature the broker side verifies") {
  net::RemotingCommand cmd;
  cmd.extFields.set("topic", "TopicTest");
  cmd.body = "body";
  acl::signRequest(cmd, {"RocketMQ", "12345678", "token"});
  CHECK(cmd.extFields.get("AccessKey") == "RocketMQ");
  CHECK(cmd.extFields.get("SecurityToken") == "token");
  CHECK(cmd.extFields.get("Signature") == hmacSha1Base64(signedContent(cmd, true), "12345678"));
  CHECK(signedContent(cmd, true) == "RocketMQtokenTopicTestbody");
}

TEST_CASE("acl signature: the streamed MAC over body segments equals the one over the whole content") {
  static const std::string tail = "-zero-copy-tail";
  auto cmd = withFields({{"AccessKey", "RocketMQ"}, {"topic", "T"}}, "owned");
  cmd.bodySegments.push_back({tail.data(), tail.size()});
  auto parts = signedParts(cmd, true);
  CHECK(parts.body.size() == 2);
  CHECK(signatureOf(parts, "12345678") == hmacSha1Base64(signedContent(cmd, true), "12345678"));
  CHECK(signedContent(cmd, true) == "RocketMQTowned-zero-copy-tail");
}
