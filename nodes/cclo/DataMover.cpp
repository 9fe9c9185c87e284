#include "nodes/cclo/DataMover.hpp"

#include <array>
#include <fmt/format.h>

namespace nafsim::nodes {

DataMover::DataMover(const DmpConfig& cfg, unsigned seek_cycles, Hertz clock, Scheduler& sched, MemorySystem& mem,
                     RxBufferManager& rbm, TxSystem& tx, MemoryImage* image)
    : cfg_(cfg)
    , seek_cycles_(seek_cycles)
    , cycle_(cycles_time(Cycles{1}, clock))
    , datapath_(BitsPerSecond{cfg.width_bytes * 8.0 * clock.hz})
    , sched_(sched)
    , mem_(mem)
    , rbm_(rbm)
    , tx_(tx)
    , image_(image)
    , order_(sched.shared<TagOrderWatch>())
{
}

void DataMover::submit(const Move& m, std::function<void()> on_done)
{
  queue_.push_back(Queued{m, std::move(on_done)});
  c_.max_queue = std::max(c_.max_queue, queue_.size());
  try_start();
}

void DataMover::rx_arrived()
{
  if (!waiting_rx_)
    return;
  if (!try_scheduled_)
    try_start();
}

std::string DataMover::waiting() const
{
  if (!waiting_rx_ || queue_.empty())
    return {};
  auto const& m = queue_.front().m;
  return fmt::format("the data mover waits for message {} from host {} in the Rx buffers{} ({})",
                     in_seq_.peek(m.op1.src_host, m.tag), m.op1.src_host,
                     head_pieces_ ? fmt::format(", holding {} for the move's earlier pieces", head_pieces_) : "",
                     rbm_.describe());
}

std::uint32_t DataMover::engine_cause(const Pace& p, bool to_network)
{
  // A move's label names its slowest engine and rate; a node's moves use a handful of them (no formatting per move).
  for (auto const& c : engine_causes_)
    if (c.engine == p.engine && c.bps == p.bw.bps && c.to_network == to_network)
      return c.what;
  const std::uint32_t what = cause_what(
      "data mover", fmt::format("{} at {:.1f} Gb/s{}", p.engine, p.bw.bps / 1e9, to_network ? " (to the network)" : ""));
  engine_causes_.push_back({p.engine, p.bw.bps, to_network, what});
  return what;
}

std::uint32_t DataMover::first_byte_cause()
{
  static const std::uint32_t id = cause_what("data mover", "first byte: issue cycles, memory read latency, datapath pipeline");
  return id;
}

void DataMover::finish_at(SimTime t, std::function<void()> fn, const Pace* engine, SimTime first, RxHold rx,
                          std::uint64_t addr, std::vector<std::byte> out)
{
  const std::uint32_t slot = done_.put(Done{std::move(fn), std::move(rx), addr, std::move(out)});
  if (sched_.causes()) {
    if (done_cause_.size() <= slot)
      done_cause_.resize(slot + 1);
    static const std::uint32_t status = cause_what("data mover", "status");
    done_cause_[slot] = CausalGraph::with_lead(CauseLabel::at_host(engine ? engine_cause(*engine, false) : status, host_),
                                               engine ? lead_ : 0, first);
  }
  sched_.at(std::max(t, sched_.now()), this, kDone, slot);
}

CauseLabel DataMover::cause(std::uint32_t kind, std::uint64_t arg) const
{
  if (kind == kTry) {
    static const std::uint32_t issue = cause_what("data mover", "issue slot, operands being written");
    return CauseLabel::at_host(issue, host_);
  }
  return arg < done_cause_.size() ? done_cause_[arg] : CauseLabel{};
}

void DataMover::on_event(std::uint32_t kind, std::uint64_t arg)
{
  if (kind == kTry) {
    try_scheduled_ = false;
    try_start();
    return;
  }
  Done d = done_.take(static_cast<std::uint32_t>(arg));
  if (image_ && !d.out.empty())
    image_->write(d.addr, d.out);
  d.rx.each([&](std::size_t i) { rbm_.release(i); });
  if (d.fn)
    d.fn();
}

void DataMover::try_start()
{
  while (!queue_.empty()) {
    Move& m   = queue_.front().m;
    SimTime t = std::max(sched_.now(), issue_free_);
    t = std::max(t, operands_ready(m, t)); // and when what it reads has been written
    if (t > sched_.now()) { // in-order issue: come back when the issue slot is free
      if (!try_scheduled_) {
        try_scheduled_ = true;
        sched_.at(t, this, kTry);
      }
      return;
    }
    if (m.op1.kind == OperandKind::RxBuffer) {
      if (!seek_pieces(m, t))
        return;
      t = head_seeks_done_;
    }
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    RxHold rx = std::move(head_rx_);
    head_rx_  = {};
    head_pieces_ = 0;
    start(q.m, std::move(q.on_done), t, std::move(rx));
  }
}

bool DataMover::seek_pieces(Move& m, SimTime t)
{
  // instruction_decode's seek loop: the Rx buffers holding the move's next sequence numbers from its source, one
  // after the other (each seek_cycles), until they hold the bytes it reads; each buffer is taken as it is found.
  if (!head_seeking_) {
    head_seeking_    = true;
    head_left_       = m.slot_bytes(m.op1.compressed);
    head_seeks_done_ = t;
  }
  do {
    const std::uint64_t seq = in_seq_.peek(m.op1.src_host, m.tag);
    auto rx                 = head_pieces_ == kMaxRxPieces ? std::nullopt : rbm_.seek(m.op1.src_host, seq);
    if (!rx) {
      if (!waiting_rx_) {
        waiting_rx_    = true;
        waiting_since_ = sched_.now();
      }
      // Moves run in order and only they free Rx buffers: if every buffer holds some other complete message or
      // an earlier piece of this move, the one it needs can never land (its sender is back-pressured forever).
      // The hardware would hang; the model reports it.
      const bool full = head_pieces_ == kMaxRxPieces;
      if ((full || rbm_.all_waiting(head_pieces_)) && on_deadlock_) {
        auto fn      = std::move(on_deadlock_);
        on_deadlock_ = nullptr;
        fn(full ? fmt::format("the data mover is stuck: a move reading {} B from host {} needs more than {} Rx buffers "
                              "of {} B, and the data mover queues each buffer's index for release in a {}-deep FIFO "
                              "that only the move's end drains (dma_mover.cpp: \"the maximum message size is 64 "
                              "segments\")",
                              m.slot_bytes(m.op1.compressed), m.op1.src_host, kMaxRxPieces, rbm_.size(), kMaxRxPieces)
                : fmt::format("Rx-buffer deadlock: the data mover must next read message {} from host {}, but all {} "
                              "Rx buffers hold {}complete messages ({}), and buffers are freed only by moves, which "
                              "run in order{}; the sender is back-pressured forever",
                              seq, m.op1.src_host, rbm_.count(),
                              head_pieces_ ? "the move's earlier pieces or other " : "other ", rbm_.describe(),
                              head_pieces_ ? " (a move reads every Rx buffer of its block before its result starts)"
                                           : ""),
           full);
      }
      return false;
    }
    in_seq_.take(m.op1.src_host, m.tag);
    order_.taken(m.op1.src_host, host_, m.tag);
    if (head_pieces_++ == 0) {
      head_rx_.first = rx;
      m.op1.seq      = seq;
    } else {
      head_rx_.more.push_back(*rx);
    }
    head_left_ -= std::min(head_left_, rbm_.bytes(*rx));
    head_seeks_done_ = std::max(head_seeks_done_, t) + cycle_ * seek_cycles_;
  } while (head_left_ > 0);
  head_seeking_ = false;
  if (waiting_rx_) {
    c_.rx_waits += sched_.now() - waiting_since_;
    waiting_rx_ = false;
  }
  return true;
}

DataMover::Pace DataMover::pace(const Move& m, std::uint64_t op1_addr) const
{
  const std::uint64_t b0 = m.slot_bytes(m.op0.compressed);
  const std::uint64_t b1 = m.slot_bytes(m.op1.compressed);
  const std::uint64_t br = m.result_bytes();
  // The slowest leg, each weighed as it comes (in this order: a tie keeps the earlier one).
  Pace bottleneck{0, datapath_, "datapath"};
  auto leg = [&](std::uint64_t bytes, std::pair<BitsPerSecond, const char*> bw) {
    if (static_cast<double>(bytes) / bw.first.bps >
            static_cast<double>(bottleneck.bytes) / bottleneck.bw.bps ||
        (bottleneck.bytes == 0 && bytes == 0 && bw.first.bps < bottleneck.bw.bps))
      bottleneck = {bytes, bw.first, bw.second};
  };
  auto datapath = std::pair{datapath_, "datapath"};
  auto read_bw  = [&](std::uint64_t addr, Engine e) {
    return std::pair{mem_.read_rate(e, addr), is_host(addr)          ? "PCIe read"
                                              : e == Engine::Op0Read ? "memory read (operand 0)"
                                                                     : "memory read (operand 1)"};
  };
  const bool has0 = m.op0.kind != OperandKind::None, has1 = m.op1.kind != OperandKind::None;
  if (has0)
    leg(b0, datapath);
  if (has1)
    leg(b1, datapath);
  if (m.res != ResultKind::None)
    leg(br, datapath);
  if (m.op0.kind == OperandKind::Memory)
    leg(b0, read_bw(m.op0.addr, Engine::Op0Read));
  if (m.op1.kind == OperandKind::Memory || m.op1.kind == OperandKind::RxBuffer)
    leg(b1, read_bw(op1_addr, Engine::Op1Read));
  if (m.res == ResultKind::Memory) {
    leg(br, std::pair{mem_.write_rate(Engine::ResWrite, m.res_addr), is_host(m.res_addr) ? "PCIe write" : "memory write"});
  }
  return bottleneck;
}

void DataMover::start(const Move& m, std::function<void()> on_done, SimTime t, RxHold rx)
{
  SimTime issue = t + cycle_ * cfg_.issue_cycles;
  issue_free_   = issue;
  const std::uint64_t b0       = m.slot_bytes(m.op0.compressed);
  const std::uint64_t b1       = m.slot_bytes(m.op1.compressed);
  const std::uint64_t br       = m.result_bytes();
  const std::uint64_t op1_addr = rx.first ? rbm_.address(*rx.first) : m.op1.addr;
  const Pace p                 = pace(m, op1_addr);

  SimTime first = issue;
  bool queued   = false; // (critical paths) whether the read that sets the first byte streamed behind another's
  auto read     = [&](int port, Stream s) {
    const bool behind = s.first <= read_end_[port]; // as RunStart: right behind the port's last byte
    read_end_[port]   = std::max(read_end_[port], s.last);
    return std::pair{s.first, behind};
  };
  auto take = [&](std::pair<SimTime, bool> r) {
    if (r.first > first || (r.first == first && r.second)) {
      first  = r.first;
      queued = r.second;
    }
  };
  if (m.op0.kind == OperandKind::Memory)
    take(read(0, mem_.read(Engine::Op0Read, issue, m.op0.addr, Bytes{b0}, p.rate(b0))));
  if (m.op1.kind == OperandKind::Memory || (m.op1.kind == OperandKind::RxBuffer && rx.more.empty())) {
    take(read(1, mem_.read(Engine::Op1Read, issue, op1_addr, Bytes{b1}, p.rate(b1))));
  } else if (m.op1.kind == OperandKind::RxBuffer) { // one read per Rx buffer, back to back at the stream's rate
    std::pair<SimTime, bool> first1{SimTime::max(), false};
    std::uint64_t left = b1;
    rx.each([&](std::size_t i) {
      const std::uint64_t b = std::min(left, rbm_.bytes(i));
      left -= b;
      const auto r = read(1, mem_.read(Engine::Op1Read, issue, rbm_.address(i), Bytes{b}, p.rate(b1)));
      if (r.first < first1.first)
        first1 = r;
    });
    take(first1);
  }
  lead_ = queued ? 0 : first_byte_cause();
  first += cycle_ * cfg_.pipeline_cycles;
  const SimTime dur  = transmit_time(Bytes{p.bytes}, p.bw);
  const SimTime last = first + dur;
  ++c_.moves;
  c_.bytes += br;
  if (last > busy_until_) {
    c_.busy += last - std::max(first, busy_until_);
    busy_until_ = last;
  }

  if (trace_)
    trace_move(m, first, last);
  // Real data: the operands are read as the move starts; results land when the move completes.
  std::vector<std::byte> out;
  if (image_)
    out = compute(m, rx);
  complete(m, std::move(on_done), std::move(rx), first, last, p, std::move(out));
}

void DataMover::complete(const Move& m, std::function<void()> done, RxHold rx, SimTime first, SimTime last,
                         const Pace& p, std::vector<std::byte> out)
{
  const std::uint64_t br = m.result_bytes();
  // When the move is over: its result in the memory image (real data), its Rx buffer (if any) freed, then the
  // firmware told.
  switch (m.res) {
    case ResultKind::None: finish_at(last, std::move(done), &p, first, std::move(rx)); break;
    case ResultKind::Stream:
    case ResultKind::Memory: {
      SimTime w = m.res == ResultKind::Memory ? mem_.write(Engine::ResWrite, first, m.res_addr, Bytes{br}, p.rate(br)).last
                                              : last;
      if (m.res == ResultKind::Memory && br > 0)
        writes_.push_back({m.res_addr, br, w});
      finish_at(w, std::move(done), &p, first, std::move(rx), m.res_addr, std::move(out));
      break;
    }
    case ResultKind::Eager:
    case ResultKind::Rendezvous: {
      // The Rx buffers (if any) are free once read; the move completes with the packetizer's status, when the
      // transport has taken the last byte.
      if (rx.first) // (without one the event would do nothing: none is made)
        finish_at(last, nullptr, &p, first, std::move(rx));
      // The firmware is told in the transport's own event (a no-op if no one waits).
      std::function<void()> accepted = done ? std::move(done) : std::function<void()>([] {});
      if (m.res == ResultKind::Eager) {
        send_pieces(m, br, first, last, p, std::move(out), std::move(accepted));
      } else {
        const Stream data{first, last, p.rate(br), sched_.causes() ? engine_cause(p, true) : 0, lead_};
        tx_.write_rendezvous(m.peer, m.res_addr, br, data, std::move(out), std::move(accepted));
      }
      break;
    }
  }
}

void DataMover::send_pieces(const Move& m, std::uint64_t bytes, SimTime first, SimTime last, const Pace& p,
                            std::vector<std::byte> out, std::function<void()> accepted)
{
  // eth_cmd_execute: one message per max_seg_len bytes of the result, the communicator's segment size for the peer,
  // which ACCL's applications set to the Rx buffers' size (rank_t's max_segment_size = rxbuf_size in its tests;
  // ASSUMPTION: so here, every node's Rx buffers being this node's size); each
  // takes the next sequence number (a stream_put's keep its place in the peer's stream data and take none). The
  // packetizer's status for the last one completes the move; the others' are not waited for.
  const BitsPerSecond rate = p.rate(bytes);
  const std::uint32_t cause = sched_.causes() ? engine_cause(p, true) : 0;
  const std::uint64_t seg   = std::max<std::uint64_t>(1, rbm_.size());
  std::uint64_t off         = 0;
  do {
    const std::uint64_t b = std::min(seg, bytes - off);
    const bool end        = off + b == bytes;
    const Stream data{off == 0 ? first : first + transmit_time(Bytes{off}, rate),
                      end ? last : first + transmit_time(Bytes{off + b}, rate), rate, cause, lead_};
    std::vector<std::byte> piece;
    if (!out.empty())
      piece = end && off == 0 ? std::move(out)
                               : std::vector<std::byte>(out.begin() + static_cast<std::ptrdiff_t>(off),
                                                        out.begin() + static_cast<std::ptrdiff_t>(off + b));
    const std::uint64_t seq = m.remote_stream >= 0 ? m.seq + off : out_seq_.take(m.peer, m.tag);
    if (m.remote_stream < 0)
      order_.sent(host_, m.peer, m.tag);
    tx_.send_eager(m.peer, seq, b, data, std::move(piece), end ? std::move(accepted) : std::function<void()>([] {}),
                   m.remote_stream);
    off += b;
  } while (off < bytes);
}

void DataMover::trace_move(const Move& m, SimTime first, SimTime last)
{
  // Moves overlap (they pipeline): each goes on the first track free by its first byte.
  std::size_t lane = 0;
  while (lane < lane_end_.size() && lane_end_[lane] > first)
    ++lane;
  const bool compress = m.res_compressed || m.op0.compressed || m.op1.compressed;
  if (m.reduce || compress) {
    if (!plugin_named_)
      trace_->name_thread(trace_pid_, kPluginTrack, "plugins (reduction, compression)");
    plugin_named_ = true;
    trace_->span(trace_pid_, kPluginTrack,
                 fmt::format("{}{}{}", m.reduce ? (m.func == coll::ReduceFunc::Max ? "reduce max" : "reduce sum") : "",
                             m.reduce && compress ? " + " : "",
                             compress ? "fp32 <-> fp16" : ""),
                 first, last, fmt::format(R"({{"elements":{}}})", m.count));
  }
  if (lane == lane_end_.size()) {
    lane_end_.push_back(SimTime::zero());
    trace_->name_thread(trace_pid_, kTrackBase + static_cast<std::uint32_t>(lane),
                        fmt::format("data mover {}", lane));
  }
  lane_end_[lane] = last;
  static constexpr const char* operands[] = {"none", "memory", "stream", "rx buffer"};
  static constexpr const char* results[]  = {"none", "memory", "stream", "eager", "rendezvous"};
  const char* what = m.res == ResultKind::Eager && m.remote_stream >= 0 ? "stream put"
                     : m.res == ResultKind::Eager        ? "eager send"
                     : m.res == ResultKind::Rendezvous ? "rendezvous write"
                     : m.reduce                        ? "reduce"
                     : m.op1.kind == OperandKind::RxBuffer ? "receive"
                                                       : "copy";
  trace_->span(trace_pid_, kTrackBase + static_cast<std::uint32_t>(lane), what, first, last,
               fmt::format(R"({{"bytes":{},"op0":"{}","op1":"{}","result":"{}","peer":{}}})", m.result_bytes(),
                           operands[static_cast<int>(m.op0.kind)], operands[static_cast<int>(m.op1.kind)],
                           results[static_cast<int>(m.res)], m.peer));
}

std::vector<std::byte> DataMover::compute(const Move& m, const RxHold& rx) const
{
  const std::uint64_t full = m.slot_bytes(false);
  // An operand slot as elements of the move's type (decompressed if it arrives as fp16); on receive, the bytes of
  // its Rx buffers in order.
  auto operand = [&](const Operand& o, std::uint64_t addr) {
    std::vector<std::byte> raw;
    if (o.kind == OperandKind::RxBuffer) {
      std::uint64_t left = m.slot_bytes(o.compressed);
      rx.each([&](std::size_t i) {
        auto part = image_->read(rbm_.address(i), std::min(left, rbm_.bytes(i)));
        left -= part.size();
        raw.insert(raw.end(), part.begin(), part.end());
      });
    } else {
      raw = image_->read(addr, m.slot_bytes(o.compressed));
    }
    if (!o.compressed)
      return raw;
    std::vector<std::byte> v(full);
    decompress_fp16(raw, v);
    return v;
  };
  std::vector<std::byte> v;
  const bool has0 = m.op0.kind != OperandKind::None, has1 = m.op1.kind != OperandKind::None;
  if (m.reduce && has0 && has1) {
    auto a = operand(m.op0, m.op0.addr);
    auto b = operand(m.op1, m.op1.addr);
    v.resize(full);
    reduce(m.func, m.dtype, a, b, v);
  } else if (has0) {
    v = operand(m.op0, m.op0.addr);
  } else if (has1) {
    v = operand(m.op1, m.op1.addr);
  } else {
    v.resize(full);
  }
  if (!m.res_compressed)
    return v;
  std::vector<std::byte> c(m.result_bytes());
  compress_fp32(v, c);
  return c;
}

} // namespace nafsim::nodes

namespace nafsim::nodes {

SimTime DataMover::operands_ready(const Move& m, SimTime t)
{
  // A move reading memory that an earlier move is still writing starts once that write has landed (the
  // firmware issues dependent moves back to back, e.g. the rendezvous flat reduce's running sum).
  std::erase_if(writes_, [&](const PendingWrite& w) { return w.done <= sched_.now(); });
  auto overlaps = [&](const Operand& o, std::uint64_t bytes) {
    SimTime r = t;
    if (o.kind != OperandKind::Memory || bytes == 0)
      return r;
    for (auto const& w : writes_)
      if (o.addr < w.addr + w.bytes && w.addr < o.addr + bytes)
        r = std::max(r, w.done);
    return r;
  };
  return std::max(overlaps(m.op0, m.slot_bytes(m.op0.compressed)), overlaps(m.op1, m.slot_bytes(m.op1.compressed)));
}

} // namespace nafsim::nodes
