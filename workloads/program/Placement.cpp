#include "workloads/program/Placement.hpp"

#include "nodes/fpga/FpgaNode.hpp"
#include "nodes/host/HostNode.hpp"
#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::workloads {

std::vector<net::HostId> place_ranks(const nodes::Cluster& c, ProgramEngine engine, unsigned ranks,
                                     const std::vector<unsigned>& positions)
{
  std::vector<net::HostId> hosts;
  const bool mpi   = engine == ProgramEngine::Mpi;
  const auto kind  = mpi ? nodes::HostNode::kKind : nodes::FpgaNode::kKind;
  const char* what = mpi ? "CPU host" : "FPGA";
  auto nodes       = c.positions(kind);
  if (!positions.empty()) {
    if (positions.size() != ranks)
      throw config::ConfigError("", "/workload/positions",
                                fmt::format("{} positions for {} ranks: give one {} position per rank",
                                            positions.size(), ranks, what));
    for (std::size_t r = 0; r < positions.size(); ++r) {
      const unsigned pos = positions[r];
      if (std::find(nodes.begin(), nodes.end(), pos) == nodes.end() ||
          std::count(positions.begin(), positions.end(), pos) > 1)
        throw config::ConfigError("", fmt::format("/workload/positions/{}", r),
                                  fmt::format("position {} is not a {} node of the platform (engine {}), or is listed "
                                              "twice",
                                              pos, what, config::enum_name(engine)));
      hosts.push_back(static_cast<net::HostId>(pos));
    }
    return hosts;
  }
  if (ranks > nodes.size())
    throw config::ConfigError("", "/workload/ranks",
                              fmt::format("{} ranks, but the platform has {} {} node(s) (engine {}): {}", ranks,
                                          nodes.size(), what, config::enum_name(engine),
                                          c.more_nodes_advice(kind, ranks)));
  for (unsigned r = 0; r < ranks; ++r)
    hosts.push_back(static_cast<net::HostId>(nodes[r]));
  return hosts;
}

} // namespace nafsim::workloads
