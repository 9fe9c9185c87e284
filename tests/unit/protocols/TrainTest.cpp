// Trains (protocols/roce/Train.hpp): the receiver rebuilds every member of a train from its last one, bit for bit as
// the requester made them, and only packets after a message's first ride.
#include "protocols/roce/Requester.hpp"
#include "protocols/roce/Train.hpp"

#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::roce;

namespace {

/// Every packet the requester sends for one message of `len` bytes, in order.
std::vector<RequestPacket> packets_of(Verb v, std::uint64_t len, Psn first_psn = 0)
{
  RoceConfig cfg;
  Requester req(cfg, 2, first_psn);
  Actions acts;
  req.post(WorkRequest{1, v, 0x1000, 0x8000, len, 77, AppHeader{1, 2, 3, 4}}, SimTime{}, acts);
  std::vector<RequestPacket> out;
  while (auto p = req.peek(SimTime{})) {
    out.push_back(*p);
    req.commit(SimTime{}, acts);
  }
  return out;
}

bool same(const RequestPacket& a, const RequestPacket& b)
{
  return a.dst_qp == b.dst_qp && a.psn == b.psn && a.op == b.op && a.ack_req == b.ack_req &&
         a.remote_addr == b.remote_addr && a.length == b.length && a.data.msg == b.data.msg &&
         a.data.offset == b.data.offset && a.data.length == b.data.length && a.data.checksum == b.data.checksum &&
         a.header == b.header;
}

} // namespace

TEST(Train, EveryMemberIsRebuiltFromTheLastAsTheRequesterMadeIt)
{
  const std::uint64_t mtu = RoceConfig{}.mtu.count;
  // A short last packet, PSNs across the 24-bit wrap, both verbs that stream.
  for (Verb v : {Verb::Write, Verb::Send}) {
    auto pkts = packets_of(v, 10 * mtu + 123, kPsnMask - 4);
    ASSERT_EQ(pkts.size(), 11u);
    EXPECT_FALSE(may_ride(pkts[0])); // the first carries the RETH / the header, and may be refused
    for (std::size_t from = 1; from < pkts.size(); ++from)
      for (std::size_t to = from + 1; to <= pkts.size(); ++to) { // members [from, to)
        const auto count = static_cast<std::uint32_t>(to - from);
        for (std::size_t i = from; i + 1 < to; ++i)
          ASSERT_TRUE(rides_after(pkts[i], pkts[i + 1], mtu)) << i;
        for (std::uint32_t i = 0; i < count; ++i)
          ASSERT_TRUE(same(train_member(pkts[to - 1], i, count, mtu), pkts[from + i]))
              << "verb " << static_cast<int>(v) << " train [" << from << ", " << to << ") member " << i;
      }
  }
}

TEST(Train, NothingRidesAcrossAMessageOrAfterItsLastPacket)
{
  const std::uint64_t mtu = RoceConfig{}.mtu.count;
  auto a                  = packets_of(Verb::Write, 3 * mtu);
  auto b                  = packets_of(Verb::Write, 3 * mtu);
  for (auto& p : b) {
    p.data.msg = 78;
    p.psn      = psn_add(p.psn, 3);
  }
  EXPECT_FALSE(rides_after(a[2], b[1], mtu)); // a's last packet ends its message
  EXPECT_FALSE(rides_after(a[1], b[1], mtu)); // another message
  EXPECT_FALSE(rides_after(a[0], a[2], mtu)); // not the next packet
  EXPECT_FALSE(may_ride(packets_of(Verb::Write, mtu)[0])); // an only packet
  EXPECT_FALSE(may_ride(packets_of(Verb::Read, 4 * mtu)[0])); // a READ request
}
