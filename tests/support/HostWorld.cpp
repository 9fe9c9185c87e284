#include "tests/support/HostWorld.hpp"

#include "nodes/host/HostCluster.hpp"
#include "protocols/collectives/Algorithms.hpp"
#include "tests/support/WorldPlatform.hpp"

#include <fmt/format.h>

namespace nafsim::testing {

HostWorld::HostWorld(const std::string& platform)
{
  auto p   = load_world_platform(platform, R"({"kind": "mpi", "collective": "barrier", "ranks": 2})", "host-world");
  cfg_     = std::move(p.cfg);
  cluster_ = std::make_unique<nodes::Cluster>(*cfg_, sched_, p.seed, false);
  cluster_->carry_data();
}

HostWorld::~HostWorld() = default;

nodes::MpiProcess& HostWorld::mpi(std::size_t host)
{
  return nodes::mpi_of(*cluster_, host);
}

std::vector<HostWorld::Rank> HostWorld::run(const coll::CollectiveCall& call, coll::Algorithm alg,
                                            const coll::AlgorithmOptions& opt, const std::vector<SimTime>& at)
{
  const auto n = static_cast<std::size_t>(call.size);
  std::vector<net::HostId> comm;
  std::vector<coll::Schedule> schedules;
  std::vector<Rank> ranks(n);
  for (std::size_t r = 0; r < n; ++r) {
    comm.push_back(static_cast<net::HostId>(r));
    schedules.push_back(coll::build_schedule(call, alg, coll::Protocol::Eager, static_cast<int>(r), opt));
    auto& in = ranks[r].bufs.buf[static_cast<int>(coll::Buf::Input)];
    in.resize(coll::input_elements(call, static_cast<int>(r)) * call.elem_bytes);
    for (std::size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<std::byte>((r * 31 + i) % 256);
    ranks[r].bufs.buf[static_cast<int>(coll::Buf::Output)].assign(
        coll::output_elements(call, static_cast<int>(r)) * call.elem_bytes, std::byte{0xFF}); // poison
  }
  for (std::size_t r = 0; r < n; ++r) {
    const SimTime t = r < at.size() ? at[r] : SimTime::zero();
    sched_.spawn_task(fmt::format("mpi-rank-{}", r),
                      [this, r, t, &comm, &schedules, &ranks](TaskContext& ctx) -> Task<> {
                        co_await ctx.sleep_until(t);
                        co_await mpi(r).run_task(ctx, schedules[r], comm, nodes::DataType::Float32, &ranks[r].bufs, {});
                        ranks[r].end = ctx.now();
                      });
  }
  sched_.run_standalone(); // the tasks end before the locals they use
  return ranks;
}

} // namespace nafsim::testing
