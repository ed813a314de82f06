// Inputs fuzz/config_properties found (fuzz/README.md); the same bytes are in the committed corpus.
#include <doctest/doctest.h>

#include <string>

#include "config/config_loader.h"
#include "config/config_printer.h"
#include "config/key_suggestion.h"

using namespace rmq::config;

namespace {
struct OneString {
  std::string brokerName = "broker-a";
  void visit(FieldVisitor& v) { v.field({.name = "brokerName", .description = "name"}, brokerName); }
};
}  // namespace

TEST_CASE("fuzz regression: a .properties value that is not UTF-8 is refused with its line") {
  // fuzz/corpus/config_properties/regression-invalid-utf8: a byte of a GBK-ish value was taken,
  // then --print-config wrote TOML that does not load back ("invalid utf-8 sequence").
  for (std::string bad : {std::string("brokerName=broker-\xe4\xe5\xbb\n"), std::string("brokerName=\xff\n"),
                          std::string("brokerName=\\uD800\n"), std::string("brokerName=\xed\xa0\x80\n"),
                          std::string("brokerName=\xc0\xaf\n"), std::string("brokerName=\xf4\x90\x80\x80\n"),
                          std::string("brokerName=\xe4\xb8\n")}) {
    auto r = parseProperties("# c\n" + bad, "broker.conf");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "config error at broker.conf:2: key 'brokerName': not valid UTF-8 (save the file as UTF-8)");
  }
  // Comments in another encoding are fine, and so is real UTF-8 (2, 3 and 4 bytes) and \u escapes.
  auto ok = parseProperties("# \xc8\xcb\xbb\xfa GBK comment\nbrokerName=\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\\u00e9\n", "b.conf");
  REQUIRE(ok.ok());
  OneString cfg;
  std::vector<ConfigSection> sections{section("broker", cfg)};
  REQUIRE(applyEntries(ok.value(), sections).ok());
  CHECK(cfg.brokerName == "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xc3\xa9");
  auto printed = parseToml(renderToml(sections), "printed.toml");
  CHECK(printed.ok());
  CHECK_FALSE(applyPropertiesText("brokerName=\xff", sections).ok());
  CHECK(cfg.brokerName == "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xc3\xa9");
}

TEST_CASE("fuzz regression: unknown keys far longer than any known key get no suggestion, cheaply") {
  // fuzz/config_properties ran at a few inputs per second: every unknown key was compared with every
  // known key by a full edit-distance table, so a body of long unknown keys (UPDATE_BROKER_CONFIG
  // comes from the network) cost len x len per candidate. Candidates whose length alone is beyond
  // the bound are now skipped; suggestions are unchanged.
  std::vector<std::string> known{"listenPort", "brokerName", "brokerClusterName"};
  CHECK_FALSE(closestKey(std::string(1 << 20, 'x'), known).has_value());
  CHECK(closestKey("brokerNmae", known) == "brokerName");
  CHECK(closestKey("listenport", known) == "listenPort");
  CHECK(closestKey("brokerClusterNam", known) == "brokerClusterName");
  CHECK_FALSE(closestKey("zz", known).has_value());
  OneString cfg;
  std::vector<ConfigSection> sections{section("broker", cfg)};
  auto r = applyPropertiesText(std::string(100000, 'k') + "=1\nbrokerNam=x\n", sections);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("did you mean 'brokerName'?") != std::string::npos);
}
