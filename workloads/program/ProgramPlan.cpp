#include "workloads/program/ProgramPlan.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <fmt/format.h>

namespace nafsim::workloads {

coll::Collective collective_of(ProgramOpKind k)
{
  using C = coll::Collective;
  switch (k) {
    case ProgramOpKind::Bcast: return C::Bcast;
    case ProgramOpKind::Scatter: return C::Scatter;
    case ProgramOpKind::Gather: return C::Gather;
    case ProgramOpKind::AllGather: return C::AllGather;
    case ProgramOpKind::Reduce: return C::Reduce;
    case ProgramOpKind::AllReduce: return C::AllReduce;
    case ProgramOpKind::ReduceScatter: return C::ReduceScatter;
    case ProgramOpKind::AllToAll: return C::AllToAll;
    case ProgramOpKind::Barrier: return C::Barrier;
    case ProgramOpKind::Copy: return C::Copy;
    case ProgramOpKind::Combine: return C::Combine;
    case ProgramOpKind::Send: return C::Send;
    case ProgramOpKind::Recv: return C::Recv;
    case ProgramOpKind::StreamPut: return C::Send;
    case ProgramOpKind::Compute:
    case ProgramOpKind::Wait: return C::Nop;
  }
  return C::Nop;
}

bool is_collective(ProgramOpKind k)
{
  return !is_local(k) && !is_p2p(k) && k != ProgramOpKind::Compute && k != ProgramOpKind::Wait;
}

bool is_p2p(ProgramOpKind k)
{
  return k == ProgramOpKind::Send || k == ProgramOpKind::Recv || k == ProgramOpKind::StreamPut;
}

bool is_local(ProgramOpKind k)
{
  return k == ProgramOpKind::Copy || k == ProgramOpKind::Combine;
}

bool counts_as_compute(ProgramEngine engine, ProgramOpKind k)
{
  return k == ProgramOpKind::Compute || (engine == ProgramEngine::Mpi && is_local(k));
}

namespace {
bool moves_no_data(ProgramOpKind k)
{
  return k == ProgramOpKind::Barrier || k == ProgramOpKind::Compute || k == ProgramOpKind::Wait;
}
} // namespace

bool reads_buffer(ProgramOpKind k)
{
  return !moves_no_data(k) && k != ProgramOpKind::Recv;
}

bool writes_buffer(ProgramOpKind k)
{
  return !moves_no_data(k) && k != ProgramOpKind::Send;
}

namespace {

config::ConfigError op_error(std::size_t i, const std::string& key, const std::string& msg)
{
  return config::ConfigError("", fmt::format("/workload/ops/{}{}", i, key.empty() ? "" : "/" + key), msg);
}

int find_name(const std::vector<std::string>& names, const std::string& n)
{
  auto it = std::find(names.begin(), names.end(), n);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

std::string listed(const std::vector<std::string>& names)
{
  std::string s;
  for (auto const& n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

void resolve_comms(ProgramPlan& p)
{
  std::vector<unsigned> world(p.cfg.ranks);
  for (unsigned r = 0; r < p.cfg.ranks; ++r)
    world[r] = r;
  p.comms.push_back(world);
  p.comm_names.push_back("world");
  for (std::size_t c = 0; c < p.cfg.communicators.size(); ++c) {
    auto const& k = p.cfg.communicators[c];
    const std::string at = fmt::format("/workload/communicators/{}", c);
    if (k.name.empty() || find_name(p.comm_names, k.name) >= 0)
      throw config::ConfigError("", at + "/name",
                                fmt::format("communicator name '{}' is empty or taken (world is every rank)", k.name));
    if (k.ranks.empty())
      throw config::ConfigError("", at + "/ranks", "a communicator needs at least one member");
    for (std::size_t i = 0; i < k.ranks.size(); ++i) {
      if (k.ranks[i] >= p.cfg.ranks)
        throw config::ConfigError("", fmt::format("{}/ranks/{}", at, i),
                                  fmt::format("rank {} is not one of the program's {} ranks", k.ranks[i], p.cfg.ranks));
      if (std::count(k.ranks.begin(), k.ranks.end(), k.ranks[i]) > 1)
        throw config::ConfigError("", fmt::format("{}/ranks/{}", at, i),
                                  fmt::format("rank {} is listed twice", k.ranks[i]));
    }
    p.comms.push_back(k.ranks);
    p.comm_names.push_back(k.name);
  }
}

void resolve_buffers(ProgramPlan& p, std::vector<std::string>& names)
{
  const unsigned eb  = nodes::dtype_bytes(p.cfg.dtype);
  // Device buffers one after the other from the CCLO's user base, host buffers likewise in host memory; a stream's
  // contents (the kernel's) are kept in the data plane at an address of their own, which no memory model serves.
  std::uint64_t device = nodes::Cclo::kUserBase, host = nodes::kHostMemory | nodes::Cclo::kUserBase;
  std::uint64_t stream = nodes::Cclo::kUserBase + (1ULL << 44);
  for (std::size_t b = 0; b < p.cfg.buffers.size(); ++b) {
    auto const& k = p.cfg.buffers[b];
    const std::string at = fmt::format("/workload/buffers/{}", b);
    if (k.name.empty() || find_name(names, k.name) >= 0)
      throw config::ConfigError("", at + "/name", fmt::format("buffer name '{}' is empty or taken", k.name));
    if (k.elements == 0 || k.elements > (1ULL << 32))
      throw config::ConfigError("", at + "/elements", "a buffer holds 1 to 2^32 elements");
    // (before the operations: their stream checks had advised a copy into the stream, which the engine then refused)
    if (p.cfg.engine == ProgramEngine::Mpi && k.memory == nodes::DataLocation::Stream)
      throw config::ConfigError("", at + "/memory",
                                "a stream is an FPGA kernel's, and the MPI engine runs on CPU hosts: give the buffer "
                                "memory host or device (both are host memory to MPI)");
    names.push_back(k.name);
    std::uint64_t& next = k.memory == nodes::DataLocation::Host     ? host
                          : k.memory == nodes::DataLocation::Stream ? stream
                                                                    : device;
    p.buffer_addr.push_back(next);
    next += (k.elements * eb + 4095) / 4096 * 4096; // page-aligned, one after the other
    int id = -1;
    if (k.memory == nodes::DataLocation::Stream)
      id = k.stream_id >= 0 ? k.stream_id : static_cast<int>(std::count_if(p.stream_ids.begin(), p.stream_ids.end(),
                                                                          [](int s) { return s >= 0; })) + 1;
    else if (k.stream_id >= 0)
      throw config::ConfigError("", at + "/stream_id", "only a buffer with memory stream has a stream id");
    if (id >= 0 && std::find(p.stream_ids.begin(), p.stream_ids.end(), id) != p.stream_ids.end())
      throw config::ConfigError("", at + "/stream_id", fmt::format("stream id {} is another buffer's: give each "
                                                                   "stream buffer its own",
                                                                   id));
    p.stream_ids.push_back(id);
  }
}

// Who runs `o` and with which peer; checks the operation's fields.
void resolve_roles(const ProgramPlan& p, const ProgramOp& k, PlannedOp& o)
{
  const std::size_t i = o.index;
  if (is_collective(k.op)) {
    if (!k.ranks.empty())
      throw op_error(i, "ranks", "a collective runs on every member of its communicator: leave `ranks` empty");
    o.runs = p.comms[o.comm];
    if (k.root >= o.runs.size())
      throw op_error(i, "root", fmt::format("root {} is not a rank of communicator {} ({} members)", k.root,
                                            p.comm_names[o.comm], o.runs.size()));
    return;
  }
  if (k.comm != "world")
    throw op_error(i, "comm", "send, recv, copy, combine, compute and wait run on program ranks: leave `comm` as world");
  if (k.ranks.empty())
    o.runs = p.comms[0];
  for (std::size_t j = 0; j < k.ranks.size(); ++j) {
    if (k.ranks[j] >= p.cfg.ranks)
      throw op_error(i, fmt::format("ranks/{}", j),
                     fmt::format("rank {} is not one of the program's {} ranks", k.ranks[j], p.cfg.ranks));
    if (std::find(o.runs.begin(), o.runs.end(), k.ranks[j]) != o.runs.end())
      throw op_error(i, fmt::format("ranks/{}", j),
                     fmt::format("rank {} is listed twice (the operation would run twice on it)", k.ranks[j]));
    o.runs.push_back(k.ranks[j]);
  }
  if (!is_p2p(k.op))
    return;
  o.peer.assign(p.cfg.ranks, -1);
  const auto n = static_cast<int>(p.cfg.ranks);
  for (unsigned r : o.runs) {
    int peer = k.peer >= 0 ? k.peer : ((static_cast<int>(r) + k.shift) % n + n) % n;
    if (peer >= n || peer == static_cast<int>(r))
      throw op_error(i, k.peer >= 0 ? "peer" : "shift",
                     fmt::format("rank {} would {} {} itself or a rank beyond the program's {}", r,
                                 k.op == ProgramOpKind::Recv ? "receive from" : "send to", peer, n));
    o.peer[r] = peer;
  }
}

// Buffers the operation names exist and hold what every rank reads and writes.
void resolve_operands(const ProgramPlan& p, const std::vector<std::string>& names, const ProgramOp& k, PlannedOp& o)
{
  const std::size_t i = o.index;
  const auto kind     = k.op;
  const bool reads  = reads_buffer(kind);
  const bool writes = writes_buffer(kind);
  auto buffer = [&](const std::string& n, const char* key) {
    int b = find_name(names, n);
    if (b < 0)
      throw op_error(i, key, fmt::format("no buffer named '{}' (buffers: {})", n, listed(names)));
    return b;
  };
  auto size = [&](int b) { return p.cfg.buffers[static_cast<std::size_t>(b)].elements; };
  // A named buffer and an offset inside it.
  auto operand = [&](const std::string& n, std::uint64_t off, const char* key, int& b, std::uint64_t& at) {
    b  = buffer(n, key);
    at = off;
    if (at >= size(b))
      throw op_error(i, std::string(key) + "_offset",
                     fmt::format("offset {} is past the end of buffer '{}' ({} elements)", at, n, size(b)));
  };
  if (reads)
    operand(k.src, k.src_offset, "src", o.src, o.src_off);
  if (writes)
    operand(k.dst, k.dst_offset, "dst", o.dst, o.dst_off);
  if (!reads && !writes)
    return;
  if (kind == ProgramOpKind::Combine && p.location(o.dst) == nodes::DataLocation::Stream)
    throw op_error(i, "dst", fmt::format("combine reads its dst as its second operand (dst = dst func src), and ACCL "
                                         "streams only the first operand and the result (streamFlags OP0_STREAM, "
                                         "RES_STREAM; there is no second-operand stream): '{}' is a stream; combine "
                                         "into a buffer in memory, then copy it into the stream",
                                         k.dst));
  if (k.protocol == ProtocolChoice::Rendezvous &&
      (p.location(o.src) == nodes::DataLocation::Stream || p.location(o.dst) == nodes::DataLocation::Stream))
    throw op_error(i, "protocol", "a stream operand or result travels eager only (the firmware never uses "
                                  "rendezvous for streams): use protocol auto or eager, or a buffer in memory");
  o.count = k.count != 0 ? k.count : reads ? size(o.src) - o.src_off : size(o.dst) - o.dst_off;
  for (unsigned r : o.runs) {
    auto cc = p.call(o, r);
    auto check = [&](int b, std::uint64_t need, const char* key) {
      need += key[0] == 's' ? o.src_off : o.dst_off;
      if (b >= 0 && need > p.cfg.buffers[static_cast<std::size_t>(b)].elements)
        throw op_error(i, key,
                       fmt::format("rank {} {} up to element {} of buffer '{}', which holds {}: give a smaller "
                                   "count or offset, or a larger buffer",
                                   r, key[0] == 's' ? "reads" : "writes", need, names[static_cast<std::size_t>(b)],
                                   p.cfg.buffers[static_cast<std::size_t>(b)].elements));
    };
    const int cr              = is_p2p(kind) ? 0 : p.rank_in(o.comm, r);
    const std::uint64_t in_n  = coll::input_elements(cc, cr);
    const std::uint64_t out_n = kind == ProgramOpKind::StreamPut ? o.count : coll::output_elements(cc, cr);
    check(o.src, in_n, "src");
    check(o.dst, out_n, "dst");
    // One buffer read and written over ranges that overlap without being the same: the data mover (or the MPI
    // library) streams the read and the write, so what lands depends on their timing, as memcpy's result on
    // overlapping ranges does. The same range (in place) has one meaning and is kept. Only for operations every rank
    // both reads and writes with: a rooted collective's extents are the root's (non-roots read or write only), and
    // at root 0 the in-place patterns of gather and scatter (the root's block at the start) are an identity.
    const bool both_everywhere = is_local(kind) ||
                                 kind == ProgramOpKind::AllGather || kind == ProgramOpKind::AllReduce ||
                                 kind == ProgramOpKind::ReduceScatter || kind == ProgramOpKind::AllToAll;
    const std::uint64_t s0 = o.src_off, s1 = s0 + in_n, d0 = o.dst_off, d1 = d0 + out_n;
    if (both_everywhere && reads && writes && o.src >= 0 && o.src == o.dst &&
        p.location(o.src) != nodes::DataLocation::Stream &&
        in_n > 0 && out_n > 0 && !(s0 == d0 && s1 == d1) && s0 < d1 && d0 < s1)
      throw op_error(i, "dst_offset",
                     fmt::format("rank {} reads elements {}..{} of buffer '{}' and writes {}..{} of it: the ranges "
                                 "overlap without being the same, and the read and the write stream side by side, "
                                 "so the result would depend on their timing (as memcpy's on overlapping ranges); "
                                 "write to a range of its own or to another buffer, or give both the same range "
                                 "(in place)",
                                 r, s0, s1 - 1, names[static_cast<std::size_t>(o.src)], d0, d1 - 1));
  }
  if (kind == ProgramOpKind::StreamPut && p.stream_ids.at(static_cast<std::size_t>(o.dst)) < 0)
    throw op_error(i, "dst", fmt::format("stream_put delivers into the peer's kernel stream: '{}' is not a buffer with "
                                         "memory stream",
                                         k.dst));
}

// A kernel reading a stream waits for what stream_put delivered to it before, in list order (a stream is a FIFO).
void stream_waits(ProgramPlan& p)
{
  std::map<std::pair<unsigned, int>, std::uint64_t> put; // (rank, stream buffer) -> bytes delivered so far
  const std::uint64_t eb = nodes::dtype_bytes(p.cfg.dtype);
  for (auto& o : p.ops) {
    if (o.src >= 0 && p.stream_ids[static_cast<std::size_t>(o.src)] >= 0 && o.kind != ProgramOpKind::Wait) {
      o.stream_wait.assign(o.runs.size(), 0);
      for (std::size_t j = 0; j < o.runs.size(); ++j)
        if (auto it = put.find({o.runs[j], o.src}); it != put.end())
          o.stream_wait[j] = it->second;
    }
    if (o.kind == ProgramOpKind::StreamPut)
      for (unsigned r : o.runs)
        put[{static_cast<unsigned>(o.peer[r]), o.dst}] += o.count * eb;
  }
}

using MessageKey   = std::tuple<unsigned, unsigned, std::uint32_t>; // sender, receiver, tag
using MessageQueue = std::map<MessageKey, std::vector<std::pair<std::size_t, std::uint64_t>>>; // (op, count)

/// The sends and the receives of every (sender, receiver, tag), each in list order.
std::pair<MessageQueue, MessageQueue> message_queues(const ProgramPlan& p)
{
  MessageQueue sends, recvs;
  for (auto const& o : p.ops)
    if (o.kind == ProgramOpKind::Send || o.kind == ProgramOpKind::Recv)
      for (unsigned r : o.runs) {
        const auto peer = static_cast<unsigned>(o.peer[r]);
        const auto tag  = p.cfg.ops[o.index].tag;
        if (o.kind == ProgramOpKind::Send)
          sends[{r, peer, tag}].emplace_back(o.index, o.count);
        else
          recvs[{peer, r, tag}].emplace_back(o.index, o.count);
      }
  return {std::move(sends), std::move(recvs)};
}
} // namespace

std::vector<ProgramPlan::Message> ProgramPlan::messages() const
{
  auto [sends, recvs] = message_queues(*this);
  std::vector<Message> out;
  for (auto const& [key, rs] : recvs) {
    auto const& ss = sends[key];
    for (std::size_t k = 0; k < std::min(rs.size(), ss.size()); ++k)
      out.push_back({ss[k].first, rs[k].first, std::get<0>(key), std::get<1>(key)});
  }
  return out;
}

std::vector<ProgramPlan::Unmatched> ProgramPlan::check_messages() const
{
  return check_messages(OpPlaces{});
}

// Each receive takes the next message its peer sends it with its tag (in list order): the counts must agree, and
// every receive needs a send, or the run would wait forever; to verify, the send comes first in the list.
std::vector<ProgramPlan::Unmatched> ProgramPlan::check_messages(const OpPlaces& places) const
{
  const ProgramPlan& p = *this;
  auto error = [&](std::size_t op, unsigned rank, const std::string& field, const std::string& msg) {
    return places.error ? places.error(op, rank, field, msg) : op_error(op, field, msg);
  };
  auto name  = [&](std::size_t op, unsigned rank) {
    return places.name ? places.name(op, rank) : fmt::format("ops/{}", op);
  };
  auto count = [&](std::uint64_t n) {
    return places.unit_bytes ? fmt::format("{} bytes", n * places.unit_bytes) : fmt::format("{} elements", n);
  };
  auto [sends, recvs] = message_queues(p);
  for (auto const& [key, rs] : recvs) {
    auto const& ss = sends[key];
    for (std::size_t k = 0; k < rs.size(); ++k) {
      auto [from, to, tag] = key;
      if (k >= ss.size())
        throw error(rs[k].first, to, "",
                    fmt::format("rank {} receives message {} from rank {} with tag {}, but rank {} sends it only {} "
                                "with that tag: the run would wait forever",
                                to, k + 1, from, tag, from, ss.size()));
      if (ss[k].second != rs[k].second)
        throw error(rs[k].first, to, "count",
                    fmt::format("rank {} receives {} from rank {} (tag {}), but the matching send ({}) sends {}: give "
                                "both the same count",
                                to, count(rs[k].second), from, tag, name(ss[k].first, from), count(ss[k].second)));
      if (p.cfg.verify && ss[k].first > rs[k].first) // ProgramReference runs the list in order
        throw error(rs[k].first, to, "",
                    fmt::format("verify: rank {} receives message {} from rank {} with tag {}, whose send ({}) is "
                                "listed after it, so the reference, which follows the list, cannot know it: list the "
                                "send first (the ranks still run in any order) or set verify false",
                                to, k + 1, from, tag, name(ss[k].first, from)));
    }
  }
  std::vector<Unmatched> left;
  for (auto const& [key, ss] : sends) {
    auto it = recvs.find(key);
    for (std::size_t k = it == recvs.end() ? 0 : it->second.size(); k < ss.size(); ++k)
      left.push_back({ss[k].first, std::get<0>(key), std::get<1>(key), std::get<2>(key), ss[k].second});
  }
  return left;
}

namespace {

/// A field given a value (other than its default, which is the same as not giving it) on an operation that reads
/// nothing of it is refused: `root` on an allreduce, `duration` on a send, `peer` on a copy had run as if absent.
void check_fields_apply(std::size_t i, const ProgramOp& k)
{
  const ProgramOp none;
  const auto op = k.op;
  const std::string name(config::enum_name(op));
  auto refuse = [&](const char* key, const char* what) {
    throw op_error(i, key, fmt::format("{} reads no {}: it applies to {}; remove it", name, key, what));
  };
  const bool rooted = op == ProgramOpKind::Bcast || op == ProgramOpKind::Scatter || op == ProgramOpKind::Gather ||
                      op == ProgramOpKind::Reduce;
  const bool reduces = op == ProgramOpKind::Reduce || op == ProgramOpKind::AllReduce ||
                       op == ProgramOpKind::ReduceScatter || op == ProgramOpKind::Combine;
  if (k.root != none.root && !rooted)
    refuse("root", "the rooted collectives (bcast, scatter, gather, reduce)");
  if (k.func != none.func && !reduces)
    refuse("func", "reductions (reduce, allreduce, reduce-scatter) and combine");
  if (op != ProgramOpKind::Compute) {
    if (k.duration != none.duration)
      refuse("duration", "compute");
    if (k.operations != none.operations)
      refuse("operations", "compute");
    if (k.bytes != none.bytes)
      refuse("bytes", "compute");
  }
  if (!is_p2p(op)) {
    if (k.peer != none.peer)
      refuse("peer", "send, recv and stream_put");
    if (k.shift != none.shift)
      refuse("shift", "send, recv and stream_put");
  }
  if (k.tag != none.tag && op != ProgramOpKind::Send && op != ProgramOpKind::Recv)
    refuse("tag", op == ProgramOpKind::StreamPut ? "send and recv (a stream_put's tag is its stream's id)"
                                                 : "send and recv");
  if (k.algorithm != none.algorithm && !is_collective(op))
    refuse("algorithm", "the collectives");
  if (k.protocol != none.protocol && !is_collective(op) && !is_p2p(op))
    refuse("protocol", "the collectives, send, recv and stream_put");
  if (!k.src.empty() && !reads_buffer(op))
    refuse("src", "the operations that read a buffer");
  if (!k.dst.empty() && !writes_buffer(op))
    refuse("dst", "the operations that write a buffer");
  if (k.count != none.count && !reads_buffer(op) && !writes_buffer(op))
    refuse("count", "the operations that read or write a buffer");
  if (k.src_offset != none.src_offset && !reads_buffer(op))
    refuse("src_offset", "the operations that read a buffer");
  if (k.dst_offset != none.dst_offset && !writes_buffer(op))
    refuse("dst_offset", "the operations that write a buffer");
}

} // namespace

ProgramPlan ProgramPlan::resolve(const ProgramConfig& cfg)
{
  ProgramPlan p;
  p.cfg = cfg;
  resolve_comms(p);
  std::vector<std::string> names;
  resolve_buffers(p, names);
  for (std::size_t i = 0; i < cfg.ops.size(); ++i) {
    auto const& k = cfg.ops[i];
    PlannedOp o;
    o.kind  = k.op;
    o.index = i;
    const int c = find_name(p.comm_names, k.comm);
    if (c < 0)
      throw op_error(i, "comm", fmt::format("no communicator named '{}' (communicators: {})", k.comm,
                                            listed(p.comm_names)));
    o.comm = static_cast<std::size_t>(c);
    check_fields_apply(i, k);
    resolve_roles(p, k, o);
    // (CallPlan refuses it too, but only when the call is made: --check-only had passed it)
    if (cfg.engine == ProgramEngine::Cclo && k.op == ProgramOpKind::AllGather && o.runs.size() == 1)
      throw op_error(i, "comm",
                     fmt::format("communicator '{}' has one member, and the firmware's allgather has no one-rank case "
                                 "(its ring's next rank is itself, over a session ACCL never opens): on one rank use "
                                 "a copy",
                                 k.comm));
    resolve_operands(p, names, k, o);
    for (std::size_t j = 0; j < k.after.size(); ++j) {
      const unsigned d = k.after[j];
      if (d >= i)
        throw op_error(i, fmt::format("after/{}", j),
                       fmt::format("operation {} waits for operation {}, which is not earlier in the list", i, d));
      auto const& dr = p.ops[d].runs;
      for (unsigned r : o.runs)
        if (std::find(dr.begin(), dr.end(), r) == dr.end())
          throw op_error(i, fmt::format("after/{}", j),
                         fmt::format("rank {} runs operation {} but not operation {} it waits for", r, i, d));
    }
    if (!k.after.empty()) {
      o.deps_given = true;
      o.after.assign(o.runs.size(), std::vector<std::size_t>(k.after.begin(), k.after.end()));
    }
    if (k.op == ProgramOpKind::Compute && k.duration <= SimTime{} && k.operations <= 0 && k.bytes.count == 0)
      throw op_error(i, "duration", "compute needs a positive duration, e.g. \"5us\", or its work: operations "
                                    "and / or bytes, timed by the compute model");
    if (k.compress && (cfg.dtype != DataType::Float32 || k.protocol == ProtocolChoice::Rendezvous ||
                       k.op == ProgramOpKind::Compute || k.op == ProgramOpKind::Wait))
      throw op_error(i, "compress", "compression turns float32 into float16 on the wire, for eager CCLO calls: the "
                                    "program's dtype must be float32 and the protocol not rendezvous");
    if (k.op == ProgramOpKind::Compute && k.duration > SimTime{} && (k.operations > 0 || k.bytes.count > 0))
      throw op_error(i, "duration", "compute takes a duration or its work (operations, bytes), not both");
    p.ops.push_back(std::move(o));
  }
  p.check_messages();
  stream_waits(p);
  return p;
}

int ProgramPlan::rank_in(std::size_t comm, unsigned r) const
{
  auto const& m = comms.at(comm);
  auto it       = std::find(m.begin(), m.end(), r);
  return it == m.end() ? -1 : static_cast<int>(it - m.begin());
}

coll::CollectiveCall ProgramPlan::call(const PlannedOp& o, unsigned r) const
{
  auto const& k = cfg.ops[o.index];
  coll::CollectiveCall cc;
  cc.collective = collective_of(o.kind);
  cc.count      = o.kind == ProgramOpKind::Barrier ? 0 : o.count;
  cc.elem_bytes = nodes::dtype_bytes(cfg.dtype);
  cc.func       = k.func;
  if (is_p2p(o.kind)) {
    cc.size = static_cast<int>(cfg.ranks); // over world: the root is the peer
    cc.root = o.peer.at(r);
  } else {
    cc.size = static_cast<int>(comms.at(o.comm).size());
    cc.root = static_cast<int>(k.root);
  }
  return cc;
}

nodes::DataLocation ProgramPlan::location(int buf) const
{
  return buf < 0 ? nodes::DataLocation::Device : cfg.buffers.at(static_cast<std::size_t>(buf)).memory;
}

std::uint64_t ProgramPlan::operand_addr(int buf, std::uint64_t offset) const
{
  if (buf < 0)
    return nodes::Cclo::kUserBase;
  return buffer_addr.at(static_cast<std::size_t>(buf)) + offset * nodes::dtype_bytes(cfg.dtype);
}

nodes::CcloCall ProgramPlan::cclo_call(const PlannedOp& o, unsigned r, const std::vector<net::HostId>& hosts) const
{
  auto const& k = cfg.ops[o.index];
  nodes::CcloCall c;
  c.call = call(o, r);
  std::vector<net::HostId> members;
  const bool p2p = is_p2p(o.kind);
  for (unsigned m : comms.at(p2p ? 0 : o.comm))
    members.push_back(hosts.at(m));
  c.comm     = nodes::Communicator(std::move(members));
  c.rank     = p2p ? static_cast<int>(r) : rank_in(o.comm, r);
  c.src_addr = operand_addr(o.src, o.src_off);
  c.dst_addr = operand_addr(o.dst, o.dst_off);
  c.location = location(o.src);
  if (location(o.dst) != c.location)
    c.result_location = location(o.dst);
  if (k.protocol != ProtocolChoice::Auto)
    c.protocol = k.protocol == ProtocolChoice::Eager ? coll::Protocol::Eager : coll::Protocol::Rendezvous;
  c.algorithm = algorithm_of(k.algorithm);
  c.dtype     = cfg.dtype;
  c.compress  = k.compress;
  c.tag       = k.tag + (p2p ? p2p_tag_base : 0);
  if (o.kind == ProgramOpKind::StreamPut) { // ACCL: a send with RES_STREAM, the stream id as its tag
    c.remote_stream = stream_ids.at(static_cast<std::size_t>(o.dst));
    c.tag           = static_cast<std::uint32_t>(c.remote_stream);
  }
  return c;
}

} // namespace nafsim::workloads
