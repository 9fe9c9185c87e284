#include "workloads/chakra/ChakraTrace.hpp"

#include "workloads/chakra/ChakraNodes.hpp"
#include "workloads/chakra/RankReader.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <queue>
#include <unordered_map>

namespace nafsim::workloads {

using namespace chakra;

namespace {

/// Past this many nodes in one rank's file the trace is refused (the run would not fit the machine's memory; a
/// larger trace runs with `stream`).
constexpr std::size_t kMaxNodesPerRank = 4'000'000;

std::vector<pb::Node> read_rank(const std::string& file)
{
  // The streamed replay's reader (RankReader: the framing checked in one place, a varint overflow or a length
  // beyond the file an error naming the node's position, never the end of the trace).
  RankReader in(file);
  std::vector<pb::Node> nodes;
  for (pb::Node n; in.next(n);) {
    if (nodes.size() == kMaxNodesPerRank)
      throw config::ConfigError(file, "", fmt::format("more than {} nodes in one rank's file: nafsim refuses traces "
                                                      "this large (split the run or shorten the trace)",
                                                      kMaxNodesPerRank));
    nodes.push_back(std::move(n));
  }
  return nodes;
}

/// Nodes left unplaced by the topological order (`pos` SIZE_MAX) each wait for another unplaced one: following those
/// waits from any of them comes back to a node, which is on a cycle; the error names it, the cycle, and the field.
[[noreturn]] void throw_cycle(const Ctx& c, unsigned r, const std::vector<pb::Node>& nodes,
                              const std::vector<std::vector<std::size_t>>& deps, const std::vector<std::size_t>& pos)
{
  std::size_t at = 0;
  while (pos[at] != SIZE_MAX)
    ++at;
  std::vector<std::size_t> path, seen(nodes.size(), SIZE_MAX);
  while (seen[at] == SIZE_MAX) {
    seen[at] = path.size();
    path.push_back(at);
    at = *std::find_if(deps[at].begin(), deps[at].end(), [&](std::size_t d) { return pos[d] == SIZE_MAX; });
  }
  std::vector<std::size_t> cycle(path.begin() + static_cast<std::ptrdiff_t>(seen[at]), path.end());
  std::string ids;
  for (auto i : cycle)
    ids += fmt::format("{} -> ", nodes[i].id());
  const pb::Node& n    = nodes[cycle.front()];
  const std::uint64_t next = nodes[cycle.size() > 1 ? cycle[1] : cycle.front()].id();
  const bool ctrl = std::find(n.ctrl_deps().begin(), n.ctrl_deps().end(), next) != n.ctrl_deps().end();
  throw node_error(c, r, n, ctrl ? "ctrl_deps" : "data_deps",
                   fmt::format("is on a dependency cycle (each waits for the next: {}{}): none of them can ever run",
                               ids, n.id()));
}

/// Rank r's nodes as Locals in a dependency order (ties by id). Dependencies on absent nodes or on the node itself
/// and a CPU operator's dependency on its own GPU kernel are repaired (or, strict, errors); other cycles are errors.
std::vector<Local> rank_graph(const Ctx& c, unsigned r, const std::vector<pb::Node>& nodes)
{
  std::unordered_map<std::uint64_t, std::size_t> by_id;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!by_id.emplace(nodes[i].id(), i).second)
      throw node_error(c, r, nodes[i], "id", "two nodes of this file have this id");
  std::vector<std::vector<std::size_t>> deps(nodes.size()), users(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto add = [&](std::uint64_t d, const char* field) {
      auto it = by_id.find(d);
      if (it == by_id.end())
        return repair(c, r, nodes[i], field, fmt::format("depends on node {}, which this file does not hold", d),
                      "the dependency dropped, as Chakra's converter leaves ids it removed",
                      &ChakraRepairs::absent_deps);
      if (it->second == i)
        return repair(c, r, nodes[i], field, "depends on itself", "the dependency dropped",
                      &ChakraRepairs::self_deps);
      if (std::find(deps[i].begin(), deps[i].end(), it->second) == deps[i].end())
        deps[i].push_back(it->second);
    };
    for (auto d : nodes[i].ctrl_deps())
      add(d, "ctrl_deps");
    for (auto d : nodes[i].data_deps())
      add(d, "data_deps");
  }
  // A CPU operator and its GPU kernel waiting for each other: the kernel is the operator's (it launched it), so the
  // operator's dependency on it goes, as the converter means the pair (the kernel's parent is its launcher).
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!is_cpu_op(nodes[i]))
      continue;
    std::erase_if(deps[i], [&](std::size_t d) {
      if (is_cpu_op(nodes[d]) || std::find(deps[d].begin(), deps[d].end(), i) == deps[d].end())
        return false;
      repair(c, r, nodes[i], "data_deps",
             fmt::format("is on a dependency cycle with GPU node {}: the CPU operator waits for its own kernel",
                         nodes[d].id()),
             "the operator's dependency on its kernel dropped", &ChakraRepairs::cpu_gpu_cycles);
      return true;
    });
  }
  std::vector<std::size_t> missing(nodes.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (auto d : deps[i]) {
      users[d].push_back(i);
      ++missing[i];
    }
  std::map<std::pair<int, std::int64_t>, std::int64_t> lanes; // (cpu / gpu, thread / stream) -> this rank's lane
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
    if (auto key = lane_key(c.cfg.compute_order, nodes[i]))
      out.back().lane = lanes.emplace(*key, static_cast<std::int64_t>(lanes.size())).first->second;
    for (auto d : deps[i])
      out.back().deps.push_back(pos[d]);
    for (auto u : users[i])
      if (--missing[u] == 0)
        ready.emplace(nodes[u].id(), u);
  }
  if (out.size() < nodes.size())
    throw_cycle(c, r, nodes, deps, pos);
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

// The k-th collective of each member of a communicator is one call: match them, check they agree.
// (uneven_sizes: ChakraNodes.hpp)
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
        if (first.kind != l.kind)
          throw node_error(c, r, *l.node, "comm_type",
                           fmt::format("collective {} of group '{}' is {} here but {} on rank {} (node {}): the ranks "
                                       "must call the same collectives in the same order",
                                       k + 1, c.comm_names[l.comm], config::enum_name(l.kind),
                                       config::enum_name(first.kind), op.parts[0].first, first.node->id()));
        if (first.given != l.given) // (the same comm_size on one group gives the same share)
          throw node_error(c, r, *l.node, "comm_size",
                           uneven_sizes(k, c.comm_names[l.comm], l.kind,
                                        whole_attr(c, r, *l.node, "comm_size").value_or(0),
                                        whole_attr(c, op.parts[0].first, *first.node, "comm_size").value_or(0),
                                        first.node->id(), op.parts[0].first));
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

// A global order in which every operation comes after what it waits for on every rank (Kahn's, lowest first), and
// each rank's collectives in the order the rank issues them (its nodes' order: ready nodes lowest id first, as
// ASTRA-sim issues them). When two ranks issue two communicators' collectives in opposite orders no order keeps both
// (ASTRA-sim runs them side by side; a CCLO runs one call at a time): the ranks' dependencies alone order them then.
std::vector<std::size_t> kahn(const std::vector<Global>& g, const std::vector<std::vector<Local>>& locals,
                              bool issue_order, std::vector<std::size_t>& missing)
{
  std::vector<std::vector<std::size_t>> users(g.size());
  missing.assign(g.size(), 0);
  std::vector<std::vector<std::size_t>> need(g.size());
  for (std::size_t o = 0; o < g.size(); ++o)
    for (auto [r, i] : g[o].parts)
      for (auto d : locals[r][i].deps)
        need[o].push_back(locals[r][d].op);
  if (issue_order)
    for (auto const& rank : locals) {
      std::size_t last = SIZE_MAX; // the rank's previous collective
      for (auto const& l : rank)
        if (is_collective(l.kind)) {
          if (last != SIZE_MAX)
            need[l.op].push_back(last);
          last = l.op;
        }
    }
  for (std::size_t o = 0; o < g.size(); ++o) {
    std::sort(need[o].begin(), need[o].end());
    need[o].erase(std::unique(need[o].begin(), need[o].end()), need[o].end());
    for (auto d : need[o]) {
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
  return out;
}

std::vector<std::size_t> order(const Ctx& c, const std::vector<Global>& g, const std::vector<std::vector<Local>>& locals)
{
  std::vector<std::size_t> missing;
  std::vector<std::size_t> out = kahn(g, locals, true, missing);
  if (out.size() < g.size()) {
    out = kahn(g, locals, false, missing);
    c.repairs.issue_orders_opposed = true;
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

// Every rank's nodes (with replicate, rank 0's for all: collective, compute and memory nodes only).
std::vector<std::vector<pb::Node>> read_ranks(const Ctx& c)
{
  std::vector<std::vector<pb::Node>> nodes(c.ranks);
  for (unsigned r = 0; r < c.ranks; ++r) {
    if (c.cfg.replicate && r > 0) {
      nodes[r] = nodes[0];
      continue;
    }
    nodes[r] = read_rank(c.file(r));
    if (c.cfg.replicate)
      for (auto const& n : nodes[r])
        if (n.type() == pb::COMM_SEND_NODE || n.type() == pb::COMM_RECV_NODE)
          throw node_error(c, r, n, "type",
                           "replicate copies rank 0's trace to every rank, and a send or receive names its peer: "
                           "only collective, compute and memory nodes can be replicated (give every rank's file)");
  }
  return nodes;
}

// The program's two buffers (operands and results), each as large as any rank's largest, of `eb`-byte elements.
void size_buffers(ProgramPlan& p, unsigned eb)
{
  std::uint64_t in = 1, out = 1;
  for (auto const& o : p.ops)
    if (o.kind != ProgramOpKind::Compute && o.kind != ProgramOpKind::Wait)
      for (unsigned r : o.runs) {
        auto cc = p.call(o, r);
        const int cr = is_p2p(o.kind) ? 0 : p.rank_in(o.comm, r);
        in  = std::max(in, coll::input_elements(cc, cr));
        out = std::max(out, coll::output_elements(cc, cr));
      }
  p.cfg.buffers = {ProgramBuffer{"operands", in, BufferInit::Zero}, ProgramBuffer{"results", out, BufferInit::Zero}};
  p.buffer_addr = {nodes::Cclo::kUserBase, nodes::Cclo::kUserBase + (in * eb + 4095) / 4096 * 4096};
}

/// ProgramPlan::check_messages on the plan's operations (op k is g[at[k]]), its errors naming the trace's file and
/// node, and counts in bytes; the sends no receive takes are counted in `c.repairs` (the first described).
void check_messages(const Ctx& c, const ProgramPlan& p, const std::vector<Global>& g, const std::vector<std::size_t>& at,
                    const std::vector<std::vector<Local>>& locals, unsigned eb)
{
  auto local_of_op = [&](std::size_t k, unsigned r) -> const Local& {
    for (auto [pr, i] : g[at[k]].parts)
      if (pr == r)
        return locals[pr][i];
    return locals[g[at[k]].parts[0].first][g[at[k]].parts[0].second];
  };
  auto node_of = [&](std::size_t k, unsigned r) -> const pb::Node& { return *local_of_op(k, r).node; };
  ProgramPlan::OpPlaces places;
  places.error = [&](std::size_t k, unsigned r, const std::string& field, const std::string& msg) {
    return node_error(c, r, node_of(k, r), field == "count" ? "comm_size" : field, msg);
  };
  places.name = [&](std::size_t k, unsigned r) {
    return fmt::format("node {} of {}", node_of(k, r).id(), std::filesystem::path(c.file(r)).filename().string());
  };
  places.unit_bytes = eb;
  auto left = p.check_messages(places);
  c.repairs.unmatched_sends = left.size();
  if (!left.empty())
    c.repairs.first_unmatched = fmt::format("{} ({} bytes to rank {}, tag {})", places.name(left[0].op, left[0].from),
                                            local_of_op(left[0].op, left[0].from).bytes, left[0].to, left[0].tag);
}

} // namespace

ProgramPlan load_chakra(const ChakraConfig& cfg, ChakraRepairs* repairs)
{
  Ctx c{cfg, count_ranks(cfg)};
  read_groups(c);
  std::vector<std::vector<pb::Node>> nodes = read_ranks(c);
  std::vector<std::vector<Local>> locals(c.ranks);
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
  p.receives_last = cfg.sends == ChakraSends::Eager; // (ProgramPlan::receives_last)
  p.holds_mpi_progress = false; // (as the streamed replay: its compute nodes are a GPU's kernels)
  p.p2p_tag_base  = kP2pTagBase;
  const unsigned eb = nodes::dtype_bytes(cfg.dtype);
  for (std::size_t k = 0; k < at.size(); ++k) {
    Global const& op   = g[at[k]];
    Local const& first = locals[op.parts[0].first][op.parts[0].second];
    ProgramOp po;
    po.op       = op.kind;
    po.tag      = first.tag;
    if (is_p2p(op.kind) && cfg.sends == ChakraSends::Eager) {
      po.protocol    = ProtocolChoice::Eager;
      po.at_delivery = op.kind == ProgramOpKind::Send; // done at delivery, as ASTRA-sim's callback
    }
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
    o.lane       = op.parts.size() == 1 ? first.lane : -1;
    o.name       = op.parts.size() == 1 ? fmt::format("{} (node {})", first.node->name(), first.node->id())
                                        : fmt::format("{} (node {} of rank {} ...)", first.node->name(),
                                                      first.node->id(), op.parts[0].first);
    o.src = reads_buffer(op.kind) ? 0 : -1;
    o.dst = writes_buffer(op.kind) ? 1 : -1;
    if (is_p2p(op.kind))
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
  size_buffers(p, eb);
  check_messages(c, p, g, at, locals, eb);
  if (repairs)
    *repairs = c.repairs;
  return p;
}

} // namespace nafsim::workloads