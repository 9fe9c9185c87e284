#include "workloads/chakra/ChakraTrace.hpp"

#include "chakra.pb.h"
#include "simcore/config/ConfigError.hpp"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <unordered_map>

namespace nafsim::workloads {

namespace {

namespace pb = ChakraProtoMsg;

/// Past this many nodes in one rank's file the trace is refused (the run would not fit the machine's memory).
constexpr std::size_t kMaxNodesPerRank = 4'000'000;

std::string rank_file(const std::string& prefix, unsigned r)
{
  return fmt::format("{}.{}.et", prefix, r);
}

std::vector<pb::Node> read_rank(const std::string& file)
{
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw config::ConfigError(file, "", "cannot open this rank's trace file (a trace is <prefix>.<rank>.et for every "
                                        "rank; check workload.trace and workload.ranks)");
  google::protobuf::io::IstreamInputStream zin(&in);
  pb::GlobalMetadata meta;
  bool eof = false;
  if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &zin, &eof))
    throw config::ConfigError(file, "", eof ? "empty file: a Chakra trace starts with its GlobalMetadata"
                                            : "not a Chakra trace: its first message is not a length-delimited "
                                              "GlobalMetadata");
  std::vector<pb::Node> nodes;
  for (;;) {
    pb::Node n;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &zin, &eof)) {
      if (eof)
        break;
      throw config::ConfigError(file, "",
                                fmt::format("truncated or corrupt message after {} node(s) (the last read: id {}): "
                                            "each node is a varint length and that many bytes of a Node",
                                            nodes.size(), nodes.empty() ? 0 : nodes.back().id()));
    }
    if (nodes.size() == kMaxNodesPerRank)
      throw config::ConfigError(file, "", fmt::format("more than {} nodes in one rank's file: nafsim refuses traces "
                                                      "this large (split the run or shorten the trace)",
                                                      kMaxNodesPerRank));
    nodes.push_back(std::move(n));
  }
  return nodes;
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
  std::size_t op = SIZE_MAX;     ///< the program operation it becomes
};

struct Ctx {
  const ChakraConfig& cfg;
  unsigned ranks;
  std::vector<std::vector<unsigned>> comms{};
  std::vector<std::string> comm_names{};
  std::string file(unsigned r) const { return rank_file(cfg.trace, r); }
};

config::ConfigError node_error(const Ctx& c, unsigned r, const pb::Node& n, const std::string& field,
                               const std::string& msg)
{
  return config::ConfigError(c.file(r), fmt::format("node {} ('{}'){}", n.id(), n.name(), field.empty() ? "" : ", " + field),
                             msg);
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
  std::ifstream in(c.cfg.comm_groups);
  if (!in)
    throw config::ConfigError(c.cfg.comm_groups, "", "cannot open the communicator groups file (workload.comm_groups)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw config::ConfigError(c.cfg.comm_groups, "", fmt::format("not JSON: {}", e.what()));
  }
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
      m.push_back(v.get<unsigned>());
    }
    c.comms.push_back(m.empty() ? world : m);
    c.comm_names.push_back(it.key());
  }
}

/// Communicators a METADATA_NODE declares: its inputs.values a JSON list of {"pg_name": id, "ranks": [...]} (empty
/// ranks: every rank), as PyTorch's converter writes them. Other metadata is ignored; a group given twice with
/// other ranks is an error.
void read_metadata_groups(Ctx& c, unsigned r, const pb::Node& n)
{
  if (n.type() != pb::METADATA_NODE || !n.has_inputs())
    return;
  auto j = nlohmann::json::parse(n.inputs().values(), nullptr, false);
  if (j.is_discarded() || !j.is_array())
    return;
  for (auto const& g : j) {
    if (!g.is_object() || !g.contains("pg_name"))
      continue;
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

ProgramOpKind collective_kind(const Ctx& c, unsigned r, const pb::Node& n)
{
  auto t = int_attr(n, "comm_type");
  if (!t)
    throw node_error(c, r, n, "comm_type", "a COMM_COLL_NODE needs its comm_type attribute");
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

Local local_of(const Ctx& c, unsigned r, const pb::Node& n)
{
  Local l;
  l.node = &n;
  l.kind = ProgramOpKind::Wait;
  auto size = [&] {
    auto s = int_attr(n, "comm_size");
    if (!s || *s < 0)
      throw node_error(c, r, n, "comm_size", "a communication node needs a non-negative comm_size (bytes)");
    return static_cast<std::uint64_t>(*s);
  };
  auto peer = [&](const char* key) {
    auto p = int_attr(n, key);
    if (!p || *p < 0 || *p >= static_cast<std::int64_t>(c.ranks) || *p == static_cast<std::int64_t>(r))
      throw node_error(c, r, n, key, fmt::format("the peer must be another of the trace's {} ranks", c.ranks));
    return static_cast<int>(*p);
  };
  switch (n.type()) {
    case pb::COMP_NODE:
      if (c.cfg.compute == ChakraCompute::Replay) {
        l.kind     = n.duration_micros() > 0 ? ProgramOpKind::Compute : ProgramOpKind::Wait;
        l.duration = SimTime::us(static_cast<double>(n.duration_micros()));
      } else {
        auto work = [&](const char* key) {
          auto v = int_attr(n, key);
          if (v && *v < 0)
            throw node_error(c, r, n, key, "a compute node's work must not be negative");
          return static_cast<std::uint64_t>(v.value_or(0));
        };
        l.ops     = static_cast<double>(work("num_ops"));
        l.touched = work("tensor_size");
        l.kind    = l.ops > 0 || l.touched > 0 ? ProgramOpKind::Compute : ProgramOpKind::Wait;
      }
      break;
    case pb::COMM_SEND_NODE:
    case pb::COMM_RECV_NODE: {
      const bool send = n.type() == pb::COMM_SEND_NODE;
      l.kind          = send ? ProgramOpKind::Send : ProgramOpKind::Recv;
      l.peer          = peer(send ? "comm_dst" : "comm_src");
      l.bytes         = size();
      l.tag           = static_cast<std::uint32_t>(int_attr(n, "comm_tag").value_or(0));
      break;
    }
    case pb::COMM_COLL_NODE: {
      l.kind  = collective_kind(c, r, n);
      l.bytes = l.kind == ProgramOpKind::Barrier ? 0 : size();
      if (auto const* pg = attr(n, "pg_name"); pg && !pg->string_val().empty()) {
        auto it = std::find(c.comm_names.begin(), c.comm_names.end(), pg->string_val());
        if (it == c.comm_names.end())
          throw node_error(c, r, n, "pg_name", fmt::format("no communicator group '{}' (give workload.comm_groups)",
                                                           pg->string_val()));
        l.comm = static_cast<std::size_t>(it - c.comm_names.begin());
      }
      auto const& m = c.comms[l.comm];
      if (std::find(m.begin(), m.end(), r) == m.end())
        throw node_error(c, r, n, "pg_name", fmt::format("rank {} is not a member of group '{}'", r,
                                                         c.comm_names[l.comm]));
      break;
    }
    case pb::MEM_LOAD_NODE:
    case pb::MEM_STORE_NODE: {
      // Device-memory traffic: its recorded duration when replaying one, else its bytes (tensor_size) streamed
      // through the engine's compute model's memory (HBM on the FPGA, DRAM on the host).
      auto bytes = int_attr(n, "tensor_size");
      if (bytes && *bytes < 0)
        throw node_error(c, r, n, "tensor_size", "a memory node's bytes must not be negative");
      if (c.cfg.compute == ChakraCompute::Replay && n.duration_micros() > 0) {
        l.kind     = ProgramOpKind::Compute;
        l.duration = SimTime::us(static_cast<double>(n.duration_micros()));
      } else if (bytes && *bytes > 0) {
        l.kind    = ProgramOpKind::Compute;
        l.touched = static_cast<std::uint64_t>(*bytes);
      }
      break;
    }
    case pb::METADATA_NODE: break; // communicators: read_metadata_groups
    default: throw node_error(c, r, n, "type", fmt::format("node type {} cannot run", static_cast<int>(n.type())));
  }
  return l;
}

/// Rank r's nodes as Locals in a dependency order (ties by id); errors for dangling, self and cyclic dependencies.
std::vector<Local> rank_graph(const Ctx& c, unsigned r, const std::vector<pb::Node>& nodes)
{
  std::unordered_map<std::uint64_t, std::size_t> by_id;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!by_id.emplace(nodes[i].id(), i).second)
      throw node_error(c, r, nodes[i], "id", "two nodes of this file have this id");
  std::vector<std::vector<std::size_t>> deps(nodes.size()), users(nodes.size());
  std::vector<std::size_t> missing(nodes.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto add = [&](std::uint64_t d, const char* field) {
      auto it = by_id.find(d);
      if (it == by_id.end())
        throw node_error(c, r, nodes[i], field, fmt::format("depends on node {}, which this file does not hold", d));
      if (it->second == i)
        throw node_error(c, r, nodes[i], field, "depends on itself");
      if (std::find(deps[i].begin(), deps[i].end(), it->second) == deps[i].end()) {
        deps[i].push_back(it->second);
        users[it->second].push_back(i);
        ++missing[i];
      }
    };
    for (auto d : nodes[i].ctrl_deps())
      add(d, "ctrl_deps");
    for (auto d : nodes[i].data_deps())
      add(d, "data_deps");
  }
  using Item = std::pair<std::uint64_t, std::size_t>; // id, index: ready nodes taken lowest id first
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (missing[i] == 0)
      ready.emplace(nodes[i].id(), i);
  std::vector<std::size_t> pos(nodes.size(), SIZE_MAX);
  std::vector<Local> out;
  while (!ready.empty()) {
    auto [id, i] = ready.top();
    ready.pop();
    pos[i] = out.size();
    out.push_back(local_of(c, r, nodes[i]));
    for (auto d : deps[i])
      out.back().deps.push_back(pos[d]);
    for (auto u : users[i])
      if (--missing[u] == 0)
        ready.emplace(nodes[u].id(), u);
  }
  if (out.size() < nodes.size())
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (pos[i] == SIZE_MAX)
        throw node_error(c, r, nodes[i], "ctrl_deps", "is on a dependency cycle: it can never run");
  return out;
}

} // namespace

namespace {

/// A program operation: one rank's node, or the matched collective nodes of every member of a communicator.
struct Global {
  ProgramOpKind kind;
  std::size_t comm = 0;
  std::vector<std::pair<unsigned, std::size_t>> parts; ///< (rank, index in that rank's Locals), members in order
};

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

// The k-th collective of each member of a communicator is one call: match them, check they agree.
std::vector<Global> match(const Ctx& c, std::vector<std::vector<Local>>& locals)
{
  std::vector<Global> g;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> coll; // (comm, k) -> g
  std::vector<std::vector<std::size_t>> called(c.comms.size(), std::vector<std::size_t>(c.ranks, 0));
  for (unsigned r = 0; r < c.ranks; ++r)
    for (std::size_t i = 0; i < locals[r].size(); ++i) {
      Local& l = locals[r][i];
      if (!is_collective(l.kind)) {
        l.op = g.size();
        g.push_back(Global{l.kind, 0, {{r, i}}});
        continue;
      }
      const std::size_t k = called[l.comm][r]++;
      auto [it, fresh]    = coll.emplace(std::pair{l.comm, k}, g.size());
      if (fresh)
        g.push_back(Global{l.kind, l.comm, {}});
      Global& op = g[it->second];
      if (!fresh) {
        auto const& first = locals[op.parts[0].first][op.parts[0].second];
        if (first.kind != l.kind || first.bytes != l.bytes)
          throw node_error(c, r, *l.node, "comm_type",
                           fmt::format("collective {} of group '{}' is {} of {} B here but {} of {} B on rank {} (node "
                                       "{}): the ranks must call the same collectives in the same order",
                                       k + 1, c.comm_names[l.comm], config::enum_name(l.kind), l.bytes,
                                       config::enum_name(first.kind), first.bytes, op.parts[0].first, first.node->id()));
      }
      op.parts.emplace_back(r, i);
      l.op = it->second;
    }
  for (std::size_t m = 0; m < c.comms.size(); ++m)
    for (unsigned r : c.comms[m])
      if (called[m][r] != called[m][c.comms[m][0]])
        throw config::ConfigError(c.file(r), "",
                                  fmt::format("rank {} calls {} collective(s) on group '{}', rank {} calls {}: every "
                                              "member must call each of them",
                                              r, called[m][r], c.comm_names[m], c.comms[m][0],
                                              called[m][c.comms[m][0]]));
  // Members in communicator order (the k-th member is rank k of the call).
  for (auto& op : g)
    if (is_collective(op.kind)) {
      auto const& m = c.comms[op.comm];
      std::sort(op.parts.begin(), op.parts.end(), [&](auto const& a, auto const& b) {
        return std::find(m.begin(), m.end(), a.first) < std::find(m.begin(), m.end(), b.first);
      });
    }
  return g;
}

// A global order in which every operation comes after what it waits for on every rank (Kahn's, lowest first).
std::vector<std::size_t> order(const Ctx& c, const std::vector<Global>& g, const std::vector<std::vector<Local>>& locals)
{
  std::vector<std::vector<std::size_t>> users(g.size());
  std::vector<std::size_t> missing(g.size(), 0);
  for (std::size_t o = 0; o < g.size(); ++o) {
    std::vector<std::size_t> need;
    for (auto [r, i] : g[o].parts)
      for (auto d : locals[r][i].deps)
        need.push_back(locals[r][d].op);
    std::sort(need.begin(), need.end());
    need.erase(std::unique(need.begin(), need.end()), need.end());
    for (auto d : need) {
      users[d].push_back(o);
      ++missing[o];
    }
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t o = 0; o < g.size(); ++o)
    if (missing[o] == 0)
      ready.push(o);
  std::vector<std::size_t> out;
  while (!ready.empty()) {
    auto o = ready.top();
    ready.pop();
    out.push_back(o);
    for (auto u : users[o])
      if (--missing[u] == 0)
        ready.push(u);
  }
  if (out.size() < g.size())
    for (std::size_t o = 0; o < g.size(); ++o)
      if (missing[o] > 0) {
        auto [r, i] = g[o].parts[0];
        throw node_error(c, r, *locals[r][i].node, "",
                         "waits, through other ranks' collectives, for itself: the ranks call their collectives in "
                         "orders that deadlock");
      }
  return out;
}

} // namespace

ProgramPlan load_chakra(const ChakraConfig& cfg)
{
  Ctx c{cfg, count_ranks(cfg)};
  read_groups(c);
  std::vector<std::vector<pb::Node>> nodes(c.ranks);
  std::vector<std::vector<Local>> locals(c.ranks);
  for (unsigned r = 0; r < c.ranks; ++r) {
    if (cfg.replicate && r > 0) {
      nodes[r] = nodes[0];
      continue;
    }
    nodes[r] = read_rank(c.file(r));
    if (cfg.replicate)
      for (auto const& n : nodes[r])
        if (n.type() == pb::COMM_SEND_NODE || n.type() == pb::COMM_RECV_NODE)
          throw node_error(c, r, n, "type",
                           "replicate copies rank 0's trace to every rank, and a send or receive names its peer: "
                           "only collective, compute and memory nodes can be replicated (give every rank's file)");
  }
  for (unsigned r = 0; r < c.ranks; ++r)
    for (auto const& n : nodes[r])
      read_metadata_groups(c, r, n);
  for (unsigned r = 0; r < c.ranks; ++r)
    locals[r] = rank_graph(c, r, nodes[r]);
  auto g  = match(c, locals);
  auto at = order(c, g, locals);
  std::vector<std::size_t> index(g.size());
  for (std::size_t k = 0; k < at.size(); ++k)
    index[at[k]] = k;

  ProgramPlan p;
  p.cfg.engine    = cfg.engine;
  p.cfg.ranks     = c.ranks;
  p.cfg.positions = cfg.positions;
  p.cfg.dtype     = cfg.dtype;
  p.cfg.verify    = false;
  p.cfg.compute   = cfg.model;
  p.comms         = c.comms;
  p.comm_names    = c.comm_names;
  const unsigned eb = nodes::dtype_bytes(cfg.dtype);
  for (std::size_t k = 0; k < at.size(); ++k) {
    Global const& op   = g[at[k]];
    Local const& first = locals[op.parts[0].first][op.parts[0].second];
    ProgramOp po;
    po.op       = op.kind;
    po.tag      = first.tag;
    po.duration = first.duration;
    po.operations = first.ops;
    po.bytes      = Bytes{first.touched};
    p.cfg.ops.push_back(po);
    PlannedOp o;
    o.kind       = op.kind;
    o.index      = k;
    o.comm       = op.comm;
    o.count      = (first.bytes + eb - 1) / eb;
    o.deps_given = true;
    o.name       = op.parts.size() == 1 ? fmt::format("{} (node {})", first.node->name(), first.node->id())
                                        : fmt::format("{} (node {} of rank {} ...)", first.node->name(),
                                                      first.node->id(), op.parts[0].first);
    o.src = reads_buffer(op.kind) ? 0 : -1;
    o.dst = writes_buffer(op.kind) ? 1 : -1;
    if (op.kind == ProgramOpKind::Send || op.kind == ProgramOpKind::Recv)
      o.peer.assign(c.ranks, -1);
    for (auto [r, i] : op.parts) {
      o.runs.push_back(r);
      std::vector<std::size_t> deps;
      for (auto d : locals[r][i].deps)
        deps.push_back(index[locals[r][d].op]);
      o.after.push_back(std::move(deps));
      if (!o.peer.empty())
        o.peer[r] = locals[r][i].peer;
    }
    p.ops.push_back(std::move(o));
  }
  // Two buffers (operands and results), each as large as any rank's largest.
  std::uint64_t in = 1, out = 1;
  for (auto const& o : p.ops)
    if (o.kind != ProgramOpKind::Compute && o.kind != ProgramOpKind::Wait)
      for (unsigned r : o.runs) {
        auto cc = p.call(o, r);
        const int cr = o.kind == ProgramOpKind::Send || o.kind == ProgramOpKind::Recv ? 0 : p.rank_in(o.comm, r);
        in  = std::max(in, coll::input_elements(cc, cr));
        out = std::max(out, coll::output_elements(cc, cr));
      }
  p.cfg.buffers = {ProgramBuffer{"operands", in, BufferInit::Zero}, ProgramBuffer{"results", out, BufferInit::Zero}};
  p.buffer_addr = {nodes::Cclo::kUserBase, nodes::Cclo::kUserBase + (in * eb + 4095) / 4096 * 4096};
  p.check_messages();
  return p;
}

} // namespace nafsim::workloads
