// The figure of nafsim's own analysis: where time goes (the critical paths of an 8-rank allreduce on the CCLO, per
// size and link rate, as shares of each call's latency per resource). Predictions: nothing here is measured.
#include "simcore/app/FigureTables.hpp"

#include "simcore/units/Units.hpp"

#include <array>
#include <map>

namespace nafsim::app::figtab {

namespace {
/// The figure's resource groups (its stacked series), in drawing order; a path's resource goes to the first group
/// that names it, else to "other".
struct Group {
  const char* title;
  std::vector<const char*> resources;
};
const std::array<Group, 7>& groups()
{
  static const std::array<Group, 7> g{{{"firmware", {"firmware"}},
                                       {"data mover", {"data mover"}},
                                       {"wire", {"wire"}},
                                       {"switch queue", {"switch"}},
                                       {"NIC engine", {"RoCE POE", "TCP POE", "UDP POE", "connectionless NI"}},
                                       {"Tx / Rx system", {"Tx system", "Rx system"}},
                                       {"other", {}}}};
  return g;
}
std::size_t group_of(const std::string& resource)
{
  auto const& g = groups();
  for (std::size_t i = 0; i + 1 < g.size(); ++i)
    for (const char* r : g[i].resources)
      if (resource == r)
        return i;
  return g.size() - 1;
}
} // namespace

Built where_time_goes(const CsvTable& merged)
{
  Built b;
  std::vector<std::string> cols{"link_rate", "bytes", "size", "latency_us", "bottleneck_share_pct"};
  for (auto const& g : groups())
    cols.emplace_back(g.title);
  b.data = results::Table("where-time-goes", cols);
  struct Call {
    double total = 0;
    std::array<double, 7> by_group{};
    std::map<std::string, double> by_detail;
  };
  // (link rate in b/s, its text, bytes) -> the call's path (one iteration per point).
  std::map<std::tuple<double, std::string, std::uint64_t>, Call> calls;
  const std::string rate_col = "platform.network.link.rate";
  for (auto const& r : merged.rows) {
    const std::string rate = r.at(rate_col);
    Call& c                = calls[{parse_rate(rate).bps, rate, std::stoull(r.at("bytes"))}];
    const double d         = num(r.at("duration_us"));
    c.total += d;
    c.by_group[group_of(r.at("resource"))] += d;
    c.by_detail[r.at("resource") + ", " + r.at("detail")] += d;
  }
  auto& g = b.gallery;
  g.push_back("Predictions (`nafsim run --critical-path`, `critical_path.csv` of each point): the 8-rank allreduce on "
              "accl-coyote-u55c (the firmware's own protocol and algorithm per size), each call's critical path from "
              "the slowest rank's start to its finalize, as shares of its latency per resource; the bottleneck is the "
              "(resource, detail) with the largest share. Large calls are bound by the receivers' writes into device "
              "memory (98 Gb/s, just below the 100 Gb/s link), so a 4x faster link barely helps; behind them the HBM "
              "pseudo-channel and the datapath feeding the network (`nafsim explain --steps`).");
  g.push_back("");
  g.push_back("| link | size | latency us | firmware | data mover | wire | switch | NIC engine | Tx/Rx | other | "
              "bottleneck |");
  g.push_back("|---|---|---|---|---|---|---|---|---|---|---|");
  for (auto const& [key, c] : calls) {
    auto const& [bps, rate, bytes] = key;
    std::string top;
    double top_us = -1;
    for (auto const& [what, us] : c.by_detail)
      if (us > top_us)
        top = what, top_us = us;
    const double share = c.total > 0 ? 100 * top_us / c.total : 0;
    b.data.row().add(rate).add(bytes).add(size_label(bytes)).add(fixed(c.total, 3)).add(fixed(share, 1));
    std::string cells;
    for (double us : c.by_group) {
      const double pct = c.total > 0 ? 100 * us / c.total : 0;
      b.data.add(fixed(pct, 2));
      cells += fmt::format(" {:.0f} % |", pct);
    }
    g.push_back(fmt::format("| {} | {} | {:.3f} |{} {} ({:.0f} %) |", rate, size_label(bytes), c.total, cells, top,
                            share));
  }
  return b;
}

} // namespace nafsim::app::figtab
