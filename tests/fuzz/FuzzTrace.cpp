// nafsim-fuzz: Chakra traces. Each case builds a small trace that would run (collectives every rank calls alike,
// a ring of send / recv, compute and memory nodes, process groups in a metadata node), then damages it: structured
// (awkward attribute values, dependencies on missing nodes, on themselves or in a cycle, duplicate ids, unknown
// types) and at the byte level (a byte changed, the file cut, garbage or an overlong varint appended, a length
// claiming more than the file holds), or leaves a rank file out. Run as a chakra workload on either engine.
#include "tests/fuzz/FuzzCase.hpp"
#include "workloads/chakra/ChakraWrite.hpp"

#include <fmt/format.h>

namespace nafsim::fuzz {

namespace pb     = ChakraProtoMsg;
namespace chakra = workloads::chakra;
using chakra::add_int;

namespace {

/// Rank r's nodes of a trace every rank of which runs: the same collectives, a ring of send / recv.
std::vector<pb::Node> valid_rank(unsigned r, unsigned p, std::size_t steps, std::uint64_t layout)
{
  static const std::vector<std::int64_t> sizes{0, 4, 1024, 65536, 1 << 20};
  std::vector<pb::Node> nodes;
  std::uint64_t id = 1;
  auto add = [&](pb::NodeType t, const std::string& name) -> pb::Node& {
    pb::Node n = chakra::make_node(id, t, name);
    if (id > 1)
      n.add_ctrl_deps(id - 1);
    ++id;
    nodes.push_back(std::move(n));
    return nodes.back();
  };
  auto& meta = add(pb::METADATA_NODE, "groups");
  meta.mutable_inputs()->set_values(R"([{"pg_name": "all", "ranks": []}])");
  std::mt19937_64 same(layout); // what every rank does at each step: the same for all of them
  for (std::size_t s = 0; s < steps; ++s) {
    const auto kind  = same() % 5;
    const auto bytes = sizes[same() % sizes.size()];
    if (kind == 0) {
      auto& n = add(pb::COMM_COLL_NODE, "coll");
      add_int(n, "comm_type", static_cast<std::int64_t>(same() % 10));
      add_int(n, "comm_size", bytes);
      if (same() % 2 == 0) {
        auto* a = n.add_attr();
        a->set_name("pg_name");
        a->set_string_val("all");
      }
    } else if (kind == 1 && p > 1) {
      auto& snd = add(pb::COMM_SEND_NODE, "send");
      add_int(snd, "comm_dst", (r + 1) % p);
      add_int(snd, "comm_size", bytes);
      add_int(snd, "comm_tag", static_cast<std::int64_t>(s));
      auto& rcv = add(pb::COMM_RECV_NODE, "recv");
      rcv.clear_ctrl_deps(); // in flight beside the send
      if (rcv.id() > 2)
        rcv.add_ctrl_deps(rcv.id() - 2);
      add_int(rcv, "comm_src", (r + p - 1) % p);
      add_int(rcv, "comm_size", bytes);
      add_int(rcv, "comm_tag", static_cast<std::int64_t>(s));
    } else if (kind == 2) {
      auto& n = add(pb::COMP_NODE, "compute");
      n.set_duration_micros(same() % 50);
      add_int(n, "num_ops", static_cast<std::int64_t>(same() % 1'000'000'000));
      add_int(n, "tensor_size", bytes);
    } else {
      auto& n = add(same() % 2 ? pb::MEM_LOAD_NODE : pb::MEM_STORE_NODE, "memory");
      add_int(n, "tensor_size", bytes);
    }
  }
  return nodes;
}

/// One structured damage to a rank's nodes; returns what it did.
std::string damage_nodes(Gen& g, std::vector<pb::Node>& nodes)
{
  if (nodes.empty())
    return "none";
  pb::Node& n = nodes[g.below(nodes.size())];
  static const std::vector<std::int64_t> awkward{-1, 0, 1, 7, 4096, 1LL << 31, 1LL << 40, 1LL << 62,
                                                 INT64_MAX, INT64_MIN, 1000000};
  static const std::vector<std::string> keys{"comm_size", "comm_type", "comm_src", "comm_dst", "comm_tag",
                                             "num_ops", "tensor_size", "comm_priority"};
  switch (g.below(9)) {
    case 0: {
      const std::string k = g.pick(keys);
      const std::int64_t v = g.pick(awkward);
      n.clear_attr();
      add_int(n, k, v);
      return fmt::format("node {} only {}={}", n.id(), k, v);
    }
    case 1: {
      const std::string k = g.pick(keys);
      auto* a             = n.add_attr(); // a second value of another kind
      a->set_name(k);
      switch (g.below(4)) {
        case 0: a->set_string_val("12"); break;
        case 1: a->set_double_val(1e300); break;
        case 2: a->set_bool_val(true); break;
        default: a->set_uint64_val(UINT64_MAX); break;
      }
      return fmt::format("node {} {} of an odd kind", n.id(), k);
    }
    case 2: n.add_ctrl_deps(n.id()); return fmt::format("node {} depends on itself", n.id());
    case 3: n.add_data_deps(1'000'000 + g.below(5)); return fmt::format("node {} depends on a missing node", n.id());
    case 4: {
      pb::Node& m = nodes[g.below(nodes.size())];
      n.add_ctrl_deps(m.id());
      m.add_data_deps(n.id());
      return fmt::format("nodes {} and {} depend on each other", n.id(), m.id());
    }
    case 5: nodes.push_back(n); return fmt::format("node {} twice", n.id());
    case 6: n.set_type(static_cast<pb::NodeType>(g.pick(std::vector<int>{0, 8, 99, -1}))); return "odd node type";
    case 7: n.set_duration_micros(g.pick(std::vector<std::uint64_t>{1ULL << 40, UINT64_MAX, 1ULL << 20}));
      return fmt::format("node {} long", n.id());
    default: {
      auto* a = n.add_attr();
      a->set_name("pg_name");
      a->set_string_val(g.pick(std::vector<std::string>{"", "nope", "all", std::string(1000, 'g')}));
      return fmt::format("node {} pg_name", n.id());
    }
  }
}

/// One byte-level damage.
std::string damage_bytes(Gen& g, std::string& s)
{
  switch (g.below(5)) {
    case 0:
      if (!s.empty())
        s[g.below(s.size())] = static_cast<char>(g.below(256));
      return "a byte changed";
    case 1: s.resize(g.below(s.size() + 1)); return "cut";
    case 2: s += std::string(10, '\xFF') + "\x01"; return "an overlong varint";
    case 3: s += "\xFF\xFF\xFF\xFF\x0F"; return "a length beyond the file";
    default: s += std::string(g.below(64), static_cast<char>(g.below(256))); return "garbage appended";
  }
}

} // namespace

Case make_trace_case(Gen& g, Case c, const fs::path& scratch)
{
  const unsigned p          = 1 + static_cast<unsigned>(g.below(4));
  const std::size_t steps   = 1 + g.below(6);
  const std::uint64_t layout = g.below(1'000'000);
  const std::string prefix  = (scratch / fmt::format("trace-{}", c.index)).string();
  const bool mpi            = g.chance(0.3);
  c.base                    = "chakra trace";
  c.what                    = fmt::format("{} ranks, {} steps, layout {}; ", p, steps, layout);
  std::vector<std::string> files(p);
  const unsigned damaged = static_cast<unsigned>(g.below(p));
  for (unsigned r = 0; r < p; ++r) {
    auto nodes = valid_rank(r, p, steps, layout);
    if (r == damaged && g.chance(0.5))
      c.what += damage_nodes(g, nodes) + "; ";
    files[r] = chakra::rank_bytes(nodes);
    if (r == damaged && g.chance(0.3))
      c.what += damage_bytes(g, files[r]) + "; ";
  }
  const bool missing = p > 1 && g.chance(0.1);
  for (unsigned r = 0; r < p; ++r)
    if (!(missing && r == damaged))
      c.files.emplace_back(fmt::format("trace-{}.{}.et", c.index, r), files[r]);
  if (missing)
    c.what += fmt::format("rank {}'s file missing; ", damaged);
  Json w{{"kind", "chakra"}, {"trace", prefix}, {"engine", mpi ? "mpi" : "cclo"}};
  if (missing || g.chance(0.3))
    w["ranks"] = p;
  if (g.chance(0.3))
    w["compute"] = "model";
  if (g.chance(0.1)) {
    w["replicate"] = true;
    w["ranks"]     = 1 + g.below(6);
    c.what += "replicate; ";
  }
  Json platform{{"preset", mpi ? "accl-cpu-cx5" : "accl-coyote-u55c"},
                {"topology", {{"kind", "star"}, {"hosts", g.chance(0.1) ? 1 : 8}}}};
  c.text = Json{{"name", fmt::format("fuzz-trace-{}", c.index)}, {"platform", platform}, {"workload", w}}.dump(1);
  c.args = {"--set", "max_sim_time=20ms"};
  c.out  = (scratch / fmt::format("out-{}", c.index)).string();
  c.args.push_back("--out");
  c.args.push_back(c.out);
  return c;
}

} // namespace nafsim::fuzz
