// The CCLO's data mover engine-free (a Scheduler run standalone, a MemorySystem, an RxBufferManager and a Tx system
// that records what it is handed): a move larger than an Rx buffer as dma_mover.cpp runs it. An eager result leaves
// as one message per Rx buffer's worth, each with the next sequence number; an operand "on receive" reads its Rx
// buffers one after the other, its result starting once the last has come; sequence numbers are taken as moves are
// decoded; the buffers it holds and the 64-deep release FIFO can stop it, and that is diagnosed. Host memory is reached
// at PCIe's rate, whatever the device memory's.
#include "nodes/cclo/DataMover.hpp"
#include "nodes/memory/MemorySystem.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace nafsim;
using namespace nafsim::nodes;

namespace {

constexpr Hertz kClock{250e6};
constexpr std::uint32_t kFrom = 7, kTo = 9;

struct Sent {
  std::uint32_t peer;
  std::uint64_t seq, bytes;
  Stream data;
  std::function<void()> accepted;
};

/// A Tx system that records the messages it is handed; the test accepts them.
struct RecordingTx final : TxSystem {
  std::vector<Sent> sent;
  void send_eager(std::uint32_t peer, std::uint64_t seq, std::uint64_t bytes, Stream data, std::vector<std::byte>,
                  std::function<void()> accepted, int) override
  {
    sent.push_back({peer, seq, bytes, data, std::move(accepted)});
  }
  void write_rendezvous(std::uint32_t, std::uint64_t, std::uint64_t, Stream, std::vector<std::byte>,
                        std::function<void()>) override
  {
    ADD_FAILURE() << "no rendezvous write expected";
  }
};

struct Dmp {
  explicit Dmp(unsigned buffers, std::uint64_t size, const MemoryConfig& device = {})
      : rbm(RxBufferConfig{buffers, Bytes{size}}, 1ull << 30), mem(device, PcieConfig{}),
        dmp(DmpConfig{}, 8, kClock, sched, mem, rbm, tx, nullptr)
  {
    dmp.on_deadlock([this](std::string why, bool fifo) { deadlock = std::move(why), stuck_fifo = fifo; });
  }
  /// At `t`, message `seq` (of `bytes`) from kFrom completes in an Rx buffer.
  void arrive(SimTime t, std::uint64_t seq, std::uint64_t bytes)
  {
    sched.call_at(t, [this, seq, bytes] {
      auto i = rbm.take_free();
      ASSERT_TRUE(i) << "no free Rx buffer for message " << seq;
      rbm.filled(*i, kFrom, seq, bytes);
      dmp.rx_arrived();
    });
  }
  Scheduler sched;
  RxBufferManager rbm;
  MemorySystem mem;
  RecordingTx tx;
  DataMover dmp;
  std::string deadlock;
  bool stuck_fifo = false;
};

/// A move relaying `bytes` of float32 from kFrom's Rx buffers on to kTo (the eager gather's and reduce's relays).
Move relay(std::uint64_t bytes)
{
  Move m;
  m.op1   = Operand{OperandKind::RxBuffer, 0, kFrom, 0, false};
  m.res   = ResultKind::Eager;
  m.peer  = kTo;
  m.count = bytes / 4;
  return m;
}

} // namespace

TEST(DataMover, AnEagerResultLeavesAsOneMessagePerRxBufferEachWithTheNextSequenceNumber)
{
  // eth_cmd_execute: seg_len = min(len, max_seg_len), one header and sequence number each; the move's status comes
  // with the last message's (eth_ack_execute waits for `last`).
  Dmp d(4, 1024);
  Move m;
  m.op0   = Operand{OperandKind::Memory, 0x1000, 0, 0, false};
  m.res   = ResultKind::Eager;
  m.peer  = kTo;
  m.count = 1000; // 4000 B: three full buffers and 928 B
  bool done = false;
  d.dmp.submit(m, [&] { done = true; });
  d.dmp.submit(m, [] {}); // the next move's messages continue the numbering
  d.sched.run_standalone();
  ASSERT_EQ(d.tx.sent.size(), 8u);
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_EQ(d.tx.sent[k].peer, kTo);
    EXPECT_EQ(d.tx.sent[k].seq, k + 1) << k;
    EXPECT_EQ(d.tx.sent[k].bytes, k % 4 == 3 ? 928u : 1024u) << k;
  }
  // The pieces follow one another in the move's stream.
  for (std::size_t k = 1; k < 4; ++k)
    EXPECT_EQ(d.tx.sent[k].data.first, d.tx.sent[k - 1].data.last) << k;
  EXPECT_EQ(d.dmp.counters().moves, 2u) << "one move each, however many messages";
  for (std::size_t k = 0; k < 3; ++k)
    d.tx.sent[k].accepted();
  EXPECT_FALSE(done) << "the move is not over before its last message is accepted";
  d.tx.sent[3].accepted();
  EXPECT_TRUE(done);
}

TEST(DataMover, AMoveOnReceiveStartsOnlyOnceItsLastRxBufferHasCome)
{
  // instruction_decode seeks the move's Rx buffers one after the other and writes its result's command after the
  // loop: the relay of a block of four buffers arriving 1 us apart sends nothing before the fourth is there, then
  // cuts it again into four messages; all four buffers are held until the move ends.
  Dmp d(8, 1024);
  bool done = false;
  d.dmp.submit(relay(4096), [&] { done = true; });
  for (std::uint64_t k = 1; k <= 4; ++k)
    d.arrive(SimTime::us(static_cast<double>(k)), k, 1024);
  std::size_t held_before_last = 0, held_after_last = 0;
  d.sched.call_at(SimTime::us(3.5), [&] { held_before_last = d.rbm.in_use(); });
  d.sched.call_at(SimTime::us(4) + SimTime::ns(20), [&] { held_after_last = d.rbm.in_use(); });
  d.sched.run_standalone();
  EXPECT_EQ(held_before_last, 3u) << "the first three pieces are found and held while the fourth is awaited";
  EXPECT_EQ(held_after_last, 4u) << "the buffers are freed as the move ends, not piece by piece";
  ASSERT_EQ(d.tx.sent.size(), 4u);
  EXPECT_GT(d.tx.sent[0].data.first, SimTime::us(4)) << "nothing leaves before the last piece has come";
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_EQ(d.tx.sent[k].bytes, 1024u);
  EXPECT_EQ(d.dmp.counters().moves, 1u);
  EXPECT_EQ(d.rbm.in_use(), 0u) << "all four freed once read";
  for (auto& s : d.tx.sent)
    s.accepted();
  EXPECT_TRUE(done);
}

TEST(DataMover, SequenceNumbersAreTakenAsMovesAreDecoded)
{
  // Two relays issued back to back from the same source: the first takes messages 1-2, the second 3 (the
  // sequence numbers the firmware could not know when it issued them, the pieces being the data mover's to count).
  Dmp d(8, 1024);
  d.dmp.submit(relay(2048), [] {});
  d.dmp.submit(relay(512), [] {});
  d.arrive(SimTime::us(1), 3, 512); // the second move's message first: it waits in its buffer
  d.arrive(SimTime::us(2), 1, 1024);
  d.arrive(SimTime::us(3), 2, 1024);
  d.sched.run_standalone();
  ASSERT_EQ(d.tx.sent.size(), 3u);
  EXPECT_EQ(d.tx.sent[0].bytes + d.tx.sent[1].bytes, 2048u);
  EXPECT_EQ(d.tx.sent[2].bytes, 512u);
  EXPECT_EQ(d.deadlock, "");
}

TEST(DataMover, AMoveNeedingMoreRxBuffersThanThereAreIsADiagnosedDeadlock)
{
  // Three Rx buffers, a block of four: the move holds the first three and waits for the fourth, which can never
  // land. The hardware hangs; the model says why.
  Dmp d(3, 1024);
  d.dmp.submit(relay(4096), [] {});
  for (std::uint64_t k = 1; k <= 3; ++k)
    d.arrive(SimTime::us(static_cast<double>(k)), k, 1024);
  d.sched.run_standalone();
  EXPECT_NE(d.deadlock.find("Rx-buffer deadlock"), std::string::npos) << d.deadlock;
  EXPECT_NE(d.deadlock.find("the move's earlier pieces"), std::string::npos) << d.deadlock;
  EXPECT_NE(d.dmp.waiting().find("holding 3 for the move's earlier pieces"), std::string::npos) << d.dmp.waiting();
}

TEST(DataMover, AMoveOfMoreThanSixtyFourRxBuffersIsStuck)
{
  // The release FIFO holds 64 indices and only the move's end drains it: a 65th piece blocks the decode for good,
  // Rx buffers to spare or not.
  Dmp d(80, 64);
  d.dmp.submit(relay(65 * 64), [] {});
  for (std::uint64_t k = 1; k <= 65; ++k)
    d.arrive(SimTime::ns(static_cast<double>(10 * k)), k, 64);
  d.sched.run_standalone();
  EXPECT_NE(d.deadlock.find("64-deep FIFO"), std::string::npos) << d.deadlock;
  EXPECT_TRUE(d.stuck_fifo);
  EXPECT_TRUE(d.tx.sent.empty());

  Dmp ok(80, 64); // 64 pieces are allowed
  ok.dmp.submit(relay(64 * 64), [] {});
  for (std::uint64_t k = 1; k <= 64; ++k)
    ok.arrive(SimTime::ns(static_cast<double>(10 * k)), k, 64);
  ok.sched.run_standalone();
  EXPECT_EQ(ok.deadlock, "");
  EXPECT_EQ(ok.tx.sent.size(), 64u);
}

namespace {
/// When a 1 MiB copy from device memory into `res_addr` is over, with the device memory's engines writing at `write`.
SimTime copy_done(std::uint64_t res_addr, BitsPerSecond write)
{
  MemoryConfig device;
  device.write_bandwidth = write;
  Dmp d(4, 1024, device);
  Move m;
  m.op0      = Operand{OperandKind::Memory, 0x1000, 0, 0, false};
  m.res      = ResultKind::Memory;
  m.res_addr = res_addr;
  m.count    = (1u << 20) / 4;
  SimTime done = SimTime::zero();
  d.dmp.submit(m, [&] { done = d.sched.now(); });
  d.sched.run_standalone();
  return done;
}
} // namespace

TEST(MemorySystem, HostMemoryIsReachedAtPciesRateNotTheDeviceMemorys)
{
  // On Coyote a host request leaves the user logic on a host stream into the XDMA channel: the device memory's path
  // (and its rates, calibrated on HBM copies) is not on its way.
  MemoryConfig device;
  device.read_bandwidth  = BitsPerSecond{40e9};
  device.write_bandwidth = BitsPerSecond{50e9};
  const PcieConfig pcie; // 104 Gb/s each way
  MemorySystem mem(device, pcie);
  const Bytes mib{1u << 20};
  const std::uint64_t host = kHostMemory | 0x1000;
  EXPECT_EQ(mem.write_done(Engine::ResWrite, SimTime::zero(), host, mib), pcie.write_latency + transmit_time(mib, pcie.bandwidth));
  EXPECT_EQ(mem.read_done(Engine::Op0Read, SimTime::zero(), host, mib), pcie.read_latency + transmit_time(mib, pcie.bandwidth));
  EXPECT_EQ(mem.write_done(Engine::PoeWrite, SimTime::zero(), 0x1000, mib),
            device.write_latency + transmit_time(mib, device.write_bandwidth));
  EXPECT_EQ(mem.read_rate(Engine::Op0Read, host).bps, pcie.bandwidth.bps);
  EXPECT_EQ(mem.write_rate(Engine::ResWrite, 0x1000).bps, device.write_bandwidth.bps);
  // A message that came in over 100 us (flow fidelity) into host memory: all but its last 4 KiB were written as they
  // came, at PCIe's rate, so they are in when it ends; the last 4 KiB follow.
  MemorySystem fresh(device, pcie);
  const Bytes tail{4096};
  EXPECT_EQ(fresh.write_streamed(Engine::PoeWrite, SimTime::zero(), SimTime::us(100), host, mib, tail),
            SimTime::us(100) + pcie.write_latency + transmit_time(tail, pcie.bandwidth));
}

TEST(DataMover, AMoveIntoHostMemoryIsPacedByPcieNotByTheDeviceMemorysWriteRate)
{
  const std::uint64_t host = kHostMemory | 0x100000;
  const SimTime host_slow = copy_done(host, BitsPerSecond{50e9}), host_fast = copy_done(host, BitsPerSecond{128e9});
  EXPECT_EQ(host_slow, host_fast) << "the device memory's write rate paced a copy into host memory";
  // Into device memory the write rate is the bottleneck at 50 Gb/s (the read, the datapath and PCIe are faster).
  const SimTime device_slow = copy_done(0x100000, BitsPerSecond{50e9});
  EXPECT_GT(device_slow, host_slow + SimTime::us(60)) << "1 MiB at 50 against 104 Gb/s: 87 us more";
}
