// nafsim-fuzz: generated programs (kernel streams, stream_put, copies and combines, compute, `after` dependencies,
// sends and receives on either engine) and every fault kind on every fabric (packets, flows, the Portals buses).
#include "tests/fuzz/FuzzCase.hpp"

#include <fmt/format.h>

namespace nafsim::fuzz {

Case make_program_case(Gen& g, Case c)
{
  c.command           = "run";
  c.base              = "(generated program)";
  const unsigned ranks = 2 + static_cast<unsigned>(g.below(3));
  const bool mpi       = g.chance(0.25);
  Json buffers         = Json::array();
  const std::vector<std::string> names{"a", "b", "k", "s"};
  for (auto const& n : names) {
    Json b = {{"name", n}, {"elements", g.pick(std::vector<int>{1, 64, 1024, 8192, 65536})}};
    if ((n == "k" || n == "s") && g.chance(0.7))
      b["memory"] = "stream";
    if (n == "s" && g.chance(0.5))
      b["stream_id"] = g.pick(std::vector<int>{0, 9, 246, 247, -1});
    if (g.chance(0.3))
      b["init"] = "zero";
    if (g.chance(0.1))
      b["memory"] = g.pick(std::vector<std::string>{"host", "device", "bogus"});
    buffers.push_back(b);
  }
  static const std::vector<std::string> kinds{"stream_put", "copy", "combine", "compute", "send", "recv", "bcast",
                                              "allreduce", "reduce", "allgather", "barrier", "wait", "gather"};
  Json ops            = Json::array();
  const std::size_t n = 1 + g.below(6);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string k = g.pick(kinds);
    Json op             = {{"op", k}};
    if (k == "compute")
      op["duration"] = g.pick(std::vector<std::string>{"1us", "0us", "3us", "-1us"});
    else if (k == "stream_put")
      op.update({{"shift", g.pick(std::vector<int>{1, -1, 0, 5})}, {"src", g.pick(names)}, {"dst", g.pick(names)}});
    else if (k == "send" || k == "recv") {
      op[k == "send" ? "src" : "dst"] = g.pick(names);
      op["shift"]                     = k == "send" ? 1 : -1;
    } else if (k != "barrier" && k != "wait")
      op.update({{"src", g.pick(names)}, {"dst", g.pick(names)}});
    if (g.chance(0.3))
      op["count"] = g.pick(std::vector<int>{1, 16, 512, 100000});
    if (g.chance(0.3) && i > 0) {
      Json after = Json::array();
      after.push_back(static_cast<int>(g.below(i + 1))); // an earlier one, or itself (refused)
      op["after"] = after;
    }
    if (g.chance(0.15))
      op["protocol"] = g.pick(std::vector<std::string>{"eager", "rendezvous", "auto"});
    if (g.chance(0.1))
      op["ranks"] = Json::array({0});
    ops.push_back(op);
  }
  Json doc = {{"name", fmt::format("fuzz-program-{}", c.index)},
              {"platform", {{"preset", mpi ? "accl-cpu-cx5" : g.pick(std::vector<std::string>{"accl-coyote-u55c",
                                                                                             "accl-xrt-u55c",
                                                                                             "lant-zcu102"})},
                            {"topology", {{"kind", "star"}, {"hosts", ranks}}}}},
              {"workload", {{"kind", "program"}, {"ranks", ranks}, {"buffers", buffers}, {"ops", ops}}}};
  if (mpi)
    doc["workload"]["engine"] = "mpi";
  if (g.chance(0.3))
    doc["workload"]["verify"] = g.chance(0.5);
  c.text = doc.dump(1);
  c.args = {"--set", "max_sim_time=20ms"};
  c.what = "program " + ops.dump();
  return c;
}

Case make_fault_case(Gen& g, Case c, const Corpus& corpus)
{
  c.command     = "run";
  auto const& b = corpus[g.below(corpus.size())];
  c.base        = b.first;
  c.text        = b.second.dump(1);
  c.args        = {"--set", "max_sim_time=20ms"};
  static const std::vector<std::string> faults{"loss_rate", "corruption_rate", "duplicate_rate", "reorder_rate"};
  for (std::size_t k = 0, n = 1 + g.below(3); k < n; ++k)
    c.args.insert(c.args.end(), {"--set", fmt::format("platform.network.faults.{}={}", g.pick(faults),
                                                      g.pick(std::vector<std::string>{"0.01", "0.05", "0.3", "1"}))});
  if (g.chance(0.2))
    c.args.insert(c.args.end(), {"--set", "platform.network.faults.drops=[{\"src\": 0, \"dst\": 1, \"count\": 2}]"});
  // Every fabric: packets (the default), flows, and the Portals nodes' buses.
  switch (g.below(4)) {
    case 0: c.args.insert(c.args.end(), {"--set", "platform.network.fidelity=flow"}); break;
    case 1:
      c.args.insert(c.args.end(), {"--set", fmt::format("platform.node.portals.fabric={}",
                                                        g.pick(std::vector<std::string>{"ideal", "untimed", "network"}))});
      break;
    default: break;
  }
  c.args.insert(c.args.end(), {"--seed", std::to_string(1 + g.below(5))});
  for (auto const& a : c.args)
    c.what += a + " ";
  return c;
}

} // namespace nafsim::fuzz
