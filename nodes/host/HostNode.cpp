#include "nodes/host/HostNode.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::nodes {

HostNode::HostNode(net::HostId id, const NodeConfig& cfg, Scheduler& sched, net::Fabric& fabric,
                   simgrid::s4u::Host* host)
    : id_(id)
    , cfg_(cfg.host)
    , fpga_cfg_(cfg.fpga)
    , host_(host)
    , memory_(MemoryConfig{}, cfg.host.pcie)
    , fpga_memory_(cfg.fpga.device_memory, cfg.fpga.pcie)
    , nic_(id, cfg.host.nic, cfg.host.rdma, sched, fabric, memory_, *this)
{
  fabric.attach(id, &nic_);
}

void HostNode::on_completion(QpId, const roce::Completion& c)
{
  if (!mpi_)
    throw std::logic_error(fmt::format("host {}: NIC completion without an MPI process", id_));
  mpi_->on_completion(c);
}

void HostNode::on_inbound(QpId qp, const roce::InboundMessage& m)
{
  if (!mpi_)
    throw std::logic_error(fmt::format("host {}: incoming message without an MPI process", id_));
  mpi_->on_inbound(nic_.peer_of(qp), m);
}

} // namespace nafsim::nodes
