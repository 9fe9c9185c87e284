#pragma once
// Parameters of the connectionless reliable RDMA transport of Lant et al., "Receive-Side
// Notification for Enhanced RDMA in FPGA Based Networks" (shared/seeds/receive-side-notification-
// connectionless-rdma.md). Defaults are the paper's where it states them; the others are marked
// ASSUMPTION in `nafsim params` and in protocols/lant/README.md.

#include "simcore/config/Schema.hpp"

#include <string>

namespace nafsim::lant {

struct LargeTransferConfig {
  Bytes threshold{0};
  Bytes segment{64 * 1024};
  template <class V> void describe(V& v)
  {
    v.field("threshold", threshold,
            "commands larger than this go to the Large Transfer queue and are cut into segments (0 = never); the "
            "paper leaves it to the programmer (section 3.1)");
    v.field("segment", segment,
            "segment size N: the queue head stays for ceil(M/N) issues (paper Fig 3: 64 KB); a segment outside the "
            "registration range (up to bitmask_bits x packet_payload: 32 KiB by default) cannot be registered: with "
            "notify auto its sender notifies the receiver, a trip later; notify receiver refuses the command",
            config::Limits::at_least(1));
  }
};

struct LantConfig {
  Bytes packet_payload{512};
  Bytes header{16};
  Bytes control_bytes{16};
  unsigned command_queue_depth       = 64;
  unsigned op_table_entries          = 64;
  unsigned transaction_table_entries = 64;
  SimTime packet_timeout             = SimTime::us(200);
  unsigned retry_limit               = 16;
  LargeTransferConfig large_transfer;
  bool registration               = true;
  unsigned registration_entries   = 64;
  unsigned bitmask_bits           = 64;
  Bytes register_min{0};
  Bytes register_max{0};
  unsigned escape_packets         = 64;
  SimTime escape_timeout          = SimTime::us(20);
  unsigned completed_filter_entries = 1024;
  SimTime completed_filter_time     = SimTime::us(1000);

  template <class V> void describe(V& v)
  {
    v.field("packet_payload", packet_payload,
            "payload bytes per packet (paper: 512 B packets, section 4.2, to ease congestion and load balancing)",
            config::Limits::between(8, 65536));
    v.field("header", header, "ASSUMPTION: transport header bytes per data packet (type, op number, packet index, "
                              "packet count, address, CRC)");
    v.field("control_bytes", control_bytes, "ASSUMPTION: bytes of an ACK, NACK or sender notification packet",
            config::Limits::at_least(1));
    v.field("command_queue_depth", command_queue_depth,
            "ASSUMPTION: commands each queue (CPU, accelerator, Large Transfer) holds; a full queue makes the "
            "poster wait",
            config::Limits::between(1, 1 << 20));
    v.field("op_table_entries", op_table_entries,
            "ASSUMPTION: DMA operation table entries (operations in flight, one op number each); when full the DMA "
            "engine waits for an operation to be acknowledged",
            config::Limits::between(1, 1 << 20));
    v.field("transaction_table_entries", transaction_table_entries,
            "ASSUMPTION: DMA transaction table entries (unacknowledged packets, one timeout each); when full no new "
            "packet is sent. 64 x 512 B = 32 KiB in flight covers a 10 Gb/s path's round trip many times over",
            config::Limits::between(1, 1 << 22));
    v.field("packet_timeout", packet_timeout,
            "ASSUMPTION: per-packet retransmission timeout in the transaction table; it must exceed the time a full "
            "transaction table takes to drain when several senders share a link (64 packets x 0.43 us x a few "
            "senders), or queueing alone triggers retransmissions");
    v.field("retry_limit", retry_limit,
            "retransmissions of one packet before its operation fails with an error (never a silent hang)",
            config::Limits::between(1, 1000000));
    v.field("large_transfer", large_transfer, "segmentation of large commands (section 3.1)");
    v.field("registration", registration, "register operations at the receiver (receive-side notification)");
    v.field("registration_entries", registration_entries,
            "receive registration table entries (paper Table 1: 64-1024)", config::Limits::between(1, 1 << 20));
    v.field("bitmask_bits", bitmask_bits,
            "bits of each entry's packet mask: the largest registered operation is bitmask_bits packets (paper "
            "Table 1: 64-1024, i.e. 32 KB-512 KB at 512 B)",
            config::Limits::between(1, 1 << 16));
    v.field("register_min", register_min, "smallest operation that is registered");
    v.field("register_max", register_max,
            "largest operation that is registered (0 = bitmask_bits x packet_payload); larger ones complete by the "
            "sender's notification one round trip after the last ACK (section 3.4)");
    v.field("escape_packets", escape_packets,
            "escape channel capacity in packets for packets ahead of their operation's registration (paper: 64 "
            "full packets, 43 BRAMs)",
            config::Limits::between(0, 1 << 20));
    v.field("escape_timeout", escape_timeout,
            "ASSUMPTION: time a packet may wait in the escape channel before it is dropped");
    v.field("completed_filter_entries", completed_filter_entries,
            "NAFSIM ADDITION (not in the paper): operations recently completed at this receiver, remembered so that a "
            "late copy of a first packet does not register the operation again, a retransmission after a lost ACK "
            "is acknowledged instead of dying in the escape channel, and a resent sender notification is not "
            "delivered twice (0 = off: the paper's design, which relies on control packets never being lost)",
            config::Limits::between(0, 1 << 20));
    v.field("completed_filter_time", completed_filter_time,
            "how long a completed operation stays in that filter (cover several packet timeouts)");
  }

  config::FieldProblem check() const
  {
    if (registration && register_min.count > max_registered())
      return {"register_min", "register_min (" + format_bytes(register_min) + ") is above the largest registrable "
                                  "operation (" + std::to_string(max_registered()) + " B: bitmask_bits x packet_payload, "
                                  "or register_max): nothing could be registered; lower it"};
    return {};
  }
  /// Largest operation that can be registered.
  std::uint64_t max_registered() const
  {
    std::uint64_t cap = std::uint64_t{bitmask_bits} * packet_payload.count;
    return register_max.count == 0 ? cap : std::min(cap, register_max.count);
  }
  /// The largest operation a command of `bytes` issues: a segment when it goes to the Large Transfer queue.
  std::uint64_t largest_operation(std::uint64_t bytes) const
  {
    if (large_transfer.threshold.count > 0 && bytes > large_transfer.threshold.count)
      return std::min(bytes, large_transfer.segment.count);
    return bytes;
  }
  /// Whether an operation of `bytes` can be registered at the receiver.
  bool registrable(std::uint64_t bytes) const
  {
    return registration && bytes <= max_registered() && bytes >= register_min.count;
  }
  /// The smallest operation a command of `bytes` becomes: its last segment when it is segmented and does not divide.
  std::uint64_t smallest_operation(std::uint64_t bytes) const
  {
    const std::uint64_t seg = largest_operation(bytes);
    return seg < bytes && bytes % seg != 0 ? bytes % seg : seg;
  }
  /// Whether every operation a command of `bytes` becomes can be registered (its largest and its smallest: the
  /// registration range is one interval). A segment outside it is notified by the sender whatever the command asked.
  bool registrable_command(std::uint64_t bytes) const
  {
    return registrable(largest_operation(bytes)) && registrable(smallest_operation(bytes));
  }
  std::uint64_t packets_for(std::uint64_t bytes) const
  {
    return std::max<std::uint64_t>(1, (bytes + packet_payload.count - 1) / packet_payload.count);
  }
  /// Most packets one command may have: the model numbers a packet within its operation with 24 bits (the paper
  /// leaves the field width open; 2^24 - 1 packets of 512 B is 8 GiB per command).
  static constexpr std::uint64_t kMaxCommandPackets = (std::uint64_t{1} << 24) - 1;
  /// Why a command of `bytes` cannot be posted (empty when it can): zero bytes, or more packets than
  /// kMaxCommandPackets.
  std::string command_size_problem(std::uint64_t bytes) const
  {
    if (bytes == 0)
      return "it moves 0 bytes (a command carries at least one byte)";
    if (packets_for(bytes) > kMaxCommandPackets)
      return std::to_string(bytes) + " bytes need " + std::to_string(packets_for(bytes)) + " packets of " +
             std::to_string(packet_payload.count) + " B, more than the " + std::to_string(kMaxCommandPackets) +
             " one command may have";
    return {};
  }
};

} // namespace nafsim::lant
