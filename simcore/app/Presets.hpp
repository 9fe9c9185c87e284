#pragma once
// Platform presets (platforms/*.json), embedded into the binary at build time.

#include <string>
#include <vector>

namespace nafsim::app {

struct Preset {
  std::string name;
  std::string json;
};

const std::vector<Preset>& embedded_presets();

} // namespace nafsim::app
