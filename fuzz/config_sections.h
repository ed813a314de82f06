#pragma once
// The config structs of a combined `--role=namesrv,master` process (as src/roles/node.cpp builds
// them), for the two config-loading targets, and the check both share: an accepted config
// prints (--print-config) to TOML that loads back to the same config.
#include <string>
#include <vector>

#include "config/config_file_update.h"
#include "config/config_loader.h"
#include "config/config_printer.h"
#include "config/process_config.h"
#include "fuzz/fuzz_input.h"
#include "roles/broker/broker_config.h"
#include "roles/namesrv/namesrv_config.h"
#include "store/store_config.h"

namespace rmq::fuzz {

struct NodeConfigs {
  config::ProcessConfig process;
  namesrv::NamesrvConfig namesrv;
  broker::BrokerConfig broker;
  store::StoreConfig store;
  std::vector<config::ConfigSection> sections() {
    return {config::section("process", process), config::section("namesrv", namesrv),
            config::section("broker", broker), config::section("store", store)};
  }
};

// Applies parsed entries; when they are accepted, --print-config's TOML must load back unchanged.
inline void applyAndReload(const Result<std::vector<config::ConfigEntry>>& entries) {
  if (!entries) return;
  NodeConfigs cfg;
  auto report = config::applyConfig(entries.value(), cfg.sections());
  if (!report) return;
  std::string printed = config::renderToml(cfg.sections());
  auto again = config::parseToml(printed, "printed.toml");
  RMQ_FUZZ_CHECK(again.ok());
  NodeConfigs reloaded;
  RMQ_FUZZ_CHECK(config::applyConfig(*again, reloaded.sections()).ok());
  RMQ_FUZZ_CHECK(config::renderToml(reloaded.sections()) == printed);
}

// An accepted file takes run-time updates as UPDATE_*_CONFIG writes them (config_file_update.h):
// the edit is refused, or the edited file loads to the old config with the updated values.
inline void updateAndReload(std::string_view text, config::ConfigFormat format) {
  NodeConfigs cfg;
  auto entries = config::parseConfigText(text, format, "fuzz");
  if (!entries || !config::applyConfig(*entries, cfg.sections())) return;
  cfg.broker.listenPort = 10999;
  cfg.broker.brokerName = " a \"b\" \\ c\td\u00e9 ";
  cfg.namesrv.orderMessageEnable = !cfg.namesrv.orderMessageEnable;
  cfg.store.fileReservedTime = 48;
  cfg.store.diskMaxUsedSpaceRatio = 80;
  auto updates = config::keyUpdatesOf(
      cfg.sections(), {"listenPort", "brokerName", "orderMessageEnable", "fileReservedTime", "diskMaxUsedSpaceRatio"});
  auto edited = config::updateConfigText(text, format, updates, config::sectionKeysOf(cfg.sections()), "fuzz");
  if (!edited) return;
  auto again = config::parseConfigText(*edited, format, "fuzz");
  RMQ_FUZZ_CHECK(again.ok());
  NodeConfigs reloaded;
  RMQ_FUZZ_CHECK(config::applyConfig(*again, reloaded.sections()).ok());
  RMQ_FUZZ_CHECK(config::renderToml(reloaded.sections()) == config::renderToml(cfg.sections()));
}

}  // namespace rmq::fuzz
