#pragma once
// Coyote's memory management unit as the ACCL+ Coyote build reaches it (issue 27, item 7).
//
// The CCLO has one bypass read and one bypass write command channel to Coyote (zhenhaohe/ACCL external_dma,
// test/refdesigns/hdl/coyote_rdma_top.sv: cyt_byp_rd_cmd_0 / cyt_byp_wr_cmd_0), for host and card memory alike,
// and the RDMA stack's memory requests (rdma_0_rd_req / rdma_0_wr_req) go into the CCLO's block and out through
// the same channels (ACCL+ section 4: the CCLO is a bump in the wire between the MMU and the RDMA stack). So every
// data-mover access and every packet the RDMA stack writes pass one of two TLB state machines
// (fpgasystems/Coyote hw/hdl/mmu/tlb_fsm.sv, one per direction, RDWR), which:
//   - take one request at a time: IDLE, then per page fragment MUTEX, WAIT_1, WAIT_2, CHECK, HIT, CALC, SEND:
//     command_cycles (8) for the first fragment, one fewer for each further one (they loop from SEND to MUTEX);
//   - share the TLB with the other direction through a mutex held from MUTEX to CHECK (lock_cycles, 4);
//   - cut a request at page boundaries (CALC_LARGE: plen = the rest of the page) and send each fragment as its own
//     DMA request to host memory (the XDMA) or to one of the card streams;
//   - keep at most N_TLB_ACTV (16) requests in flight per destination: SEND waits while the ring is full;
//   - on a miss raise a page fault to the driver and wait for its answer (ST_MISS_SEND .. ST_MISS_IDLE), then look
//     up again.
// The CCL driver maps a buffer's pages when it creates the buffer (ACCL+ section 4, "eagerly maps pages"), so a
// page's first use here finds it mapped: only a page evicted since (its TLB set overflowed) faults.
//
// Callers ask at the times their accesses start, which need not come in time order (a data mover books its
// result write for when its operands will have been read, while a packet arriving now asks now). So the
// machines and the mutex are timelines of booked intervals: a request takes the first gap at or after its time
// where its cycles fit, as the hardware, serving requests in the order they reach it, would have.

#include "nodes/memory/MemoryPort.hpp"
#include "simcore/config/Schema.hpp"
#include "simcore/engine/FlatIndex.hpp"
#include "simcore/units/Units.hpp"

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace nafsim {
class Scheduler;
}

namespace nafsim::nodes {

struct MmuConfig {
  bool enabled               = false;
  unsigned command_cycles    = 8;
  unsigned lock_cycles       = 4;
  unsigned outstanding       = 16;
  Bytes page{2 << 20};
  unsigned tlb_sets          = 512;
  unsigned tlb_ways          = 2;
  SimTime page_fault         = SimTime::us(20);
  template <class V> void describe(V& v)
  {
    v.field("enabled", enabled,
            "route the CCLO's and the RDMA stack's memory requests through Coyote's TLB state machines (one per "
            "direction, a shared TLB); false: each engine issues its accesses directly");
    v.field("command_cycles", command_cycles,
            "FPGA clock cycles a state machine spends on a request's first page fragment (tlb_fsm.sv: IDLE, MUTEX, "
            "WAIT_1, WAIT_2, CHECK, HIT, CALC, SEND); each further fragment costs one fewer",
            config::Limits::between(1, 1000));
    v.field("lock_cycles", lock_cycles,
            "cycles of those during which the TLB's mutex is held (MUTEX to CHECK): the read and write machines "
            "look up one at a time",
            config::Limits::between(0, 1000));
    v.field("outstanding", outstanding,
            "DMA requests (page fragments) a state machine keeps in flight per destination (tlb_fsm.sv's "
            "N_TLB_ACTV): host memory, or each card stream; not the 4 KiB pieces and 8 credits of the Coyote ACCL "
            "built (nodes/README.md)",
            config::Limits::between(1, 4096));
    v.field("page", page, "page size of the TLB the buffers are mapped in (TLBL_BITS 21: 2 MiB huge pages)",
            config::Limits::between(4096, 1ULL << 40));
    v.field("tlb_sets", tlb_sets, "sets of that TLB (2^TLBL_S)", config::Limits::between(1, 1 << 20));
    v.field("tlb_ways", tlb_ways, "ways of each set (TLBL_A)", config::Limits::between(1, 64));
    v.field("page_fault", page_fault,
            "time from a TLB miss to the driver's answer (interrupt, page lookup, TLB entries written over PCIe)");
  }
  config::FieldProblem check() const
  {
    if (lock_cycles + 2 > command_cycles)
      return {"lock_cycles", "a request's cycles are IDLE, the mutex's lock_cycles, then at least SEND: "
                             "command_cycles must be at least lock_cycles + 2"};
    if ((page.count & (page.count - 1)) != 0)
      return {"page", "a page size is a power of two"};
    return {};
  }
};

struct MmuCounters {
  std::uint64_t requests    = 0; ///< requests taken by the state machines
  std::uint64_t fragments   = 0; ///< DMA requests sent (a request cut at page boundaries sends several)
  std::uint64_t page_faults = 0;
  SimTime machine_wait;          ///< time requests waited for their state machine (busy with earlier ones)
  SimTime lock_wait;             ///< time state machines waited for the TLB mutex
  SimTime slot_wait;             ///< time SEND waited for a free in-flight slot
};

class CoyoteMmu {
public:
  enum class Dir : std::uint8_t { Read, Write };
  /// Destinations of DMA requests: host memory, and the card streams (N_CARD_AXI = 3 in the ACCL build).
  static constexpr unsigned kLanes = 4;
  static constexpr unsigned kHostLane = 0;

  CoyoteMmu(const MmuConfig& cfg, Hertz clock);
  /// Forget the booked intervals that ended before `s`'s present as requests come (no request is taken before
  /// it): the timelines stay a few entries long, so their look-ups stay in one or two cache lines.
  /// Its request()s' scratch lists become the run's, shared by every node's MMU (in cache whichever node asks).
  void follow(Scheduler& s);

  /// Issue one fragment's data access at `start` (the SEND cycle), returning its stream. A reference to a callable
  /// (no allocation: one is made per memory access). It must not make a request of an MMU of the same run (their
  /// scratch lists are one, being read: request() throws std::logic_error) nor of this one.
  class Issue {
  public:
    template <class F>
      requires(!std::is_same_v<std::remove_cv_t<F>, Issue>)
    Issue(F& f) // NOLINT: implicit, from the caller's lambda, which outlives the call
        : obj_(&f), fn_([](void* o, SimTime s, std::uint64_t a, Bytes b) { return (*static_cast<F*>(o))(s, a, b); })
    {
    }
    Stream operator()(SimTime start, std::uint64_t addr, Bytes b) const { return fn_(obj_, start, addr, b); }

  private:
    void* obj_;
    Stream (*fn_)(void*, SimTime, std::uint64_t, Bytes);
  };
  /// A request of `b` bytes at `addr` through the `dir` state machine to destination `lane`, taken no earlier
  /// than `now`: its fragments' data accesses are issued through `issue`; returns the request's stream (first
  /// byte of its first fragment, last byte of its last).
  /// A request within one page, nearly every one a run makes, takes a path of its own (one fragment: no scratch
  /// lists, no loop over fragments); it gives what request_by_fragments() gives (the tests compare the two).
  Stream request(Dir dir, unsigned lane, SimTime now, std::uint64_t addr, Bytes b, const Issue& issue);
  /// The general path: any request, cut into its fragments, planned through the scratch lists.
  Stream request_by_fragments(Dir dir, unsigned lane, SimTime now, std::uint64_t addr, Bytes b, const Issue& issue);

  const MmuCounters& counters() const { return counters_; }
  const MmuConfig& config() const { return cfg_; }

private:
  /// Look `page` up; a miss on a page mapped before (and evicted since) is a fault, a first use maps it (the
  /// driver did when the buffer was created). Returns whether the lookup faulted.
  bool lookup(std::uint64_t page);
  SimTime cycles(unsigned n) const { return SimTime::ps(cycle_.ps() * n); }

  /// Booked busy intervals of a resource (a state machine, the mutex), earliest first.
  class Timeline {
  public:
    /// The earliest start >= t of a `d` long interval that overlaps no booked one.
    SimTime earliest(SimTime t, SimTime d) const;
    void book(SimTime start, SimTime end);
    /// Drop the intervals that end at or before `t` (sorted by start and disjoint: a prefix).
    void forget_before(SimTime t);

  private:
    std::vector<std::pair<SimTime, SimTime>> busy_;
  };

  struct Machine {
    Timeline timeline;
    /// Per destination, completion times of the last `outstanding` requests, oldest at `next`.
    std::array<std::vector<SimTime>, kLanes> ring;
    std::array<std::size_t, kLanes> next{};
  };

  // What every request reads first, in the object's first lines (issue 53: at thousands of nodes each request finds
  // its node's MMU out of cache, a miss per line it touches): its configuration, where its scratch is, its counters,
  // the mutex, the TLB's sets; its machines (a request reads one) follow.
  MmuConfig cfg_;
  SimTime cycle_;
  const Scheduler* present_ = nullptr;
  struct Step {
    SimTime lock, relock, send;
    std::uint64_t addr, bytes;
    bool fault;
  };
  /// Scratch of request(), kept to reuse their storage: the run's (follow) or, before, this MMU's own.
  struct Scratch {
    std::vector<Step> steps;
    std::vector<std::uint8_t> faults; ///< (bytes, not vector<bool>: read once per fragment)
    std::vector<std::pair<SimTime, SimTime>> held;
    bool busy = false; ///< a request under way reads them (request() refuses to start another on them then)
  };
  Scratch* shared_scratch_ = nullptr;
  Scratch& scratch() { return shared_scratch_ ? *shared_scratch_ : own_scratch_; }
  const Scratch& scratch() const { return shared_scratch_ ? *shared_scratch_ : own_scratch_; }
  MmuCounters counters_;
  Timeline mutex_;
  /// Per set in use, its pages in least- to most-recently used order: set -> its block of tlb_ways pages in ways_
  /// and its count in used_ (sets are made as pages reach them: a node touches a few pages, and a cluster has many
  /// nodes). Open-addressing indexes: a look-up per memory request, where hashed nodes and a vector per set cost
  /// three cache misses.
  FlatIndex sets_;
  std::vector<std::uint64_t> ways_;
  std::vector<std::uint32_t> used_;
  std::array<Machine, 2> machines_;
  FlatIndex mapped_; ///< pages the driver has mapped (evicted or not)
  Scratch own_scratch_;
  /// A request's cycles planned from `t0` (the machine taking it in IDLE then), its lookups in the TLB mutex's
  /// gaps: fills the scratch's steps and held (and faults on the first plan, `look_up`); returns when the plan ends and
  /// the waits it contains.
  struct Plan {
    SimTime end, lock_wait, slot_wait;
  };
  Plan plan(Machine& m, unsigned lane, SimTime t0, std::uint64_t addr, Bytes b, bool look_up);
  /// The earliest start >= at of a lookup in the TLB mutex, around the booked lookups and this plan's own (of which
  /// only the last, `own`, can still be under way at `at`; null before the plan's first).
  SimTime lock_at(SimTime at, const std::pair<SimTime, SimTime>* own) const;
  /// A request of one fragment (within a page), planned and booked without the scratch lists.
  Stream request_in_page(Machine& m, unsigned lane, SimTime now, std::uint64_t addr, Bytes b, const Issue& issue);
  /// Take the request's scratch lists (refused while another request reads them) until the guard goes.
  struct Busy {
    bool& busy;
    ~Busy() { busy = false; }
  };
  [[nodiscard]] Busy take_scratch();
  void forget_past(Machine& m);
};

} // namespace nafsim::nodes
