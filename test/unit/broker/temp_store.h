#pragma once
// A real MessageStore in a fresh temp directory (1 MiB commit-log files), started, removed with
// the fixture: the store under the broker's timer and pop services in their unit tests.
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "common/message.h"
#include "store/message_store.h"

namespace rmq::test {

struct TempStore {
  std::filesystem::path dir;
  store::StoreConfig cfg;
  std::unique_ptr<store::MessageStore> store;

  explicit TempStore(const std::string& prefix) {
    std::random_device rd;
    dir = std::filesystem::temp_directory_path() / (prefix + std::to_string(rd()) + std::to_string(rd()));
    cfg.storePathRootDir = dir.string();
    cfg.mappedFileSizeCommitLog = 1 << 20;
    cfg.mappedFileSizeConsumeQueue = 20 * 1000;
    open();
  }
  TempStore(const TempStore&) = delete;
  TempStore& operator=(const TempStore&) = delete;
  void open() {
    store = std::make_unique<store::MessageStore>(cfg, HostAddress::ipv4(0x7F000001, 10911));
    REQUIRE(store->open());
    store->start();
  }
  void reopen() {
    store->shutdown();
    open();
  }
  ~TempStore() {
    store->shutdown();
    store.reset();
    std::filesystem::remove_all(dir);
  }
};

}  // namespace rmq::test
