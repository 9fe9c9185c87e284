// The node kind `fpga`: a network-attached FPGA (its own port, the CCLO), registered with the node kinds.

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/fpga/FpgaTables.hpp"
#include "nodes/platform/FrameCheck.hpp"
#include "nodes/platform/NodeKindRegistry.hpp"
#include "nodes/platform/PlatformConfig.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

namespace {
// The largest packet of the transport the FPGA's port runs must fit a frame.
void check_fpga_frames(const PlatformConfig& cfg)
{
  auto const& eth = cfg.network.ethernet;
  auto const& f   = fpga_config(cfg.node);
  switch (f.transport) {
    case Transport::Roce: check_roce_frame(eth, f.rdma, "/platform/node/fpga"); break;
    case Transport::Tcp:
      check_frame(eth, f.tcp.packet.count, "a TCP segment", "/platform/node/fpga/tcp/packet");
      if (f.tcp.loss_recovery == tcp::LossRecovery::Toe)
        check_frame(eth, f.tcp.headers.count + f.tcp.rt_segment(), "a retransmitted TCP segment",
                    "/platform/node/fpga/tcp/retransmit_segment");
      break;
    case Transport::Udp: check_frame(eth, f.udp.packet.count, "a UDP datagram", "/platform/node/fpga/udp/packet"); break;
    case Transport::Connectionless: {
      auto const& t = f.connectionless.transport;
      check_frame(eth, t.header.count + t.packet_payload.count, "a connectionless data packet (header + packet_payload)",
                  "/platform/node/fpga/connectionless/transport/packet_payload");
      check_frame(eth, t.control_bytes.count, "a connectionless control packet",
                  "/platform/node/fpga/connectionless/transport/control_bytes");
      break;
    }
  }
}
} // namespace

namespace {
/// The cluster's first FPGA node, or null.
const FpgaNode* first_fpga(const Cluster& c)
{
  for (std::size_t i = 0; i < c.size(); ++i)
    if (auto const* f = c.find<FpgaNode>(i))
      return f;
  return nullptr;
}
} // namespace

void require_roce(const Cluster& c, const std::string& workload)
{
  if (auto const* f = first_fpga(c))
    f->require_rdma(workload);
}

void require_connectionless(const Cluster& c, const std::string& workload)
{
  if (auto const* f = first_fpga(c); f && f->config().transport != Transport::Connectionless)
    throw config::ConfigError("", "/platform/node/fpga/transport",
                              fmt::format("the {} needs the connectionless transport, but the nodes run {}; set "
                                          "transport to 'connectionless' (preset lant-zcu102 does)",
                                          workload, config::enum_name(f->config().transport)));
}

void register_fpga_kind(NodeKindRegistry& r)
{
  NodeKindEntry e;
  e.name        = std::string(FpgaNode::kKind);
  e.description = "network-attached FPGA: its own network port (RoCE, TCP, UDP or the connectionless transport), "
                  "device memory, the CCLO";
  e.plural      = "FPGAs";
  e.a_node      = "an FPGA";
  e.make        = [](const NodeBuild& b) -> std::unique_ptr<Node> {
    return std::make_unique<FpgaNode>(b.id, fpga_config(b.platform.node), b.sched, b.fabric, b.host);
  };
  e.check  = check_fpga_frames;
  e.report = add_fpga_tables;
  e.params = [] { return KindParams::of(FpgaNodeConfig{}); };
  e.section_doc = "network-attached FPGA node (kind = fpga); also the FPGA card attached to each host CPU when software "
                  "MPI stages FPGA data (the F2F baseline: host driver copies, kernel invocation)";
  r.add(std::move(e));
}

} // namespace nafsim::nodes
