#include "simcore/topo/Topology.hpp"

#include "simcore/config/ConfigError.hpp"
#include "simcore/units/Units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <unordered_map>

namespace nafsim::topo {

Vertex Topology::add_vertex(VertexKind kind, std::string name, unsigned tier)
{
  Vertex v = boost::add_vertex(VertexInfo{kind, std::move(name), tier}, g_);
  ports_.emplace_back();
  host_index_.push_back(kind == VertexKind::Host ? hosts_.size() : kNotAHost);
  tier_.push_back(static_cast<std::uint8_t>(tier)); // (0 to 3)
  if (kind == VertexKind::Host)
    hosts_.push_back(v);
  return v;
}

void Topology::connect(Vertex a, Vertex b, BitsPerSecond rate, SimTime prop)
{
  boost::add_edge(a, b, EdgeInfo{rate, prop}, g_);
  auto pa = static_cast<unsigned>(ports_[a].size());
  auto pb = static_cast<unsigned>(ports_[b].size());
  ports_[a].push_back(PortRef{b, pb, rate, prop});
  ports_[b].push_back(PortRef{a, pa, rate, prop});
}

// Leaf switches of hosts_per_leaf hosts, each joined to every spine by the parallel links the
// oversubscription asks (a ConfigError where a switch would have too many ports).
void Topology::build_leaf_spine(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop)
{
  Topology& t     = *this;
  const unsigned n = cfg.hosts;
  auto const& ls   = cfg.leaf_spine;
  unsigned leaves  = (n + ls.hosts_per_leaf - 1) / ls.hosts_per_leaf;
  double parallel  = ls.hosts_per_leaf * link_rate.bps / (ls.spines * ls.uplink_rate.bps * ls.oversubscription);
  unsigned links   = std::max(1u, static_cast<unsigned>(std::lround(parallel)));
  // Whole cables only: a ratio they cannot give is refused, not rounded (4:1 was built for 3, 6 or 8, unsaid), unless
  // both are non-blocking (one cable per spine already gives the leaf more up than down: 1:1 asked, 0.5:1 built).
  const double built    = ls.oversubscription * parallel / links;
  const bool nonblocking = built <= 1 + 1e-9 && ls.oversubscription <= 1 + 1e-9;
  // (within 0.1 %: a ratio typed to four digits, 1.333 for 4/3, is the one the cables give)
  if (leaves > 1 && links <= 64 && !nonblocking && std::abs(built / ls.oversubscription - 1) > 1e-3) {
    auto ratio = [&](unsigned k) { return ls.oversubscription * parallel / k; };
    const unsigned lo = std::max(1u, static_cast<unsigned>(std::floor(parallel))), hi = lo + 1;
    throw config::ConfigError("", "/platform/topology/leaf_spine/oversubscription",
              fmt::format("{:g}:1 needs {:.5g} parallel cables from each leaf to each spine ({} hosts per leaf at {} "
                          "over {} spine(s) of {} uplinks); whole cables give {:.4g}:1 ({} per spine) or {:.4g}:1 "
                          "({}): set one of those, or change uplink_rate, spines or hosts_per_leaf",
                          ls.oversubscription, parallel, ls.hosts_per_leaf, format_rate(link_rate), ls.spines,
                          format_rate(ls.uplink_rate), ratio(lo), lo, ratio(hi), hi));
  }
  if (links > 64)
    throw config::ConfigError("", "/platform/topology/leaf_spine",
              fmt::format("{} parallel links per leaf-spine pair would be needed ({} hosts per leaf at {}, the "
                          "hosts' link rate platform.network.link.rate, over {} spine(s) of {} uplinks at "
                          "{:g}:1); raise uplink_rate, spines or oversubscription, or lower the hosts' link rate",
                          links, ls.hosts_per_leaf, format_rate(link_rate), ls.spines, format_rate(ls.uplink_rate),
                          ls.oversubscription));
  // A switch's ports are numbered in 16 bits, and real switches have at most a few hundred.
  if (leaves > 1 && ls.hosts_per_leaf + std::uint64_t{ls.spines} * links > 65535)
    throw config::ConfigError("", "/platform/topology/leaf_spine/spines",
              fmt::format("a leaf would have {} ports ({} hosts + {} spines x {} links); a switch has at most 65535",
                          ls.hosts_per_leaf + std::uint64_t{ls.spines} * links, ls.hosts_per_leaf, ls.spines, links));
  if (leaves > 1 && std::uint64_t{leaves} * links > 65535)
    throw config::ConfigError("", "/platform/topology/leaf_spine/spines",
              fmt::format("a spine would have {} ports (one per leaf: {} leaves x {} links); a switch has at most "
                          "65535: raise hosts_per_leaf or use fewer hosts",
                          std::uint64_t{leaves} * links, leaves, links));
  if (leaves > 1 && std::uint64_t{leaves} * ls.spines * links > (1u << 22))
    throw config::ConfigError("", "/platform/topology/leaf_spine/spines",
              fmt::format("{} leaves x {} spines x {} links is {} leaf-spine cables; this version builds at most "
                          "4,194,304: use fewer spines or more hosts_per_leaf",
                          leaves, ls.spines, links, std::uint64_t{leaves} * ls.spines * links));
  std::vector<Vertex> hosts;
  for (unsigned i = 0; i < n; ++i)
    hosts.push_back(t.add_vertex(VertexKind::Host, fmt::format("host{}", i), 0));
  std::vector<Vertex> leaf, spine;
  for (unsigned l = 0; l < leaves; ++l)
    leaf.push_back(t.add_vertex(VertexKind::Switch, fmt::format("leaf{}", l), 1));
  // One leaf holds every host: no traffic leaves it, and no spine is built (an unconnected one was counted as a
  // switch of the platform).
  for (unsigned s = 0; leaves > 1 && s < ls.spines; ++s)
    spine.push_back(t.add_vertex(VertexKind::Switch, fmt::format("spine{}", s), 2));
  for (unsigned i = 0; i < n; ++i)
    t.connect(hosts[i], leaf[i / ls.hosts_per_leaf], link_rate, prop);
  if (leaves > 1)
    for (Vertex l : leaf)
      for (Vertex s : spine)
        for (unsigned k = 0; k < links; ++k)
          t.connect(l, s, ls.uplink_rate, prop);
}

// A k-ary fat-tree: the pods that hold hosts (edge and aggregation switches), the whole core.
void Topology::build_fat_tree(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop)
{
  Topology& t     = *this;
  const unsigned n = cfg.hosts;
  const unsigned k = cfg.fat_tree.k;
  if (k % 2 != 0)
    throw config::ConfigError("", "/platform/topology/fat_tree/k", fmt::format("k must be even, got {}", k));
  const unsigned half = k / 2;
  const unsigned cap  = k * k * k / 4;
  if (n > cap)
    throw config::ConfigError("", "/platform/topology/hosts",
              fmt::format("a {}-ary fat-tree holds at most {} hosts, {} requested; raise fat_tree.k", k, cap, n));
  std::vector<Vertex> hosts;
  for (unsigned i = 0; i < n; ++i)
    hosts.push_back(t.add_vertex(VertexKind::Host, fmt::format("host{}", i), 0));
  // Only the pods that hold hosts are built; the core is always complete.
  unsigned pods = (n + half * half - 1) / (half * half);
  std::vector<Vertex> core;
  for (unsigned c = 0; c < half * half; ++c)
    core.push_back(t.add_vertex(VertexKind::Switch, fmt::format("core{}", c), 3));
  for (unsigned p = 0; p < pods; ++p) {
    std::vector<Vertex> edge, agg;
    for (unsigned e = 0; e < half; ++e)
      edge.push_back(t.add_vertex(VertexKind::Switch, fmt::format("pod{}-edge{}", p, e), 1));
    for (unsigned a = 0; a < half; ++a)
      agg.push_back(t.add_vertex(VertexKind::Switch, fmt::format("pod{}-agg{}", p, a), 2));
    for (unsigned e = 0; e < half; ++e) {
      for (unsigned h = 0; h < half; ++h) {
        unsigned idx = p * half * half + e * half + h;
        if (idx < n)
          t.connect(hosts[idx], edge[e], link_rate, prop);
      }
      for (Vertex a : agg)
        t.connect(edge[e], a, link_rate, prop);
    }
    for (unsigned a = 0; a < half; ++a)
      for (unsigned c = 0; c < half; ++c)
        t.connect(agg[a], core[a * half + c], link_rate, prop);
  }
}

// Switches in a line, the first half of the hosts on the first, the rest on the last (no switch: two hosts on one
// cable).
void Topology::build_chain(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop)
{
  Topology& t     = *this;
  const unsigned n = cfg.hosts;
  const unsigned s = cfg.chain.switches;
  if (s == 0 && n != 2)
    throw config::ConfigError("", "/platform/topology/hosts",
              fmt::format("a chain without switches joins exactly 2 hosts by one cable, {} requested; set "
                          "chain.switches >= 1 or hosts = 2",
                          n));
  std::vector<Vertex> hosts;
  for (unsigned i = 0; i < n; ++i)
    hosts.push_back(t.add_vertex(VertexKind::Host, fmt::format("host{}", i), 0));
  if (s == 0) {
    t.connect(hosts[0], hosts[1], link_rate, prop);
    return;
  }
  std::vector<Vertex> sw;
  for (unsigned i = 0; i < s; ++i)
    sw.push_back(t.add_vertex(VertexKind::Switch, fmt::format("switch{}", i), 1));
  for (unsigned i = 0; i + 1 < s; ++i)
    t.connect(sw[i], sw[i + 1], link_rate, prop);
  const unsigned left = (n + 1) / 2;
  for (unsigned i = 0; i < n; ++i)
    t.connect(hosts[i], i < left ? sw.front() : sw.back(), link_rate, prop);
}

Topology Topology::build(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop)
{
  Topology t;
  const unsigned n = cfg.hosts;
  switch (cfg.kind) {
    case Kind::Star: {
      std::vector<Vertex> hosts;
      for (unsigned i = 0; i < n; ++i)
        hosts.push_back(t.add_vertex(VertexKind::Host, fmt::format("host{}", i), 0));
      Vertex sw = t.add_vertex(VertexKind::Switch, "switch0", 1);
      for (Vertex h : hosts)
        t.connect(h, sw, link_rate, prop);
      break;
    }
    case Kind::LeafSpine: t.build_leaf_spine(cfg, link_rate, prop); break;
    case Kind::FatTree: t.build_fat_tree(cfg, link_rate, prop); break;
    case Kind::Chain: t.build_chain(cfg, link_rate, prop); break;
  }
  {
    // The routing table holds a next-hop list id per (switch, leaf switch): refuse up front what would not fit
    // rather than spend minutes and then run out of memory.
    const std::size_t leaves = t.leaf_switches().size();
    constexpr double kBudget = 4.0 * (1ull << 30);
    const auto switches      = static_cast<double>(t.switch_count());
    if (const double bytes = RoutingTable::table_bytes(switches, static_cast<double>(leaves)); bytes > kBudget)
      throw config::ConfigError("", "/platform/topology",
                                fmt::format("{} switches and {} leaf switches would need a {:.1f} GiB routing table (one "
                                            "entry per switch and leaf); this version routes at most about 4 GiB worth: "
                                            "use fewer switches (e.g. more hosts per leaf)",
                                            t.switch_count(), leaves, bytes / (1ull << 30)));
  }
  return t;
}

std::vector<Vertex> Topology::leaf_switches() const
{
  std::vector<Vertex> leaves;
  std::vector<bool> seen(vertex_count(), false);
  for (Vertex h : hosts_)
    for (auto const& p : ports(h))
      if (info(p.peer).kind == VertexKind::Switch && !seen[p.peer]) {
        seen[p.peer] = true;
        leaves.push_back(p.peer);
      }
  return leaves;
}

std::string Topology::describe() const
{
  auto plural = [](std::size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); };
  return fmt::format("{}, {}, {}", plural(host_count(), "host", "hosts"), plural(switch_count(), "switch", "switches"),
                     plural(boost::num_edges(g_), "cable", "cables"));
}

namespace {
// A next-hop list's hash (the table keeps each distinct list once).
struct VecHash {
  std::size_t operator()(const std::vector<std::uint16_t>& v) const
  {
    std::size_t h = v.size();
    for (auto x : v)
      h = h * 0x9E3779B97F4A7C15ULL + x;
    return h;
  }
};
} // namespace

std::vector<Vertex> RoutingTable::place(const Topology& t)
{
  const std::size_t nv = t.vertex_count(), hosts = t.host_count();
  switch_index_.assign(nv, kNone);
  std::vector<Vertex> switches;
  for (Vertex v = 0; v < nv; ++v)
    if (t.info(v).kind == VertexKind::Switch) {
      switch_index_[v] = static_cast<std::uint32_t>(switches.size());
      switches.push_back(v);
    }
  std::vector<std::uint32_t> leaf_of_vertex(nv, kNone);
  for (Vertex l : t.leaf_switches()) {
    leaf_of_vertex[l] = static_cast<std::uint32_t>(leaf_vertex_.size());
    leaf_vertex_.push_back(static_cast<std::uint32_t>(l));
  }
  leaf_of_host_.assign(hosts, kNone);
  port_at_leaf_.assign(hosts, 0);
  for (std::size_t h = 0; h < hosts; ++h) {
    Vertex hv        = t.host_vertex(h);
    auto const& refs = t.ports(hv);
    if (refs.size() != 1)
      throw config::ConfigError("", "/platform/topology",
                                fmt::format("host '{}' has {} network ports; nafsim hosts have exactly one",
                                            t.info(hv).name, refs.size()));
    Vertex peer = refs[0].peer;
    if (t.info(peer).kind != VertexKind::Switch)
      continue; // two hosts joined by one cable
    leaf_of_host_[h] = leaf_of_vertex[peer];
    port_at_leaf_[h] = static_cast<std::uint16_t>(refs[0].peer_port);
  }
  leaves_ = leaf_vertex_.size();
  return switches;
}

void RoutingTable::number_lists(const std::vector<List>& global, const std::vector<std::vector<std::uint32_t>>& used,
                                std::vector<std::uint16_t> index)
{
  std::size_t widest = 0;
  first_list_.reserve(used.size()); // one per switch
  for (auto const& own : used) {
    first_list_.push_back(static_cast<std::uint32_t>(lists_.size()));
    for (std::uint32_t g : own)
      lists_.push_back(global[g]);
    widest = std::max(widest, own.size());
  }
  if (widest <= 256)
    index8_.assign(index.begin(), index.end()); // every number fits a byte
  else
    index16_ = std::move(index);
}

RoutingTable::RoutingTable(const Topology& t) : topo_(t)
{
  const std::vector<Vertex> switches = place(t);
  // Built with global list ids, then numbered per switch (see index8_).
  std::vector<List> global{List{0, 0}}; // list 0: empty (no path)
  std::vector<std::vector<std::uint32_t>> used(switches.size(), std::vector<std::uint32_t>{0}); // local -> global
  std::vector<std::uint16_t> index(switches.size() * leaves_, 0);

  std::unordered_map<std::vector<std::uint16_t>, std::uint32_t, VecHash> seen;
  seen[{}] = 0;
  // Switch-to-switch cables as compact adjacency lists (neighbour switch, port): the searches below walk
  // them once per leaf, so they must stay in cache.
  struct Hop {
    std::uint32_t to;
    std::uint32_t port;
  };
  std::vector<std::uint32_t> first(switches.size() + 1, 0);
  std::vector<Hop> adj;
  for (std::size_t s = 0; s < switches.size(); ++s) {
    auto const& ports = t.ports(switches[s]);
    for (std::size_t i = 0; i < ports.size(); ++i)
      if (std::uint32_t ps = switch_index_[ports[i].peer]; ps != kNone)
        adj.push_back(Hop{ps, static_cast<std::uint32_t>(i)});
    first[s + 1] = static_cast<std::uint32_t>(adj.size());
  }
  // Most switches see the same list for most leaves (their uplinks): try the last one first.
  std::vector<std::uint32_t> last(switches.size(), 0), last_local(switches.size(), 0);
  std::vector<int> dist(switches.size());
  std::vector<std::uint32_t> queue;
  std::vector<std::uint16_t> hops;
  for (std::size_t leaf = 0; leaf < leaves_; ++leaf) {
    // Breadth-first over the switches only: paths never transit through a host.
    std::fill(dist.begin(), dist.end(), -1);
    queue.assign(1, switch_index_[leaf_vertex_[leaf]]);
    dist[queue[0]] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      std::uint32_t s = queue[head];
      for (std::uint32_t a = first[s]; a < first[s + 1]; ++a)
        if (dist[adj[a].to] < 0) {
          dist[adj[a].to] = dist[s] + 1;
          queue.push_back(adj[a].to);
        }
    }
    for (std::size_t s = 0; s < switches.size(); ++s) {
      if (dist[s] <= 0)
        continue; // the leaf itself (its hosts' ports) or unreachable (list 0)
      hops.clear();
      for (std::uint32_t a = first[s]; a < first[s + 1]; ++a)
        if (dist[adj[a].to] == dist[s] - 1)
          hops.push_back(static_cast<std::uint16_t>(adj[a].port));
      auto const& prev = global[last[s]];
      if (prev.count != hops.size() || !std::equal(hops.begin(), hops.end(), pool_.begin() + prev.offset)) {
        auto [it, inserted] = seen.try_emplace(hops, static_cast<std::uint32_t>(global.size()));
        if (inserted) {
          global.push_back(List{static_cast<std::uint32_t>(pool_.size()), static_cast<std::uint16_t>(hops.size())});
          pool_.insert(pool_.end(), hops.begin(), hops.end());
        }
        last[s]   = it->second;
        auto& own = used[s];
        auto at   = std::find(own.begin(), own.end(), last[s]);
        if (at == own.end()) {
          if (own.size() > UINT16_MAX)
            throw config::ConfigError("", "/platform/topology",
                                      fmt::format("switch '{}' needs more than {} distinct next-hop lists; nafsim's "
                                                  "routing table holds at most that many per switch",
                                                  t.info(switches[s]).name, UINT16_MAX + 1));
          at = own.insert(own.end(), last[s]);
        }
        last_local[s] = static_cast<std::uint32_t>(at - own.begin());
      }
      index[s * leaves_ + leaf] = static_cast<std::uint16_t>(last_local[s]);
    }
  }
  number_lists(global, used, std::move(index));
}

bool RoutingTable::host_reaches(Vertex src, std::size_t dst) const
{
  Vertex peer = topo_.ports(src)[0].peer;
  if (switch_index_[peer] == kNone)
    return peer == topo_.host_vertex(dst);
  const std::uint32_t leaf = leaf_of_host_[dst];
  if (leaf == kNone)
    return false;
  return leaf_vertex_[leaf] == peer || list(switch_index_[peer], static_cast<std::uint32_t>(leaf)).count > 0;
}

unsigned RoutingTable::distance(std::size_t src_host, std::size_t dst_host) const
{
  unsigned d = 0;
  Vertex v   = topo_.host_vertex(src_host);
  while (v != topo_.host_vertex(dst_host)) {
    auto hops = next_hops(v, dst_host);
    if (hops.empty())
      return UINT32_MAX;
    v = topo_.ports(v)[hops[0]].peer;
    ++d;
  }
  return d;
}

} // namespace nafsim::topo
