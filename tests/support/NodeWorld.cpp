#include "tests/support/NodeWorld.hpp"

#include "tests/support/WorldPlatform.hpp"

#include <cstring>
#include <fmt/format.h>

namespace nafsim::testing {

NodeWorld::NodeWorld(const std::string& platform, bool real_data)
{
  auto p   = load_world_platform(platform, R"({"kind": "collective", "collective": "nop", "ranks": 2})", "node-world");
  cfg_     = std::move(p.cfg);
  cluster_ = std::make_unique<nodes::Cluster>(*cfg_, sched_, p.seed, false);
  if (real_data)
    cluster_->carry_data();
}

NodeWorld::~NodeWorld() = default;

nodes::CcloCall NodeWorld::call(coll::Collective c, int ranks, int rank, std::uint64_t count, int root) const
{
  nodes::CcloCall k;
  k.call.collective = c;
  k.call.count      = count;
  k.call.elem_bytes = 4;
  k.call.size       = ranks;
  k.call.root       = root;
  for (int r = 0; r < ranks; ++r)
    k.comm.push_back(static_cast<net::HostId>(r));
  k.rank     = rank;
  k.src_addr = nodes::Cclo::kUserBase;
  k.dst_addr = nodes::Cclo::kUserBase + (1ULL << 30);
  return k;
}

void NodeWorld::fill_inputs(const std::vector<nodes::CcloCall>& calls, std::uint64_t elems)
{
  for (auto const& k : calls) {
    std::vector<float> v(elems);
    for (std::uint64_t i = 0; i < elems; ++i)
      v[i] = static_cast<float>(k.rank * 1000 + static_cast<int>(i % 1000));
    std::vector<std::byte> bytes(elems * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    cluster_->data()->memory.at(k.comm.at(static_cast<std::size_t>(k.rank))).write(k.src_addr, bytes);
  }
}

std::vector<float> NodeWorld::read(std::size_t node, std::uint64_t addr, std::uint64_t elems)
{
  auto bytes = cluster_->data()->memory.at(node).read(addr, elems * 4);
  std::vector<float> v(elems);
  std::memcpy(v.data(), bytes.data(), elems * 4);
  return v;
}

std::vector<nodes::CcloResult> NodeWorld::run(const std::vector<nodes::CcloCall>& calls, const std::vector<SimTime>& at)
{
  std::vector<std::shared_ptr<nodes::CcloPending>> pending;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    auto p  = std::make_shared<nodes::CcloPending>();
    p->call = calls[i];
    pending.push_back(p);
    auto& cclo      = nodes::cclo_of(*cluster_, calls[i].comm.at(static_cast<std::size_t>(calls[i].rank)));
    const SimTime t = i < at.size() ? at[i] : SimTime::zero();
    sched_.spawn_task(fmt::format("caller-{}", i), [p, &cclo, t](TaskContext& ctx) -> Task<> {
      co_await ctx.sleep_until(t);
      p->caller          = ctx.id();
      p->result.invoked  = ctx.now();
      auto& core         = cclo.core();
      core.calls.push_back(p);
      cclo.wake_firmware();
      while (!p->done) {
        auto why = [] { return std::string("a NodeWorld caller waits for its CCLO call"); };
        co_await ctx.block(why);
      }
      p->result.returned = ctx.now();
    });
  }
  sched_.run_standalone();
  std::vector<nodes::CcloResult> out;
  for (auto const& p : pending)
    out.push_back(p->result);
  return out;
}

} // namespace nafsim::testing
