// Writing run-time updates back into a config file (config/config_file_update.h) and the
// persister around it (config/config_file_persister.h).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/config_file_persister.h"
#include "config/config_file_update.h"
#include "config/config_loader.h"

using namespace rmq::config;

namespace {

struct NsConfig {
  int32_t listenPort = 9876;
  bool orderMessageEnable = false;
  int32_t maxFrameSize = 100;
  void visit(FieldVisitor& v) {
    v.field({.name = "listenPort", .description = "port"}, listenPort);
    v.field({.name = "orderMessageEnable", .description = "order"}, orderMessageEnable);
    v.field({.name = "maxFrameSize", .description = "frame"}, maxFrameSize);
  }
};

struct BrConfig {
  int32_t listenPort = 10911;
  int32_t maxFrameSize = 100;
  std::string brokerName = "broker-a";
  std::string deleteWhen = "04";
  double ratio = 0.5;
  bool slaveReadEnable = false;
  std::string home;
  void visit(FieldVisitor& v) {
    v.field({.name = "listenPort", .description = "port"}, listenPort);
    v.field({.name = "maxFrameSize", .description = "frame"}, maxFrameSize);
    v.field({.name = "brokerName", .description = "name"}, brokerName);
    v.field({.name = "deleteWhen", .description = "when"}, deleteWhen);
    v.field({.name = "ratio", .description = "ratio"}, ratio);
    v.field({.name = "slaveReadEnable", .description = "read"}, slaveReadEnable);
    v.field({.name = "rocketmqHome", .description = "home", .aliases = {"rocketmq.home.dir"}}, home);
  }
};

struct StConfig {
  int64_t fileReservedTime = 72;
  void visit(FieldVisitor& v) { v.field({.name = "fileReservedTime", .description = "hours"}, fileReservedTime); }
};

// A namesrv,master node's sections.
struct Node {
  NsConfig ns;
  BrConfig br;
  StConfig st;
  std::vector<ConfigSection> sections() {
    return {section("namesrv", ns), section("broker", br), section("store", st)};
  }
  std::vector<ConfigSection> brokerSections() { return {section("broker", br), section("store", st)}; }
};

KeyUpdate update(std::string section, std::string key, ConfigValue v) { return {section, key, {}, std::move(v)}; }
ConfigValue intValue(int64_t i) { ConfigValue v; v.kind = ConfigValue::Kind::Int; v.i = i; return v; }
ConfigValue boolValue(bool b) { ConfigValue v; v.kind = ConfigValue::Kind::Bool; v.b = b; return v; }
ConfigValue floatValue(double d) { ConfigValue v; v.kind = ConfigValue::Kind::Float; v.d = d; return v; }
ConfigValue stringValue(std::string s) { ConfigValue v; v.kind = ConfigValue::Kind::String; v.text = std::move(s); return v; }

// `text` with `updates` written in, for a namesrv,master node's file.
std::string edited(std::string_view text, ConfigFormat format, const std::vector<KeyUpdate>& updates) {
  Node n;
  auto r = updateConfigText(text, format, updates, sectionKeysOf(n.sections()), "test");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

// A fresh node loaded from `text` (as at the next start).
Node reloaded(std::string_view text, ConfigFormat format) {
  Node n;
  auto entries = parseConfigText(text, format, "test");
  REQUIRE_MESSAGE(entries, (entries ? "" : entries.error().message));
  auto applied = applyConfig(*entries, n.sections());
  REQUIRE_MESSAGE(applied, (applied ? "" : applied.error().message));
  return n;
}

std::string readText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("config file update (TOML): the key's value is replaced in its section's table, everything else kept") {
  const std::string text =
      "# my cluster\n"
      "logDir = \"/var/log/rmq\"   # logs\n"
      "\n"
      "[namesrv]\n"
      "listenPort = 9876\n"
      "\n"
      "[broker]\n"
      "# the broker's port\n"
      "listenPort   =   10911   # keep this comment\n"
      "brokerName = \"broker-a\"\n";
  auto out = edited(text, ConfigFormat::Toml, {update("broker", "listenPort", intValue(10999))});
  CHECK(out == "# my cluster\n"
               "logDir = \"/var/log/rmq\"   # logs\n"
               "\n"
               "[namesrv]\n"
               "listenPort = 9876\n"
               "\n"
               "[broker]\n"
               "# the broker's port\n"
               "listenPort   =   10999   # keep this comment\n"
               "brokerName = \"broker-a\"\n");
  // An unchanged value leaves the text as it was.
  CHECK(edited(out, ConfigFormat::Toml, {update("broker", "listenPort", intValue(10999))}) == out);
}

TEST_CASE("config file update (TOML): a missing key goes into its table, else the top level, else a new table") {
  const std::string tables = "[namesrv]\nlistenPort = 9876\n\n[broker]\nlistenPort = 10911 # port\n\n# the end\n";
  auto intoTable = edited(tables, ConfigFormat::Toml, {update("broker", "slaveReadEnable", boolValue(true))});
  CHECK(intoTable == "[namesrv]\nlistenPort = 9876\n\n[broker]\nlistenPort = 10911 # port\nslaveReadEnable = true\n\n# the end\n");

  // No [store] table, no top-level keys: a new table at the end.
  auto newTable = edited(tables, ConfigFormat::Toml, {update("store", "fileReservedTime", intValue(48))});
  CHECK(newTable == tables + "\n[store]\nfileReservedTime = 48\n");
  CHECK(reloaded(newTable, ConfigFormat::Toml).st.fileReservedTime == 48);

  // A top-level file gets the key after its last top-level key (before any table).
  const std::string flat = "# flat\nbrokerName = \"b\"\nfileReservedTime = 72\n\n[namesrv]\nlistenPort = 9876\n";
  auto topLevel = edited(flat, ConfigFormat::Toml, {update("broker", "deleteWhen", stringValue("01"))});
  CHECK(topLevel == "# flat\nbrokerName = \"b\"\nfileReservedTime = 72\ndeleteWhen = \"01\"\n\n[namesrv]\nlistenPort = 9876\n");

  // An empty [broker] table takes the key right under its header; a file without final newline.
  auto empty = edited("[broker]", ConfigFormat::Toml, {update("broker", "ratio", floatValue(0.75))});
  CHECK(empty == "[broker]\nratio = 0.75\n");
  CHECK(reloaded(empty, ConfigFormat::Toml).br.ratio == 0.75);
  auto nothing = edited("", ConfigFormat::Toml, {update("broker", "ratio", floatValue(2))});
  CHECK(nothing == "ratio = 2.0\n");
}

TEST_CASE("config file update (TOML): a top-level key two sections share is overridden in the updated section only") {
  const std::string text = "maxFrameSize = 100 # both roles\n\n[broker]\nbrokerName = \"b\"\n";
  auto out = edited(text, ConfigFormat::Toml, {update("broker", "maxFrameSize", intValue(200))});
  CHECK(out == "maxFrameSize = 100 # both roles\n\n[broker]\nbrokerName = \"b\"\nmaxFrameSize = 200\n");
  Node n = reloaded(out, ConfigFormat::Toml);
  CHECK(n.br.maxFrameSize == 200);
  CHECK(n.ns.maxFrameSize == 100);
  // Both sections updated to the same value: the shared line itself changes.
  auto both = edited(text, ConfigFormat::Toml,
                     {update("namesrv", "maxFrameSize", intValue(300)), update("broker", "maxFrameSize", intValue(300))});
  CHECK(both == "maxFrameSize = 300 # both roles\n\n[broker]\nbrokerName = \"b\"\n");
}

TEST_CASE("config file update (TOML): strings are quoted and escaped, multi-line values replaced whole, CRLF kept") {
  const std::string text = "[broker]\r\nbrokerName = \"\"\"\r\nold\r\nname\"\"\"  # long\r\ndeleteWhen = 'literal'\r\n";
  std::string odd = "a \"quoted\" \\path\\ with\nnewline, tab\t and h\xC3\xA9";
  auto out = edited(text, ConfigFormat::Toml,
                    {update("broker", "brokerName", stringValue(odd)), update("broker", "deleteWhen", stringValue("05"))});
  CHECK(out == "[broker]\r\nbrokerName = \"a \\\"quoted\\\" \\\\path\\\\ with\\nnewline, tab\\t and h\xC3\xA9\"  # long\r\n"
               "deleteWhen = \"05\"\r\n");
  Node n = reloaded(out, ConfigFormat::Toml);
  CHECK(n.br.brokerName == odd);
  CHECK(n.br.deleteWhen == "05");
  auto added = edited(out, ConfigFormat::Toml, {update("broker", "listenPort", intValue(1))});
  CHECK(added.ends_with("deleteWhen = \"05\"\r\nlistenPort = 1\r\n"));
}

TEST_CASE("config file update (properties): separators, comments, continuation lines and escapes") {
  const std::string text =
      "# broker.conf\n"
      "! old-style comment\n"
      "brokerName : broker-a\n"
      "fileReservedTime 72\n"
      "deleteWhen=0\\\n"
      "    4\n"
      "rocketmq.home.dir = /opt/rmq\n";
  auto out = edited(text, ConfigFormat::Properties,
                    {update("store", "fileReservedTime", intValue(48)), update("broker", "deleteWhen", stringValue("01")),
                     {"broker", "rocketmqHome", {"rocketmq.home.dir"}, stringValue("/srv/rmq")}});
  CHECK(out ==
        "# broker.conf\n"
        "! old-style comment\n"
        "brokerName : broker-a\n"
        "fileReservedTime 48\n"
        "deleteWhen=01\n"
        "rocketmq.home.dir = /srv/rmq\n");
  // A missing key is appended with the separator style of the last entry.
  auto added = edited(out, ConfigFormat::Properties, {update("broker", "slaveReadEnable", boolValue(true))});
  CHECK(added == out + "slaveReadEnable = true\n");
  // Blanks at either end, backslashes, line breaks and tabs survive a reload.
  std::string odd = " lead\\ing\nand\ttrailing ";
  auto escaped = edited("brokerName=x", ConfigFormat::Properties, {update("broker", "brokerName", stringValue(odd))});
  CHECK(escaped == "brokerName=\\ lead\\\\ing\\nand\\ttrailing\\u0020");
  CHECK(reloaded(escaped, ConfigFormat::Properties).br.brokerName == odd);
}

TEST_CASE("config file update (properties): a shared key gets a section-prefixed line; CRLF kept") {
  const std::string text = "maxFrameSize=100\r\nlistenPort=9876\r\nnamesrv.listenPort=9876\r\nbroker.listenPort=10911";
  auto out = edited(text, ConfigFormat::Properties,
                    {update("broker", "maxFrameSize", intValue(5)), update("broker", "listenPort", intValue(10999))});
  CHECK(out == "maxFrameSize=100\r\nlistenPort=9876\r\nnamesrv.listenPort=9876\r\nbroker.listenPort=10999\r\n"
               "broker.maxFrameSize=5\r\n");
  Node n = reloaded(out, ConfigFormat::Properties);
  CHECK(n.br.maxFrameSize == 5);
  CHECK(n.ns.maxFrameSize == 100);
  CHECK(n.br.listenPort == 10999);
  CHECK(n.ns.listenPort == 9876);
}

TEST_CASE("config file update: an edit the file cannot take is an error, never a changed file") {
  Node n;
  auto keys = sectionKeysOf(n.sections());
  // The file no longer parses.
  CHECK_FALSE(updateConfigText("[broker\nx=1\n", ConfigFormat::Toml, {update("broker", "listenPort", intValue(1))}, keys, "f"));
  // [broker] defined by dotted keys: a shared key cannot get a [broker] table of its own.
  auto dotted = updateConfigText("maxFrameSize = 1\nbroker.brokerName = \"b\"\n", ConfigFormat::Toml,
                                 {update("broker", "maxFrameSize", intValue(2))}, keys, "f");
  REQUIRE_FALSE(dotted);
  CHECK(dotted.error().message.find("would not parse") != std::string::npos);
  // A properties line continued at the end of the file would swallow the added key.
  CHECK_FALSE(updateConfigText("brokerName=a\\", ConfigFormat::Properties, {update("broker", "listenPort", intValue(1))},
                               keys, "f"));
}

TEST_CASE("keyUpdatesOf reads the updated fields' values with their types and aliases") {
  Node n;
  n.br.ratio = 0.25;
  n.br.home = "/h";
  n.st.fileReservedTime = 5;
  auto u = keyUpdatesOf(n.brokerSections(), {"ratio", "rocketmqHome", "fileReservedTime"});
  REQUIRE(u.size() == 3);
  CHECK(u[0].section == "broker");
  CHECK(u[0].value.kind == ConfigValue::Kind::Float);
  CHECK(u[0].value.d == 0.25);
  CHECK(u[1].aliases == std::vector<std::string>{"rocketmq.home.dir"});
  CHECK(u[1].value.text == "/h");
  CHECK(u[2].section == "store");
  CHECK(u[2].value.i == 5);
}

TEST_CASE("ConfigFilePersister: writes in update order, keeps a read-only file, no file means memory only") {
  auto dir = std::filesystem::temp_directory_path() / ("rmq_cfgfile_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "broker.toml").string();
  std::ofstream(path) << "# mine\n[broker]\nlistenPort = 10911\n";
  Node n;
  ConfigFilePersister file(path, n.sections());
  n.br.listenPort = 1;
  auto first = file.capture(n.brokerSections(), {"listenPort"});
  n.br.listenPort = 2;
  auto second = file.capture(n.brokerSections(), {"listenPort"});
  REQUIRE(file.write(second));
  REQUIRE(file.write(first));  // older: the file keeps 2
  CHECK(readText(path) == "# mine\n[broker]\nlistenPort = 2\n");

  ::chmod(path.c_str(), 0444);
  n.br.listenPort = 3;
  bool rootCanWrite = ::access(path.c_str(), W_OK) == 0;
  auto refused = file.write(file.capture(n.brokerSections(), {"listenPort"}));
  if (!rootCanWrite) {
    CHECK_FALSE(refused);
    CHECK(readText(path) == "# mine\n[broker]\nlistenPort = 2\n");
  }
  ::chmod(path.c_str(), 0644);

  ConfigFilePersister none;
  CHECK_FALSE(none.hasFile());
  CHECK(none.write(none.capture(n.brokerSections(), {"listenPort"})));
  std::filesystem::remove_all(dir);
}

TEST_CASE("TOML loading: a key in its section's table wins over the same key at the top level") {
  // toml++ iterates keys sorted ("broker" < "maxFrameSize"); the loader still applies tables last.
  Node n = reloaded("maxFrameSize = 1\n[broker]\nmaxFrameSize = 2\n", ConfigFormat::Toml);
  CHECK(n.br.maxFrameSize == 2);
  CHECK(n.ns.maxFrameSize == 1);
}
