#include "protocols/collectives/Selection.hpp"

#include <stdexcept>

namespace nafsim::coll {

namespace {

Algorithm reduce_choice(const CollectiveCall& c, std::uint64_t bytes, const CcloTuning& t)
{
  return (static_cast<unsigned>(c.size) <= t.reduce_flat_tree_max_ranks || bytes <= t.reduce_flat_tree_max_count)
             ? Algorithm::Flat
             : Algorithm::Binomial;
}

Algorithm bcast_choice(const CollectiveCall& c, const CcloTuning& t)
{
  return static_cast<unsigned>(c.size) > t.bcast_flat_tree_max_ranks ? Algorithm::Binomial : Algorithm::Flat;
}

} // namespace

Selection cclo_select(const CollectiveCall& c, const CcloTuning& t, bool compressed, bool streamed,
                      std::optional<Protocol> force_protocol, std::optional<Algorithm> force_algorithm)
{
  Selection s;
  const std::uint64_t bytes = c.bytes();
  bool plain                = !compressed && !streamed;
  if (c.collective == Collective::AllToAll)
    s.protocol = plain ? Protocol::Rendezvous : Protocol::Eager;
  else if (c.collective == Collective::Barrier)
    s.protocol = Protocol::Rendezvous; // notifications through the rendezvous path
  else
    s.protocol = (bytes > t.max_eager_size && plain) ? Protocol::Rendezvous : Protocol::Eager;
  if (force_protocol)
    s.protocol = *force_protocol;
  bool rndzv = s.protocol == Protocol::Rendezvous;

  switch (c.collective) {
    case Collective::Send:
    case Collective::Recv:
    case Collective::Copy:
    case Collective::Combine:
    case Collective::Nop: s.algorithm = Algorithm::Direct; break;
    case Collective::Bcast: s.algorithm = rndzv ? bcast_choice(c, t) : Algorithm::Flat; break;
    case Collective::Scatter: s.algorithm = Algorithm::Flat; break;
    case Collective::Gather: s.algorithm = rndzv ? Algorithm::Flat : Algorithm::Ring; break;
    case Collective::AllGather: s.algorithm = Algorithm::Ring; break;
    case Collective::Reduce: s.algorithm = rndzv ? reduce_choice(c, bytes, t) : Algorithm::Ring; break;
    case Collective::AllReduce: s.algorithm = rndzv ? Algorithm::ReduceBcast : Algorithm::Ring; break;
    case Collective::ReduceScatter: s.algorithm = rndzv ? Algorithm::ReduceScatterComposite : Algorithm::Ring; break;
    case Collective::AllToAll: s.algorithm = Algorithm::Flat; break;
    case Collective::Barrier: s.algorithm = Algorithm::Flat; break;
  }
  if (force_algorithm) {
    if (auto why = check_applicable(c, *force_algorithm); !why.empty())
      throw std::invalid_argument(why);
    s.algorithm = *force_algorithm;
  }
  // Eager messages are cut into segments of an Rx buffer's size in uncompressed elements (the firmware's
  // eager_rx_buf_size / datatype_nbytes, compressed or not: a compressed segment fills half a buffer).
  s.options.segment_elems = rndzv ? 0 : t.rx_buffer_size / c.elem_bytes;
  s.options.gather_fanin  = bytes > t.gather_flat_tree_max_count ? t.gather_flat_tree_max_fanin : 0;
  // Composites decide their parts the way the firmware's reduce() and broadcast() do on the same call, by the call's
  // protocol: rendezvous, the tuning registers' trees; eager (a composite forced onto an eager call: the firmware
  // runs one only in rendezvous), their eager algorithms, the ring chain and the flat segmented broadcast, which read
  // no register. (The firmware's reduce_scatter decides its reduce part's protocol on count x ranks; a schedule
  // carries one protocol, the call's.)
  std::uint64_t reduce_bytes =
      c.collective == Collective::ReduceScatter ? bytes * static_cast<std::uint64_t>(c.size) : bytes;
  s.options.reduce_sub = rndzv ? reduce_choice(c, reduce_bytes, t) : Algorithm::Ring;
  s.options.bcast_sub  = rndzv ? bcast_choice(c, t) : Algorithm::Flat;
  return s;
}

} // namespace nafsim::coll
