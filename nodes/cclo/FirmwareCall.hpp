#pragma once
// One call as the firmware runs it: the protocol and algorithm selected for it, its buffers, and the
// firmware's function for its collective (ccl_offload_control.c of Xilinx/ACCL @622bdbe: send, recv,
// broadcast, scatter, gather, allgather, reduce, reduce_scatter, allreduce, barrier, all_to_all, copy,
// combine), written against the micro-controller's primitives (Firmware). A call whose algorithm or
// protocol the firmware lacks (recursive doubling, pairwise all-to-all, a forced eager all-to-all,
// ...) runs its schedule through the schedule executor instead.
//
// Where each function waits, and how (as the firmware):
//   - a rendezvous step whose notice has not come returns NOT_READY (the call goes to the retry queue
//     and is re-run from `current_step`): send(), recv(), broadcast() flat, scatter(), gather() on a
//     non-root, allgather() before its first address;
//   - busy-waits in place (`while (rendezvous_get_*() == NOT_READY);`): broadcast() binary tree,
//     gather() root, allgather() after its first address, reduce() flat and tree (root and non-root),
//     barrier(), all_to_all();
//   - re-runs a function in place until it is ready: allreduce()'s broadcast, reduce_scatter()'s scatter.
// Data-mover statuses are collected in issue order (end_move) after at most 2 (send, recv, rendezvous
// bcast/scatter/gather/allgather/reduce/all-to-all) or 8 (eager bcast root) further moves, one per
// step in the eager ring reduce-scatter/allreduce, or all at the end (eager scatter, gather).

#include "nodes/cclo/Firmware.hpp"
#include "protocols/collectives/Algorithms.hpp"

namespace nafsim::nodes {

class FirmwareCall {
public:
  /// Selects protocol and algorithm (errors go to `p.result.error`; check ok()).
  FirmwareCall(Firmware& fw, CcloPending& p);
  bool ok() const { return p_.result.error.empty(); }
  /// Run (or resume, from `p.step`) the firmware's function for the call.
  Task<FwStatus> run();
  /// The schedule the executor runs instead, for an algorithm or protocol the firmware lacks (else null).
  const coll::Schedule* schedule() const { return schedule_ ? &*schedule_ : nullptr; }

  // Buffers and moves (also used by the schedule executor).
  std::uint32_t host(int rank) const { return static_cast<std::uint32_t>(call_.comm.at(static_cast<std::size_t>(rank))); }
  std::uint64_t addr(const coll::Slice& s) const;
  Operand operand(const coll::Slice& s) const;
  /// Whether buffer `b` of the call is a kernel stream (the operand's or the result's flag).
  bool streamed(coll::Buf b) const
  {
    return (b == coll::Buf::Input && op_stream_) || (b == coll::Buf::Output && res_stream_);
  }
  void result_to(Move& m, const coll::Slice& s) const;
  /// The operand slot reading the next eager message from `rank` (matched on its sequence number).
  Operand from_rx(int rank);
  /// Eager segments of `count` elements (one Rx buffer each; streams are never cut).
  coll::Segments segments(std::uint64_t count) const;
  Move eager_to(int rank, Move m);
  Move write_to(const RndzvNotice& where, std::uint64_t offset_elems, Move m);
  const CcloCall& call() const { return call_; }
  const coll::Selection& selection() const { return sel_; }
  bool rendezvous() const { return rndzv_; }
  std::uint64_t elem_bytes() const { return eb_; }
  /// A lookup match for an address notice from `rank` (any rank if negative).
  NoticeMatch address_from(int rank) const;
  /// A match for the completion notice of the write from `rank` (any rank if negative) into `addr`
  /// (any address if 0: the firmware's get_any_completion matches on the byte count).
  NoticeMatch completion_from(int rank, std::uint64_t addr, std::uint64_t bytes) const;
  std::string where() const;
  /// The rank of a host of the communicator.
  int rank_of(std::uint32_t host) const;

private:
  bool firmware_has() const;
  FwStatus not_ready(const std::string& what);
  Task<FwStatus> send(int dst, const coll::Slice& src);
  Task<FwStatus> recv(int src, const coll::Slice& dst);
  /// Rendezvous receive of `dst` from `src`: announce it, then NOT_READY until the write's completion notice.
  Task<FwStatus> rendezvous_recv(int src, const coll::Slice& dst);
  Task<FwStatus> broadcast(int root, coll::Algorithm alg, const coll::Slice& src, const coll::Slice& dst);
  Task<FwStatus> scatter(int root, const coll::Slice& src, const coll::Slice& dst);
  /// The rendezvous one-to-all root: write `block(rank)` to each rank as its address comes, until
  /// `current_step` reaches `steps` (`pending` moves already outstanding); NOT_READY when none is queued.
  Task<FwStatus> write_as_addresses_come(unsigned steps, unsigned pending, FnRef<coll::Slice(int)> block);
  Task<FwStatus> gather();
  Task<FwStatus> allgather();
  Task<FwStatus> reduce(int root, coll::Algorithm alg, const coll::Slice& src, const coll::Slice& dst);
  Task<FwStatus> reduce_flat(int root, const coll::Slice& src, const coll::Slice& dst);
  Task<FwStatus> reduce_tree(int root, const coll::Slice& src, const coll::Slice& dst);
  Task<FwStatus> reduce_ring(int root, const coll::Slice& src, const coll::Slice& dst);
  Task<FwStatus> reduce_scatter();
  /// The eager ring reduce-scatter of reduce_scatter() and allreduce(): chunk `first` goes out first.
  Task<> ring_reduce_scatter(int first, FnRef<coll::Slice(int)> chunk, const coll::Slice& last_to);
  Task<FwStatus> allreduce();
  Task<FwStatus> barrier();
  Task<FwStatus> all_to_all();
  /// A zero-length move that only loads the data mover's address registers (MOVE_NONE operands).
  Move prime() const;
  Move combine_move(const coll::Slice& a, const coll::Slice& b, const coll::Slice& dst) const;
  Move copy_move(const coll::Slice& a, const coll::Slice& dst) const;
  Task<> finish_window(unsigned& pending);
  Task<> window(unsigned& pending, unsigned limit);
  /// Start the eager send of block `src` to `rank`: one move, which the data mover cuts into one message per Rx
  /// buffer (the firmware's scatter, gather, allgather and reduce-scatter do not segment); returns the moves issued.
  Task<unsigned> start_eager(int rank, const coll::Slice& src);
  Task<> start_eager_segment(int rank, const coll::Slice& piece);
  /// Start the move taking the eager message(s) of block `dst` from `rank`, combined with `combine_with` if given,
  /// into `dst` or, if `send_to` >= 0, on to that rank: one move, which reads as many Rx buffers as the block
  /// fills, its result starting once the last has come (DataMover.hpp); returns the moves issued.
  Task<unsigned> start_recv(int rank, const coll::Slice& dst, const coll::Slice* combine_with, int send_to);
  Task<> end_moves(unsigned n);

  Firmware& fw_;
  FirmwarePorts& c_;
  CcloCore& core_;
  CcloPending& p_;
  const CcloCall& call_;
  coll::Selection sel_;
  bool rndzv_  = false;
  bool stream_ = false;     ///< an operand or the result is a stream (the firmware then runs eager)
  bool op_stream_ = false;  ///< the operand (Buf::Input) is a stream
  bool res_stream_ = false; ///< the result (Buf::Output) is a stream
  std::uint64_t eb_ = 4, seg_ = 1;
  unsigned& step_;
  std::optional<coll::Schedule> schedule_; ///< algorithms the firmware lacks: run by the schedule executor
  int rank_ = 0, size_ = 1;
};

} // namespace nafsim::nodes
