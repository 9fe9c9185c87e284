#include "nodes/pac/TimeSlices.hpp"

#include <stdexcept>

namespace nafsim::nodes {

TimeSlices::TimeSlices(std::size_t nodes, SimTime quantum) : nodes_(nodes), q_(quantum)
{
  if (nodes == 0 || quantum <= SimTime{})
    throw std::invalid_argument("time slices need one node or more and a quantum above zero");
  // Engine dates are N times the node clocks: keep a round's dates within the clock's range.
  if (quantum.ps() > std::numeric_limits<std::int64_t>::max() / 1024 / static_cast<std::int64_t>(nodes))
    throw std::invalid_argument("time slices: the quantum times the nodes is beyond the simulator's clock");
}

SimTime TimeSlices::engine_date(std::size_t n, SimTime t) const
{
  const std::int64_t q = q_.ps(), k = t.ps() / q, off = t.ps() - k * q;
  return SimTime::ps((k * static_cast<std::int64_t>(nodes_) + static_cast<std::int64_t>(n)) * q + off);
}

SimTime TimeSlices::local(std::size_t n, SimTime d) const
{
  const std::int64_t q = q_.ps(), slot = d.ps() / q, N = static_cast<std::int64_t>(nodes_);
  const std::int64_t k = slot / N, j = slot % N, me = static_cast<std::int64_t>(n);
  if (j == me)
    return SimTime::ps(k * q + (d.ps() - slot * q));
  return SimTime::ps((j < me ? k : k + 1) * q); // its slice of this round is to come, or of the next
}

SimTime TimeSlices::round_start(SimTime d) const
{
  const std::int64_t r = q_.ps() * static_cast<std::int64_t>(nodes_);
  return SimTime::ps((d.ps() + r - 1) / r * r);
}

} // namespace nafsim::nodes
