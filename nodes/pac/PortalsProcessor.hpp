#pragma once
// Who runs a node's Portals layer, and what its list walks cost (issue 14; PAC paper sections 3.2, 5.2):
// software Portals on a CPU (the paper's ARM Cortex-A9 and Intel E8400) or the PAC accelerator. Each
// command (a message header arriving, a PtlMEAppend, ...) costs a fixed number of cycles plus, per list
// entry its searches visit, `entry_cycles`; a walk over a list whose entries no longer fit the cache
// (with everything touched since the list's last walk: the CPU cache model's LRU stack distance,
// nodes/compute/CpuCompute.hpp) pays `miss_latency` per entry instead. Hashing on the source adds
// `hash_cycles` to each search. The paper states ratios, not times: every constant is a parameter, its
// source in the preset (pac-32, pac-128).

#include "nodes/compute/CpuCompute.hpp"
#include "simcore/config/Schema.hpp"
#include "simcore/units/Units.hpp"

#include <string>

namespace nafsim::nodes {

struct PortalsProcessorConfig {
  Hertz clock{1e9};
  double command_cycles = 1000;
  double entry_cycles   = 20;
  double hash_cycles    = 20;
  Bytes entry_bytes{64};
  Bytes cache{1 << 20};
  SimTime miss_latency = SimTime::ns(100);
  BitsPerSecond copy_rate{8e9};
  bool constant_copy = false;
  double copy_cycles = 10;
  bool concurrent    = false;
  bool operator==(const PortalsProcessorConfig&) const = default;
  template <class V> void describe(V& v)
  {
    v.field("clock", clock, "clock of the processor running Portals");
    v.field("command_cycles", command_cycles,
            "cycles of one Portals command besides its list walks (decode, header, tables, completion)",
            config::Limits::between(0, 1e9));
    v.field("entry_cycles", entry_cycles, "cycles per list entry a search visits, the entry in cache",
            config::Limits::between(0, 1e9));
    v.field("hash_cycles", hash_cycles, "cycles to hash a source into its bucket (hashing on)",
            config::Limits::between(0, 1e9));
    v.field("entry_bytes", entry_bytes, "bytes of memory a walk touches per list entry (its cache footprint)",
            config::Limits::at_least(1));
    v.field("cache", cache, "cache holding the lists");
    v.field("miss_latency", miss_latency, "added per entry visited when the list's walk misses the cache");
    v.field("copy_rate", copy_rate,
            "rate of the payload copies the engine makes (message buffer or unexpected store to the user buffer)");
    v.field("constant_copy", constant_copy,
            "copies take copy_cycles whatever their size (a constant-latency module, PAC on the paper's virtual "
            "platform, 5.3) instead of bytes / copy_rate");
    v.field("copy_cycles", copy_cycles, "cycles of one copy when constant_copy is on", config::Limits::between(0, 1e9));
    v.field("concurrent", concurrent,
            "host commands, incoming Puts and incoming Gets run in separate subsystems sharing the list manager "
            "(PAC 3.2.3); false: one after another on one processor");
  }
};

/// The engines a platform describes, and which one its nodes run.
enum class PortalsEngine { Pac, ArmA9, E8400 };
/// How Portals messages travel: the nafsim network between host nodes (RoCE SENDs carrying the Portals
/// header), an ideal memory-mapped bus with a latency and a rate per master port, or the paper's virtual
/// platform's untimed memory writes.
enum class PortalsFabricKind { Ideal, Network, Untimed };

struct PortalsConfig {
  PortalsEngine engine = PortalsEngine::Pac;
  bool hashing         = false;
  unsigned buckets     = 128;
  PortalsProcessorConfig pac;
  PortalsProcessorConfig arm_a9;
  PortalsProcessorConfig e8400;
  PortalsFabricKind fabric = PortalsFabricKind::Ideal;
  SimTime ideal_latency    = SimTime::ns(20);
  BitsPerSecond ideal_rate{64e9};
  SimTime quantum{};
  Bytes header{64};
  SimTime post    = SimTime::ns(20);
  SimTime interrupt = SimTime::us(1);
  Bytes max_msg_size{8192};
  unsigned list_entries = 512;
  Bytes unexpected_store{1 << 20};
  Bytes store_block{64};
  unsigned counting_events = 512;
  bool eager_ack           = false;
  const PortalsProcessorConfig& of(PortalsEngine e) const
  {
    return e == PortalsEngine::Pac ? pac : e == PortalsEngine::ArmA9 ? arm_a9 : e8400;
  }
  /// Why the engine the nodes run has no costs of its own ("": it has): every engine's defaults are the same
  /// placeholders, so a run on them would time PAC as software and the comparison the workloads exist for says 1.0x.
  std::string engine_problem() const; // (below: it names the engine's section by its enum name)
  template <class V> void describe(V& v)
  {
    v.field("engine", engine, "who runs Portals on the nodes: pac (the accelerator), arm_a9 or e8400 (software)");
    v.field("hashing", hashing, "keep the match lists per source bucket (Mattheakis and Papaefstathiou 2013)");
    v.field("buckets", buckets, "hash buckets (source mod buckets)", config::Limits::between(1, 1 << 20));
    v.field("pac", pac, "the PAC accelerator's list manager and message processor");
    v.field("arm_a9", arm_a9, "software Portals on an ARM Cortex-A9");
    v.field("e8400", e8400, "software Portals on an Intel Core 2 Duo E8400");
    v.field("fabric", fabric, "how Portals messages travel (the portals_mpi workload): ideal (a memory-mapped bus with "
                              "a latency and a rate), untimed (memory writes of no duration, as the paper's OVP "
                              "platform) or network (RoCE SENDs between host nodes over the platform's network)");
    v.field("quantum", quantum, "time slice of the virtual platform (PAC paper 3.1): the nodes run one after another, "
                                "each for this much of its own clock; 0: all nodes run at once (a timed platform). "
                                "Needs fabric 'untimed'");
    v.field("ideal_latency", ideal_latency, "ideal fabric: latency of a write into another node's address space");
    v.field("ideal_rate", ideal_rate, "ideal fabric: rate of a node's master port");
    v.field("header", header, "bytes of a Portals header on the fabric", config::Limits::between(1, 4096));
    v.field("post", post, "PAC: the host writing a command into the accelerator's message buffer (software Portals "
                          "runs the command on the CPU instead)");
    v.field("interrupt", interrupt,
            "taking an interrupt on the host (plain rendezvous: an expected header; PAC: a message buffer full)");
    v.field("max_msg_size", max_msg_size,
            "PAC: MAX_MSG_SIZE; each message buffer holds nodes x max_msg_size bytes, an interrupt raised when full",
            config::Limits::at_least(1));
    v.field("list_entries", list_entries, "entries of the match-list pool (PR, OF and UM together)",
            config::Limits::between(1, 1 << 24));
    v.field("unexpected_store", unexpected_store, "memory for unexpected payloads (a buddy allocator)",
            config::Limits::at_least(1));
    v.field("store_block", store_block, "smallest block of the unexpected store", config::Limits::at_least(1));
    v.field("counting_events", counting_events, "entries of the counting-event table",
            config::Limits::between(1, 1 << 24));
    v.field("eager_ack", eager_ack,
            "messages sent whole ask for an acknowledgement and keep their buffer exposed until it comes (PAC Fig. "
            "3a-b): an unexpected payload the store cannot take is dropped and fetched with a Get once its receive "
            "is posted. false: the send completes when the Put has left, and such a payload is an error");
  }
};

/// The time a processor spends on Portals commands.
class PortalsProcessor {
public:
  explicit PortalsProcessor(const PortalsProcessorConfig& cfg) : cfg_(cfg) {}
  /// One command whose searches visited `visited` entries of a list of `list_entries` entries (the list
  /// named `list`: its footprint enters the cache model), with hashing or not.
  SimTime command(const std::string& list, unsigned visited, std::size_t list_entries, bool hashing);
  /// A command that adds to list `list` (now `list_entries` long) without walking it: the list becomes the
  /// most recently touched.
  void touch(const std::string& list, std::size_t list_entries)
  {
    cache_.access(list, static_cast<std::uint64_t>(list_entries) * cfg_.entry_bytes.count, cfg_.cache.count,
                  cfg_.cache.count);
  }
  SimTime cycles(double n) const { return SimTime::from_seconds(n / cfg_.clock.hz); }
  /// Visits so far that missed the cache.
  std::uint64_t missed() const { return missed_; }

private:
  PortalsProcessorConfig cfg_;
  CpuCache cache_;
  std::uint64_t missed_ = 0;
};

} // namespace nafsim::nodes

namespace nafsim::config {
template <> struct EnumNames<nodes::PortalsEngine> {
  static constexpr std::array list{std::pair{nodes::PortalsEngine::Pac, "pac"},
                                   std::pair{nodes::PortalsEngine::ArmA9, "arm_a9"},
                                   std::pair{nodes::PortalsEngine::E8400, "e8400"}};
};
template <> struct EnumNames<nodes::PortalsFabricKind> {
  static constexpr std::array list{std::pair{nodes::PortalsFabricKind::Ideal, "ideal"},
                                   std::pair{nodes::PortalsFabricKind::Network, "network"},
                                   std::pair{nodes::PortalsFabricKind::Untimed, "untimed"}};
};
} // namespace nafsim::config

namespace nafsim::nodes {
inline std::string PortalsConfig::engine_problem() const
{
  if (!(of(engine) == PortalsProcessorConfig{}))
    return {};
  const std::string section = std::string("node.portals.") + config::enum_name(engine); // its section is its name
  return section + " has no costs of its own (the defaults are the same placeholders for every engine: 1 GHz, 1000 "
                   "cycles a command, 20 an entry): run on a preset that gives them (pac-32, pac-128 and their -ovp "
                   "forms, from the PAC paper) or set " + section;
}
} // namespace nafsim::nodes

namespace nafsim::config {
} // namespace nafsim::config
