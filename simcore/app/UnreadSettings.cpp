// Settings a run read nothing of (UnreadSettings.hpp): one rule per part of the platform that a run may not build,
// each with the condition, read off the built cluster, under which nothing reads that part.
#include "simcore/app/UnreadSettings.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/host/HostNode.hpp"
#include "nodes/platform/Cluster.hpp"
#include "workloads/Workload.hpp"

#include <fmt/format.h>

#include <functional>

namespace nafsim::app {
namespace {

using nodes::Cluster;

/// `dotted` is `prefix` or lies under it.
bool under(std::string_view dotted, std::string_view prefix)
{
  return dotted == prefix || (dotted.size() > prefix.size() && dotted.substr(0, prefix.size()) == prefix &&
                              dotted[prefix.size()] == '.');
}

/// Whether some FPGA of the cluster has `has` (an engine, a CCLO).
bool any_fpga(const Cluster& c, const std::function<bool(const nodes::FpgaNode&)>& has)
{
  for (std::size_t i = 0; i < c.size(); ++i)
    if (auto const* f = c.find<nodes::FpgaNode>(i); f && has(*f))
      return true;
  return false;
}

/// What the cluster's nodes are, for the reasons: "its 8 nodes are hosts", "its FPGAs run roce".
std::string nodes_are(const Cluster& c)
{
  const std::size_t fpgas = c.positions(nodes::FpgaNode::kKind).size();
  if (fpgas == 0)
    return fmt::format("its {} nodes are all hosts", c.size());
  std::string transports;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (auto const* f = c.find<nodes::FpgaNode>(i)) {
      const std::string t = config::enum_name(f->transport_kind());
      if (transports.find(t) == std::string::npos)
        transports += (transports.empty() ? "" : ", ") + t;
    }
  return fmt::format("its FPGAs run {}", transports);
}

/// The topology section of kind `k`, when the cluster is wired otherwise.
std::string other_topology(const Cluster& c, topo::Kind k)
{
  const topo::Kind is = c.config().topology.kind;
  return is == k ? std::string()
                 : fmt::format("the topology is a {}; platform.topology.kind: {} reads it", config::enum_name(is),
                               config::enum_name(k));
}

struct Rule {
  std::string prefix;
  std::function<std::string(const Cluster&, std::string_view workload)> unread; ///< why, or "" if it may be read
};

/// The flow solver's settings, at packet fidelity.
std::string at_packet_fidelity(const Cluster& c, std::string_view)
{
  return c.config().network.fidelity == net::Fidelity::Packet
             ? std::string("the network ran at packet fidelity; the flow solver reads it (platform.network.fidelity: "
                           "flow)")
             : std::string();
}

/// The section of an FPGA transport (`platform.node.fpga.<transport>`), read where some FPGA runs its engine (`has`).
Rule fpga_transport(const char* transport, const char* engine, bool (*has)(const nodes::FpgaNode&))
{
  return {fmt::format("platform.node.fpga.{}", transport), [transport, engine, has](const Cluster& c, std::string_view) {
            return any_fpga(c, has) ? std::string()
                                    : fmt::format("no FPGA ran {} ({}; platform.node.fpga.transport: {} runs it)",
                                                  engine, nodes_are(c), transport);
          }};
}

/// A setting of the connectionless transport that its own configuration leaves unread (`why` says so, or is empty
/// where it may be read); where no FPGA runs the transport, the section's reason.
Rule lant_setting(const char* key, std::string (*why)(const lant::LantConfig&))
{
  return {fmt::format("platform.node.fpga.connectionless.transport.{}", key), [why](const Cluster& c, std::string_view) {
            if (!any_fpga(c, [](const nodes::FpgaNode& f) { return f.lant() != nullptr; }))
              return fmt::format("no FPGA ran the connectionless transport ({}; platform.node.fpga.transport: "
                                 "connectionless runs it)",
                                 nodes_are(c));
            return why(nodes::fpga_config(c.config().node).connectionless.transport);
          }};
}

/// A setting a named CCLO build sets for its ranks whatever is given (nodes::apply_build); where no CCLO ran, the
/// section's reason.
Rule set_by_build(const char* key)
{
  return {fmt::format("platform.node.fpga.cclo.{}", key), [](const Cluster& c, std::string_view) {
            if (nodes::cclos_made(c) == 0)
              return fmt::format("no node ran a CCLO ({})", nodes_are(c));
            auto const& cclo = nodes::fpga_config(c.config().node).cclo;
            return cclo.build == nodes::CcloBuild::Custom
                       ? std::string()
                       : fmt::format("platform.node.fpga.cclo.build is {}, which sets rx_buffers.count and .size, "
                                     "max_eager_size and max_rendezvous_size for its ranks whatever is given (set "
                                     "build to custom to give them)",
                                     config::enum_name(cclo.build));
          }};
}

std::string registration_off(const lant::LantConfig& t)
{
  return t.registration ? std::string()
                        : std::string("registration is off (transport.registration false): every operation is "
                                      "notified by its sender, so no registration table, mask or escape channel runs");
}

/// The network's and the topology's rules.
std::vector<Rule> network_rules()
{
  return {
    {"platform.network.flow_resolve_fraction", at_packet_fidelity},
    {"platform.network.flow_sharing", at_packet_fidelity},
    {"platform.network.switch.alpha",
     [](const Cluster& c, std::string_view) {
       return c.config().network.switch_.shared_buffer.count == 0
                  ? std::string("the switches have a buffer per port (switch.shared_buffer 0); alpha sets a shared "
                                "buffer's dynamic thresholds")
                  : std::string();
     }},
    {"platform.topology.leaf_spine",
     [](const Cluster& c, std::string_view) { return other_topology(c, topo::Kind::LeafSpine); }},
    {"platform.topology.fat_tree",
     [](const Cluster& c, std::string_view) { return other_topology(c, topo::Kind::FatTree); }},
    {"platform.topology.chain",
     [](const Cluster& c, std::string_view) { return other_topology(c, topo::Kind::Chain); }},
  };
}

/// The rest, after those (a prefix takes the first rule that matches): the CCLO, the switches, faults and trains,
/// the FPGA transports, the hosts' TCP, Portals.
std::vector<Rule> node_rules()
{
  return {
    // (before the section's own rule, which takes the first match)
    set_by_build("rx_buffers.count"),
    set_by_build("rx_buffers.size"),
    set_by_build("tuning.max_eager_size"),
    set_by_build("tuning.max_rendezvous_size"),
    {"platform.node.fpga.cclo", // (but its invocation and firmware costs: unread_reason)
     [](const Cluster& c, std::string_view) {
       return nodes::cclos_made(c) > 0 ? std::string()
                  : fmt::format("no node ran a CCLO ({})", nodes_are(c));
     }},
    {"platform.network.switch",
     [](const Cluster& c, std::string_view) {
       return c.topology().switch_count() == 0 ? std::string("the topology has no switch (its hosts share one cable)")
                                               : std::string();
     }},
    {"platform.network.faults.reorder_delay",
     [](const Cluster& c, std::string_view) {
       return c.config().network.faults.reorder_rate == 0
                  ? std::string("faults.reorder_rate is 0: no packet is held back")
                  : std::string();
     }},
    {"platform.network.fast_forward.window",
     [](const Cluster& c, std::string_view) {
       return c.config().network.fast_forward.train == 0
                  ? std::string("fast_forward.train is 0: no train is formed")
                  : std::string();
     }},
    {"platform.node.fpga.rdma",
     [](const Cluster& c, std::string_view) {
       return any_fpga(c, [](const nodes::FpgaNode& f) { return f.transport_kind() == nodes::Transport::Roce; })
                  ? std::string()
                  : fmt::format("no FPGA ran the RoCE engine ({}; platform.node.fpga.transport: roce runs it)",
                                nodes_are(c));
     }},
    fpga_transport("tcp", "the TCP engine", [](const nodes::FpgaNode& f) { return f.tcp() != nullptr; }),
    fpga_transport("udp", "the UDP engine", [](const nodes::FpgaNode& f) { return f.udp() != nullptr; }),
    // (before the section's own rule, which takes the first match)
    lant_setting("registration_entries", registration_off),
    lant_setting("bitmask_bits", registration_off),
    lant_setting("register_min", registration_off),
    lant_setting("register_max", registration_off),
    lant_setting("escape_packets", registration_off),
    lant_setting("escape_timeout", registration_off),
    lant_setting("large_transfer.segment",
                 [](const lant::LantConfig& t) {
                   return t.large_transfer.threshold.count == 0
                              ? std::string("large_transfer.threshold is 0: no command is cut into segments")
                              : std::string();
                 }),
    lant_setting("completed_filter_time",
                 [](const lant::LantConfig& t) {
                   return t.completed_filter_entries == 0
                              ? std::string("completed_filter_entries is 0: the completed-operation filter is off")
                              : std::string();
                 }),
    fpga_transport("connectionless", "the connectionless transport",
                   [](const nodes::FpgaNode& f) { return f.lant() != nullptr; }),
    {"platform.node.host.tcp",
     [](const Cluster& c, std::string_view) {
       for (std::size_t i = 0; i < c.size(); ++i)
         if (c.find<nodes::HostNode>(i) && c.tcp(i))
           return std::string();
       return c.positions(nodes::HostNode::kKind).empty()
                  ? fmt::format("the cluster has no host nodes ({})", nodes_are(c))
                  : std::string("no host ran kernel TCP (platform.node.host.transport: tcp runs it)");
     }},
    {"platform.node.portals",
     [](const Cluster&, std::string_view workload) {
       return workload.substr(0, 8) == "portals_"
                  ? std::string()
                  : fmt::format("only the portals workloads read it (this run's: {})", workload);
     }},
  };
}

const std::vector<Rule>& rules()
{
  static const std::vector<Rule> r = [] {
    auto v = network_rules();
    for (auto& n : node_rules())
      v.push_back(std::move(n));
    return v;
  }();
  return r;
}

} // namespace

std::string unread_reason(const Cluster& c, std::string_view workload_kind, std::string_view dotted)
{
  // The CCLO's invocation and firmware call costs are read by the MPI benchmark without a CCLO (the next kernel's
  // invocation): not claimed unread, nor is a setting of a section that holds them (an empty object or a value that
  // is not an object, which replace them; another object is judged key by key).
  for (auto const* read : {"platform.node.fpga.cclo.invocation", "platform.node.fpga.cclo.firmware"})
    if (under(dotted, read) || under(read, dotted))
      return {};
  for (auto const& r : rules())
    if (under(dotted, r.prefix))
      return r.unread(c, workload_kind);
  return {};
}

std::string unread_reason(const Cluster& c, const workloads::Workload& w, std::string_view workload_kind,
                          std::string_view dotted)
{
  constexpr std::string_view kWorkload = "workload.";
  if (dotted.substr(0, kWorkload.size()) == kWorkload)
    return w.unread_reason(dotted.substr(kWorkload.size()));
  return unread_reason(c, workload_kind, dotted);
}

} // namespace nafsim::app
