#include <array>
#include "simcore/units/Units.hpp"

#include <gtest/gtest.h>

using namespace nafsim;

TEST(Units, ParsesSizes)
{
  EXPECT_EQ(parse_bytes("4096").count, 4096u);
  EXPECT_EQ(parse_bytes("4KiB").count, 4096u);
  EXPECT_EQ(parse_bytes("4 KiB").count, 4096u);
  EXPECT_EQ(parse_bytes("1.5KiB").count, 1536u);
  EXPECT_EQ(parse_bytes("2MB").count, 2000000u);
  EXPECT_EQ(parse_bytes("4MiB").count, 4194304u);
  EXPECT_EQ(parse_bytes("0").count, 0u);
}

TEST(Units, ParsesTimesRatesFrequencies)
{
  EXPECT_EQ(parse_time("500ns").ps(), 500000);
  EXPECT_EQ(parse_time("1.5us").ps(), 1500000);
  EXPECT_EQ(parse_time("2ms").ps(), 2000000000);
  EXPECT_EQ(parse_time("0").ps(), 0);
  EXPECT_DOUBLE_EQ(parse_rate("100Gbps").bps, 100e9);
  EXPECT_DOUBLE_EQ(parse_rate("25 Gb/s").bps, 25e9);
  EXPECT_DOUBLE_EQ(parse_rate("12.5GB/s").bps, 100e9);
  EXPECT_DOUBLE_EQ(parse_frequency("250MHz").hz, 250e6);
}

TEST(Units, RejectsBadInputWithAHint)
{
  auto msg = [](auto f) {
    try {
      f();
    } catch (const UnitError& e) {
      return e.message;
    }
    return std::string("no error");
  };
  EXPECT_NE(msg([] { parse_bytes("four"); }).find("e.g. '4KiB'"), std::string::npos);
  EXPECT_NE(msg([] { parse_bytes("4 KiBs"); }).find("unknown unit 'KiBs'"), std::string::npos);
  EXPECT_NE(msg([] { parse_bytes("1.5B"); }).find("whole number"), std::string::npos);
  EXPECT_NE(msg([] { parse_time("500"); }).find("needs a time unit"), std::string::npos);
  EXPECT_NE(msg([] { parse_rate("-1Gbps"); }).find("non-negative"), std::string::npos);
  EXPECT_NE(msg([] { parse_frequency("250"); }).find("frequency unit"), std::string::npos);
}

TEST(Units, TransmitTimeIsExactAndAdditive)
{
  // 4178 B at 100 Gb/s = 334.24 ns exactly.
  EXPECT_EQ(transmit_time(Bytes{4178}, BitsPerSecond{100e9}).ps(), 334240);
  // n packets take n times one packet (no accumulated rounding).
  SimTime one = transmit_time(Bytes{1500}, BitsPerSecond{25e9});
  EXPECT_EQ(transmit_time(Bytes{1500 * 1000}, BitsPerSecond{25e9}), one * 1000);
  EXPECT_EQ(cycles_time(Cycles{250}, Hertz{250e6}).ps(), 1000000);
}

TEST(Units, FormatsStably)
{
  EXPECT_EQ(format_bytes(Bytes{4096}), "4KiB");
  EXPECT_EQ(format_bytes(Bytes{1500}), "1500B");
  EXPECT_EQ(format_time(SimTime::ns(500)), "500ns");
  EXPECT_EQ(format_time(SimTime::us(1.5)), "1.5us");
  EXPECT_EQ(format_rate(BitsPerSecond{100e9}), "100Gbps");
  EXPECT_EQ(format_frequency(Hertz{250e6}), "250MHz");
  EXPECT_EQ(parse_time(format_time(SimTime::ps(334240))).ps(), 334240);
}

TEST(Units, LineRateMatchesTransmitTimeExactly)
{
  for (double bps : {10e9, 25e9, 100e9, 128e9, 400e9, 56e9, 1e15, 3e9 + 7})
    for (std::uint64_t b : {0ULL, 1ULL, 64ULL, 4178ULL, 1ULL << 20, 123456789ULL}) {
      LineRate l{BitsPerSecond{bps}};
      EXPECT_EQ(l.time_for(Bytes{b}), transmit_time_divided(Bytes{b}, BitsPerSecond{bps})) << bps << " " << b;
    }
}

TEST(Units, LineRateDivisionByMultiplicationIsExactOnRandomRatesAndSizes)
{
  // time_for divides by a multiplication and a shift: equal to the 128-bit division of transmit_time on whole
  // rates from 1 b/s up (denominators of every size) and byte counts up to 2^40.
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  auto next = [&] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; };
  int checked = 0;
  for (int r = 0; r < 2000; ++r) {
    double bps = static_cast<double>(1 + next() % (r % 2 ? 1000000007ULL : 2000000000000ULL));
    LineRate l{BitsPerSecond{bps}};
    for (int i = 0; i < 50; ++i) {
      // (sizes whose time the clock holds: under 2^63 ps)
      auto most       = std::min<std::uint64_t>(1ULL << 40, static_cast<std::uint64_t>(bps) * 1000000ULL);
      std::uint64_t b = next() % (i % 3 == 0 ? std::min<std::uint64_t>(10000ULL, most) : most);
      ASSERT_EQ(l.time_for(Bytes{b}), transmit_time_divided(Bytes{b}, BitsPerSecond{bps})) << bps << " " << b;
      ++checked;
    }
  }
  EXPECT_GT(checked, 90000);
}

TEST(Units, TransmitTimeThroughItsPreparedRatesIsTheDivision)
{
  // transmit_time keeps four recent rates prepared: rates taken in turn, more of them than it keeps (each
  // replacing one), whole and fractional, sizes below and above a prepared rate's multiplication limit.
  const std::array<double, 7> rates{100e9, 25e9, 12.5e9 + 0.5, 1e15, 3e9 + 7, 100e9, 56e9};
  for (int round = 0; round < 3; ++round)
    for (double bps : rates)
      for (std::uint64_t b : {0ULL, 1ULL, 64ULL, 4178ULL, 1ULL << 20, 123456789ULL, 1ULL << 40})
        ASSERT_EQ(transmit_time(Bytes{b}, BitsPerSecond{bps}), transmit_time_divided(Bytes{b}, BitsPerSecond{bps}))
            << bps << " " << b;
}
