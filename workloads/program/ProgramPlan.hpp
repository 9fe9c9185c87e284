#pragma once
// A `program` resolved against the platform: buffer and communicator names become indices, every operation knows
// which program ranks run it, in what role (rank in its communicator, peer), and the CCLO call each of them makes.
// Every name, size and peer is checked here, before the run, with the JSON path of what is wrong.

#include "nodes/cclo/Cclo.hpp"
#include "workloads/program/ProgramConfig.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace nafsim::workloads {

struct PlannedOp {
  ProgramOpKind kind = ProgramOpKind::Barrier;
  std::size_t index  = 0;     ///< in the op list
  std::size_t comm   = 0;     ///< communicator (0: world)
  int src = -1, dst = -1;     ///< buffers (-1: none)
  std::uint64_t src_off = 0, dst_off = 0; ///< where in them, in elements
  std::uint64_t count = 0;    ///< elements per rank as ACCL counts them
  std::vector<unsigned> runs; ///< the program ranks that run it
  std::vector<int> peer;      ///< send / recv: the peer of each program rank (-1: not run there)
  std::string name;           ///< shown in program_ops.csv (a trace node's name and id)
  /// Explicit dependencies, per rank that runs it (aligned with `runs`; none given: each rank's previous
  /// operation). An empty list with deps_given: it starts at once.
  bool deps_given = false;
  std::vector<std::vector<std::size_t>> after;
  /// For an operation of one rank: the lane of that rank it runs on (the rank's operations of one lane run one at
  /// a time, the lowest index first, as a GPU stream runs its kernels); -1: none.
  std::int64_t lane = -1;
  /// Per rank that runs it (aligned with `runs`): the bytes stream_put must have delivered to its source stream
  /// before it starts (a kernel reading its stream waits for the data); empty: none.
  std::vector<std::uint64_t> stream_wait;
};

struct ProgramPlan {
  ProgramConfig cfg;
  std::vector<std::vector<unsigned>> comms;   ///< members of each communicator (program ranks)
  std::vector<std::string> comm_names;
  std::vector<std::uint64_t> buffer_addr;     ///< device address of each buffer (the same on every rank)
  std::vector<int> stream_ids;                ///< kernel stream id of each buffer (-1: not a stream)
  std::vector<PlannedOp> ops;
  /// Of the operations a rank finds ready at one instant, start its receives after the others (a trace's with eager
  /// sends, whose list order is no one's: ASTRA-sim posts a receive without taking the rank's communication slot,
  /// and an eager receive holds the CCLO's call FIFO until its data comes; a rendezvous receive goes to the retry
  /// queue at once, and called last behind a collective it could deadlock, so traces with blocking sends keep their
  /// order). A program keeps its list order.
  bool receives_last = false;
  /// MPI engine: a compute phase by work on every core holds its rank's MPI progress (the rank's own thread
  /// computes; Program::execute). A trace replay's compute nodes are a GPU's kernels, which hold nothing.
  bool holds_mpi_progress = true;
  /// Added to a send's or receive's tag on the CCLO (a trace's: 1). A trace's point-to-point messages are matched
  /// apart from its collectives (ASTRA-sim runs them by different mechanisms), while the CCLO numbers a peer's eager
  /// messages in call order per tag: sharing the collectives' tag 0, a receive and a collective with the same peer
  /// called in different orders on the two ranks took each other's messages. ASSUMPTION: the ACCL program such a
  /// replay stands for gives its point-to-point traffic a tag (or a communicator) of its own.
  std::uint32_t p2p_tag_base = 0;

  /// Resolve `cfg` (throws config::ConfigError with /workload/... paths).
  static ProgramPlan resolve(const ProgramConfig& cfg);
  /// How check_messages names an operation in its errors: a program's by its /workload/ops path and counts in
  /// elements (the default); a trace's by its file and node, and counts in bytes.
  struct OpPlaces {
    /// The error at operation `op` (as rank `rank` runs it), field `field` ("count" or "").
    std::function<config::ConfigError(std::size_t op, unsigned rank, const std::string& field,
                                      const std::string& msg)>
        error;
    std::function<std::string(std::size_t op, unsigned rank)> name; ///< e.g. "ops/3"
    unsigned unit_bytes = 0; ///< counts said in bytes of this many per element (0: in elements)
  };
  /// A send no receive takes: the operation, its sender and receiver (program ranks), tag and count.
  struct Unmatched {
    std::size_t op = 0;
    unsigned from = 0, to = 0;
    std::uint32_t tag   = 0;
    std::uint64_t count = 0;
  };
  /// Every receive matched to the send it takes (in list order per sender, receiver and tag), with the same count;
  /// returns the sends left over (no receive takes them).
  std::vector<Unmatched> check_messages(const OpPlaces& places) const;
  std::vector<Unmatched> check_messages() const;
  /// A receive and the send whose message it takes (operation indices, program ranks).
  struct Message {
    std::size_t send = 0, recv = 0;
    unsigned from = 0, to = 0;
  };
  /// Every receive with the send it takes, as check_messages matches them.
  std::vector<Message> messages() const;
  /// The rank of program rank `r` in communicator `comm` (-1: not a member).
  int rank_in(std::size_t comm, unsigned r) const;
  /// The collective call program rank `r` makes for `o` (not for compute).
  coll::CollectiveCall call(const PlannedOp& o, unsigned r) const;
  /// Where buffer `buf` lives (-1, none: device).
  nodes::DataLocation location(int buf) const;
  /// The address of element `offset` of buffer `buf` (-1: none, the CCLO's user base).
  std::uint64_t operand_addr(int buf, std::uint64_t offset) const;
  /// As a CCLO call on the FPGAs `hosts` (program rank -> host).
  nodes::CcloCall cclo_call(const PlannedOp& o, unsigned r, const std::vector<net::HostId>& hosts) const;
};

/// The collective a program operation runs (Nop for compute).
coll::Collective collective_of(ProgramOpKind k);
/// A collective on a communicator (every member takes part), not a rank's own operation.
bool is_collective(ProgramOpKind k);
/// Between two ranks: send, recv, stream_put.
bool is_p2p(ProgramOpKind k);
/// On the rank's own buffers: copy, combine (a CCLO call on the FPGA; on the MPI engine the CPU's own loop).
bool is_local(ProgramOpKind k);
/// Whether the op is the rank computing, as program_ranks.csv counts it: a compute phase, or on the MPI engine a
/// local op (the CPU's loop, no call; on the CCLO a local op is a call).
bool counts_as_compute(ProgramEngine engine, ProgramOpKind k);
/// Whether it reads a source buffer (`src`) and writes a result buffer (`dst`).
bool reads_buffer(ProgramOpKind k);
bool writes_buffer(ProgramOpKind k);

} // namespace nafsim::workloads
