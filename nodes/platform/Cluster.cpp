#include "nodes/platform/Cluster.hpp"

#include "simcore/topo/SimgridPlatform.hpp"

#include <algorithm>
#include <fmt/format.h>
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

std::string Cluster::more_nodes_advice(std::string_view k, unsigned ranks) const
{
  const std::size_t have = positions(k).size();
  if (have == nodes_.size()) {
    auto const& t = cfg_.topology;
    unsigned radix = t.fat_tree.k;
    while (t.kind == topo::Kind::FatTree && static_cast<std::uint64_t>(radix) * radix * radix / 4 < ranks)
      radix += 2;
    return fmt::format("raise platform.topology.hosts from {} to at least {}{} (or run fewer ranks)", nodes_.size(),
                       ranks,
                       radix != t.fat_tree.k ? fmt::format(", and platform.topology.fat_tree.k from {} to {} (a "
                                                           "k-ary fat-tree holds k^3/4 hosts)",
                                                           t.fat_tree.k, radix)
                                             : "");
  }
  if (have > 0)
    return fmt::format("the other {} position(s) hold other kinds: list more '{}' positions in platform.node.kinds, "
                       "or raise platform.topology.hosts and list them there",
                       nodes_.size() - have, k);
  return fmt::format("set platform.node.kind to '{}' (or list '{}' positions in platform.node.kinds)", k, k);
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
  // (the key that made the host that kind: its entry of kinds, or kind when no list is given)
  throw config::ConfigError("",
                            i < cfg_.node.kinds.size() ? fmt::format("/platform/node/kinds/{}", i)
                                                       : std::string("/platform/node/kind"),
                            fmt::format("host {} is {} node, but {} node is needed there: change the platform's node "
                                        "kinds, or the workload's setting that puts it on host {}",
                                        i, a_node(is, n.kind()), a_node(need, want), i));
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

Transport Cluster::transport_kind(std::size_t i) const
{
  return nodes_.at(i)->transport_kind();
}

Poe& Cluster::transport(std::size_t i)
{
  return nodes_.at(i)->transport();
}

} // namespace nafsim::nodes
