#include "simcore/topo/Topology.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <fmt/format.h>
#include <map>

namespace nafsim::topo {

Vertex Topology::add_vertex(VertexKind kind, std::string name, unsigned tier)
{
  Vertex v = boost::add_vertex(VertexInfo{kind, std::move(name), tier}, g_);
  ports_.emplace_back();
  host_index_.push_back(kind == VertexKind::Host ? hosts_.size() : SIZE_MAX);
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

Topology Topology::build(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop)
{
  Topology t;
  const unsigned n = cfg.hosts;
  auto bad         = [](const std::string& path, const std::string& msg) {
    return config::ConfigError("", path, msg);
  };
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
    case Kind::LeafSpine: {
      auto const& ls   = cfg.leaf_spine;
      unsigned leaves  = (n + ls.hosts_per_leaf - 1) / ls.hosts_per_leaf;
      double parallel  = ls.hosts_per_leaf * link_rate.bps / (ls.spines * ls.uplink_rate.bps * ls.oversubscription);
      unsigned links   = std::max(1u, static_cast<unsigned>(std::lround(parallel)));
      if (links > 64)
        throw bad("/platform/topology/leaf_spine",
                  fmt::format("{} parallel links per leaf-spine pair would be needed; raise uplink_rate, spines "
                              "or oversubscription",
                              links));
      // A switch's ports are numbered in 16 bits, and real switches have at most a few hundred.
      if (leaves > 1 && ls.hosts_per_leaf + std::uint64_t{ls.spines} * links > 65535)
        throw bad("/platform/topology/leaf_spine/spines",
                  fmt::format("a leaf would have {} ports ({} hosts + {} spines x {} links); a switch has at most 65535",
                              ls.hosts_per_leaf + std::uint64_t{ls.spines} * links, ls.hosts_per_leaf, ls.spines, links));
      if (leaves > 1 && std::uint64_t{leaves} * links > 65535)
        throw bad("/platform/topology/leaf_spine/spines",
                  fmt::format("a spine would have {} ports (one per leaf: {} leaves x {} links); a switch has at most "
                              "65535: raise hosts_per_leaf or use fewer hosts",
                              std::uint64_t{leaves} * links, leaves, links));
      if (leaves > 1 && std::uint64_t{leaves} * ls.spines * links > (1u << 22))
        throw bad("/platform/topology/leaf_spine/spines",
                  fmt::format("{} leaves x {} spines x {} links is {} leaf-spine cables; this version builds at most "
                              "4,194,304: use fewer spines or more hosts_per_leaf",
                              leaves, ls.spines, links, std::uint64_t{leaves} * ls.spines * links));
      std::vector<Vertex> hosts;
      for (unsigned i = 0; i < n; ++i)
        hosts.push_back(t.add_vertex(VertexKind::Host, fmt::format("host{}", i), 0));
      std::vector<Vertex> leaf, spine;
      for (unsigned l = 0; l < leaves; ++l)
        leaf.push_back(t.add_vertex(VertexKind::Switch, fmt::format("leaf{}", l), 1));
      for (unsigned s = 0; s < ls.spines; ++s)
        spine.push_back(t.add_vertex(VertexKind::Switch, fmt::format("spine{}", s), 2));
      for (unsigned i = 0; i < n; ++i)
        t.connect(hosts[i], leaf[i / ls.hosts_per_leaf], link_rate, prop);
      if (leaves > 1)
        for (Vertex l : leaf)
          for (Vertex s : spine)
            for (unsigned k = 0; k < links; ++k)
              t.connect(l, s, ls.uplink_rate, prop);
      break;
    }
    case Kind::FatTree: {
      const unsigned k = cfg.fat_tree.k;
      if (k % 2 != 0)
        throw bad("/platform/topology/fat_tree/k", fmt::format("k must be even, got {}", k));
      const unsigned half = k / 2;
      const unsigned cap  = k * k * k / 4;
      if (n > cap)
        throw bad("/platform/topology/hosts",
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
      break;
    }
    case Kind::Chain: {
      const unsigned s = cfg.chain.switches;
      if (s == 0 && n != 2)
        throw bad("/platform/topology/hosts",
                  fmt::format("a chain without switches joins exactly 2 hosts by one cable, {} requested; set "
                              "chain.switches >= 1 or hosts = 2",
                              n));
      std::vector<Vertex> hosts;
      for (unsigned i = 0; i < n; ++i)
        hosts.push_back(t.add_vertex(VertexKind::Host, fmt::format("host{}", i), 0));
      if (s == 0) {
        t.connect(hosts[0], hosts[1], link_rate, prop);
        break;
      }
      std::vector<Vertex> sw;
      for (unsigned i = 0; i < s; ++i)
        sw.push_back(t.add_vertex(VertexKind::Switch, fmt::format("switch{}", i), 1));
      for (unsigned i = 0; i + 1 < s; ++i)
        t.connect(sw[i], sw[i + 1], link_rate, prop);
      const unsigned left = (n + 1) / 2;
      for (unsigned i = 0; i < n; ++i)
        t.connect(hosts[i], i < left ? sw.front() : sw.back(), link_rate, prop);
      break;
    }
  }
  {
    const std::size_t nv = t.vertex_count(), hosts = t.host_count();
    // The table holds a next-hop list id per (vertex, destination host): quadratic in the hosts. Refuse
    // up front what would not fit rather than spend minutes and then run out of memory.
    constexpr double kBudget = 4.0 * (1ull << 30);
    if (const double bytes = static_cast<double>(nv) * static_cast<double>(hosts) * sizeof(std::uint32_t); bytes > kBudget)
      throw config::ConfigError("", "/platform/topology/hosts",
                                fmt::format("{} hosts ({} vertices) would need a {:.1f} GiB routing table (one entry per "
                                            "vertex and destination host); this version routes at most about 4 GiB "
                                            "worth, e.g. 32,000 hosts on a star: use fewer hosts",
                                            hosts, nv, bytes / (1ull << 30)));
  }
  return t;
}

std::string Topology::describe() const
{
  auto plural = [](std::size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); };
  return fmt::format("{}, {}, {}", plural(host_count(), "host", "hosts"), plural(switch_count(), "switch", "switches"),
                     plural(boost::num_edges(g_), "cable", "cables"));
}

RoutingTable::RoutingTable(const Topology& t) : topo_(t), hosts_(t.host_count())
{
  const std::size_t nv = t.vertex_count();
  index_.assign(nv * hosts_, 0);
  lists_.push_back(List{0, 0}); // list 0: empty (a host routing to itself)
  std::map<std::vector<std::uint16_t>, std::uint32_t> seen;
  seen[{}] = 0;
  std::vector<int> dist(nv);
  std::vector<std::uint16_t> hops;
  for (std::size_t dst = 0; dst < hosts_; ++dst) {
    std::fill(dist.begin(), dist.end(), -1);
    std::deque<Vertex> q{t.host_vertex(dst)};
    dist[t.host_vertex(dst)] = 0;
    while (!q.empty()) {
      Vertex v = q.front();
      q.pop_front();
      // Paths never transit through another host.
      if (t.info(v).kind == VertexKind::Host && dist[v] != 0)
        continue;
      for (auto const& p : t.ports(v))
        if (dist[p.peer] < 0) {
          dist[p.peer] = dist[v] + 1;
          q.push_back(p.peer);
        }
    }
    for (Vertex v = 0; v < nv; ++v) {
      hops.clear();
      if (dist[v] > 0) {
        auto const& ports = t.ports(v);
        for (std::size_t i = 0; i < ports.size(); ++i)
          if (dist[ports[i].peer] == dist[v] - 1)
            hops.push_back(static_cast<std::uint16_t>(i));
      }
      auto [it, inserted] = seen.try_emplace(hops, static_cast<std::uint32_t>(lists_.size()));
      if (inserted) {
        lists_.push_back(List{static_cast<std::uint32_t>(pool_.size()), static_cast<std::uint16_t>(hops.size())});
        pool_.insert(pool_.end(), hops.begin(), hops.end());
      }
      index_[v * hosts_ + dst] = it->second;
    }
  }
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
