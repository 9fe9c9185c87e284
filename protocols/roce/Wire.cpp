#include "protocols/roce/Wire.hpp"

namespace nafsim::roce {

Opcode opcode_for(Verb v, std::uint32_t index, std::uint32_t count)
{
  bool first = index == 0;
  bool last  = index + 1 == count;
  switch (v) {
    case Verb::Send:
      return first && last ? Opcode::SendOnly : first ? Opcode::SendFirst : last ? Opcode::SendLast : Opcode::SendMiddle;
    case Verb::Write:
      return first && last ? Opcode::WriteOnly
                           : first ? Opcode::WriteFirst : last ? Opcode::WriteLast : Opcode::WriteMiddle;
    case Verb::Read:
      return first && last ? Opcode::ReadResponseOnly
                           : first ? Opcode::ReadResponseFirst
                                   : last ? Opcode::ReadResponseLast : Opcode::ReadResponseMiddle;
  }
  return Opcode::SendOnly;
}

const char* opcode_name(Opcode o)
{
  switch (o) {
    case Opcode::SendFirst: return "SEND_FIRST";
    case Opcode::SendMiddle: return "SEND_MIDDLE";
    case Opcode::SendLast: return "SEND_LAST";
    case Opcode::SendOnly: return "SEND_ONLY";
    case Opcode::WriteFirst: return "WRITE_FIRST";
    case Opcode::WriteMiddle: return "WRITE_MIDDLE";
    case Opcode::WriteLast: return "WRITE_LAST";
    case Opcode::WriteOnly: return "WRITE_ONLY";
    case Opcode::ReadRequest: return "READ_REQUEST";
    case Opcode::ReadResponseFirst: return "READ_RESPONSE_FIRST";
    case Opcode::ReadResponseMiddle: return "READ_RESPONSE_MIDDLE";
    case Opcode::ReadResponseLast: return "READ_RESPONSE_LAST";
    case Opcode::ReadResponseOnly: return "READ_RESPONSE_ONLY";
  }
  return "?";
}

std::uint64_t l3_bytes(const Wire& w, const RoceConfig& cfg)
{
  struct Size {
    const RoceConfig& c;
    std::uint64_t operator()(const RequestPacket& r) const
    {
      bool reth = r.op == Opcode::WriteFirst || r.op == Opcode::WriteOnly || r.op == Opcode::ReadRequest;
      return c.base_header.count + (reth ? c.reth.count : 0) + r.data.length;
    }
    std::uint64_t operator()(const AckPacket&) const { return c.base_header.count + c.aeth.count; }
    std::uint64_t operator()(const ReadResponsePacket& r) const
    {
      bool aeth = r.op != Opcode::ReadResponseMiddle;
      return c.base_header.count + (aeth ? c.aeth.count : 0) + r.data.length;
    }
  };
  return std::visit(Size{cfg}, w);
}

Psn packet_psn(const Wire& w)
{
  return std::visit([](auto const& p) { return p.psn; }, w);
}

std::uint32_t packet_qp(const Wire& w)
{
  return std::visit([](auto const& p) { return p.dst_qp; }, w);
}

} // namespace nafsim::roce
