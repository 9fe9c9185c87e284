#include "nodes/host/HostNode.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::nodes {

HostNode::HostNode(net::HostId id, const NodeConfig& cfg, Scheduler& sched, net::Fabric& fabric,
                   simgrid::s4u::Host* host)
    : Node(kKind)
    , id_(id)
    , cfg_(host_config(cfg))
    , fpga_cfg_(fpga_config(cfg))
    , host_(host)
    , memory_(MemoryConfig{}, cfg_.pcie)
    , fpga_memory_(fpga_cfg_.device_memory, fpga_cfg_.pcie)
    , nic_(id, cfg_.nic, cfg_.rdma, sched, fabric, memory_, *this)
{
  switch (cfg_.transport) {
    case Transport::Roce: fabric.attach(id, &nic_); break;
    case Transport::Tcp:
      // Socket buffers in host memory; the kernel copies user bytes in and out at socket_copy_rate.
      tcp_ = std::make_unique<TcpPoe>(id, cfg_.nic, cfg_.tcp, sched, fabric, memory_, *this, kHostMemory | (1ULL << 42),
                                      cfg_.socket_copy_rate);
      tcp_->name_consumer("a bounce buffer of the MPI library", "platform.node.host.mpi.eager_buffers",
                          "platform.node.host.nic.consumer_stall");
      fabric.attach(id, tcp_.get());
      break;
    default:
      throw config::ConfigError("", "/platform/node/host/transport",
                                fmt::format("host nodes run MPI over roce or tcp, not {}", config::enum_name(cfg_.transport)));
  }
}

void HostNode::on_completion(QpId, const roce::Completion& c)
{
  if (library_)
    return library_->on_completion(c);
  if (!mpi_)
    throw std::logic_error(fmt::format("host {}: NIC completion without an MPI process", id_));
  mpi_->on_completion(c);
}

void HostNode::on_inbound(QpId qp, const roce::InboundMessage& m)
{
  if (library_)
    return library_->on_inbound(transport().peer_of(qp), m);
  if (!mpi_)
    throw std::logic_error(fmt::format("host {}: incoming message without an MPI process", id_));
  mpi_->on_inbound(transport().peer_of(qp), m);
}

} // namespace nafsim::nodes
