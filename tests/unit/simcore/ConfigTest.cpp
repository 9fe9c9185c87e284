#include "simcore/config/JsonDoc.hpp"
#include "simcore/config/Schema.hpp"

#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::config;

namespace {
enum class Color { Red, Green };
}
template <> struct nafsim::config::EnumNames<Color> {
  static constexpr std::array list{std::pair{Color::Red, "red"}, std::pair{Color::Green, "green"}};
};

namespace {
struct Inner {
  BitsPerSecond rate{100e9};
  SimTime latency = SimTime::ns(10);
  template <class V> void describe(V& v)
  {
    v.field("rate", rate, "line rate");
    v.field("latency", latency, "delay");
  }
};
struct Outer {
  unsigned count = 3;
  double ratio   = 0.5;
  Bytes size{4096};
  Color color = Color::Red;
  Inner inner;
  std::vector<Bytes> sizes;
  template <class V> void describe(V& v)
  {
    v.field("count", count, "how many", Limits::between(1, 10));
    v.field("ratio", ratio, "a ratio", Limits::between(0, 1));
    v.field("size", size, "a size");
    v.field("color", color, "a color");
    v.field("inner", inner, "nested");
    v.field("sizes", sizes, "a list");
  }
};

std::string read_error(const std::string& text)
{
  Origins o("file.json");
  Outer out;
  try {
    Reader::read(parse_json_text(text, "file.json"), out, "", o);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

TEST(Config, ReadsValuesAndKeepsDefaults)
{
  Origins o("f");
  Outer out;
  Reader::read(parse_json_text(R"({"count": 7, "size": "1MiB", "color": "green", "inner": {"rate": "25Gbps"},
                                   "sizes": ["1KiB", 512]})",
                               "f"),
               out, "", o);
  EXPECT_EQ(out.count, 7u);
  EXPECT_DOUBLE_EQ(out.ratio, 0.5);
  EXPECT_EQ(out.size.count, 1u << 20);
  EXPECT_EQ(out.color, Color::Green);
  EXPECT_DOUBLE_EQ(out.inner.rate.bps, 25e9);
  EXPECT_EQ(out.inner.latency, SimTime::ns(10));
  ASSERT_EQ(out.sizes.size(), 2u);
  EXPECT_EQ(out.sizes[1].count, 512u);
}

TEST(Config, ErrorsNameFilePathAndWhatIsAllowed)
{
  EXPECT_EQ(read_error(R"({"cout": 3})"),
            "file.json: /cout: unknown key 'cout' (did you mean 'count'?); allowed keys here: count, ratio, size, "
            "color, inner, sizes (see `nafsim params`)");
  EXPECT_EQ(read_error(R"({"count": 11})"), "file.json: /count: value 11 is out of range; allowed: 1 to 10");
  EXPECT_EQ(read_error(R"({"count": "3"})"), "file.json: /count: expected a whole number, got \"3\"");
  EXPECT_EQ(read_error(R"({"color": "blue"})"), "file.json: /color: unknown value \"blue\"; allowed: red|green");
  EXPECT_EQ(read_error(R"({"inner": {"rate": 100}})"),
            "file.json: /inner/rate: expected a string with a unit, e.g. \"100Gbps\", got 100");
  EXPECT_EQ(read_error(R"({"sizes": ["1KiB", "x"]})"),
            "file.json: /sizes/1: 'x' is not a size (expected a number followed by a unit, e.g. '4KiB')");
  EXPECT_EQ(read_error(R"({"inner": 3})"), "file.json: /inner: expected an object ({...}), got 3");
  EXPECT_NE(read_error("{\"count\": }").find("invalid JSON at line 1, column 11"), std::string::npos);
}

TEST(Config, ErrorsNameTheSourceOfAMergedValue)
{
  Origins o("scenario.json");
  Json doc = parse_json_text(R"({"count": 3, "inner": {"rate": "1Gbps"}})", "preset.json");
  o.set("", "preset.json");
  merge_into(doc, parse_json_text(R"({"inner": {"latency": "5"}})", "scenario.json"), o, "scenario.json");
  set_dotted(doc, "ratio", Json(2), o, "--set ratio=2");
  Outer out;
  try { // fields are checked in table order: ratio (from --set) first
    Reader::read(doc, out, "", o);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.origin(), "--set ratio=2") << e.what();
    EXPECT_EQ(e.json_path(), "/ratio");
  }
  doc["ratio"] = 0.25;
  try {
    Reader::read(doc, out, "", o);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.origin(), "scenario.json") << e.what();
    EXPECT_EQ(e.json_path(), "/inner/latency");
  }
  EXPECT_EQ(o.of("/inner/rate"), "preset.json");
}

TEST(Config, WriterAndListerUseTheSameTable)
{
  Outer out;
  Json j = Writer::write(out);
  EXPECT_EQ(j["size"], "4KiB");
  EXPECT_EQ(j["inner"]["rate"], "100Gbps");
  Outer back;
  Origins o("w");
  Reader::read(j, back, "", o);
  EXPECT_EQ(back.size, out.size);
  EXPECT_EQ(back.inner.latency, out.inner.latency);

  std::vector<ParamRow> rows;
  Lister::list(out, "x", rows);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0].path, "x.count");
  EXPECT_EQ(rows[0].type, "integer [1..10]");
  EXPECT_EQ(rows[0].default_value, "3");
  EXPECT_EQ(rows[4].path, "x.inner.rate");
  EXPECT_EQ(rows[4].default_value, "100Gbps");
}

TEST(Config, DottedPathsAndCliValues)
{
  Origins o("f");
  Json doc = Json::object();
  set_dotted(doc, "a.b.c", parse_cli_value("25Gbps", "--set"), o, "--set");
  set_dotted(doc, "a.n", parse_cli_value("3", "--set"), o, "--set");
  set_dotted(doc, "a.l", parse_cli_value("[1,2]", "--set"), o, "--set");
  EXPECT_EQ(doc["a"]["b"]["c"], "25Gbps");
  EXPECT_EQ(doc["a"]["n"], 3);
  EXPECT_EQ(doc["a"]["l"].size(), 2u);
  EXPECT_THROW(set_dotted(doc, "a..b", Json(1), o, "--set"), ConfigError);
  EXPECT_EQ(dotted_to_pointer("a.b"), "/a/b");
  // Into a list or a value that is no object: the holder is blamed, with the way out (the element had been called
  // no object).
  try {
    set_dotted(doc, "a.l.0.x", Json(5), o, "--set");
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/a/l: is a list: a parameter path reaches no element of a list ('0' is no "
                                         "key); give the whole list, e.g. --set 'a.l=[...]'"),
              std::string::npos)
        << e.what();
  }
  try {
    set_dotted(doc, "a.n.x", Json(5), o, "--set");
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/a/n: is 3, not an object: it has no key 'x'"), std::string::npos)
        << e.what();
  }
}
