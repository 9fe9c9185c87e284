#include "workloads/chakra/ChakraNodes.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

namespace nafsim::workloads::chakra {

namespace {
ProgramOpKind collective_kind(const Ctx& c, unsigned r, const pb::Node& n)
{
  auto t = int_attr(n, "comm_type");
  if (!t)
    throw node_error(c, r, n, "comm_type", "a COMM_COLL_NODE needs its comm_type attribute");
  switch (*t) {
    case pb::ALL_REDUCE: return ProgramOpKind::AllReduce;
    case pb::REDUCE: return ProgramOpKind::Reduce;
    case pb::ALL_GATHER: return ProgramOpKind::AllGather;
    case pb::GATHER: return ProgramOpKind::Gather;
    case pb::SCATTER: return ProgramOpKind::Scatter;
    case pb::BROADCAST: return ProgramOpKind::Bcast;
    case pb::ALL_TO_ALL: return ProgramOpKind::AllToAll;
    case pb::REDUCE_SCATTER:
    case pb::REDUCE_SCATTER_BLOCK: return ProgramOpKind::ReduceScatter;
    case pb::BARRIER: return ProgramOpKind::Barrier;
    default: break;
  }
  throw node_error(c, r, n, "comm_type", fmt::format("unknown collective type {} (0-9 are Chakra's)", *t));
}

} // namespace

std::string rank_file(const std::string& prefix, unsigned r)
{
  return fmt::format("{}.{}.et", prefix, r);
}

const pb::AttributeProto* attr(const pb::Node& n, std::string_view name)
{
  for (auto const& a : n.attr())
    if (a.name() == name)
      return &a;
  return nullptr;
}

/// An integer attribute in whichever integer kind the writer chose.
std::optional<std::int64_t> int_attr(const pb::Node& n, std::string_view name)
{
  const pb::AttributeProto* a = attr(n, name);
  if (!a)
    return std::nullopt;
  using V = pb::AttributeProto;
  switch (a->value_case()) {
    case V::kInt32Val: return a->int32_val();
    case V::kInt64Val: return a->int64_val();
    case V::kUint32Val: return a->uint32_val();
    case V::kUint64Val: return static_cast<std::int64_t>(a->uint64_val());
    case V::kSint32Val: return a->sint32_val();
    case V::kSint64Val: return a->sint64_val();
    case V::kFixed32Val: return a->fixed32_val();
    case V::kFixed64Val: return static_cast<std::int64_t>(a->fixed64_val());
    case V::kSfixed32Val: return a->sfixed32_val();
    case V::kSfixed64Val: return a->sfixed64_val();
    case V::kBoolVal: return a->bool_val() ? 1 : 0;
    default: return std::nullopt;
  }
}

config::ConfigError node_error(const Ctx& c, unsigned r, const pb::Node& n, const std::string& field,
                               const std::string& msg)
{
  return config::ConfigError(c.file(r), fmt::format("node {} ('{}'){}", n.id(), n.name(), field.empty() ? "" : ", " + field),
                             msg);
}

void read_groups(Ctx& c)
{
  std::vector<unsigned> world(c.ranks);
  for (unsigned r = 0; r < c.ranks; ++r)
    world[r] = r;
  c.comms.push_back(world);
  c.comm_names.push_back("world");
  if (c.cfg.comm_groups.empty())
    return;
  std::ifstream in(c.cfg.comm_groups);
  if (!in)
    throw config::ConfigError(c.cfg.comm_groups, "", "cannot open the communicator groups file (workload.comm_groups)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw config::ConfigError(c.cfg.comm_groups, "", fmt::format("not JSON: {}", e.what()));
  }
  if (!j.is_object())
    throw config::ConfigError(c.cfg.comm_groups, "", "expected an object {\"<group id>\": [rank, ...], ...}");
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::vector<unsigned> m;
    if (!it.value().is_array())
      throw config::ConfigError(c.cfg.comm_groups, "/" + it.key(), "expected a list of ranks");
    for (auto const& v : it.value()) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= c.ranks)
        throw config::ConfigError(c.cfg.comm_groups, "/" + it.key(),
                                  fmt::format("{} is not one of the trace's {} ranks", v.dump(), c.ranks));
      m.push_back(v.get<unsigned>());
    }
    c.comms.push_back(m.empty() ? world : m);
    c.comm_names.push_back(it.key());
  }
}

void read_metadata_groups(Ctx& c, unsigned r, const pb::Node& n)
{
  if (n.type() != pb::METADATA_NODE || !n.has_inputs())
    return;
  auto j = nlohmann::json::parse(n.inputs().values(), nullptr, false);
  if (j.is_discarded() || !j.is_array())
    return;
  for (auto const& g : j) {
    if (!g.is_object() || !g.contains("pg_name"))
      continue;
    auto const& name = g["pg_name"];
    auto const& rs   = g.contains("ranks") ? g["ranks"] : nlohmann::json::array();
    if (!name.is_string() || !rs.is_array())
      throw node_error(c, r, n, "inputs.values", "a process group needs a string pg_name and a list of ranks");
    std::vector<unsigned> m;
    for (auto const& v : rs) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= c.ranks)
        throw node_error(c, r, n, "inputs.values",
                         fmt::format("group '{}': {} is not one of the trace's {} ranks", name.get<std::string>(),
                                     v.dump(), c.ranks));
      m.push_back(v.get<unsigned>());
    }
    if (m.empty())
      m = c.comms[0];
    auto it = std::find(c.comm_names.begin(), c.comm_names.end(), name.get<std::string>());
    if (it == c.comm_names.end()) {
      c.comm_names.push_back(name.get<std::string>());
      c.comms.push_back(std::move(m));
    } else if (c.comms[static_cast<std::size_t>(it - c.comm_names.begin())] != m) {
      throw node_error(c, r, n, "inputs.values",
                       fmt::format("group '{}' is declared elsewhere (comm_groups or another rank's metadata) with "
                                   "other ranks",
                                   name.get<std::string>()));
    }
  }
}

Local local_of(const Ctx& c, unsigned r, const pb::Node& n)
{
  Local l;
  l.node = &n;
  l.kind = ProgramOpKind::Wait;
  auto size = [&] {
    auto s = int_attr(n, "comm_size");
    if (!s || *s < 0)
      throw node_error(c, r, n, "comm_size", "a communication node needs a non-negative comm_size (bytes)");
    return static_cast<std::uint64_t>(*s);
  };
  auto peer = [&](const char* key) {
    auto p = int_attr(n, key);
    if (!p || *p < 0 || *p >= static_cast<std::int64_t>(c.ranks) || *p == static_cast<std::int64_t>(r))
      throw node_error(c, r, n, key, fmt::format("the peer must be another of the trace's {} ranks", c.ranks));
    return static_cast<int>(*p);
  };
  switch (n.type()) {
    case pb::COMP_NODE:
      if (c.cfg.compute == ChakraCompute::Replay) {
        l.kind     = n.duration_micros() > 0 ? ProgramOpKind::Compute : ProgramOpKind::Wait;
        l.duration = SimTime::us(static_cast<double>(n.duration_micros()));
      } else {
        auto work = [&](const char* key) {
          auto v = int_attr(n, key);
          if (v && *v < 0)
            throw node_error(c, r, n, key, "a compute node's work must not be negative");
          return static_cast<std::uint64_t>(v.value_or(0));
        };
        l.ops     = static_cast<double>(work("num_ops"));
        l.touched = work("tensor_size");
        l.kind    = l.ops > 0 || l.touched > 0 ? ProgramOpKind::Compute : ProgramOpKind::Wait;
      }
      break;
    case pb::COMM_SEND_NODE:
    case pb::COMM_RECV_NODE: {
      const bool send = n.type() == pb::COMM_SEND_NODE;
      l.kind          = send ? ProgramOpKind::Send : ProgramOpKind::Recv;
      l.peer          = peer(send ? "comm_dst" : "comm_src");
      l.bytes         = size();
      l.tag           = static_cast<std::uint32_t>(int_attr(n, "comm_tag").value_or(0));
      break;
    }
    case pb::COMM_COLL_NODE: {
      l.kind  = collective_kind(c, r, n);
      l.bytes = l.kind == ProgramOpKind::Barrier ? 0 : size();
      if (auto const* pg = attr(n, "pg_name"); pg && !pg->string_val().empty()) {
        auto it = std::find(c.comm_names.begin(), c.comm_names.end(), pg->string_val());
        if (it == c.comm_names.end())
          throw node_error(c, r, n, "pg_name", fmt::format("no communicator group '{}' (give workload.comm_groups)",
                                                           pg->string_val()));
        l.comm = static_cast<std::size_t>(it - c.comm_names.begin());
      }
      auto const& m = c.comms[l.comm];
      if (std::find(m.begin(), m.end(), r) == m.end())
        throw node_error(c, r, n, "pg_name", fmt::format("rank {} is not a member of group '{}'", r,
                                                         c.comm_names[l.comm]));
      // comm_size as the producers mean it (README.md): a reduce-scatter's and an all-to-all's is the rank's whole
      // input (ASTRA-sim's Ring.cc: msg = size / N; Chakra's PyTorch converter counts the input tensors), of which
      // each rank keeps, or each peer gets, 1/N: the CCLO's per-rank count is that share. Other types: as given.
      if (l.kind == ProgramOpKind::ReduceScatter || l.kind == ProgramOpKind::AllToAll)
        l.bytes /= m.size();
      break;
    }
    case pb::MEM_LOAD_NODE:
    case pb::MEM_STORE_NODE: {
      // Device-memory traffic: its recorded duration when replaying one, else its bytes (tensor_size) streamed
      // through the engine's compute model's memory (HBM on the FPGA, DRAM on the host).
      auto bytes = int_attr(n, "tensor_size");
      if (bytes && *bytes < 0)
        throw node_error(c, r, n, "tensor_size", "a memory node's bytes must not be negative");
      if (c.cfg.compute == ChakraCompute::Replay && n.duration_micros() > 0) {
        l.kind     = ProgramOpKind::Compute;
        l.duration = SimTime::us(static_cast<double>(n.duration_micros()));
      } else if (bytes && *bytes > 0) {
        l.kind    = ProgramOpKind::Compute;
        l.touched = static_cast<std::uint64_t>(*bytes);
      }
      break;
    }
    case pb::METADATA_NODE: break; // communicators: read_metadata_groups
    default: throw node_error(c, r, n, "type", fmt::format("node type {} cannot run", static_cast<int>(n.type())));
  }
  return l;
}

unsigned count_ranks(const ChakraConfig& cfg)
{
  if (cfg.trace.empty())
    throw config::ConfigError("", "/workload/trace", "give the trace's path prefix (files <trace>.<rank>.et)");
  if (cfg.replicate && cfg.ranks == 0)
    throw config::ConfigError("", "/workload/ranks", "replicate copies rank 0's file to `ranks` ranks: give ranks");
  if (cfg.ranks > 0)
    return cfg.ranks;
  unsigned n = 0;
  while (n < 65536 && std::filesystem::exists(rank_file(cfg.trace, n)))
    ++n;
  if (n == 0)
    throw config::ConfigError("", "/workload/trace",
                              fmt::format("no file {}: a trace is <trace>.<rank>.et, from rank 0", rank_file(cfg.trace, 0)));
  return n;
}

} // namespace nafsim::workloads::chakra
