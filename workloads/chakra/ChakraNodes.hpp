#pragma once
// What one Chakra node becomes in nafsim (shared by the whole-trace loader, ChakraTrace.cpp, and the streamed
// replay, ChakraStream.cpp): its operation kind, bytes, peer, tag, communicator, duration or work; the attributes
// read in whichever integer kind the writer chose; the communicators of comm_groups and of METADATA nodes.

#include "chakra.pb.h"
#include "simcore/config/ConfigError.hpp"
#include "workloads/chakra/ChakraConfig.hpp"
#include "workloads/program/ProgramPlan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nafsim::workloads::chakra {

/// What a trace's send or receive adds to its tag on the CCLO, apart from the collectives' tag 0
/// (ProgramPlan::p2p_tag_base: why).
inline constexpr std::uint32_t kP2pTagBase = 1;

namespace pb = ChakraProtoMsg;

std::string rank_file(const std::string& prefix, unsigned r);
const pb::AttributeProto* attr(const pb::Node& n, std::string_view name);
/// An integer attribute in whichever integer kind the writer chose.
std::optional<std::int64_t> int_attr(const pb::Node& n, std::string_view name);

/// One rank's node as the program sees it.
struct Local {
  const pb::Node* node = nullptr;
  ProgramOpKind kind   = ProgramOpKind::Wait;
  std::size_t comm = 0;      ///< collectives
  std::uint64_t bytes = 0;
  int peer = -1;             ///< send / recv
  std::uint32_t tag = 0;
  SimTime duration;
  double ops = 0;          ///< compute nodes' work, modeled
  std::uint64_t touched = 0;
  std::vector<std::size_t> deps; ///< indices of this rank's Locals
  /// Compute and memory nodes: the rank's lane they run on one at a time (compute_order; lane_key), -1 none.
  std::int64_t lane = -1;
  std::size_t op = SIZE_MAX;     ///< the program operation it becomes
  /// Collectives: comm_size as given, before a reduce-scatter's or all-to-all's share is taken of it (rounded up, the
  /// shares of unequal sizes may be equal: the members are compared on this).
  std::uint64_t given = 0;
};

struct Ctx {
  const ChakraConfig& cfg;
  unsigned ranks;
  std::vector<std::vector<unsigned>> comms{};
  std::vector<std::string> comm_names{};
  mutable ChakraRepairs repairs{}; ///< what was repaired so far (strict false)
  std::string file(unsigned r) const { return rank_file(cfg.trace, r); }
};

/// An attribute holding a whole number (any integer kind, or a double with a whole value), or nullopt when absent;
/// another kind (a text, a bool, a fraction, a list) is a node_error naming it (a text tag was read as tag 0).
std::optional<std::int64_t> whole_attr(const Ctx& c, unsigned r, const pb::Node& n, const char* name);

/// Why members' collectives of one call with different comm_sizes cannot run.
inline constexpr const char* kOneSizePerMember =
    "a collective moves one size on every member (the CCLO's and MPI's calls take one count; an all-to-all of uneven "
    "splits, as all_to_all_single with split sizes records, is not modelled)";
/// The k-th collective of `group`, of `kind`, whose comm_size here (`here`) differs from `there` (node `there_id` on
/// rank `there_rank`).
std::string uneven_sizes(std::size_t k, const std::string& group, ProgramOpKind kind, std::int64_t here,
                         std::int64_t there, std::uint64_t there_id, unsigned there_rank);
/// An error naming rank r's file, the node (id and name) and the field.
config::ConfigError node_error(const Ctx& c, unsigned r, const pb::Node& n, const std::string& field,
                               const std::string& msg);

/// The world and the groups of cfg.comm_groups.
void read_groups(Ctx& c);
/// Communicators a METADATA_NODE declares: its inputs.values a JSON list of {"pg_name": id, "ranks": [...]} (empty
/// ranks: every rank), as PyTorch's converter writes them. Other metadata is ignored; a group given twice with
/// other ranks is an error.
void read_metadata_groups(Ctx& c, unsigned r, const pb::Node& n);
/// What rank r's node `n` is (errors name the file, the node and the field).
Local local_of(const Ctx& c, unsigned r, const pb::Node& n);
/// How many rank files the trace has (cfg.ranks, else the files present).
unsigned count_ranks(const ChakraConfig& cfg);

/// A defect Chakra's converter commonly writes: with strict, an error naming the file, the node and the field
/// (`problem`); else counted in `counter` and repaired by the caller as `repair` says.
void repair(const Ctx& c, unsigned r, const pb::Node& n, const std::string& field, const std::string& problem,
            const std::string& fix, std::uint64_t ChakraRepairs::*counter);
/// The collective a node's name names, as Chakra's converter types it (`_` and `-` removed, lower case, the first
/// of allreduce, alltoall, allgather, reducescatter, broadcast it contains; a SendRecv kernel is an all-to-all) and,
/// beyond the converter, barrier, reduce, gather, scatter, bcast; nothing if none.
std::optional<pb::CollectiveCommType> comm_type_from_name(std::string_view name);
/// A CPU operator (is_cpu_op true), not a GPU node (false or absent, as the feeders default it).
bool is_cpu_op(const pb::Node& n);
/// The lane a compute or memory node runs on under `order`: (0, tid) for a CPU operator, (1, stream) for a GPU node
/// (absent attributes: 0, as Chakra's parser defaults the stream); astra-sim: (0, 0) or (1, 0); nothing for other
/// nodes and for `dependencies`.
std::optional<std::pair<int, std::int64_t>> lane_key(ChakraComputeOrder order, const pb::Node& n);

/// The summary's line on a trace's sends that no receive takes (`n` of them, the first described).
std::string unmatched_sends_line(std::uint64_t n, const std::string& first);

} // namespace nafsim::workloads::chakra
