#pragma once
// Parameters of a TCP offload engine: the hardware TCP/IP stack of ACCL's XRT builds (the ETH Zurich
// fpga-network-stack lineage: Sidler et al. FPL'16, Limago FPL'19), and, with host timings, a kernel
// TCP stack under software MPI. Defaults are generic (a 1 ms first timeout, go-back-n); the presets set the
// hardware stack's (accl-xrt-u55c: its timer table, toe recovery) and the host's (accl-cpu-mpich-tcp).

#include "simcore/config/Schema.hpp"

#include <array>
#include <utility>
#include <vector>

namespace nafsim::tcp {

/// How a sender recovers a loss: go-back-n (the send point moves back to the first unacknowledged byte and
/// everything after it is sent again; the window is cut at every retransmission), or toe (the fpga-network-stack
/// hardware: a retransmission event resends a burst from the first unacknowledged byte while the stream goes on).
enum class LossRecovery { GoBackN, Toe };

struct TcpConfig {
  Bytes packet{1536};
  Bytes headers{40};
  Bytes tx_buffer{1 << 20};
  Bytes rx_buffer{1 << 20};
  bool window_scaling     = true;
  bool out_of_order       = false;
  bool accept_overlap     = true;
  unsigned max_sessions   = 1000;
  unsigned initial_window = 0;
  bool congestion_control = true;
  unsigned dupack_threshold = 3;
  SimTime rto_initial = SimTime::us(1000);
  SimTime rto_max     = SimTime::us(64000);
  std::vector<SimTime> rto_steps;
  unsigned retry_limit = 4;
  bool serial_tx       = false;
  SimTime tx_status_latency{};
  BitsPerSecond app_rate{128e9};
  bool segment_per_write   = false;
  bool write_within_window = false;
  bool tx_bypass           = false;
  SimTime delayed_ack{};
  Bytes cwnd_increment{0};
  Bytes initial_cwnd{0};
  Bytes ssthresh{0};
  Bytes avoidance_increment{0};
  Bytes cwnd_max{0};
  bool cwnd_validation = false;
  Bytes retransmit_window{0};
  LossRecovery loss_recovery = LossRecovery::GoBackN;
  Bytes retransmit_segment{0};
  unsigned retransmit_burst = 4;
  Bytes rx_fifo{0};
  Bytes rx_fifo_min_free{24000};

  /// Payload bytes per segment.
  std::uint64_t mss() const { return packet.count - headers.count; }
  /// A new session's congestion window: initial_cwnd, or initial_window segments (10 when neither is given).
  std::uint64_t first_cwnd() const
  {
    return initial_cwnd.count ? initial_cwnd.count : std::uint64_t{initial_window ? initial_window : 10} * mss();
  }
  /// Payload bytes per retransmitted segment (loss_recovery toe).
  std::uint64_t rt_segment() const { return retransmit_segment.count ? retransmit_segment.count : mss(); }
  /// Largest window the peer may advertise (65535 without window scaling, RFC 7323).
  /// The first retransmission timeout, and the one after `timeouts` consecutive timeouts.
  SimTime rto_after(unsigned timeouts, SimTime doubled) const
  {
    if (rto_steps.empty())
      return timeouts == 0 ? rto_initial : doubled;
    return rto_steps[std::min<std::size_t>(timeouts, rto_steps.size() - 1)];
  }
  std::uint64_t max_window() const { return window_scaling ? rx_buffer.count : std::min<std::uint64_t>(rx_buffer.count, 65535); }

  config::FieldProblem check() const
  {
    if (rto_initial <= SimTime::zero())
      return {"rto_initial", "the first retransmission timeout must be longer than 0 (e.g. \"1ms\")"};
    if (tx_status_latency > SimTime::zero() && !serial_tx)
      return {"tx_status_latency", "a request/status handshake per write is ACCL's tcp_txHandler, which takes one "
                                   "transmit command at a time: set serial_tx to true, or tx_status_latency to 0"};
    for (std::size_t i = 0; i < rto_steps.size(); ++i)
      if (rto_steps[i] <= SimTime::zero())
        return {"rto_steps/" + std::to_string(i), "a retransmission timeout must be longer than 0 (e.g. \"625ms\")"};
    if (initial_cwnd.count > 0 && initial_window > 0)
      return {"initial_window", "set initial_cwnd (bytes) or initial_window (segments), not both: initial_cwnd "
                                "replaces initial_window; set initial_cwnd to 0 to use segments"};
    if (!congestion_control && (initial_cwnd.count || initial_window || ssthresh.count || cwnd_max.count ||
                                avoidance_increment.count || cwnd_increment.count || cwnd_validation))
      return {"congestion_control", "the congestion window's settings (initial_cwnd, initial_window, ssthresh, "
                                    "cwnd_increment, avoidance_increment, cwnd_max, cwnd_validation) act only with "
                                    "congestion control: "
                                    "set congestion_control to true, or them to 0 (cwnd_validation to false)"};
    if (loss_recovery == LossRecovery::GoBackN && (retransmit_segment.count || retransmit_burst != 4))
      return {"loss_recovery", "retransmit_segment and retransmit_burst size the hardware stack's retransmission "
                               "bursts (loss_recovery toe); go-back-n resends everything from the hole in ordinary "
                               "segments: set loss_recovery to toe, or retransmit_segment to 0B and retransmit_burst "
                               "to 4 (their defaults)"};
    if (rx_fifo.count > 0 && out_of_order)
      return {"rx_fifo", "the shared receive FIFO is the hardware stack's, which takes only the next expected "
                         "segment (bytes held beyond a hole would enter it all at once, unchecked): set out_of_order "
                         "to false, or rx_fifo to 0B (each session's rx_buffer alone)"};
    if (rto_max < rto_initial)
      return {"rto_max", "the ceiling of the retransmission timeout (" + format_time(rto_max) +
                             ") is below its first value rto_initial (" + format_time(rto_initial) +
                             "): raise rto_max or lower rto_initial"};
    return {};
  }

  template <class V> void describe(V& v)
  {
    v.field("packet", packet,
            "IP packet size: segment payload + headers (ACCL's XRT builds run 1536 B packets; a kernel stack on a "
            "1500 B MTU uses 1500)",
            config::Limits::between(128, 9216));
    v.field("headers", headers, "IPv4 (20) + TCP (20) header bytes per packet (+12 with timestamps)",
            config::Limits::between(40, 120));
    v.field("serial_tx", serial_tx,
            "true: the engine takes one transmit message at a time, in the order posted, and writes it into its "
            "session packet by packet before the next (ACCL's tcp_txHandler, kernels/cclo/hls/eth_intf): a message "
            "whose session's transmit buffer is full holds up every other session; false: each session writes its "
            "messages independently (a kernel stack's sockets)");
    v.field("tx_status_latency", tx_status_latency,
            "serial_tx: every write of at most one segment's payload is a request to the stack answered by a status "
            "before its data moves, one request outstanding, the next request sent as a status arrives (ACCL's "
            "tcp_txHandler); this is the request-to-status time. A refused request (no room) is asked again once an "
            "ACK frees room. 0: writes need no handshake (a kernel stack)");
    v.field("app_rate", app_rate,
            "tx_status_latency > 0: rate of a write's data into the stack once its status arrived (the "
            "application's data stream: 64 B per cycle at 250 MHz in ACCL's XRT builds)");
    v.field("segment_per_write", segment_per_write,
            "true: every write leaves as one segment of exactly its length, never merged with the next write "
            "(the hardware stack with NODELAY: a TX event per write); false: the stream is cut into full segments");
    v.field("write_within_window", write_within_window,
            "true: the stack accepts a write only when the send window (min of congestion and peer window, less "
            "the bytes unacknowledged) has room for it, so a write goes out at once (the hardware stack's "
            "application interface); false: writes fill the transmit buffer and wait there for the window");
    v.field("tx_bypass", tx_bypass,
            "a segment's first transmission leaves from the application's data stream while a copy is written to "
            "the transmit buffer for retransmissions (the hardware stack with TCP_NODELAY: tx_app_stream_if.cpp "
            "313-318, tx_engine.cpp 1735-1741); false: written to the buffer and read back from it (an FPGA "
            "engine only: a host's NIC reads the kernel's socket buffers)");
    v.field("delayed_ack", delayed_ack,
            "an in-order data segment is acknowledged with the next one (an ACK every second segment) or, alone, "
            "after this delay; a segment out of order or dropped is acknowledged at once (the hardware stack's "
            "ack_delay); 0: every data segment acknowledged at once");
    v.field("cwnd_increment", cwnd_increment,
            "slow start: bytes the congestion window grows per new ACK (the hardware stack: one 4096 B MSS whatever "
            "the ACK covers); 0: the bytes it acknowledges, at most one segment (RFC 5681)");
    v.field("initial_cwnd", initial_cwnd,
            "congestion window of a new session in bytes, in place of initial_window's segments (the hardware "
            "stack: 14,600 B, its 10 x 1460 whatever the MSS); 0: initial_window segments");
    v.field("ssthresh", ssthresh,
            "slow-start threshold of a new session (the hardware stack: 0xFFFF = 65,535 B); with cwnd_increment "
            "the window grows by it only while it stays within ssthresh (cwnd <= ssthresh - increment, the stack's "
            "test); 0: none until a loss sets one");
    v.field("avoidance_increment", avoidance_increment,
            "congestion avoidance: bytes the window grows per new ACK beyond slow start (the hardware stack: 365 B); "
            "0: MSS x MSS / cwnd (RFC 5681)");
    v.field("cwnd_max", cwnd_max,
            "congestion avoidance grows the window only while it is at most this (the hardware stack's "
            "CONGESTION_WINDOW_MAX, its buffer less 2,048 B: 63,488 B without window scaling); 0: no limit but "
            "the peer's window");
    v.field("cwnd_validation", cwnd_validation,
            "true: the window grows on an ACK only while it limits the sender, as Linux does (tcp_is_cwnd_limited, "
            "RFC 7661): in slow start while it is below twice the most bytes in flight in the last window, in "
            "congestion avoidance only if a send found it full; false: at every new ACK (RFC 5681 as written), so "
            "many small messages open it for a large one");
    v.field("loss_recovery", loss_recovery,
            "go-back-n: a fast retransmit or a timeout moves the send point back to the first unacknowledged byte "
            "and sends everything after it again, the window cut each time (retransmit_window); toe: the hardware "
            "stack's (tcp_path.md section 2, tx_engine.cpp metaLoader RT): each fast retransmit (one per hole until "
            "a new ACK) and each timeout resends retransmit_burst segments of retransmit_segment from the first "
            "unacknowledged byte while new data goes on from where it was, the window and ssthresh cut only at the "
            "first timeout since an ACK, and every ACK, duplicate or new, restarts the timer at its first value");
    v.field("retransmit_segment", retransmit_segment,
            "loss_recovery toe: payload of a retransmitted segment (the hardware stack's MSS, 4096 B in ACCL's "
            "builds); 0: the segment size, packet - headers");
    v.field("retransmit_burst", retransmit_burst,
            "loss_recovery toe: segments one retransmission event resends (the hardware stack: 4, its metaLoader's "
            "two-bit segment count)",
            config::Limits::between(1, 1 << 16));
    v.field("retransmit_window", retransmit_window,
            "the congestion window after a retransmission, a timeout's or a fast one's (loss_recovery toe: the "
            "first timeout's since an ACK only; the hardware stack: its initial 14,600 B); 0: RFC 5681 (one "
            "segment after a timeout, ssthresh after a fast retransmit)");
    v.field("rx_fifo", rx_fifo,
            "one receive FIFO shared by every session, between the stack and the application: a data segment is "
            "taken only while more than rx_fifo_min_free of it is free, else dropped and answered by a duplicate ACK "
            "(the hardware stack without its DDR rx buffer); a segment is in it from its acceptance until the "
            "consumer has taken it and its write to memory ends (a stream stalled on its consumer holds it; the "
            "stream FIFOs between the stack and memory counted in it); takes only in-order segments (out_of_order "
            "false); 0: none (each session's rx_buffer alone)");
    v.field("rx_fifo_min_free", rx_fifo_min_free,
            "rx_fifo: free bytes the FIFO must have to take a segment (the hardware stack: more than 375 words of "
            "64 B)");
    v.field("tx_buffer", tx_buffer,
            "per-session transmit buffer in FPGA (or host) memory: every byte is written there and read back for "
            "transmission and retransmission; unacknowledged bytes never exceed it (the hardware stack: 1 MiB with "
            "4-bit window scaling)",
            config::Limits::at_least(4096));
    v.field("rx_buffer", rx_buffer,
            "per-session receive buffer: bytes the consumer has not taken (and, with out_of_order, bytes held "
            "beyond a hole); the advertised window is what is left of it",
            config::Limits::at_least(4096));
    v.field("window_scaling", window_scaling, "RFC 7323 window scaling; without it windows stop at 65535 bytes");
    v.field("out_of_order", out_of_order,
            "keep segments that arrive beyond a hole (the stack's optional out-of-order processing); otherwise "
            "they are dropped and the sender goes back to the hole");
    v.field("accept_overlap", accept_overlap,
            "take the new bytes of a segment that starts below the next expected byte (a retransmission after a "
            "lost or late ACK; RFC 793 trims it, as Linux does); false: the hardware stack's rule, such a segment is "
            "dropped whole and answered by a duplicate ACK (rx_engine.cpp takes a segment only if seqNumb == "
            "rxSar.recvd; segments beyond a hole follow out_of_order)");
    v.field("max_sessions", max_sessions,
            "connections the engine holds (the hardware stack: 1,000; the CCLO's communicator of N ranks opens "
            "2 (N - 1), MPI's N - 1)",
            config::Limits::between(1, 1 << 20));
    v.field("initial_window", initial_window,
            "congestion window of a new session, in segments (RFC 6928; no restart after idle is modeled); 0: 10, "
            "or initial_cwnd's bytes",
            config::Limits::between(0, 1 << 16));
    v.field("congestion_control", congestion_control,
            "Reno slow start / congestion avoidance; off: only the receive window and tx_buffer limit the sender");
    v.field("dupack_threshold", dupack_threshold,
            "duplicate ACKs that trigger a fast retransmit (go back to the first unacknowledged byte)",
            config::Limits::between(1, 64));
    v.field("rto_initial", rto_initial, "first retransmission timeout; it doubles after each timeout");
    v.field("rto_max", rto_max, "ceiling of the doubling retransmission timeout");
    v.field("rto_steps", rto_steps,
            "the retransmission timeouts in order, the last one repeating (a stack with a table of them); empty: "
            "rto_initial, doubling up to rto_max");
    v.field("retry_limit", retry_limit,
            "consecutive timeouts tolerated; one more resets the session and fails its messages (the hardware "
            "stack's TCP_MAX_RETX_ATTEMPTS = 4)",
            config::Limits::between(0, 1000));
  }
};

} // namespace nafsim::tcp

namespace nafsim::config {
template <> struct EnumNames<tcp::LossRecovery> {
  static constexpr std::array list{std::pair{tcp::LossRecovery::GoBackN, "go-back-n"},
                                   std::pair{tcp::LossRecovery::Toe, "toe"}};
};
} // namespace nafsim::config
