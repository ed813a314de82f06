// Request helpers of the /api/ handlers: fields from the query or a form body, integers, statuses.
#include <doctest/doctest.h>

#include "console/console_handlers.h"

using namespace rmq;
using namespace rmq::console;

TEST_CASE("console request: fields from the query string, else from a form body") {
  http::HttpRequest req;
  req.query = "topic=T%201&empty=";
  req.body = "topic=ignored&keys=a+b&n=42&bad=4x";
  CHECK(field(req, "topic") == "T 1");
  CHECK_FALSE(field(req, "keys").has_value());  // no form content type: the body is not read
  req.headers.emplace_back("content-type", "application/x-www-form-urlencoded; charset=UTF-8");
  CHECK(field(req, "keys") == "a b");
  CHECK(field(req, "topic") == "T 1");  // the query string wins
  CHECK(field(req, "empty") == "");
  CHECK_FALSE(nonEmpty(req, "empty").has_value());
  CHECK(intField(req, "n", 7) == 42);
  CHECK(intField(req, "missing", 7) == 7);
  CHECK_FALSE(intField(req, "bad", 7).has_value());
}

TEST_CASE("console request: RocketMQ codes as HTTP statuses") {
  CHECK(httpStatusOf(17) == 404);   // TOPIC_NOT_EXIST
  CHECK(httpStatusOf(208) == 404);  // NO_MESSAGE
  CHECK(httpStatusOf(206) == 404);  // CONSUMER_NOT_ONLINE
  CHECK(httpStatusOf(13) == 400);   // MESSAGE_ILLEGAL
  CHECK(httpStatusOf(-1) == 502);   // timeout: a node did not answer
  CHECK(httpStatusOf(-2) == 502);
  CHECK(httpStatusOf(1) == 500);
  auto r = failure(Error{17, "topic not exist"});
  CHECK(r.status == 404);
  CHECK(r.contentType == "application/json");
  CHECK(r.body == R"({"error":"topic not exist","code":17})");
  CHECK(badRequest("x").status == 400);
}
