// TagOrderWatch (nodes/cclo/TagOrderWatch.hpp): the hardware numbers a peer's eager messages per peer, so a receiver
// that takes them under tags in another order than they were sent is found, at the first such message.
#include "nodes/cclo/TagOrderWatch.hpp"

#include <gtest/gtest.h>

using nafsim::nodes::TagOrderWatch;

TEST(TagOrderWatch, MessagesTakenInTheirSendingOrderAreFine)
{
  TagOrderWatch w;
  for (std::uint32_t tag : {1u, 2u, 1u, 1u, 2u})
    w.sent(0, 4, tag);
  w.sent(4, 0, 7); // the other direction is a pair of its own
  for (std::uint32_t tag : {1u, 2u, 1u})
    w.taken(0, 4, tag);
  w.taken(4, 0, 7);
  EXPECT_FALSE(w.miss().has_value());
}

// Host 0 sends a slice (tag 1) then a partial (tag 2) to host 4, which takes the partial first: the hardware's seek
// for message 1 under tag 2 finds message 1 under tag 1 and never matches.
TEST(TagOrderWatch, AMessageTakenUnderAnotherTagThanTheOneSentWithItsNumberIsFound)
{
  TagOrderWatch w;
  w.sent(0, 4, 1);
  w.sent(0, 4, 1);
  w.sent(0, 4, 2);
  w.sent(0, 4, 1);
  w.taken(0, 4, 1);
  w.taken(0, 4, 2); // the model's per-tag numbering gives it the partial; the hardware's message 2 is a slice
  w.taken(0, 4, 1);
  ASSERT_TRUE(w.miss().has_value());
  EXPECT_EQ(w.miss()->from, 0u);
  EXPECT_EQ(w.miss()->to, 4u);
  EXPECT_EQ(w.miss()->message, 2u);
  EXPECT_EQ(w.miss()->sent_tag, 1u);
  EXPECT_EQ(w.miss()->taken_tag, 2u);
  w.taken(0, 4, 1); // later ones do not replace the first
  EXPECT_EQ(w.miss()->message, 2u);
}

// A collective's message (tag 0, ACCL's TAG_ANY) matches any seek, and a receive under tag 0 may be another
// communicator's (the hardware counts per communicator): neither is judged.
TEST(TagOrderWatch, TheCollectivesTagIsNotJudged)
{
  TagOrderWatch w;
  w.sent(0, 4, 0);
  w.sent(0, 4, 1);
  w.taken(0, 4, 1);
  w.taken(0, 4, 0);
  EXPECT_FALSE(w.miss().has_value());
}
