#pragma once
// The store written by Apache RocketMQ 4.9.8 (../shared/fixtures/rocketmq-4.9.8-store.*): where it
// is, how to unpack it and the store settings it was written with. Shared by the store's
// compatibility test and the broker tests that compare our records with Java's.
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/message.h"
#include "store/store_config.h"

namespace rmq::test {

// RMQ_SHARED_DIR in the environment overrides the build's (a worktree has no ../shared beside it).
inline std::string javaFixtureDir() {
  const char* env = std::getenv("RMQ_SHARED_DIR");
  return std::string(env && *env ? env : RMQ_SHARED_DIR) + "/fixtures";
}
inline std::string javaFixtureTarball() { return javaFixtureDir() + "/rocketmq-4.9.8-store.tar.gz"; }
inline std::string javaFixtureManifest() { return javaFixtureDir() + "/rocketmq-4.9.8-store.manifest.json.gz"; }

// The whole content of a gzip file ("" when it cannot be opened).
inline std::string gunzipFile(const std::string& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// Unpacks the fixture into `dir`; returns the store root, or "" when the fixtures are absent or
// tar fails (callers skip with a message then).
inline std::string unpackJavaFixture(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::exists(javaFixtureTarball()) || !fs::exists(javaFixtureManifest())) return "";
  std::string cmd = "tar -xzf '" + javaFixtureTarball() + "' -C '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  return dir + "/rocketmq-4.9.8-store";
}

// The settings the Java broker wrote the fixture with (see its README).
inline store::StoreConfig javaFixtureConfig(const std::string& root) {
  store::StoreConfig c;
  c.storePathRootDir = root;
  c.mappedFileSizeCommitLog = 262144;
  c.mappedFileSizeConsumeQueue = 20000;
  c.maxHashSlotNum = 1000;
  c.maxIndexNum = 4000;
  c.flushDiskType = "SYNC_FLUSH";
  c.messageDelayLevel = "1s 2s 3s 4s 5s 6s 7s 8s 9s 10s 11s 12s 13s 14s 15s 16s 17s 18s";
  return c;
}

inline HostAddress javaFixtureHost() {
  HostAddress h;
  HostAddress::parse("127.0.0.1:10911", h);
  return h;
}

}  // namespace rmq::test
