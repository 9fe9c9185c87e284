#include "workloads/program/ProgramReference.hpp"

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <tuple>

namespace nafsim::workloads {

namespace {
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
// `func` of two values; unknown if either is (std::max(a, NaN) would be a: a value the run need not produce).
double apply(coll::ReduceFunc func, double a, double b)
{
  if (std::isnan(a) || std::isnan(b))
    return kUnknown;
  return func == coll::ReduceFunc::Sum ? a + b : std::max(a, b);
}
} // namespace

ProgramReference::ProgramReference(const ProgramPlan& plan, const std::vector<std::vector<std::vector<double>>>& initial)
    : plan_(plan), buf_(initial), after_(plan.ops.size(), std::vector<std::vector<double>>(plan.cfg.ranks))
{
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    auto const& o = plan.ops[i];
    switch (o.kind) {
      case ProgramOpKind::Compute:
      case ProgramOpKind::Wait:
      case ProgramOpKind::Barrier: break;
      case ProgramOpKind::Copy:
      case ProgramOpKind::Combine: local(o); break;
      case ProgramOpKind::Send:
      case ProgramOpKind::Recv: send_recv(o); break;
      case ProgramOpKind::StreamPut: stream_put(o); break;
      default: collective(o); break;
    }
    if (o.dst >= 0)
      for (unsigned r : o.runs)
        after_[i][r] = buf_[static_cast<std::size_t>(o.dst)][r];
  }
}

void ProgramReference::local(const PlannedOp& o)
{
  auto& src        = buf_[static_cast<std::size_t>(o.src)];
  auto& dst        = buf_[static_cast<std::size_t>(o.dst)];
  const auto func  = plan_.cfg.ops[o.index].func;
  for (unsigned r : o.runs)
    for (std::uint64_t i = 0; i < o.count; ++i) {
      const double a = src[r][o.src_off + i];
      double& d      = dst[r][o.dst_off + i];
      d              = o.kind == ProgramOpKind::Copy ? a : apply(func, a, d);
    }
}

void ProgramReference::send_recv(const PlannedOp& o)
{
  // Messages wait, in order per (sender, receiver, tag), until a receive takes them; ProgramPlan::check_messages
  // refuses, when verifying, a receive listed before its send.
  const auto tag = plan_.cfg.ops[o.index].tag;
  for (unsigned r : o.runs) {
    const auto peer = static_cast<unsigned>(o.peer[r]);
    if (o.kind == ProgramOpKind::Send) {
      auto const& src = buf_[static_cast<std::size_t>(o.src)][r];
      auto from = src.begin() + static_cast<std::ptrdiff_t>(o.src_off);
      queues_[{r, peer, tag}].emplace_back(from, from + static_cast<std::ptrdiff_t>(o.count));
      continue;
    }
    auto& q   = queues_[{peer, r, tag}];
    auto& dst = buf_[static_cast<std::size_t>(o.dst)][r];
    if (q.empty()) { // its send comes later in the list (a plan made without verify): the bytes are not known here
      auto from = dst.begin() + static_cast<std::ptrdiff_t>(o.dst_off);
      std::fill(from, from + static_cast<std::ptrdiff_t>(o.count), kUnknown);
      continue;
    }
    auto msg = std::move(q.front());
    q.pop_front();
    for (std::uint64_t i = 0; i < o.count && i < msg.size(); ++i)
      dst[o.dst_off + i] = msg[i];
  }
}

void ProgramReference::stream_put(const PlannedOp& o)
{
  // The data lands in the peer's stream as the put runs (no receive): in list order.
  auto& src = buf_[static_cast<std::size_t>(o.src)];
  auto& dst = buf_[static_cast<std::size_t>(o.dst)];
  for (unsigned r : o.runs) {
    const auto peer = static_cast<unsigned>(o.peer[r]);
    for (std::uint64_t i = 0; i < o.count; ++i)
      dst[peer][o.dst_off + i] = src[r][o.src_off + i];
  }
}

void ProgramReference::collective(const PlannedOp& o)
{
  using K              = ProgramOpKind;
  auto const& members  = plan_.comms[o.comm];
  const auto p         = members.size();
  const std::uint64_t n = o.count;
  auto const& k        = plan_.cfg.ops[o.index];
  const std::size_t root = k.root;
  if (o.kind == K::Barrier)
    return;
  std::vector<std::vector<double>> in(p);
  for (std::size_t m = 0; m < p; ++m) {
    auto const& b = buf_[static_cast<std::size_t>(o.src)][members[m]];
    in[m].assign(b.begin() + static_cast<std::ptrdiff_t>(o.src_off), b.end());
  }
  auto fold = [&](std::uint64_t i) {
    double v = in[0][i];
    for (std::size_t s = 1; s < p; ++s)
      v = apply(k.func, v, in[s][i]);
    return v;
  };
  // ACCL's bcast is in place: a root whose result is its operand (same buffer and offset) holds it after the call;
  // one with a result elsewhere has it unspecified (the firmware only reads the root's operand).
  const bool in_place = o.src == o.dst && o.src_off == o.dst_off;
  for (std::size_t m = 0; m < p; ++m) {
    auto& out             = buf_[static_cast<std::size_t>(o.dst)][members[m]];
    const std::uint64_t e = coll::output_elements(plan_.call(o, members[m]), static_cast<int>(m));
    for (std::uint64_t i = 0; i < e; ++i) {
      double v = kUnknown;
      switch (o.kind) {
        case K::Bcast: v = m == root && !in_place ? kUnknown : in[root][i]; break;
        case K::Scatter: v = in[root][n * m + i]; break;
        case K::Gather: v = m == root ? in[i / n][i % n] : kUnknown; break;
        case K::AllGather: v = in[i / n][i % n]; break;
        case K::Reduce: v = m == root ? fold(i) : kUnknown; break;
        case K::AllReduce: v = fold(i); break;
        case K::ReduceScatter: v = fold(n * m + i); break;
        case K::AllToAll: v = in[i / n][n * m + i % n]; break;
        default: break;
      }
      out[o.dst_off + i] = v;
    }
  }
}

} // namespace nafsim::workloads
