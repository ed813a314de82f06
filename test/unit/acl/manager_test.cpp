// AclManager on a temporary ROCKETMQ_HOME: start-up (plain_acl.yml created when absent), reload on
// change, a malformed file or a bad entry keeps the rules in force, conf/acl/ files, admin edits.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "acl/acl_manager.h"
#include "common/request_code.h"

using namespace rmq;
using namespace rmq::acl;
namespace fs = std::filesystem;

namespace {

struct TempHome {
  fs::path dir;
  TempHome() {
    char tmpl[] = "/tmp/rmq-acl-unit.XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~TempHome() { fs::remove_all(dir); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::trunc) << text;
  }
};

net::RemotingCommand send(const char* topic, const char* ak, const char* sk) {
  net::RemotingCommand cmd;
  cmd.code = RequestCode::SEND_MESSAGE_V2;
  cmd.extFields.set("a", "pg");
  cmd.extFields.set("b", topic);
  if (ak) signRequest(cmd, {ak, sk, ""});
  return cmd;
}

const char* kAccount = "accounts:\n  - accessKey: userAAAA1\n    secretKey: secret-1\n    defaultTopicPerm: PUB\n";

}  // namespace

TEST_CASE("acl manager: reload on change; a malformed file or a bad entry keeps the rules in force") {
  TempHome home;
  AclManager m(home.dir.string(), std::chrono::hours(1));  // polled by hand below
  REQUIRE(m.start());
  CHECK(fs::exists(home.dir / "conf/plain_acl.yml"));  // created empty, as Java does
  CHECK(m.check(send("T", nullptr, nullptr), "127.0.0.1:1")->message == "No accessKey is configured");

  home.write("conf/plain_acl.yml", kAccount);
  CHECK(m.pollOnce());
  CHECK_FALSE(m.check(send("T", "userAAAA1", "secret-1"), "127.0.0.1:1"));
  CHECK_FALSE(m.pollOnce());  // nothing changed

  home.write("conf/plain_acl.yml", "accounts: [unclosed\n");
  CHECK_FALSE(m.pollOnce());
  CHECK_FALSE(m.check(send("T", "userAAAA1", "secret-1"), "127.0.0.1:1"));  // last good content in force
  home.write("conf/plain_acl.yml", "accounts:\n  - accessKey: short\n    secretKey: secret-1\n");
  CHECK_FALSE(m.pollOnce());  // parses, but the account is refused: the previous rules stay
  CHECK_FALSE(m.check(send("T", "userAAAA1", "secret-1"), "127.0.0.1:1"));

  // conf/acl/*.yml joins; an access key already defined there is the first file's.
  home.write("conf/plain_acl.yml", kAccount);
  home.write("conf/acl/team.yml", "globalWhiteRemoteAddresses:\n  - 10.0.0.*\naccounts:\n"
                                  "  - accessKey: userAAAA1\n    secretKey: other-secret\n");
  CHECK(m.pollOnce());
  CHECK(m.check(send("T", "userAAAA1", "secret-1"), "127.0.0.1:1")->message == "Check signature failed for accessKey=userAAAA1");
  CHECK_FALSE(m.check(send("T", nullptr, nullptr), "10.0.0.7:1"));
  fs::remove(home.dir / "conf/acl/team.yml");
  CHECK(m.pollOnce());
  CHECK_FALSE(m.check(send("T", "userAAAA1", "secret-1"), "127.0.0.1:1"));
}

TEST_CASE("acl manager: admin edits rewrite the owning file and apply at once") {
  TempHome home;
  home.write("conf/plain_acl.yml", kAccount);
  AclManager m(home.dir.string(), std::chrono::hours(1));
  REQUIRE(m.start());
  AccountConfig a;
  a.accessKey = "newUser01";
  a.secretKey = "newSecret01";
  a.topicPerms = std::vector<std::string>{"T=PUB"};
  REQUIRE(m.updateAccount(a));
  CHECK_FALSE(m.check(send("T", "newUser01", "newSecret01"), "127.0.0.1:1"));
  CHECK(m.defaultFileVersionJson().starts_with(R"({"counter":1,)"));
  CHECK_FALSE(m.pollOnce());  // the watcher sees its own write as no change
  a.secretKey = "short";
  auto bad = m.updateAccount(a);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "The accessKey=newUser01 and secretKey=short cannot be null and length should longer than 6");
  REQUIRE(m.deleteAccount("newUser01").value());
  CHECK_FALSE(m.deleteAccount("newUser01").value());
  CHECK(m.check(send("T", "newUser01", "newSecret01"), "127.0.0.1:1")->message == "No acl config for newUser01");
  REQUIRE(m.updateGlobalWhiteAddrs({"127.0.0.1"}, "").value());
  CHECK_FALSE(m.check(send("T", nullptr, nullptr), "127.0.0.1:1"));
  CHECK_FALSE(m.updateGlobalWhiteAddrs({"1.2.3.4"}, "/etc/passwd").value());  // outside rocketmqHome
  CHECK(m.allConfigJson().find(R"("globalWhiteAddrs":["127.0.0.1"])") != std::string::npos);
  m.stop();
}
