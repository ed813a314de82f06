#pragma once
// Node: the composition of one rmqnode process: parse the command line, load and validate the
// config of the chosen roles (nothing is started when that fails), start the IoPool and the
// roles, wait for SIGTERM/SIGINT, shut down in reverse order.
// Threads: the caller's (main) thread runs create/start/waitForSignal/shutdown; roles run on the
// IoPool's network threads and their own.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace rmq::node {

enum class Role { Namesrv, Master, Slave };

struct CliOptions {
  std::vector<Role> roles;
  std::string roleText;
  std::string configFile;
  std::optional<std::string> namesrvAddr;
  bool printConfig = false;
  bool printAllKeys = false;        // -p: every key as key=value, then exit (mqbroker/mqnamesrv -p)
  bool printImportantKeys = false;  // -m: the keys Java marks important (mqbroker -m)
  // No --role: a broker as Java's mqbroker, master or slave by the config file's brokerRole.
  bool roleFromConfig = false;
  bool help = false;
  bool version = false;
};

// Exit codes: 0 ok, 1 start-up failure (e.g. port in use), 2 usage or config error.
inline constexpr int kExitStartFailed = 1;
inline constexpr int kExitBadConfig = 2;
inline Error usageError(std::string msg) { return makeError(kExitBadConfig, std::move(msg)); }

// The command line (node_cli.cpp, CLI11): the help text, and the options or a usage error.
std::string usage();
Result<CliOptions> parseArgs(int argc, char** argv);

class Node {
 public:
  // Loads and validates the config of every chosen role. Errors name the key and what was
  // expected (exit 2).
  static Result<std::unique_ptr<Node>> create(const CliOptions& options);
  ~Node();

  std::string effectiveConfigToml();
  // -p / -m: the effective config as Java properties lines (all keys, or the important ones).
  std::string effectiveConfigProperties(bool importantOnly);
  // Opens the log file, starts network threads and roles; logs the one start-up line.
  Result<void> start();
  // Blocks until SIGTERM or SIGINT.
  void waitForSignal();
  void shutdown();

 private:
  struct Impl;
  explicit Node(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rmq::node
