#include "workloads/program/MpiEngine.hpp"

#include "nodes/host/HostCluster.hpp"
#include "nodes/host/HostNode.hpp"
#include "simcore/config/ConfigError.hpp"
#include "workloads/mpi/MpiBench.hpp"

#include <fmt/format.h>

namespace nafsim::workloads {

using coll::Buf;

MpiEngine::MpiEngine(const nodes::Cluster& c)
{
  check_mpi_platform(c);
  library_ = nodes::host_config(c.config().node).mpi.library;
}

void MpiEngine::check(const ProgramPlan& plan)
{
  if (plan.comms.size() > kP2pContexts)
    throw config::ConfigError("", "/workload/communicators",
                              fmt::format("the MPI engine models up to {} communicators", kP2pContexts));
  for (auto const& o : plan.ops) {
    if (plan.cfg.ops[o.index].compress)
      throw config::ConfigError("", fmt::format("/workload/ops/{}/compress", o.index),
                                "compression is the CCLO's plugin; the MPI library sends data as it is: set compress "
                                "false for the MPI engine");
    // The library picks its protocol (eager_threshold) and its algorithm (its selection rules) itself: a choice
    // forced here would be ignored while the results named the op as given.
    // (An eager send is one it can make whatever the size: a buffered send, kept.)
    const ProtocolChoice pc = plan.cfg.ops[o.index].protocol;
    if (pc == ProtocolChoice::Rendezvous || (pc == ProtocolChoice::Eager && !is_p2p(o.kind)))
      throw config::ConfigError("", fmt::format("/workload/ops/{}/protocol", o.index),
                                "the MPI library picks eager or rendezvous by its eager threshold "
                                "(platform.node.host.mpi.eager_threshold), and forces only a send eager (a buffered "
                                "send): leave protocol auto here for the MPI engine, or move the threshold");
    if (plan.cfg.ops[o.index].algorithm != AlgorithmChoice::Auto)
      throw config::ConfigError("", fmt::format("/workload/ops/{}/algorithm", o.index),
                                "the MPI library picks its algorithm by its own selection rules "
                                "(platform.node.host.mpi.library); leave algorithm auto for the MPI engine (the mpi "
                                "workload forces one: workload.library_algorithm)");
    if (is_p2p(o.kind) &&
        p2p_context(plan.cfg.ops[o.index].tag) >= nodes::MpiProcess::kContexts)
      throw config::ConfigError("", fmt::format("/workload/ops/{}/tag", o.index),
                                fmt::format("tag {} on the MPI engine: the modeled library matches tags below {}; "
                                            "use a smaller tag",
                                            plan.cfg.ops[o.index].tag, nodes::MpiProcess::kContexts - kP2pContexts));
  }
}

std::string MpiEngine::run(ActorContext& ctx, nodes::Cluster& c, const ProgramPlan& plan, const PlannedOp& o,
                           unsigned rank, const std::vector<net::HostId>& hosts, bool data) const
{
  const bool p2p   = is_p2p(o.kind);
  const bool local = is_local(o.kind);
  MpiCall call;
  call.cc = plan.call(o, rank);
  for (unsigned m : plan.comms.at(p2p || local ? 0 : o.comm))
    call.comm.push_back(hosts.at(m));
  call.me      = p2p || local ? static_cast<int>(rank) : plan.rank_in(o.comm, rank);
  call.context = p2p ? p2p_context(plan.cfg.ops[o.index].tag) : collective_context(o.comm);
  call.src     = plan.operand_addr(o.src, o.src_off);
  call.dst     = plan.operand_addr(o.dst, o.dst_off);
  call.host    = hosts.at(rank);
  call.dtype   = plan.cfg.dtype;
  call.eager   = p2p && plan.cfg.ops[o.index].protocol == ProtocolChoice::Eager;
  return run(ctx, c, call, data);
}

std::string MpiEngine::run(ActorContext& ctx, nodes::Cluster& c, const MpiCall& call, bool data) const
{
  auto const& cc   = call.cc;
  const bool local = cc.collective == coll::Collective::Copy || cc.collective == coll::Collective::Combine;
  mpi::MpiPlan mp;
  if (local) {
    mp.algorithm         = coll::Algorithm::Direct;
    mp.library_algorithm = "cpu";
  } else {
    mp = mpi::plan_collective(library_, cc);
  }
  const coll::Schedule s = coll::build_schedule(cc, mp.algorithm, coll::Protocol::Eager, call.me, mp.options);
  nodes::MpiProcess::RunOptions opt;
  opt.local   = local;
  opt.context = call.context;
  opt.eager   = call.eager;
  const std::uint64_t eb = cc.elem_bytes;
  nodes::RankBuffers bufs;
  const std::uint64_t out_bytes = coll::output_elements(cc, call.me) * eb;
  if (data) {
    auto& mem = c.data()->memory.at(call.host);
    bufs.buf[static_cast<int>(Buf::Input)]  = mem.read(call.src, coll::input_elements(cc, call.me) * eb);
    bufs.buf[static_cast<int>(Buf::Output)] = mem.read(call.dst, out_bytes); // combine reads it; the rest overwrite it
  }
  nodes::mpi_of(c, call.host).run(ctx, s, call.comm, call.dtype, data ? &bufs : nullptr,
                       opt);
  if (data && out_bytes > 0)
    c.data()->memory.at(call.host).write(call.dst, bufs.buf[static_cast<int>(Buf::Output)]);
  return mpi::schedule_name(mp);
}

} // namespace nafsim::workloads
