// The node kind `host`: a CPU with a commodity RDMA NIC running software MPI, registered with the node kinds.

#include "nodes/host/HostCluster.hpp"
#include "nodes/platform/ClusterReport.hpp"
#include "nodes/platform/FrameCheck.hpp"
#include "nodes/platform/NodeKindRegistry.hpp"

namespace nafsim::nodes {

namespace {
// The largest packet of the host's transport (its NIC's RoCE, or the kernel's TCP) must fit a frame.
void check_host_frames(const PlatformConfig& cfg)
{
  auto const& h = host_config(cfg.node);
  if (h.transport == Transport::Tcp)
    check_frame(cfg.network.ethernet, h.tcp.packet.count, "a TCP segment", "/platform/node/host/tcp/packet");
  else
    check_roce_frame(cfg.network.ethernet, h.rdma, "/platform/node/host");
}

// Every MPI rank that took part in the run.
void add_mpi(const Cluster& c, const std::vector<std::size_t>& at, results::ResultSink& sink)
{
  auto util = [&](SimTime busy) { return busy_fraction(c, busy); };
  results::Table mpi("mpi_counters", {"node", "calls", "eager_sent", "rendezvous_sent", "eager_received", "unexpected",
                                   "reads", "bytes_sent", "bytes_copied", "bytes_reduced", "cpu_busy_us",
                                   "cpu_utilization", "bounce_max_used", "bounce_refusals", "fragments_sent",
                                   "bounce_buffers_max", "progress_held"});
  for (std::size_t i : at) {
    const MpiProcess* p = c.at<HostNode>(i).mpi();
    if (!p)
      continue;
    auto const& k = p->counters();
    mpi.row()
        .add(i)
        .add(k.calls)
        .add(k.eager_sent)
        .add(k.rendezvous_sent)
        .add(k.eager_received)
        .add(k.unexpected)
        .add(k.reads)
        .add(k.bytes_sent)
        .add(k.bytes_copied)
        .add(k.bytes_reduced)
        .add(k.cpu_busy.us(), 3)
        .add(util(k.cpu_busy), 4)
        .add(k.bounce_max_used)
        .add(k.bounce_refusals)
        .add(k.fragments_sent)
        .add(k.bounce_buffers_max)
        .add(k.progress_held);
  }
  if (mpi.row_count() != 0)
    sink.add(std::move(mpi));
}

} // namespace

MpiProcess& mpi_of(Cluster& c, std::size_t i)
{
  HostNode& h = c.at<HostNode>(i);
  if (!h.mpi())
    h.attach_mpi(std::make_unique<MpiProcess>(
        static_cast<net::HostId>(i), h.config(), c.scheduler(), h.transport(),
        [&c, i](net::HostId peer) { return c.connection(i, peer); }, c.data()));
  return *h.mpi();
}

void register_host_kind(NodeKindRegistry& r)
{
  NodeKindEntry e;
  e.name        = std::string(HostNode::kKind);
  e.description = "CPU with a commodity RDMA NIC (or the kernel's TCP) running software MPI";
  e.plural      = "hosts";
  e.a_node      = "a CPU (host)";
  e.make        = [](const NodeBuild& b) -> std::unique_ptr<Node> {
    return std::make_unique<HostNode>(b.id, b.platform.node, b.sched, b.fabric, b.host);
  };
  e.check  = check_host_frames;
  e.report = add_mpi;
  e.params = [] { return KindParams::of(HostNodeConfig{}); };
  e.section_doc = "CPU node with a commodity RDMA NIC running software MPI (kind = host)";
  r.add(std::move(e));
}

} // namespace nafsim::nodes
