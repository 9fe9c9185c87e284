// The figure of the flow fidelity's error (issue 32): every collective on 64 CCLO ranks and permutation and incast
// traffic on an oversubscribed leaf-spine, each at packet and flow fidelity; flow's error against packet per case,
// with the reason of every miss above 2 % (simcore/net/README.md). Both sides are predictions: packet fidelity is the
// reference here, not hardware.
#include "simcore/app/FigureTables.hpp"

#include <fmt/format.h>
#include <map>

namespace nafsim::app::figtab {

namespace {

/// Why flow fidelity misses a case by more than 2 % with the sharing `sharing` (the analysis of
/// simcore/net/README.md).
std::string why(const std::string& c, const std::string& sharing)
{
  if (c.find("drop") != std::string::npos)
    return "the packet fabric drops at the full queues and the RoCE engines recover by go-back-N and their "
           "retransmission timeouts; the flow fabric is lossless by construction, and no per-link factor corrects it "
           "(the packet fabric's goodput under incast follows the timeouts, not the fan-in), but its run flags the "
           "ports whose queues would overflow (DropTailWatch.hpp): use packet fidelity whenever loss matters. These "
           "rows assume the preset's 1 MiB per port; with the switch's 40 MB shared by dynamic thresholds "
           "(switch.shared_buffer) neither case drops and flow is within 2.3 %";
  if (sharing == "per-flow" && c == "gather")
    return "the 63 writes converge on the root's cable; max-min gives them one rate, so they end together and the "
           "root's RoCE engine works through their completions after the last byte, where the packet fabric's "
           "lossless switches serve their input ports in turn (the root's neighbours first, the flows that share an "
           "uplink later): pessimistic; flow_sharing input-ports shares by input port as the switches do";
  if (sharing == "per-flow" && c == "alltoall")
    return "max-min keeps every flow of a cable at one rate, where the packet fabric's lossless switches serve "
           "their input ports in turn: optimistic; flow_sharing input-ports shares by input port as the switches do. "
           "At 256 ranks (16 KiB per peer) it turns pessimistic, +3.8 %: the packet switches' deep lossless queues "
           "keep receivers busy while their senders are held elsewhere, where a fluid has no queue "
           "(simcore/net/README.md)";
  return "not analysed yet (simcore/net/README.md)";
}

} // namespace

Built flow_accuracy(const CsvTable& coll, const Companion& traffic)
{
  Built b;
  b.data = results::Table("flow-accuracy", {"case", "packet_us", "flow_us", "flow_error_pct", "flow_input_ports_us",
                                            "input_ports_error_pct"});
  // case -> fidelity (flow: with its sharing) -> latency (the slowest rank; traffic: the last node's completion)
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, double>> t;
  auto note = [&](const std::string& c, const std::map<std::string, std::string>& r, double us) {
    std::string fid = r.at("platform.network.fidelity");
    if (fid == "flow")
      fid += " " + (r.count("platform.network.flow_sharing") ? r.at("platform.network.flow_sharing") : "per-flow");
    if (!t.count(c))
      order.push_back(c);
    auto& slot = t[c][fid];
    slot       = std::max(slot, us);
  };
  for (auto const& r : first_iterations(coll))
    note(r.at("collective"), r, num(r.at("latency_us")));
  for (auto const& r : traffic.rows) {
    const auto p = r.count("workload.pattern") ? r.at("workload.pattern") : std::string("random-permutation");
    note((p == "random-permutation" ? "permutation" : p) + " 4:1 " + r.at("platform.network.switch.flow_control"), r,
         num(r.at("time_us")));
  }
  auto& g = b.gallery;
  g.push_back("Flow fidelity against packet fidelity on the same scenarios (both predictions; packet fidelity is the "
              "reference): every collective on 64 CCLO ranks of accl-coyote-u55c in a k-8 fat-tree, 64 KiB per rank's "
              "block (all-to-all: per peer), the slowest rank's latency; random-permutation traffic (16 x 64 KiB per "
              "node, 4 in flight) and incast traffic (every node to node 0, as much) on a 4:1 oversubscribed "
              "leaf-spine, the last node's completion. Flow fidelity with both sharings of "
              "`platform.network.flow_sharing`: per-flow (the default, max-min between flows) and input-ports (the "
              "opt-in correction: each switch output shared between its input ports, as lossless switches serve "
              "them). The bars are flow's error; the dashed lines +-2 %.");
  g.push_back("");
  g.push_back("| case | packet us | flow us (per-flow) | error | flow us (input-ports) | error |");
  g.push_back("|---|---:|---:|---:|---:|---:|");
  std::vector<std::string> misses;
  auto error = [](double p, double f) {
    const double e = 100 * (f - p) / p;
    return std::abs(e) < 0.005 ? 0.0 : e; // not "-0.00"
  };
  auto at = [&](const std::string& c, const std::string& fid) {
    return t[c].count(fid) ? t[c][fid] : std::nan("");
  };
  for (auto const& c : order) {
    const double p = at(c, "packet"), f = at(c, "flow per-flow"), fi = at(c, "flow input-ports");
    const double e = error(p, f), ei = error(p, fi);
    b.data.row().add(c).add(p, 3).add(f, 3).add(e, 2).add(fi, 3).add(ei, 2);
    g.push_back(fmt::format("| {} | {:.3f} | {:.3f} | {:+.2f} % | {:.3f} | {:+.2f} % |", c, p, f, e, fi, ei));
    if (std::abs(e) > 2)
      misses.push_back(fmt::format("- {}, per-flow ({:+.1f} %): {}.", c, e, why(c, "per-flow")));
    if (std::abs(ei) > 2)
      misses.push_back(fmt::format("- {}, input-ports ({:+.1f} %): {}.", c, ei, why(c, "input-ports")));
  }
  if (!misses.empty()) {
    g.push_back("");
    g.push_back("Where flow misses by more than 2 %, why:");
    g.push_back("");
    for (auto const& m : misses)
      g.push_back(m);
  }
  return b;
}

} // namespace nafsim::app::figtab
