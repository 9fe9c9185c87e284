// Chakra traces for the tests: nodes written with the schema's own classes, one file per rank, run on the CCLO ranks
// of a 4-host star (tests/validation/Chakra*Test.cpp).
#pragma once

#include "tests/support/RunScenario.hpp"
#include "workloads/chakra/ChakraWrite.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace nafsim::testing::chakra {

namespace pb = ChakraProtoMsg;
namespace fs = std::filesystem;
using nafsim::workloads::chakra::add_int;
using nafsim::workloads::chakra::make_node;
using nafsim::workloads::chakra::write_rank;

inline fs::path scratch(const std::string& name)
{
  fs::path d = fs::temp_directory_path() / fmt::format("nafsim-chakra-{}-{}", name, getpid());
  fs::create_directories(d);
  return d;
}

inline pb::Node collective(std::uint64_t id, pb::CollectiveCommType t, std::int64_t bytes, std::vector<std::uint64_t> deps = {})
{
  auto n = make_node(id, pb::COMM_COLL_NODE, "coll", deps);
  add_int(n, "comm_type", t);
  auto* s = n.add_attr(); // comm_size as uint64, as Chakra's microbenchmark generator writes it
  s->set_name("comm_size");
  s->set_uint64_val(static_cast<std::uint64_t>(bytes));
  return n;
}

/// A send of `bytes` to rank `peer` (send) or a receive of them from it.
inline pb::Node p2p(std::uint64_t id, bool send, std::int64_t bytes, std::int64_t peer, std::vector<std::uint64_t> deps = {},
             const std::string& name = "")
{
  auto n = make_node(id, send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE, name.empty() ? (send ? "send" : "recv") : name,
                     deps);
  add_int(n, send ? "comm_dst" : "comm_src", peer);
  add_int(n, "comm_size", bytes);
  return n;
}

inline std::string scenario(const fs::path& prefix, unsigned hosts, const std::string& extra = "")
{
  return fmt::format(R"({{"name": "chakra-test", "platform": {{"preset": "accl-coyote-u55c",
      "topology": {{"kind": "star", "hosts": {}}}}}, "workload": {{"kind": "chakra", "trace": "{}" {}}}}})",
                     hosts, prefix.string(), extra);
}

/// Rank r of a p-rank ring, listed before their dependencies, its attributes in several integer kinds: `first_us` of
/// compute, then a send to the next rank and a receive from the previous (the receive not waiting for the send),
/// then 5 us of compute after both.
inline std::vector<pb::Node> ring_rank(unsigned r, unsigned p, std::uint64_t first_us)
{
  auto after = make_node(4, pb::COMP_NODE, "after", {2, 3});
  after.set_duration_micros(5);
  auto send = make_node(2, pb::COMM_SEND_NODE, "send", {1});
  add_int(send, "comm_size", 65536);
  auto* d = send.add_attr();
  d->set_name("comm_dst");
  d->set_int32_val(static_cast<int>((r + 1) % p));
  auto recv = make_node(3, pb::COMM_RECV_NODE, "recv", {1});
  add_int(recv, "comm_size", 65536);
  auto* s = recv.add_attr();
  s->set_name("comm_src");
  s->set_sint32_val(static_cast<int>((r + p - 1) % p));
  auto first = make_node(1, pb::COMP_NODE, "first");
  first.set_duration_micros(first_us);
  return {after, send, recv, first};
}

/// Write `ranks` as <dir>/<name>.<r>.et (the first file cut by 3 bytes if `truncate`) and run them on 4 hosts with
/// `extra` workload fields.
inline ScenarioRun run_trace(const fs::path& dir, const std::string& name, const std::vector<std::vector<pb::Node>>& ranks,
                      const std::string& extra, bool truncate = false)
{
  for (unsigned r = 0; r < ranks.size(); ++r)
    write_rank(dir / fmt::format("{}.{}.et", name, r), ranks[r]);
  const fs::path first = dir / fmt::format("{}.0.et", name);
  if (truncate)
    fs::resize_file(first, fs::file_size(first) - 3);
  return run_scenario_isolated(scenario(dir / name, 4, fmt::format(R"(, "ranks": {}{})", ranks.size(), extra)));
}

inline double last_end(const ScenarioRun& r)
{
  double m = 0;
  auto const& t = r.tables.at("program_ops");
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    m = std::max(m, t.num(i, "end_us"));
  return m;
}

} // namespace nafsim::testing::chakra
