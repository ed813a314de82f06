// rmqnode: RocketMQ 4.x-compatible name server and broker. See `rmqnode --help`.
#include <cstdio>

#include "roles/node.h"

int main(int argc, char** argv) {
  using namespace rmq::node;
  auto options = parseArgs(argc, argv);
  if (!options) {
    std::fprintf(stderr, "rmqnode: %s\n\n%s", options.error().message.c_str(), usage().c_str());
    return kExitBadConfig;
  }
  if (options->help) { std::fputs(usage().c_str(), stdout); return 0; }
  if (options->version) { std::printf("rmqnode %s (RocketMQ 4.9.7 protocol)\n", RMQ_VERSION); return 0; }

  auto node = Node::create(*options);
  if (!node) {
    std::fprintf(stderr, "rmqnode: %s\n", node.error().message.c_str());
    return kExitBadConfig;
  }
  if (options->printAllKeys || options->printImportantKeys) {
    std::fputs((*node)->effectiveConfigProperties(!options->printAllKeys).c_str(), stdout);
    return 0;
  }
  if (options->printConfig) { std::fputs((*node)->effectiveConfigToml().c_str(), stdout); return 0; }
  if (auto r = (*node)->start(); !r) {
    std::fprintf(stderr, "rmqnode: start failed: %s\n", r.error().message.c_str());
    (*node)->shutdown();
    return kExitStartFailed;
  }
  (*node)->waitForSignal();
  (*node)->shutdown();
  return 0;
}
