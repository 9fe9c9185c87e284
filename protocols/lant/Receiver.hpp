#pragma once
// The receiving half of the connectionless transport (paper sections 3.2-3.4, Fig 4 and 5):
// every data packet is acknowledged once it is accepted (CRC failures are NACKed); unregistered
// operations are written straight to memory; registered operations live in the receive
// registration table, whose per-entry bitmask detects duplicates and completion, and complete
// with a local notification. Packets that arrive before their operation's first packet wait in
// the escape channel (bounded, per-packet timeout, then dropped unacknowledged).

#include "protocols/lant/Actions.hpp"
#include "protocols/lant/Bitmask.hpp"
#include "protocols/lant/LantConfig.hpp"
#include "simcore/engine/PairHash.hpp"

#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace nafsim::lant {

struct ReceiverCounters {
  std::uint64_t packets_received      = 0;
  std::uint64_t crc_nacks             = 0; ///< corrupted packets NACKed
  std::uint64_t unregistered_packets  = 0;
  std::uint64_t packets_written       = 0; ///< packet writes to memory (registered: each packet once; a duplicate of an unregistered packet is written again)
  std::uint64_t registrations         = 0;
  std::uint64_t registered_completed  = 0;
  std::uint64_t notifications_received = 0; ///< sender notifications (unregistered operations)
  std::uint64_t duplicate_notifications = 0; ///< ... received again (acknowledged, not delivered twice)
  std::uint64_t duplicates_dropped    = 0; ///< mask unchanged: dropped (and acknowledged again)
  std::uint64_t late_duplicates       = 0; ///< packets of recently completed operations (completed filter)
  std::uint64_t registration_full_drops = 0; ///< first packets dropped: no free table entry
  std::uint64_t not_ready_drops       = 0; ///< first packets of messages dropped: no receive buffer free
  std::uint64_t out_of_order          = 0; ///< packets of a registered operation arriving after a later one
  std::uint64_t escaped               = 0; ///< packets put in the escape channel
  std::uint64_t escape_drained        = 0; ///< ... and later matched to their registration
  std::uint64_t escape_timeouts       = 0; ///< ... dropped when their timer ran out
  std::uint64_t escape_overflow_drops = 0; ///< dropped because the escape channel was full
  std::uint64_t filter_evictions      = 0; ///< completed operations forgotten early (filter full)
  std::uint64_t acks_sent             = 0;
  std::uint64_t peak_registrations    = 0;
  std::uint64_t peak_escape           = 0;
};

class Receiver {
public:
  explicit Receiver(const LantConfig& cfg, std::uint32_t self);

  /// Where incoming messages land (default: where the sender says).
  void set_placement(PlacementProvider p) { placement_ = std::move(p); }
  void on_data(std::uint32_t src, const DataPacket& p, bool corrupted, SimTime now, Actions& out);
  void on_notify(std::uint32_t src, const NotifyPacket& n, SimTime now, Actions& out);
  /// Escape-channel timeouts.
  void on_timer(SimTime now, Actions& out);
  SimTime next_deadline() const;

  const ReceiverCounters& counters() const { return c_; }
  std::size_t registrations_in_use() const { return table_.size(); }
  std::size_t escape_in_use() const { return escape_.size(); }

private:
  struct Key {
    std::uint32_t src;
    std::uint64_t op;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return pair_hash(k.op, k.src); }
  };
  struct Entry {
    Bitmask mask;
    std::uint64_t base  = 0; ///< the operation's address as the sender gave it
    std::uint64_t bytes = 0;
    std::uint64_t msg   = 0;
    std::uint64_t place = 0; ///< where its data goes (a placed message: the receive buffer)
    std::uint64_t recv_id = 0;
    bool message = false;
    Header header{};
    std::uint32_t highest = 0; ///< highest packet index seen (out-of-order statistics only)
  };
  struct Escaped {
    std::uint32_t src;
    DataPacket pkt;
    SimTime deadline;
  };

  void ack(std::uint32_t src, const DataPacket& p, bool nack, Actions& out);
  /// A registered operation is complete: notify (once its data is in memory, by the executor).
  void complete(const Key& k, const Entry& e, Actions& out);
  /// Apply a packet to its registration; true when the operation completed (entry removed).
  bool apply(const Key& k, Entry& e, const DataPacket& p, Actions& out);
  /// An operation's first packet: register it (where it lands: its base, or the receiver's placement of a message),
  /// write it, drain what waited for it in the escape channel; unacknowledged when the table is full or the
  /// placement not ready.
  void register_first(std::uint32_t src, const DataPacket& p, const Key& k, SimTime now, Actions& out);
  void remember_completed(const Key& k, SimTime now);
  bool recently_completed(const Key& k, SimTime now);

  LantConfig cfg_;
  std::uint32_t self_;
  PlacementProvider placement_;
  std::unordered_map<Key, Entry, KeyHash> table_;
  std::deque<Escaped> escape_;
  std::unordered_set<Key, KeyHash> completed_;
  std::deque<std::pair<SimTime, Key>> completed_order_;
  ReceiverCounters c_;
};

} // namespace nafsim::lant
