#pragma once
// The console's static files (src/console/web/), embedded at build time: CMake runs
// embed_assets.cmake, which writes console_assets_data.cpp (in the build tree) with their bytes.
#include <span>
#include <string_view>

namespace rmq::console {

struct Asset {
  std::string_view path;         // "/index.html", "/console.js", ...
  std::string_view contentType;  // from the file extension
  std::string_view body;
};

std::span<const Asset> embeddedAssets();

}  // namespace rmq::console
