#include "workloads/program/SendDelivery.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/host/HostCluster.hpp"
#include "nodes/host/MpiProcess.hpp"

namespace nafsim::workloads {

void track_delivery(nodes::Cluster& c, ProgramEngine engine, const std::vector<net::HostId>& hosts)
{
  for (auto h : hosts) {
    if (engine == ProgramEngine::Mpi)
      nodes::mpi_of(c, h).track_delivery();
    else
      nodes::cclo_of(c, h).track_delivery();
  }
}

void wait_delivered(ActorContext& ctx, nodes::Cluster& c, ProgramEngine engine, net::HostId host, net::HostId peer)
{
  if (engine == ProgramEngine::Mpi)
    nodes::mpi_of(c, host).wait_delivered(ctx, peer);
  else
    nodes::cclo_of(c, host).wait_delivered(ctx, peer);
}

} // namespace nafsim::workloads
