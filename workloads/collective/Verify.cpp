#include "workloads/collective/Verify.hpp"

#include "simcore/engine/Scheduler.hpp"
#include "simcore/units/Units.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <vector>

namespace nafsim::workloads {

unsigned DataPattern::period() const { return half_precision ? std::max(1u, 1024u / std::max(1u, ranks)) : 30u; }

double DataPattern::operator()(unsigned rank, std::uint64_t i, unsigned iteration) const
{
  return 1.0 + static_cast<double>((rank * 7ULL + i * 3ULL + iteration * 5ULL) % period());
}

std::vector<std::byte> DataPattern::input(const coll::CollectiveCall& cc, unsigned rank, unsigned iteration) const
{
  const unsigned eb = nodes::dtype_bytes(dtype);
  std::vector<std::byte> in(coll::input_elements(cc, static_cast<int>(rank)) * eb);
  for (std::uint64_t i = 0; i < in.size() / eb; ++i)
    nodes::set_element(dtype, in, i, (*this)(rank, i, iteration));
  return in;
}

std::function<double(std::uint64_t)> expected_output(const coll::CollectiveCall& cc, unsigned rank,
                                                     unsigned iteration, const DataPattern& pattern)
{
  using coll::Collective;
  const auto root       = static_cast<unsigned>(cc.root);
  const std::uint64_t n = cc.count;
  const auto p          = static_cast<unsigned>(cc.size);
  // The fold over every rank of element i, once per element of the pattern's period (the same sums, in the same
  // order, as folding element i itself: pattern(s, i) == pattern(s, i % period)); folding each element of each
  // rank's output over all ranks had cost 60 % of a verified 64-rank allreduce of 1 MiB.
  auto make_fold = [&] {
    const unsigned period = pattern.period();
    auto folds            = std::make_shared<std::vector<double>>(period);
    for (unsigned j = 0; j < period; ++j) {
      double v = pattern(0, j, iteration);
      for (unsigned s = 1; s < p; ++s)
        v = cc.func == coll::ReduceFunc::Sum ? v + pattern(s, j, iteration) : std::max(v, pattern(s, j, iteration));
      (*folds)[j] = v;
    }
    return [folds, period](std::uint64_t i) { return (*folds)[i % period]; };
  };
  switch (cc.collective) {
    case Collective::Recv: return [=](std::uint64_t i) { return pattern(root, i, iteration); };
    case Collective::Bcast:
      if (rank != root)
        return [=](std::uint64_t i) { return pattern(root, i, iteration); };
      break;
    case Collective::Scatter: return [=](std::uint64_t i) { return pattern(root, n * rank + i, iteration); };
    case Collective::Gather:
      if (rank != root)
        break;
      [[fallthrough]];
    case Collective::AllGather:
      return [=](std::uint64_t i) { return pattern(static_cast<unsigned>(i / n), i % n, iteration); };
    case Collective::Reduce:
      if (rank == root)
        return make_fold();
      break;
    case Collective::AllReduce: return make_fold();
    case Collective::ReduceScatter: return [fold = make_fold(), n, rank](std::uint64_t i) { return fold(n * rank + i); };
    case Collective::AllToAll:
      return [=](std::uint64_t i) { return pattern(static_cast<unsigned>(i / n), n * rank + i % n, iteration); };
    case Collective::Copy: return [=](std::uint64_t i) { return pattern(rank, i, iteration); };
    case Collective::Combine:
      return [=](std::uint64_t i) {
        double a = pattern(rank, i, iteration), b = pattern(rank + p, i, iteration);
        return cc.func == coll::ReduceFunc::Sum ? a + b : std::max(a, b);
      };
    default: break;
  }
  return {};
}

void check_output(const coll::CollectiveCall& cc, unsigned rank, unsigned iteration, const DataPattern& pattern,
                  std::span<const std::byte> out, const std::string& what, const std::string& engine)
{
  auto want = expected_output(cc, rank, iteration, pattern);
  if (!want)
    return;
  const std::uint64_t elems = coll::output_elements(cc, static_cast<int>(rank));
  std::uint64_t wrong = 0, first = 0;
  for (std::uint64_t i = 0; i < elems; ++i)
    if (nodes::element_value(pattern.dtype, out, i) != want(i) && wrong++ == 0)
      first = i;
  if (wrong > 0)
    throw SimulationError(fmt::format(
        "verify: {} of {} ({} elements), iteration {}: rank {} output[{}] = {}, expected {} ({} of {} elements wrong); "
        "the simulated {} delivered wrong data, a simulator bug: please report it with this scenario",
        what, format_bytes(Bytes{cc.bytes()}), cc.count, iteration, rank, first,
        nodes::element_value(pattern.dtype, out, first), want(first), wrong, elems, engine));
}

} // namespace nafsim::workloads
