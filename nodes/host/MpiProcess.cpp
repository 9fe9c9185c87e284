#include "nodes/host/MpiProcess.hpp"

#include "protocols/collectives/MpiOrder.hpp"
#include "protocols/mpi/MpiPlan.hpp"

#include <algorithm>
#include <optional>
#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::nodes {

using coll::Buf;
using coll::OpKind;

namespace {
/// Host-memory address of a rank buffer (the NIC reaches all of them over PCIe; where exactly
/// does not change the timing).
std::uint64_t buffer_addr(Buf b, std::uint64_t byte_offset)
{
  return kHostMemory | (static_cast<std::uint64_t>(static_cast<int>(b) + 1) << 40) | byte_offset;
}
constexpr std::uint64_t kBounceBase = kHostMemory | (8ULL << 40);
constexpr std::uint64_t kSendBounce = kHostMemory | (9ULL << 40);
constexpr std::uint64_t kTempBase   = kHostMemory | (10ULL << 40);
} // namespace

struct MpiProcess::Call {
  coll::Schedule s;
  std::vector<net::HostId> comm;
  DataType dtype = DataType::Float32;
  std::uint64_t eb = 4;
  RankBuffers* bufs = nullptr;
  std::optional<coll::MpiOrder> order; ///< when each op starts, its messages' numbers
  std::uint64_t context = 0;           ///< the matching context, in the numbers' high bits (MpiProcess::run)
  std::size_t remaining = 0;
  bool eager            = false; ///< RunOptions::eager
  ActorId actor         = 0;
  bool waiting          = false;

  std::span<std::byte> bytes(const coll::Slice& sl)
  {
    return std::span<std::byte>(bufs->buf[static_cast<int>(sl.buf)]).subspan(sl.offset * eb, sl.count * eb);
  }
  std::uint64_t addr(const coll::Slice& sl) const { return buffer_addr(sl.buf, sl.offset * eb); }
  std::uint64_t send_seq(std::uint32_t i) const { return context | order->send_seq(i); }
  std::uint64_t recv_seq(std::uint32_t i) const { return context | order->recv_seq(i); }
};

MpiProcess::MpiProcess(net::HostId id, const HostNodeConfig& cfg, Scheduler& sched, Poe& nic, QpOf qp_of,
                       DataPlane* data)
    : id_(id), cfg_(cfg), sched_(sched), nic_(nic), qp_of_(std::move(qp_of)), data_(data), rq_(cfg_.mpi.eager_buffers)
{
  nic_.set_recv_provider([this](const roce::AppHeader&) {
    roce::RecvOffer o;
    const std::optional<std::uint32_t> buf = rq_.take(sched_.now());
    if (!buf) {
      ++c_.bounce_refusals;
      o.status = roce::RecvOffer::Status::NotReady;
      return o;
    }
    const std::uint32_t idx = *buf;
    c_.bounce_max_used      = rq_.max_in_use();
    c_.bounce_buffers_max   = rq_.max_buffers();
    o.status           = roce::RecvOffer::Status::Ready;
    o.recv.wr_id       = idx;
    o.recv.local_addr  = kBounceBase + idx * cfg_.mpi.eager_buffer.count;
    o.recv.length      = cfg_.mpi.eager_buffer.count;
    return o;
  });
}

MpiProcess::~MpiProcess() = default;

void MpiProcess::cpu(SimTime cost, std::function<void()> then)
{
  if (held_ > 0) { // the rank's thread is computing: no progress until it returns into the library
    held_work_.emplace_back(cost, std::move(then));
    ++c_.progress_held;
    return;
  }
  // Critical paths: work queued behind the CPU's earlier work walks back through it, to the step that set the CPU
  // busy (the CPU busy all along, as the fabric's ports do: Fabric::kick). Caused by the step that asked for it, a job
  // that waited had its path run back through what asked (a packet's arrival: the wire) and a CPU-bound MPI run's
  // path blamed the network (a Chakra MPI run: "wire 59 %", where ten times the link rate moved nothing).
  if (cpu_free_ <= sched_.now())
    busy_cause_ = sched_.cause_mark();
  SimTime start = std::max(sched_.now(), cpu_free_);
  cpu_free_     = start + cost;
  c_.cpu_busy   = c_.cpu_busy + cost;
  static const std::uint32_t library = cause_what("host CPU", "MPI library: overheads, copies, reductions");
  sched_.call_at_caused_by(busy_cause_, cpu_free_, std::move(then), CauseLabel::at_host(library, id_));
}

void MpiProcess::release_progress()
{
  if (held_ == 0 || --held_ > 0)
    return;
  auto work = std::move(held_work_);
  held_work_.clear();
  for (auto& [cost, then] : work)
    cpu(cost, std::move(then));
}

SimTime MpiProcess::copy_cost(std::uint64_t bytes) const
{
  return transmit_time(Bytes{bytes}, cfg_.cpu.memcpy_rate);
}

SimTime MpiProcess::reduce_cost(std::uint64_t bytes) const
{
  return transmit_time(Bytes{bytes}, cfg_.cpu.reduce_rate);
}

void MpiProcess::post_send(net::HostId peer, std::uint64_t length, const roce::AppHeader& h, std::uint64_t addr)
{
  roce::WorkRequest wr;
  wr.wr_id      = (static_cast<std::uint64_t>(id_) << 40) | ++wr_counter_;
  wr.verb       = roce::Verb::Send;
  wr.local_addr = addr;
  wr.length     = length;
  // A finish names the data's message and a fragment carries part of it: each is a message of its own.
  wr.msg        = (h[0] & 0xff) == kFin || (h[0] & 0xff) == kFragment ? next_msg() : h[3];
  wr.header     = h;
  PayloadSource inline_data;
  if (fits_inline(length)) // the CPU wrote the data into the work request
    inline_data = [this](std::uint64_t, std::uint32_t) { return sched_.now(); };
  if (track_delivery_)
    delivery_.posted(peer, wr.wr_id);
  nic_.post_send(qp_of_(peer), wr, std::move(inline_data));
}

void MpiProcess::send_fragments(net::HostId peer, std::uint64_t seq, std::uint64_t bytes, std::uint64_t msg,
                                std::function<void()> done)
{
  // UCX's multi-fragment eager bcopy (ucp_request.c: eager first / middle fragments of one bounce buffer each): the
  // CPU copies one fragment into a send buffer and posts it, then the next, while the NIC sends the ones posted. The
  // send completes once the last fragment is posted (bcopy completes locally).
  const std::uint64_t hdr = cfg_.mpi.header.count, frag = cfg_.mpi.fragment.count;
  c_.bytes_copied += bytes;
  auto fin = std::make_shared<std::function<void()>>(std::move(done));
  for (std::uint64_t off = 0; off < bytes; off += frag) {
    const std::uint64_t len = std::min(frag, bytes - off);
    const bool last         = off + len == bytes;
    cpu((off == 0 ? cfg_.cpu.send_overhead : SimTime{}) + copy_cost(len),
        [this, peer, seq, bytes, off, len, msg, hdr, last, fin] {
          ++c_.fragments_sent;
          post_send(peer, hdr + len, {kFragment | (seq << 8), bytes, off, msg}, kSendBounce);
          if (last)
            (*fin)();
        });
  }
}

void MpiProcess::on_fragment(const Key& k, const roce::InboundMessage& m)
{
  const auto bounce         = static_cast<std::uint32_t>(m.recv_wr_id);
  const std::uint64_t bytes = m.bytes - cfg_.mpi.header.count;
  auto [it, fresh]          = fragments_.try_emplace(k);
  Fragments& f              = it->second;
  if (fresh) {
    f.total = m.header[1];
    f.msg   = m.header[3];
    if (auto p = posted_.find(k); p != posted_.end()) { // matched by its first fragment
      check_size(k.first, k.second, f.total, p->second.bytes);
      f.recv = std::move(p->second);
      posted_.erase(p);
      ++c_.eager_received;
      copy_fragment(k, bounce, bytes, cfg_.cpu.recv_overhead);
      return;
    }
    ++c_.unexpected;
  }
  if (!f.recv) {
    hold_bounce(bounce);
    f.held.emplace_back(bounce, bytes);
    return;
  }
  copy_fragment(k, bounce, bytes, cfg_.cpu.progress_overhead);
}

void MpiProcess::copy_fragment(const Key& k, std::uint32_t bounce, std::uint64_t bytes, SimTime cost)
{
  c_.bytes_copied += bytes;
  cpu(cost + copy_cost(bytes), [this, k, bounce, bytes] {
    release_bounce(bounce);
    Fragments& f = fragments_.at(k);
    f.copied += bytes;
    if (f.copied < f.total)
      return;
    Payload p;
    if (data_) {
      auto it = data_->payloads.find(f.msg);
      p       = std::move(it->second);
      data_->payloads.erase(it);
    }
    PostedRecv r = std::move(*f.recv);
    fragments_.erase(k);
    r.arrived(std::move(p));
  });
}

void MpiProcess::send(net::HostId peer, std::uint64_t seq, std::uint64_t bytes, std::uint64_t addr, Payload payload,
                      std::function<void()> done, bool eager)
{
  const std::uint64_t msg = next_msg();
  if (data_)
    data_->payloads[msg] = std::move(payload);
  c_.bytes_sent += bytes;
  const std::uint64_t hdr = cfg_.mpi.header.count;
  // A forced eager send (RunOptions::eager) goes eager when it can travel so: in fragments, or in one bounce buffer.
  const std::uint64_t frag = cfg_.mpi.fragment.count;
  eager = eager && (frag > 0 || bytes + cfg_.mpi.header.count <= cfg_.mpi.eager_buffer.count);
  if ((bytes <= cfg_.mpi.eager_threshold.count || eager) && frag > 0 && bytes > frag) {
    ++c_.eager_sent;
    send_fragments(peer, seq, bytes, msg, std::move(done));
    return;
  }
  if (bytes <= cfg_.mpi.eager_threshold.count || eager) {
    ++c_.eager_sent;
    c_.bytes_copied += bytes;
    // A message that fits the work request goes inline (UCX's ucp_tag_send_inline: no request, no bounce copy; the
    // CPU writes header and data into the request, post_send), at its own cost; any other takes the full send path.
    const SimTime post = fits_inline(hdr + bytes) ? cfg_.cpu.inline_send_overhead : cfg_.cpu.send_overhead;
    cpu(post + copy_cost(bytes), [this, peer, seq, bytes, msg, hdr, done = std::move(done)] {
      post_send(peer, hdr + bytes, {kEager | (seq << 8), bytes, 0, msg}, kSendBounce);
      done(); // buffered: the user buffer is free once copied
    });
    return;
  }
  ++c_.rendezvous_sent;
  awaiting_fin_[msg] = std::move(done);
  cpu(cfg_.cpu.send_overhead,
      [this, peer, seq, bytes, msg, hdr, addr] { post_send(peer, hdr, {kRts | (seq << 8), bytes, addr, msg}, kSendBounce); });
}

void MpiProcess::recv(net::HostId peer, std::uint64_t seq, PostedRecv r)
{
  Key k{peer, seq};
  if (auto it = fragments_.find(k); it != fragments_.end() && !it->second.recv) { // fragments arrived unexpected
    Fragments& f = it->second;
    check_size(peer, seq, f.total, r.bytes);
    f.recv       = std::move(r);
    ++c_.eager_received;
    auto held = std::move(f.held);
    for (std::size_t i = 0; i < held.size(); ++i)
      copy_fragment(k, held[i].first, held[i].second, i == 0 ? cfg_.cpu.recv_overhead : cfg_.cpu.progress_overhead);
    return;
  }
  if (auto it = unexpected_.find(k); it != unexpected_.end()) {
    Arrival a = it->second;
    unexpected_.erase(it);
    match(a, std::move(r), false);
    return;
  }
  posted_.emplace(k, std::move(r));
}

void MpiProcess::release_bounce(std::uint64_t idx)
{
  rq_.release(static_cast<std::uint32_t>(idx));
}

void MpiProcess::hold_bounce(std::uint64_t idx)
{
  // The CPU polls the arrival once the work queued before it is done (it charges nothing for queueing it: the
  // receive, when posted, pays recv_overhead).
  rq_.hold(static_cast<std::uint32_t>(idx), std::max(sched_.now(), cpu_free_));
}

void MpiProcess::check_size(net::HostId src, std::uint64_t seq, std::uint64_t bytes, std::uint64_t expected) const
{
  if (bytes != expected)
    throw std::runtime_error(fmt::format("MPI rank on host {}: message {} from host {} carries {} B but the matching "
                                         "receive expects {} B (schedules of sender and receiver disagree)",
                                         id_, seq, src, bytes, expected));
}

void MpiProcess::match(const Arrival& a, PostedRecv r, bool posted_first)
{
  const std::uint64_t type  = a.m.header[0] & 0xff;
  const std::uint64_t bytes = a.m.header[1];
  const std::uint64_t msg   = a.m.header[3];
  check_size(a.src, a.m.header[0] >> 8, bytes, r.bytes);
  if (type == kEager) {
    ++c_.eager_received;
    // Over TCP (MPICH's CH3 nemesis tcp, socksm.c MPID_nem_tcp_recv_handler) a new message's first recv takes at most
    // MPID_NEM_TCP_RECV_MAX_PKT_LEN (1,024 B, header included) into a temporary buffer, copied out; the rest of a
    // message whose receive is posted is readv'd by the kernel straight into the user buffer (the engine's socket
    // copy here). An unexpected one lies whole in a temporary buffer until its receive copies it. ASSUMPTION: posted
    // before the message's last byte came (MPICH: before its header) counts as posted.
    constexpr std::uint64_t kFirstRecv = 1024;
    const std::uint64_t hdr    = std::min(cfg_.mpi.header.count, kFirstRecv);
    const std::uint64_t copied = posted_first && cfg_.transport == Transport::Tcp ? std::min(bytes, kFirstRecv - hdr)
                                                                                    : bytes;
    c_.bytes_copied += copied;
    cpu(cfg_.cpu.recv_overhead + copy_cost(copied), [this, bounce = a.m.recv_wr_id, msg, r = std::move(r)] {
      release_bounce(bounce);
      Payload p;
      if (data_) {
        auto it = data_->payloads.find(msg);
        p       = std::move(it->second);
        data_->payloads.erase(it);
      }
      r.arrived(std::move(p));
    });
    return;
  }
  // Request-to-send: READ the sender's buffer into the receive buffer, in READs of at most mpi.max_read posted
  // together (UCX's rendezvous GET); they complete in order on the queue pair, the last one's completion the transfer's.
  cpu(cfg_.cpu.progress_overhead, [this, a, bytes, msg, r = std::move(r)]() mutable {
    release_bounce(a.m.recv_wr_id);
    // (over TCP the model's rendezvous read is the socket's, which no NIC message size limits)
    const std::uint64_t most =
        cfg_.transport == Transport::Roce ? cfg_.mpi.max_read.count : std::max<std::uint64_t>(bytes, 1);
    const std::uint64_t n    = std::max<std::uint64_t>(1, (bytes + most - 1) / most);
    for (std::uint64_t i = 0, off = 0; i < n; ++i, off += most) {
      roce::WorkRequest wr;
      wr.wr_id       = (static_cast<std::uint64_t>(id_) << 40) | ++wr_counter_;
      wr.verb        = roce::Verb::Read;
      wr.local_addr  = r.addr + off;
      wr.remote_addr = a.m.header[2] + off;
      wr.length      = std::min(most, bytes - off);
      wr.msg         = next_msg(); // the READ's own id in the NIC (the data's payload stays under `msg`)
      ++c_.reads;
      if (i + 1 == n)
        reads_.emplace(wr.wr_id, Read{a.src, msg, std::move(r)});
      nic_.post_send(qp_of_(a.src), wr);
    }
  });
}

void MpiProcess::on_inbound(net::HostId src, const roce::InboundMessage& m)
{
  const std::uint64_t type = m.header[0] & 0xff;
  if (type == kFin) {
    cpu(cfg_.cpu.progress_overhead, [this, m] {
      release_bounce(m.recv_wr_id);
      auto it = awaiting_fin_.find(m.header[3]);
      if (it == awaiting_fin_.end())
        throw std::logic_error(fmt::format("MPI host {}: finish for unknown message {}", id_, m.header[3]));
      auto done = std::move(it->second);
      awaiting_fin_.erase(it);
      done();
    });
    return;
  }
  if (type == kFragment) {
    on_fragment(Key{src, m.header[0] >> 8}, m);
    return;
  }
  if (type != kEager && type != kRts)
    throw std::logic_error(fmt::format("MPI host {}: unknown message type {} from host {}", id_, type, src));
  Key k{src, m.header[0] >> 8};
  Arrival a{m, src};
  if (auto it = posted_.find(k); it != posted_.end()) {
    PostedRecv r = std::move(it->second);
    posted_.erase(it);
    match(a, std::move(r), true);
    return;
  }
  ++c_.unexpected;
  hold_bounce(m.recv_wr_id);
  unexpected_.emplace(k, a);
}

void MpiProcess::wait_delivered(ActorContext& ctx, net::HostId peer)
{
  delivery_.wait(ctx, peer, fmt::format("MPI host {}", id_));
}

void MpiProcess::on_completion(const roce::Completion& c)
{
  if (c.status != roce::Status::Success)
    throw SimulationError(fmt::format("MPI host {}: {}", id_, roce::describe_failure(c)));
  if (track_delivery_)
    delivery_.completed(sched_, c.wr_id, true);
  auto it = reads_.find(c.wr_id);
  if (it == reads_.end())
    return; // SEND completions: eager sends completed when copied, control messages need nothing
  Read rd = std::move(it->second);
  reads_.erase(it);
  cpu(cfg_.cpu.progress_overhead, [this, rd = std::move(rd)] {
    post_send(rd.src, cfg_.mpi.header.count, {kFin, 0, 0, rd.msg}, kSendBounce);
    Payload p;
    if (data_) {
      auto it2 = data_->payloads.find(rd.msg);
      p        = std::move(it2->second);
      data_->payloads.erase(it2);
    }
    rd.recv.arrived(std::move(p));
  });
}

std::shared_ptr<MpiProcess::Call> MpiProcess::begin(ActorId actor, const coll::Schedule& s,
                                                    const std::vector<net::HostId>& comm, DataType dtype,
                                                    RankBuffers* bufs, const RunOptions& opt)
{
  if (opt.context >= kContexts)
    throw std::invalid_argument(fmt::format("MPI matching context {} beyond the {} modeled", opt.context, kContexts));
  ++c_.calls;
  auto call   = std::make_shared<Call>();
  call->s     = s;
  call->comm  = comm;
  call->dtype = dtype;
  call->eb    = s.call.elem_bytes;
  call->bufs  = bufs;
  call->remaining = s.ops.size();
  call->actor     = actor;
  if (bufs)
    for (int k = 0; k < 3; ++k)
      bufs->buf[static_cast<int>(Buf::Scratch0) + k].resize(s.scratch[k] * call->eb);
  auto& seqs    = seqs_[opt.context];
  call->context = static_cast<std::uint64_t>(opt.context) << kContextShift;
  call->eager   = opt.eager;
  call->order.emplace(s, [&](int r) { return comm.at(static_cast<std::size_t>(r)); }, seqs.first, seqs.second);
  return call;
}

void MpiProcess::start(const std::shared_ptr<Call>& call)
{
  call->order->start([&](std::uint32_t i) { issue(call, i); });
}

CauseLabel MpiProcess::call_overhead_label() const
{
  static const std::uint32_t overhead = cause_what("host CPU", "MPI call overhead");
  return CauseLabel::at_host(overhead, id_);
}

std::string MpiProcess::waiting_for(const Call& call) const
{
  const coll::Schedule& s = call.s;
  return fmt::format("MPI rank {} on host {}: {} of {} ({}) with {} of {} steps outstanding", s.rank, id_,
                     coll::collective_name(s.call.collective), format_bytes(Bytes{s.call.bytes()}),
                     coll::algorithm_name(s.algorithm), call.remaining, s.ops.size());
}

void MpiProcess::run(ActorContext& ctx, const coll::Schedule& s, const std::vector<net::HostId>& comm,
                     DataType dtype, RankBuffers* bufs, const RunOptions& opt)
{
  if (mpi::returns_at_once(s.call)) { // the library returns at once: its call's overhead only
    ++c_.calls;
    if (!opt.local)
      ctx.sleep_for(cfg_.cpu.call_overhead, call_overhead_label());
    return;
  }
  auto call              = begin(ctx.id(), s, comm, dtype, bufs, opt);
  const CauseLabel label = call_overhead_label(); // interned at every call's start, local or not, as always
  if (!opt.local)
    ctx.sleep_for(cfg_.cpu.call_overhead, label);
  start(call);
  while (call->remaining > 0) {
    call->waiting = true;
    ctx.block(WaitReason([&] { return waiting_for(*call); }));
  }
}

Task<> MpiProcess::run_task(TaskContext& ctx, const coll::Schedule& s, const std::vector<net::HostId>& comm,
                            DataType dtype, RankBuffers* bufs, RunOptions opt)
{
  if (mpi::returns_at_once(s.call)) { // the library returns at once: its call's overhead only
    ++c_.calls;
    if (!opt.local)
      co_await ctx.sleep_for(cfg_.cpu.call_overhead, call_overhead_label());
    co_return;
  }
  auto call              = begin(ctx.id(), s, comm, dtype, bufs, opt);
  const CauseLabel label = call_overhead_label();
  if (!opt.local)
    co_await ctx.sleep_for(cfg_.cpu.call_overhead, label);
  start(call);
  auto why = [&] { return waiting_for(*call); };
  while (call->remaining > 0) {
    call->waiting = true;
    co_await ctx.block(why);
  }
}

void MpiProcess::op_done(const std::shared_ptr<Call>& call, std::uint32_t i)
{
  call->order->done(i, [&](std::uint32_t d) { issue(call, d); });
  if (--call->remaining == 0 && call->waiting) {
    call->waiting = false;
    sched_.wake(call->actor);
  }
}

void MpiProcess::send_posted(const std::shared_ptr<Call>& call, std::uint32_t i)
{
  call->order->posted(i, [&](std::uint32_t d) { issue(call, d); });
}

void MpiProcess::issue(const std::shared_ptr<Call>& call, std::uint32_t i)
{
  const coll::Op& op = call->s.ops[i];
  const bool real    = call->bufs != nullptr;
  auto done          = [this, call, i] { op_done(call, i); };
  auto peer          = [&](int r) { return call->comm.at(static_cast<std::size_t>(r)); };
  auto content       = [&](const coll::Slice& sl) { return real ? Payload(call->bytes(sl).begin(), call->bytes(sl).end()) : Payload{}; };

  switch (op.kind) {
    case OpKind::Send:
      send_posted(call, i);
      send(peer(op.peer), call->send_seq(i), op.a.count * call->eb, call->addr(op.a), content(op.a), done,
           call->eager);
      break;
    case OpKind::Notify:
      send_posted(call, i);
      send(peer(op.peer), call->send_seq(i), 0, 0, {}, done); break;
    case OpKind::WaitNotify:
      recv(peer(op.peer), call->recv_seq(i), PostedRecv{0, 0, [done](Payload&&) { done(); }});
      break;
    case OpKind::Recv:
    case OpKind::RecvReduce:
    case OpKind::RecvReduceSend:
    case OpKind::RecvSend: issue_receive(call, i); break;
    case OpKind::CombineSend:
    case OpKind::Combine:
    case OpKind::Copy: issue_local(call, i); break;
  }
}

namespace {
/// The temporary buffer of a call's operation `i` (received operands, partial results).
std::uint64_t temp_address(std::uint32_t i)
{
  return kTempBase | (static_cast<std::uint64_t>(i) << 32);
}
} // namespace

void MpiProcess::issue_receive(const std::shared_ptr<Call>& call, std::uint32_t i)
{
  const coll::Op& op = call->s.ops[i];
  const auto eb      = call->eb;
  auto done          = [this, call, i] { op_done(call, i); };
  auto peer          = [&](int r) { return call->comm.at(static_cast<std::size_t>(r)); };
  auto reduce_into   = [this, call](const coll::Slice& a, std::span<const std::byte> b, std::span<std::byte> out) {
    if (call->bufs)
      reduce(call->s.call.func, call->dtype, call->bytes(a), b, out);
  };
  const std::uint64_t temp_addr = temp_address(i);
  switch (op.kind) {
    case OpKind::Recv:
      recv(peer(op.peer), call->recv_seq(i),
           PostedRecv{op.dst.count * eb, call->addr(op.dst), [call, dst = op.dst, done](Payload&& p) {
                        if (call->bufs)
                          std::copy(p.begin(), p.end(), call->bytes(dst).begin());
                        done();
                      }});
      break;
    case OpKind::RecvReduce:
      recv(peer(op.peer), call->recv_seq(i),
           PostedRecv{op.dst.count * eb, temp_addr, [this, call, op, done, reduce_into](Payload&& p) {
                        std::uint64_t b = op.dst.count * call->eb;
                        c_.bytes_reduced += b;
                        cpu(reduce_cost(b), [call, op, done, reduce_into, p = std::move(p)] {
                          reduce_into(op.a, p, call->bufs ? call->bytes(op.dst) : std::span<std::byte>{});
                          done();
                        });
                      }});
      break;
    case OpKind::RecvReduceSend:
    case OpKind::RecvSend:
      recv(peer(op.peer), call->recv_seq(i),
           PostedRecv{op.a.count * eb, temp_addr, [this, call, op, i, done, reduce_into, temp_addr](Payload&& p) {
                        std::uint64_t b = op.a.count * call->eb;
                        auto forward    = [this, call, op, i, b, done, temp_addr](Payload q) {
                          send_posted(call, i);
                          send(call->comm.at(static_cast<std::size_t>(op.peer2)), call->send_seq(i), b, temp_addr,
                               std::move(q), done);
                        };
                        if (op.kind == OpKind::RecvSend) {
                          forward(std::move(p));
                          return;
                        }
                        c_.bytes_reduced += b;
                        cpu(reduce_cost(b), [call, op, forward, reduce_into, p = std::move(p)]() mutable {
                          if (call->bufs)
                            reduce_into(op.a, p, p);
                          forward(std::move(p));
                        });
                      }});
      break;
    default: throw std::logic_error("issue_receive: not a receiving operation");
  }
}

void MpiProcess::issue_local(const std::shared_ptr<Call>& call, std::uint32_t i)
{
  const coll::Op& op = call->s.ops[i];
  const auto eb      = call->eb;
  auto done          = [this, call, i] { op_done(call, i); };
  auto reduce_into   = [this, call](const coll::Slice& a, std::span<const std::byte> b, std::span<std::byte> out) {
    if (call->bufs)
      reduce(call->s.call.func, call->dtype, call->bytes(a), b, out);
  };
  const std::uint64_t temp_addr = temp_address(i);
  switch (op.kind) {
    case OpKind::CombineSend: {
      std::uint64_t b = op.a.count * eb;
      c_.bytes_reduced += b;
      cpu(reduce_cost(b), [this, call, op, i, b, done, temp_addr, reduce_into] {
        Payload p;
        if (call->bufs) {
          p.resize(b);
          reduce_into(op.a, call->bytes(op.b), p);
        }
        send_posted(call, i);
        send(call->comm.at(static_cast<std::size_t>(op.peer)), call->send_seq(i), b, temp_addr, std::move(p), done);
      });
      break;
    }
    case OpKind::Combine: {
      std::uint64_t b = op.a.count * eb;
      c_.bytes_reduced += b;
      cpu(reduce_cost(b), [call, op, done, reduce_into] {
        if (call->bufs)
          reduce_into(op.a, call->bytes(op.b), call->bytes(op.dst));
        done();
      });
      break;
    }
    case OpKind::Copy: {
      std::uint64_t b = op.a.count * eb;
      c_.bytes_copied += b;
      cpu(copy_cost(b), [call, op, done] {
        if (call->bufs) {
          auto src = call->bytes(op.a);
          Payload tmp(src.begin(), src.end());
          std::copy(tmp.begin(), tmp.end(), call->bytes(op.dst).begin());
        }
        done();
      });
      break;
    }
    default: throw std::logic_error("issue_local: not a local operation");
  }
}

} // namespace nafsim::nodes
