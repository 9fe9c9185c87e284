// Writes Chakra execution traces (<prefix>.<rank>.et, protobuf delimited framing, the schema part nafsim reads:
// workloads/chakra/chakra.proto) for nafsim's tests and examples and for users:
//   nafsim-chakra-write collective KIND RANKS BYTES PREFIX [COUNT [COMPUTE_US [COMPUTES]]]
//                                                             COUNT collectives per rank (default 1; KIND: allreduce,
//                                                             allgather, reduce-scatter, alltoall, bcast, reduce,
//                                                             gather, scatter, barrier), one after the other, each
//                                                             after COMPUTES (default 1) compute nodes of COMPUTE_US
//                                                             in a chain (default 0: none); BYTES is comm_size as
//                                                             ASTRA-sim and PyTorch mean it (workloads/chakra/
//                                                             README.md): the rank's whole input for reduce-scatter
//                                                             and alltoall (each rank keeps / each peer gets
//                                                             BYTES / RANKS), the rank's shard for allgather
//   nafsim-chakra-write ring RANKS BYTES PREFIX [COMPUTE_US] a ring allreduce's traffic as send / recv nodes with
//                                                             dependencies (reduce-scatter then allgather, one chunk
//                                                             of BYTES / RANKS per step), a compute node of
//                                                             COMPUTE_US before each send of the reduce-scatter
//                                                             standing for the reduction (default 0: none)
#include "workloads/chakra/ChakraWrite.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace pb = ChakraProtoMsg;
using nafsim::workloads::chakra::add_int;
using nafsim::workloads::chakra::make_node;

namespace {

bool write(const std::string& prefix, unsigned rank, const std::vector<pb::Node>& nodes)
{
  const std::string file = prefix + "." + std::to_string(rank) + ".et";
  const bool ok          = nafsim::workloads::chakra::write_rank(file, nodes);
  if (!ok)
    std::fprintf(stderr, "nafsim-chakra-write: cannot write %s\n", file.c_str());
  return ok;
}

/// The usage on stderr (exit 2, a wrong command line), or on stdout when asked for (--help: exit 0).
int usage(bool asked = false)
{
  std::fprintf(asked ? stdout : stderr,
               "usage: nafsim-chakra-write collective KIND RANKS BYTES PREFIX [COUNT [COMPUTE_US [COMPUTES]]]\n"
               "       nafsim-chakra-write ring RANKS BYTES PREFIX [COMPUTE_US]\n");
  return asked ? 0 : 2;
}

int collective(const std::string& kind, unsigned p, std::uint64_t bytes, const std::string& prefix,
               std::uint64_t count, std::uint64_t compute_us, std::uint64_t computes)
{
  static const std::map<std::string, pb::CollectiveCommType> kinds{
      {"allreduce", pb::ALL_REDUCE}, {"reduce", pb::REDUCE},   {"allgather", pb::ALL_GATHER},
      {"gather", pb::GATHER},        {"scatter", pb::SCATTER}, {"bcast", pb::BROADCAST},
      {"alltoall", pb::ALL_TO_ALL},  {"reduce-scatter", pb::REDUCE_SCATTER}, {"barrier", pb::BARRIER}};
  auto it = kinds.find(kind);
  if (it == kinds.end())
    return usage();
  for (unsigned r = 0; r < p; ++r) {
    std::vector<pb::Node> nodes;
    std::uint64_t id = 1;
    for (std::uint64_t k = 0; k < count; ++k) {
      std::vector<std::uint64_t> before;
      if (id > 1)
        before.push_back(id - 1);
      for (std::uint64_t j = 0; compute_us > 0 && j < computes; ++j) {
        auto c = make_node(id++, pb::COMP_NODE, "compute", before);
        c.set_duration_micros(compute_us);
        nodes.push_back(c);
        before = {c.id()};
      }
      auto n = make_node(id++, pb::COMM_COLL_NODE, kind, before);
      add_int(n, "comm_type", it->second);
      add_int(n, "comm_size", static_cast<std::int64_t>(bytes));
      nodes.push_back(n);
    }
    if (!write(prefix, r, nodes))
      return 3;
  }
  return 0;
}

int ring(unsigned p, std::uint64_t bytes, const std::string& prefix, std::uint64_t compute_us)
{
  const auto chunk = static_cast<std::int64_t>(bytes / p);
  for (unsigned r = 0; r < p; ++r) {
    std::vector<pb::Node> nodes;
    std::uint64_t id = 1, last = 0; // the node the next step waits for (0: none)
    for (unsigned step = 0; step < 2 * (p - 1); ++step) {
      std::vector<std::uint64_t> before;
      if (last != 0)
        before.push_back(last);
      // The reduction of the chunk received the step before: after each of the reduce-scatter's p - 1 steps, the
      // last one's before the first all-gather step sends the finished chunk (p - 2 of them, the last left out,
      // before 2026-12-06).
      if (step > 0 && step < p && compute_us > 0) {
        auto c = make_node(id++, pb::COMP_NODE, "reduce-chunk", before);
        c.set_duration_micros(compute_us);
        nodes.push_back(c);
        before = {c.id()};
      }
      auto s = make_node(id++, pb::COMM_SEND_NODE, "send-step-" + std::to_string(step), before);
      add_int(s, "comm_size", chunk);
      add_int(s, "comm_dst", (r + 1) % p);
      add_int(s, "comm_tag", step);
      auto v = make_node(id++, pb::COMM_RECV_NODE, "recv-step-" + std::to_string(step), before);
      add_int(v, "comm_size", chunk);
      add_int(v, "comm_src", (r + p - 1) % p);
      add_int(v, "comm_tag", step);
      auto j = make_node(id++, pb::COMP_NODE, "step-done", {s.id(), v.id()}); // both halves of the step
      last   = j.id();
      nodes.push_back(s);
      nodes.push_back(v);
      nodes.push_back(j);
    }
    if (!write(prefix, r, nodes))
      return 3;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() == 1 && (a[0] == "--help" || a[0] == "-h"))
    return usage(true);
  try {
    if (a.size() >= 5 && a.size() <= 8 && a[0] == "collective" && std::stoul(a[2]) >= 1)
      return collective(a[1], static_cast<unsigned>(std::stoul(a[2])), std::stoull(a[3]), a[4],
                        a.size() > 5 ? std::stoull(a[5]) : 1, a.size() > 6 ? std::stoull(a[6]) : 0,
                        a.size() > 7 ? std::stoull(a[7]) : 1);
    if ((a.size() == 4 || a.size() == 5) && a[0] == "ring" && std::stoul(a[1]) >= 2)
      return ring(static_cast<unsigned>(std::stoul(a[1])), std::stoull(a[2]), a[3],
                  a.size() == 5 ? std::stoull(a[4]) : 0);
  } catch (const std::exception&) {
  }
  return usage();
}
