// A run's shared copies of equal configurations (simcore/engine/Interned.hpp), engine-free.
#include "simcore/engine/Interned.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace nafsim;

namespace {

struct Settings {
  int rate = 0;
  std::vector<int> timeouts;
  bool operator==(const Settings&) const = default;
};

} // namespace

TEST(Interned, EqualValuesShareOneCopyPerRunAndDifferentOnesDoNot)
{
  Scheduler run;
  const Settings a{1, {10, 20}};
  const Settings& first = intern(run, a);
  EXPECT_EQ(&first, &intern(run, Settings{1, {10, 20}})); // an equal value: the same copy
  const Settings& other = intern(run, Settings{1, {10, 30}});
  EXPECT_NE(&other, &first); // a different value (a vector's element): its own copy, the first one untouched
  EXPECT_EQ(other.timeouts.back(), 30);
  EXPECT_EQ(first, a);
  for (int i = 0; i < 100; ++i) // the copies handed out never move as more are made
    intern(run, Settings{i + 2, {}});
  EXPECT_EQ(&first, &intern(run, a));
  EXPECT_EQ(first.timeouts, (std::vector<int>{10, 20}));
  Scheduler another;
  EXPECT_NE(&intern(another, a), &first); // per run
}
