// `nafsim params`: each meaning wrapped below its parameter (100 columns when not a terminal), or one line each.
#include "simcore/app/Params.hpp"
#include "tests/support/RunCli.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using nafsim::testing::run_cli;

TEST(Params, WrapBreaksAtSpacesWithinTheWidth)
{
  auto lines = nafsim::app::wrap("the quick brown fox jumps over the lazy dog", 10);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "the quick");
  EXPECT_EQ(lines[4], "dog");
  for (auto const& l : lines)
    EXPECT_LE(l.size(), 10u);
  EXPECT_EQ(nafsim::app::wrap("a-word-longer-than-the-width x", 8).front(), "a-word-longer-than-the-width");
}

TEST(Params, MeaningsWrapAtOneHundredColumnsOffATerminalOrOneLineEach)
{
  const fs::path d = fs::temp_directory_path();
  auto wrapped     = run_cli(d, "params workload");
  ASSERT_EQ(wrapped.code, 0);
  std::istringstream in(wrapped.out);
  std::size_t longest = 0, lines = 0;
  for (std::string l; std::getline(in, l); ++lines)
    if (l.rfind("    ", 0) == 0) // a meaning's lines (the path lines hold a path and its type)
      longest = std::max(longest, l.size());
  EXPECT_GT(lines, 100u);
  EXPECT_LE(longest, 100u);
  EXPECT_NE(wrapped.out.find("workload.kind  ("), std::string::npos) << wrapped.out.substr(0, 300);
  auto table = run_cli(d, "params workload --one-line");
  ASSERT_EQ(table.code, 0);
  EXPECT_EQ(table.out.rfind("PATH", 0), 0u);
  std::istringstream tin(table.out);
  std::size_t table_lines = 0;
  for (std::string l; std::getline(tin, l);)
    ++table_lines;
  EXPECT_LT(table_lines, lines) << "one line per parameter";
}
