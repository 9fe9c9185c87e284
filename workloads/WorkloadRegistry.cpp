#include "workloads/WorkloadRegistry.hpp"

#include "workloads/sendrecv/SendRecv.hpp"
#include "workloads/collective/CollectiveBench.hpp"
#include "workloads/connectionless/Connectionless.hpp"
#include "workloads/hostcopy/HostCopy.hpp"
#include "workloads/mpi/MpiBench.hpp"
#include "workloads/fc/FcLayer.hpp"
#include "workloads/dlrm/Dlrm.hpp"
#include "workloads/traffic/Traffic.hpp"
#include "workloads/portals/PortalsMpiBench.hpp"
#include "workloads/portals/UnexpectedQueue.hpp"
#include "workloads/reconic/ReconicBench.hpp"
#include "workloads/program/Program.hpp"
#include "workloads/chakra/Chakra.hpp"

#include <filesystem>

namespace nafsim::workloads {

const WorkloadEntry& WorkloadRegistry::get(const std::string& kind, const std::string& origin,
                                           const std::string& pointer) const
{
  std::string valid;
  for (auto const& e : entries_) {
    if (e.kind == kind)
      return e;
    valid += (valid.empty() ? "" : ", ") + e.kind;
  }
  throw config::ConfigError(origin, pointer, "unknown workload kind '" + kind + "'; valid kinds: " + valid);
}

void register_all_workloads(WorkloadRegistry& r)
{
  r.add(WorkloadRegistry::make<SendRecvConfig, SendRecv>(
      "sendrecv", "point-to-point RDMA transfer between two nodes, swept over message sizes"));
  r.add(WorkloadRegistry::make<TrafficConfig, Traffic>(
      "traffic", "every node streams RDMA WRITEs to a partner (shift, random permutation, neighbor)"));
  r.add(WorkloadRegistry::make<CollectiveBenchConfig, CollectiveBench>(
      "collective", "a CCLO collective, send/recv or NOP vs message size (ACCL+ micro-benchmarks)"));
  r.add(WorkloadRegistry::make<ConnectionlessConfig, Connectionless>(
      "connectionless", "Lant et al.'s connectionless transport: send/recv latency (registered vs unregistered) "
                        "or many concurrent operations (nodes run transport = connectionless)"));
  r.add(WorkloadRegistry::make<HostCopyConfig, HostCopy>(
      "hostcopy", "buffer copies between FPGA and host memory through the host driver, vs size (ACCL+ Fig. 9 copies)"));
  r.add(WorkloadRegistry::make<MpiBenchConfig, MpiBench>(
      "mpi", "software MPI on host CPUs over RDMA NICs: a collective or send/recv vs message size, host data or FPGA "
             "data staged through the host (ACCL+ baselines, Fig. 9-12)"));
  r.add(WorkloadRegistry::make<FcLayerConfig, FcLayer>(
      "fc", "distributed FC layer (vector-matrix multiply) on host CPUs, partial products reduced by ACCL+ or software "
            "MPI (ACCL+ section 6.2, Fig. 16)"));
  r.add(WorkloadRegistry::make<DlrmConfig, Dlrm>(
      "dlrm", "distributed DLRM inference on FPGAs (embedding tables, checkerboard FC1, pipelined layers) vs a batched "
              "CPU baseline (ACCL+ section 6, Fig. 15 and 17)"));
  r.add(WorkloadRegistry::make<UnexpectedQueueConfig, UnexpectedQueue>(
      "portals_uq", "the worst-case unexpected-queue benchmark of the PAC paper (5.2): node 0's Portals processing "
                    "of N unexpected messages, each receive matching the last header on the list"));
  r.add(WorkloadRegistry::make<PortalsMpiConfig, PortalsMpiBench>(
      "portals_mpi", "MPI and Global Arrays over Portals (PAC paper 5.3-5.5): all-to-all, the NAS IS / FT / EP / DT "
                     "class S communication and a GA molecular-dynamics step, per protocol (eager, rendezvous, "
                     "triggered rendezvous), on PAC or software Portals, over an ideal bus or the network"));
  r.add(WorkloadRegistry::make<ProgramConfig, Program>(
      "program", "any sequence of CCLO calls per rank: named buffers kept between calls, sub-communicators, send / "
                 "recv with tags, copy, combine and compute phases; every result verified against the program run "
                 "on plain numbers"));
  auto chakra = WorkloadRegistry::make<ChakraConfig, Chakra>(
      "chakra", "a Chakra execution trace (<trace>.<rank>.et, as ASTRA-sim reads them) replayed on the CCLO ranks: "
                "collectives, send / recv, compute durations, dependencies");
  chakra.create = [](const config::Json& j, const std::string& pointer, const config::Origins& origins,
                     config::Json& resolved) -> std::unique_ptr<Workload> {
    ChakraConfig cfg;
    config::Reader::read(j, cfg, pointer, origins);
    // Paths relative to the file that gave them (the scenario's folder, also for its overrides), else (--set) to the
    // working directory; made absolute, so that the resolved scenario (metadata.json) runs its trace again from any
    // folder.
    auto near = [&](std::string& path, const char* key) {
      if (path.empty() || !std::filesystem::path(path).is_relative())
        return;
      path = config::path_in(origins.folder_of(pointer + "/" + key), path);
    };
    near(cfg.trace, "trace");
    near(cfg.comm_groups, "comm_groups");
    resolved = config::Writer::write(cfg);
    return std::make_unique<Chakra>(cfg);
  };
  r.add(std::move(chakra));
  r.add(WorkloadRegistry::make<ReconicBenchConfig, ReconicBench>(
      "reconic", "RecoNIC's RDMA test: the host drives the card's RDMA engine through its queues (doorbell, WQE fetch, "
                 "CQ polling); READ or WRITE vs size, single or batch (RecoNIC section VI-C)"));
}

} // namespace nafsim::workloads
