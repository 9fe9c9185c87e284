#pragma once
#include "nodes/platform/PlatformConfig.hpp"
#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/compute/FpgaKernel.hpp"
#include "nodes/lant/LantNiConfig.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "nodes/rdma/PoeConfig.hpp"
#include "nodes/reconic/Classifier.hpp"
#include "nodes/reconic/ErnicConfig.hpp"
#include "nodes/reconic/Lookaside.hpp"
#include "nodes/platform/TransportKind.hpp"
#include "protocols/roce/RoceConfig.hpp"
#include "protocols/tcp/TcpConfig.hpp"
#include "protocols/udp/UdpConfig.hpp"

namespace nafsim::nodes {

/// The host driver moving a buffer between host and FPGA memory for software (Coyote's and XRT's
/// buffer sync): a fixed cost per call (system call, descriptor set-up, completion) and a DMA over
/// PCIe no faster than the driver's path allows. Used by software that stages FPGA data through the
/// host (the software-MPI F2F baseline, ACCL+ Fig. 9).
struct HostDriverConfig {
  SimTime to_host_overhead   = SimTime::us(11);
  SimTime to_device_overhead = SimTime::us(11);
  BitsPerSecond to_host_rate{104e9};
  BitsPerSecond to_device_rate{104e9};
  template <class V> void describe(V& v)
  {
    v.field("to_host_overhead", to_host_overhead, "fixed cost of one FPGA -> host buffer copy call");
    v.field("to_device_overhead", to_device_overhead, "fixed cost of one host -> FPGA buffer copy call");
    v.field("to_host_rate", to_host_rate, "highest rate of the driver's FPGA -> host copies (<= the PCIe link)");
    v.field("to_device_rate", to_device_rate, "highest rate of the driver's host -> FPGA copies (<= the PCIe link)");
  }
};

struct FpgaNodeConfig {
  Hertz clock{250e6};
  MemoryConfig device_memory;
  PcieConfig pcie;
  MmuConfig mmu;
  PoeConfig poe;
  roce::RoceConfig rdma;
  CcloConfig cclo;
  unsigned initial_psn = 0;
  Transport transport  = Transport::Roce;
  LantNiConfig connectionless;
  tcp::TcpConfig tcp;
  udp::UdpConfig udp;
  HostDriverConfig host_driver;
  FpgaFabricConfig fabric;
  ErnicConfig ernic;
  QdmaConfig qdma;
  LookasideConfig lookaside;
  ClassifierConfig classifier;
  config::FieldProblem check() const
  {
    if (classifier.enabled && transport != Transport::Roce)
      return {"classifier/enabled", "RecoNIC's packet classifier sits in front of the RoCE engine: it needs transport "
                                    "roce (set transport to roce or classifier.enabled to false)"};
    return {};
  }
  template <class V> void describe(V& v)
  {
    v.field("clock", clock, "clock of the shell: the CCLO's cycles, the memory system's (MMU), the connectionless NI's "
                            "and the packet classifier's; the RDMA and TCP engines' timings are given as times and do "
                            "not follow it");
    v.field("device_memory", device_memory, "FPGA device memory (HBM/DDR) as seen by one data mover");
    v.field("pcie", pcie, "the PCIe link to host memory (Coyote: direct access from the FPGA)");
    v.field("mmu", mmu, "Coyote's memory management unit: the TLB state machines every CCLO and RDMA-stack memory "
                        "request passes (nodes/memory/CoyoteMmu.hpp)");
    v.field("poe", poe, "RDMA protocol offload engine timing");
    v.field("rdma", rdma, "RoCEv2 reliable-connection transport");
    v.field("cclo", cclo, "the ACCL+ collective offload engine");
    v.field("initial_psn", initial_psn, "first PSN of every queue pair (fault rules name PSNs)",
            config::Limits::between(0, 0xFFFFFF));
    v.field("transport", transport,
            "transport of the network port: roce (RoCEv2 RC POE, as Coyote; the CCLO and the sendrecv, traffic and "
            "collective workloads use it) or connectionless (Lant et al.'s reliable connectionless RDMA; the "
            "connectionless workload uses it), tcp (the hardware TCP stack of ACCL's XRT builds; the CCLO runs eager over "
            "it) or udp (unreliable datagrams; the CCLO runs eager over it, and a lost packet loses its message)");
    v.field("connectionless", connectionless, "the connectionless transport's NI (transport = connectionless)");
    v.field("tcp", tcp, "the TCP offload engine (transport = tcp); its timing is poe's");
    v.field("udp", udp, "the UDP offload engine (transport = udp); its timing is poe's");
    v.field("host_driver", host_driver, "buffer copies between host and FPGA memory through the host driver");
    v.field("fabric", fabric, "the device's resources application kernels are built from (DSPs, URAM/BRAM, HBM)");
    v.field("ernic", ernic, "RecoNIC's host-driven queues on the RDMA engine: doorbells, WQE fetch, CQ polling "
                            "(the reconic workload)");
    v.field("qdma", qdma, "RecoNIC's QDMA: host-driven DMA to and from device memory, FPGA access to host memory "
                          "(the reconic workload, tests dma and host_access)");
    v.field("lookaside", lookaside, "RecoNIC's lookaside compute block running the systolic matrix-multiply kernel "
                                    "(the reconic workload, test lookaside_mm)");
    v.field("classifier", classifier, "RecoNIC's streaming packet classifier: RoCE to the RDMA engine, other "
                                      "traffic to the host's software network stack (the reconic workload, test "
                                      "classifier)");
  }
};

/// The FPGA kind's name and parameter section (`platform.node.fpga`, registered by nodes/fpga/FpgaKind.cpp).
inline constexpr std::string_view kFpgaKind = "fpga";
inline const FpgaNodeConfig& fpga_config(const NodeConfig& n) { return n.params(kFpgaKind).as<FpgaNodeConfig>(); }
inline FpgaNodeConfig& fpga_config(NodeConfig& n) { return n.params(kFpgaKind).as<FpgaNodeConfig>(); }

} // namespace nafsim::nodes
