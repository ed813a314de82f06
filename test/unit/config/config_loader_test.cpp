#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "config/config_loader.h"
#include "config/config_printer.h"
#include "config/process_config.h"

using namespace rmq::config;

namespace {

struct SampleConfig {
  int32_t listenPort = 9876;
  int64_t expiredMillis = 120000;
  bool orderMessageEnable = false;
  double ratio = 0.5;
  std::string role = "ASYNC_MASTER";
  std::string home = "/opt/rmq";

  void visit(FieldVisitor& v) {
    v.field({.name = "listenPort", .description = "port", .min = 0, .max = 65535}, listenPort);
    v.field({.name = "expiredMillis", .description = "expiry", .min = 100}, expiredMillis);
    v.field({.name = "orderMessageEnable", .description = "order"}, orderMessageEnable);
    v.field({.name = "ratio", .description = "a ratio", .min = 0, .max = 1}, ratio);
    v.field({.name = "brokerRole", .description = "role", .choices = {"ASYNC_MASTER", "SYNC_MASTER", "SLAVE"}},
            role);
    v.field({.name = "rocketmqHome", .description = "home", .aliases = {"rocketmq.home.dir"}}, home);
  }
};

struct OtherConfig {
  int32_t listenPort = 10911;
  std::string storePathRootDir = "/store";
  void visit(FieldVisitor& v) {
    v.field({.name = "listenPort", .description = "broker port", .min = 0, .max = 65535}, listenPort);
    v.field({.name = "storePathRootDir", .description = "store root"}, storePathRootDir);
  }
};

std::string errorOf(const rmq::Result<std::vector<std::string>>& r) { return r ? "" : r.error().message; }

}  // namespace

TEST_CASE("properties parsing: comments, separators, trimming, continuation, escapes") {
  auto r = parseProperties("# comment\n! also comment\n  a = 1  \nb:two\nc three\nd=x\\\n   y\ne=\\u0041\\t\n\n",
                           "f.properties");
  REQUIRE(r);
  REQUIRE(r->size() == 5);
  CHECK((*r)[0].key == "a");
  CHECK((*r)[0].value.text == "1");
  CHECK((*r)[0].origin == "f.properties:3");
  CHECK((*r)[1].value.text == "two");
  CHECK((*r)[2].key == "c");
  CHECK((*r)[2].value.text == "three");
  CHECK((*r)[3].value.text == "xy");
  CHECK((*r)[4].value.text == "A\t");
}

TEST_CASE("properties values are converted by the field's type") {
  SampleConfig c;
  auto r = applyPropertiesText("listenPort=19876\nexpiredMillis=500\norderMessageEnable=TRUE\nratio=0.25\n"
                               "brokerRole=SLAVE\nrocketmq.home.dir=/x\n",
                               {section("namesrv", c)});
  REQUIRE_MESSAGE(r, errorOf(r));
  CHECK(c.listenPort == 19876);
  CHECK(c.expiredMillis == 500);
  CHECK(c.orderMessageEnable);
  CHECK(c.ratio == doctest::Approx(0.25));
  CHECK(c.role == "SLAVE");
  CHECK(c.home == "/x");
  CHECK(r->size() == 6);
}

TEST_CASE("bad values name the key and what was expected, and nothing is written") {
  SampleConfig c;
  auto r = applyPropertiesText("listenPort=70000\norderMessageEnable=yes\nbrokerRole=MASTER\nratio=x\n"
                               "expiredMillis=5\n",
                               {section("namesrv", c)});
  REQUIRE(!r);
  auto msg = r.error().message;
  CHECK(msg.find("'listenPort': expected an integer in [0, 65535], got \"70000\"") != std::string::npos);
  CHECK(msg.find("'orderMessageEnable': expected true or false") != std::string::npos);
  CHECK(msg.find("'brokerRole': expected one of ASYNC_MASTER, SYNC_MASTER, SLAVE") != std::string::npos);
  CHECK(msg.find("'ratio': expected a number in [0, 1]") != std::string::npos);
  CHECK(msg.find("'expiredMillis': expected an integer in [100, ") != std::string::npos);
  CHECK(c.listenPort == 9876);

  SampleConfig d;
  auto partial = applyPropertiesText("listenPort=1234\nbogusKey=1\n", {section("namesrv", d)});
  REQUIRE(!partial);
  CHECK(partial.error().message.find("unknown key 'bogusKey'") != std::string::npos);
  CHECK(partial.error().message.find("request:2") != std::string::npos);
  CHECK(d.listenPort == 9876);  // the valid line was not applied either
}

TEST_CASE("TOML: types must match, tables scope keys to a section") {
  SampleConfig ns;
  OtherConfig broker;
  std::vector<ConfigSection> sections{section("namesrv", ns), section("broker", broker)};
  auto entries = parseToml("ratio = 1\n[namesrv]\nlistenPort = 9000\n[broker]\nlistenPort = 10000\n"
                           "storePathRootDir = \"/data\"\n",
                           "x.toml");
  REQUIRE(entries);
  auto r = applyEntries(*entries, sections);
  REQUIRE_MESSAGE(r, errorOf(r));
  CHECK(ns.listenPort == 9000);
  CHECK(broker.listenPort == 10000);
  CHECK(broker.storePathRootDir == "/data");
  CHECK(ns.ratio == 1.0);  // integer accepted for a float field

  auto wrongType = parseToml("listenPort = \"9000\"\n", "y.toml");
  REQUIRE(wrongType);
  SampleConfig c;
  auto w = applyEntries(*wrongType, {section("namesrv", c)});
  REQUIRE(!w);
  CHECK(w.error().message.find("y.toml:1: key 'listenPort': expected an integer") != std::string::npos);

  auto unknownTable = parseToml("[nosuch]\na = 1\n", "z.toml");
  REQUIRE(unknownTable);
  auto u = applyEntries(*unknownTable, {section("namesrv", c)});
  REQUIRE(!u);
  CHECK(u.error().message.find("unknown table [nosuch]") != std::string::npos);

  auto syntax = parseToml("a = = 1\n", "s.toml");
  REQUIRE(!syntax);
  CHECK(syntax.error().message.find("s.toml:1") != std::string::npos);
}

TEST_CASE("a key claimed by any section is known; unscoped keys reach every section") {
  SampleConfig ns;
  OtherConfig broker;
  auto r = applyPropertiesText("storePathRootDir=/s\nbrokerRole=SLAVE\nbroker.listenPort=1\n",
                               {section("namesrv", ns), section("broker", broker)});
  REQUIRE_MESSAGE(r, errorOf(r));
  CHECK(broker.storePathRootDir == "/s");
  CHECK(ns.role == "SLAVE");
  CHECK(broker.listenPort == 1);
  CHECK(ns.listenPort == 9876);
}

TEST_CASE("renderToml output parses back to the same values; renderProperties lists every key") {
  SampleConfig a;
  ProcessConfig p;
  a.listenPort = 1;
  a.home = "quote\" back\\slash";
  a.ratio = 1.0;
  p.logLevel = "debug";
  auto toml = renderToml({section("process", p), section("namesrv", a)});
  CHECK(toml.find("# port\n# range: 0 .. 65535\nlistenPort = 1\n") != std::string::npos);
  CHECK(toml.find("# one of: ASYNC_MASTER, SYNC_MASTER, SLAVE") != std::string::npos);
  SampleConfig b;
  ProcessConfig q;
  auto entries = parseToml(toml, "printed.toml");
  REQUIRE(entries);
  auto r = applyEntries(*entries, {section("process", q), section("namesrv", b)});
  REQUIRE_MESSAGE(r, errorOf(r));
  CHECK(b.listenPort == 1);
  CHECK(b.home == a.home);
  CHECK(b.ratio == 1.0);
  CHECK(q.logLevel == "debug");

  auto props = renderProperties({section("namesrv", a)});
  CHECK(props.find("listenPort=1\n") != std::string::npos);
  CHECK(props.find("brokerRole=ASYNC_MASTER\n") != std::string::npos);
}

TEST_CASE("loadConfigFile picks the parser by extension") {
  auto dir = std::filesystem::temp_directory_path() / ("rmq_config_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  SampleConfig c;
  CHECK(loadConfigFile(write("a.properties", "listenPort=11\n"), {section("namesrv", c)}));
  CHECK(c.listenPort == 11);
  CHECK(loadConfigFile(write("b.conf", "listenPort=12\n"), {section("namesrv", c)}));
  CHECK(c.listenPort == 12);
  CHECK(loadConfigFile(write("c.toml", "listenPort = 13\n"), {section("namesrv", c)}));
  CHECK(c.listenPort == 13);
  auto bad = loadConfigFile(write("d.yaml", "x: 1\n"), {section("namesrv", c)});
  REQUIRE(!bad);
  CHECK(bad.error().message.find("unknown type") != std::string::npos);
  auto missing = loadConfigFile((dir / "none.toml").string(), {section("namesrv", c)});
  REQUIRE(!missing);
  CHECK(missing.error().message.find("cannot read config file") != std::string::npos);
  std::filesystem::remove_all(dir);
}
