#pragma once
// A train (platform.network.fast_forward, simcore/net/README.md): consecutive request packets of one message that
// cross the fabric back to back as one transmission, in one event per hop and one at the receiver, instead of one
// each. Only packets after a message's first may ride (the first carries the RETH and the application header, and a
// SEND's first may be refused by an RNR NAK): every member but the last is then a full-MTU middle packet, so the
// train is carried by its last member alone and the receiver rebuilds the others from it, bit for bit as the
// requester made them (Requester::peek).

#include "protocols/roce/Wire.hpp"

namespace nafsim::roce {

/// Whether `r` may ride in a train: a SEND or WRITE data packet other than its message's first.
bool may_ride(const RequestPacket& r);
/// Whether `next` is the packet right after `prev` in the same message (the next PSN, the next MTU of its bytes).
bool rides_after(const RequestPacket& prev, const RequestPacket& next, std::uint64_t mtu);
/// Member `i` of `count` of the train carried by `last` (its last member, i = count - 1).
RequestPacket train_member(const RequestPacket& last, std::uint32_t i, std::uint32_t count, std::uint64_t mtu);

} // namespace nafsim::roce
