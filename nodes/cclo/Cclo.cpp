#include "nodes/cclo/Cclo.hpp"

#include "nodes/cclo/CallPlan.hpp"
#include "nodes/cclo/CcloBuild.hpp"
#include "nodes/cclo/Firmware.hpp"
#include "nodes/cclo/FirmwareDispatch.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::nodes {

using roce::AppHeader;

Cclo::Cclo(net::HostId host, const CcloConfig& cfg, Hertz clock,
           Scheduler& sched, CcloLink link, MemorySystem& mem, DataPlane* data, std::uint64_t seed)
    : host_(host)
    , cfg_(cfg)
    , cycle_(cycles_time(Cycles{1}, clock))
    , core_(host, cfg_, cycle_)
    , sched_(sched)
    , link_(std::move(link))
    , mem_(mem)
    , data_(data)
    , inv_(cfg.invocation, cfg.rx_buffers, std::uint64_t{cfg.firmware.call} + cfg.firmware.finalize, clock,
           Rng(seed, Rng::mix(0x1417E, host)))
    , rbm_(cfg.rx_buffers, 0, cfg.txrx.header.count)
{
  if (auto why = HostInvocation::check(cfg.invocation, std::uint64_t{cfg.firmware.call} + cfg.firmware.finalize, clock);
      !why.empty())
    throw config::ConfigError("", "/platform/node/fpga/cclo/invocation", why);
  // The driver sets both thresholds at initialisation; the firmware refuses an eager limit below an Rx buffer
  // (HOUSEKEEP_EAGER_MAX_SIZE: EAGER_THRESHOLD_INVALID) and a rendezvous limit not above the eager one
  // (RENDEZVOUS_THRESHOLD_INVALID), and the driver throws.
  if (cfg.tuning.max_eager_size.count < cfg.rx_buffers.size.count)
    throw config::ConfigError(
        "", "/platform/node/fpga/cclo/tuning/max_eager_size",
        fmt::format("max_eager_size {} is below rx_buffers.size {}: the CCLO firmware refuses it "
                    "(EAGER_THRESHOLD_INVALID, the driver's initialisation fails): raise max_eager_size to at least "
                    "rx_buffers.size, or lower rx_buffers.size",
                    format_bytes(cfg.tuning.max_eager_size), format_bytes(cfg.rx_buffers.size)));
  if (cfg.tuning.max_rendezvous_size.count <= cfg.tuning.max_eager_size.count)
    throw config::ConfigError(
        "", "/platform/node/fpga/cclo/tuning/max_rendezvous_size",
        fmt::format("max_rendezvous_size {} is not above max_eager_size {}: the CCLO firmware refuses it "
                    "(RENDEZVOUS_THRESHOLD_INVALID, the driver's initialisation fails): raise max_rendezvous_size",
                    format_bytes(cfg.tuning.max_rendezvous_size), format_bytes(cfg.tuning.max_eager_size)));
  inv_.set_sync([this](ActorContext& ctx, std::uint64_t bytes, bool to_host) {
    static const std::uint32_t sync = cause_what("invocation", "host buffer sync (DMA)");
    ctx.sleep_until(to_host ? mem_.dma_to_host(ctx.now(), Bytes{bytes}) : mem_.dma_to_device(ctx.now(), Bytes{bytes}),
                    CauseLabel::at_host(sync, host_));
  });
  // Device memory below kUserBase: Rx buffers, then the three rendezvous spare buffers, then a slot
  // for notifications (they carry no payload to keep).
  // The driver allocates each buffer on its own pages (2 MiB huge pages on Coyote): the spare buffers start on a
  // 2 MiB boundary each, so that a transfer into one never spans more pages than it would there.
  constexpr std::uint64_t kPage = 2ULL << 20;
  auto page_up         = [](std::uint64_t x) { return (x + kPage - 1) / kPage * kPage; };
  std::uint64_t rx_end = std::uint64_t{cfg.rx_buffers.count} * rbm_.stride();
  spare_base_          = page_up(rx_end);
  spare_stride_        = page_up(cfg.tuning.max_rendezvous_size.count);
  control_addr_        = spare_base_ + 3 * spare_stride_;
  if (control_addr_ + cfg.txrx.header.count > kUserBase)
    throw config::ConfigError("", "/platform/node/fpga/cclo",
                              "Rx buffers and spare buffers exceed the CCLO's 64 GiB of device memory");
  dmp_ = std::make_unique<DataMover>(cfg.dmp, cfg.rx_buffers.seek_cycles, clock, sched, mem, rbm_, *this,
                                     data ? &data->memory.at(host) : nullptr);
  fw_  = std::make_unique<Firmware>(*this, &dispatch_call);
  dmp_->set_host(host);
  dmp_->on_deadlock([this](std::string why, bool fifo) { on_dmp_stuck(why, fifo); });
  // A failure while no call runs (a session that gave up after its data was handed over, say) is
  // reported by the next call; if the run stalls first, the deadlock report names it as the cause.
  sched.add_deadlock_note([this] {
    return core_.error.empty() ? std::string() : fmt::format("host {}: the CCLO recorded a failure no call has reported yet: {}", host_, core_.error);
  });
  // The Rx system receives every SEND: notifications need no buffer; eager data takes a free Rx
  // buffer, and none free means back-pressure (the sender is told the receiver is not ready).
  link_.set_recv_provider([this](const AppHeader& h) {
    using roce::RecvOffer;
    if ((h[0] & kMagic) != kMagic)
      return RecvOffer{}; // not a CCLO message: the queue pair's own receives
    auto type = static_cast<Msg>((h[0] >> 32) & 0xFF);
    if (type == Msg::Stream) // the Rx system hands it to the kernel's stream: no Rx buffer, nothing to memory
      return RecvOffer{RecvOffer::Status::Ready,
                       roce::RecvRequest{~0ULL, control_addr_, cfg_.txrx.header.count + h[3]}, true};
    if (type != Msg::Eager)
      // The Rx system parses a notification and queues it for the micro-controller: nothing goes to memory.
      return RecvOffer{RecvOffer::Status::Ready, roce::RecvRequest{~0ULL, control_addr_, cfg_.txrx.header.count}, true};
    auto buf = rbm_.take_free();
    if (!buf)
      return RecvOffer{RecvOffer::Status::NotReady, {}};
    return RecvOffer{RecvOffer::Status::Ready,
                     roce::RecvRequest{*buf, rbm_.address(*buf), cfg_.txrx.header.count + rbm_.size()}};
  });
}

Cclo::~Cclo() = default;

std::uint64_t Cclo::stream_received(int id) const
{
  auto it = stream_bytes_.find(id);
  return it == stream_bytes_.end() ? 0 : it->second;
}

void Cclo::stream_arrived(int id, std::uint64_t bytes)
{
  ++core_.counters.stream_received;
  stream_bytes_[id] += bytes;
  for (auto a : std::exchange(stream_readers_, {}))
    sched_.wake(a);
}

void Cclo::wait_stream(ActorContext& ctx, int id, std::uint64_t bytes)
{
  // One wake-up per registration (stream_arrived takes the readers): a reader woken by a part of what it waits for
  // registers again before it blocks again (wait_until re-blocked unregistered, so the rest, arriving later, woke no
  // one: a kernel copying a stream put in two halves deadlocked whenever it began waiting between them).
  while (stream_received(id) < bytes) {
    stream_readers_.push_back(ctx.id());
    ctx.block(WaitReason([this, id, bytes] {
      return fmt::format("host {}: a kernel waits for {} of stream {} ({} arrived)", host_, format_bytes(Bytes{bytes}),
                         id, format_bytes(Bytes{stream_received(id)}));
    }));
  }
}

void Cclo::wait_delivered(ActorContext& ctx, std::uint32_t peer)
{
  delivery_.wait(ctx, peer, fmt::format("host {}", host_));
}

void Cclo::start()
{
  sched_.spawn_task(fmt::format("cclo-{}", host_), [this](TaskContext& ctx) { return fw_->run(ctx); }, ActorRole::Daemon);
}

void Cclo::set_trace(results::Trace* t, std::uint32_t pid)
{
  core_.trace     = t;
  core_.trace_pid = pid;
  t->name_thread(pid, Firmware::kUcTrack, "micro-controller");
  t->name_thread(pid, kTxTrack, "Tx system");
  t->name_thread(pid, kRxTrack, "Rx system");
  t->name_thread(pid, kInvocationTrack, "invocation (host / kernel)");
  dmp_->set_trace(t, pid);
  rbm_.on_change([this, t, pid](std::size_t in_use) {
    t->counter(pid, "rx buffers in use", static_cast<double>(in_use), sched_.now());
  });
}

coll::CcloTuning Cclo::tuning() const
{
  return tuning_of(cfg_);
}

CcloCounters Cclo::counters() const
{
  CcloCounters c          = core_.counters;
  c.rx_refusals           = rbm_.refusals();
  c.rx_buffers_max_used   = rbm_.max_in_use();
  return c;
}

void Cclo::wake_firmware()
{
  if (core_.fw_actor && core_.fw_waiting)
    sched_.wake(*core_.fw_actor);
}

std::vector<std::byte> Cclo::take_payload(std::uint64_t msg)
{
  auto it = data_->payloads.find(msg);
  if (it == data_->payloads.end())
    throw std::logic_error(fmt::format("host {}: message {:#x} arrived without its payload", host_, msg));
  auto v = std::move(it->second);
  data_->payloads.erase(it);
  return v;
}

void Cclo::on_dmp_stuck(const std::string& why, bool fifo)
{
  auto const& rx = config().rx_buffers;
  if (fifo) { // a block of more than 64 Rx buffers: only larger buffers or the rendezvous protocol help
    fail(fmt::format("host {}: {}. Raise platform.node.fpga.cclo.rx_buffers.size (and tuning.max_eager_size with "
                     "it) so that a block fills at most {} buffers{}{}",
                     host_, why, DataMover::kMaxRxPieces,
                     link_.rendezvous ? ", or let the rendezvous protocol carry the large messages" : "",
                     build_sets_these(config())));
    return;
  }
  // How to size the Rx buffers: every peer's eager message may land before the one the moves need next, and a move
  // reading a block holds all of the block's buffers until its result starts.
  fail(fmt::format("host {}: {}. An eager call that receives from P peers at once can hold P x ceil(message / "
                   "rx_buffers.size) buffers, and a move reading a block larger than a buffer holds all of them at "
                   "once (the node has {} of {}): raise platform.node.fpga.cclo.rx_buffers.count to that, or "
                   "rx_buffers.size to the message size (and tuning.max_eager_size to at least that: the firmware "
                   "refuses an eager limit below an Rx buffer) so that each takes one buffer and P buffers do{}",
                   host_, why, rx.count, format_bytes(rx.size),
                   link_.rendezvous ? ", or let the rendezvous protocol carry the large messages (its WRITEs need "
                                      "no Rx buffer)"
                                    : fmt::format(" (over {} the CCLO runs every call eager: no rendezvous)",
                                                  link_.transport)) +
       build_sets_these(config()));
}

void Cclo::fail(std::string why)
{
  if (core_.error.empty())
    core_.error = std::move(why);
  wake_firmware();
}

CcloResult Cclo::call(ActorContext& ctx, const CcloCall& c)
{
  SimTime invoked = ctx.now();
  SimTime since   = invoked;
  auto traced     = [&](const char* what) { // the invocation track: each step of the call's path up to now
    if (core_.trace && ctx.now() > since)
      core_.trace->span(core_.trace_pid, kInvocationTrack, what, since, ctx.now());
    since = ctx.now();
  };
  if (SimTime w = inv_.safety_warning(c.path, c.call); w > SimTime{}) {
    ++core_.counters.safety_warnings;
    static const std::uint32_t warning = cause_what("invocation", "driver safety warning");
    ctx.sleep_for(w, CauseLabel::at_host(warning, host_));
    traced("driver safety warning");
  }
  const auto [req, rsp] = inv_.latencies(c.path, c.call, c.invocation_key);
  // XRT cannot point the CCLO at host buffers (partitioned memory): the driver syncs the operands
  // into device buffers before the call and the results back after it (HostInvocation::xrt_syncs).
  const bool staged = c.path == InvocationPath::Xrt && c.location == DataLocation::Host;
  // The CCLO at host memory itself (Coyote's unified memory): host data as a location, or buffers at host addresses.
  if (!staged && (c.location == DataLocation::Host || is_host(c.src_addr) || is_host(c.dst_addr)))
    ++core_.counters.direct_host_calls;
  CcloCall dev      = c;
  const std::uint64_t eb        = c.call.elem_bytes;
  const std::uint64_t in_bytes  = coll::input_elements(c.call, c.rank) * eb;
  const std::uint64_t out_bytes = coll::output_elements(c.call, c.rank) * eb;
  const auto syncs              = staged ? HostInvocation::xrt_syncs(c.call, c.rank) : HostInvocation::Syncs{};
  if (staged) {
    dev.location = DataLocation::Device;
    dev.src_addr = kStagingBase;
    dev.dst_addr = kStagingBase + kStagingSpan;
    inv_.run_syncs(ctx, syncs.to_device, false);
    traced("sync host buffers to the card");
    if (data_) {
      data_->memory.at(host_).write(dev.src_addr, data_->memory.at(host_).read(c.src_addr, in_bytes));
      // combine's second operand is its result buffer's content (xrt_syncs: both operands go to the card)
      if (c.call.collective == coll::Collective::Combine)
        data_->memory.at(host_).write(dev.dst_addr, data_->memory.at(host_).read(c.dst_addr, out_bytes));
    }
  }
  static const std::uint32_t request = cause_what("invocation", "request path");
  ctx.sleep_for(req, CauseLabel::at_host(request, host_));
  traced("request");
  // Shared: the firmware drops its reference when it finalizes, before this caller runs again.
  auto pending    = std::make_shared<Pending>();
  pending->call   = dev;
  pending->caller = ctx.id();
  Pending& p      = *pending;
  core_.calls.push_back(pending);
  core_.counters.max_calls_queued = std::max(core_.counters.max_calls_queued, core_.calls.size());
  // Only a firmware that waits is woken: one charging cycles (a sleep) sees the call when it next looks.
  wake_firmware();
  ctx.wait_until([&] { return p.done; }, WaitReason([&] {
                   return fmt::format("host {} waits for its CCLO call ({})", host_, coll::collective_name(c.call.collective));
                 }));
  CcloResult r = p.result;
  traced("in the CCLO");
  static const std::uint32_t response = cause_what("invocation", "response path");
  ctx.sleep_for(rsp, CauseLabel::at_host(response, host_));
  traced("response");
  if (staged && r.error.empty()) {
    inv_.run_syncs(ctx, syncs.to_host, true);
    traced("sync results back to the host");
    if (data_)
      data_->memory.at(host_).write(c.dst_addr, data_->memory.at(host_).read(dev.dst_addr, out_bytes));
  }
  r.invoked  = invoked;
  r.returned = ctx.now();
  return r;
}

void Cclo::post(std::uint32_t peer, const roce::WorkRequest& wr, PayloadSource source, std::function<void()> accepted)
{
  if (track_delivery_ && link_.acknowledges)
    delivery_.posted(peer, wr.wr_id);
  if (core_.trace) { // the Tx system's track: each message from its post to the transport taking its last byte
    static constexpr const char* kinds[] = {"?", "eager", "rendezvous init", "rendezvous done", "notify"};
    const auto type       = static_cast<std::uint8_t>((wr.header[0] >> 32) & 0xFF);
    const char* what      = wr.verb == roce::Verb::Write ? "rendezvous write" : kinds[type < 5 ? type : 0];
    const std::string arg = fmt::format(R"({{"peer":{},"bytes":{}}})", peer, wr.length);
    if (accepted)
      accepted = [this, inner = std::move(accepted), what, arg, since = sched_.now()] {
        core_.trace->span(core_.trace_pid, kTxTrack, what, since, sched_.now(), arg);
        inner();
      };
    else
      core_.trace->instant(core_.trace_pid, kTxTrack, what, sched_.now(), arg);
  }
  if (link_.reports_acceptance || !accepted) {
    link_.post(peer, wr, std::move(source), std::move(accepted));
    return;
  }
  // The transport does not say when it takes the data: the last byte counts as taken once produced.
  SimTime last = std::max(sched_.now(), source(0, static_cast<std::uint32_t>(wr.length)));
  link_.post(peer, wr, std::move(source), {});
  // (Critical paths) spent on what paces the stream (the data mover's read, as the engines that report acceptance say;
  // a UDP send fed at 60 Gb/s was "stream to the Tx system", which no what-if lifts).
  static const std::uint32_t produced = cause_what("data mover", "stream to the Tx system");
  sched_.call_at(last, std::move(accepted),
                 CauseLabel::at_host(wr.payload_cause != 0 ? wr.payload_cause : produced, host_));
}

void Cclo::send_control(std::uint32_t peer, Msg type, std::uint64_t addr, std::uint64_t a, std::uint64_t b,
                        std::optional<SimTime> ready)
{
  ++core_.counters.notifications_sent;
  roce::WorkRequest wr;
  wr.wr_id  = next_wr();
  wr.verb   = roce::Verb::Send;
  wr.length = cfg_.txrx.header.count;
  wr.msg    = next_msg();
  wr.header = AppHeader{kMagic | (std::uint64_t{static_cast<std::uint8_t>(type)} << 32) | host_, a, addr, b};
  SimTime at = ready ? *ready : sched_.now() + cycles(cfg_.txrx.tx_cycles);
  post(peer, wr, [at](std::uint64_t, std::uint32_t) { return at; }, {});
}

void Cclo::send_eager(std::uint32_t peer, std::uint64_t seq, std::uint64_t bytes, Stream data,
                      std::vector<std::byte> payload, std::function<void()> accepted, int stream)
{
  ++core_.counters.eager_messages;
  // A stream_put: the signature's type routes it to the peer's kernel stream `stream` (ACCL's strm field);
  // `seq` carries where the peer keeps that stream's data.
  const Msg type = stream >= 0 ? Msg::Stream : Msg::Eager;
  const std::uint64_t hdr = cfg_.txrx.header.count;
  SimTime tx              = cycles(cfg_.txrx.tx_cycles);
  roce::WorkRequest wr;
  wr.wr_id  = next_wr();
  wr.verb   = roce::Verb::Send;
  wr.length = hdr + bytes;
  wr.msg    = next_msg();
  wr.header = AppHeader{kMagic | (std::uint64_t{static_cast<std::uint8_t>(type)} << 32) | host_,
                        stream >= 0 ? static_cast<std::uint64_t>(stream) : seq, stream >= 0 ? seq : 0, bytes};
  wr.payload_cause      = data.cause;
  wr.payload_lead_cause = data.lead_cause;
  wr.payload_first      = (data.first + tx).ps();
  if (data_)
    data_->payloads[wr.msg] = std::move(payload);
  // The Tx system prepends the signature and forwards the data as the data mover streams it; the
  // packetizer's status (the move's completion) comes when the transport has taken the last byte.
  post(peer, wr, PayloadSource::stream(data.first + tx, hdr, data.rate), std::move(accepted));
}

void Cclo::write_rendezvous(std::uint32_t peer, std::uint64_t remote_addr, std::uint64_t bytes, Stream data,
                            std::vector<std::byte> payload, std::function<void()> accepted)
{
  if (link_.max_write != 0 && bytes > link_.max_write) // plan_call refuses the calls whose blocks are this large
    throw SimulationError(fmt::format("CCLO on host {}: a rendezvous WRITE of {} to rank {} is more than one request "
                                      "over {} carries, {} ({}): split the call",
                                      host_, format_bytes(Bytes{bytes}), peer, link_.transport,
                                      format_bytes(Bytes{link_.max_write}), link_.max_write_why));
  ++core_.counters.rendezvous_writes;
  SimTime tx = cycles(cfg_.txrx.tx_cycles);
  roce::WorkRequest wr;
  wr.wr_id       = next_wr();
  wr.verb        = roce::Verb::Write;
  wr.remote_addr = remote_addr;
  wr.length      = bytes;
  wr.msg         = next_msg();
  wr.payload_cause      = data.cause;
  wr.payload_lead_cause = data.lead_cause;
  wr.payload_first      = (data.first + tx).ps();
  if (data_)
    data_->payloads[wr.msg] = std::move(payload);
  post(peer, wr, PayloadSource::stream(data.first + tx, 0, data.rate), std::move(accepted));
  // The Tx system queues the completion notice (WR_DONE) right behind the WRITE on the same queue pair
  // (rdma_sq_handler.cpp: RNDZVS_MSG_CMD, then RNDZVS_DONE_CMD); the packetizer emits its header after the
  // WRITE's last byte. The move's status is the packetizer's, not the WRITE's acknowledgement. A link that
  // does not keep a connection's order (connectionless) sends the notice once the WRITE has completed.
  if (link_.ordered)
    send_control(peer, Msg::Done, remote_addr, 0, bytes, data.last + tx);
  else
    on_write_done_[wr.wr_id] = [this, peer, remote_addr, bytes] { send_control(peer, Msg::Done, remote_addr, 0, bytes); };
}

bool Cclo::on_completion(const roce::Completion& c)
{
  if ((c.wr_id & kWrBase) == 0)
    return false;
  if (track_delivery_)
    delivery_.completed(sched_, c.wr_id, c.status == roce::Status::Success);
  if (c.status == roce::Status::Success) {
    if (auto it = on_write_done_.find(c.wr_id); it != on_write_done_.end()) {
      static const std::uint32_t tx = cause_what("Tx system", "notification header");
      sched_.call_at(sched_.now() + cycles(cfg_.txrx.tx_cycles), std::move(it->second), CauseLabel::at_host(tx, host_));
      on_write_done_.erase(it);
    }
    return true;
  }
  fail(fmt::format("host {}: a CCLO {} failed: {}", host_, c.verb == roce::Verb::Write ? "RDMA WRITE" : "message",
                   roce::describe_failure(c)) +
       (c.status == roce::Status::RnrRetryExceeded
              ? fmt::format(" (the receiver had no free Rx buffer: {} buffers of {}, never freed while its peers' "
                            "eager segments waited: raise rx_buffers.count, or lower max_eager_size (with "
                            "rx_buffers.size no larger: the firmware refuses an eager limit below an Rx buffer){})",
                            cfg_.rx_buffers.count, format_bytes(cfg_.rx_buffers.size),
                            cfg_.build == CcloBuild::Custom
                                ? ", or run the eager build, platform.node.fpga.cclo.build: eager, whose Rx buffers "
                                  "hold a message whole"
                                : build_sets_these(cfg_))
              : std::string()));
  return true;
}

namespace {
std::uint32_t rx_parse_cause()
{
  static const std::uint32_t rx = cause_what("Rx system", "signature parse");
  return rx;
}
} // namespace

bool Cclo::on_inbound(QpId, const roce::InboundMessage& m)
{
  if (m.verb != roce::Verb::Send) {
    if (m.verb != roce::Verb::Write)
      return false;
    // Rendezvous data lands in memory without the CCLO.
    if (data_)
      data_->memory.at(host_).write(m.addr, take_payload(m.msg));
    return true;
  }
  auto a = arrive(m, sched_.now());
  if (!a)
    return false;
  // The Rx system parses the signature, then files the Rx buffer or queues the notification for the
  // firmware (STS_RNDZV).
  const std::uint32_t slot = parses_.put(std::move(*a));
  sched_.at(sched_.now() + cycles(cfg_.txrx.rx_cycles), &rx_parse_, 0, slot,
            CauseLabel::at_host(rx_parse_cause(), host_));
  return true;
}

PoeListener::Late Cclo::parse_delay(const roce::InboundMessage& m) const
{
  if (core_.trace || m.verb != roce::Verb::Send || !ours(m))
    return {};
  return {cycles(cfg_.txrx.rx_cycles), CauseLabel::at_host(rx_parse_cause(), host_)};
}

void Cclo::on_inbound_parsed(const roce::InboundMessage& m, SimTime due)
{
  parse(*arrive(m, due));
}

std::optional<Cclo::Arrival> Cclo::arrive(const roce::InboundMessage& m, SimTime at)
{
  const AppHeader& h = m.header;
  if (!ours(m))
    return std::nullopt;
  auto type     = static_cast<Msg>((h[0] >> 32) & 0xFF);
  auto src      = static_cast<std::uint32_t>(h[0] & 0xFFFF);
  auto recv_buf = m.recv_wr_id;
  if (type == Msg::Eager && data_) // the payload, kept at the start of its Rx buffer
    data_->memory.at(host_).write(rbm_.address(recv_buf), take_payload(m.msg));
  if (type == Msg::Stream && data_) // the kernel's stream data, where the receiver keeps it
    data_->memory.at(host_).write(h[2], take_payload(m.msg));
  if (core_.trace) {
    static constexpr const char* kinds[] = {"?", "eager", "rendezvous init", "rendezvous done", "notify", "stream"};
    const auto t = static_cast<std::uint8_t>(type);
    core_.trace->span(core_.trace_pid, kRxTrack, kinds[t < 6 ? t : 0], at, at + cycles(cfg_.txrx.rx_cycles),
                      fmt::format(R"({{"from":{}}})", src));
  }
  return Arrival{type, src, h, recv_buf};
}

void Cclo::RxParse::on_event(std::uint32_t, std::uint64_t slot)
{
  c_.parse(c_.parses_.take(static_cast<std::uint32_t>(slot)));
}

void Cclo::parse(const Arrival& a)
{
  auto const& h = a.h;
  switch (a.type) {
    case Msg::Eager:
      ++core_.counters.eager_received;
      rbm_.filled(a.recv_buf, a.src, h[1], h[3]);
      dmp_->rx_arrived();
      return;
    case Msg::Init:
      core_.rndzv.push(RndzvNotice{RndzvNotice::Type::Address, a.src, static_cast<std::uint32_t>(h[1] >> 32), h[2],
                                   h[3], static_cast<unsigned>(h[1] & 0xFFFFFFFF)});
      break;
    case Msg::Done: core_.rndzv.push(RndzvNotice{RndzvNotice::Type::Done, a.src, 0, h[2], h[3], 0}); break;
    case Msg::Notify: ++core_.notifies[a.src]; break;
    case Msg::Stream: stream_arrived(static_cast<int>(h[1]), h[3]); return;
  }
  ++core_.counters.notifications_received;
  ++core_.arrivals;
  wake_firmware();
}

} // namespace nafsim::nodes
