// Drop-tail switches at flow fidelity: see DropTailWatch.hpp.

#include "simcore/net/DropTailWatch.hpp"

#include <algorithm>
#include <cassert>

namespace nafsim::net {

DropTailWatch::DropTailWatch(std::vector<std::uint64_t> rate_bps, std::vector<std::uint64_t> buffer)
    : rate_(std::move(rate_bps)), buffer_(std::move(buffer)), inputs_(rate_.size()), flagged_(rate_.size(), 0)
{
  assert(buffer_.size() == rate_.size());
}

double DropTailWatch::pace(std::span<const std::uint32_t> path, double bytes, SimTime now, SimTime tail_ready) const
{
  const double line = static_cast<double>(rate_[path[0]]);
  if (tail_ready <= now)
    return line;
  return std::min(line, bytes * 8.0 / (static_cast<double>((tail_ready - now).ps()) * 1e-12));
}

DropTailWatch::Input* DropTailWatch::find(std::uint32_t p, std::uint32_t in)
{
  for (Input& i : inputs_[p])
    if (i.port == in)
      return &i;
  return nullptr;
}

DropTailWatch::Input& DropTailWatch::input(std::uint32_t p, std::uint32_t in)
{
  if (Input* i = find(p, in))
    return *i;
  return inputs_[p].emplace_back(Input{in});
}

void DropTailWatch::segments(std::span<const std::uint32_t> path, std::uint32_t wire_bytes)
{
  for (std::size_t h = 1; h < path.size(); ++h) {
    const std::uint32_t p = path[h];
    if (buffer_[p] == 0 || buffer_[p] >= std::uint64_t{kFewSegments} * wire_bytes)
      continue;
    summary_.segment = std::max(summary_.segment, wire_bytes);
    summary_.buffer  = summary_.buffer == 0 ? buffer_[p] : std::min(summary_.buffer, buffer_[p]);
    if (!(flagged_[p] & kSmall)) {
      flagged_[p] |= kSmall;
      ++summary_.small_buffer_ports;
    }
  }
}

void DropTailWatch::enter(std::span<const std::uint32_t> path, double bytes, double pace_bps, SimTime now)
{
  for (std::size_t h = 1; h < path.size(); ++h) {
    const std::uint32_t p = path[h];
    if (buffer_[p] == 0)
      continue;
    Input& i = input(p, path[h - 1]);
    ++i.flows;
    i.pace += pace_bps;
    i.bytes += bytes;
    check(p, now);
  }
}

void DropTailWatch::grow(std::span<const std::uint32_t> path, double bytes, SimTime now)
{
  for (std::size_t h = 1; h < path.size(); ++h)
    if (const std::uint32_t p = path[h]; buffer_[p] != 0) {
      input(p, path[h - 1]).bytes += bytes;
      check(p, now);
    }
}

void DropTailWatch::leave(std::span<const std::uint32_t> path, double bytes, double pace_bps)
{
  for (std::size_t h = 1; h < path.size(); ++h) {
    const std::uint32_t p = path[h];
    if (buffer_[p] == 0)
      continue;
    auto& ins = inputs_[p];
    Input* it = find(p, path[h - 1]);
    assert(it);
    if (--it->flows == 0) { // nothing comes in there now (no rounding left behind)
      *it = ins.back();
      ins.pop_back();
    } else {
      it->pace -= pace_bps;
      it->bytes = std::max(0.0, it->bytes - bytes);
    }
  }
}

double DropTailWatch::queue(std::uint32_t p) const
{
  // Q(t) = sum_i r_i min(t, T_i) - R t at each T_i in turn: the inputs finished by then have brought all their bytes,
  // the others r_i t.
  const double out = static_cast<double>(rate_[p]) / 8.0; // bytes per second
  order_.clear();
  double rate = 0; // of the inputs still sending, bytes per second
  for (const Input& i : inputs_[p]) {
    const double r = std::min(static_cast<double>(rate_[i.port]), i.pace) / 8.0;
    if (r <= 0)
      continue;
    order_.push_back(Sending{i.bytes / r, r, i.bytes});
    rate += r;
  }
  if (rate <= out)
    return 0;
  std::sort(order_.begin(), order_.end(), [](const Sending& a, const Sending& b) { return a.until < b.until; });
  double done = 0, peak = 0; // bytes of the inputs finished
  for (const Sending& s : order_) {
    peak = std::max(peak, done + rate * s.until - out * s.until);
    done += s.bytes;
    rate -= s.rate;
    if (rate <= out) // the queue drains from here on
      break;
  }
  return peak;
}

void DropTailWatch::check(std::uint32_t p, SimTime now)
{
  const double over = queue(p) / static_cast<double>(buffer_[p]);
  if (over > summary_.worst) {
    summary_.worst      = over;
    summary_.worst_port = p;
  }
  if (over > 1.0 && !(flagged_[p] & kOver)) {
    flagged_[p] |= kOver;
    if (summary_.ports++ == 0)
      summary_.first = now;
  }
}

} // namespace nafsim::net
