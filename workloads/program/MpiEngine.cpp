#include "workloads/program/MpiEngine.hpp"

#include "nodes/host/HostNode.hpp"
#include "simcore/config/ConfigError.hpp"
#include "workloads/mpi/MpiBench.hpp"

#include <fmt/format.h>

namespace nafsim::workloads {

using coll::Buf;

MpiEngine::MpiEngine(const nodes::Cluster& c, const ProgramPlan& plan) : plan_(plan)
{
  check_mpi_platform(c);
  library_ = c.config().node.host.mpi.library;
  for (std::size_t b = 0; b < plan_.cfg.buffers.size(); ++b)
    if (plan_.cfg.buffers[b].memory == nodes::DataLocation::Stream)
      throw config::ConfigError("", fmt::format("/workload/buffers/{}/memory", b),
                                "a stream is an FPGA kernel's, and the MPI engine runs on CPU hosts: give the buffer "
                                "memory host or device (both are host memory to MPI)");
  const std::size_t contexts = plan_.comms.size();
  for (auto const& o : plan_.ops)
    if ((o.kind == ProgramOpKind::Send || o.kind == ProgramOpKind::Recv) &&
        contexts + plan_.cfg.ops[o.index].tag >= nodes::MpiProcess::kContexts)
      throw config::ConfigError("", fmt::format("/workload/ops/{}/tag", o.index),
                                fmt::format("tag {} on the MPI engine: the modeled library matches tags below {} (with "
                                            "{} communicator(s)); use a smaller tag",
                                            plan_.cfg.ops[o.index].tag, nodes::MpiProcess::kContexts - contexts,
                                            contexts));
}

std::string MpiEngine::run(ActorContext& ctx, nodes::Cluster& c, const PlannedOp& o, unsigned rank,
                           const std::vector<net::HostId>& hosts, bool data) const
{
  const coll::CollectiveCall cc = plan_.call(o, rank);
  const bool p2p   = o.kind == ProgramOpKind::Send || o.kind == ProgramOpKind::Recv;
  const bool local = o.kind == ProgramOpKind::Copy || o.kind == ProgramOpKind::Combine;
  std::vector<net::HostId> comm;
  for (unsigned m : plan_.comms.at(p2p || local ? 0 : o.comm))
    comm.push_back(hosts.at(m));
  const int me = p2p || local ? static_cast<int>(rank) : plan_.rank_in(o.comm, rank);
  mpi::MpiPlan mp;
  if (local) {
    mp.algorithm         = coll::Algorithm::Direct;
    mp.library_algorithm = "cpu";
  } else {
    mp = mpi::plan_collective(library_, cc);
  }
  const coll::Schedule s = coll::build_schedule(cc, mp.algorithm, coll::Protocol::Eager, me, mp.options);
  nodes::MpiProcess::RunOptions opt;
  opt.local   = local;
  opt.context = p2p ? static_cast<std::uint32_t>(plan_.comms.size() + plan_.cfg.ops[o.index].tag)
                    : static_cast<std::uint32_t>(o.comm);
  const std::uint64_t eb = cc.elem_bytes;
  nodes::RankBuffers bufs;
  const std::uint64_t src = plan_.operand_addr(o.src, o.src_off), dst = plan_.operand_addr(o.dst, o.dst_off);
  const std::uint64_t out_bytes = coll::output_elements(cc, me) * eb;
  if (data) {
    auto& mem = c.data()->memory.at(hosts[rank]);
    bufs.buf[static_cast<int>(Buf::Input)]  = mem.read(src, coll::input_elements(cc, me) * eb);
    bufs.buf[static_cast<int>(Buf::Output)] = mem.read(dst, out_bytes); // combine reads it; the rest overwrite it
  }
  c.mpi(hosts[rank]).run(ctx, s, comm, plan_.cfg.dtype, data ? &bufs : nullptr, opt);
  if (data && out_bytes > 0)
    c.data()->memory.at(hosts[rank]).write(dst, bufs.buf[static_cast<int>(Buf::Output)]);
  return mpi::schedule_name(mp);
}

} // namespace nafsim::workloads
