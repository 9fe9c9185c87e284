// The CSV reader (simcore/results/CsvReader): records over line breaks inside quoted cells, and a stray quote within
// a cell read as a character, not as the start of a cell that swallows the rest of the file.
#include "simcore/results/CsvReader.hpp"

#include <gtest/gtest.h>

using nafsim::results::parse_csv;

TEST(CsvReader, AQuotedCellKeepsItsLineBreaksAndAStrayQuoteIsACharacter)
{
  // A sweep's merged table whose axis value holds a line break (Table quotes it), then rows after it.
  auto t = parse_csv("point,description,latency_us\n0,\"two\nlines\",1.5\n1,\"say \"\"hi\"\"\",2.5\n", "m.csv");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(0, "description"), "two\nlines");
  EXPECT_EQ(t.cell(0, "latency_us"), "1.5");
  EXPECT_EQ(t.cell(1, "description"), "say \"hi\"");
  // A quote within an unquoted cell (12" rack) is a character: every row after it is still read (parity of quotes
  // had joined the rest of the file into one cell, dropping its rows unsaid).
  auto u = parse_csv("size,rack,latency_us\n1,12\" rack,1\n2,19\" rack,2\n3,x,3\n", "u.csv");
  ASSERT_EQ(u.rows.size(), 3u);
  EXPECT_EQ(u.cell(0, "rack"), "12\" rack");
  EXPECT_EQ(u.cell(2, "latency_us"), "3");
  // A quoted cell the file never closes runs to the end of the file, as a spreadsheet reads it.
  auto v = parse_csv("a,b\n1,\"open\n2,3\n", "v.csv");
  ASSERT_EQ(v.rows.size(), 1u);
  EXPECT_EQ(v.cell(0, "b"), "open\n2,3");
}
