#pragma once
// The `program` workload's configuration: named buffers every rank holds, communicators over subsets of the ranks,
// and one list of operations that each rank runs in order (the ones it takes part in).

#include "nodes/compute/FpgaKernel.hpp"
#include "workloads/collective/CollectiveBench.hpp"

#include <string>
#include <vector>

namespace nafsim::workloads {

enum class ProgramOpKind { Bcast, Scatter, Gather, AllGather, Reduce, AllReduce, ReduceScatter, AllToAll, Barrier,
                           Copy, Combine, Send, Recv, Compute, Wait, StreamPut };
/// What a buffer holds before the program runs.
enum class BufferInit { Pattern, Zero };
/// What runs the program's calls: each rank's CCLO on an FPGA, or the software MPI library on a CPU host.
enum class ProgramEngine { Cclo, Mpi };

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::ProgramOpKind> {
  static constexpr std::array list{
      std::pair{workloads::ProgramOpKind::Bcast, "bcast"},
      std::pair{workloads::ProgramOpKind::Scatter, "scatter"},
      std::pair{workloads::ProgramOpKind::Gather, "gather"},
      std::pair{workloads::ProgramOpKind::AllGather, "allgather"},
      std::pair{workloads::ProgramOpKind::Reduce, "reduce"},
      std::pair{workloads::ProgramOpKind::AllReduce, "allreduce"},
      std::pair{workloads::ProgramOpKind::ReduceScatter, "reduce-scatter"},
      std::pair{workloads::ProgramOpKind::AllToAll, "alltoall"},
      std::pair{workloads::ProgramOpKind::Barrier, "barrier"},
      std::pair{workloads::ProgramOpKind::Copy, "copy"},
      std::pair{workloads::ProgramOpKind::Combine, "combine"},
      std::pair{workloads::ProgramOpKind::Send, "send"},
      std::pair{workloads::ProgramOpKind::Recv, "recv"},
      std::pair{workloads::ProgramOpKind::Compute, "compute"},
      std::pair{workloads::ProgramOpKind::Wait, "wait"},
      std::pair{workloads::ProgramOpKind::StreamPut, "stream_put"}};
};
template <> struct EnumNames<workloads::ProgramEngine> {
  static constexpr std::array list{std::pair{workloads::ProgramEngine::Cclo, "cclo"},
                                   std::pair{workloads::ProgramEngine::Mpi, "mpi"}};
};
template <> struct EnumNames<workloads::BufferInit> {
  static constexpr std::array list{std::pair{workloads::BufferInit::Pattern, "pattern"},
                                   std::pair{workloads::BufferInit::Zero, "zero"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

struct ProgramBuffer {
  std::string name;
  std::uint64_t elements = 0;
  BufferInit init        = BufferInit::Pattern;
  nodes::DataLocation memory = nodes::DataLocation::Device;
  int stream_id = -1;
  template <class V> void describe(V& v)
  {
    v.field("name", name, "how operations name it");
    v.field("elements", elements, "its size in elements of the program's dtype (every rank holds one)");
    v.field("memory", memory, "where it lives: device (the FPGA's HBM), host (host memory the CCLO reaches over "
                              "PCIe) or stream (a user kernel's stream: operations read it from and write it to the "
                              "kernel, which keeps it between calls, a loopback; no memory traffic)");
    v.field("stream_id", stream_id, "memory stream: the kernel stream's id, which stream_put addresses (ACCL: 0 to "
                                    "246; -1: the stream buffers numbered 1, 2, ... in order)",
            config::Limits::between(-1, 246));
    v.field("init", init, "its contents before the program: pattern (small integers that differ by rank and "
                          "element, exact in every type) or zero");
  }
};

/// What compute operations given by their work (operations and bytes, not a duration) run on: a user kernel on each
/// FPGA (engine cclo) or the host's cores (engine mpi: platform.node.host.compute), each a roofline.
struct ProgramCompute {
  nodes::FpgaKernelConfig kernel = default_kernel();
  unsigned hbm_channels = 0;
  unsigned threads      = 0;
  static nodes::FpgaKernelConfig default_kernel()
  {
    nodes::FpgaKernelConfig k;
    k.clock = Hertz{250e6};
    k.dsps  = 0;
    return k;
  }
  template <class V> void describe(V& v)
  {
    v.field("kernel", kernel, "the user kernel on each FPGA (engine cclo): its clock, DSP slices (0: every DSP of "
                              "platform.node.fpga.fabric; ASSUMPTION: the kernel has the device), multiply-add "
                              "pipeline; clock ASSUMPTION 250 MHz, the CCLO's own clock");
    v.field("hbm_channels", hbm_channels, "HBM pseudo-channels the kernel streams its bytes over (0: all of them)");
    v.field("threads", threads, "engine mpi: the host cores a compute phase runs on (0: all of "
                                "platform.node.host.compute.cores)");
  }
};

struct ProgramComm {
  std::string name;
  std::vector<unsigned> ranks;
  template <class V> void describe(V& v)
  {
    v.field("name", name, "how operations name it (`world`, every rank, exists already)");
    v.field("ranks", ranks, "its members, program ranks in order: member i is its rank i");
  }
};

struct ProgramOp {
  ProgramOpKind op = ProgramOpKind::Barrier;
  std::string comm = "world";
  std::vector<unsigned> ranks;
  std::string src;
  std::string dst;
  std::uint64_t count = 0;
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  unsigned root       = 0;
  int peer            = -1;
  int shift           = 0;
  std::uint32_t tag   = 0;
  coll::ReduceFunc func     = coll::ReduceFunc::Sum;
  ProtocolChoice protocol   = ProtocolChoice::Auto;
  AlgorithmChoice algorithm = AlgorithmChoice::Auto;
  bool compress             = false;
  SimTime duration;
  double operations = 0;
  Bytes bytes{0};
  std::vector<unsigned> after;
  /// A send that completes once its data is delivered (acknowledged by the peer's transport), as a Chakra trace's
  /// send completes in ASTRA-sim; set by the chakra workload, not a program field.
  bool at_delivery = false;
  template <class V> void describe(V& v)
  {
    v.field("op", op, "(required) what it does: a CCLO collective on `comm`, copy / combine (local), send / recv to a peer, "
                      "stream_put (a send into the peer's kernel stream `dst`, no receive there), compute (the rank "
                      "is busy for `duration`), or wait (done when what it waits for is: `after`)");
    v.field("comm", comm, "collectives: the communicator it runs on (every member takes part)");
    v.field("ranks", ranks, "send, recv, copy, combine, compute: the program ranks that run it (empty: all)");
    v.field("src", src, "the buffer it reads (collectives, copy, combine, send)");
    v.field("dst", dst, "the buffer it writes (collectives, copy, combine, recv)");
    v.field("count", count, "elements per rank as ACCL counts them (0: all of `src` from its offset, or of `dst` for "
                            "recv)");
    v.field("src_offset", src_offset, "where in `src` the operand starts, in elements");
    v.field("dst_offset", dst_offset, "where in `dst` the result goes, in elements");
    v.field("root", root, "rooted collectives: the root's rank in `comm`");
    v.field("peer", peer, "send / recv: the peer's program rank (-1: use `shift`)", config::Limits::between(-1, 65535));
    v.field("shift", shift, "send / recv without `peer`: the peer is (rank + shift) mod ranks (a ring: send 1, recv -1)");
    v.field("tag", tag, "send / recv: ACCL's tag (messages between two ranks match in order within a tag)");
    v.field("func", func, "reductions and combine: sum or max");
    v.field("protocol", protocol, "collectives: auto (the firmware's choice), eager or rendezvous");
    v.field("algorithm", algorithm, "collectives: auto or a forced algorithm");
    v.field("compress", compress, "CCLO calls: float32 data travels as float16 through the compression plugins (eager "
                                  "only; verified to float16's precision)");
    v.field("duration", duration, "compute: how long the rank is busy (or give operations and bytes)");
    v.field("operations", operations, "compute without a duration: its arithmetic operations (flops; a multiply-add "
                                      "is two), timed by the engine's compute model (`compute`: a roofline)",
            config::Limits::at_least(0));
    v.field("bytes", bytes, "compute without a duration: the bytes it streams from memory (HBM on the FPGA, DRAM on "
                            "the host)");
    v.field("after", after, "the operations (indices, earlier in the list, run by the same ranks) it waits for; "
                            "empty: the rank's previous operation. An operation waiting for an earlier one only "
                            "runs concurrently with those in between (a non-blocking call completed later)");
  }
};

struct ProgramConfig {
  ProgramEngine engine = ProgramEngine::Cclo;
  unsigned ranks = 2;
  std::vector<unsigned> positions;
  DataType dtype = DataType::Float32;
  std::vector<ProgramBuffer> buffers;
  std::vector<ProgramComm> communicators;
  std::vector<ProgramOp> ops;
  ProgramCompute compute;
  bool verify = true;
  template <class V> void describe(V& v)
  {
    v.field("engine", engine, "what runs the calls: cclo (each rank an FPGA node, calls through its CCLO) or mpi "
                              "(each rank a CPU host node, calls through the software MPI library: the baseline)");
    v.field("ranks", ranks, "program ranks, one per node of the engine's kind (the platform's first ones of that "
                            "kind unless `positions`)",
            config::Limits::between(1, 65536));
    v.field("positions", positions, "the platform position of each rank, a node of the engine's kind (empty: the "
                                    "first `ranks` of them)");
    v.field("dtype", dtype, "element type of every buffer and operation");
    v.field("buffers", buffers, "named buffers, one of each per rank; they keep their data between operations");
    v.field("communicators", communicators, "sub-communicators beside `world` (several may run at once)");
    v.field("ops", ops, "the program: each rank runs, in this order, the operations it takes part in");
    v.field("compute", compute, "what compute operations given by operations and bytes run on");
    v.field("verify", verify, "carry real bytes and check every buffer after every operation against a reference "
                              "run of the program on plain numbers");
  }
  /// Every operation names what it does: without `op` it had run as a barrier of every rank, its other keys unread.
  static void check_given(const config::Json& j, const std::string& pointer, const config::Origins& origins)
  {
    if (!j.is_object() || !j.contains("ops") || !j["ops"].is_array())
      return; // (the reader says what is wrong with them)
    for (std::size_t i = 0; i < j["ops"].size(); ++i)
      if (j["ops"][i].is_object() && !j["ops"][i].contains("op")) {
        const std::string at = pointer + "/ops/" + std::to_string(i);
        throw config::ConfigError(origins.of(at), at,
                                  "an operation names what it does in `op` (a collective, copy, combine, send, "
                                  "recv, stream_put, compute or wait; `nafsim params workload.ops` lists them)");
      }
  }
};

} // namespace nafsim::workloads
