#pragma once
// Parameters of the RoCEv2 reliable-connection transport as implemented by Coyote's RDMA stack
// (fpgasystems/fpga-network-stack, hls/ib_transport_protocol). Defaults follow that code.

#include "simcore/config/Schema.hpp"

namespace nafsim::roce {

/// The largest message a work request may carry: 2^31 bytes (InfiniBand's maximum message size, which RoCE keeps).
/// It is also this model's limit: at the smallest path MTU (256 B) such a message is 2^23 packets, half the 24-bit
/// PSN space, the most a requester can have unacknowledged before its PSNs look old to the responder.
constexpr std::uint64_t kMaxMessage = 1ULL << 31;

struct RoceConfig {
  Bytes mtu{4096};
  Bytes base_header{44};
  Bytes reth{16};
  Bytes aeth{4};
  unsigned max_outstanding = 16;
  std::vector<SimTime> timeouts{SimTime::us(1000), SimTime::us(5000), SimTime::us(10000)};
  unsigned retry_limit = 4;
  unsigned ack_every   = 1;
  SimTime ack_timeout  = SimTime::zero();
  SimTime rnr_timeout  = SimTime::us(10);
  unsigned rnr_retry_limit = 7;
  SimTime rnr_stall        = SimTime::us(100000);
  bool ooo_read_responses  = false;
  bool adaptive_retransmission = false;
  SimTime adaptive_timeout_initial = SimTime::us(64);

  /// (Engines share equal configurations: simcore/engine/Interned.hpp.)
  bool operator==(const RoceConfig&) const = default;

  config::FieldProblem check() const
  {
    if (mtu.count != 256 && mtu.count != 512 && mtu.count != 1024 && mtu.count != 2048 && mtu.count != 4096)
      return {"mtu", "a RoCE path MTU is one of 256, 512, 1024, 2048 or 4096 bytes (InfiniBand's PMTU values; a 9000 "
                     "B Ethernet MTU still carries 4096 B RoCE packets): give one of them"};
    if (timeouts.empty())
      return {"timeouts", "the list of retransmission timeouts is empty: give at least one (e.g. [\"1ms\"]; the last repeats)"};
    for (std::size_t i = 0; i < timeouts.size(); ++i)
      if (timeouts[i] <= SimTime::zero())
        return {"timeouts/" + std::to_string(i), "a retransmission timeout must be longer than 0 (e.g. \"1ms\")"};
    if (adaptive_retransmission && adaptive_timeout_initial <= SimTime::zero())
      return {"adaptive_timeout_initial", "with adaptive_retransmission the first timeout must be longer than 0 (e.g. \"64us\")"};
    return {};
  }

  template <class V> void describe(V& v)
  {
    v.field("mtu", mtu, "path MTU: payload bytes per packet, one of InfiniBand's 256, 512, 1024, 2048, 4096 "
                            "(both ends of a queue pair need the same)",
            config::Limits::between(256, 4096));
    v.field("base_header", base_header, "IPv4 (20) + UDP (8) + BTH (12) + ICRC (4) bytes in every packet");
    v.field("reth", reth, "RDMA extended header bytes (first/only WRITE packet, READ request)");
    v.field("aeth", aeth, "ACK extended header bytes (ACK/NAK, first/last/only READ response)");
    v.field("max_outstanding", max_outstanding,
            "work requests a queue pair may have in flight (Coyote's rdma_flow.sv: RDMA_N_WR_OUTSTANDING = 16)",
            config::Limits::between(1, 4096));
    v.field("timeouts", timeouts,
            "retransmission timeout after 0, 1, 2, ... consecutive timeouts (the last repeats); Coyote's "
            "transport_timer uses 1 ms, 5 ms, 10 ms. With adaptive_retransmission only the last counts: the queue "
            "pair's timeout, the cap of the adaptive ones");
    v.field("retry_limit", retry_limit,
            "consecutive timeouts tolerated; one more fails the queue pair with an error (Coyote's timer stops "
            "after 4). With adaptive_retransmission: the queue pair fails at the first timeout once nothing has "
            "progressed for retry_limit x its timeout",
            config::Limits::between(0, 1000));
    v.field("ack_every", ack_every,
            "the responder acknowledges every Nth in-order packet and always the last of a message "
            "(Coyote: 1, an ACK event per packet)",
            config::Limits::between(1, 1 << 16));
    v.field("ack_timeout", ack_timeout,
            "0: off. Otherwise packets accepted but not yet acknowledged (ack_every coalescing) are acknowledged "
            "once this long has passed since the first of them (ERNIC: an ACK on request, the last packet of a "
            "message, or on a timeout)");
    v.field("rnr_timeout", rnr_timeout, "wait before resending after a receiver-not-ready NAK (SEND with no posted "
                                        "receive)");
    v.field("rnr_retry_limit", rnr_retry_limit, "receiver-not-ready NAKs tolerated per message before the queue "
                                                "pair fails; 7 retries forever (the 3-bit RNR retry count of the "
                                                "InfiniBand spec, where 7 means infinite)",
            config::Limits::between(0, 7));
    v.field("rnr_stall", rnr_stall,
            "with rnr_retry_limit 7 (retry forever): a queue pair whose same packet is refused by receiver-not-ready "
            "NAKs this long, while no actor of the run sleeps (a rank computing before it posts), fails, reported as the "
            "receiver's buffers never draining (a simulated deadlock: every "
            "peer waits for another whose buffers are full) instead of retrying for ever; 0: never");
    v.field("ooo_read_responses", ooo_read_responses,
            "out-of-order data placement of READ responses: a response ahead of a gap is placed at its offset and "
            "kept, and the missing ones are asked for again only once the READ's last response has come (or on the "
            "timeout); false: go-back-N, a gap re-requests the rest at once and responses past it are dropped");
    v.field("adaptive_retransmission", adaptive_retransmission,
            "NVIDIA ConnectX adaptive retransmission (ROCE_ACCL roce_adp_retrans_en): the first timeout is "
            "adaptive_timeout_initial, each consecutive timeout doubles it up to the queue pair's timeout (the last "
            "of timeouts), forward progress (an acknowledgement that advances) resets it, and the queue pair fails "
            "once nothing has progressed for retry_limit x the queue pair's timeout; false: the timeouts list, "
            "indexed by consecutive timeouts, and retry_limit counts timeouts");
    v.field("adaptive_timeout_initial", adaptive_timeout_initial,
            "with adaptive_retransmission: the first retransmission timeout after progress (the firmware's floor "
            "is 4 us); like every adaptive timeout capped by the queue pair's own, the last of timeouts (NVIDIA: "
            "\"capped by QP.ack_timeout, regardless of configured ranges\")");
  }
};

} // namespace nafsim::roce
