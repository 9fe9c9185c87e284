#pragma once
// A little packet world for fabric tests: a topology, the fabric (packet or flow fidelity, as the network
// configuration says) and one probe endpoint per host that sends what it is told and records arrivals.
#include "simcore/engine/Simulation.hpp"
#include "simcore/net/Fabric.hpp"
#include "simcore/topo/SimgridPlatform.hpp"

#include <deque>
#include <fmt/format.h>
#include <functional>
#include <memory>

namespace nafsim::testing {

using net::Endpoint;
using net::Fabric;
using net::HostId;
using net::NetworkConfig;
using net::Packet;

struct Probe final : Endpoint {
  Fabric* fabric = nullptr;
  Scheduler* sched = nullptr;
  HostId me = 0;
  std::deque<Packet> out;
  bool says_when_empty = false; ///< answer may_have_more() (send() calls tx_ready() for every packet anyway)
  bool ahead = false; ///< take packets ahead (Endpoint::takes_ahead; attach again after setting it)
  bool frames = false; ///< promise Ethernet frames only (Endpoint::sends_frames; attach again after setting it)
  std::size_t taken_ahead = 0;
  std::vector<std::pair<std::int64_t, Packet>> got;
  void deliver(Packet&& p) override { got.emplace_back(sched->now().ps(), std::move(p)); }
  bool takes_ahead() const override { return ahead; }
  bool sends_frames() const override { return frames; }
  void deliver_ahead(Packet&& p, SimTime arrival, const net::WireCause&) override
  {
    ++taken_ahead;
    got.emplace_back(arrival.ps(), std::move(p));
  }
  std::optional<Packet> pull() override
  {
    if (out.empty())
      return std::nullopt;
    Packet p = std::move(out.front());
    out.pop_front();
    return p;
  }
  bool may_have_more() const override { return !says_when_empty || !out.empty(); }
  bool idle = false; ///< say when out is empty that the port need not ask (Endpoint::idle_until_told)
  std::size_t skipped = 0;
  bool idle_until_told() const override { return idle && out.empty(); }
  void pull_skipped(SimTime, std::uint64_t) override { ++skipped; }
  /// A packet of `bytes` on the wire; at flow fidelity it may stand for segments of `segment` wire bytes.
  void send(HostId dst, std::uint32_t bytes, std::uint32_t seq, std::uint64_t flow = 0, std::uint32_t segment = 0)
  {
    Packet p;
    p.src                = me;
    p.dst                = dst;
    p.wire_bytes         = bytes;
    p.seq                = seq;
    p.flow               = flow;
    p.segment_wire_bytes = segment;
    out.push_back(std::move(p));
    fabric->tx_ready(me);
  }
};

/// A little world: topology + fabric + one probe per host; `script` runs at t = 0.
struct World {
  Simulation sim;
  topo::Topology topo;
  std::unique_ptr<Fabric> fabric;
  std::vector<std::unique_ptr<Probe>> probes;
  World(const topo::TopologyConfig& tc, const NetworkConfig& nc, std::uint64_t seed = 1)
      : topo(topo::Topology::build(tc, nc.link.rate, nc.link.propagation))
  {
    auto hosts = topo::build_simgrid_platform(topo);
    fabric     = std::make_unique<Fabric>(topo, nc, sim.scheduler(), seed);
    for (std::size_t h = 0; h < topo.host_count(); ++h) {
      auto p    = std::make_unique<Probe>();
      p->fabric = fabric.get();
      p->sched  = &sim.scheduler();
      p->me     = static_cast<HostId>(h);
      fabric->attach(p->me, p.get());
      probes.push_back(std::move(p));
    }
    kernel_host = hosts[0];
  }
  void run(std::function<void()> script)
  {
    sim.scheduler().call_at(SimTime::zero(), std::move(script));
    sim.run(kernel_host);
  }
  simgrid::s4u::Host* kernel_host;
};

/// A star of `hosts` hosts around one switch.
inline topo::TopologyConfig star(unsigned hosts)
{
  topo::TopologyConfig t;
  t.hosts = hosts;
  return t;
}

/// What host `h` received, as "seq:picoseconds " per packet in arrival order.
inline std::string arrivals(const World& w, HostId h)
{
  std::string s;
  for (auto& [t, p] : w.probes[h]->got)
    s += fmt::format("{}:{} ", p.seq, t);
  return s;
}

} // namespace nafsim::testing
