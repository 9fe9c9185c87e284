#include "nodes/memory/MemorySystem.hpp"

namespace nafsim::nodes {

namespace {
MemoryPort reader(const MemoryConfig& c)
{
  return MemoryPort(c.read_bandwidth, c.read_latency);
}
MemoryPort writer(const MemoryConfig& c)
{
  return MemoryPort(c.write_bandwidth, c.write_latency);
}
} // namespace

MemorySystem::MemorySystem(const MemoryConfig& d, const PcieConfig& p, const MmuConfig& mmu, Hertz clock)
    : engines_{reader(d), reader(d), writer(d), reader(d), writer(d), reader(d), writer(d), reader(d), writer(d)}
    , pcie_read_(p.bandwidth, p.read_latency)
    , pcie_write_(p.bandwidth, p.write_latency)
{
  if (d.shared_channel)
    channel_.emplace(d.channel_bandwidth, SimTime::zero()); // its latency is in the engines' read / write latency
  if (mmu.enabled)
    mmu_.emplace(mmu, clock);
}

namespace {
/// The card stream an engine's requests go to in the ACCL Coyote build (three card streams: the data mover's two
/// operand channels and the RDMA stack's); 0 for engines that do not use the MMU (the XRT shell's host DMA, a TCP
/// engine's buffers).
unsigned card_lane(Engine e)
{
  switch (e) {
    case Engine::Op0Read:
    case Engine::ResWrite: return 1;
    case Engine::Op1Read: return 2;
    case Engine::PoeRead:
    case Engine::PoeWrite: return 3;
    default: return 0;
  }
}
} // namespace

Stream MemorySystem::translated(Engine e, MemoryPort& pcie, SimTime now, std::uint64_t addr, Bytes b,
                                BitsPerSecond cap)
{
  const unsigned card = card_lane(e);
  if (!mmu_ || card == 0)
    return access(e, pcie, now, addr, b, cap);
  const auto dir  = &pcie == &pcie_read_ ? CoyoteMmu::Dir::Read : CoyoteMmu::Dir::Write;
  const unsigned lane = is_host(addr) ? CoyoteMmu::kHostLane : card;
  auto part = [&](SimTime start, std::uint64_t a, Bytes f) { return access(e, pcie, start, a, f, cap); };
  return mmu_->request(dir, lane, now, addr, b, part);
}

Stream MemorySystem::device(Engine e, SimTime now, Bytes b, BitsPerSecond cap)
{
  auto& eng = engines_[static_cast<int>(e)];
  if (!channel_)
    return eng.stream(now, b, cap);
  // The crossbar grants the channel to this access when it is free; the access holds it for its bytes at the
  // channel's own rate (a slower engine leaves gaps the channel fills with other engines' bursts, which a
  // first-come reservation of whole accesses approximates by charging only the bytes).
  SimTime granted = channel_->stream(now, b, channel_->bandwidth()).first;
  return eng.stream(granted, b, cap);
}

Stream MemorySystem::access(Engine e, MemoryPort& pcie, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap)
{
  if (!is_host(addr))
    return device(e, now, b, cap);
  // Host memory: the shared PCIe direction and the caller's cap (its datapath) limit the stream. Not the engine's
  // device-memory rate: on Coyote a host request leaves the user logic on a host stream (512 bit at 250 MHz) into the
  // XDMA channel and never reaches the HBM path (card-side clock and width converters, RAMA) those rates describe
  // (shared/reference/accl/coyote_memory_path.md sections 2 and 4).
  return pcie.stream(now, b, cap);
}

SimTime MemorySystem::write_streamed(Engine e, SimTime from, SimTime now, std::uint64_t addr, Bytes b, Bytes tail,
                                     bool command)
{
  auto& eng        = engines_[static_cast<int>(e)];
  MemoryPort& bus  = is_host(addr) ? pcie_write_ : eng;
  const BitsPerSecond bw = write_rate(e, addr); // host memory at PCIe's rate, not the device memory's (access())
  const Bytes early{b.count - std::min(b.count, tail.count)};
  const SimTime early_time = transmit_time(early, bw);
  bus.account(early, early_time);
  if (channel_ && !is_host(addr))
    channel_->account(early, transmit_time(early, channel_->bandwidth()));
  const SimTime streamed = from + early_time; // the earliest the earlier bytes can all be written
  const SimTime at = std::max(now, streamed);
  const Bytes rest{b.count - early.count};
  return (command ? translated(e, pcie_write_, at, addr + early.count, rest, bw)
                  : access(e, pcie_write_, at, addr + early.count, rest, bw))
      .last;
}

Stream MemorySystem::read(Engine e, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap)
{
  return translated(e, pcie_read_, now, addr, b, cap);
}

Stream MemorySystem::write(Engine e, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap, bool command)
{
  return command ? translated(e, pcie_write_, now, addr, b, cap) : access(e, pcie_write_, now, addr, b, cap);
}

SimTime MemorySystem::dma_to_device(SimTime now, Bytes b, BitsPerSecond cap)
{
  return dma_step(true, now, b, cap).last;
}

SimTime MemorySystem::dma_to_host(SimTime now, Bytes b, BitsPerSecond cap)
{
  return dma_step(false, now, b, cap).last;
}

MemorySystem::DmaStep MemorySystem::dma_step(bool to_device, SimTime now, Bytes b, BitsPerSecond cap)
{
  // The source stage streams; the destination stage takes the bytes as they come, at the source's rate. The
  // engine keeps the source's latency covered with requests in flight: the next descriptor goes when the source
  // stage is free, unless the destination began this one later than the source's data arrived (a destination
  // held up, by a busy shared channel say, holds the engine back by as much).
  auto& eng = engines_[static_cast<int>(to_device ? Engine::DmaWrite : Engine::DmaRead)];
  MemoryPort& src = to_device ? pcie_read_ : eng;
  MemoryPort& dst = to_device ? eng : pcie_write_;
  auto read_part  = [&](SimTime at, std::uint64_t, Bytes x) {
    return to_device ? pcie_read_.stream(at, x, cap) : device(Engine::DmaRead, at, x, cap);
  };
  Stream r = mmu_ ? mmu_->request(CoyoteMmu::Dir::Read, to_device ? CoyoteMmu::kHostLane : 1, now, 0, b, read_part)
                  : read_part(now, 0, b);
  auto write_part = [&](SimTime at, std::uint64_t, Bytes x) {
    return to_device ? device(Engine::DmaWrite, at, x, r.rate) : pcie_write_.stream(at, x, r.rate);
  };
  // With Coyote's MMU a driver copy's descriptor passes its state machines as the data mover's requests do (the
  // shell translates both buffers' addresses); its pages are not tracked (one request of page 0).
  Stream w = mmu_ ? mmu_->request(CoyoteMmu::Dir::Write, to_device ? 1 : CoyoteMmu::kHostLane, r.first, 0, b,
                                  write_part)
                  : write_part(r.first, 0, b);
  return {std::max(r.last - src.latency(), w.first - dst.latency() - src.latency()), w.last};
}

std::uint64_t MemorySystem::device_bytes_read() const
{
  return engines_[0].bytes() + engines_[1].bytes() + engines_[3].bytes() + engines_[5].bytes() + engines_[7].bytes();
}

std::uint64_t MemorySystem::device_bytes_written() const
{
  return engines_[2].bytes() + engines_[4].bytes() + engines_[6].bytes() + engines_[8].bytes();
}

} // namespace nafsim::nodes
