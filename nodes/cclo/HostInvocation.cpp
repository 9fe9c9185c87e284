#include "nodes/cclo/HostInvocation.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace nafsim::nodes {

using coll::Collective;

HostInvocation::HostInvocation(const InvocationConfig& cfg, const RxBufferConfig& rx, std::uint64_t nop_cycles,
                               Hertz clock, Rng rng)
    : cfg_(cfg), rx_(rx), nop_fw_(cycles_time(Cycles{nop_cycles}, clock)), seed_(rng.next())
{
}

Rng HostInvocation::stream(InvocationPath path, const coll::CollectiveCall& call, std::uint64_t key)
{
  const std::array<std::uint64_t, 8> sig{static_cast<std::uint64_t>(call.collective),
                                         static_cast<std::uint64_t>(call.size),
                                         static_cast<std::uint64_t>(call.root),
                                         call.count,
                                         call.elem_bytes,
                                         static_cast<std::uint64_t>(call.func),
                                         static_cast<std::uint64_t>(path),
                                         key};
  const std::uint64_t k = calls_[sig]++;
  // One 64-bit name per (signature, k): each field folded in through the golden-ratio multiply Rng's own seeding
  // uses, so neighbouring sizes or occurrences land on unrelated streams.
  std::uint64_t h = 0x243F6A8885A308D3ULL;
  for (std::uint64_t f : sig)
    h = (h ^ f) * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
  h = (h ^ k) * 0x9E3779B97F4A7C15ULL;
  return Rng(seed_, h);
}

std::string HostInvocation::check(const InvocationConfig& c, std::uint64_t nop_cycles, Hertz clock)
{
  if (!c.jitter)
    return {};
  const SimTime fw = cycles_time(Cycles{nop_cycles}, clock);
  auto one = [&](const char* path, SimTime min, SimTime median, SimTime max, SimTime mean) -> std::string {
    if (min < median && median < mean && mean <= max)
      return {};
    return fmt::format("{0}_min < {0}_median < the mean NOP ({0}_request + {0}_response + firmware call + finalize = "
                       "{1}) <= {0}_max is needed for jitter; got {2} / {3} / {1} / {4}",
                       path, format_time(mean), format_time(min), format_time(median), format_time(max));
  };
  if (auto why = one("coyote", c.coyote_min, c.coyote_median, c.coyote_max, c.coyote_request + c.coyote_response + fw);
      !why.empty())
    return why;
  return one("xrt", c.xrt_min, c.xrt_median, c.xrt_max, c.xrt_request + c.xrt_response + fw);
}

SimTime HostInvocation::draw(Rng& rng, SimTime min, SimTime median, SimTime mean, SimTime max)
{
  // A shifted log-normal: min + exp(mu + sigma z), with exp(mu) = median - min and exp(sigma^2 / 2) =
  // (mean - min) / (median - min); draws past the maximum are drawn again (the measured range bounds it).
  const double m  = (median - min).seconds();
  const double s2 = 2.0 * std::log((mean - min).seconds() / m);
  const double sigma = std::sqrt(std::max(s2, 0.0));
  for (int attempt = 0; attempt < 64; ++attempt) {
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform(); // Box-Muller, u1 in (0, 1]
    const double z  = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    const SimTime t = min + SimTime::from_seconds(m * std::exp(sigma * z));
    if (t <= max)
      return t;
  }
  return max;
}

std::pair<SimTime, SimTime> HostInvocation::latencies(InvocationPath path, const coll::CollectiveCall& call,
                                                     std::uint64_t key)
{
  switch (path) {
    case InvocationPath::Kernel: return {cfg_.kernel_request, cfg_.kernel_response};
    case InvocationPath::Coyote:
      if (cfg_.jitter) {
        Rng rng           = stream(path, call, key);
        const SimTime nop = draw(rng, cfg_.coyote_min, cfg_.coyote_median,
                                 cfg_.coyote_request + cfg_.coyote_response + nop_fw_, cfg_.coyote_max);
        const SimTime half = SimTime::from_seconds((nop - nop_fw_).seconds() / 2);
        return {half, nop - nop_fw_ - half};
      }
      return {cfg_.coyote_request, cfg_.coyote_response};
    case InvocationPath::Xrt:
      if (cfg_.jitter) {
        Rng rng = stream(path, call, key);
        const SimTime nop =
            draw(rng, cfg_.xrt_min, cfg_.xrt_median, cfg_.xrt_request + cfg_.xrt_response + nop_fw_, cfg_.xrt_max);
        const SimTime half = SimTime::from_seconds((nop - nop_fw_).seconds() / 2);
        return {half, nop - nop_fw_ - half};
      }
      return {cfg_.xrt_request, cfg_.xrt_response};
  }
  return {};
}

HostInvocation::Syncs HostInvocation::xrt_syncs(const coll::CollectiveCall& c, int rank)
{
  const std::uint64_t n = c.bytes(), all = n * static_cast<std::uint64_t>(c.size);
  const bool root       = rank == c.root;
  Syncs s;
  auto in  = [&](std::uint64_t b) { s.to_device.push_back(b); };
  auto out = [&](std::uint64_t b) { s.to_host.push_back(b); };
  if (n == 0)
    return s; // the driver refuses zero-size buffers before any sync
  switch (c.collective) {
    case Collective::Send: in(n); break;
    case Collective::Recv: out(n); break;
    case Collective::Copy:
      in(n);
      out(n);
      break;
    case Collective::Combine: // both operands, then the result
      in(n);
      in(n);
      out(n);
      break;
    case Collective::Bcast: // the root's buffer in; every rank's buffer back (the root's too)
      if (root)
        in(n);
      out(n);
      break;
    case Collective::Scatter:
      if (root)
        in(all);
      out(n);
      break;
    case Collective::Gather:
      in(n);
      if (root)
        out(all);
      break;
    case Collective::AllGather:
      in(n);
      out(all);
      break;
    case Collective::Reduce:
      in(n);
      if (root)
        out(n);
      break;
    case Collective::AllReduce:
      in(n);
      out(n);
      break;
    case Collective::ReduceScatter:
      in(all);
      out(n);
      break;
    case Collective::AllToAll: // ASSUMPTION: as the other collectives, both buffers
      in(all);
      out(all);
      break;
    case Collective::Barrier:
    case Collective::Nop: break;
  }
  return s;
}

void HostInvocation::run_syncs(ActorContext& ctx, const std::vector<std::uint64_t>& bytes, bool to_host) const
{
  for (auto b : bytes)
    sync_(ctx, b, to_host);
}

SimTime HostInvocation::safety_warning(InvocationPath path, const coll::CollectiveCall& c) const
{
  if (path != InvocationPath::Coyote || cfg_.safety_warning == SimTime{})
    return {};
  if (c.collective != Collective::Gather && c.collective != Collective::AllToAll)
    return {};
  // The driver's test, in its own units: the element count over the segment (Rx buffer) size in bytes.
  const std::uint64_t segments = (c.count + rx_.size.count - 1) / rx_.size.count;
  return segments * static_cast<std::uint64_t>(c.size) > rx_.count ? cfg_.safety_warning : SimTime{};
}

} // namespace nafsim::nodes
