#include "nodes/platform/Cluster.hpp"

#include "nodes/rdma/RdmaPoe.hpp"
#include "nodes/transport/TcpPoe.hpp"
#include "nodes/transport/UdpPoe.hpp"
#include "simcore/topo/SimgridPlatform.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <utility>

namespace nafsim::nodes {

Cluster::Cluster(const PlatformConfig& cfg, Scheduler& sched, std::uint64_t seed, bool simgrid_hosts,
                 const NodeKindRegistry& known)
    : cfg_(cfg)
    , sched_(sched)
    , seed_(seed)
    , topo_(topo::Topology::build(cfg.topology, cfg.network.link.rate, cfg.network.link.propagation))
    , hosts_(simgrid_hosts ? topo::build_simgrid_platform(topo_)
                           : std::vector<simgrid::s4u::Host*>(topo_.host_count(), nullptr))
    , fabric_(std::make_unique<net::Fabric>(topo_, cfg.network, sched, seed))
    , known_(known)
{
  const std::size_t n = topo_.host_count();
  if (!cfg.node.kinds.empty() && cfg.node.kinds.size() != n)
    throw config::ConfigError("", "/platform/node/kinds",
                              fmt::format("{} node kinds for {} host positions: give one kind per host of the topology "
                                          "(or leave `kinds` empty to make every host `kind`)",
                                          cfg.node.kinds.size(), n));
  // Each position's kind, each kind present checked once (in the registry's order) before any node is built.
  std::vector<const NodeKindEntry*> kind_at(n);
  for (std::size_t i = 0; i < n; ++i)
    kind_at[i] = cfg.node.kinds.empty() ? &known.get(cfg.node.kind.name, "/platform/node/kind")
                                        : &known.get(cfg.node.kinds[i].name, fmt::format("/platform/node/kinds/{}", i));
  for (auto const& k : known.entries())
    if (k.check && std::find(kind_at.begin(), kind_at.end(), &k) != kind_at.end())
      k.check(cfg);
  nodes_.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    nodes_.push_back(kind_at[i]->make(NodeBuild{static_cast<net::HostId>(i), cfg_, sched, *fabric_, hosts_[i]}));
  sched.add_deadlock_note([this] { return transport_report(); });
}

std::vector<std::size_t> Cluster::positions(std::string_view k) const
{
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i]->kind() == k)
      v.push_back(i);
  return v;
}

const Node& Cluster::checked(std::size_t i, std::string_view want) const
{
  const Node& n = *nodes_.at(i);
  if (n.kind() == want)
    return n;
  auto const* is   = known_.find(n.kind());
  auto const* need = known_.find(want);
  auto a_node = [](const NodeKindEntry* e, std::string_view name) {
    return e ? e->a_node : fmt::format("a '{}'", name);
  };
  throw config::ConfigError("", fmt::format("/platform/node/kinds/{}", i),
                            fmt::format("host {} is {} node, but {} node is needed there: change the platform's node "
                                        "kinds (or the workload's ranks / system)",
                                        i, a_node(is, n.kind()), a_node(need, want)));
}

RdmaPoe& Cluster::poe(std::size_t i)
{
  return nodes_.at(i)->rdma();
}

const RdmaPoe& Cluster::poe(std::size_t i) const
{
  return nodes_.at(i)->rdma();
}

const MemorySystem& Cluster::memory(std::size_t i) const
{
  return nodes_.at(i)->memory();
}

Cluster::~Cluster() = default;

QpId Cluster::qp(std::size_t from, std::size_t to)
{
  if (const std::uint32_t q = qps_.find(pair_key(from, to)); q != FlatIndex::kNone)
    return q;
  auto [qa, qb] = add_qp_pair(from, to);
  qps_.set(pair_key(from, to), qa);
  qps_.set(pair_key(to, from), qb);
  return qa;
}

QpId Cluster::add_qp(std::size_t from, std::size_t to)
{
  return add_qp_pair(from, to).first;
}

std::pair<QpId, QpId> Cluster::add_qp_pair(std::size_t from, std::size_t to)
{
  nodes_[from]->require_rdma("RDMA queue-pair user");
  nodes_[to]->require_rdma("RDMA queue-pair user");
  RdmaPoe& a   = poe(from);
  RdmaPoe& b   = poe(to);
  QpId qb = static_cast<QpId>(b.qp_count());
  auto psn = static_cast<roce::Psn>(nodes_[from]->initial_psn()); // both ends of a queue pair start at the same PSN
  QpId qa = a.create_qp(static_cast<net::HostId>(to), qb, psn);
  b.create_qp(static_cast<net::HostId>(from), qa, psn);
  return {qa, qb};
}

std::uint32_t Cluster::trace_pid(std::size_t i) const
{
  return static_cast<std::uint32_t>(topo_.host_vertex(i));
}

void Cluster::enable_trace(results::Trace& t)
{
  trace_ = &t;
  for (std::size_t v = 0; v < topo_.vertex_count(); ++v)
    t.name_process(static_cast<std::uint32_t>(v), topo_.info(v).name);
  fabric_->set_trace(&t);
  for (std::size_t i = 0; i < size(); ++i)
    nodes_[i]->set_trace(t, static_cast<std::uint32_t>(topo_.host_vertex(i)));
}

DataPlane& Cluster::carry_data()
{
  if (!data_) {
    for (std::size_t i = 0; i < size(); ++i)
      if (nodes_[i]->data_engine_made())
        throw std::logic_error("Cluster::carry_data() must come before the first CCLO / MPI library is made");
    data_ = std::make_unique<DataPlane>(size());
  }
  return *data_;
}

Transport Cluster::transport_kind(std::size_t i) const
{
  return nodes_.at(i)->transport_kind();
}

Poe& Cluster::transport(std::size_t i)
{
  return nodes_.at(i)->transport();
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
  sessions_.set(pair_key(from, to), sa);
  sessions_.set(pair_key(to, from), sb);
  return sa;
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
