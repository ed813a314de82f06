// The clients and checker of scripts/drill.sh: `rmqbench drill-check` on hand-written logs (each
// count it reports), and a tiny smoke run of drill-produce / drill-consume against a dev node
// that is SIGSTOPped for a moment (the drill itself is a tool, not part of CI); `drill-check --pop`
// (the POP drill's classes) on a hand-written pop log.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tools;
namespace fs = std::filesystem;

namespace {
std::string value(const std::string& out, const std::string& key) {
  auto pos = out.find("\n" + key + "=");
  if (pos == std::string::npos && out.rfind(key + "=", 0) == 0) pos = 0;
  else if (pos != std::string::npos) ++pos;
  if (pos == std::string::npos) return "?";
  auto start = pos + key.size() + 1;
  return out.substr(start, out.find('\n', start) - start);
}
}  // namespace

TEST_CASE("rmqbench drill-check: lost acknowledged ids, duplicates, order violations, recovery time") {
  fs::path dir = fs::temp_directory_path() / ("drill-check-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "send.log") << "S r-0-0 SEND_OK a 0 0 1000\n"
                                     "S r-0-1 SEND_OK a 0 1 1010\n"
                                     "S r-0-2 SEND_OK a 0 2 1020\n"
                                     "S r-0-3 ERR14 - -1 -1 1030\n"
                                     "S r-0-4 SEND_OK a 1 0 5000\n"  // the first ack after the fault
                                     "S r-1-0 FLUSH_DISK_TIMEOUT a 1 1 5010\n"
                                     "S r-1-1 SEND_OK a 1 2 5020\n";
  std::ofstream(dir / "recv.log") << "R r-0-0 a 0 0 1\n"
                                     "R r-0-2 a 0 1 1\n"  // stored before r-0-1: an order violation
                                     "R r-0-1 a 0 2 1\n"
                                     "R r-0-4 a 1 0 1\n"
                                     "R r-1-0 a 1 1 1\n"  // not acked but stored
                                     "R r-0-4 a 1 0 1\n";  // received twice
  std::ofstream(dir / "faults.log") << "F kill9 1040 4000\n";
  auto r = runTool(RMQBENCH_BIN, {"drill-check", "--send", (dir / "send.log").string(), "--recv",
                                  (dir / "recv.log").string(), "--faults", (dir / "faults.log").string()});
  INFO(describe(r));
  CHECK(r.exitCode == 1);  // something acknowledged was lost
  std::string out = "\n" + r.out;
  CHECK(value(out, "sent") == "7");
  CHECK(value(out, "acked") == "5");
  CHECK(value(out, "lost") == "1");
  CHECK(value(out, "lost_id") == "r-1-1");
  CHECK(value(out, "duplicates") == "1");
  CHECK(value(out, "order_violations") == "1");
  CHECK(value(out, "unacked_received") == "1");
  CHECK(value(out, "max_ack_gap_ms") == "3980");
  CHECK(r.out.find("recovery_ms kill9=1000 (fault 2960 ms)") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("rmqbench drill-check: failover time on the fault's group, loss and duplicates per fault") {
  fs::path dir = fs::temp_directory_path() / ("drill-check-fo-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "send.log") << "S r-0-0 SEND_OK a 0 0 1000\n"
                                     "S r-1-0 SEND_OK b 0 0 1000\n"
                                     "S r-0-1 SEND_OK a 0 1 2000\n"   // answered at the fault's start: not after it
                                     "S r-2-0 SEND_OK a 0 2 2050 1990\n"  // answered after it, sent before: no
                                     "S r-1-1 SEND_OK b 0 1 2100\n"   // another group: does not count for a
                                     "S r-0-2 ERR10 - -1 -1 2500\n"
                                     "S r-0-3 SEND_OK a 1 0 4200\n"   // a's new master: 2200 ms after the fault
                                     "S r-0-4 SEND_OK a 1 1 9000\n"   // after the second fault began, lost
                                     "S r-1-2 SEND_OK b 0 2 9100\n";
  std::ofstream(dir / "recv.log") << "R r-0-0 a 0 0 1\n"
                                     "R r-1-0 b 0 0 1\n"
                                     "R r-0-0 a 0 0 1\n"   // a duplicate of an id sent before any fault
                                     "R r-0-1 a 0 1 1\n"
                                     "R r-2-0 a 0 2 1\n"
                                     "R r-1-1 b 0 1 1\n"
                                     "R r-0-3 a 1 0 1\n"
                                     "R r-0-3 a 1 0 1\n"   // a duplicate of an id of the first fault
                                     "R r-1-2 b 0 2 1\n";
  std::ofstream(dir / "faults.log") << "F failover-kill 2000 6000 a\n"
                                       "F failover-stop 8000 9500 a\n";
  auto r = runTool(RMQBENCH_BIN, {"drill-check", "--send", (dir / "send.log").string(), "--recv",
                                  (dir / "recv.log").string(), "--faults", (dir / "faults.log").string()});
  INFO(describe(r));
  CHECK(r.exitCode == 1);
  std::string out = "\n" + r.out;
  CHECK(value(out, "lost") == "1");
  CHECK(value(out, "duplicates") == "2");
  CHECK(r.out.find("failover_ms failover-kill=2200 (group a)") != std::string::npos);
  CHECK(r.out.find("failover_ms failover-stop=1000 (group a)") != std::string::npos);
  CHECK(r.out.find("recovery_ms failover-stop=none (fault 1500 ms)") != std::string::npos);
  CHECK(r.out.find("fault_loss failover-kill lost=0 duplicates=1") != std::string::npos);
  CHECK(r.out.find("fault_loss failover-stop lost=1 duplicates=0") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("drill smoke: drill-produce / drill-consume against a broker stopped for a second; nothing acked lost") {
  DevNode node;
  REQUIRE(node.start());
  REQUIRE(node.createTopic("DrillT", 4));
  std::string send = node.proc.path("send.log"), recv = node.proc.path("recv.log"), stop = node.proc.path("stop");
  NodeProcess consumer(RMQBENCH_BIN);
  consumer.setArgs({"drill-consume", "-n", node.namesrvAddr, "--topic", "DrillT", "--log", recv, "--stop-file", stop,
                    "--quiet", "2", "-d", "60"});
  REQUIRE(consumer.start());
  std::thread faults([&] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ::kill(node.proc.pid(), SIGSTOP);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ::kill(node.proc.pid(), SIGCONT);
  });
  auto p = runTool(RMQBENCH_BIN, {"drill-produce", "-n", node.namesrvAddr, "--topic", "DrillT", "--log", send, "-t",
                                  "2", "--tps", "100", "-d", "5", "--run", "smoke"});
  faults.join();
  INFO(describe(p));
  CHECK(p.exitCode == 0);
  node.proc.writeFile("stop", "");
  REQUIRE(consumer.waitExit(std::chrono::seconds(60)).has_value());
  auto c = runTool(RMQBENCH_BIN, {"drill-check", "--send", send, "--recv", recv});
  INFO(describe(c));
  CHECK(c.exitCode == 0);
  std::string out = "\n" + c.out;
  CHECK(std::stoi(value(out, "acked")) > 100);
  CHECK(value(out, "lost") == "0");
  CHECK(value(out, "order_violations") == "0");
  CHECK(node.proc.stop() == 0);
}

TEST_CASE("rmqbench drill-check --pop: each redelivery explained; lost and acked-then-redelivered are violations") {
  fs::path dir = fs::temp_directory_path() / ("drill-check-pop-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Per id what happened: 0 acked once; 1 skipped; 2 acked late (refused); 3 in flight at the kill
  // (its ack sent after the fault began); 4 its ack sent before the kill, never answered; 5 acked OK
  // and delivered again (violation); 6 never delivered (violation); 7 acked too late without a fault;
  // 8 delivered again with nothing to explain it (violation).
  const std::string benign = "012347", all = "012345678";
  auto write = [&](const std::string& ids) {
    std::ofstream send(dir / "send.log"), recv(dir / "recv.log"), pop(dir / "pop.log");
    for (char c : ids) {
      send << "S p-0-" << c << " SEND_OK a 0 " << c << " 1000\n";
      recv << "R p-0-" << c << " a 0 " << c << " 1500\n";
    }
    auto has = [&](char c) { return ids.find(c) != std::string::npos; };
    if (has('0')) pop << "D p-0-0 1 0 0 ack 5000 2000\nA p-0-0 1 OK 2001 2002\n";
    if (has('1')) pop << "D p-0-1 1 0 1 skip 5000 2000\nD p-0-1 2 0 1 ack 8000 5010\nA p-0-1 2 OK 5011 5012\n";
    if (has('2'))
      pop << "D p-0-2 1 0 2 late 5000 2000\nA p-0-2 1 40013 5500 5501\nD p-0-2 2 0 2 ack 8000 5020\n"
             "A p-0-2 2 OK 5021 5022\n";
    if (has('3'))
      pop << "D p-0-3 1 0 3 ack 9000 6000\nA p-0-3 1 LOST 6100 6200\nD p-0-3 2 0 3 ack 12000 8100\n"
             "A p-0-3 2 OK 8101 8102\n";
    if (has('4'))
      pop << "D p-0-4 1 0 4 ack 9000 6000\nA p-0-4 1 LOST 6020 6100\nD p-0-4 2 0 4 ack 12000 8200\n"
             "A p-0-4 2 OK 8201 8202\n";
    if (has('5'))
      pop << "D p-0-5 1 0 5 ack 5000 2000\nA p-0-5 1 OK 2001 2002\nD p-0-5 2 0 5 ack 6000 3000\n"
             "A p-0-5 2 OK 3001 3002\n";
    if (has('7'))
      pop << "D p-0-7 1 0 7 ack 4000 1000\nA p-0-7 1 40013 4100 4101\nD p-0-7 2 0 7 ack 7000 4200\n"
             "A p-0-7 2 OK 4201 4202\n";
    if (has('8')) pop << "D p-0-8 1 0 8 ack 5000 2000\nD p-0-8 2 0 8 ack 6000 3000\nA p-0-8 2 OK 3001 3002\n";
  };
  std::ofstream(dir / "faults.log") << "F kill9 6050 8000\n";
  auto check = [&] {
    return runTool(RMQBENCH_BIN, {"drill-check", "--send", (dir / "send.log").string(), "--recv",
                                  (dir / "recv.log").string(), "--faults", (dir / "faults.log").string(), "--pop",
                                  (dir / "pop.log").string()});
  };
  write(all);
  auto r = check();
  INFO(describe(r));
  CHECK(r.exitCode == 1);
  std::string out = "\n" + r.out;
  CHECK(value(out, "lost") == "0");  // the pull consumer's view: everything stored
  CHECK(value(out, "pop_deliveries") == "15");
  CHECK(value(out, "pop_distinct") == "8");
  CHECK(value(out, "pop_lost") == "1");
  CHECK(value(out, "pop_redeliveries") == "7");
  for (const char* cls : {"skipped", "late", "in_flight_at_kill", "ack_lost_at_kill", "ack_too_late",
                          "acked_redelivered", "unexplained"})
    CHECK_MESSAGE(value(out, std::string("pop_redelivered_") + cls) == "1", cls);
  CHECK(value(out, "pop_late_acks_refused") == "1");
  CHECK(value(out, "pop_not_acked_at_end") == "0");
  CHECK(r.out.find("pop_redelivery_delay_ms n=2 p50=20 p99=20 max=20") != std::string::npos);  // 5010-5000, 5020-5000
  CHECK(r.out.find("pop_sample=pop_lost p-0-6") != std::string::npos);

  write(benign);
  auto ok = check();
  INFO(describe(ok));
  CHECK(ok.exitCode == 0);
  CHECK(value("\n" + ok.out, "pop_redeliveries") == "5");
  fs::remove_all(dir);
}
