// The MPI library's receive queue (nodes/host/ReceiveQueue.hpp) on a fake clock: posted receives and the bounce
// buffers behind them, as UCX's shared receive queue keeps them.
#include "nodes/host/ReceiveQueue.hpp"

#include <gtest/gtest.h>

using namespace nafsim;
using nafsim::nodes::ReceiveQueue;

// Matched arrivals give their receive back when they are copied out: two posted receives take a third arrival only
// after one is released, and the buffers come back in the order released.
TEST(ReceiveQueue, AMatchedArrivalPostsItsReceiveAgainWhenCopiedOut)
{
  ReceiveQueue q(2);
  const SimTime t0 = SimTime::us(1);
  auto a           = q.take(t0);
  auto b           = q.take(t0);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 0u);
  EXPECT_EQ(*b, 1u);
  EXPECT_FALSE(q.take(t0)) << "no receive posted: RNR";
  q.release(*a);
  auto c = q.take(t0);
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, *a);
  EXPECT_EQ(q.max_in_use(), 2u);
  EXPECT_EQ(q.max_held(), 0u);
}

// An unexpected arrival keeps its buffer but its receive is posted again with a fresh buffer at the poll: with two
// posted receives, any number of unexpected arrivals are taken as long as the CPU polls each before the next comes
// (holding a posted receive per unexpected message, the third was refused for ever: the receiver's ranks post their
// receives in an order that needs the later arrivals first).
TEST(ReceiveQueue, UnexpectedArrivalsHoldBuffersNotPostedReceives)
{
  ReceiveQueue q(2);
  std::vector<std::uint32_t> held;
  for (int i = 0; i < 10; ++i) {
    const SimTime now = SimTime::us(i);
    auto buf          = q.take(now);
    ASSERT_TRUE(buf) << "arrival " << i;
    q.hold(*buf, now + SimTime::ns(100)); // polled 100 ns later
    held.push_back(*buf);
  }
  EXPECT_EQ(q.max_held(), 10u);
  EXPECT_EQ(q.max_buffers(), 10u) << "the memory: every held buffer and none besides";
  EXPECT_EQ(q.max_in_use(), 1u) << "each receive was posted again before the next arrival";
  for (std::size_t i = 0; i < held.size(); ++i)
    for (std::size_t j = i + 1; j < held.size(); ++j)
      EXPECT_NE(held[i], held[j]) << "a held buffer is not given to another arrival";
  // Matched and copied out: the buffers go back to the pool and are taken again, the posted receives unchanged.
  for (auto b : held)
    q.release(b);
  auto again = q.take(SimTime::us(20));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, held.back());
  EXPECT_EQ(q.max_held(), 10u);
}

// The repost waits for the poll: arrivals faster than the CPU polls find the queue empty until the poll's date.
TEST(ReceiveQueue, AReceiveHandedBackIsPostedOnlyAtThePoll)
{
  ReceiveQueue q(1);
  auto a = q.take(SimTime::us(1));
  ASSERT_TRUE(a);
  q.hold(*a, SimTime::us(5)); // the CPU is busy until 5 us
  EXPECT_FALSE(q.take(SimTime::us(4)));
  auto b = q.take(SimTime::us(5));
  ASSERT_TRUE(b);
  EXPECT_NE(*b, *a);
  // Releasing the held buffer does not post a second receive: the queue's length stays one.
  q.release(*a);
  EXPECT_FALSE(q.take(SimTime::us(6)));
  q.release(*b);
  EXPECT_TRUE(q.take(SimTime::us(6)));
}

// A held buffer released before its receive's repost falls due: the buffer is free at once, the receive only at the
// poll's date, and the queue's length is kept (neither counted twice nor lost).
TEST(ReceiveQueue, AHeldBufferReleasedBeforeItsPollKeepsTheQueuesLength)
{
  ReceiveQueue q(2);
  auto a = q.take(SimTime::us(1));
  auto b = q.take(SimTime::us(1));
  ASSERT_TRUE(a && b);
  q.hold(*a, SimTime::us(10));
  q.release(*a); // matched and copied out before the poll's date (not a path MpiProcess takes: robustness)
  EXPECT_FALSE(q.take(SimTime::us(5))) << "the receive comes back at 10 us, not with the buffer";
  auto c = q.take(SimTime::us(10));
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, *a) << "the buffer went back to the pool";
  EXPECT_FALSE(q.take(SimTime::us(10))) << "two posted receives, both taken";
  q.release(*b);
  q.release(*c);
  EXPECT_TRUE(q.take(SimTime::us(11)));
  EXPECT_TRUE(q.take(SimTime::us(11)));
  EXPECT_FALSE(q.take(SimTime::us(11)));
}
