// The pure parts of the etcd client: base64, the HTTP response parser, the gateway's JSON.
#include <doctest/doctest.h>

#include <string>

#include "coord/base64.h"
#include "coord/etcd_types.h"
#include "coord/gateway_json.h"
#include "coord/response_parser.h"

using namespace rmq::coord;

TEST_CASE("base64: RFC 4648 vectors, every byte value, strict decoding") {
  const char* vectors[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
                              {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (auto& v : vectors) {
    CHECK(base64Encode(v[0]) == v[1]);
    CHECK(base64Decode(v[1]) == std::string(v[0]));
  }
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  for (size_t len = 0; len <= all.size(); len += 37) CHECK(base64Decode(base64Encode(all.substr(0, len))) == all.substr(0, len));
  CHECK(base64Encode(std::string("\xff\xfe", 2)) == "//4=");
  CHECK_FALSE(base64Decode("Zm9"));       // not a multiple of 4
  CHECK_FALSE(base64Decode("Zm9v\n"));    // whitespace
  CHECK_FALSE(base64Decode("Zm=v"));      // padding inside
  CHECK_FALSE(base64Decode("Z$9v"));      // outside the alphabet
}

TEST_CASE("response parser: Content-Length body fed a byte at a time") {
  std::string wire = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":\"12\"}\n";
  ResponseParser p;
  for (char c : wire) REQUIRE(p.feed(std::string_view(&c, 1)));
  REQUIRE(p.complete());
  CHECK(p.status() == 200);
  CHECK(p.body() == "{\"a\":\"12\"}\n");
  CHECK(p.keepAlive());
}

TEST_CASE("response parser: chunked body with a trailer (the gateway's error answers), Connection: close") {
  std::string wire =
      "HTTP/1.1 404 Not Found\r\nConnection: close\r\nTrailer: Grpc-Trailer-Content-Type\r\nTransfer-Encoding: chunked\r\n\r\n"
      "6\r\n{\"a\":1\r\n1\r\n}\r\n0\r\nGrpc-Trailer-Content-Type: application/grpc\r\n\r\n";
  ResponseParser p;
  REQUIRE(p.feed(wire.substr(0, 40)));
  CHECK_FALSE(p.complete());
  REQUIRE(p.feed(wire.substr(40)));
  REQUIRE(p.complete());
  CHECK(p.status() == 404);
  CHECK(p.body() == "{\"a\":1}");
  CHECK_FALSE(p.keepAlive());
}

TEST_CASE("response parser: a body delimited by EOF, a truncated one, garbage, an oversized body") {
  ResponseParser eofBody;
  REQUIRE(eofBody.feed("HTTP/1.1 200 OK\r\n\r\nabc"));
  CHECK_FALSE(eofBody.complete());
  REQUIRE(eofBody.feedEof());
  CHECK(eofBody.body() == "abc");

  ResponseParser truncated;
  REQUIRE(truncated.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
  CHECK_FALSE(truncated.feedEof());
  CHECK(truncated.error() == "connection closed in the middle of the response");

  ResponseParser nothing;
  CHECK_FALSE(nothing.feedEof());
  CHECK_FALSE(nothing.started());

  ResponseParser garbage;
  CHECK_FALSE(garbage.feed("SSH-2.0-OpenSSH\r\n"));
  CHECK(garbage.error().starts_with("malformed response"));

  ResponseParser small(4);
  CHECK_FALSE(small.feed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n12345"));
  CHECK(small.error() == "response body over 4 bytes");
}

TEST_CASE("gateway json: prefix range ends as clientv3 computes them") {
  CHECK(prefixRangeEnd("/rmq/") == "/rmq0");
  CHECK(prefixRangeEnd(std::string("a\xff", 2)) == "b");
  CHECK(prefixRangeEnd(std::string("\xff\xff", 2)) == std::string(1, '\0'));
  CHECK(gateway::rangeRequest("", true) == R"({"key":"AA==","range_end":"AA=="})");
  CHECK(gateway::rangeRequest("ab", true) == R"({"key":"YWI=","range_end":"YWM="})");
}

TEST_CASE("gateway json: requests carry base64 bytes and int64 strings") {
  CHECK(gateway::putRequest("k", "v", 0) == R"({"key":"aw==","value":"dg=="})");
  CHECK(gateway::putRequest("k", "", 7) == R"({"key":"aw==","value":"","lease":"7"})");
  CHECK(gateway::leaseIdRequest(-5) == R"({"ID":"-5"})");
  Compare c{.key = "k", .target = Compare::Target::Mod, .op = Compare::Op::NotEqual, .number = 9};
  Compare v{.key = "k", .target = Compare::Target::Value, .op = Compare::Op::Less, .value = "x"};
  TxnOp put{.kind = TxnOp::Kind::Put, .key = "k", .value = "v", .lease = 3};
  TxnOp del{.kind = TxnOp::Kind::Delete, .key = "p", .prefix = true};
  CHECK(gateway::txnRequest({c, v}, {put}, {del}) ==
        R"({"compare":[{"key":"aw==","target":"MOD","result":"NOT_EQUAL","mod_revision":"9"},)"
        R"({"key":"aw==","target":"VALUE","result":"LESS","value":"eA=="}],)"
        R"("success":[{"request_put":{"key":"aw==","value":"dg==","lease":"3"}}],)"
        R"("failure":[{"request_delete_range":{"key":"cA==","range_end":"cQ=="}}]})");
}

TEST_CASE("gateway json: absent fields are zero, lease gone is its own error") {
  auto kvs = gateway::decodeRange(R"({"header":{"revision":"4"},"kvs":[{"key":"aw==","create_revision":"2","mod_revision":"3","version":"2"}]})");
  REQUIRE(kvs);
  REQUIRE(kvs->size() == 1);
  CHECK((*kvs)[0].key == "k");
  CHECK((*kvs)[0].value.empty());
  CHECK((*kvs)[0].lease == 0);
  CHECK((*kvs)[0].modRevision == 3);
  CHECK(gateway::decodeRange(R"({"header":{}})")->empty());
  CHECK(gateway::decodeRange(R"({"kvs":[{"key":"not base64!"}]})").error().code == kEtcdRejected);

  auto txn = gateway::decodeTxn(R"({"header":{"revision":"8"}})");
  REQUIRE(txn);
  CHECK_FALSE(txn->succeeded);
  CHECK(txn->revision == 8);

  CHECK(gateway::decodeKeepAlive(R"({"result":{"ID":"5","TTL":"10"}})", 5).value() == 10);
  auto gone = gateway::decodeKeepAlive(R"({"result":{"ID":"5"}})", 5);
  REQUIRE_FALSE(gone);
  CHECK(isLeaseGone(gone.error()));
  CHECK(gone.error().message == "etcd: lease 5 not found (expired or revoked)");
  CHECK(isLeaseGone(gateway::decodeTimeToLive(R"({"ID":"5","TTL":"-1"})", 5).error()));

  auto notFound = gateway::decodeError(404, R"({"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5})");
  CHECK(isLeaseGone(notFound));
  auto bad = gateway::decodeError(400, R"({"error":"invalid character","message":"invalid character","code":3})");
  CHECK(bad.code == kEtcdRejected);
  CHECK(bad.message == "etcd: HTTP 400 (gRPC code 3): invalid character");
}

TEST_CASE("gateway json: watch request and the stream's messages (etcd 3.4.23's own text)") {
  CHECK(gateway::watchRequest("k", false, 7) == R"({"create_request":{"key":"aw==","start_revision":"7"}})");
  CHECK(gateway::watchRequest("p/", true, 1) ==
        R"({"create_request":{"key":"cC8=","range_end":"cDA=","start_revision":"1"}})");
  auto created = gateway::decodeWatchMessage(
      R"({"result":{"header":{"cluster_id":"1","member_id":"2","revision":"2","raft_term":"2"},"created":true}})");
  REQUIRE(created);
  CHECK(created->created);
  CHECK(created->events == 0);
  auto deleted = gateway::decodeWatchMessage(
      R"({"result":{"header":{"revision":"4"},"events":[{"type":"DELETE","kv":{"key":"Zm9vL2E=","mod_revision":"4"}}]}})");
  REQUIRE(deleted);
  CHECK_FALSE(deleted->created);
  CHECK(deleted->events == 1);
  auto compacted = gateway::decodeWatchMessage(R"({"result":{"header":{},"canceled":true,"compact_revision":"9"}})");
  REQUIRE(compacted);
  CHECK(compacted->canceled);
  CHECK(compacted->compactRevision == 9);
  CHECK(gateway::decodeWatchMessage(R"({"error":{"grpc_code":14,"message":"unavailable"}})").error().code ==
        kEtcdRejected);
  CHECK(gateway::decodeWatchMessage("not json").error().code == kEtcdRejected);
}
