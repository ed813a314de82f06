#pragma once
// The seed broker configs of ../shared/fixtures/seed-configs (a RocketMQ user's own 2m-2s files),
// shared by the config unit tests and the integration test that starts rmqnode with them.
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

namespace rmq::test {

// RMQ_SHARED_DIR in the environment overrides the build's (a worktree has no ../shared beside it).
inline std::filesystem::path seedConfigDir() {
  const char* env = std::getenv("RMQ_SHARED_DIR");
  return std::filesystem::path(env && *env ? env : RMQ_SHARED_DIR) / "fixtures/seed-configs";
}

// The file with its commented-out `key=value` lines switched on, as a migrating user tries it
// (`#sendMessageThreadPoolNums=128` -> `sendMessageThreadPoolNums=128`; prose comments stay).
inline std::string withCommentedKeysOn(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    bool commentedKey = line.size() > 1 && line[0] == '#' && std::isalpha(static_cast<unsigned char>(line[1])) &&
                        line.find('=') != std::string::npos && line.find(' ') == std::string::npos;
    out += (commentedKey ? line.substr(1) : line) + "\n";
  }
  return out;
}

}  // namespace rmq::test
