// How an FPGA node's CCLO reaches the network: the CcloLink (nodes/cclo/CcloLink.hpp) the CCLO's Tx and Rx systems use,
// wired to the node's connectionless NI or to its engine (RoCE, TCP, UDP) over the cluster's connections, and the
// CCLO made with it on first use.

#include "nodes/cclo/CcloBuild.hpp"
#include "nodes/fpga/FpgaCluster.hpp"
#include "simcore/results/Trace.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

namespace {

/// The CCLO's link over the connectionless transport: SENDs are placed messages, every transfer a command to the NI.
CcloLink connectionless_link(const FpgaNodeConfig& fpga, LantNi& nref)
{
  LantNi* ni = &nref;
  CcloLink link;
  auto const& tc = fpga.connectionless.transport;
  auto const& cc = fpga.cclo;
  std::uint64_t largest = cc.tuning.max_eager_size.count + cc.txrx.header.count;
  if (!tc.registration || largest > tc.max_registered())
    throw config::ConfigError(
        "", "/platform/node/fpga/cclo/tuning/max_eager_size",
        fmt::format("over the connectionless transport an eager message (max_eager_size {} + the {} header) must "
                    "fit the registration range ({} with {}-bit masks of {} packets{}): lower max_eager_size (and "
                    "rx_buffers.size with it: the firmware refuses an eager limit below an Rx buffer) or raise "
                    "connectionless.transport.bitmask_bits{}",
                    format_bytes(cc.tuning.max_eager_size), format_bytes(cc.txrx.header),
                    format_bytes(Bytes{tc.max_registered()}), tc.bitmask_bits,
                    format_bytes(tc.packet_payload), tc.registration ? "" : "; registration is off",
                    build_sets_these(cc)));
  // Every CCLO message is registered at its receiver (it lands where the registration puts it), down to a
  // control message that is the header alone (rendezvous requests and acknowledgements).
  if (tc.register_min.count > cc.txrx.header.count)
    throw config::ConfigError(
        "", "/platform/node/fpga/connectionless/transport/register_min",
        fmt::format("over the connectionless transport every CCLO message is registered at its receiver, and the "
                    "smallest is a {} header alone; register_min {} would leave the smaller ones unregistrable: set "
                    "register_min to at most {}",
                    format_bytes(cc.txrx.header), format_bytes(tc.register_min), format_bytes(cc.txrx.header)));
  link.post = [ni, &tc](std::uint32_t peer, const roce::WorkRequest& wr, PayloadSource source, std::function<void()>) {
    // The CCLO takes a transfer's data whole at its one notification; Large Transfer segmentation would
    // notify each segment (not modeled for the CCLO).
    if (wr.verb != roce::Verb::Send && tc.large_transfer.threshold.count > 0 && wr.length > tc.large_transfer.threshold.count &&
        wr.length > tc.large_transfer.segment.count)
      throw config::ConfigError(
          "", "/platform/node/fpga/connectionless/transport/large_transfer/threshold",
          fmt::format("the CCLO writes {} B to node {}, which Large Transfer would cut into segments of {}; the CCLO over "
                      "the connectionless transport needs each transfer in one piece (segment notifications are not "
                      "modeled for it): set threshold to 0 or at least the largest transfer",
                      wr.length, peer, format_bytes(tc.large_transfer.segment)));
    if (auto why = tc.command_size_problem(std::max<std::uint64_t>(wr.length, 1)); !why.empty())
      throw SimulationError(fmt::format("the CCLO posts a {} B transfer to node {} that the connectionless transport "
                                        "cannot carry: {}",
                                        wr.length, peer, why));
    lant::Command c;
    c.id          = wr.wr_id;
    c.dst         = peer;
    c.local_addr  = wr.local_addr;
    c.remote_addr = wr.remote_addr;
    c.bytes       = std::max<std::uint64_t>(wr.length, 1);
    c.msg         = wr.msg;
    c.message     = wr.verb == roce::Verb::Send;
    c.header      = wr.header;
    ni->submit(c, std::move(source));
  };
  link.set_recv_provider = [ni](roce::RecvProvider p) {
    ni->set_placement([p = std::move(p)](std::uint32_t, const lant::DataPacket& first) {
      roce::RecvOffer o = p(first.header);
      switch (o.status) {
        case roce::RecvOffer::Status::NotReady: return lant::Placement{lant::Placement::Status::NotReady, 0, 0, 0};
        case roce::RecvOffer::Status::Ready:
          return lant::Placement{lant::Placement::Status::Ready, o.recv.local_addr, o.recv.wr_id, o.recv.length};
        case roce::RecvOffer::Status::Unclaimed: break;
      }
      return lant::Placement{};
    });
  };
  link.transport    = "the connectionless transport";
  link.acknowledges = true;
  link.max_send     = tc.max_registered();
  link.max_send_fix = "a smaller platform.node.fpga.cclo.rx_buffers.size, wider "
                      "platform.node.fpga.connectionless.transport.bitmask_bits, or protocol auto (the firmware's "
                      "max_eager_size)";
  return link;
}

/// The CCLO's link over its node's engine (RoCE, TCP, UDP): each transfer posted on the node's connection to the peer
/// (over TCP the session this rank opened to it: ACCL's openCon, tcp_path.md section 1).
CcloLink engine_link(Cluster& c, const FpgaNodeConfig& fpga, FpgaNode& n, std::size_t i)
{
  CcloLink link;
  link.post = [&c, &fpga, &n, i](std::uint32_t peer, const roce::WorkRequest& wr, PayloadSource source,
                                 std::function<void()> accepted) {
    if (fpga.transport == Transport::Roce)
      n.poe().post_send(c.connection(i, peer), wr, std::move(source), std::move(accepted));
    else if (fpga.transport == Transport::Tcp)
      n.tcp()->post_send(c.own_connection(i, peer), wr, std::move(source), std::move(accepted));
    else
      n.transport().post_send(c.connection(i, peer), wr, std::move(source));
  };
  // RoCE: the POE's transmit path took the last byte; TCP: the stack accepted the last write (ACCL's
  // packetizer status, tcp_path.md section 1); UDP: the last byte produced.
  link.reports_acceptance = fpga.transport == Transport::Roce || fpga.transport == Transport::Tcp;
  link.ordered            = true; // a RoCE queue pair, a TCP session (UDP runs no rendezvous)
  link.acknowledges       = fpga.transport == Transport::Roce;
  link.set_recv_provider = [&n](roce::RecvProvider p) { n.transport().set_recv_provider(std::move(p)); };
  link.rendezvous = fpga.transport == Transport::Roce;
  link.transport  = config::enum_name(fpga.transport);
  if (fpga.transport == Transport::Roce) {
    link.max_write     = kCoyoteMaxWrite;
    link.max_write_why = "Coyote's RDMA requests carry a 28-bit length (LEN_BITS = 28, ACCL's cyt adapter "
                         "CYT_LEN_BITS 28), which nothing splits: the hardware would cut the length to its low 28 bits";
  }
  return link;
}

} // namespace

std::size_t cclos_made(const Cluster& c)
{
  std::size_t n = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (auto const* f = c.find<FpgaNode>(i); f && f->cclo())
      ++n;
  return n;
}

Cclo& cclo_of(Cluster& c, std::size_t i)
{
  FpgaNode& n = c.at<FpgaNode>(i);
  if (!n.cclo()) {
    auto const& fpga = fpga_config(c.config().node);
    CcloLink link    = n.lant() ? connectionless_link(fpga, *n.lant()) : engine_link(c, fpga, n, i);
    n.attach_cclo(std::make_unique<Cclo>(static_cast<net::HostId>(i), fpga.cclo, fpga.clock, c.scheduler(),
                                         std::move(link), n.memory(), c.data(), c.seed()));
    // XRT syncs host buffers through its driver: each sync the driver's fixed cost, then the copy.
    n.cclo()->set_buffer_sync([&n, &fpga](ActorContext& ctx, std::uint64_t bytes, bool to_host) {
      host_driver_copy(ctx, n.memory(), fpga.host_driver, bytes, to_host);
    });
    if (c.trace() && c.trace()->blocks())
      n.cclo()->set_trace(c.trace(), c.trace_pid(i));
    n.cclo()->start();
  }
  return *n.cclo();
}

void check_communicator(const Cluster& c, const std::vector<net::HostId>& hosts)
{
  auto const ranks = hosts.size();
  for (net::HostId h : hosts) {
    const FpgaNode& n = c.at<FpgaNode>(h);
    if (n.config().transport == Transport::Tcp && ranks > 1) {
      auto const need = 2 * (ranks - 1), have = std::size_t{n.config().tcp.max_sessions};
      if (need > have)
        throw config::ConfigError(
            "", n.config_path() + "/tcp/max_sessions",
            fmt::format("a communicator of {} CCLO ranks over TCP holds {} sessions on each FPGA (ACCL's openCon opens "
                        "one from every rank to every other and accepts the peer's: two per pair), more than the {} "
                        "the stack holds: use at most {} ranks, or raise max_sessions (the stack's "
                        "TCP_STACK_MAX_SESSIONS build setting; ACCL+ section 4.3: 1,000)",
                        ranks, need, have, have / 2 + 1));
    }
  }
}

} // namespace nafsim::nodes
