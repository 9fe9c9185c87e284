#pragma once
// The chakra workload's settings (workload.*: the trace's prefix, how compute nodes take time and run side by side,
// what sends mean, how strictly converter defects are taken) and the count of what was repaired.

#include "simcore/config/Schema.hpp"
#include "simcore/units/Units.hpp"
#include "workloads/program/ProgramConfig.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nafsim::workloads {
/// How compute nodes take time: their recorded duration, or their work through the engine's compute model.
enum class ChakraCompute { Replay, Model };
/// What a COMM_SEND_NODE's completion means: eager (as the trace's producers mean it: once its data has left, into
/// the receiver's buffers, whether or not the receive is posted) or blocking (the engine's own protocol choice).
enum class ChakraSends { Eager, Blocking };
/// Which compute nodes of a rank may run at once: one per GPU stream and one per CPU thread (streams, the default),
/// one GPU compute node and one CPU operator per rank (astra-sim, as ASTRA-sim's HardwareResource runs them), or any
/// whose dependencies are done (dependencies).
enum class ChakraComputeOrder { Streams, AstraSim, Dependencies };

/// What the loaders repaired in a trace as Chakra's converter writes it (workload.strict: false), over all ranks.
struct ChakraRepairs {
  std::uint64_t absent_deps = 0;    ///< dependencies on nodes the file lacks: dropped
  std::uint64_t self_deps = 0;      ///< dependencies of a node on itself: dropped
  std::uint64_t cpu_gpu_cycles = 0; ///< a CPU operator and its GPU kernel waiting for each other: the CPU side's dropped
  std::uint64_t comm_type_from_name = 0; ///< collectives without comm_type, typed by their names
  std::uint64_t collectives_skipped = 0; ///< collectives without comm_type whose names name none: run as no-ops
  std::uint64_t invalid_nodes = 0; ///< INVALID_NODEs (type 0, what an unset type decodes to): skipped as ASTRA-sim does
  /// compute: model, compute nodes with no work to model (no num_ops, no tensor_size: Chakra's PyTorch converter
  /// writes none) that replayed their recorded durations. Not a repair of the trace (not in total(), not strict's).
  std::uint64_t durations_replayed = 0;
  /// Collective nodes of 0 bytes on the CCLOs, counted on each rank (not a repair either): ACCL's driver makes no
  /// call for a count of 0 (accl.cpp: "zero size buffer"), so neither does the replay; each is done at once.
  std::uint64_t empty_collectives = 0;
  /// All-gathers on a group of one member on the CCLOs, counted (not a repair either): run as the CCLO's copy.
  std::uint64_t one_member_allgathers = 0;
  /// Other collectives on a group of one member, counted (not a repair): run as the engine's one-rank call (a local
  /// copy), where ASTRA-sim builds no phase and an in-place PyTorch call moves nothing.
  std::uint64_t one_member_collectives = 0;
  /// Reduce-scatters and all-to-alls whose comm_size is no multiple of their group's size, counted on each rank (not
  /// a repair): each rank's share rounded up.
  std::uint64_t uneven_shares = 0;
  /// Collectives carrying attributes the replay reads nothing of, by name (ASTRA-sim's comm_priority).
  std::map<std::string, std::uint64_t> unread_attributes;
  /// Read whole: the ranks issue some communicators' collectives in opposite orders, so no one order keeps every
  /// rank's issue order and the collectives follow their dependencies alone (not a repair): said.
  bool issue_orders_opposed = false;
  /// Sends that no receive of the trace takes (not a repair either): how many, and the first, described.
  std::uint64_t unmatched_sends = 0;
  std::string first_unmatched;
  std::uint64_t total() const
  {
    return absent_deps + self_deps + cpu_gpu_cycles + comm_type_from_name + collectives_skipped + invalid_nodes;
  }
};
} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::ChakraCompute> {
  static constexpr std::array list{std::pair{workloads::ChakraCompute::Replay, "replay"},
                                   std::pair{workloads::ChakraCompute::Model, "model"}};
};
template <> struct EnumNames<workloads::ChakraSends> {
  static constexpr std::array list{std::pair{workloads::ChakraSends::Eager, "eager"},
                                   std::pair{workloads::ChakraSends::Blocking, "blocking"}};
};
template <> struct EnumNames<workloads::ChakraComputeOrder> {
  static constexpr std::array list{std::pair{workloads::ChakraComputeOrder::Streams, "streams"},
                                   std::pair{workloads::ChakraComputeOrder::AstraSim, "astra-sim"},
                                   std::pair{workloads::ChakraComputeOrder::Dependencies, "dependencies"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

struct ChakraConfig {
  ProgramEngine engine = ProgramEngine::Cclo;
  std::string trace;
  unsigned ranks = 0;
  std::string comm_groups;
  std::vector<unsigned> positions;
  DataType dtype = DataType::Float32;
  ChakraCompute compute = ChakraCompute::Replay;
  bool replicate = false;
  bool stream    = false;
  ChakraSends sends = ChakraSends::Eager;
  ChakraComputeOrder compute_order = ChakraComputeOrder::Streams;
  bool strict = false;
  ProgramCompute model;
  template <class V> void describe(V& v)
  {
    v.field("engine", engine, "what runs the trace's calls: cclo (the FPGA nodes' CCLOs) or mpi (the CPU host nodes' "
                              "software MPI library: the baseline), so one trace compares the two");
    v.field("trace", trace, "the trace's path prefix: rank r's file is <trace>.<r>.et (relative to the folder of "
                            "the scenario file that names it, to the working directory when given by --set; "
                            "metadata.json records it absolute)");
    v.field("ranks", ranks, "how many rank files (0: <trace>.0.et, .1.et, ... up to the first one missing)",
            config::Limits::between(0, 65536));
    v.field("comm_groups", comm_groups, "a JSON file {\"<group id>\": [rank, ...], ...} naming the communicators "
                                        "that nodes' pg_name attributes refer to (empty: every collective on all "
                                        "ranks; relative as trace is)");
    v.field("positions", positions, "the platform position of each rank, a node of the engine's kind (empty: the "
                                    "first ones)");
    v.field("dtype", dtype, "element type the collectives' bytes (comm_size) are counted in");
    v.field("replicate", replicate, "a symmetric trace: rank 0's file (<trace>.0.et) runs on every one of `ranks` "
                                    "ranks (collective, compute and memory nodes only), said in the summary");
    v.field("stream", stream, "replay the trace as it is read, each rank a window of nodes ahead, checking as it "
                              "goes (for traces too large to hold: millions of nodes per rank); outputs each rank's "
                              "totals, not one row per node");
    v.field("compute", compute, "compute nodes: replay (their duration_micros, as recorded on the original "
                                "machine) or model (their num_ops and tensor_size through the engine's compute "
                                "model: `model`)");
    v.field("model", model, "with compute model: what compute nodes run on (the FPGA's user kernel or the host's "
                            "cores)");
    v.field("sends", sends,
            "what a send node's completion means: eager (the default, as ASTRA-sim and PyTorch mean a trace's send: "
            "complete once its data has left, whether or not its receive is posted; the CCLO sends and receives "
            "point-to-point eager, through the receiver's Rx buffers, whatever the size; MPI sends as buffered "
            "eager messages into the receiver's bounce buffers) or blocking (the engine's own choice: above "
            "max_eager_size, or the library's rendezvous threshold, a send waits for its receive)");
    v.field("compute_order", compute_order,
            "which compute and memory nodes of a rank run at once: streams (the default: one at a time per GPU stream, "
            "the node's `stream` attribute, and per CPU thread, its `tid`, as CUDA streams and threads run them; "
            "different streams overlap), astra-sim (one GPU compute node and one CPU operator per rank at a time, "
            "whatever the stream, as ASTRA-sim runs them: to reproduce its results) or dependencies (every node whose "
            "dependencies are done, however many)");
    v.field("strict", strict,
            "false (the default): repair what Chakra's converter commonly writes (dependencies on absent nodes or on "
            "the node itself dropped, a CPU operator's dependency on its own GPU kernel dropped, a collective's "
            "missing comm_type taken from its name or the node skipped), each counted in the summary and "
            "metadata.json; true: each is an error naming the file and node");
  }
};

} // namespace nafsim::workloads
