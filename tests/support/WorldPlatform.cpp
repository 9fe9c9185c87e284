#include "tests/support/WorldPlatform.hpp"

#include "simcore/app/Scenario.hpp"
#include "workloads/WorkloadRegistry.hpp"

#include <fmt/format.h>

namespace nafsim::testing {

WorldPlatform load_world_platform(const std::string& platform, const std::string& workload, const std::string& name)
{
  const std::string file = name + ".json";
  auto doc = config::parse_json_text(
      fmt::format(R"({{"name": "{}", "platform": {}, "workload": {}}})", name, platform, workload), file);
  workloads::WorkloadRegistry reg;
  workloads::register_all_workloads(reg);
  auto sc = app::load_scenario_doc(doc, file, ".", {}, reg);
  return {std::make_unique<nodes::PlatformConfig>(sc.platform), sc.header.seed};
}

} // namespace nafsim::testing
