#include "nodes/cclo/DataMover.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

DataMover::DataMover(const DmpConfig& cfg, unsigned seek_cycles, Hertz clock, BitsPerSecond network,
                     Scheduler& sched, MemorySystem& mem, RxBufferManager& rbm, TxSystem& tx)
    : cfg_(cfg)
    , seek_cycles_(seek_cycles)
    , cycle_(cycles_time(Cycles{1}, clock))
    , datapath_(BitsPerSecond{cfg.width_bytes * 8.0 * clock.hz})
    , network_(network)
    , sched_(sched)
    , mem_(mem)
    , rbm_(rbm)
    , tx_(tx)
{
}

void DataMover::submit(Move m)
{
  queue_.push_back(std::move(m));
  c_.max_queue = std::max(c_.max_queue, queue_.size());
  try_start();
}

void DataMover::rx_arrived()
{
  if (!waiting_rx_)
    return;
  if (!try_scheduled_) {
    try_scheduled_ = true;
    sched_.at(sched_.now(), this, kTry);
  }
}

std::string DataMover::waiting() const
{
  if (!waiting_rx_ || queue_.empty())
    return {};
  auto const& m = queue_.front();
  return fmt::format("the data mover waits for message {} from host {} in the Rx buffers ({})", m.op1.seq,
                     m.op1.src_host, rbm_.describe());
}

void DataMover::finish_at(SimTime t, std::function<void()> fn)
{
  std::uint64_t slot;
  if (free_done_.empty()) {
    slot = done_.size();
    done_.push_back(std::move(fn));
  } else {
    slot = free_done_.back();
    free_done_.pop_back();
    done_[slot] = std::move(fn);
  }
  sched_.at(std::max(t, sched_.now()), this, kDone, slot);
}

void DataMover::on_event(std::uint32_t kind, std::uint64_t arg)
{
  if (kind == kTry) {
    try_scheduled_ = false;
    try_start();
    return;
  }
  auto fn   = std::move(done_[arg]);
  done_[arg] = nullptr;
  free_done_.push_back(arg);
  if (fn)
    fn();
}

void DataMover::try_start()
{
  while (!queue_.empty()) {
    Move& m   = queue_.front();
    SimTime t = std::max(sched_.now(), issue_free_);
    if (t > sched_.now()) { // in-order issue: come back when the issue slot is free
      if (!try_scheduled_) {
        try_scheduled_ = true;
        sched_.at(t, this, kTry);
      }
      return;
    }
    std::optional<std::size_t> rx;
    if (m.op1.kind == OperandKind::RxBuffer) {
      rx = rbm_.seek(m.op1.src_host, m.op1.seq);
      if (!rx) {
        if (!waiting_rx_) {
          waiting_rx_    = true;
          waiting_since_ = sched_.now();
        }
        return;
      }
      if (waiting_rx_) {
        c_.rx_waits += sched_.now() - waiting_since_;
        waiting_rx_ = false;
      }
      t += cycle_ * seek_cycles_; // the data mover finds the message in the Rx-buffer list
    }
    Move mv = std::move(m);
    queue_.pop_front();
    start(mv, t, rx);
  }
}

void DataMover::start(Move& m, SimTime t, std::optional<std::size_t> rx)
{
  const Bytes b{m.bytes};
  SimTime issue = t + cycle_ * cfg_.issue_cycles;
  issue_free_   = issue;
  // The stream runs at the slowest engine on its way.
  BitsPerSecond rate = datapath_;
  auto limit         = [&](BitsPerSecond r) {
    if (r.bps < rate.bps)
      rate = r;
  };
  auto read_rate = [&](std::uint64_t addr, Engine e) {
    BitsPerSecond r = mem_.engine(e).bandwidth();
    if (is_host(addr) && mem_.pcie_read().bandwidth().bps < r.bps)
      r = mem_.pcie_read().bandwidth();
    return r;
  };
  std::uint64_t op1_addr = rx ? rbm_.address(*rx) : m.op1.addr;
  if (m.op0.kind == OperandKind::Memory)
    limit(read_rate(m.op0.addr, Engine::Op0Read));
  if (m.op1.kind == OperandKind::Memory || m.op1.kind == OperandKind::RxBuffer)
    limit(read_rate(op1_addr, Engine::Op1Read));
  if (m.res == ResultKind::Memory) {
    BitsPerSecond w = mem_.engine(Engine::ResWrite).bandwidth();
    if (is_host(m.res_addr) && mem_.pcie_write().bandwidth().bps < w.bps)
      w = mem_.pcie_write().bandwidth();
    limit(w);
  }
  if (m.res == ResultKind::Eager || m.res == ResultKind::Rendezvous)
    limit(network_);

  SimTime first = issue;
  if (m.op0.kind == OperandKind::Memory)
    first = std::max(first, mem_.read(Engine::Op0Read, issue, m.op0.addr, b, rate).first);
  if (m.op1.kind == OperandKind::Memory || m.op1.kind == OperandKind::RxBuffer)
    first = std::max(first, mem_.read(Engine::Op1Read, issue, op1_addr, b, rate).first);
  first += cycle_ * cfg_.pipeline_cycles;
  SimTime dur  = transmit_time(b, rate);
  SimTime last = first + dur;
  ++c_.moves;
  c_.bytes += m.bytes;
  if (last > busy_until_) {
    c_.busy += last - std::max(first, busy_until_);
    busy_until_ = last;
  }

  auto done = std::move(m.on_done);
  auto release = [this, rx] {
    if (rx)
      rbm_.release(*rx);
  };
  switch (m.res) {
    case ResultKind::None:
    case ResultKind::Stream:
      finish_at(last, [release, done] {
        release();
        if (done)
          done();
      });
      break;
    case ResultKind::Memory: {
      SimTime w = mem_.write(Engine::ResWrite, first, m.res_addr, b, rate).last;
      finish_at(w, [release, done] {
        release();
        if (done)
          done();
      });
      break;
    }
    case ResultKind::Eager: {
      SimTime handed = tx_.send_eager(m.peer, m.seq, m.bytes, Stream{first, last, rate});
      finish_at(handed, [release, done] {
        release();
        if (done)
          done();
      });
      break;
    }
    case ResultKind::Rendezvous:
      // The Rx buffer (if any) is free once read; the move completes when the notice is sent.
      finish_at(last, release);
      tx_.write_rendezvous(m.peer, m.res_addr, m.bytes, Stream{first, last, rate}, std::move(done));
      break;
  }
}

} // namespace nafsim::nodes
