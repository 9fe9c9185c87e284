#pragma once
// A node's memories in one address space (Coyote's unified virtual memory): device memory (HBM)
// seen through separate engines (each data mover has its own port, 64 B per cycle), and host memory
// reached over PCIe, whose two directions are shared by every engine. The top address bit selects
// host memory. Device memory may instead be one channel that every engine reaches through a memory
// crossbar (MemoryConfig::shared_channel): each device access then also holds that channel for its
// bytes at the channel's rate, in the order the accesses come, so engines that together ask for more
// than the channel gives slow each other down.

#include "nodes/memory/CoyoteMmu.hpp"
#include "nodes/memory/MemoryPort.hpp"

#include <array>
#include <cstdint>
#include <optional>

namespace nafsim::nodes {

struct PcieConfig {
  BitsPerSecond bandwidth{104e9};
  SimTime read_latency  = SimTime::ns(900);
  SimTime write_latency = SimTime::ns(400);
  template <class V> void describe(V& v)
  {
    v.field("bandwidth", bandwidth, "sustained DMA bandwidth of each PCIe direction");
    v.field("read_latency", read_latency, "round trip of a DMA read of host memory (request to first data)");
    v.field("write_latency", write_latency, "time for DMA-written data to reach host memory");
  }
};

/// Device-memory ports: the data mover's two operand readers and result writer, the POE's reader and
/// writer, the shell's host DMA engine (XRT buffer syncs), and the TCP engine's own channel to its
/// transmit (retransmission) buffers.
enum class Engine : std::uint8_t {
  Op0Read,
  Op1Read,
  ResWrite,
  PoeRead,
  PoeWrite,
  DmaRead,
  DmaWrite,
  TxBufRead,
  TxBufWrite,
  Count
};

inline constexpr std::uint64_t kHostMemory = 1ULL << 63;
inline bool is_host(std::uint64_t addr)
{
  return (addr & kHostMemory) != 0;
}

class MemorySystem {
public:
  /// `mmu` (when enabled) puts the data movers' and the POE's accesses through Coyote's TLB state machines,
  /// clocked at `clock`.
  MemorySystem(const MemoryConfig& device, const PcieConfig& pcie, const MmuConfig& mmu = {},
               Hertz clock = Hertz{250e6});
  /// Stream a read of `b` bytes at `addr` through `engine`, no faster than `cap`.
  Stream read(Engine engine, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap);
  /// Stream a write; `last` is when the last byte is in memory. `command` false: the write streams under a memory
  /// command issued before it (a message's first packet's), so it does not pass the MMU again.
  Stream write(Engine engine, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap, bool command = true);
  SimTime read_done(Engine e, SimTime now, std::uint64_t addr, Bytes b) { return read(e, now, addr, b, kNoCap).last; }
  SimTime write_done(Engine e, SimTime now, std::uint64_t addr, Bytes b)
  {
    return write(e, now, addr, b, kNoCap).last;
  }
  /// A write of `b` bytes that came in from `from` to `now` (a message arriving at flow fidelity): all but its
  /// last `tail` bytes were written as they came, at the write path's bandwidth, alongside what the path did
  /// meanwhile; the last `tail` bytes are written now, after what the path holds. Returns when all is in.
  SimTime write_streamed(Engine e, SimTime from, SimTime now, std::uint64_t addr, Bytes b, Bytes tail,
                         bool command = true);
  /// Host DMA of `b` bytes from host memory into device memory (an XRT sync to the device): PCIe read
  /// feeding the device write port; returns when the last byte is in device memory.
  /// `cap` limits the transfer's rate (a driver path slower than the link).
  SimTime dma_to_device(SimTime now, Bytes b, BitsPerSecond cap = BitsPerSecond{1e18});
  /// Device memory to host memory (an XRT sync from the device); returns when the last byte is in host memory.
  SimTime dma_to_host(SimTime now, Bytes b, BitsPerSecond cap = BitsPerSecond{1e18});
  /// One descriptor of a host DMA (to the device or to the host): `next` is when the engine may issue the next
  /// descriptor (its source stage is free, and its destination stage is not behind by more than the source's
  /// latency);
  /// `last` is when its last byte is in the destination.
  struct DmaStep {
    SimTime next;
    SimTime last;
  };
  DmaStep dma_step(bool to_device, SimTime now, Bytes b, BitsPerSecond cap);
  const MemoryPort& engine(Engine e) const { return engines_[static_cast<int>(e)]; }
  /// The rate engine `e` reads (writes) `addr` at: its device-memory port's, or for host memory the PCIe direction's
  /// (a host request never passes the device-memory path).
  BitsPerSecond read_rate(Engine e, std::uint64_t addr) const
  {
    return is_host(addr) ? pcie_read_.bandwidth() : engine(e).bandwidth();
  }
  BitsPerSecond write_rate(Engine e, std::uint64_t addr) const
  {
    return is_host(addr) ? pcie_write_.bandwidth() : engine(e).bandwidth();
  }
  const MemoryPort& pcie_read() const { return pcie_read_; }
  const MemoryPort& pcie_write() const { return pcie_write_; }
  /// The shared device-memory channel (nullptr: each engine has its own).
  const MemoryPort* channel() const { return channel_ ? &*channel_ : nullptr; }
  /// Coyote's MMU (nullptr: not modeled).
  const CoyoteMmu* mmu() const { return mmu_ ? &*mmu_ : nullptr; }
  /// The MMU (if any) follows `s`'s present (CoyoteMmu::follow).
  void follow(Scheduler& s)
  {
    if (mmu_)
      mmu_->follow(s);
  }
  std::uint64_t device_bytes_read() const;
  std::uint64_t device_bytes_written() const;

  static constexpr BitsPerSecond kNoCap{1e18};

private:
  Stream access(Engine e, MemoryPort& pcie, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap);
  /// access() through the MMU when it is modeled and `e` goes through it.
  Stream translated(Engine e, MemoryPort& pcie, SimTime now, std::uint64_t addr, Bytes b, BitsPerSecond cap);
  /// A device-memory access by engine `e`: through the shared channel first when there is one.
  Stream device(Engine e, SimTime now, Bytes b, BitsPerSecond cap);
  std::array<MemoryPort, static_cast<int>(Engine::Count)> engines_;
  MemoryPort pcie_read_;
  MemoryPort pcie_write_;
  std::optional<MemoryPort> channel_;
  std::optional<CoyoteMmu> mmu_;
};

} // namespace nafsim::nodes
