// Java .properties text: `rmqnode -c broker.conf` and the UPDATE_BROKER_CONFIG /
// UPDATE_NAMESRV_CONFIG bodies any client can send.
#include "fuzz/config_sections.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = rmq::fuzz::input(data, size);
  rmq::fuzz::applyAndReload(rmq::config::parseProperties(text, "fuzz.properties"));
  rmq::fuzz::NodeConfigs live;
  (void)rmq::config::applyPropertiesText(text, live.sections());
  rmq::fuzz::updateAndReload(text, rmq::config::ConfigFormat::Properties);
  return 0;
}
