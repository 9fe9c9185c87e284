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

MemorySystem::MemorySystem(const MemoryConfig& d, const PcieConfig& p)
    : engines_{reader(d), reader(d), writer(d), reader(d), writer(d), reader(d), writer(d), reader(d), writer(d)}
    , pcie_read_(p.bandwidth, p.read_latency)
    , pcie_write_(p.bandwidth, p.write_latency)
{
}

Stream MemorySystem::access(Engine e, MemoryPort& pcie, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap)
{
  auto& eng = engines_[static_cast<int>(e)];
  if (!is_host(addr))
    return eng.stream(now, b, cap);
  // Host memory: the engine's own width and the shared PCIe direction both limit the stream.
  BitsPerSecond c = cap.bps < eng.bandwidth().bps ? cap : eng.bandwidth();
  return pcie.stream(now, b, c);
}

SimTime MemorySystem::write_streamed(Engine e, SimTime from, SimTime now, std::uint64_t addr, Bytes b, Bytes tail)
{
  auto& eng        = engines_[static_cast<int>(e)];
  MemoryPort& bus  = is_host(addr) ? pcie_write_ : eng;
  BitsPerSecond bw = eng.bandwidth();
  if (is_host(addr) && pcie_write_.bandwidth().bps < bw.bps)
    bw = pcie_write_.bandwidth();
  const Bytes early{b.count - std::min(b.count, tail.count)};
  const SimTime early_time = transmit_time(early, bw);
  bus.account(early, early_time);
  const SimTime streamed = from + early_time; // the earliest the earlier bytes can all be written
  return access(e, pcie_write_, std::max(now, streamed), addr + early.count, Bytes{b.count - early.count}, bw).last;
}

Stream MemorySystem::read(Engine e, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap)
{
  return access(e, pcie_read_, now, addr, b, cap);
}

Stream MemorySystem::write(Engine e, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap)
{
  return access(e, pcie_write_, now, addr, b, cap);
}

SimTime MemorySystem::dma_to_device(SimTime now, Bytes b, BitsPerSecond cap)
{
  Stream r = pcie_read_.stream(now, b, cap);
  return engines_[static_cast<int>(Engine::DmaWrite)].stream(r.first, b, r.rate).last;
}

SimTime MemorySystem::dma_to_host(SimTime now, Bytes b, BitsPerSecond cap)
{
  Stream r = engines_[static_cast<int>(Engine::DmaRead)].stream(now, b, cap);
  return pcie_write_.stream(r.first, b, r.rate).last;
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
