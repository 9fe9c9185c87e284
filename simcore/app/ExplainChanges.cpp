#include "simcore/app/ExplainChanges.hpp"

#include "protocols/collectives/OmpiAlgorithms.hpp"
#include "protocols/collectives/Schedule.hpp"
#include "simcore/units/Units.hpp"

#include <fmt/format.h>

namespace nafsim::app {

namespace {

std::string str(const nlohmann::json& j, std::initializer_list<const char*> path)
{
  const nlohmann::json* at = &j;
  for (auto const* k : path) {
    if (!at->is_object() || !at->contains(k))
      return {};
    at = &(*at)[k];
  }
  return at->is_string() ? at->get<std::string>() : at->dump();
}

/// A rate times `f`, as a --set value ("" if the scenario has none).
std::string scaled_rate(const std::string& rate, double f)
{
  return rate.empty() ? std::string{} : format_rate(BitsPerSecond{parse_rate(rate).bps * f});
}

/// The changes a host running MPI offers: its CPU's work and, over RDMA, its library's receive queue.
void host_changes(const nlohmann::json& p, std::vector<Change>& out)
{
  // The hosts' CPU, as the MPI library uses it: its copies and reductions (a core's streaming rate), and its
  // per-message overheads (the library's and the system's calls). A CPU-bound run's what-if frees them all; these
  // say which half would pay.
  const std::string cpu  = "platform.node.host.cpu.";
  const std::string copy = str(p, {"node", "host", "cpu", "memcpy_rate"});
  const std::string red  = str(p, {"node", "host", "cpu", "reduce_rate"});
  if (!copy.empty() && !red.empty())
    out.push_back({fmt::format("the CPU's copies and reductions at 2x ({}, {})", scaled_rate(copy, 2),
                               scaled_rate(red, 2)),
                   {cpu + "memcpy_rate=" + scaled_rate(copy, 2), cpu + "reduce_rate=" + scaled_rate(red, 2)},
                   "cpu"});
  Change half{"the MPI library's per-message overheads halved", {}, "overhead"};
  for (const char* k : {"call_overhead", "send_overhead", "inline_send_overhead", "recv_overhead", "progress_overhead"})
    if (const std::string v = str(p, {"node", "host", "cpu", k}); !v.empty() && parse_time(v) > SimTime{})
      half.sets.push_back(fmt::format("{}{}={}", cpu, k, format_time(SimTime::ps(parse_time(v).ps() / 2))));
  if (!half.sets.empty())
    out.push_back(half);
  // The hosts' MPI over RDMA: its receive queue's length is a setting of the library (UCX_RC_RX_QUEUE_LEN); while
  // it runs empty the NICs refuse arrivals (RNR NAKs) and the senders wait out the RNR timer.
  const std::string queue = str(p, {"node", "host", "mpi", "eager_buffers"});
  if (!queue.empty() && str(p, {"node", "host", "transport"}) != "tcp")
    out.push_back({fmt::format("a receive queue of {} (2x)", std::stoull(queue) * 2),
                   {"platform.node.host.mpi.eager_buffers=" + std::to_string(std::stoull(queue) * 2)},
                   "rx"});
}

void platform_changes(const nlohmann::json& sc, bool fpga, std::vector<Change>& out)
{
  const nlohmann::json& p = sc.at("platform");
  const std::string link  = str(p, {"network", "link", "rate"});
  if (!link.empty()) {
    Change c{fmt::format("links at {} (2x)", scaled_rate(link, 2)),
             {"platform.network.link.rate=" + scaled_rate(link, 2)},
             "link"};
    if (str(p, {"topology", "kind"}) == "leaf-spine")
      c.sets.push_back("platform.topology.leaf_spine.uplink_rate=" +
                       scaled_rate(str(p, {"topology", "leaf_spine", "uplink_rate"}), 2));
    out.push_back(c);
  }
  const std::string lat = str(p, {"network", "switch", "latency"});
  if (!lat.empty() && parse_time(lat) > SimTime{})
    out.push_back({fmt::format("switch latency {} (half)", format_time(SimTime::ps(parse_time(lat).ps() / 2))),
                   {"platform.network.switch.latency=" + format_time(SimTime::ps(parse_time(lat).ps() / 2))},
                   "switch"});
  if (!fpga) {
    host_changes(p, out);
    return;
  }
  const std::string m = "platform.node.fpga.";
  const std::string rd = str(p, {"node", "fpga", "device_memory", "read_bandwidth"});
  const std::string wr = str(p, {"node", "fpga", "device_memory", "write_bandwidth"});
  if (!rd.empty() && !wr.empty())
    out.push_back({fmt::format("device memory at 2x ({} read, {} write)", scaled_rate(rd, 2), scaled_rate(wr, 2)),
                   {m + "device_memory.read_bandwidth=" + scaled_rate(rd, 2),
                    m + "device_memory.write_bandwidth=" + scaled_rate(wr, 2)},
                   "memory"});
  const std::string width = str(p, {"node", "fpga", "cclo", "dmp", "width_bytes"});
  if (!width.empty() && std::stoul(width) * 2 <= 1024)
    out.push_back({fmt::format("a datapath of {} B per cycle (2x)", std::stoul(width) * 2),
                   {m + "cclo.dmp.width_bytes=" + std::to_string(std::stoul(width) * 2)},
                   "datapath"});
  if (!link.empty() && !rd.empty() && !wr.empty() && !width.empty() && std::stoul(width) * 2 <= 1024) {
    // The bandwidths together: each alone may gain nothing while another is the limit (a card twice as fast all
    // round: links, memory, datapath).
    Change all{"links, device memory and datapath all 2x", {}, "link,memory,datapath"};
    for (auto const& c : out)
      if (c.group == "link" || c.group == "memory" || c.group == "datapath")
        all.sets.insert(all.sets.end(), c.sets.begin(), c.sets.end());
    out.push_back(all);
  }
  const std::string pcie = str(p, {"node", "fpga", "pcie", "bandwidth"});
  if (!pcie.empty() && str(sc, {"workload", "location"}) == "host")
    out.push_back({fmt::format("PCIe at {} (2x)", scaled_rate(pcie, 2)), {m + "pcie.bandwidth=" + scaled_rate(pcie, 2)},
                   "pcie"});
  // The Rx buffers' number (the driver's nbufs): eager messages segmented into more buffers than are free stall
  // their streams (a TCP stack's shared receive FIFO then drops; RoCE answers RNR).
  // A build sets its own Rx buffers (CcloConfig): the count is a change only where the scenario sizes them.
  const std::string count = str(p, {"node", "fpga", "cclo", "rx_buffers", "count"});
  const std::string built = str(p, {"node", "fpga", "cclo", "build"});
  if (!count.empty() && (built == "custom" || built.empty()))
    out.push_back({fmt::format("{} Rx buffers (2x)", std::stoull(count) * 2),
                   {fmt::format("{}cclo.rx_buffers.count={}", m, std::stoull(count) * 2)},
                   "rxcount"});
  const std::string build = str(p, {"node", "fpga", "cclo", "build"});
  for (const char* b : {"eager", "rendezvous"})
    if (build != b)
      out.push_back({fmt::format("the CCLO's {} build", b), {fmt::format("{}cclo.build={}", m, b)}, "build"});
  if (build == "custom" || build.empty()) {
    const std::string rx    = str(p, {"node", "fpga", "cclo", "rx_buffers", "size"});
    const std::string eager = str(p, {"node", "fpga", "cclo", "tuning", "max_eager_size"});
    if (!rx.empty()) {
      const Bytes twice{parse_bytes(rx).count * 2};
      Change c{fmt::format("Rx buffers of {} (2x)", format_bytes(twice)),
               {fmt::format("{}cclo.rx_buffers.size={}", m, format_bytes(twice))},
               "rx"};
      // The firmware refuses an eager limit below an Rx buffer: a larger buffer takes the limit with it.
      if (!eager.empty() && parse_bytes(eager).count < twice.count) {
        c.name += fmt::format(", and max_eager_size {} with them (the firmware's floor)", format_bytes(twice));
        c.sets.push_back(fmt::format("{}cclo.tuning.max_eager_size={}", m, format_bytes(twice)));
        const std::string rndzv = str(p, {"node", "fpga", "cclo", "tuning", "max_rendezvous_size"});
        if (!rndzv.empty() && parse_bytes(rndzv).count <= twice.count)
          c.sets.push_back(
              fmt::format("{}cclo.tuning.max_rendezvous_size={}", m, format_bytes(Bytes{twice.count * 2})));
      }
      out.push_back(c);
    }
  }
}

} // namespace

bool conflict(const Change& a, const Change& b)
{
  auto parts = [](const std::string& g) {
    std::vector<std::string> v;
    for (std::size_t at = 0; at <= g.size();) {
      const std::size_t comma = std::min(g.find(',', at), g.size());
      v.push_back(g.substr(at, comma - at));
      at = comma + 1;
    }
    return v;
  };
  for (auto const& x : parts(a.group))
    for (auto const& y : parts(b.group))
      if (x == y)
        return true;
  return false;
}

std::vector<Change> actionable_changes(const nlohmann::json& scenario)
{
  std::vector<Change> out;
  const std::string kind = str(scenario, {"workload", "kind"});
  if (kind == "collective") {
    const std::string current = str(scenario, {"workload", "algorithm"});
    for (const char* a : {"flat", "binomial", "ring", "reduce-bcast", "reduce-scatter-composite", "recursive-doubling",
                          "rabenseifner", "pairwise"})
      if (current != a)
        out.push_back({fmt::format("the {} algorithm", a), {fmt::format("workload.algorithm={}", a)}, "algorithm"});
  }
  // Open MPI's algorithms are forced on Open MPI's library only (MPICH's are refused), and a segment size applies to a
  // forced algorithm only (alone it is refused): proposed otherwise, each ran as "cannot run this scenario".
  if (kind == "mpi" && str(scenario, {"platform", "node", "host", "mpi", "library"}) != "mpich") {
    const std::string coll    = str(scenario, {"workload", "collective"});
    const std::string current = str(scenario, {"workload", "library_algorithm"});
    for (int c = 0; c <= static_cast<int>(coll::Collective::Barrier); ++c) {
      const auto cc = static_cast<coll::Collective>(c);
      if (coll::collective_name(cc) != coll)
        continue;
      for (auto const& a : coll::ompi_algorithms(cc))
        if (a != current)
          out.push_back({fmt::format("Open MPI's {} algorithm", a), {"workload.library_algorithm=" + a}, "algorithm"});
    }
    if (!current.empty())
      for (const char* seg : {"16KiB", "64KiB"})
        out.push_back({fmt::format("segments of {}", seg), {fmt::format("workload.segment_size={}", seg)}, "segment"});
  }
  // The hosts' MPI runs the calls for the mpi workload, a program or trace on the MPI engine, and an fc layer reduced
  // by MPI: their changes are the hosts' (the FPGA's, proposed there before, changed nothing).
  const bool on_hosts = kind == "mpi" ||
                        ((kind == "program" || kind == "chakra") && str(scenario, {"workload", "engine"}) == "mpi") ||
                        (kind == "fc" && str(scenario, {"workload", "reduction"}) == "mpi");
  platform_changes(scenario, !on_hosts, out);
  return out;
}

} // namespace nafsim::app
