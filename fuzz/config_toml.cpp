// TOML config files (`rmqnode -c FILE.toml`, config/*.toml) loaded into the real config structs.
#include "fuzz/config_sections.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rmq::fuzz::applyAndReload(rmq::config::parseToml(rmq::fuzz::input(data, size), "fuzz.toml"));
  rmq::fuzz::updateAndReload(rmq::fuzz::input(data, size), rmq::config::ConfigFormat::Toml);
  return 0;
}
