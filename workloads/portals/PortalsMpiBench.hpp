#pragma once
// MPI and Global Arrays over Portals (PAC paper 5.3-5.5; issue 14): every rank runs a communication
// pattern through its node's Portals interface (nodes/pac/PortalsNi: PAC or software Portals on an ARM
// A9 or an E8400, with or without hashing, over an ideal memory-mapped bus or nafsim's network), once per
// protocol variant:
//   alltoall   MPI_Alltoall of `block` bytes per pair (the paper's 8 KB study, 5.5);
//   nas_is / nas_ft / nas_ep / nas_dt   the communication of the NAS benchmarks' class S runs, compute
//              left out (the message patterns in workloads/portals/README.md, from the NPB 3.x MPI source);
//   ga_md      a Lennard-Jones molecular-dynamics step over a Global Array: each rank GA_Gets every other
//              rank's block of positions (one-sided Gets on windows), then an energy MPI_Allreduce.
// The time reported is the pattern's: all ranks start together, it ends with the last rank (the skeletons
// have no computation, so it is their intercommunication time).

#include "nodes/host/HostNodeConfig.hpp"
#include "nodes/pac/NetworkPortalsFabric.hpp"
#include "nodes/pac/PortalsMpi.hpp"
#include "nodes/pac/TimeSlices.hpp"
#include "workloads/StartLine.hpp"
#include "workloads/Workload.hpp"

#include <memory>

namespace nafsim::workloads {

enum class PortalsPattern { AllToAll, NasIs, NasFt, NasEp, NasDt, GaMd };
/// Whose collective selection the ranks' MPI follows: the platform's (node.host.mpi.library) or one named here.
enum class PortalsLibrary { Platform, OpenMpi, OpenMpi20, Mpich };

struct PortalsMpiConfig {
  PortalsPattern pattern = PortalsPattern::AllToAll;
  unsigned ranks         = 0;
  Bytes block{8192};
  std::vector<std::string> protocols{"triggered:4KiB"};
  unsigned iterations   = 1;
  unsigned md_particles = 4096;
  unsigned md_steps     = 10;
  PortalsLibrary library = PortalsLibrary::Platform;
  template <class V> void describe(V& v)
  {
    v.field("pattern", pattern, "what the ranks run: alltoall, nas_is, nas_ft, nas_ep, nas_dt or ga_md");
    v.field("ranks", ranks, "ranks, one per node from the first (0: every node)", config::Limits::between(0, 1 << 20));
    v.field("block", block, "alltoall: bytes each rank sends each other rank", config::Limits::between(0, 1 << 24));
    v.field("protocols", protocols,
            "MPI point-to-point protocols to compare, each run in turn: \"eager\" (the whole message in one Put), "
            "\"rendezvous:<eager_limit>\" (the host Gets the rest) or \"triggered:<eager_limit>\" (a triggered Get)");
    v.field("iterations", iterations, "times the pattern runs per protocol (the time, counts and engine times are the means per iteration)",
            config::Limits::between(1, 1000));
    v.field("md_particles", md_particles, "ga_md: particles of the global array (3 doubles each)",
            config::Limits::between(1, 1 << 24));
    v.field("md_steps", md_steps, "ga_md: time steps", config::Limits::between(1, 10000));
    v.field("library", library, "whose collective selection the ranks' MPI follows: platform (the platform's "
                                "node.host.mpi.library: Open MPI 4.1 on pac-32 / pac-128, the 2016 rules on the "
                                "virtual platform's presets), openmpi (4.1's tuned tables), openmpi-2.0 (the classic "
                                "tuned rules of the 2016 releases the PAC paper's MPI is based on, section 5.1) or mpich");
  }
};

class PortalsMpiBench final : public Workload {
public:
  explicit PortalsMpiBench(const PortalsMpiConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  struct Variant {
    nodes::PortalsProtocol protocol = nodes::PortalsProtocol::Eager;
    Bytes eager_limit{0};
    std::string name;
  };
  struct Record {
    SimTime time;
    nodes::PortalsNiCounters sum; ///< over all nodes
    SimTime busiest;              ///< the busiest node's engine time
    SimTime bus;                  ///< the fabric's time moving the variant's messages
    nodes::PortalsNiCounters setup; ///< the set-up before the timed iterations (GA_Create), over all nodes
    SimTime setup_bus;              ///< the fabric's time moving its messages
  };
  void run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank);
  /// The pattern's rank counts and the Portals engine's store and time slices, checked against each other (a
  /// ConfigError naming the setting to change).
  void check_settings(const nodes::PortalsConfig& pc) const;
  /// The virtual platform's time slices (node.portals.quantum), and what a run out of time then says.
  void make_slices(nodes::Cluster& c, const nodes::PortalsConfig& pc);
  void pattern(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank);
  /// NAS IS (per ranking: the bucket sizes summed, the send counts and the keys exchanged; then full_verify's ring of
  /// largest keys and the counts' reduce) and NAS FT (the 3-D FFTs' transposes, 1-D or 2-D layout, and the checksums).
  void nas_is(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank);
  void nas_ft(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank);
  /// Collective `k` of `count` elements among all ranks, or among the nodes `comm` (this rank one of them).
  void collective(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank, coll::Collective k, std::uint64_t count,
                  unsigned elem_bytes, coll::ReduceFunc f = coll::ReduceFunc::Sum, const std::vector<int>& comm = {});
  PortalsMpiConfig cfg_;
  std::vector<Variant> variants_;
  unsigned ranks_ = 0;
  std::unique_ptr<nodes::PortalsFabric> fabric_;
  std::unique_ptr<nodes::TimeSlices> slices_;              ///< the virtual platform's (quantum > 0)
  std::vector<std::unique_ptr<nodes::NodeClock>> clocks_; ///< per rank
  std::vector<std::unique_ptr<nodes::PortalsNi>> nis_;   ///< variant v's node r at v * ranks + r
  std::vector<std::unique_ptr<nodes::PortalsMpi>> mpis_; ///< likewise
  std::vector<SimTime> end_;                             ///< per rank, the current variant's
  mpi::Library library_ = mpi::Library::OpenMpi;         ///< the one in use (workload's or platform's)
  std::vector<Record> records_;
  std::vector<nodes::PortalsNiCounters> before_; ///< per rank, the current variant's counters after its set-up
  SimTime bus_start_, bus0_;                     ///< the fabric's bus time at the variant's start, after its set-up
  StartLine line_;
};

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::PortalsPattern> {
  static constexpr std::array list{std::pair{workloads::PortalsPattern::AllToAll, "alltoall"},
                                   std::pair{workloads::PortalsPattern::NasIs, "nas_is"},
                                   std::pair{workloads::PortalsPattern::NasFt, "nas_ft"},
                                   std::pair{workloads::PortalsPattern::NasEp, "nas_ep"},
                                   std::pair{workloads::PortalsPattern::NasDt, "nas_dt"},
                                   std::pair{workloads::PortalsPattern::GaMd, "ga_md"}};
};
template <> struct EnumNames<workloads::PortalsLibrary> {
  static constexpr std::array list{std::pair{workloads::PortalsLibrary::Platform, "platform"},
                                   std::pair{workloads::PortalsLibrary::OpenMpi, "openmpi"},
                                   std::pair{workloads::PortalsLibrary::OpenMpi20, "openmpi-2.0"},
                                   std::pair{workloads::PortalsLibrary::Mpich, "mpich"}};
};
} // namespace nafsim::config
