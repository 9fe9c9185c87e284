#include "workloads/chakra/ChakraStream.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/host/HostCluster.hpp"
#include "workloads/CriticalPath.hpp"
#include "workloads/chakra/RankReader.hpp"
#include "workloads/program/ComputeTime.hpp"
#include "workloads/program/DramShare.hpp"
#include "workloads/program/Placement.hpp"
#include "workloads/program/ProgramPlan.hpp"
#include "workloads/program/SendDelivery.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <unordered_set>

namespace nafsim::workloads {

using namespace chakra;

namespace {

/// A set of node ids: a bitmap for the dense small ids traces use, a hash set for the rest.
class IdSet {
public:
  bool contains(std::uint64_t id) const
  {
    if (id < kDense)
      return id / 64 < bits_.size() && (bits_[id / 64] >> (id % 64) & 1);
    return sparse_.count(id) > 0;
  }
  void insert(std::uint64_t id)
  {
    if (id >= kDense) {
      sparse_.insert(id);
      return;
    }
    if (id / 64 >= bits_.size())
      bits_.resize(id / 64 + 1);
    bits_[id / 64] |= 1ULL << (id % 64);
  }

private:
  static constexpr std::uint64_t kDense = 1ULL << 28;
  std::vector<std::uint64_t> bits_;
  std::unordered_set<std::uint64_t> sparse_;
};

std::string rank_file_of(const ChakraConfig& cfg, unsigned r)
{
  return rank_file(cfg.trace, cfg.replicate ? 0 : r);
}

} // namespace

/// A node read and not yet run.
struct ChakraStream::Node {
  std::uint64_t id = 0;
  std::string name;
  ProgramOpKind kind = ProgramOpKind::Wait;
  std::size_t comm = 0;
  std::uint64_t bytes = 0;
  int peer = -1;
  std::uint32_t tag = 0;
  SimTime duration;
  double ops = 0;
  std::uint64_t touched = 0;
  std::vector<std::uint64_t> deps;
  std::size_t missing = 0;
  bool cpu = false;       ///< a CPU operator (is_cpu_op), else a GPU node
  std::int64_t lane = -1; ///< compute and memory nodes: the rank's lane (compute_order), -1 none
  SimTime ready_at;       ///< when its dependencies done so far had finished (see RankRun::finished_at)
  std::uint64_t given = 0; ///< collectives: comm_size as given (Local::given)
};

void ChakraStream::Totals::advance(SimTime t)
{
  const SimTime dt = t - last;
  if (in_comm > 0)
    communication += dt;
  if (in_compute > 0)
    compute += dt;
  if (in_comm > 0 && in_compute == 0)
    exposed += dt;
  last = t;
}

ChakraStream::ChakraStream(const ChakraConfig& cfg) : cfg_(cfg), ctx_{cfg_, count_ranks(cfg_)}
{
  read_groups(ctx_);
  for (unsigned r = 0; r < (cfg_.replicate ? 1 : ctx_.ranks); ++r)
    if (!std::filesystem::exists(rank_file_of(cfg_, r)))
      throw config::ConfigError(rank_file_of(cfg_, r), "",
                                "cannot open this rank's trace file (a trace is <prefix>.<rank>.et for every rank; "
                                "check workload.trace and workload.ranks)");
  // The process groups each file declares first (PyTorch's process_group:init node leads its trace), so that a rank
  // knows a group another rank's file declares, as a whole read does; a group declared further into a file is known
  // once its reader reaches it (README.md: ASSUMPTION).
  for (unsigned r = 0; r < (cfg_.replicate ? 1 : ctx_.ranks); ++r) {
    RankReader lead(rank_file_of(cfg_, r));
    for (pb::Node n; lead.next(n) && n.type() == pb::METADATA_NODE;)
      read_metadata_groups(ctx_, r, n);
  }
}

const nodes::Communicator& ChakraStream::communicator(std::size_t comm)
{
  if (comm_hosts_.size() <= comm)
    comm_hosts_.resize(ctx_.comms.size());
  auto& h = comm_hosts_[comm];
  if (h.size() == 0) {
    std::vector<net::HostId> v;
    for (unsigned m : ctx_.comms[comm])
      v.push_back(hosts_[m]);
    h = nodes::Communicator(std::move(v));
  }
  return h;
}

void ChakraStream::start(nodes::Cluster& c)
{
  hosts_ = place_ranks(c, cfg_.engine, ctx_.ranks, cfg_.positions);
  if (cfg_.engine == ProgramEngine::Mpi)
    mpi_ = std::make_unique<MpiEngine>(c);
  if (cfg_.sends == ChakraSends::Eager) // sends complete at delivery, as ASTRA-sim's callback (SendDelivery.hpp)
    track_delivery(c, cfg_.engine, hosts_);
  std::vector<std::uint32_t> pids;
  for (auto h : hosts_)
    pids.push_back(c.trace_pid(h));
  trace_ = std::make_unique<ProgramTrace>(c.trace(), std::move(pids));
  totals_.assign(ctx_.ranks, {});
  compute_free_.assign(ctx_.ranks, std::vector<SimTime>(compute_slots(c, cfg_.engine, cfg_.model), SimTime{}));
  dram_ = dram_shares(c, cfg_.engine, cfg_.model, ctx_.ranks);
  calls_made_.assign(ctx_.ranks, {});
  if (!mpi_)
    nodes::check_communicator(c, hosts_);
  for (unsigned r = 0; r < ctx_.ranks; ++r) {
    if (mpi_)
      nodes::mpi_of(c, hosts_[r]);
    else
      nodes::cclo_of(c, hosts_[r]);
    auto* host = mpi_ ? c.at<nodes::HostNode>(hosts_[r]).host() : c.at<nodes::FpgaNode>(hosts_[r]).host();
    c.scheduler().spawn(fmt::format("chakra-rank-{}", r), host,
                        [this, &c, r](ActorContext& ctx) { run_rank(ctx, c, r); });
  }
}

void ChakraStream::match_collective(unsigned rank, const Node& n)
{
  auto& made       = calls_made_[rank];
  if (made.size() <= n.comm)
    made.resize(ctx_.comms.size(), 0);
  const std::uint64_t k = made[n.comm]++;
  auto& seen            = calls_seen_[n.comm];
  auto& base            = calls_base_[n.comm];
  while (seen.size() <= k - base)
    seen.push_back(CallSeen{n.kind, n.given, n.id, rank, 0});
  auto& s = seen[k - base];
  if (s.kind != n.kind)
    throw config::ConfigError(rank_file_of(cfg_, rank), fmt::format("node {} ('{}')", n.id, n.name),
                              fmt::format("collective {} on group '{}' is {} here, but {} on rank {} (node {}): the "
                                          "members call different collectives",
                                          k + 1, ctx_.comm_names[n.comm], config::enum_name(n.kind),
                                          config::enum_name(s.kind), s.rank, s.node));
  if (s.given != n.given)
    throw config::ConfigError(rank_file_of(cfg_, rank), fmt::format("node {} ('{}'), comm_size", n.id, n.name),
                              fmt::format("collective {} on group '{}', {}, has comm_size {} here but {} on rank {} "
                                          "(node {}): {}",
                                          k + 1, ctx_.comm_names[n.comm], config::enum_name(n.kind), n.given, s.given,
                                          s.rank, s.node, kOneSizePerMember));
  ++s.arrived;
  while (!seen.empty() && seen.front().arrived == ctx_.comms[n.comm].size()) {
    seen.pop_front();
    ++base;
  }
}

void ChakraStream::match_message(unsigned rank, const Node& n)
{
  const bool send = n.kind == ProgramOpKind::Send;
  const auto peer = static_cast<unsigned>(n.peer);
  const auto key  = send ? std::tuple{rank, peer, n.tag} : std::tuple{peer, rank, n.tag};
  auto& q         = messages_[key];
  if (!q.empty() && q.front().first != send) {
    if (q.front().second != n.bytes)
      throw config::ConfigError(rank_file_of(cfg_, rank), fmt::format("node {} ('{}'), comm_size", n.id, n.name),
                                fmt::format("{} {} bytes {} rank {} (tag {}), but the matching {} carries {}",
                                            send ? "sends" : "receives", n.bytes, send ? "to" : "from", peer, n.tag,
                                            send ? "receive" : "send", q.front().second));
    q.pop_front();
    if (q.empty())
      messages_.erase(key); // a trace's pairs and tags come and go: keep only what waits
    return;
  }
  q.emplace_back(send, n.bytes);
}

void ChakraStream::execute(ActorContext& ctx, nodes::Cluster& c, unsigned rank, const Node& n)
{
  static const std::uint32_t busy = cause_what("workload", "trace compute");
  auto& t          = totals_[rank];
  const SimTime s  = ctx.now();
  const bool comp  = n.kind == ProgramOpKind::Compute;
  const bool wait  = n.kind == ProgramOpKind::Wait;
  const std::size_t lane = trace_->on() && !wait ? trace_->begin(rank) : 0;
  t.advance(s);
  const bool counted_comp = counts_as_compute(cfg_.engine, n.kind); // (an MPI engine's copy: the CPU's loop)
  (counted_comp ? t.in_compute : t.in_comm) += wait ? 0 : 1;
  std::string algorithm;
  if (comp) {
    run_compute(ctx, c, cfg_.engine, cfg_.model, s, {n.duration, n.ops, n.touched}, compute_free_[rank],
                dram_.empty() ? nullptr : dram_[rank].get(), CauseLabel::at_host(busy, hosts_[rank]));
  } else if (!wait) {
    const unsigned eb = nodes::dtype_bytes(cfg_.dtype);
    const bool p2p    = is_p2p(n.kind);
    p2p ? match_message(rank, n) : match_collective(rank, n);
    coll::CollectiveCall cc;
    cc.collective = collective_of(n.kind);
    cc.count      = n.kind == ProgramOpKind::Barrier ? 0 : (n.bytes + eb - 1) / eb;
    cc.elem_bytes = eb;
    const std::size_t comm = p2p ? 0 : n.comm;
    cc.size = static_cast<int>(ctx_.comms[comm].size());
    cc.root = p2p ? n.peer : 0;
    int me  = static_cast<int>(rank);
    if (!p2p)
      me = static_cast<int>(std::find(ctx_.comms[comm].begin(), ctx_.comms[comm].end(), rank) - ctx_.comms[comm].begin());
    if (mpi_) {
      MpiCall call;
      call.cc = cc;
      for (unsigned m : ctx_.comms[comm])
        call.comm.push_back(hosts_[m]);
      call.me      = me;
      call.context = p2p ? MpiEngine::p2p_context(n.tag) : MpiEngine::collective_context(comm);
      call.host    = hosts_[rank];
      call.dtype   = cfg_.dtype;
      call.eager   = p2p && cfg_.sends == ChakraSends::Eager;
      algorithm    = mpi_->run(ctx, c, call, false);
    } else {
      nodes::CcloCall call;
      call.call     = cc;
      call.comm     = communicator(comm);
      call.rank     = me;
      call.src_addr = nodes::Cclo::kUserBase;
      call.dst_addr = nodes::Cclo::kUserBase + (1ULL << 33); // 8 GiB above: no operand reaches it
      call.dtype    = cfg_.dtype;
      call.tag      = n.tag + (p2p ? kP2pTagBase : 0); // (ProgramPlan::p2p_tag_base)
      if (p2p && cfg_.sends == ChakraSends::Eager)
        call.protocol = coll::Protocol::Eager;
      auto res      = nodes::cclo_of(c, hosts_[rank]).call(ctx, call);
      if (!res.error.empty())
        throw SimulationError(fmt::format("{}: node {} ('{}') on rank {}: {}", rank_file_of(cfg_, rank), n.id, n.name,
                                          rank, res.error));
      algorithm = coll::algorithm_name(res.algorithm);
    }
    if (n.kind == ProgramOpKind::Send && cfg_.sends == ChakraSends::Eager) // done at delivery (SendDelivery.hpp)
      wait_delivered(ctx, c, cfg_.engine, hosts_[rank], hosts_[static_cast<std::size_t>(n.peer)]);
  }
  t.advance(ctx.now());
  (counted_comp ? t.in_compute : t.in_comm) -= wait ? 0 : 1;
  ++t.operations;
  if (ctx.now() >= t.end) {
    t.end       = ctx.now();
    t.end_cause = ctx.scheduler().cause_mark();
  }
  if (trace_->on() && !wait)
    trace_->end(rank, lane, n.name.empty() ? fmt::format("{} (node {})", config::enum_name(n.kind), n.id)
                                           : fmt::format("{} (node {})", n.name, n.id),
                s, ctx.now(),
                nlohmann::json{{"node", n.id}, {"kind", config::enum_name(n.kind)},
                               {"comm", ctx_.comm_names[n.comm]}, {"bytes", n.bytes}, {"algorithm", algorithm}}
                    .dump());
}

/// One rank's file as it runs: the nodes read and not yet run, who waits for whom, the ids done.
struct ChakraStream::RankRun {
  ChakraStream& s;
  unsigned rank;
  RankReader reader;
  IdSet done, seen;
  std::unordered_map<std::uint64_t, Node> waiting;                     ///< read; dependencies not all done
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> users; ///< dependency -> nodes waiting for it
  std::deque<Node> ready;
  std::map<std::int64_t, std::map<std::uint64_t, Node>> held; ///< ready, waiting for their lane (by id)
  std::size_t held_count = 0;
  std::set<std::int64_t> busy;                                ///< lanes with a node started
  std::map<std::pair<int, std::int64_t>, std::int64_t> lanes; ///< (cpu / gpu, thread / stream) -> lane
  bool end = false;
  pb::Node pn;
  SimTime now; ///< the instant of the reading and completions at hand (run_rank sets it)
  // The window's effect (ASSUMPTION in the README): when the nodes done lately finished (the last kRecent), so that
  // a node read ready at a later instant than its last dependency finished is known to have started late.
  static constexpr std::size_t kRecent = 4096;
  std::unordered_map<std::uint64_t, SimTime> finished_at;
  std::deque<std::uint64_t> finished_order;

  RankRun(ChakraStream& st, unsigned r) : s(st), rank(r), reader(rank_file_of(st.cfg_, r)) {}

  /// Read the next node: ready, or waiting for its dependencies.
  void read_one()
  {
    if (!reader.next(pn)) {
      end = true;
      drop_absent();
      return;
    }
    ++s.nodes_read_;
    if (seen.contains(pn.id()))
      throw node_error(s.ctx_, rank, pn, "id", "two nodes of this file have this id");
    seen.insert(pn.id());
    if (s.cfg_.replicate && (pn.type() == pb::COMM_SEND_NODE || pn.type() == pb::COMM_RECV_NODE))
      throw node_error(s.ctx_, rank, pn, "type",
                       "replicate copies rank 0's trace to every rank, and a send or receive names its peer: only "
                       "collective, compute and memory nodes can be replicated (give every rank's file)");
    read_metadata_groups(s.ctx_, rank, pn);
    const Local l = local_of(s.ctx_, rank, pn);
    Node n{pn.id(), pn.name(), l.kind, l.comm, l.bytes, l.peer, l.tag, l.duration, l.ops, l.touched, {}, 0,
           is_cpu_op(pn), -1, SimTime{}, l.given};
    if (auto key = lane_key(s.cfg_.compute_order, pn))
      n.lane = lanes.emplace(*key, static_cast<std::int64_t>(lanes.size())).first->second;
    for (auto const* deps : {&pn.ctrl_deps(), &pn.data_deps()})
      for (auto d : *deps) {
        if (d == n.id) {
          repair(s.ctx_, rank, pn, deps == &pn.ctrl_deps() ? "ctrl_deps" : "data_deps", "depends on itself",
                 "the dependency dropped", &ChakraRepairs::self_deps);
          continue;
        }
        if (done.contains(d)) {
          if (auto f = finished_at.find(d); f != finished_at.end())
            n.ready_at = std::max(n.ready_at, f->second);
          continue; // a dependency done before kRecent others leaves ready_at below its end: `late` is an upper bound
        }
        if (std::find(n.deps.begin(), n.deps.end(), d) != n.deps.end())
          continue;
        if (break_cycle(n, d))
          continue;
        n.deps.push_back(d);
        users[d].push_back(n.id);
      }
    n.missing = n.deps.size();
    if (n.missing == 0 && now > n.ready_at)
      s.window_late_.note(rank, n.id, now - n.ready_at);
    if (n.missing == 0)
      make_ready(std::move(n));
    else
      waiting.emplace(n.id, std::move(n));
  }

  /// A CPU operator and its GPU kernel waiting for each other (`n` just read depends on `d`, read earlier, which
  /// waits for `n`): the operator's dependency on its kernel goes (ChakraTrace.cpp's rank_graph says why). True when
  /// it was `n`'s dependency on `d`.
  bool break_cycle(Node& n, std::uint64_t d)
  {
    auto w = waiting.find(d);
    if (w == waiting.end() || n.cpu == w->second.cpu ||
        std::find(w->second.deps.begin(), w->second.deps.end(), n.id) == w->second.deps.end())
      return false;
    Node& cpu = n.cpu ? n : w->second;
    Node& gpu = n.cpu ? w->second : n;
    repair(s.ctx_, rank, pn, "data_deps",
           fmt::format("is on a dependency cycle with node {}: the CPU operator waits for its own kernel (operator {}, "
                       "GPU kernel {})",
                       d, cpu.id, gpu.id),
           "the operator's dependency on its kernel dropped", &ChakraRepairs::cpu_gpu_cycles);
    if (n.cpu)
      return true;
    std::erase(w->second.deps, n.id); // the operator read earlier no longer waits for this kernel
    std::erase(users[n.id], d);
    if (--w->second.missing == 0) {
      make_ready(std::move(w->second));
      waiting.erase(w);
    }
    return false;
  }

  /// The whole file read: dependencies on ids it never had are dropped (repaired; strict: an error). Their nodes
  /// waited until now (ASSUMPTION: a streamed trace learns an id is absent only at its file's end).
  void drop_absent()
  {
    std::vector<std::uint64_t> freed;
    for (auto& [id, w] : waiting)
      for (auto d : std::vector<std::uint64_t>(w.deps))
        if (!seen.contains(d)) {
          pn.set_id(id);
          pn.set_name(w.name);
          repair(s.ctx_, rank, pn, "data_deps", fmt::format("depends on node {}, which this file does not hold", d),
                 "the dependency dropped, as Chakra's converter leaves ids it removed", &ChakraRepairs::absent_deps);
          std::erase(w.deps, d);
          if (--w.missing == 0)
            freed.push_back(id);
        }
    std::sort(freed.begin(), freed.end());
    for (auto id : freed) {
      if (auto const& w = waiting.at(id); now > w.ready_at)
        s.absent_late_.note(rank, id, now - w.ready_at);
      make_ready(std::move(waiting.at(id)));
      waiting.erase(id);
    }
  }

  /// A node whose dependencies are done: ready, or held for its lane.
  void make_ready(Node&& n)
  {
    if (n.lane < 0) {
      ready.push_back(std::move(n));
      return;
    }
    ++held_count;
    held[n.lane].emplace(n.id, std::move(n));
  }

  /// Each free lane takes its lowest held id.
  void dispatch()
  {
    for (auto& [lane, q] : held)
      if (!q.empty() && busy.insert(lane).second) {
        ready.push_back(std::move(q.begin()->second));
        q.erase(q.begin());
        --held_count;
      }
  }

  /// Node `id` is done (and its lane free): those waiting only for it are ready.
  void complete(std::uint64_t id, std::int64_t lane)
  {
    done.insert(id);
    finished_at[id] = now;
    finished_order.push_back(id);
    if (finished_order.size() > kRecent) {
      finished_at.erase(finished_order.front());
      finished_order.pop_front();
    }
    if (lane >= 0)
      busy.erase(lane);
    auto it = users.find(id);
    if (it == users.end())
      return;
    for (auto u : it->second) {
      auto w = waiting.find(u);
      if (w != waiting.end())
        w->second.ready_at = now;
      if (w != waiting.end() && --w->second.missing == 0) {
        make_ready(std::move(w->second));
        waiting.erase(w);
      }
    }
    users.erase(it);
  }

  /// The file ended with nodes that can never run.
  config::ConfigError stuck() const
  {
    auto const& [id, n] = *waiting.begin();
    std::uint64_t dep   = n.deps.front();
    for (auto d : n.deps)
      if (!done.contains(d))
        dep = d;
    return config::ConfigError(reader.file(), fmt::format("node {} ('{}')", id, n.name),
                               fmt::format("never runs: it waits for node {}, which {} (with {} other node(s) left "
                                           "waiting at the end of the file)",
                                           dep, seen.contains(dep) ? "waits in turn (a dependency cycle)"
                                                                    : "the file does not have",
                                           waiting.size() - 1));
  }

  config::ConfigError too_far() const
  {
    return config::ConfigError(reader.file(), "",
                               fmt::format("{} nodes read wait for nodes not read yet (node {} waits for {}): the "
                                           "trace lists dependencies too far ahead to stream (run it without stream)",
                                           waiting.size(), waiting.begin()->first,
                                           waiting.begin()->second.deps.front()));
  }
};

void ChakraStream::run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank)
{
  RankRun run(*this, rank);
  std::vector<std::pair<std::uint64_t, std::int64_t>> finished; // (id, lane)
  std::size_t running = 0;
  const ActorId self  = ctx.id();
  auto* host          = mpi_ ? c.at<nodes::HostNode>(hosts_[rank]).host() : c.at<nodes::FpgaNode>(hosts_[rank]).host();
  for (;;) {
    run.now = ctx.now();
    // Read a window ahead; further only while nothing can run.
    auto read_ahead = [&] { return run.waiting.size() + run.ready.size() + run.held_count; };
    while (!run.end && (read_ahead() < kWindow || (run.ready.empty() && run.held_count == 0 && running == 0))) {
      if (run.waiting.size() >= kMaxHeld)
        throw run.too_far();
      run.read_one();
    }
    run.dispatch();
    if (run.ready.empty() && running == 0) {
      if (run.waiting.empty())
        break; // the end of the file, everything run
      throw run.stuck();
    }
    if (run.ready.size() == 1 && running == 0) { // a chain: run it here
      Node n = std::move(run.ready.front());
      run.ready.pop_front();
      execute(ctx, c, rank, n);
      run.now = ctx.now();
      run.complete(n.id, n.lane);
      continue;
    }
    // Several at once: each in an actor of its own, eager receives last (ProgramPlan::receives_last).
    if (cfg_.sends == ChakraSends::Eager)
      std::stable_partition(run.ready.begin(), run.ready.end(),
                            [](const Node& n) { return n.kind != ProgramOpKind::Recv; });
    for (; !run.ready.empty(); run.ready.pop_front()) {
      ++running;
      c.scheduler().spawn(fmt::format("chakra-rank-{}-node-{}", rank, run.ready.front().id), host,
                          [&, n = std::move(run.ready.front())](ActorContext& a) {
                            execute(a, c, rank, n);
                            finished.emplace_back(n.id, n.lane);
                            --running;
                            a.scheduler().wake(self);
                          });
    }
    ctx.wait_until([&] { return !finished.empty(); }, WaitReason([rank, &running] {
                     return fmt::format("trace rank {} waits for its {} node(s) in flight", rank, running);
                   }));
    run.now = ctx.now();
    for (auto [id, lane] : std::exchange(finished, {}))
      run.complete(id, lane);
  }
}

void ChakraStream::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  std::uint64_t unmatched = 0; // sends no receive took: still waiting in the matching queues at the end
  std::string first;
  for (auto const& [key, q] : messages_)
    for (auto const& [send, bytes] : q)
      if (send && unmatched++ == 0)
        first = fmt::format("rank {}'s send of {} bytes to rank {}, tag {}", std::get<0>(key), bytes,
                            std::get<1>(key), std::get<2>(key));
  if (unmatched > 0)
    summary.push_back(unmatched_sends_line(unmatched, first));
  if (auto const& w = window_late_; w.nodes > 0)
    summary.push_back(fmt::format("  stream window: {} node(s) were ready before the {}-node window read them and "
                                  "started late, by up to {:.3f} us (rank {}'s node {}); read whole (workload.stream: "
                                  "false) they start when ready",
                                  w.nodes, kWindow, w.most.us(), w.rank, w.id));
  if (auto const& w = absent_late_; w.nodes > 0)
    summary.push_back(fmt::format("  stream: {} node(s) waiting for ids their file does not hold started at the end of "
                                  "their file, late by up to {:.3f} us (rank {}'s node {}); read whole they start "
                                  "when ready",
                                  w.nodes, w.most.us(), w.rank, w.id));
  results::Table rk("program_ranks", {"rank", "position", "operations", "end_us", "communication_us", "compute_us",
                                     "exposed_communication_us"});
  SimTime last;
  unsigned slowest = 0;
  for (unsigned r = 0; r < ctx_.ranks; ++r) {
    auto const& t = totals_[r];
    rk.row()
        .add(r)
        .add(static_cast<unsigned>(hosts_[r]))
        .add(t.operations)
        .add(t.end.us(), 4)
        .add(t.communication.us(), 4)
        .add(t.compute.us(), 4)
        .add(t.exposed.us(), 4);
    if (t.end > last) {
      last    = t.end;
      slowest = r;
    }
  }
  sink.add(std::move(rk));
  summary.push_back(fmt::format("program: {} nodes streamed on {} ranks ({}; {} communicator(s)), done at {:.3f} us "
                                "(rank {} last); program_ranks.csv has each rank's totals (no per-node table when "
                                "streaming)",
                                nodes_read_, ctx_.ranks,
                                mpi_ ? fmt::format("MPI on CPU hosts, {}", config::enum_name(mpi_->library()))
                                     : std::string("CCLO on FPGAs"),
                                ctx_.comms.size(), last.us(), slowest));
  if (const CausalGraph* g = c.scheduler().causes())
    report_run_path(*g, std::vector<std::uint32_t>(hosts_.begin(), hosts_.end()), slowest, totals_[slowest].end_cause,
                    last, sink, summary);
}

} // namespace nafsim::workloads
