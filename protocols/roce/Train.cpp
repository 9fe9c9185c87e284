#include "protocols/roce/Train.hpp"

namespace nafsim::roce {

namespace {
bool middle_or_last(Opcode o)
{
  return o == Opcode::SendMiddle || o == Opcode::SendLast || o == Opcode::WriteMiddle || o == Opcode::WriteLast;
}
bool is_send(Opcode o)
{
  return o == Opcode::SendFirst || o == Opcode::SendMiddle || o == Opcode::SendLast || o == Opcode::SendOnly;
}
} // namespace

bool may_ride(const RequestPacket& r)
{
  return middle_or_last(r.op);
}

bool rides_after(const RequestPacket& prev, const RequestPacket& next, std::uint64_t mtu)
{
  return may_ride(next) && !is_last(prev.op) && is_send(prev.op) == is_send(next.op) && next.dst_qp == prev.dst_qp &&
         next.psn == psn_add(prev.psn, 1) && next.data.msg == prev.data.msg &&
         prev.data.length == mtu && next.data.offset == prev.data.offset + mtu;
}

RequestPacket train_member(const RequestPacket& last, std::uint32_t i, std::uint32_t count, std::uint64_t mtu)
{
  if (i + 1 >= count)
    return last;
  const std::uint32_t back = count - 1 - i;
  RequestPacket m;
  m.dst_qp = last.dst_qp;
  m.psn    = psn_add(last.psn, -static_cast<std::int64_t>(back));
  m.op     = is_send(last.op) ? Opcode::SendMiddle : Opcode::WriteMiddle;
  m.data   = make_segment(last.data.msg, last.data.offset - back * mtu, static_cast<std::uint32_t>(mtu));
  return m;
}

} // namespace nafsim::roce
