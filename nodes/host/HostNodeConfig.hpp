#pragma once
// A host CPU node: a server CPU running software MPI over a commodity RDMA NIC (ConnectX-5 class,
// RoCEv2 RC) attached over PCIe. The NIC runs the same RoCE state machines as the FPGA POE, with
// the NIC's own pipeline timing and every buffer in host memory (reached over PCIe).

#include "nodes/platform/PlatformConfig.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "nodes/rdma/PoeConfig.hpp"
#include "protocols/mpi/MpiPlan.hpp"
#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "nodes/compute/CpuCompute.hpp"
#include "protocols/roce/RoceConfig.hpp"
#include "protocols/tcp/TcpConfig.hpp"

namespace nafsim::nodes {

/// What the MPI library costs on the CPU (one core per rank, spinning in the progress loop during a
/// blocking call: work items run one after another as events arrive).
struct CpuConfig {
  SimTime call_overhead = SimTime::ns(300);
  SimTime send_overhead = SimTime::ns(500);
  SimTime inline_send_overhead = SimTime::ns(500);
  SimTime recv_overhead = SimTime::ns(500);
  SimTime progress_overhead = SimTime::ns(500);
  BitsPerSecond memcpy_rate{80e9};
  BitsPerSecond reduce_rate{40e9};
  template <class V> void describe(V& v)
  {
    v.field("call_overhead", call_overhead,
            "entering and leaving one MPI collective call (argument checks, algorithm decision, completion)");
    v.field("send_overhead", send_overhead,
            "CPU time to post one message to the NIC (MPI + transport layer, work request, doorbell)");
    v.field("inline_send_overhead", inline_send_overhead,
            "CPU time to post one message that fits the work request (header and data within inline_max): the CPU "
            "writes it into the request, with no request object and no bounce-buffer copy (UCX's inline send)");
    v.field("recv_overhead", recv_overhead,
            "CPU time to handle one arrival (poll the completion, match it to a receive, bookkeeping)");
    v.field("progress_overhead", progress_overhead,
            "CPU time of one rendezvous step inside the progress loop that posts or completes no application message "
            "by itself: a request-to-send handled and its READ posted, a READ's completion handled and the finish "
            "posted, a finish handled");
    v.field("memcpy_rate", memcpy_rate, "one core's copy rate (eager bounce buffers <-> user buffers)");
    v.field("reduce_rate", reduce_rate, "one core's reduction rate, bytes of result per second");
  }
};

/// The point-to-point protocol of the MPI library's transport layer (UCX for OpenMPI over RoCE).
struct MpiConfig {
  mpi::Library library = mpi::Library::OpenMpi;
  Bytes eager_threshold{8192};
  Bytes eager_buffer{8192 + 64};
  unsigned eager_buffers = 4095; // UCX RC RX_QUEUE_LEN (accl-cpu-cx5)
  Bytes header{64};
  Bytes fragment{0};
  // UCX's rendezvous GET splits a transfer by its transport's max_get_zcopy (ucp_ep.c: rndv.max_get_zcopy), which
  // rc_mlx5 sets to the port's max_msg_sz (rc_iface.c: cap.get.max_zcopy): 1 GiB on ConnectX-4/5 (2^log_max_msg,
  // log_max_msg = 30; ibv_devinfo's max_msg_sz 0x40000000).
  Bytes max_read{1ULL << 30};
  template <class V> void describe(V& v)
  {
    v.field("library", library, "openmpi (4.1's coll/tuned decision tables), openmpi-2.0 (the classic coll/tuned "
                                "rules of the 2016 releases, the PAC paper's) or mpich (its default selection tree)");
    v.field("eager_threshold", eager_threshold,
            "largest message sent eagerly (copied into a bounce buffer, SENT, copied out at the receiver); larger "
            "ones go rendezvous (request-to-send, the receiver READs the sender's buffer, then a finish message)");
    v.field("eager_buffer", eager_buffer, "size of one pre-posted receive bounce buffer (>= eager_threshold + header)");
    v.field("eager_buffers", eager_buffers,
            "pre-posted receives per rank, each with a bounce buffer (UCX's shared receive queue, RX_QUEUE_LEN; over "
            "TCP the buffers MPICH reads the socket into); none posted: the NIC back-pressures the sender (RNR; over "
            "TCP the stream stalls). A receive is posted again when the CPU polls its arrival; an unexpected arrival "
            "keeps its buffer and another is posted in its place (nodes/host/ReceiveQueue.hpp)",
            config::Limits::at_least(1));
    v.field("header", header, "bytes of the MPI/transport header on every eager, request-to-send and finish message");
    v.field("fragment", fragment,
            "an eager message larger than this leaves as fragments of this size (each with the header): the sender "
            "copies one into a send buffer and SENDs it into a bounce buffer of the receiver's, then the next; the "
            "receiver matches the message by its first fragment and copies every fragment into the user buffer as it "
            "arrives (progress_overhead each after the first); 0: every eager message is one SEND into one bounce "
            "buffer");
    v.field("max_read", max_read,
            "the largest READ a rendezvous posts: a larger transfer is read as several READs of at most this size, "
            "posted together (UCX's max_get_zcopy, the NIC's largest message: 1 GiB on ConnectX-4/5); transport "
            "roce only",
            config::Limits::between(1, 1ULL << 31));
  }
};

struct HostNodeConfig {
  PcieConfig pcie;
  PoeConfig nic;
  Bytes inline_max{0};
  roce::RoceConfig rdma;
  unsigned initial_psn = 0;
  CpuConfig cpu;
  Transport transport = Transport::Roce;
  tcp::TcpConfig tcp;
  BitsPerSecond socket_copy_rate{1e15}; // the top of the accepted range: copies cost nothing (8 ns per MiB)
  MpiConfig mpi;
  CpuComputeConfig compute;
  config::FieldProblem check() const
  {
    if (tcp.tx_bypass)
      return {"tcp/tx_bypass", "the kernel TCP stack sends from its socket buffers, which the NIC reads over PCIe: "
                               "tx_bypass is the FPGA stack's (platform.node.fpga.tcp); set it to false here"};
    if (tcp.loss_recovery == tcp::LossRecovery::Toe)
      return {"tcp/loss_recovery", "toe is the FPGA stack's loss recovery (platform.node.fpga.tcp); the kernel TCP "
                                   "stack goes back to the first unacknowledged byte: set go-back-n here"};
    if (!tcp.accept_overlap)
      return {"tcp/accept_overlap", "a kernel TCP receiver keeps the new bytes of a segment overlapping bytes it has "
                                    "(RFC 793); dropping it whole is the FPGA stack's rule (platform.node.fpga.tcp): "
                                    "set it to true here"};
    return {};
  }
  template <class V> void describe(V& v)
  {
    v.field("transport", transport,
            "what the MPI library runs over: roce (the NIC's RDMA, as UCX) or tcp (the kernel TCP stack through "
            "sockets, as MPICH's TCP channel; `nic` then times the stack's send and receive paths)");
    v.field("tcp", tcp, "the kernel TCP stack (transport = tcp)");
    v.field("socket_copy_rate", socket_copy_rate,
            "transport = tcp: rate at which the kernel copies message bytes between user memory and socket buffers "
            "(each side); 1000Tbps (the default, the top of the range) = free");
    v.field("pcie", pcie, "the NIC's PCIe link to host memory (every payload crosses it)");
    v.field("nic", nic, "the NIC's packet pipelines around the RoCE state machines");
    v.field("inline_max", inline_max,
            "SENDs up to this size are written into the work request by the CPU (inline): the NIC does not read "
            "their payload over PCIe");
    v.field("rdma", rdma, "the NIC's RoCEv2 reliable-connection transport");
    v.field("initial_psn", initial_psn, "first PSN of every queue pair", config::Limits::between(0, 0xFFFFFF));
    v.field("cpu", cpu, "what the MPI library costs on the CPU");
    v.field("mpi", mpi, "the MPI library and its point-to-point protocol");
    v.field("compute", compute,
            "the CPU's cores and caches as application kernels use them (the vector-matrix multiply and DLRM workloads)");
  }
};

/// The host kind's name and parameter section (`platform.node.host`, registered by nodes/host/HostKind.cpp).
inline constexpr std::string_view kHostKind = "host";
inline const HostNodeConfig& host_config(const NodeConfig& n) { return n.params(kHostKind).as<HostNodeConfig>(); }
inline HostNodeConfig& host_config(NodeConfig& n) { return n.params(kHostKind).as<HostNodeConfig>(); }

} // namespace nafsim::nodes

namespace nafsim::config {
template <> struct EnumNames<mpi::Library> {
  static constexpr std::array list{std::pair{mpi::Library::OpenMpi, "openmpi"}, std::pair{mpi::Library::Mpich, "mpich"},
                                   std::pair{mpi::Library::OpenMpi20, "openmpi-2.0"}};
};
} // namespace nafsim::config
