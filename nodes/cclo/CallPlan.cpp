#include "nodes/cclo/CallPlan.hpp"
#include "nodes/cclo/CcloBuild.hpp"

#include "nodes/cclo/DataMover.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

using coll::Algorithm, coll::Collective;

coll::CcloTuning tuning_of(const CcloConfig& cfg)
{
  coll::CcloTuning t;
  auto const& g                = cfg.tuning;
  t.max_eager_size             = g.max_eager_size.count;
  t.rx_buffer_size             = cfg.rx_buffers.size.count;
  t.max_rendezvous_size        = g.max_rendezvous_size.count;
  t.bcast_flat_tree_max_ranks  = g.bcast_flat_tree_max_ranks;
  t.reduce_flat_tree_max_ranks = g.reduce_flat_tree_max_ranks;
  t.reduce_flat_tree_max_count = g.reduce_flat_tree_max_count.count != 0
                                     ? g.reduce_flat_tree_max_count.count
                                     : std::min<std::uint64_t>(g.max_rendezvous_size.count / g.reduce_flat_tree_max_ranks,
                                                               32 * 1024);
  t.gather_flat_tree_max_fanin = g.gather_flat_tree_max_fanin;
  t.gather_flat_tree_max_count = g.gather_flat_tree_max_count.count;
  return t;
}

bool firmware_runs(Collective c, Algorithm a, bool rndzv)
{
  switch (c) {
    case Collective::Send:
    case Collective::Recv:
    case Collective::Copy:
    case Collective::Combine:
    case Collective::Nop: return true;
    case Collective::Bcast: return a == Algorithm::Flat || (rndzv && a == Algorithm::Binomial);
    case Collective::Scatter: return a == Algorithm::Flat;
    case Collective::Gather: return a == (rndzv ? Algorithm::Flat : Algorithm::Ring);
    case Collective::AllGather: return a == Algorithm::Ring;
    case Collective::Reduce: return rndzv ? (a == Algorithm::Flat || a == Algorithm::Binomial) : a == Algorithm::Ring;
    case Collective::AllReduce: return a == (rndzv ? Algorithm::ReduceBcast : Algorithm::Ring);
    case Collective::ReduceScatter: return a == (rndzv ? Algorithm::ReduceScatterComposite : Algorithm::Ring);
    case Collective::AllToAll: return rndzv && a == Algorithm::Flat;
    case Collective::Barrier: return true;
  }
  return false;
}

namespace {
/// Elements one of the firmware's eager moves reads from the Rx buffers in one go (0: it cuts its blocks into
/// single Rx buffers itself): scatter(), gather(), allgather(), the reduce chain (fused_recv_reduce[_send]) and
/// reduce_scatter() receive a block per move; allreduce() cuts its own segments into chunks of an Rx buffer at most (a
/// streamed operand, one segment of the whole count, is refused on more than one rank: memory_only).
std::uint64_t eager_block(const coll::CollectiveCall& cc)
{
  if (cc.size < 2)
    return 0;
  switch (cc.collective) {
    case Collective::Scatter:
    case Collective::Gather:
    case Collective::AllGather:
    case Collective::Reduce:
    case Collective::ReduceScatter: return cc.count;
    default: return 0;
  }
}

/// Why a block of `block` elements cannot be read in one move by the data mover (dma_mover.cpp), or "". The Rx buffers
/// it fills: whole ones of its bytes on the wire, as the data mover cuts a block; but the eager reduce's first hop is
/// send(), which cuts segments of max_seg_count = eager_rx_buf_size / datatype_nbytes elements, datatype_nbytes the
/// uncompressed size (a compressed segment half fills its buffer), and the next rank reads them in one move.
/// `rendezvous`: whether the call could go rendezvous instead (an RDMA link, no compression, no stream).
std::string block_fits(const CcloCall& call, const CcloConfig& cfg, std::uint64_t block, bool rendezvous)
{
  const std::uint64_t size  = cfg.rx_buffers.size.count;
  const std::uint64_t bytes = block * (call.compress ? 2 : call.call.elem_bytes);
  const std::uint64_t seg   = std::max<std::uint64_t>(1, size / call.call.elem_bytes);
  const std::uint64_t n     = call.call.collective == Collective::Reduce ? (block + seg - 1) / seg
                                                                         : (bytes + size - 1) / size;
  const std::uint64_t most  = std::min<std::uint64_t>(DataMover::kMaxRxPieces, cfg.rx_buffers.count);
  if (n <= most)
    return {};
  const std::string what = fmt::format("the eager {} receives each block of {} in one data-mover move, which needs "
                                       "{} Rx buffers of {} at once",
                                       coll::collective_name(call.call.collective), format_bytes(Bytes{bytes}), n,
                                       format_bytes(cfg.rx_buffers.size));
  const std::uint64_t want = (n * size + most - 1) / most; // Rx-buffer size that makes the block fill `most`
  const std::string fix =
      fmt::format("raise rx_buffers.size (and max_eager_size with it) to at least {}{}",
                  format_bytes(Bytes{(want + 1023) / 1024 * 1024}),
                  rendezvous ? ", or let the message go rendezvous (max_eager_size below it)" : "");
  if (n > DataMover::kMaxRxPieces)
    return fmt::format("{}: the data mover takes at most {} per move (its Rx-buffer release FIFO is {} deep: \"the "
                       "maximum message size is 64 segments\", dma_mover.cpp); {}",
                       what, DataMover::kMaxRxPieces, DataMover::kMaxRxPieces, fix);
  return fmt::format("{}, and holds them until its result starts, but the node has {} (an Rx-buffer deadlock); raise "
                     "rx_buffers.count to at least {}, or {}",
                     what, cfg.rx_buffers.count, n, fix);
}

/// Why the firmware's eager ring allreduce cannot run `call`'s count, or "". allreduce() (ccl_offload_control.c)
/// cuts the count into segments of max_seg_count = eager_rx_buf_size / datatype_nbytes elements rounded down to a
/// multiple of the rank count P (the whole count when operand 0 streams: refused on more than one rank, memory_only),
/// and each segment of n elements into P chunks:
/// P - 1 of bulk_count = ceil(n / P) and the last of tail_count = n - bulk_count (P - 1), both `unsigned int`. A
/// max_seg_count of 0 never ends its loop; a tail below 0 wraps to about 4 G elements (chunks past the data, then one
/// move of the wrapped count). Neither is a run nafsim can time: the hardware would hang or move what it was not given.
/// (A tail of exactly 0, a count that ends on a whole chunk, sends empty messages and is run as the firmware runs it.)
std::string ring_chunks(const CcloCall& call, const CcloConfig& cfg, bool rendezvous)
{
  auto const& cc = call.call;
  if (cc.collective != Collective::AllReduce || cc.size < 2 || cc.count == 0)
    return {};
  const std::uint64_t p  = cc.size;
  const std::uint64_t eb = std::max<std::uint64_t>(1, cc.elem_bytes);
  const std::uint64_t rx = cfg.rx_buffers.size.count / eb;
  const std::uint64_t seg = rx - rx % p;
  // (rendezvous needs max_eager_size below the call, and the firmware takes no limit below an Rx buffer: the smallest
  // a build has is the rendezvous build's 64 B)
  // (on the rendezvous build the call went eager only because it was forced)
  const std::string other =
      !rendezvous || cc.count * eb <= 64 ? ""
      : cfg.build == CcloBuild::Rendezvous
          ? ", or let it go rendezvous, as this build would (reduce then broadcast: do not force the eager protocol)"
          : fmt::format(", or let it go rendezvous (reduce then broadcast: a build whose max_eager_size is below {}, "
                        "such as platform.node.fpga.cclo.build: rendezvous)",
                        format_bytes(Bytes{cc.count * eb}));
  if (seg == 0)
    return fmt::format("the firmware's eager ring allreduce cuts its data into segments of an Rx buffer's elements "
                       "rounded down to a multiple of the {} ranks: {} elements of {} B ({}) make 0, and its loop "
                       "never ends (ccl_offload_control.c allreduce()); raise rx_buffers.size (and max_eager_size "
                       "with it) to at least {}{}",
                       p, rx, eb, format_bytes(cfg.rx_buffers.size), format_bytes(Bytes{p * eb}), other);
  // (a whole segment is a multiple of P, its chunks whole)
  std::uint64_t last = cc.count % seg;
  if (last == 0)
    last = seg;
  const std::uint64_t bulk = (last + p - 1) / p;
  if (last >= bulk * (p - 1))
    return {};
  const std::uint64_t fits = (cc.count + p - 1) / p * p; // the next count that cuts into whole chunks
  const std::string what   = cc.count > seg ? fmt::format("the {} elements of its last segment", last)
                                            : fmt::format("its {} elements", last);
  return fmt::format("the firmware's eager ring allreduce on {} ranks gives {} of them a chunk of ceil({} / {}) = {} "
                     "element(s) of {} and the last rank the rest, {} - {} x {}: an unsigned count below 0 "
                     "(ccl_offload_control.c allreduce(): tail_count wraps to about 4 G elements, and the chunks past "
                     "the data are read from beyond the buffers), a run nafsim cannot time; use a count whose last "
                     "segment leaves the last rank a chunk, such as a multiple of {} ({} elements instead of {}){}",
                     p, p - 1, last, p, bulk, what, last, p - 1, bulk, p, fits, cc.count, other);
}

/// Why the firmware's rendezvous gather cannot be timed for `call`, or "". gather() (ccl_offload_control.c) walks
/// src_rank up from 0: at its outer step it steps over the root, but its inner loop `while(num_pending < max_fanin)`
/// announces to consecutive ranks without looking at the root or at the communicator's end (max_fanin:
/// gather_flat_tree_max_fanin above gather_flat_tree_max_count bytes, else P - 1), counting such an announcement as
/// pending and initiated although no completion will answer it. Run on the call's counts: a wait with no announced
/// rank left to complete it, or a loop that can announce no more, hangs the hardware; an announcement to the root
/// itself or past the last rank that does not hang still leaves a stray notice in a queue (the root's own, or that of
/// whatever session the word past the communicator names), which a later call may take.
std::string gather_slots(const coll::CollectiveCall& cc, unsigned fanin_option)
{
  const int p = cc.size, root = cc.root;
  if (p < 2)
    return {};
  const int fanin = fanin_option == 0 ? p - 1 : static_cast<int>(fanin_option);
  int pending = 0, initiated = 0, completed = 0, src = 0, outstanding = 0, stray = -1;
  bool hangs = false;
  for (int step = 0; completed < p - 1 && !hangs; ++step) {
    if (step > 4 * p) { // no announcement and no completion possible: the loop spins for ever
      hangs = true;
      break;
    }
    if (initiated < p - 1) {
      if (src == root) {
        ++src;
      } else {
        while (pending < fanin) {
          if (src == root || src >= p) {
            if (stray < 0)
              stray = src;
          } else {
            ++outstanding;
          }
          ++initiated;
          ++pending;
          ++src;
        }
      }
    }
    if (pending > 0) {
      if (outstanding == 0) {
        hangs = true;
        break;
      }
      --outstanding;
      --pending;
      ++completed;
    }
  }
  if (!hangs && stray < 0)
    return {};
  const std::string whom = stray == root ? "the root itself" : fmt::format("rank {}, past the last", stray);
  return fmt::format(
      "the firmware's rendezvous gather announces its slots to ranks 0, 1, 2, ... at most {} at a time, and its inner "
      "loop steps over neither the root nor the communicator's end (ccl_offload_control.c gather(): `while(num_pending "
      "< max_fanin)`): with root {} on {} ranks it announces a slot to {}{}, so nafsim cannot time it; root 0 or {} "
      "with a fan-in ({}{}) below the rank count announces to no one else, or let the blocks go eager (max_eager_size "
      "at least {})",
      fanin, root, p, whom,
      hangs ? " and then waits for a completion no rank will send (the hardware hangs)"
            : ", a notice no one expects, left in a queue where a later call may take it",
      p - 1, fanin,
      fanin_option == 0 ? ": P - 1 for blocks up to gather_flat_tree_max_count"
                        : ": gather_flat_tree_max_fanin above gather_flat_tree_max_count",
      format_bytes(Bytes{cc.bytes()}));
}

/// Why a kernel stream cannot feed the firmware's own function for `call`, or "". The firmware's bcast, scatter, gather,
/// allgather, allreduce and reduce_scatter read and write memory whatever the stream flags (ccl_offload_control.c: none
/// of their moves is MOVE_STREAM; the flags only keep them eager, and in broadcast() and allreduce() make an operand
/// stream one segment), and ACCL's host driver has no streamed form of them (accl.hpp: send, recv, stream_put, the
/// copies and reduce; a kernel's accl_hls commands carry any flags, and combine() streams its first operand and
/// result). On one rank allreduce() and reduce_scatter() are a copy(), which streams.
std::string memory_only(const CcloCall& call)
{
  auto const& cc = call.call;
  const char* fn = nullptr;
  switch (cc.collective) {
    case Collective::Bcast: fn = "broadcast"; break;
    case Collective::Scatter: fn = "scatter"; break;
    case Collective::Gather: fn = "gather"; break;
    case Collective::AllGather: fn = "allgather"; break;
    case Collective::AllReduce: fn = cc.size > 1 ? "allreduce" : nullptr; break;
    case Collective::ReduceScatter: fn = cc.size > 1 ? "reduce_scatter" : nullptr; break;
    default: break;
  }
  if (fn == nullptr || !(call.operand_streamed() || call.result_streamed()))
    return {};
  const char* what = call.operand_streamed() && call.result_streamed() ? "its operand and its result"
                     : call.operand_streamed()                        ? "its operand"
                                                                      : "its result";
  const char* name = coll::collective_name(cc.collective);
  return fmt::format("the CCLO firmware's {} reads and writes memory whatever the stream flags (ccl_offload_control.c "
                     "{}(): none of its moves is MOVE_STREAM; the flags only keep it eager), so a kernel that sets them "
                     "(accl_hls) gets memory moved, and ACCL's host driver has no streamed {}: the firmware streams only "
                     "send, recv, stream_put, copy, combine and reduce. Here {} "
                     "would stream: keep it in memory (device or host) and copy it from or into the stream around the "
                     "call, or force an algorithm (a schedule of nafsim's, which streams)",
                     name, fn, name, what);
}

/// Why a call of count 0 cannot be timed, or "". ACCL's host driver returns before calling the CCLO for a collective
/// of count 0 (accl.cpp bcast, scatter, gather, allgather, reduce, allreduce, reduce_scatter, alltoall: `if (count ==
/// 0) { std::cerr << "ACCL: zero size buffer" ...; return nullptr; }`); send, recv, copy, combine, nop and barrier go
/// through. A kernel's call reaches the firmware. Its eager send() and recv() cut a count of 0 into no segment and its
/// eager broadcast() and allreduce() loop while elements remain: no move. Every other call of more than one rank
/// issues moves of 0 elements, which the data mover runs dry (dma_mover.cpp: `bool dry_run = (insn.count == 0)`: no
/// message, no write, no completion notice), and a dry move that receives (MOVE_ON_RECV) never returns its status
/// (its check_dma1_rx stays set with no read to answer it): the call hangs, as a rendezvous one waits for a write's
/// completion notice that never comes.
std::string zero_count(const CcloCall& call, bool firmware_eager)
{
  auto const& cc = call.call;
  if (cc.count != 0)
    return {};
  const bool driver_returns = cc.collective == Collective::Bcast || cc.collective == Collective::Scatter ||
                              cc.collective == Collective::Gather || cc.collective == Collective::AllGather ||
                              cc.collective == Collective::Reduce || cc.collective == Collective::AllReduce ||
                              cc.collective == Collective::ReduceScatter || cc.collective == Collective::AllToAll;
  const char* name = coll::collective_name(cc.collective);
  if (driver_returns && call.path != InvocationPath::Kernel)
    return fmt::format("ACCL's host driver makes no {} call of count 0 (accl.cpp: `if (count == 0)` it prints "
                       "\"ACCL: zero size buffer\" and returns no request), so there is nothing on the CCLO to time: "
                       "give at least one element (a nop times the call itself)",
                       name);
  const bool p2p      = cc.collective == Collective::Send || cc.collective == Collective::Recv;
  const bool no_moves = (p2p || cc.collective == Collective::Bcast || cc.collective == Collective::AllReduce) &&
                        firmware_eager;
  const bool local    = cc.collective == Collective::Copy || cc.collective == Collective::Combine ||
                        cc.collective == Collective::Nop || cc.collective == Collective::Barrier;
  if (cc.size <= 1 || no_moves || local)
    return {};
  return fmt::format("a {} of count 0 hangs the CCLO: the data mover runs its moves of 0 elements dry (dma_mover.cpp: "
                     "`dry_run = (insn.count == 0)`: no message, no write, no completion notice), and a dry move that "
                     "receives never returns its status, nor does a rendezvous wait for a write's completion end; "
                     "give at least one element",
                     name);
}

/// What the firmware has no function for, whatever the tuning, or "": a count or an offset beyond 32 bits; a stream_put
/// other than a send to a kernel stream; an all-to-all of compressed or streamed operands or over a link without RDMA WRITE (unless an algorithm is
/// forced: a schedule of nafsim's).
std::string no_firmware_function(const CcloCall& call, bool stream, bool rendezvous_link, const std::string& transport)
{
  auto const& cc = call.call;
  // The call's count is a 32-bit word and every function computes `unsigned int bytes_count = datatype_nbytes*count`;
  // scatter, gather, allgather and all_to_all address rank r's block at `r*bytes_count`, in 32 bits too.
  constexpr std::uint64_t k32 = std::uint64_t{1} << 32;
  const std::uint64_t bytes   = cc.count * cc.elem_bytes;
  const bool blocks = cc.collective == Collective::Scatter || cc.collective == Collective::Gather ||
                      cc.collective == Collective::AllGather || cc.collective == Collective::AllToAll;
  const std::uint64_t reach = blocks && cc.size > 1 ? bytes * static_cast<std::uint64_t>(cc.size - 1) : bytes;
  if (cc.count >= k32 || bytes >= k32 || reach >= k32)
    return fmt::format("the CCLO takes a call's count as a 32-bit word and computes its bytes{} in 32 bits "
                       "(ccl_offload_control.c: `unsigned int bytes_count = datatype_nbytes*count`): {} wraps, so the "
                       "firmware would move what it was not asked to; split the call into calls below 4 GiB{}",
                       blocks ? " and each rank's block offset" : "",
                       blocks && bytes < k32 ? fmt::format("the last block's offset, {} x {}", cc.size - 1,
                                                           format_bytes(Bytes{bytes}))
                                             : format_bytes(Bytes{bytes}),
                       blocks ? " in all" : "");
  if (call.remote_stream >= 0 && (cc.collective != Collective::Send || call.remote_stream > 246))
    return fmt::format("stream_put is a send to a kernel stream of id 0 to 246 (ACCL's limit), not a {} to stream {}",
                       coll::collective_name(cc.collective), call.remote_stream);
  // ccl_offload_control.c all_to_all(): uncompressed, unstreamed operands only (else COLLECTIVE_NOT_IMPLEMENTED). A
  // forced algorithm is a schedule of nafsim's, which the executor runs whatever the firmware has.
  if (cc.collective == Collective::AllToAll && cc.size > 1 && !call.algorithm && (call.compress || stream))
    return fmt::format("the CCLO firmware's all-to-all runs neither compressed nor streamed operands (it answers "
                       "COLLECTIVE_NOT_IMPLEMENTED): drop {}, or force an algorithm to run a schedule of nafsim's",
                       call.compress ? "compress" : "the stream");
  // all_to_all() writes every block through the rendezvous protocol whatever its size (its test `(bytes_count >
  // max_eager_size) &&` is commented out): over a link without RDMA WRITE the firmware has no all-to-all to run.
  if (cc.collective == Collective::AllToAll && cc.size > 1 && !call.algorithm && !rendezvous_link)
    return fmt::format("the CCLO firmware's all-to-all always writes its blocks through the rendezvous protocol "
                       "(ccl_offload_control.c all_to_all(): its size test is commented out), which {} cannot "
                       "carry (no RDMA WRITE), so ACCL over {} has none: force an algorithm (workload.algorithm: "
                       "flat) to run a schedule of nafsim's, or use transport roce",
                       transport, transport);
  return {};
}

/// Whether the rendezvous writes of `s` (each block is one WRITE) fit the link's largest request, or why not.
std::string write_fits(const CcloCall& call, const coll::Schedule& s, const CcloLink& link)
{
  std::uint64_t most = 0;
  for (auto const& op : s.ops)
    if (op.kind == coll::OpKind::Send || op.kind == coll::OpKind::CombineSend)
      most = std::max(most, op.a.count * call.call.elem_bytes);
  if (most <= link.max_write)
    return {};
  return fmt::format("its rendezvous writes a block of {} as one RDMA WRITE over {}, which takes at most {} per "
                     "request ({}): split the call into calls whose blocks are at most {}, or force protocol eager "
                     "(Rx-buffer segments)",
                     format_bytes(Bytes{most}), link.transport, format_bytes(Bytes{link.max_write}), link.max_write_why,
                     format_bytes(Bytes{link.max_write}));
}

} // namespace

CallPlan plan_call(const CcloCall& call, const CcloConfig& cfg, bool rendezvous_link, const std::string& transport)
{
  CallPlan p;
  auto const& cc       = call.call;
  const bool stream     = call.streams();
  const std::uint64_t eb = cc.elem_bytes;
  std::optional<coll::Protocol> force = call.protocol;
  // A barrier has one way in the firmware (its notifications through the rendezvous path, or eager over a link
  // without WRITE) and a nop moves nothing: a protocol the caller forces changes neither, so neither is named after
  // it (a forced eager barrier reported "eager/flat" with the same times). The link's own forcing still applies.
  if (cc.collective == coll::Collective::Barrier || cc.collective == coll::Collective::Nop)
    force.reset();
  if (p.error = no_firmware_function(call, stream, rendezvous_link, transport); !p.error.empty())
    return p;
  if (!rendezvous_link) {
    if (force == coll::Protocol::Rendezvous) {
      p.error = fmt::format("the nodes run {}, which has no RDMA WRITE: the CCLO runs every call eager over it (force "
                            "protocol eager, or use transport roce)",
                            transport);
      return p;
    }
    force = coll::Protocol::Eager;
  }
  try {
    p.sel        = coll::cclo_select(cc, tuning_of(cfg), call.compress, stream, force, call.algorithm);
    p.rendezvous = p.sel.protocol == coll::Protocol::Rendezvous;
    p.firmware   = firmware_runs(cc.collective, p.sel.algorithm, p.rendezvous);
    // The firmware's own eager algorithms run without a schedule and need no spare buffers (their builders declare
    // no scratch): only check that the algorithm applies. Building the schedule anyway cost a ring allreduce on 128
    // ranks a fifth of its run time (130 k ops per rank, thrown away).
    if (p.firmware && !p.rendezvous) {
      if (auto why = coll::check_applicable(cc, p.sel.algorithm); !why.empty())
        throw std::invalid_argument(why);
    } else {
      p.schedule = coll::build_schedule(cc, p.sel.algorithm, p.sel.protocol, call.rank, p.sel.options);
    }
  } catch (const std::invalid_argument& e) {
    p.error = e.what();
    return p;
  }
  if (dtype_bytes(call.dtype) != cc.elem_bytes) {
    p.error = fmt::format("the call's element type {} has {} bytes, but its count assumes {}-byte elements",
                          dtype_name(call.dtype), dtype_bytes(call.dtype), cc.elem_bytes);
    return p;
  }
  if (call.compress && call.dtype != DataType::Float32) {
    p.error = fmt::format("compression converts float32 to float16 on the wire; the data is {}", dtype_name(call.dtype));
    return p;
  }
  for (int k = 0; k < 3; ++k)
    if (p.schedule.scratch[k] * eb > cfg.tuning.max_rendezvous_size.count) {
      p.error = fmt::format("{} needs {} of spare buffer {}, but max_rendezvous_size is {} (the driver makes each "
                            "spare buffer that large): raise platform.node.fpga.cclo.tuning.max_rendezvous_size to at "
                            "least {}, or call with fewer elements",
                            coll::collective_name(cc.collective), format_bytes(Bytes{p.schedule.scratch[k] * eb}), k + 1,
                            format_bytes(cfg.tuning.max_rendezvous_size),
                            format_bytes(Bytes{p.schedule.scratch[k] * eb}));
      return p;
    }
  if (stream && p.rendezvous) {
    p.error = "streamed operands travel eager only (the firmware never uses rendezvous for streams)";
    return p;
  }
  if (call.compress && p.rendezvous) {
    p.error = "compressed data travels eager only (rendezvous writes the destination buffer as it is)";
    return p;
  }
  if (p.rendezvous)
    for (auto const& op : p.schedule.ops)
      if (op.kind == coll::OpKind::RecvReduce || op.kind == coll::OpKind::RecvReduceSend ||
          op.kind == coll::OpKind::RecvSend) {
        p.error = fmt::format("the {} {} algorithm fuses receives with reductions or relays, which the CCLO only runs "
                              "eager; force protocol eager or another algorithm",
                              coll::algorithm_name(p.sel.algorithm), coll::collective_name(cc.collective));
        return p;
      }
  return p;
}

CallPlan plan_call(const CcloCall& call, const CcloConfig& cfg, const CcloLink& link)
{
  CallPlan p = plan_call(call, cfg, link.rendezvous, link.transport);
  if (p.error.empty()) {
    p.error         = zero_count(call, p.firmware && !p.rendezvous);
    p.count_refused = !p.error.empty();
  }
  // allgather() has no one-rank case (reduce(), allreduce(), reduce_scatter() and all_to_all() have one): with one
  // rank its ring's next and previous rank is itself, and it sends its block to itself as a remote message
  // (RES_REMOTE; rendezvous: an address to itself, then a write) over a session ACCL never opens (openCon skips the
  // local rank).
  if (p.error.empty() && p.firmware && call.call.collective == Collective::AllGather && call.call.size == 1)
    p.error = "the firmware's allgather has no one-rank case: its ring's next rank is itself, to which it sends its "
              "block as a remote message over a session ACCL never opens (openCon skips the local rank); on one rank "
              "copy the block instead";
  // A stream the firmware's function would not read or write: the call cannot mean what it says.
  if (p.error.empty() && p.firmware) {
    p.error          = memory_only(call);
    p.stream_refused = !p.error.empty();
  }
  // An eager message travels in segments of at most one Rx buffer, each a SEND with the CCLO's header that the
  // transport must be able to place (the connectionless transport registers it at its receiver).
  if (p.error.empty() && !p.rendezvous && link.max_send != 0) {
    const std::uint64_t seg = std::min(call.call.count * call.call.elem_bytes, cfg.rx_buffers.size.count) +
                              cfg.txrx.header.count;
    if (call.call.count != 0 && seg > link.max_send)
      p.error = fmt::format("its eager segments of {} (one Rx buffer or the whole message, and the {} header) cannot be "
                            "placed over {}, which places at most {}: {}",
                            format_bytes(Bytes{seg}), format_bytes(cfg.txrx.header), link.transport,
                            format_bytes(Bytes{link.max_send}), link.max_send_fix);
  }
  if (p.error.empty() && p.rendezvous && link.max_write != 0) {
    p.error         = write_fits(call, p.schedule, link);
    p.write_refused = !p.error.empty();
  }
  // A block the firmware hands the data mover whole must fit the Rx buffers one move can hold.
  if (p.error.empty() && p.firmware && !p.rendezvous)
    p.error = block_fits(call, cfg, eager_block(call.call),
                         link.rendezvous && !call.compress && !call.streams());
  if (p.error.empty() && p.firmware && !p.rendezvous)
    p.error = ring_chunks(call, cfg, link.rendezvous && !call.compress && !call.streams());
  if (p.error.empty() && p.firmware && p.rendezvous && call.call.collective == Collective::Gather)
    p.error = gather_slots(call.call, p.sel.options.gather_fanin);
  // reduce()'s eager ring: the rank after the root calls send() with `stream & OP0_STREAM` alone, and send() takes
  // the rendezvous protocol above max_eager_size when nothing streams: a call eager only because its result streams
  // would have that rank write rendezvous into a ring that receives eager (the hardware hangs).
  const std::uint64_t bytes = call.call.count * call.call.elem_bytes;
  if (p.error.empty() && p.firmware && !p.rendezvous && call.call.collective == Collective::Reduce &&
      call.call.size > 1 && call.result_streamed() && !call.operand_streamed() && !call.compress &&
      bytes > cfg.tuning.max_eager_size.count)
    p.error = fmt::format("the firmware's eager reduce ring has the rank after the root send its operand with send(), "
                          "which sees only an operand stream (ccl_offload_control.c reduce(): `stream & OP0_STREAM`): "
                          "with only the result streamed, {} above max_eager_size {} goes rendezvous into a ring that "
                          "receives eager (the hardware hangs); stream the operand too, or keep the result in memory",
                          format_bytes(Bytes{bytes}), format_bytes(cfg.tuning.max_eager_size));
  // Advice that names the Rx buffers or the protocol limits, on a named build, says that the build sets them.
  if (!p.error.empty() && (p.error.find("rx_buffers") != std::string::npos ||
                           p.error.find("max_eager_size") != std::string::npos ||
                           p.error.find("max_rendezvous_size") != std::string::npos))
    p.error += build_sets_these(cfg);
  return p;
}

} // namespace nafsim::nodes
