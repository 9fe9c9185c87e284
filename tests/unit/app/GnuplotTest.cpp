// Text that reaches gnuplot: a line break must never end a string literal (it would run the rest as a command).
#include "simcore/app/Gnuplot.hpp"
#include "simcore/app/FigureTables.hpp"
#include "simcore/app/Plot.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using nafsim::app::gp_quote;
using nafsim::app::gp_text;
using nafsim::app::has_control_char;

TEST(Gnuplot, QuotesDoubleTheSingleQuote)
{
  EXPECT_EQ(gp_quote("it's"), "'it''s'");
  EXPECT_EQ(gp_text("a 'b'"), "'a ''b'''");
}

TEST(Gnuplot, DisplayTextShowsControlCharactersAsSpaces)
{
  const std::string attack = "t\nsystem \"touch injected\"\nset title 'x";
  const std::string q      = gp_text(attack);
  EXPECT_EQ(q.find('\n'), std::string::npos);
  EXPECT_EQ(q, "'t system \"touch injected\" set title ''x'");
  EXPECT_EQ(gp_text(std::string("a\rb\tc\x7f") + "d"), "'a b c d'");
}

TEST(Gnuplot, ExactTextWithAControlCharacterIsRefused)
{
  EXPECT_TRUE(has_control_char("out\n.png"));
  EXPECT_TRUE(has_control_char("out\r.png"));
  EXPECT_FALSE(has_control_char("résumé dir/out.png")); // UTF-8 bytes above 0x7f are text
  EXPECT_THROW(gp_quote("out\n.png"), std::invalid_argument);
  EXPECT_EQ(gp_quote("résumé dir/out.png"), "'résumé dir/out.png'");
}

TEST(Plot, AxisLabelsCarryTheirUnitsAndBytesReadAsKibAndMib)
{
  EXPECT_EQ(nafsim::app::axis_label("latency_us"), "latency [us]");
  EXPECT_EQ(nafsim::app::axis_label("throughput_gbps"), "throughput [Gb/s]");
  EXPECT_EQ(nafsim::app::axis_label("exposed_communication_us"), "exposed communication [us]");
  EXPECT_EQ(nafsim::app::axis_label("bytes"), "size [bytes]");
  EXPECT_EQ(nafsim::app::axis_label("ranks"), "ranks");
  EXPECT_EQ(nafsim::app::axis_label("gbps_error_pct"), "gbps error [%]");
  // A rate per second is not a time in seconds (the "_s" suffix had matched first).
  EXPECT_EQ(nafsim::app::axis_label("throughput_per_s"), "throughput [per s]");
  EXPECT_EQ(nafsim::app::axis_label("wall_s"), "wall [s]");
  EXPECT_EQ(nafsim::app::axis_label("dma_h2c_gbytes_s"), "dma h2c [GB/s]");
  EXPECT_EQ(nafsim::app::axis_label("gbytes_per_s"), "[GB/s]");
  EXPECT_EQ(nafsim::app::bytes_label(512), "512 B");
  EXPECT_EQ(nafsim::app::bytes_label(4096), "4 KiB");
  EXPECT_EQ(nafsim::app::bytes_label(1 << 20), "1 MiB");
  EXPECT_EQ(nafsim::app::bytes_label(1.5 * (1 << 30)), "1.5 GiB");
}

// Series and panels of a sweep over a quantity come in its order, not its text's: a swept rate "100Gbps" sorted before
// "25Gbps" as text.
TEST(Plot, SeriesOfQuantitiesComeInTheirValuesOrder)
{
  using nafsim::app::natural_less;
  EXPECT_TRUE(natural_less("2", "10"));
  EXPECT_TRUE(natural_less("25Gbps", "100Gbps"));
  EXPECT_FALSE(natural_less("100Gbps", "25Gbps"));
  EXPECT_TRUE(natural_less("400Gbps", "1Tbps"));
  EXPECT_TRUE(natural_less("512B", "4KiB"));
  EXPECT_TRUE(natural_less("4KiB", "1MiB"));
  EXPECT_TRUE(natural_less("800ns", "1.5us"));
  EXPECT_TRUE(natural_less("10", "eager"));   // numbers before text
  EXPECT_TRUE(natural_less("25Gbps", "ring")); // quantities before text
  EXPECT_TRUE(natural_less("eager", "rendezvous"));
  EXPECT_FALSE(natural_less("ring", "ring"));
  // a strict weak order across kinds (a map's keys): 3 < 4KiB < 16KiB, and not 16KiB < 3 by text
  EXPECT_TRUE(natural_less("3", "4KiB"));
  EXPECT_TRUE(natural_less("4KiB", "16KiB"));
  EXPECT_TRUE(natural_less("3", "16KiB"));
  EXPECT_FALSE(natural_less("16KiB", "3"));
}

// A figure set against measured means averages the model's iterations of each point and size: the measurements
// (columns ending _us, _gbps, _pct) are means, the rest (the point's identity) the first iteration's.
TEST(FigureTables, IterationMeansAverageEachPointsMeasurementsOverItsIterations)
{
  nafsim::results::CsvTable t;
  t.columns = {"collective", "bytes", "iteration", "algorithm", "latency_us", "host_latency_us"};
  auto row  = [&](const char* c, const char* b, const char* it, const char* lat, const char* host) {
    t.rows.push_back({{"collective", c}, {"bytes", b}, {"iteration", it}, {"algorithm", "ring"}, {"latency_us", lat},
                      {"host_latency_us", host}});
  };
  row("reduce", "1024", "0", "10.0", "40.0");
  row("reduce", "1024", "1", "12.0", "50.0");
  row("reduce", "2048", "0", "20.0", "60.0"); // another size: its own mean
  row("gather", "1024", "0", "30.0", "70.0");
  row("gather", "1024", "1", "34.0", "74.0");
  auto m = nafsim::app::figtab::iteration_means(t);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].at("latency_us"), "11.0000");
  EXPECT_EQ(m[0].at("host_latency_us"), "45.0000");
  EXPECT_EQ(m[0].at("iteration"), "0");
  EXPECT_EQ(m[1].at("latency_us"), "20.0"); // one iteration: as it is
  EXPECT_EQ(m[2].at("latency_us"), "32.0000");
  EXPECT_EQ(m[2].at("algorithm"), "ring");
}
