// The TLS keys (config/tls_config.h): Java's names in properties and TOML (quoted, or in a [tls]
// table without the prefix), useTLS as tls.enable, --print-config round trip, and tls.config.file
// read as Java's TlsHelper reads it (its values win, except tls.server.mode and tls.enable).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "config/config_loader.h"
#include "config/config_printer.h"
#include "config/process_config.h"
#include "config/tls_config.h"
#include "net/tls_settings.h"

using namespace rmq;
using namespace rmq::config;

namespace {

Result<std::vector<std::string>> apply(std::string_view text, ConfigFormat format, ProcessConfig& p, TlsConfig& t) {
  auto entries = parseConfigText(text, format, "test");
  if (!entries) return entries.error();
  return applyEntries(*entries, {section("process", p), section("tls", t)});
}

}  // namespace

TEST_CASE("tls config: Java's key names in properties and TOML, useTLS as tls.enable") {
  ProcessConfig p;
  TlsConfig t;
  CHECK(t.serverMode == "permissive");  // Java's defaults
  CHECK(t.testModeEnable);
  CHECK_FALSE(t.enable);
  CHECK(t.configFile == "/etc/rocketmq/tls.properties");
  REQUIRE(apply("tls.server.mode=enforcing\ntls.server.need.client.auth=require\nuseTLS=true\n"
                "tls.server.certPath=/c.pem\n",
                ConfigFormat::Properties, p, t));
  CHECK(net::tlsMode(t) == net::TlsMode::Enforcing);
  CHECK(net::serverTlsSettings(t).clientAuth == net::ClientAuth::Require);
  CHECK(net::serverTlsSettings(t).certPath == "/c.pem");
  CHECK(t.enable);

  TlsConfig quoted;
  REQUIRE(apply("logLevel = \"info\"\n\"tls.server.mode\" = \"disabled\"\n[tls]\n\"client.authServer\" = true\n",
                ConfigFormat::Toml, p, quoted));
  CHECK(net::tlsMode(quoted) == net::TlsMode::Disabled);
  CHECK(net::clientTlsSettings(quoted).authServer);

  TlsConfig bad;
  auto refused = apply("tls.server.mode=strict\n", ConfigFormat::Properties, p, bad);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("strict") != std::string::npos);
}

TEST_CASE("tls config: --print-config output parses back") {
  TlsConfig t;
  t.serverMode = "enforcing";
  t.serverKeyPath = "/k.pem";
  auto toml = renderToml({section("tls", t)});
  CHECK(toml.find("\"tls.server.mode\" = \"enforcing\"") != std::string::npos);
  ProcessConfig p;
  TlsConfig back;
  REQUIRE(apply(toml, ConfigFormat::Toml, p, back));
  CHECK(back.serverMode == "enforcing");
  CHECK(back.serverKeyPath == "/k.pem");
}

TEST_CASE("tls config: tls.config.file wins for its keys, not for the mode or tls.enable; missing = skipped") {
  TlsConfig t;
  t.configFile = "/nonexistent/tls.properties";
  auto none = t.readConfigFile();
  REQUIRE(none);
  CHECK(none->empty());

  auto path = std::filesystem::temp_directory_path() / ("rmq-tls-config-" + std::to_string(::getpid()));
  std::ofstream(path) << "tls.test.mode.enable=FALSE\ntls.server.keyPath = /srv.key\n"
                         "tls.server.authClient=true\ntls.server.mode=disabled\ntls.enable=true\nunknown.key=1\n";
  t.configFile = path.string();
  t.serverKeyPath = "/from-config.key";
  auto read = t.readConfigFile();
  std::filesystem::remove(path);
  REQUIRE(read);
  CHECK(*read == path.string());
  CHECK_FALSE(t.testModeEnable);  // Boolean.parseBoolean: case-insensitive
  CHECK(t.serverKeyPath == "/srv.key");
  CHECK(t.serverAuthClient);
  CHECK(t.serverMode == "permissive");  // not read from the file, as Java
  CHECK_FALSE(t.enable);
}
