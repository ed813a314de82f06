#include <doctest/doctest.h>

#include <set>

#include "client/request_headers.h"
#include "client/producer/request_reply.h"
#include "common/message_codec.h"
#include "common/request_code.h"

using namespace rmq;
using namespace rmq::client;

TEST_CASE("request-reply: createReplyMessage copies the request's reply properties (Java MessageUtil)") {
  Message req;
  req.topic = "T";
  req.body = "q";
  req.putProperty(prop::CLUSTER, "C1");
  req.putProperty(prop::CORRELATION_ID, "cid");
  req.putProperty(prop::REPLY_TO_CLIENT, "1.2.3.4@x");
  req.putProperty(prop::TTL, "3000");
  req.putProperty(prop::TAGS, "notCopied");
  auto r = createReplyMessage(req, "a");
  REQUIRE(r.ok());
  CHECK(r->topic == "C1_REPLY_TOPIC");
  CHECK(r->body == "a");
  CHECK(*r->property(prop::MSG_TYPE) == "reply");
  CHECK(*r->property(prop::CORRELATION_ID) == "cid");
  CHECK(*r->property(prop::REPLY_TO_CLIENT) == "1.2.3.4@x");
  CHECK(*r->property(prop::TTL) == "3000");
  CHECK(r->property(prop::TAGS) == nullptr);
  req.removeProperty(prop::CLUSTER);
  auto bad = createReplyMessage(req, "a");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == client_error::CREATE_REPLY_MESSAGE_EXCEPTION);
}

TEST_CASE("request-reply: replies go with SEND_REPLY_MESSAGE_V2, other sends do not") {
  Properties p;
  setProperty(p, prop::TAGS, "reply");
  CHECK_FALSE(isReplyProperties(encodeProperties(p)));
  SendMessageHeader h;
  h.properties = encodeProperties(p);
  CHECK(makeSendRequest(h, "b").code == RequestCode::SEND_MESSAGE_V2);
  setProperty(p, prop::MSG_TYPE, "reply");
  CHECK(isReplyProperties(encodeProperties(p)));
  h.properties = encodeProperties(p);
  CHECK(makeSendRequest(h, "b").code == RequestCode::SEND_REPLY_MESSAGE_V2);
  setProperty(p, prop::MSG_TYPE, "replyX");
  CHECK_FALSE(isReplyProperties(encodeProperties(p)));
}

TEST_CASE("request-reply: correlation ids are distinct UUID v4 texts") {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto id = createCorrelationId();
    REQUIRE(id.size() == 36);
    CHECK(id[8] == '-');
    CHECK(id[14] == '4');
    CHECK(std::string("89ab").find(id[19]) != std::string::npos);
    seen.insert(id);
  }
  CHECK(seen.size() == 100);
}

TEST_CASE("request-reply: a pushed reply decodes (compressed body inflated, ARRIVE_TIME added)") {
  auto push = net::RemotingCommand::request(RequestCode::PUSH_REPLY_MESSAGE_TO_CLIENT);
  Properties p;
  setProperty(p, prop::CORRELATION_ID, "cid");
  push.extFields.set("topic", "C_REPLY_TOPIC");
  push.extFields.set("queueId", int64_t{0});
  push.extFields.set("sysFlag", int64_t{sysflag::COMPRESSED});
  push.extFields.set("bornHost", "127.0.0.1:5555");
  push.extFields.set("storeHost", "127.0.0.1:10911");
  push.extFields.set("storeTimestamp", int64_t{42});
  push.extFields.set("properties", encodeProperties(p));
  std::string body(5000, 'z');
  push.body = zlibCompress(body);
  auto m = decodePushedReply(push);
  REQUIRE(m.ok());
  CHECK(m->body == body);
  CHECK(m->topic == "C_REPLY_TOPIC");
  CHECK(m->storeTimestamp == 42);
  CHECK(m->bornHost.toString() == "127.0.0.1:5555");
  CHECK(*m->property(prop::CORRELATION_ID) == "cid");
  CHECK(m->property(prop::ARRIVE_TIME) != nullptr);
  push.body = "not zlib";
  CHECK_FALSE(decodePushedReply(push).ok());
}
