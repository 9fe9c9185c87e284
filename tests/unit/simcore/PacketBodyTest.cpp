// A packet's transport header, stored inside the packet (no heap allocation per packet).
#include "simcore/net/Packet.hpp"

#include <gtest/gtest.h>
#include <memory>
#include <variant>
#include <vector>

using nafsim::net::Packet;
using nafsim::net::PacketBody;

namespace {
struct Header {
  std::uint32_t qp = 0;
  std::uint64_t psn = 0;
};
struct Other {
  std::uint32_t qp = 0;
};
} // namespace

TEST(PacketBody, KeepsItsTypeAndValue)
{
  PacketBody b;
  EXPECT_FALSE(b.has_value());
  EXPECT_EQ(b.get<Header>(), nullptr);
  b = Header{7, 42};
  ASSERT_TRUE(b.holds<Header>());
  EXPECT_FALSE(b.holds<Other>());
  EXPECT_EQ(b.get<Other>(), nullptr) << "another type of the same layout is not taken for it";
  EXPECT_EQ(b.get<Header>()->psn, 42u);
  b = Other{3};
  EXPECT_EQ(b.get<Header>(), nullptr);
  EXPECT_EQ(b.get<Other>()->qp, 3u);
  using Wire = std::variant<Header, Other>;
  b = Wire{Other{9}};
  ASSERT_NE(b.get<Wire>(), nullptr);
  EXPECT_EQ(std::get<Other>(*b.get<Wire>()).qp, 9u);
}

TEST(PacketBody, CopiesMovesAndDestroysItsValue)
{
  auto alive = std::make_shared<int>(5); // counts the copies held
  struct Holder {
    std::shared_ptr<int> p;
    std::vector<int> v;
  };
  {
    Packet a;
    a.body = Holder{alive, {1, 2, 3}};
    EXPECT_EQ(alive.use_count(), 2);
    Packet dup = a; // a duplication fault copies the packet
    EXPECT_EQ(alive.use_count(), 3);
    dup.body.get<Holder>()->v.push_back(4);
    EXPECT_EQ(a.body.get<Holder>()->v.size(), 3u) << "a copy is its own value";
    Packet moved = std::move(a);
    EXPECT_EQ(alive.use_count(), 3);
    EXPECT_FALSE(a.body.has_value()); // NOLINT(bugprone-use-after-move): a moved-from body is empty
    EXPECT_EQ(moved.body.get<Holder>()->v.size(), 3u);
    moved.body = Header{1, 2}; // replacing a value destroys it
    EXPECT_EQ(alive.use_count(), 2);
    dup = moved;
    EXPECT_EQ(alive.use_count(), 1);
    EXPECT_EQ(dup.body.get<Header>()->psn, 2u);
  }
  EXPECT_EQ(alive.use_count(), 1);
}

TEST(PacketBody, MovesATriviallyCopyableValueAsBytes)
{
  // Wire formats are trivially copyable: moved by copying the body's bytes, the value and its type arrive whole and
  // the moved-from body is empty, by construction and by assignment.
  using Wire = std::variant<Header, Other>;
  Packet a;
  a.body = Wire{Header{11, 0x1234567890ULL}};
  Packet b = std::move(a);
  EXPECT_FALSE(a.body.has_value()); // NOLINT(bugprone-use-after-move)
  ASSERT_NE(b.body.get<Wire>(), nullptr);
  EXPECT_EQ(std::get<Header>(*b.body.get<Wire>()).psn, 0x1234567890ULL);
  Packet c;
  c.body = Other{4};
  c      = std::move(b);
  EXPECT_FALSE(b.body.has_value()); // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.body.get<Other>(), nullptr);
  EXPECT_EQ(std::get<Header>(*c.body.get<Wire>()).qp, 11u);
}
