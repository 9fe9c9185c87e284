#pragma once
// A node's Portals network interface with MPI's point-to-point protocols on it (PAC paper sections 2.5,
// 3.2, 3.3; issue 14): the matching lists (protocols/portals), the unexpected-payload store (a buddy
// allocator), counting events with the triggered Get, and the time all of it takes on the node's Portals
// engine (PAC, or software Portals on the node's CPU: PortalsProcessor).
//
// MPI over Portals (the paper's Fig. 3 and 8):
//   eager: one Put carrying the whole message. Expected (a receive is on the priority list): the payload
//     is copied from the message buffer into the user buffer. Unexpected: the overflow list is walked for
//     the initiator's buffer, the payload copied into the unexpected store and the header appended to the
//     unexpected list; the receive (PtlMEAppend) finds it there and copies it out. If the store is full
//     the payload is dropped and the receive Gets it from the initiator (Fig. 3b).
//   rendezvous (eager_limit E): the Put carries the first E bytes; the rest is fetched with a Get of the
//     initiator's exposed send buffer. Plain: the target's host issues the Get (interrupted when the
//     header is expected). Triggered: the receive attaches a counting event and a PtlTriggeredGet to its
//     entry, and the engine issues the Get without the host, expected or not.
//   A send completes when its Put has left (eager) or when its buffer has been read (rendezvous). With
//   `eager_ack`, a message sent whole asks for an Ack and keeps its buffer exposed until it comes; a payload
//   the store cannot take is then dropped, its header kept, and the receive Gets the whole message (Fig. 3b).
//
// Timing: every command (host commands, Put and Get arrivals, Get replies) costs the engine its
// command cycles, its list walks (entries visited, through the cache model) and its copies (copy_rate).
// Software Portals runs them one after another on the CPU. PAC runs each operation type in its own
// subsystem (3.2.3: host commands, incoming Puts, Gets issued, served and answered), all sharing one list
// manager. The matching state changes in the order commands reach the engine; their effects (a receive
// done, a Get issued) take place when the engine has finished them. The fabric is the nafsim network
// (RoCE SENDs carrying a Portals header, between host nodes) or an ideal memory-mapped bus like the
// paper's virtual platform (a fixed latency and a rate per master port).

#include "nodes/pac/NodeClock.hpp"
#include "nodes/pac/PortalsProcessor.hpp"
#include "protocols/portals/Events.hpp"
#include "protocols/portals/Matching.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace nafsim::nodes {

enum class PortalsProtocol { Eager, Rendezvous, Triggered };

/// One Portals message on the fabric.
struct PortalsWire {
  enum class Type : std::uint8_t { Put, GetRequest, GetReply, Ack };
  Type type = Type::Put;
  portals::Header h;        ///< Put: matched at the target; Get: match_bits name the exposed buffer
  std::uint64_t get_id = 0; ///< GetRequest / GetReply: the request at its issuer
  std::uint64_t bytes  = 0; ///< payload bytes it carries
  bool one_sided       = false; ///< a Get on a window (served by the window's priority entry)
  bool ack             = false; ///< Put: the initiator waits for an Ack (its buffer stays exposed till then)
};

/// How Portals messages travel between nodes.
class PortalsFabric {
public:
  using Deliver = std::function<void(int from, const PortalsWire&)>;
  explicit PortalsFabric(std::size_t nodes) : deliver_(nodes) {}
  virtual ~PortalsFabric() = default;
  /// Send `w` from `from` to `to`; `sent` runs once it has left `from` (may be empty).
  virtual void send(int from, int to, const PortalsWire& w, std::function<void()> sent) = 0;
  /// Where messages for node `node` are delivered.
  void attach(int node, Deliver d) { deliver_.at(static_cast<std::size_t>(node)) = std::move(d); }
  /// Time the fabric spent moving messages (every sender's port busy plus latency), if it keeps it.
  virtual SimTime bus_time() const { return {}; }

protected:
  /// Hand `w`, from node `from`, to node `to`.
  void deliver(int to, int from, const PortalsWire& w) const { deliver_.at(static_cast<std::size_t>(to))(from, w); }

private:
  std::vector<Deliver> deliver_;
};

/// The paper's virtual platform: each node's master port writes into the target's global address
/// space at `rate` after `latency`.
class IdealPortalsFabric final : public PortalsFabric {
public:
  IdealPortalsFabric(Scheduler& s, std::size_t nodes, SimTime latency, BitsPerSecond rate, Bytes header);
  void send(int from, int to, const PortalsWire& w, std::function<void()> sent) override;
  SimTime bus_time() const override { return bus_; }

private:
  Scheduler& sched_;
  SimTime bus_;
  SimTime latency_;
  BitsPerSecond rate_;
  Bytes header_;
  std::vector<SimTime> port_free_;
};

/// The paper's virtual platform as OVP runs it (3.1, 3.2): a node's write into another's global address space
/// is an untimed memory access. The message is there, whole, at the date it is written: delivered at once, and
/// the sender's port free at once. With time slices the reader sees it when it next runs (TimeSlices.hpp).
class UntimedPortalsFabric final : public PortalsFabric {
public:
  UntimedPortalsFabric(Scheduler& s, std::size_t nodes) : PortalsFabric(nodes), sched_(s) {}
  void send(int from, int to, const PortalsWire& w, std::function<void()> sent) override;

private:
  Scheduler& sched_;
};

struct PortalsNiCounters {
  std::uint64_t puts = 0, gets = 0, expected = 0, unexpected = 0, payload_dropped = 0, triggered_gets = 0,
                host_gets = 0, interrupts = 0, acks = 0, visited = 0, missed = 0, bytes_copied = 0, one_sided = 0;
  std::uint64_t store_peak = 0; ///< bytes of the unexpected store in use, at most
  SimTime commands, walks, copies; ///< the engine time of the commands' fixed cycles, the list walks, the copies
  SimTime interrupts_time;         ///< the host's time in interrupt handlers
  /// Engine time spent (all subsystems).
  SimTime busy() const { return commands + walks + copies; }
  /// Sum another node's counts into these (the store's peak: the larger).
  void add(const PortalsNiCounters& o)
  {
    puts += o.puts, gets += o.gets, expected += o.expected, unexpected += o.unexpected;
    payload_dropped += o.payload_dropped, triggered_gets += o.triggered_gets, host_gets += o.host_gets;
    interrupts += o.interrupts, acks += o.acks, visited += o.visited, missed += o.missed;
    bytes_copied += o.bytes_copied, one_sided += o.one_sided;
    store_peak = std::max(store_peak, o.store_peak);
    commands += o.commands, walks += o.walks, copies += o.copies, interrupts_time += o.interrupts_time;
  }
  /// What was counted since `before` (an earlier reading of the same node); the store's peak stays the whole run's.
  PortalsNiCounters since(const PortalsNiCounters& before) const
  {
    PortalsNiCounters d = *this;
    d.puts -= before.puts, d.gets -= before.gets, d.expected -= before.expected, d.unexpected -= before.unexpected;
    d.payload_dropped -= before.payload_dropped, d.triggered_gets -= before.triggered_gets;
    d.host_gets -= before.host_gets, d.interrupts -= before.interrupts, d.acks -= before.acks;
    d.visited -= before.visited, d.missed -= before.missed, d.bytes_copied -= before.bytes_copied;
    d.one_sided -= before.one_sided;
    d.commands = commands - before.commands, d.walks = walks - before.walks, d.copies = copies - before.copies;
    d.interrupts_time = interrupts_time - before.interrupts_time;
    return d;
  }
};

class PortalsNi {
public:
  using Done = std::function<void()>;
  /// Node `self` of `nodes`; its work dated on `clock` (the engine's, or its time slices').
  PortalsNi(int self, int nodes, const PortalsConfig& cfg, PortalsProtocol proto, Bytes eager_limit, NodeClock& clock,
            PortalsFabric& fabric);
  PortalsNi(const PortalsNi&)            = delete;
  PortalsNi& operator=(const PortalsNi&) = delete;

  /// MPI_Isend of `bytes` to `dst` with match bits `bits`; `done` when the send buffer may be reused.
  void isend(int dst, portals::MatchBits bits, std::uint64_t bytes, Done done);
  /// MPI_Irecv of `bytes` from `src` with match bits `bits`; `done` when they are in the user buffer.
  void irecv(int src, portals::MatchBits bits, std::uint64_t bytes, Done done);
  /// PtlWinCreate at this node: the persistent priority entry over its window (any source, `bits`).
  void window(portals::MatchBits bits, std::uint64_t bytes);
  /// One-sided Get of `bytes` from `dst`'s window (`bits`) at `offset`; `done` when they are here.
  void get_window(int dst, portals::MatchBits bits, std::uint64_t offset, std::uint64_t bytes, Done done);

  const PortalsNiCounters& counters() const { return c_; }
  const portals::MatchingUnit& lists() const { return mu_; }
  /// Operations still in progress (receives waiting, sends not done, Gets outstanding).
  std::size_t outstanding() const { return recvs_.size() + rndv_sends_.size() + gets_.size(); }
  /// Counting events allocated (the triggered protocol: one per long receive until its Get is issued).
  std::size_t counting_events_in_use() const { return cts_.in_use(); }

private:
  enum Unit { kHost = 0, kPut = 1, kGet = 2 };
  struct Recv {
    std::uint64_t bytes = 0;
    std::uint64_t have  = 0; ///< bytes in the user buffer so far
    Done done;
  };
  struct RndvSend {
    std::uint64_t bytes = 0;
    Done done;
  };
  struct Get {
    std::uint64_t recv = 0; ///< the receive it completes (0: a one-sided get)
    Done done;              ///< one-sided: when the reply is in
  };
  /// Reserve the engine for a command of unit `u`: `walk` on the list manager, `copy` bytes copied;
  /// returns when it is done.
  SimTime reserve(Unit u, SimTime walk, std::uint64_t copy, bool command = true, SimTime not_before = {});
  void after(SimTime t, std::function<void()> fn);
  /// A host command (`walk_t` of list walks) that sends `w` to `dst` when the engine has run it.
  void post_and_send(int dst, const PortalsWire& w, SimTime walk_t, Done sent);
  /// The host takes an interrupt (its handler runs one at a time; software Portals runs on that same CPU);
  /// returns when the handler is done.
  SimTime interrupt_host();
  SimTime walk(const char* list, unsigned visited, std::size_t entries);
  SimTime copy_time(std::uint64_t bytes) const;
  void deliver(int from, const PortalsWire& w);
  void on_put(int from, const PortalsWire& w);
  void on_get_request(int from, const PortalsWire& w);
  void on_get_reply(const PortalsWire& w);
  void on_ack(const PortalsWire& w);
  /// After a Put's processing ends at `end`: acknowledge it to `to` if it asked.
  void ack_at(SimTime end, int to, const PortalsWire& put);
  /// The bytes of message `h` from `from` on, for receive `recv`: the triggered Get hanging on counting event
  /// `ct`, or else one the host issues (after taking an interrupt if `interrupt`). Nothing if none are left.
  void fetch_rest(const portals::Header& h, std::uint64_t from, std::uint64_t recv, std::int32_t ct, bool interrupt);
  /// Receive `recv` matched message `h`: it completes with the message's bytes (a longer receive takes the
  /// message's length); a shorter one is an error (MPI_ERR_TRUNCATE).
  void matched(std::uint64_t recv, const portals::Header& h);
  /// Issue a Get of [offset, offset + bytes) of `from`'s exposed buffer `bits` for receive `recv`, from `at`
  /// (PAC: in its Get subsystem, whoever asked for it).
  void issue_get(int from, portals::MatchBits bits, std::uint64_t offset, std::uint64_t bytes, std::uint64_t recv,
                 SimTime at);
  void recv_progress(std::uint64_t recv, std::uint64_t bytes);
  portals::MatchBits rndv_bits(std::uint64_t msg) const;

  int self_, nodes_;
  PortalsConfig cfg_;
  PortalsProcessorConfig pcfg_;
  PortalsProtocol proto_;
  std::uint64_t eager_limit_;
  NodeClock& clock_;
  PortalsFabric& fabric_;
  PortalsProcessor cpu_;
  portals::MatchingUnit mu_;   ///< the MPI portal: PR, OF, UM
  portals::MatchingUnit rndv_; ///< the exposed send buffers rendezvous Gets read
  portals::CountingEvents cts_;
  portals::BuddyAllocator store_;
  std::unordered_map<std::uint64_t, std::uint64_t> stored_; ///< UM message -> store offset
  std::unordered_set<std::uint64_t> dropped_;               ///< UM messages whose payload was dropped
  SimTime unit_free_[3];
  SimTime lm_free_;
  SimTime host_free_; ///< PAC: the host CPU's interrupt handler
  std::uint64_t next_ = 0;
  std::unordered_map<std::uint64_t, Recv> recvs_;
  std::unordered_map<std::uint64_t, RndvSend> rndv_sends_; ///< by message id
  std::unordered_map<std::uint64_t, Get> gets_;
  std::uint64_t buffered_ = 0; ///< bytes waiting in the message buffer for the engine
  PortalsNiCounters c_;
};

} // namespace nafsim::nodes
