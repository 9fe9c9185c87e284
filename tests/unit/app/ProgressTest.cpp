// A long run's progress line (simcore/app/Progress.hpp), on a fake clock.
#include "simcore/app/Progress.hpp"

#include <gtest/gtest.h>
#include <sstream>

using namespace nafsim;
using app::ProgressLine;

TEST(Progress, NothingForAShortRunThenALineEveryTenSecondsOffATerminal)
{
  std::ostringstream out;
  double share = 0.25;
  {
    ProgressLine p(out, false, [&] { return std::optional<double>(share); });
    const auto t0 = ProgressLine::Clock::now();
    auto at       = [&](double s) { return t0 + std::chrono::duration_cast<ProgressLine::Clock::duration>(std::chrono::duration<double>(s)); };
    p.tick_at(at(1), SimTime::us(10), 1'000'000);
    EXPECT_EQ(out.str(), "") << "quiet for the first seconds";
    p.tick_at(at(4), SimTime::us(50), 8'000'000);
    EXPECT_NE(out.str().find("[run] 4 s: simulated 50us"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("8.0 M events (2.00 M/s)"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("25 % of the workload done, about 12 s left"), std::string::npos) << out.str();
    const auto lines = out.str();
    p.tick_at(at(8), SimTime::us(60), 9'000'000);
    EXPECT_EQ(out.str(), lines) << "the next line 10 s later";
    share = 0.5;
    p.tick_at(at(14.5), SimTime::us(90), 20'000'000);
    EXPECT_NE(out.str().find("50 % of the workload done"), std::string::npos) << out.str();
  }
  EXPECT_EQ(out.str().find('\r'), std::string::npos) << "plain lines in a log";
}

TEST(Progress, OneLineRewrittenOnATerminalAndClearedAtTheEnd)
{
  std::ostringstream out;
  {
    ProgressLine p(out, true, [] { return std::nullopt; });
    const auto t0 = ProgressLine::Clock::now();
    auto at       = [&](double s) { return t0 + std::chrono::duration_cast<ProgressLine::Clock::duration>(std::chrono::duration<double>(s)); };
    p.tick_at(at(3.5), SimTime::us(1000), 100);
    p.tick_at(at(4.6), SimTime::us(2000), 200);
    EXPECT_EQ(out.str().find("left"), std::string::npos) << "no estimate without a share";
  }
  const std::string s = out.str();
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_EQ(s.rfind("\r\033[K"), s.size() - 4) << "the line is cleared for the summary";
}
