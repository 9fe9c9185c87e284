#pragma once
// How eager transfers are cut to Rx-buffer size: the firmware's segmentation, used by the schedules' builders and by
// the CCLO's firmware alike.

#include <cstdint>
#include <utility>
#include <vector>

namespace nafsim::coll {

/// (offset, count) pieces of `count` elements in segments of `seg` elements (one piece if seg is 0 or
/// count <= seg; one empty piece if count is 0): how eager transfers are cut to Rx-buffer size.
std::vector<std::pair<std::uint64_t, std::uint64_t>> segments(std::uint64_t count, std::uint64_t seg);

} // namespace nafsim::coll
