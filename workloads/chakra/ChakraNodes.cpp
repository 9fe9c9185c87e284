#include "workloads/chakra/ChakraNodes.hpp"

#include "simcore/config/JsonDoc.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

namespace nafsim::workloads::chakra {

namespace {
ProgramOpKind collective_kind(const Ctx& c, unsigned r, const pb::Node& n)
{
  auto t = int_attr(n, "comm_type");
  if (auto const* a = attr(n, "comm_type")) {
    if (a->value_case() == pb::AttributeProto::kBoolVal)
      t.reset(); // (int_attr reads a bool as 0 or 1: not a type)
    if (!t) { // its name (ALL_REDUCE, ...), or another kind: an error
      pb::CollectiveCommType v{};
      if (a->value_case() != pb::AttributeProto::kStringVal || !pb::CollectiveCommType_Parse(a->string_val(), &v))
        throw node_error(c, r, n, "comm_type",
                         "a collective's type is a CollectiveCommType: its number (0-9) or its name (ALL_REDUCE, ...)");
      t = v;
    }
  }
  if (!t) {
    // Chakra's converter types a collective by its kernel's name; a node that lost its comm_type is typed the same
    // way, or, when its name names no collective, skipped (it takes no time; its dependents still wait for it).
    if (auto named = comm_type_from_name(n.name())) {
      repair(c, r, n, "comm_type", "a COMM_COLL_NODE without its comm_type attribute",
             fmt::format("typed {} from its name, as Chakra's converter types collectives",
                         pb::CollectiveCommType_Name(*named)),
             &ChakraRepairs::comm_type_from_name);
      t = *named;
    } else {
      repair(c, r, n, "comm_type",
             "a COMM_COLL_NODE without its comm_type attribute, and its name names no collective (allreduce, "
             "alltoall, allgather, reducescatter, broadcast, barrier, reduce, gather, scatter)",
             "skipped: it moves nothing and takes no time", &ChakraRepairs::collectives_skipped);
      return ProgramOpKind::Wait;
    }
  }
  switch (*t) {
    case pb::ALL_REDUCE: return ProgramOpKind::AllReduce;
    case pb::REDUCE: return ProgramOpKind::Reduce;
    case pb::ALL_GATHER: return ProgramOpKind::AllGather;
    case pb::GATHER: return ProgramOpKind::Gather;
    case pb::SCATTER: return ProgramOpKind::Scatter;
    case pb::BROADCAST: return ProgramOpKind::Bcast;
    case pb::ALL_TO_ALL: return ProgramOpKind::AllToAll;
    case pb::REDUCE_SCATTER:
    case pb::REDUCE_SCATTER_BLOCK: return ProgramOpKind::ReduceScatter;
    case pb::BARRIER: return ProgramOpKind::Barrier;
    default: break;
  }
  throw node_error(c, r, n, "comm_type", fmt::format("unknown collective type {} (0-9 are Chakra's)", *t));
}

} // namespace

std::string rank_file(const std::string& prefix, unsigned r)
{
  return fmt::format("{}.{}.et", prefix, r);
}

const pb::AttributeProto* attr(const pb::Node& n, std::string_view name)
{
  for (auto const& a : n.attr())
    if (a.name() == name)
      return &a;
  return nullptr;
}

/// An integer attribute in whichever integer kind the writer chose.
std::optional<std::int64_t> int_attr(const pb::Node& n, std::string_view name)
{
  const pb::AttributeProto* a = attr(n, name);
  if (!a)
    return std::nullopt;
  using V = pb::AttributeProto;
  switch (a->value_case()) {
    case V::kInt32Val: return a->int32_val();
    case V::kInt64Val: return a->int64_val();
    case V::kUint32Val: return a->uint32_val();
    case V::kUint64Val: return static_cast<std::int64_t>(a->uint64_val());
    case V::kSint32Val: return a->sint32_val();
    case V::kSint64Val: return a->sint64_val();
    case V::kFixed32Val: return a->fixed32_val();
    case V::kFixed64Val: return static_cast<std::int64_t>(a->fixed64_val());
    case V::kSfixed32Val: return a->sfixed32_val();
    case V::kSfixed64Val: return a->sfixed64_val();
    case V::kBoolVal: return a->bool_val() ? 1 : 0;
    default: return std::nullopt;
  }
}

config::ConfigError node_error(const Ctx& c, unsigned r, const pb::Node& n, const std::string& field,
                               const std::string& msg)
{
  return config::ConfigError(c.file(r), fmt::format("node {} ('{}'){}", n.id(), n.name(), field.empty() ? "" : ", " + field),
                             msg);
}

std::optional<std::int64_t> whole_attr(const Ctx& c, unsigned r, const pb::Node& n, const char* name)
{
  const pb::AttributeProto* a = attr(n, name);
  if (!a)
    return std::nullopt;
  using V = pb::AttributeProto;
  if (a->value_case() == V::kDoubleVal || a->value_case() == V::kFloatVal) {
    const double d = a->value_case() == V::kDoubleVal ? a->double_val() : a->float_val();
    if (d == std::floor(d) && std::abs(d) < 9.2e18)
      return static_cast<std::int64_t>(d);
  } else if (a->value_case() != V::kBoolVal && a->value_case() != V::kStringVal) {
    if (auto v = int_attr(n, name))
      return v;
  }
  throw node_error(c, r, n, name,
                   fmt::format("{} holds {}: give a whole number (an integer attribute)", name,
                               a->value_case() == V::kStringVal ? fmt::format("the text \"{}\"", a->string_val())
                               : a->value_case() == V::kBoolVal ? std::string("a bool")
                               : a->value_case() == V::kDoubleVal || a->value_case() == V::kFloatVal
                                   ? std::string("a number that is not whole")
                                   : std::string("a list or another kind")));
}

std::string uneven_sizes(std::size_t k, const std::string& group, ProgramOpKind kind, std::int64_t here,
                         std::int64_t there, std::uint64_t there_id, unsigned there_rank)
{
  return fmt::format("collective {} of group '{}', {}, has comm_size {} here but {} on rank {} (node {}): {}", k + 1,
                     group, config::enum_name(kind), here, there, there_rank, there_id, kOneSizePerMember);
}

void read_groups(Ctx& c)
{
  std::vector<unsigned> world(c.ranks);
  for (unsigned r = 0; r < c.ranks; ++r)
    world[r] = r;
  c.comms.push_back(world);
  c.comm_names.push_back("world");
  if (c.cfg.comm_groups.empty())
    return;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(c.cfg.comm_groups, ec))
    throw config::ConfigError(c.cfg.comm_groups, "",
                              std::filesystem::is_directory(c.cfg.comm_groups, ec)
                                  ? "is a folder: workload.comm_groups names the communicator groups' JSON file"
                                  : "cannot open the communicator groups file (workload.comm_groups)");
  // (repeated keys and numbers beyond a double refused, as in a scenario file)
  const config::Json j = config::load_json_file(c.cfg.comm_groups);
  if (!j.is_object())
    throw config::ConfigError(c.cfg.comm_groups, "", "expected an object {\"<group id>\": [rank, ...], ...}");
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::vector<unsigned> m;
    if (!it.value().is_array())
      throw config::ConfigError(c.cfg.comm_groups, "/" + it.key(), "expected a list of ranks");
    for (auto const& v : it.value()) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= c.ranks)
        throw config::ConfigError(c.cfg.comm_groups, "/" + it.key(),
                                  fmt::format("{} is not one of the trace's {} ranks", v.dump(), c.ranks));
      if (std::find(m.begin(), m.end(), v.get<unsigned>()) != m.end())
        throw config::ConfigError(c.cfg.comm_groups, "/" + it.key(),
                                  fmt::format("rank {} is listed twice: a group lists each member once", v.dump()));
      m.push_back(v.get<unsigned>());
    }
    c.comms.push_back(m.empty() ? world : m);
    c.comm_names.push_back(it.key());
  }
}

namespace {

/// Every {"pg_name": ...} object in `j`, through nested lists and through strings that hold JSON (Chakra's converter
/// keeps PyTorch's recorded input, itself a JSON string, inside a list).
void collect_groups(const nlohmann::json& j, std::vector<nlohmann::json>& out, int depth = 0)
{
  if (depth > 4)
    return;
  if (j.is_object() && j.contains("pg_name")) {
    out.push_back(j);
  } else if (j.is_array()) {
    for (auto const& e : j)
      collect_groups(e, out, depth + 1);
  } else if (j.is_string()) {
    auto inner = nlohmann::json::parse(j.get<std::string>(), nullptr, false);
    if (!inner.is_discarded())
      collect_groups(inner, out, depth + 1);
  }
}

/// A METADATA node's inputs.values as JSON: as written, or as Chakra's converter writes it, Python's str() of the
/// recorded inputs (a list of one string in single quotes: ['[{"pg_name": "0", ...}]']).
nlohmann::json metadata_values(const std::string& v)
{
  auto j = nlohmann::json::parse(v, nullptr, false);
  if (!j.is_discarded())
    return j;
  if (v.size() < 4 || v.compare(0, 2, "['") != 0 || v.compare(v.size() - 2, 2, "']") != 0)
    return j;
  std::string s; // the Python string literal's text, its \' and \\ escapes undone
  for (std::size_t i = 2; i + 2 < v.size(); ++i) {
    if (v[i] == '\\' && i + 3 < v.size() && (v[i + 1] == '\'' || v[i + 1] == '\\'))
      ++i;
    s += v[i];
  }
  return nlohmann::json::array({s});
}

} // namespace

void read_metadata_groups(Ctx& c, unsigned r, const pb::Node& n)
{
  if (n.type() != pb::METADATA_NODE || !n.has_inputs())
    return;
  std::vector<nlohmann::json> groups;
  collect_groups(metadata_values(n.inputs().values()), groups);
  for (auto const& g : groups) {
    auto const& name = g["pg_name"];
    auto const& rs   = g.contains("ranks") ? g["ranks"] : nlohmann::json::array();
    if (!name.is_string() || !rs.is_array())
      throw node_error(c, r, n, "inputs.values", "a process group needs a string pg_name and a list of ranks");
    std::vector<unsigned> m;
    for (auto const& v : rs) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= c.ranks)
        throw node_error(c, r, n, "inputs.values",
                         fmt::format("group '{}': {} is not one of the trace's {} ranks", name.get<std::string>(),
                                     v.dump(), c.ranks));
      if (std::find(m.begin(), m.end(), v.get<unsigned>()) != m.end())
        throw node_error(c, r, n, "inputs.values",
                         fmt::format("group '{}': rank {} is listed twice (a group lists each member once)",
                                     name.get<std::string>(), v.dump()));
      m.push_back(v.get<unsigned>());
    }
    if (m.empty())
      m = c.comms[0];
    auto it = std::find(c.comm_names.begin(), c.comm_names.end(), name.get<std::string>());
    if (it == c.comm_names.end()) {
      c.comm_names.push_back(name.get<std::string>());
      c.comms.push_back(std::move(m));
    } else if (c.comms[static_cast<std::size_t>(it - c.comm_names.begin())] != m) {
      throw node_error(c, r, n, "inputs.values",
                       fmt::format("group '{}' is declared elsewhere (comm_groups or another rank's metadata) with "
                                   "other ranks",
                                   name.get<std::string>()));
    }
  }
}

namespace {
// The peer rank a send (`comm_dst`) or receive (`comm_src`) names, or, without it, the other rank of its two-rank
// process group (pg_name), as Chakra's PyTorch converter leaves it.
std::string group_of(const Ctx& c, unsigned r, const pb::Node& n);

/// The communicator a pg_name names: a declared group; else group "0", PyTorch's default process group, is every
/// rank, as ASTRA-sim takes it (Workload::extract_comm_group: "" and "0" are the default group of all ranks).
std::optional<std::size_t> find_comm(const Ctx& c, const std::string& group)
{
  auto it = std::find(c.comm_names.begin(), c.comm_names.end(), group);
  if (it != c.comm_names.end())
    return static_cast<std::size_t>(it - c.comm_names.begin());
  if (group == "0")
    return 0; // (the world)
  return std::nullopt;
}

int peer_of(const Ctx& c, unsigned r, const pb::Node& n, const char* key)
{
  auto p = whole_attr(c, r, n, key);
  if (!p) {
    // Chakra's PyTorch converter writes a send's or receive's comm_size and pg_name, never its peer
    // (semantics.md section 2): on a process group of two ranks the peer is the other one.
    auto const* pg          = attr(n, "pg_name");
    const std::string group = pg ? group_of(c, r, n) : std::string(); // (a string, or an integer group id)
    const auto comm = find_comm(c, group);
    if (pg && !group.empty() && comm) {
      auto const& m = c.comms[*comm];
      if (m.size() == 2 && (m[0] == r || m[1] == r))
        return static_cast<int>(m[0] == r ? m[1] : m[0]);
      throw node_error(c, r, n, key,
                       fmt::format("no {}, as Chakra's PyTorch converter writes sends and receives: nafsim pairs "
                                   "them only on a process group of two ranks, and group '{}' has {} ranks{}; give "
                                   "{} (the peer's rank)",
                                   key, group, m.size(),
                                   std::find(m.begin(), m.end(), r) == m.end() ? fmt::format(" without rank {}", r)
                                                                               : "",
                                   key));
    }
    throw node_error(c, r, n, key,
                     fmt::format("no {} and no pg_name of a two-rank process group: the peer cannot be told; give "
                                 "{} (the peer's rank){}",
                                 key, key,
                                 pg && !group.empty()
                                     ? fmt::format(", or declare group '{}' (workload.comm_groups)", group)
                                     : ""));
  }
  if (*p < 0 || *p >= static_cast<std::int64_t>(c.ranks) || *p == static_cast<std::int64_t>(r))
    throw node_error(c, r, n, key, fmt::format("the peer must be another of the trace's {} ranks", c.ranks));
  return static_cast<int>(*p);
}

/// A compute node's time: its recorded duration (compute: replay), or its work (num_ops, tensor_size) through the
/// engine's compute model (model; a node with no work to model replays its duration, counted).
void compute_work(const Ctx& c, unsigned r, const pb::Node& n, Local& l)
{
  auto replay = [&] {
    l.kind     = ProgramOpKind::Compute;
    l.duration = SimTime::us(static_cast<double>(n.duration_micros()));
  };
  // A CPU operator replays its duration under either mode (ASTRA-sim's workload layer: "comp node on cpu ... should
  // run with replay", issue_replay); only the accelerator's nodes have their work modelled.
  if (c.cfg.compute == ChakraCompute::Replay || is_cpu_op(n)) {
    if (n.duration_micros() > 0)
      replay();
    return;
  }
  auto work = [&](const char* key) {
    auto v = whole_attr(c, r, n, key);
    if (v && *v < 0)
      throw node_error(c, r, n, key, "a compute node's work must not be negative");
    return static_cast<std::uint64_t>(v.value_or(0));
  };
  l.ops     = static_cast<double>(work("num_ops"));
  l.touched = work("tensor_size");
  if (l.ops > 0 || l.touched > 0) {
    l.kind = ProgramOpKind::Compute;
  } else if (n.duration_micros() > 0) { // nothing to model: what it took, replayed
    replay();
    ++c.repairs.durations_replayed;
  }
}

/// Device-memory traffic: its recorded duration when replaying one, else its bytes (tensor_size) streamed through
/// the engine's compute model's memory (HBM on the FPGA, DRAM on the host; without bytes, its duration, counted).
void memory_work(const Ctx& c, unsigned r, const pb::Node& n, Local& l)
{
  auto bytes = whole_attr(c, r, n, "tensor_size");
  if (bytes && *bytes < 0)
    throw node_error(c, r, n, "tensor_size", "a memory node's bytes must not be negative");
  const bool replay = c.cfg.compute == ChakraCompute::Replay;
  if (bytes && *bytes > 0 && !(replay && n.duration_micros() > 0)) {
    l.kind    = ProgramOpKind::Compute;
    l.touched = static_cast<std::uint64_t>(*bytes);
  } else if (n.duration_micros() > 0) { // replayed; under model only when it has no bytes to model (counted)
    l.kind     = ProgramOpKind::Compute;
    l.duration = SimTime::us(static_cast<double>(n.duration_micros()));
    c.repairs.durations_replayed += replay ? 0 : 1;
  }
}

/// A collective's process group (pg_name: a string, or an integer group id as some generators write it; "": every
/// rank). One spanning only some of ASTRA-sim's network dimensions (involved_dim / involve_dims, a bool list) without
/// a group is refused: nafsim's topologies have no dimensions to map it to.
std::string group_of(const Ctx& c, unsigned r, const pb::Node& n)
{
  std::string group;
  if (auto const* pg = attr(n, "pg_name")) {
    if (pg->value_case() == pb::AttributeProto::kStringVal)
      group = pg->string_val();
    else if (auto id = int_attr(n, "pg_name"); id && pg->value_case() != pb::AttributeProto::kBoolVal)
      group = std::to_string(*id);
    else
      throw node_error(c, r, n, "pg_name", "a process group is named by a string (or an integer id), not this kind");
  }
  // ASTRA-sim reads the dimensions where the node names no group of its own: no pg_name, or "0", the default group
  // (Workload::extract_comm_group gives none for "" and "0", and issue_coll_comm passes involved_dim on).
  const bool world = group.empty() || group == "0";
  for (const char* key : {"involved_dim", "involve_dims"}) {
    auto const* d = attr(n, key);
    if (!d)
      continue;
    if (d->value_case() != pb::AttributeProto::kBoolList)
      throw node_error(c, r, n, key,
                       "the network dimensions a collective spans are a bool list (one per dimension), as ASTRA-sim "
                       "reads them (it stops on anything else: \"Expected bool_list in involved_dim\")");
    if (!world)
      continue;
    auto const& v = d->bool_list().values();
    if (std::find(v.begin(), v.end(), false) == v.end())
      continue;
    std::string dims;
    for (bool b : v)
      dims += fmt::format("{}{}", dims.empty() ? "" : ", ", b ? "true" : "false");
    throw node_error(c, r, n, key,
                     fmt::format("the collective spans only some of ASTRA-sim's network dimensions ([{}]); nafsim's "
                                 "topologies have no dimensions to map them to: name the ranks it spans as a "
                                 "communicator (a pg_name other than \"0\", the default group of every rank, with "
                                 "workload.comm_groups)",
                                 dims));
  }
  return group;
}

/// A COMM_COLL_NODE: its type, bytes as its producers mean them, its communicator, and what the engines make of it.
template <class Size> void collective_work(const Ctx& c, unsigned r, const pb::Node& n, Local& l, Size size)
{
  l.kind = collective_kind(c, r, n);
  if (l.kind == ProgramOpKind::Wait)
    return; // a collective of no known type, skipped (repaired)
  l.bytes = l.kind == ProgramOpKind::Barrier ? 0 : size();
  const std::string group = group_of(c, r, n);
  if (!group.empty()) {
    const auto comm = find_comm(c, group);
    if (!comm)
      throw node_error(c, r, n, "pg_name",
                       fmt::format("no communicator group '{}': declare it in the trace's process-group metadata "
                                   "node or in workload.comm_groups ({{\"{}\": [rank, ...]}})",
                                   group, group));
    l.comm = *comm;
  }
  auto const& m = c.comms[l.comm];
  if (std::find(m.begin(), m.end(), r) == m.end())
    throw node_error(c, r, n, "pg_name", fmt::format("rank {} is not a member of group '{}'", r,
                                                     c.comm_names[l.comm]));
  // comm_size as the producers mean it (README.md): a reduce-scatter's and an all-to-all's is the rank's whole
  // input (ASTRA-sim's Ring.cc: msg = size / N; Chakra's PyTorch converter counts the input tensors), of which
  // each rank keeps, or each peer gets, 1/N: the CCLO's per-rank count is that share. Other types: as given.
  // A comm_size that is no multiple of the group's size has its share rounded up, so that no byte is lost and a
  // comm_size below the group's size still moves one (ASTRA-sim pads such a collective to whole chunks and runs
  // every step; rounded down, 3 bytes over 4 ranks had been a collective of 0 bytes, done at once): counted, said.
  l.given = l.bytes;
  if (l.kind == ProgramOpKind::ReduceScatter || l.kind == ProgramOpKind::AllToAll) {
    const std::uint64_t members = m.size();
    if (l.bytes % members != 0)
      ++c.repairs.uneven_shares;
    l.bytes = (l.bytes + members - 1) / members;
  }
  // ACCL's driver makes no call for a collective of count 0 (accl.cpp: "zero size buffer"), so the replay on the
  // CCLOs makes none (from a kernel the firmware's eager reduce ring would hang on it): done at once, counted.
  if (l.bytes == 0 && l.kind != ProgramOpKind::Barrier && c.cfg.engine == ProgramEngine::Cclo) {
    ++c.repairs.empty_collectives;
    l.kind = ProgramOpKind::Wait;
  }
  // An all-gather on a group of one member (PyTorch records such a group for a parallelism of one) copies the
  // rank's shard to its output when it is out of place, as NCCL does on one rank (README.md: the ASSUMPTION, and
  // what an in-place call and ASTRA-sim do). The firmware has no one-rank allgather (CallPlan.cpp), so the replay
  // on the CCLOs runs the CCLO's copy.
  if (l.kind == ProgramOpKind::AllGather && m.size() == 1 && c.cfg.engine == ProgramEngine::Cclo) {
    ++c.repairs.one_member_allgathers;
    l.kind = ProgramOpKind::Copy;
  } else if (m.size() == 1 && l.kind != ProgramOpKind::Wait && l.kind != ProgramOpKind::Barrier) {
    ++c.repairs.one_member_collectives;
  }
  // ASTRA-sim schedules a collective by its priority; the replay runs collectives in its ranks' order: said, not
  // dropped unsaid. (involved_dim is read: group_of.)
  if (attr(n, "comm_priority"))
    ++c.repairs.unread_attributes["comm_priority"];
}

} // namespace

Local local_of(const Ctx& c, unsigned r, const pb::Node& n)
{
  Local l;
  l.node = &n;
  l.kind = ProgramOpKind::Wait;
  auto size = [&] {
    auto s = whole_attr(c, r, n, "comm_size");
    if (!s || *s < 0)
      throw node_error(c, r, n, "comm_size", "a communication node needs a non-negative comm_size (bytes)");
    return static_cast<std::uint64_t>(*s);
  };
  switch (n.type()) {
    case pb::COMP_NODE: compute_work(c, r, n, l); break;
    case pb::COMM_SEND_NODE:
    case pb::COMM_RECV_NODE: {
      const bool send = n.type() == pb::COMM_SEND_NODE;
      l.kind          = send ? ProgramOpKind::Send : ProgramOpKind::Recv;
      l.peer          = peer_of(c, r, n, send ? "comm_dst" : "comm_src");
      // A send is issued by its sender and a receive by its receiver (ASTRA-sim's issue_send_comm and
      // issue_recv_comm refuse a node whose own end names another rank).
      if (auto own = whole_attr(c, r, n, send ? "comm_src" : "comm_dst"); own && *own != static_cast<std::int64_t>(r))
        throw node_error(c, r, n, send ? "comm_src" : "comm_dst",
                         fmt::format("a {} on rank {}'s trace names rank {} as its {}: a {} is issued by its {} (as "
                                     "ASTRA-sim requires); give the peer in {} and this rank, or nothing, in {}",
                                     send ? "send" : "receive", r, *own, send ? "sender" : "receiver",
                                     send ? "send" : "receive", send ? "sender" : "receiver",
                                     send ? "comm_dst" : "comm_src", send ? "comm_src" : "comm_dst"));
      l.bytes         = size();
      const std::int64_t tag = whole_attr(c, r, n, "comm_tag").value_or(0);
      if (tag < 0 || tag >= std::int64_t{0xFFFFFFFF})
        throw node_error(c, r, n, "comm_tag", "a tag is a number from 0 to 4294967294");
      l.tag = static_cast<std::uint32_t>(tag);
      break;
    }
    case pb::COMM_COLL_NODE: collective_work(c, r, n, l, size); break;
    case pb::MEM_LOAD_NODE:
    case pb::MEM_STORE_NODE: memory_work(c, r, n, l); break;
    case pb::METADATA_NODE: break; // communicators: read_metadata_groups
    case pb::INVALID_NODE: // ASTRA-sim marks it done and goes on (Workload::issue: skip_invalid)
      repair(c, r, n, "type", "an INVALID_NODE (type 0, also what a node whose type was never set decodes to)",
             "skipped, as ASTRA-sim skips it: it takes no time; its dependents still wait for it",
             &ChakraRepairs::invalid_nodes);
      l.kind = ProgramOpKind::Wait;
      break;
    default:
      throw node_error(c, r, n, "type",
                       fmt::format("node type {} is not one of Chakra's node types (1-7 and 0, INVALID_NODE): the "
                                   "file is not a Chakra trace of this schema, or was written by a newer one",
                                   static_cast<int>(n.type())));
  }
  return l;
}

unsigned count_ranks(const ChakraConfig& cfg)
{
  if (cfg.trace.empty())
    throw config::ConfigError("", "/workload/trace", "give the trace's path prefix (files <trace>.<rank>.et)");
  if (cfg.replicate && cfg.ranks == 0)
    throw config::ConfigError("", "/workload/ranks", "replicate copies rank 0's file to `ranks` ranks: give ranks");
  if (cfg.ranks > 0)
    return cfg.ranks;
  unsigned n = 0;
  while (n < 65536 && std::filesystem::exists(rank_file(cfg.trace, n)))
    ++n;
  if (n == 0)
    throw config::ConfigError("", "/workload/trace",
                              fmt::format("no file {}: a trace is <trace>.<rank>.et, from rank 0", rank_file(cfg.trace, 0)));
  return n;
}

void repair(const Ctx& c, unsigned r, const pb::Node& n, const std::string& field, const std::string& problem,
            const std::string& fix, std::uint64_t ChakraRepairs::*counter)
{
  if (c.cfg.strict)
    throw node_error(c, r, n, field,
                     fmt::format("{} (workload.strict is true; with false, the default, nafsim repairs it as Chakra's "
                                 "converter output needs: {}, counted in the summary)",
                                 problem, fix));
  ++(c.repairs.*counter);
}

std::optional<pb::CollectiveCommType> comm_type_from_name(std::string_view name)
{
  std::string s;
  for (char ch : name)
    if (ch != '_' && ch != '-')
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  // Chakra's converter's list, in its order (pytorch_converter.py get_collective_comm_type), then the rest of the
  // types by the names c10d and NCCL give them, the longer names first (allreduce before reduce).
  static constexpr std::pair<std::string_view, pb::CollectiveCommType> names[] = {
      {"allreduce", pb::ALL_REDUCE},     {"alltoall", pb::ALL_TO_ALL}, {"allgather", pb::ALL_GATHER},
      {"reducescatter", pb::REDUCE_SCATTER}, {"broadcast", pb::BROADCAST}, {"sendrecv", pb::ALL_TO_ALL},
      {"barrier", pb::BARRIER},          {"reduce", pb::REDUCE},       {"gather", pb::GATHER},
      {"scatter", pb::SCATTER},          {"bcast", pb::BROADCAST}};
  for (auto const& [key, type] : names)
    if (s.find(key) != std::string::npos)
      return type;
  return std::nullopt;
}

bool is_cpu_op(const pb::Node& n)
{
  return int_attr(n, "is_cpu_op").value_or(0) != 0;
}

std::optional<std::pair<int, std::int64_t>> lane_key(ChakraComputeOrder order, const pb::Node& n)
{
  const bool runs = n.type() == pb::COMP_NODE || n.type() == pb::MEM_LOAD_NODE || n.type() == pb::MEM_STORE_NODE;
  if (!runs || order == ChakraComputeOrder::Dependencies)
    return std::nullopt;
  const bool cpu = is_cpu_op(n);
  if (order == ChakraComputeOrder::AstraSim)
    return std::pair{cpu ? 0 : 1, std::int64_t{0}};
  return std::pair{cpu ? 0 : 1, int_attr(n, cpu ? "tid" : "stream").value_or(0)};
}

std::string unmatched_sends_line(std::uint64_t n, const std::string& first)
{
  return fmt::format("  {} send(s) that no receive of the trace takes (the first: {}): each completed at delivery, "
                     "as ASTRA-sim completes a send without its receive; its data stays in the receiver's buffers",
                     n, first);
}

} // namespace nafsim::workloads::chakra
