#include "protocols/collectives/SymbolicRun.hpp"

#include <deque>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace nafsim::coll {

namespace {

struct Rank {
  const Schedule* s;
  std::vector<bool> done;
  std::map<Buf, std::vector<Val>> bufs;
};

using Message = std::vector<Val>;

bool is_receive(OpKind k)
{
  return k == OpKind::Recv || k == OpKind::RecvReduce || k == OpKind::RecvReduceSend || k == OpKind::RecvSend ||
         k == OpKind::WaitNotify;
}

struct Runner {
  std::vector<Rank> ranks;
  std::map<std::pair<int, int>, std::deque<Message>> channels;
  std::map<std::pair<int, int>, std::uint64_t> sent_count;
  SymbolicResult res;
  bool rendezvous;
  std::string error;

  std::vector<Val>& buf(int r, Buf b) { return ranks[r].bufs[b]; }

  Message read(int r, Slice s)
  {
    auto& v = buf(r, s.buf);
    if (s.offset + s.count > v.size()) {
      error = fmt::format("rank {} reads {} elements at {} of a {}-element buffer", r, s.count, s.offset, v.size());
      return {};
    }
    return Message(v.begin() + static_cast<std::ptrdiff_t>(s.offset),
                   v.begin() + static_cast<std::ptrdiff_t>(s.offset + s.count));
  }
  void write(int r, Slice s, const Message& m)
  {
    auto& v = buf(r, s.buf);
    if (m.size() != s.count || s.offset + s.count > v.size()) {
      error = fmt::format("rank {} writes {} elements into a {}-element slice at {} of a {}-element buffer", r,
                          m.size(), s.count, s.offset, v.size());
      return;
    }
    std::copy(m.begin(), m.end(), v.begin() + static_cast<std::ptrdiff_t>(s.offset));
  }
  Message combine(int r, const Message& a, const Message& b)
  {
    if (a.size() != b.size()) {
      error = fmt::format("rank {} combines {} with {} elements", r, a.size(), b.size());
      return {};
    }
    Message out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].ranks == 0 || b[i].ranks == 0 || a[i].index != b[i].index || (a[i].ranks & b[i].ranks)) {
        error = fmt::format("rank {} combines element {} of ranks {:#x} index {} with ranks {:#x} index {}", r, i,
                            a[i].ranks, a[i].index, b[i].ranks, b[i].index);
        return {};
      }
      out[i] = Val{a[i].ranks | b[i].ranks, a[i].index};
    }
    return out;
  }
  void send(int from, int to, Message m)
  {
    res.elements_sent[from] += m.size();
    ++res.messages_sent[from];
    ++sent_count[{from, to}];
    channels[{from, to}].push_back(std::move(m));
  }
  bool deps_done(int r, const Op& op) const
  {
    for (auto d : op.deps)
      if (!ranks[r].done[d])
        return false;
    return true;
  }
  /// Rendezvous: receives `to` has posted (dependencies done) from `from`, minus those consumed.
  bool receiver_ready(int from, int to)
  {
    if (!rendezvous)
      return true;
    std::uint64_t posted = 0;
    auto const& rk       = ranks[to];
    for (std::size_t i = 0; i < rk.s->ops.size(); ++i) {
      auto const& op = rk.s->ops[i];
      if (is_receive(op.kind) && op.kind != OpKind::WaitNotify && op.peer == from && (rk.done[i] || deps_done(to, op)))
        ++posted;
    }
    return posted > sent_count[{from, to}];
  }
  /// Try to run op i of rank r; true if it ran.
  bool step(int r, std::size_t i)
  {
    const Op& op = ranks[r].s->ops[i];
    auto take    = [&](int from) -> std::optional<Message> {
      auto& ch = channels[{from, r}];
      if (ch.empty())
        return std::nullopt;
      Message m = std::move(ch.front());
      ch.pop_front();
      res.elements_received[r] += m.size();
      return m;
    };
    auto has_msg = [&](int from) { return !channels[{from, r}].empty(); };
    switch (op.kind) {
      case OpKind::Send:
        if (!receiver_ready(r, op.peer))
          return false;
        send(r, op.peer, read(r, op.a));
        return true;
      case OpKind::CombineSend:
        if (!receiver_ready(r, op.peer))
          return false;
        send(r, op.peer, combine(r, read(r, op.a), read(r, op.b)));
        return true;
      case OpKind::Notify: send(r, op.peer, {}); return true;
      case OpKind::Recv: {
        auto m = take(op.peer);
        if (!m)
          return false;
        write(r, op.dst, *m);
        return true;
      }
      case OpKind::WaitNotify: return take(op.peer).has_value();
      case OpKind::RecvReduce: {
        auto m = take(op.peer);
        if (!m)
          return false;
        write(r, op.dst, combine(r, read(r, op.a), *m));
        return true;
      }
      case OpKind::RecvReduceSend:
      case OpKind::RecvSend:
        if (!has_msg(op.peer) || !receiver_ready(r, op.peer2))
          return false;
        {
          auto m = *take(op.peer);
          send(r, op.peer2, op.kind == OpKind::RecvSend ? m : combine(r, read(r, op.a), m));
        }
        return true;
      case OpKind::Combine: write(r, op.dst, combine(r, read(r, op.a), read(r, op.b))); return true;
      case OpKind::Copy: write(r, op.dst, read(r, op.a)); return true;
    }
    return false;
  }
};

} // namespace

SymbolicResult run_symbolic(const std::vector<Schedule>& schedules, bool rendezvous)
{
  Runner run;
  run.rendezvous = rendezvous;
  const int p    = static_cast<int>(schedules.size());
  run.res.elements_sent.assign(p, 0);
  run.res.elements_received.assign(p, 0);
  run.res.messages_sent.assign(p, 0);
  for (int r = 0; r < p; ++r) {
    auto const& s = schedules[r];
    Rank rk{&s, std::vector<bool>(s.ops.size(), false), {}};
    rk.bufs[Buf::Input].resize(input_elements(s.call, r));
    for (std::size_t i = 0; i < rk.bufs[Buf::Input].size(); ++i)
      rk.bufs[Buf::Input][i] = Val{1ULL << r, static_cast<std::int64_t>(i)};
    rk.bufs[Buf::Output].resize(output_elements(s.call, r));
    for (int k = 0; k < 3; ++k)
      rk.bufs[static_cast<Buf>(static_cast<int>(Buf::Scratch0) + k)].resize(s.scratch[k]);
    run.ranks.push_back(std::move(rk));
  }
  bool progress = true;
  while (progress && run.error.empty()) {
    progress = false;
    for (int r = 0; r < p; ++r) {
      auto& rk = run.ranks[r];
      for (std::size_t i = 0; i < rk.s->ops.size() && run.error.empty(); ++i)
        if (!rk.done[i] && run.deps_done(r, rk.s->ops[i]) && run.step(r, i)) {
          rk.done[i] = true;
          progress   = true;
        }
    }
  }
  if (!run.error.empty()) {
    run.res.problem = run.error;
    return run.res;
  }
  std::string stuck;
  for (int r = 0; r < p; ++r) {
    auto const& rk = run.ranks[r];
    for (std::size_t i = 0; i < rk.s->ops.size(); ++i)
      if (!rk.done[i]) {
        auto const& op = rk.s->ops[i];
        stuck += fmt::format("{}rank {} op {} ({} peer {})", stuck.empty() ? "" : "; ", r, i, op_name(op.kind), op.peer);
        break;
      }
  }
  for (auto const& [ch, msgs] : run.channels)
    if (!msgs.empty() && stuck.empty())
      stuck = fmt::format("{} unconsumed message(s) from rank {} to rank {}", msgs.size(), ch.first, ch.second);
  if (!stuck.empty()) {
    run.res.problem = "deadlock or mismatch: " + stuck;
    return run.res;
  }
  run.res.completed = true;
  for (int r = 0; r < p; ++r) {
    auto const& call = schedules[r].call;
    bool root_keeps_input = call.collective == Collective::Bcast && r == call.root;
    run.res.output.push_back(run.ranks[r].bufs[root_keeps_input ? Buf::Input : Buf::Output]);
  }
  return run.res;
}

std::string check_outputs(const CollectiveCall& c, const SymbolicResult& r)
{
  if (!r.completed)
    return r.problem;
  const int p              = c.size;
  const std::uint64_t n    = c.count;
  const std::uint64_t all  = p >= 64 ? ~0ULL : (1ULL << p) - 1;
  auto expect = [&](int rank, std::uint64_t i, Val want) -> std::string {
    Val got = r.output[rank][i];
    if (got == want)
      return {};
    return fmt::format("rank {} output[{}] holds ranks {:#x} index {}, expected ranks {:#x} index {}", rank, i,
                       got.ranks, got.index, want.ranks, want.index);
  };
  auto idx = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
  for (int rank = 0; rank < p; ++rank) {
    for (std::uint64_t i = 0; i < r.output[rank].size(); ++i) {
      std::string e;
      switch (c.collective) {
        case Collective::Bcast: e = expect(rank, i, {1ULL << c.root, idx(i)}); break;
        case Collective::Scatter: e = expect(rank, i, {1ULL << c.root, idx(n * rank + i)}); break;
        case Collective::Gather:
          if (rank == c.root)
            e = expect(rank, i, {1ULL << (i / n), idx(i % n)});
          break;
        case Collective::AllGather: e = expect(rank, i, {1ULL << (i / n), idx(i % n)}); break;
        case Collective::Reduce:
          if (rank == c.root)
            e = expect(rank, i, {all, idx(i)});
          break;
        case Collective::AllReduce: e = expect(rank, i, {all, idx(i)}); break;
        case Collective::ReduceScatter: e = expect(rank, i, {all, idx(n * rank + i)}); break;
        case Collective::AllToAll: e = expect(rank, i, {1ULL << (i / n), idx(n * rank + i % n)}); break;
        case Collective::Recv: e = expect(rank, i, {1ULL << c.root, idx(i)}); break;
        case Collective::Copy: e = expect(rank, i, {1ULL << rank, idx(i)}); break;
        default: break;
      }
      if (!e.empty())
        return e;
    }
  }
  return {};
}

} // namespace nafsim::coll
