// The cluster's connections as its engines make them (issue 54: the hub in nodes/platform declares them and knows no
// engine): a RoCE queue pair with its peer, a TCP session with its peer, a UDP peer's number; and what the TCP and UDP
// engines still hold when a run deadlocks.
#include "nodes/platform/Cluster.hpp"
#include "nodes/rdma/RdmaPoe.hpp"
#include "nodes/transport/TcpPoe.hpp"
#include "nodes/transport/UdpPoe.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <utility>

namespace nafsim::nodes {

std::pair<QpId, QpId> Cluster::add_qp_pair(std::size_t from, std::size_t to)
{
  nodes_[from]->require_rdma("RDMA queue-pair user");
  nodes_[to]->require_rdma("RDMA queue-pair user");
  RdmaPoe& a   = poe(from);
  RdmaPoe& b   = poe(to);
  // A queue pair carries one path MTU at both ends (the requester cuts a READ's responses into the packets it
  // expects by it, the responder sends them by its own): the connection manager sets the smaller on both. Each
  // engine here has one for all its queue pairs, so two ends that differ are refused rather than run with
  // READs that complete after part of their data.
  if (a.path_mtu() != b.path_mtu())
    throw config::ConfigError(
        "", nodes_[from]->config_path() + "/rdma/mtu",
        fmt::format("host {} ({}/rdma/mtu = {}) and host {} ({}/rdma/mtu = {}) are connected by RoCE: both ends of a "
                    "queue pair use one path MTU; set the two alike (a connection manager takes the smaller, {})",
                    from, nodes_[from]->config_path(), format_bytes(a.path_mtu()), to, nodes_[to]->config_path(),
                    format_bytes(b.path_mtu()), format_bytes(std::min(a.path_mtu(), b.path_mtu()))));
  QpId qb = static_cast<QpId>(b.qp_count());
  auto psn = static_cast<roce::Psn>(nodes_[from]->initial_psn()); // both ends of a queue pair start at the same PSN
  QpId qa = a.create_qp(static_cast<net::HostId>(to), qb, psn);
  b.create_qp(static_cast<net::HostId>(from), qa, psn);
  return {qa, qb};
}

QpId Cluster::connection(std::size_t from, std::size_t to)
{
  Transport a = transport_kind(from), b = transport_kind(to);
  auto where  = [&](std::size_t i) { return nodes_[i]->config_path() + "/transport"; };
  if (a != b)
    throw config::ConfigError("", where(from),
                              fmt::format("host {} runs {} and host {} runs {}: both ends of a connection need the same "
                                          "transport (set the FPGA and host transports alike)",
                                          from, config::enum_name(a), to,
                                          config::enum_name(b)));
  switch (a) {
    case Transport::Roce: return qp(from, to);
    case Transport::Udp: return static_cast<QpId>(to);
    case Transport::Connectionless:
      throw config::ConfigError("", where(from), "the connectionless transport has no connections: its NI is reached "
                                                 "through lant()");
    case Transport::Tcp: break;
  }
  if (const std::uint32_t q = sessions_.find(pair_key(from, to)); q != FlatIndex::kNone)
    return q;
  auto [sa, sb] = open_sessions(from, to);
  sessions_.set(pair_key(from, to), sa);
  sessions_.set(pair_key(to, from), sb);
  return sa;
}

QpId Cluster::own_connection(std::size_t from, std::size_t to)
{
  if (transport_kind(from) != Transport::Tcp || transport_kind(to) != Transport::Tcp)
    return connection(from, to);
  if (const std::uint32_t q = sessions_.find(own_key(from, to)); q != FlatIndex::kNone)
    return q;
  QpId sa = open_sessions(from, to).first;
  sessions_.set(own_key(from, to), sa);
  return sa;
}

std::pair<QpId, QpId> Cluster::open_sessions(std::size_t from, std::size_t to)
{
  TcpPoe& ta = *nodes_[from]->tcp();
  TcpPoe& tb = *nodes_[to]->tcp();
  QpId sa = 0, sb = 0;
  try {
    sa = static_cast<QpId>(ta.session_count());
    sb = static_cast<QpId>(tb.session_count());
    ta.open_session(static_cast<net::HostId>(to), sb);
    tb.open_session(static_cast<net::HostId>(from), sa);
  } catch (const std::length_error& e) {
    throw config::ConfigError("", nodes_[from]->config_path() + "/tcp/max_sessions",
                              fmt::format("{}: the communicator needs more TCP sessions than the engine holds; raise "
                                          "max_sessions or use fewer ranks",
                                          e.what()));
  }
  return {sa, sb};
}

std::string Cluster::transport_report() const
{
  // UDP: what each engine sent and what arrived complete, per pair; messages held incomplete.
  std::string s;
  std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> sent, got;
  for (std::size_t i = 0; i < size(); ++i) {
    const UdpPoe* u = std::as_const(*nodes_[i]).udp();
    if (!u)
      continue;
    for (auto const& [peer, n] : u->sent_to())
      sent[{i, peer}] += n;
    for (auto const& [peer, n] : u->received_from())
      got[{peer, i}] += n;
    if (std::string inc = u->incomplete(); !inc.empty())
      s += fmt::format("\n  UDP at host {} holds incomplete messages: {}", i, inc);
    if (auto k = u->counters(); k.no_buffer_dropped > 0)
      s += fmt::format("\n  UDP at host {} dropped {} datagram(s): no free Rx buffer for their message", i,
                       k.no_buffer_dropped);
  }
  for (auto const& [pair, n] : sent)
    if (std::uint64_t g = got[pair]; g < n)
      s += fmt::format("\n  UDP host {} -> host {}: {} message(s) sent, {} arrived complete: {} lost", pair.first,
                       pair.second, n, g, n - g);
  if (!s.empty())
    s = "lost messages (UDP does not recover them; the eager protocol waits for them forever):" + s;
  // TCP: sessions with messages still in flight.
  for (std::size_t i = 0; i < size(); ++i) {
    const TcpPoe* t = std::as_const(*nodes_[i]).tcp();
    if (t)
      if (std::string f = t->in_flight(); !f.empty())
        s += fmt::format("{}TCP at host {}: {}", s.empty() ? "" : "\n", i, f);
  }
  return s;
}

const TcpPoe* Cluster::tcp(std::size_t i) const
{
  return std::as_const(*nodes_.at(i)).tcp();
}

const UdpPoe* Cluster::udp(std::size_t i) const
{
  return std::as_const(*nodes_.at(i)).udp();
}

} // namespace nafsim::nodes
