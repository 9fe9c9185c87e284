#include "workloads/program/Program.hpp"

#include "workloads/CriticalPath.hpp"

#include "nodes/cclo/CallPlan.hpp"
#include "nodes/cclo/CcloBuild.hpp"
#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/host/HostCluster.hpp"
#include "simcore/config/ConfigError.hpp"
#include "nodes/fpga/FpgaNode.hpp"
#include "nodes/host/HostNode.hpp"
#include "workloads/program/ComputeTime.hpp"
#include "workloads/program/DramShare.hpp"
#include "workloads/program/Placement.hpp"
#include "workloads/program/SendDelivery.hpp"
#include "workloads/collective/Verify.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <utility>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nafsim::workloads {

Program::Program(const ProgramConfig& cfg) : plan_(ProgramPlan::resolve(cfg)) {}

std::string Program::unread_reason(std::string_view key) const
{
  return compute_model_unread(plan_.cfg.engine, "compute", key);
}

Program::Program(ProgramPlan plan) : plan_(std::move(plan)) {}

void Program::place(const nodes::Cluster& c)
{
  hosts_ = place_ranks(c, plan_.cfg.engine, plan_.cfg.ranks, plan_.cfg.positions);
  compute_free_.assign(hosts_.size(),
                       std::vector<SimTime>(compute_slots(c, plan_.cfg.engine, plan_.cfg.compute), SimTime{}));
}

void Program::fill_buffers(nodes::Cluster& c)
{
  auto const& pc = plan_.cfg;
  const bool half = pc.dtype == DataType::Float16 ||
                    std::any_of(pc.ops.begin(), pc.ops.end(), [](const ProgramOp& k) { return k.compress; });
  const DataPattern pattern{pc.dtype, half, pc.ranks};
  const unsigned eb = nodes::dtype_bytes(pc.dtype);
  std::vector<std::vector<std::vector<double>>> initial(pc.buffers.size());
  for (std::size_t b = 0; b < pc.buffers.size(); ++b) {
    auto const& buf = pc.buffers[b];
    for (unsigned r = 0; r < pc.ranks; ++r) {
      std::vector<double> v(buf.elements, 0.0);
      std::vector<std::byte> bytes(buf.elements * eb);
      for (std::uint64_t i = 0; i < buf.elements; ++i) {
        v[i] = buf.init == BufferInit::Pattern ? pattern(r, i, static_cast<unsigned>(b)) : 0.0;
        nodes::set_element(pc.dtype, bytes, i, v[i]);
      }
      c.data()->memory.at(hosts_[r]).write(plan_.buffer_addr[b], bytes);
      initial[b].push_back(std::move(v));
    }
  }
  reference_ = std::make_unique<ProgramReference>(plan_, initial);
}

simgrid::s4u::Host* Program::sim_host(nodes::Cluster& c, unsigned rank) const
{
  return mpi_ ? c.at<nodes::HostNode>(hosts_[rank]).host() : c.at<nodes::FpgaNode>(hosts_[rank]).host();
}

// Operations whose protocol or algorithm is forced, or that read or write a kernel stream, planned as the firmware
// will plan them (nodes/cclo/CallPlan.hpp): one that cannot run fails here, before the run and under --check-only.
// (The others take the firmware's own choice, which runs, unless a rendezvous block is beyond what one RDMA WRITE
// carries: operations that large are planned too.) Then every message's send and receive must take
// one protocol: the firmware's send() and recv() each decide by their own bytes and flags (ccl_offload_control.c:
// `(bytes_count > max_eager_size) && (compression == NO_COMPRESSION) && (stream == NO_STREAM)`), and a rendezvous
// send waits for an address that an eager receive never sends, while the receive waits for an eager message that
// never comes: the hardware hangs.
void Program::check_calls(nodes::Cluster& c) const
{
  auto const& pc = plan_.cfg;
  for (auto const& o : plan_.ops) {
    if (o.kind == ProgramOpKind::Compute || o.kind == ProgramOpKind::Wait)
      continue;
    auto const& k = pc.ops[o.index];
    const bool streams = plan_.location(o.src) == nodes::DataLocation::Stream ||
                         plan_.location(o.dst) == nodes::DataLocation::Stream;
    const bool forced = k.algorithm != AlgorithmChoice::Auto || k.protocol == ProtocolChoice::Rendezvous ||
                        (k.protocol == ProtocolChoice::Eager && !is_p2p(o.kind)); // an eager send always runs
    const bool large = o.count * nodes::dtype_bytes(pc.dtype) > nodes::kCoyoteMaxWrite; // (plan_call decides)
    if (!forced && !streams && !k.compress && !large)
      continue;
    for (unsigned r : o.runs) {
      auto p                 = planned(c, o, r);
      const bool dst_streams = plan_.location(o.dst) == nodes::DataLocation::Stream;
      const char* streamed   = dst_streams && plan_.location(o.src) != nodes::DataLocation::Stream ? "dst" : "src";
      if (!p.error.empty())
        throw config::ConfigError("", fmt::format("/workload/ops/{}/{}", o.index,
                                                  p.stream_refused                     ? streamed
                                                  : p.write_refused                    ? "protocol"
                                                  : k.algorithm != AlgorithmChoice::Auto ? "algorithm"
                                                  : k.protocol != ProtocolChoice::Auto ? "protocol"
                                                  : k.compress                         ? "compress"
                                                                                       : "src"),
                                  fmt::format("on rank {}: {}", r, p.error));
    }
  }
  check_message_protocols(c);
}

nodes::CallPlan Program::planned(nodes::Cluster& c, const PlannedOp& o, unsigned r) const
{
  auto const& cclo = nodes::cclo_of(c, hosts_[r]);
  return nodes::plan_call(plan_.cclo_call(o, r, hosts_), cclo.config(), cclo.link());
}

void Program::check_message_protocols(nodes::Cluster& c) const
{
  auto const& pc = plan_.cfg;
  for (auto const& m : plan_.messages()) {
    auto const& so = plan_.ops[m.send];
    auto const& ro = plan_.ops[m.recv];
    // Why each end takes its protocol; the end that departs from the size rule is the one to name. Two ends that
    // follow it (the same count, every node's tuning the same) take the same protocol: not planned.
    auto streamed = [&](const PlannedOp& o) {
      return plan_.location(o.kind == ProgramOpKind::Send ? o.src : o.dst) == nodes::DataLocation::Stream;
    };
    auto departs = [&](const PlannedOp& o) {
      return pc.ops[o.index].protocol != ProtocolChoice::Auto || streamed(o) || pc.ops[o.index].compress;
    };
    if (!departs(so) && !departs(ro))
      continue;
    auto ps = planned(c, so, m.from), pr = planned(c, ro, m.to);
    if (!ps.error.empty() || !pr.error.empty() || ps.rendezvous == pr.rendezvous)
      continue;
    auto why = [&](const PlannedOp& o, bool rndzv) -> std::string {
      auto const& k = pc.ops[o.index];
      if (k.protocol != ProtocolChoice::Auto)
        return "forced (its protocol)";
      if (streamed(o))
        return "a kernel stream at its end, which the firmware never moves rendezvous";
      if (k.compress)
        return "compressed";
      auto const& t = nodes::cclo_of(c, hosts_[o.kind == ProgramOpKind::Send ? m.from : m.to]).config().tuning;
      return fmt::format("{} max_eager_size {}", rndzv ? "above" : "not above", format_bytes(t.max_eager_size));
    };
    const PlannedOp& at = departs(ro) ? ro : so;
    const char* field   = pc.ops[at.index].protocol != ProtocolChoice::Auto ? "protocol"
                          : streamed(at)                                      ? (&at == &ro ? "dst" : "src")
                                                                               : "compress";
    throw config::ConfigError(
        "", fmt::format("/workload/ops/{}/{}", at.index, field),
        fmt::format("rank {}'s send (ops/{}) of {} goes {} ({}), but rank {}'s receive (ops/{}) goes {} ({}): the "
                    "firmware's {} waits for a {} the {} never sends (the hardware hangs); give both ends one "
                    "protocol: stream both or neither, force both or neither, or keep the message within "
                    "max_eager_size",
                    m.from, m.send, format_bytes(Bytes{so.count * nodes::dtype_bytes(pc.dtype)}),
                    ps.rendezvous ? "rendezvous" : "eager", why(so, ps.rendezvous), m.to, m.recv,
                    pr.rendezvous ? "rendezvous" : "eager", why(ro, pr.rendezvous),
                    ps.rendezvous ? "send" : "receive", ps.rendezvous ? "destination address" : "completion notice",
                    ps.rendezvous ? "eager receive" : "eager send"));
  }
}

void Program::start(nodes::Cluster& c)
{
  check_compute_model(c, plan_.cfg.engine, plan_.cfg.compute, "/workload/compute");
  place(c);
  dram_ = dram_shares(c, plan_.cfg.engine, plan_.cfg.compute, hosts_.size());
  if (plan_.cfg.engine == ProgramEngine::Mpi) {
    MpiEngine::check(plan_);
    mpi_ = std::make_unique<MpiEngine>(c);
  }
  if (std::any_of(plan_.cfg.ops.begin(), plan_.cfg.ops.end(), [](auto const& k) { return k.at_delivery; }))
    track_delivery(c, plan_.cfg.engine, hosts_);
  const auto& rx = nodes::fpga_config(c.config().node).cclo.rx_buffers.size;
  for (auto const& o : plan_.ops) // ACCL's stream_put does not segment: one Rx buffer's worth at most
    if (o.kind == ProgramOpKind::StreamPut && o.count * nodes::dtype_bytes(plan_.cfg.dtype) > rx.count)
      throw config::ConfigError("", fmt::format("/workload/ops/{}/count", o.index),
                                fmt::format("stream_put of {} elements: ACCL's stream_put does not segment, so it "
                                            "carries at most one Rx buffer ({}); put it in pieces",
                                            o.count, format_bytes(rx)));
  auto const& pc = plan_.cfg;
  if (pc.verify) {
    std::uint64_t bytes = 0;
    for (auto const& b : pc.buffers)
      bytes += b.elements * nodes::dtype_bytes(pc.dtype);
    check_verify_budget("/workload/buffers", bytes, bytes, pc.ranks);
    c.carry_data();
    fill_buffers(c);
  }
  if (!mpi_)
    check_calls(c);
  std::vector<std::uint32_t> pids;
  for (auto h : hosts_)
    pids.push_back(c.trace_pid(h));
  trace_ = std::make_unique<ProgramTrace>(c.trace(), std::move(pids));
  records_.clear();
  mine_.assign(pc.ranks, {});
  for (auto const& o : plan_.ops) {
    records_.emplace_back(o.runs.size());
    for (std::size_t j = 0; j < o.runs.size(); ++j)
      mine_[o.runs[j]].emplace_back(o.index, j);
  }
  if (!mpi_)
    nodes::check_communicator(c, hosts_);
  for (unsigned r = 0; r < pc.ranks; ++r) {
    if (mpi_)
      nodes::mpi_of(c, hosts_[r]);
    else
      nodes::cclo_of(c, hosts_[r]);
    c.scheduler().spawn(fmt::format("program-rank-{}", r), sim_host(c, r),
                        [this, &c, r](ActorContext& ctx) { run_rank(ctx, c, r); });
  }
}

void Program::execute(ActorContext& ctx, nodes::Cluster& c, const PlannedOp& o, std::size_t j, unsigned rank)
{
  static const std::uint32_t busy = cause_what("workload", "program compute");
  Record& rec = records_[o.index][j];
  rec.start   = ctx.now();
  rec.started = true;
  check_call_order(o, rank);
  if (!o.stream_wait.empty() && o.stream_wait[j] > 0) // a kernel stream is a FIFO: its reader waits for the data
    nodes::cclo_of(c, hosts_[rank]).wait_stream(ctx, plan_.stream_ids.at(static_cast<std::size_t>(o.src)), o.stream_wait[j]);
  const std::size_t lane = trace_->on() ? trace_->begin(rank) : 0;
  if (o.kind == ProgramOpKind::Compute) {
    auto const& k = plan_.cfg.ops[o.index];
    // On the MPI engine a phase by work on every core holds the rank's thread: the library makes no progress until
    // it ends (MpiProcess::hold_progress). A phase by duration may be anything (an accelerator's kernel): not held.
    nodes::MpiProcess* held = holds_mpi_progress(c, o.index) ? &nodes::mpi_of(c, hosts_[rank]) : nullptr;
    if (held)
      held->hold_progress();
    run_compute(ctx, c, plan_.cfg.engine, plan_.cfg.compute, ctx.now(), {k.duration, k.operations, k.bytes.count},
                compute_free_[rank], dram_.empty() ? nullptr : dram_[rank].get(), CauseLabel::at_host(busy, hosts_[rank]));
    if (held)
      held->release_progress();
  } else if (o.kind != ProgramOpKind::Wait && mpi_) {
    rec.algorithm = mpi_->run(ctx, c, plan_, o, rank, hosts_, reference_ != nullptr);
  } else if (o.kind != ProgramOpKind::Wait) {
    auto res = nodes::cclo_of(c, hosts_[rank]).call(ctx, plan_.cclo_call(o, rank, hosts_));
    if (!res.error.empty())
      throw SimulationError(fmt::format("program operation {} ({}{}) on rank {}: {}", o.index, config::enum_name(o.kind),
                                        o.name.empty() ? "" : ", " + o.name, rank, res.error));
    rec.protocol  = coll::protocol_name(res.protocol);
    rec.algorithm = coll::algorithm_name(res.algorithm);
  }
  if (o.kind == ProgramOpKind::Send && plan_.cfg.ops[o.index].at_delivery) // done once its data is delivered
    wait_delivered(ctx, c, plan_.cfg.engine, hosts_[rank], hosts_[static_cast<std::size_t>(o.peer[rank])]);
  rec.end       = ctx.now();
  rec.end_cause = ctx.scheduler().cause_mark();
  rec.ran       = true;
  ++ops_done_;
  if (trace_->on())
    trace_->end(rank, lane, o.name.empty() ? fmt::format("{} (op {})", config::enum_name(o.kind), o.index) : o.name,
                rec.start, rec.end,
                nlohmann::json{{"op", o.index},
                               {"kind", config::enum_name(o.kind)},
                               {"comm", plan_.comm_names[o.comm]},
                               {"bytes", o.count * nodes::dtype_bytes(plan_.cfg.dtype)},
                               {"protocol", rec.protocol},
                               {"algorithm", rec.algorithm}}
                    .dump());
  if (reference_)
    check(c, o, rank);
}

void Program::check_call_order(const PlannedOp& o, unsigned rank)
{
  if (!is_collective(o.kind))
    return;
  if (order_.size() < plan_.comms.size())
    order_.resize(plan_.comms.size());
  if (called_.size() <= rank)
    called_.resize(rank + 1);
  auto& made = called_[rank];
  if (made.size() < plan_.comms.size())
    made.resize(plan_.comms.size(), 0);
  CallOrder& ord        = order_[o.comm];
  const std::uint64_t k = made[o.comm]++;
  while (ord.calls.size() <= k - ord.base)
    ord.calls.emplace_back(o.index, 0);
  auto& [op, arrived] = ord.calls[k - ord.base];
  if (op != o.index) {
    auto name = [&](std::size_t i) { // a trace's operations carry its node's name
      auto it = std::find_if(plan_.ops.begin(), plan_.ops.end(), [&](const PlannedOp& p) { return p.index == i; });
      const std::string n = it == plan_.ops.end() || it->name.empty() ? "" : ", '" + it->name + "'";
      return fmt::format("operation {} ({}{})", i, config::enum_name(plan_.cfg.ops[i].op), n);
    };
    throw SimulationError(fmt::format(
        "the program's ranks call the collectives of communicator '{}' in different orders: rank {} calls {} as its "
        "collective number {} there, where another member called {}; MPI and the CCLO both need one order of a "
        "communicator's collectives on every member. Their dependencies (`after`, `wait`, or a trace's) let them run "
        "at once: make one depend on the other",
        plan_.comm_names[o.comm], rank, name(o.index), k + 1, name(op)));
  }
  ++arrived;
  while (!ord.calls.empty() && ord.calls.front().second == records_[ord.calls.front().first].size()) {
    ord.calls.pop_front();
    ++ord.base;
  }
}

Program::RankGraph Program::rank_graph(unsigned rank) const
{
  // The rank's operations in list order, and who waits for whom (an operation's `after`, else the rank's previous).
  auto const& mine = mine_[rank];
  const std::size_t n = mine.size();
  RankGraph g{std::vector<std::vector<std::size_t>>(n), std::vector<std::size_t>(n, 0)};
  std::unordered_map<std::size_t, std::size_t> at; // op index -> position in `mine`
  for (std::size_t k = 0; k < n; ++k) {
    auto const& o = plan_.ops[mine[k].first];
    at.emplace(o.index, k);
    if (o.deps_given) {
      for (auto d : o.after[mine[k].second]) {
        g.users[at.at(d)].push_back(k);
        ++g.missing[k];
      }
    } else if (k > 0) {
      g.users[k - 1].push_back(k);
      ++g.missing[k];
    }
  }
  return g;
}

void Program::run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank)
{
  auto const& mine = mine_[rank];
  const std::size_t n = mine.size();
  auto [users, missing] = rank_graph(rank);
  // Start every operation whose predecessors are done, in list order: inline when it is the only one and nothing
  // is in flight (a sequential program runs in this one actor), else each in its own actor. An operation on a lane
  // waits, besides, for the lane: one at a time per lane, the lowest index first.
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  std::map<std::int64_t, std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>>> held;
  std::set<std::int64_t> busy; // lanes with an operation started
  auto lane = [&](std::size_t k) { return plan_.ops[mine[k].first].lane; };
  auto make_ready = [&](std::size_t k) {
    if (lane(k) < 0)
      ready.push(k);
    else
      held[lane(k)].push(k);
  };
  auto dispatch = [&] {
    for (auto& [l, q] : held)
      if (!q.empty() && busy.insert(l).second) {
        ready.push(q.top());
        q.pop();
      }
  };
  for (std::size_t k = 0; k < n; ++k)
    if (missing[k] == 0)
      make_ready(k);
  std::vector<std::size_t> finished; // by the actors, not yet seen here
  std::size_t done = 0, running = 0;
  const ActorId self = ctx.id();
  auto complete = [&](std::size_t k) {
    ++done;
    if (lane(k) >= 0)
      busy.erase(lane(k));
    for (auto u : users[k])
      if (--missing[u] == 0)
        make_ready(u);
  };
  auto run = [this, &c, rank](ActorContext& a, std::size_t op, std::size_t j) {
    execute(a, c, plan_.ops[op], j, rank);
  };
  while (done < n) {
    dispatch();
    if (ready.size() == 1 && running == 0) {
      const std::size_t k = ready.top();
      ready.pop();
      run(ctx, mine[k].first, mine[k].second);
      complete(k);
      continue;
    }
    std::vector<std::size_t> now;
    for (; !ready.empty(); ready.pop())
      now.push_back(ready.top());
    if (plan_.receives_last)
      std::stable_partition(now.begin(), now.end(),
                            [&](std::size_t k) { return plan_.ops[mine[k].first].kind != ProgramOpKind::Recv; });
    for (const std::size_t k : now) {
      ++running;
      c.scheduler().spawn(fmt::format("program-rank-{}-op-{}", rank, mine[k].first), sim_host(c, rank),
                          [&, k](ActorContext& a) {
                            run(a, mine[k].first, mine[k].second);
                            finished.push_back(k);
                            --running;
                            a.scheduler().wake(self);
                          });
    }
    ctx.wait_until([&] { return !finished.empty(); },
                   WaitReason([rank, &running] {
                     return fmt::format("program rank {} waits for its {} operation(s) in flight", rank, running);
                   }));
    for (auto k : std::exchange(finished, {}))
      complete(k);
  }
}

void Program::check(nodes::Cluster& c, const PlannedOp& o, unsigned rank) const
{
  auto const& want = reference_->after(o.index, rank);
  if (o.dst < 0 || want.empty() || o.kind == ProgramOpKind::StreamPut)
    return; // a stream_put writes the peer's stream, checked when the peer reads it
  const auto dt  = plan_.cfg.dtype;
  const auto got = c.data()->memory.at(hosts_[rank]).read(plan_.buffer_addr[static_cast<std::size_t>(o.dst)],
                                                           want.size() * nodes::dtype_bytes(dt));
  const bool half  = dt == DataType::Float16 || plan_.cfg.ops[o.index].compress; // float16 somewhere on the way
  const double tol = half ? 1e-3 : dt == DataType::Float32 ? 1e-6 : 0.0;
  for (std::uint64_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]))
      continue;
    const double g = nodes::element_value(dt, got, i);
    if (std::abs(g - want[i]) > tol * std::max(1.0, std::abs(want[i]))) {
      const std::string what = fmt::format("verify: program operation {} ({}) on rank {}: buffer '{}'[{}] = {}, "
                                           "expected {}",
                                           o.index, config::enum_name(o.kind), rank,
                                           plan_.cfg.buffers[static_cast<std::size_t>(o.dst)].name, i, g, want[i]);
      if (auto race = concurrent_user(o, rank); !race.empty())
        throw SimulationError(fmt::format("{}; {}: the program lets them overlap (after / wait), so the data depends "
                                          "on their timing; make one wait for the other",
                                          what, race));
      throw SimulationError(fmt::format("{}; the simulated {} delivered wrong data, a simulator bug: please report it "
                                        "with this scenario",
                                        what, mpi_ ? "MPI library" : "CCLO"));
    }
    ++const_cast<Program*>(this)->checked_;
  }
}

std::string Program::concurrent_user(const PlannedOp& o, unsigned rank) const
{
  auto record = [&](const PlannedOp& x, unsigned r) -> const Record* {
    auto at = std::find(x.runs.begin(), x.runs.end(), r);
    return at == x.runs.end() ? nullptr : &records_[x.index][static_cast<std::size_t>(at - x.runs.begin())];
  };
  const Record& mine = *record(o, rank);
  // The buffer x and y both use, one of them writing it (-1: none).
  auto shared = [](const PlannedOp& x, const PlannedOp& y) {
    if (x.dst >= 0 && (x.dst == y.dst || x.dst == y.src))
      return x.dst;
    if (y.dst >= 0 && y.dst == x.src)
      return y.dst;
    return -1;
  };
  auto overlap = [](const Record& a, const Record& b) {
    return a.started && b.started && a.start < (b.ran ? b.end : SimTime::max()) &&
           b.start < (a.ran ? a.end : SimTime::max());
  };
  auto describe = [&](const PlannedOp& x, const Record& rx, const PlannedOp& y, unsigned r, int b) {
    return fmt::format("operation {} ({}) ran on rank {} at the same time ({} to {}) as operation {} ({}), and both use "
                       "buffer '{}'",
                       x.index, config::enum_name(x.kind), r, format_time(rx.start),
                       rx.ran ? format_time(rx.end) : std::string("later"), y.index, config::enum_name(y.kind),
                       plan_.cfg.buffers[static_cast<std::size_t>(b)].name);
  };
  // An operation beside this one on its rank; else a race on any rank before this one ended (its data may have come
  // from there: a send reading a buffer another operation was writing).
  for (auto const& x : plan_.ops)
    if (const Record* rx = record(x, rank); rx && x.index != o.index && overlap(*rx, mine))
      if (int b = shared(x, o); b >= 0)
        return describe(x, *rx, o, rank, b);
  for (unsigned r = 0; r < plan_.cfg.ranks; ++r)
    for (auto const& x : plan_.ops)
      for (auto const& y : plan_.ops) {
        const Record* rx = record(x, r);
        const Record* ry = record(y, r);
        if (x.index >= y.index || !rx || !ry || !overlap(*rx, *ry) || rx->start >= mine.end)
          continue;
        if (int b = shared(x, y); b >= 0)
          return describe(x, *rx, y, r, b);
      }
  return {};
}

namespace {
using Spans = std::vector<std::pair<SimTime, SimTime>>;
// Sorted, disjoint spans covering the same time as `v`.
Spans merged(Spans v)
{
  std::sort(v.begin(), v.end());
  Spans out;
  for (auto const& s : v)
    if (!out.empty() && s.first <= out.back().second)
      out.back().second = std::max(out.back().second, s.second);
    else
      out.push_back(s);
  return out;
}
SimTime length(const Spans& v)
{
  SimTime t;
  for (auto const& s : v)
    t += s.second - s.first;
  return t;
}
// Time covered by both (each sorted and disjoint).
SimTime overlap(const Spans& a, const Spans& b)
{
  SimTime t;
  std::size_t j = 0;
  for (auto const& s : a) {
    while (j < b.size() && b[j].second <= s.first)
      ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < s.second; ++k)
      t += std::min(s.second, b[k].second) - std::max(s.first, b[k].first);
  }
  return t;
}
// The MPI engine's calls in flight beside compute phases of every core (`time`, summed over `ranks` ranks), during
// which the library made no progress (MpiProcess::hold_progress): said, or nothing. Counted on ranks where the library
// had work held (progress_held): a call in flight may only have waited for its peer meanwhile.
struct HeldProgress {
  SimTime time;
  unsigned ranks = 0;
  std::string note() const
  {
    if (time == SimTime{})
      return {};
    return fmt::format("  on {} rank(s) MPI calls were in flight beside compute phases that take every core ({:.3f} us "
                       "in all): the library made no progress during them (Open MPI and MPICH over UCX run no "
                       "progress thread by default; mpi_counters.csv progress_held), so their work waited for the "
                       "phases' end; with compute.threads below the hosts' cores the library keeps a core and goes on",
                       ranks, time.us());
  }
};
} // namespace

bool Program::holds_mpi_progress(const nodes::Cluster& c, std::size_t index) const
{
  return plan_.cfg.ops[index].duration == SimTime{} && plan_.holds_mpi_progress &&
         takes_every_core(c, plan_.cfg.engine, plan_.cfg.compute);
}

void Program::note_segments(const nodes::Cluster& c, std::vector<std::string>& summary) const
{
  // Eager messages cut into Rx-buffer segments (CCLO engine only): said, with the build that runs them whole.
  const unsigned eb     = nodes::dtype_bytes(plan_.cfg.dtype);
  std::uint64_t largest = 0;
  bool forced           = false;
  for (auto const& o : plan_.ops)
    for (auto const& rec : records_[o.index])
      if (rec.ran && rec.protocol == "eager" && o.kind != ProgramOpKind::StreamPut) {
        largest = std::max(largest, o.count * eb);
        forced  = forced || plan_.cfg.ops[o.index].protocol == ProtocolChoice::Eager;
      }
  if (auto note = nodes::segmentation_note(nodes::fpga_config(c.config().node).cclo, largest, forced); !note.empty())
    summary.push_back("  " + note);
}

void Program::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  results::Table t("program_ops", {"op", "kind", "name", "comm", "rank", "position", "count", "bytes", "protocol", "algorithm",
                                   "start_us", "end_us", "duration_us"});
  results::Table rk("program_ranks", {"rank", "position", "operations", "end_us", "communication_us", "compute_us",
                                     "exposed_communication_us"});
  const unsigned eb = nodes::dtype_bytes(plan_.cfg.dtype);
  SimTime last;
  unsigned slowest          = 0;
  std::uint32_t last_cause = 0;
  HeldProgress held;
  for (unsigned r = 0; r < plan_.cfg.ranks; ++r) {
    SimTime end;
    std::uint32_t end_cause = 0;
    std::vector<std::pair<SimTime, SimTime>> comm, comp; // intervals of calls in flight, of compute
    std::vector<std::pair<SimTime, SimTime>> all_cores;  // of compute on every core (MPI engine)
    std::uint64_t n = 0;
    for (auto [op, j] : mine_[r]) {
      auto const& o   = plan_.ops[op];
      auto const& rec = records_[op][j];
      if (!rec.ran)
        continue;
      ++n;
      if (o.kind != ProgramOpKind::Wait)
        (counts_as_compute(plan_.cfg.engine, o.kind) ? comp : comm).emplace_back(rec.start, rec.end);
      if (o.kind == ProgramOpKind::Compute && holds_mpi_progress(c, o.index))
        all_cores.emplace_back(rec.start, rec.end);
      if (rec.end >= end) {
        end       = rec.end;
        end_cause = rec.end_cause;
      }
      t.row()
          .add(static_cast<std::uint64_t>(o.index))
          .add(config::enum_name(o.kind))
          .add(o.name)
          .add(plan_.comm_names[o.comm])
          .add(r)
          .add(static_cast<unsigned>(hosts_[r]))
          .add(o.count)
          .add(o.count * eb)
          .add(rec.protocol)
          .add(rec.algorithm)
          .add(rec.start.us(), 4)
          .add(rec.end.us(), 4)
          .add((rec.end - rec.start).us(), 4);
    }
    auto comm_u = merged(std::move(comm)), comp_u = merged(std::move(comp));
    if (const SimTime under = overlap(comm_u, merged(std::move(all_cores)));
        under > SimTime{} && c.at<nodes::HostNode>(hosts_[r]).mpi()->counters().progress_held > 0)
      held = {held.time + under, held.ranks + 1};
    rk.row()
        .add(r)
        .add(static_cast<unsigned>(hosts_[r]))
        .add(n)
        .add(end.us(), 4)
        .add(length(comm_u).us(), 4)
        .add(length(comp_u).us(), 4)
        .add((length(comm_u) - overlap(comm_u, comp_u)).us(), 4);
    if (end > last) {
      last       = end;
      slowest    = r;
      last_cause = end_cause;
    }
  }
  if (!mpi_)
    note_segments(c, summary);
  sink.add(std::move(t));
  sink.add(std::move(rk));
  summary.push_back(fmt::format("program: {} operations on {} ranks ({}; {} communicator(s)), done at {:.3f} us (rank {} "
                                "last){}",
                                plan_.ops.size(), plan_.cfg.ranks,
                                mpi_ ? fmt::format("MPI on CPU hosts, {}", config::enum_name(mpi_->library()))
                                     : std::string("CCLO on FPGAs"), plan_.comms.size(), last.us(), slowest,
                                reference_ ? fmt::format("; verified: {} elements checked after every operation",
                                                         checked_)
                                           : ""));
  if (auto note = held.note(); !note.empty())
    summary.push_back(std::move(note));
  if (const CausalGraph* g = c.scheduler().causes())
    report_run_path(*g, std::vector<std::uint32_t>(hosts_.begin(), hosts_.end()), slowest, last_cause, last, sink,
                    summary);
}

} // namespace nafsim::workloads
