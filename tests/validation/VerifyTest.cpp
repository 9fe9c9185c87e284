// The collective benchmarks' data check (workloads/collective/Verify.hpp), engine-free: what it expects of a
// reduction's output is the fold of every rank's input element, and it rejects an output that differs.

#include "workloads/collective/Verify.hpp"

#include "simcore/engine/Scheduler.hpp"

#include <algorithm>
#include <gtest/gtest.h>

using nafsim::coll::Collective;
using nafsim::coll::CollectiveCall;
using nafsim::coll::ReduceFunc;
using nafsim::workloads::DataPattern;

namespace {

/// Element i of the reduction over all ranks, folded straight from the pattern.
double direct_fold(const DataPattern& pat, unsigned ranks, std::uint64_t i, unsigned it, ReduceFunc f)
{
  double v = pat(0, i, it);
  for (unsigned s = 1; s < ranks; ++s)
    v = f == ReduceFunc::Sum ? v + pat(s, i, it) : std::max(v, pat(s, i, it));
  return v;
}

} // namespace

TEST(Verify, AReductionsExpectedOutputIsTheFoldOfEveryRanksElement)
{
  for (unsigned ranks : {1u, 2u, 3u, 8u, 64u})
    for (bool half : {false, true})
      for (ReduceFunc f : {ReduceFunc::Sum, ReduceFunc::Max})
        for (unsigned it : {0u, 1u, 7u}) {
          const DataPattern pat{nafsim::nodes::DataType::Float32, half, ranks};
          const std::uint64_t n = 1000;
          for (Collective c : {Collective::AllReduce, Collective::Reduce, Collective::ReduceScatter}) {
            const CollectiveCall cc{c, static_cast<int>(ranks), 0, n, 4, f};
            const unsigned rank = ranks - 1; // the root for Reduce only when there is one rank
            auto want           = nafsim::workloads::expected_output(cc, c == Collective::Reduce ? 0 : rank, it, pat);
            ASSERT_TRUE(want);
            const std::uint64_t base = c == Collective::ReduceScatter ? n * rank : 0;
            for (std::uint64_t i : {0ULL, 1ULL, 29ULL, 30ULL, 31ULL, 517ULL, 999ULL})
              EXPECT_EQ(want(i), direct_fold(pat, ranks, base + i, it, f))
                  << nafsim::coll::collective_name(c) << " ranks " << ranks << " half " << half << " i " << i;
          }
        }
}

TEST(Verify, AnOutputWithOneWrongElementIsRejected)
{
  const unsigned ranks = 4;
  const DataPattern pat{nafsim::nodes::DataType::Float32, false, ranks};
  const CollectiveCall cc{Collective::AllReduce, static_cast<int>(ranks), 0, 100, 4, ReduceFunc::Sum};
  std::vector<std::byte> out(100 * 4);
  for (std::uint64_t i = 0; i < 100; ++i)
    nafsim::nodes::set_element(pat.dtype, out, i, direct_fold(pat, ranks, i, 0, ReduceFunc::Sum));
  EXPECT_NO_THROW(nafsim::workloads::check_output(cc, 1, 0, pat, out, "allreduce", "CCLO"));
  nafsim::nodes::set_element(pat.dtype, out, 63, direct_fold(pat, ranks, 63, 0, ReduceFunc::Sum) + 1);
  try {
    nafsim::workloads::check_output(cc, 1, 0, pat, out, "allreduce", "CCLO");
    FAIL() << "a wrong element passed";
  } catch (const nafsim::SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("output[63]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1 of 100 elements wrong"), std::string::npos) << e.what();
  }
}
