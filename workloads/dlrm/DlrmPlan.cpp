#include "workloads/dlrm/DlrmPlan.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <stdexcept>
#include <fmt/format.h>

namespace nafsim::workloads {

namespace {

/// Split `n` into `parts` blocks as even as possible (the first n % parts take one more).
std::uint64_t block(std::uint64_t n, unsigned parts, unsigned i)
{
  return n / parts + (i < n % parts ? 1 : 0);
}

} // namespace

namespace {

/// The checks of the partition against the model and the device, before anything is placed.
void check_partition(const DlrmConfig& cfg, const nodes::FpgaFabricConfig& fabric)
{
  auto const& m = cfg.model;
  auto const& p = cfg.partition;
  if (m.fc.size() < 2)
    throw config::ConfigError("", "/workload/model/fc",
                              "the partition needs at least two FC layers (FC1 spread over the checkerboard, each "
                              "further layer on its own FPGA)");
  if (cfg.dsps.size() != m.fc.size())
    throw config::ConfigError("", "/workload/dsps",
                              fmt::format("{} DSP budgets for {} FC layers: give one per layer", cfg.dsps.size(),
                                          m.fc.size()));
  // (a multiply-add takes kernel.dsps_per_mac DSP slices: fewer than that build no multiply-add, which the kernel
  // model rounded up to one)
  for (std::size_t i = 0; i < cfg.dsps.size(); ++i)
    if (cfg.dsps[i] < cfg.kernel.dsps_per_mac || cfg.dsps[i] > fabric.dsps)
      throw config::ConfigError("", fmt::format("/workload/dsps/{}", i),
                                fmt::format("{} DSPs: a layer's kernel uses between one multiply-add's {} "
                                            "(workload.kernel.dsps_per_mac) and the device's {} "
                                            "(platform.node.fpga.fabric.dsps)",
                                            cfg.dsps[i], cfg.kernel.dsps_per_mac, fabric.dsps));
  if (!m.table_bytes.empty() && m.table_bytes.size() != m.tables)
    throw config::ConfigError("", "/workload/model/table_bytes",
                              fmt::format("{} sizes for {} tables: give one per table or none", m.table_bytes.size(),
                                          m.tables));
  if (!p.table_nodes.empty() && p.table_nodes.size() != m.tables)
    throw config::ConfigError("", "/workload/partition/table_nodes",
                              fmt::format("{} entries for {} tables: give the embedding node of every table or none",
                                          p.table_nodes.size(), m.tables));
  if (p.embedding_nodes > m.tables)
    throw config::ConfigError("", "/workload/partition/embedding_nodes",
                              fmt::format("{} embedding nodes for {} tables: every embedding node needs a table",
                                          p.embedding_nodes, m.tables));
}

/// Builds the plan: E rows of C FC1 nodes (column 0 is the row's embedding node, the last column gathers the row's
/// partial results), then one node per further layer.
class PlanBuilder {
public:
  PlanBuilder(const DlrmConfig& cfg, const nodes::FpgaFabricConfig& fabric)
      : cfg_(cfg), m_(cfg.model), fabric_(fabric), E(cfg.partition.embedding_nodes), C(cfg.partition.fc1_column_blocks),
        layers_(static_cast<unsigned>(cfg.model.fc.size())), vec_(cfg.model.embedding_dim * kElem)
  {
    place_tables();
    plan_.nodes.resize(E * C + (layers_ - 1));
    // The reduction of FC1's partial results: each row's gathering node, then the FC2 node (root, last).
    for (unsigned r = 0; r < E; ++r)
      group_.push_back(partner(r, C - 1));
    group_.push_back(layer_node(1));
  }

  DlrmPlan build()
  {
    for (unsigned r = 0; r < E; ++r) {
      embedding_node(r);
      for (unsigned c = 1; c < C; ++c)
        fc1_node(r, c);
    }
    for (unsigned l = 1; l < layers_; ++l) // every further layer on its own node
      layer(l);
    return std::move(plan_);
  }

private:
  static constexpr std::uint64_t kElem = 4; // 32-bit fixed point
  const DlrmConfig& cfg_;
  const DlrmModelConfig& m_;
  const nodes::FpgaFabricConfig& fabric_;
  const unsigned E, C, layers_;
  const std::uint64_t vec_;
  std::vector<unsigned> node_of_; ///< each table's embedding node
  std::vector<unsigned> group_;
  DlrmPlan plan_;

  unsigned partner(unsigned r, unsigned c) const { return c == 0 ? r : E + r * (C - 1) + (c - 1); }
  unsigned layer_node(unsigned l) const { return E * C + (l - 1); } // l >= 1
  std::uint64_t size_of(unsigned t) const
  {
    return m_.table_bytes.empty() ? block(m_.embedding_bytes.count, m_.tables, t) : m_.table_bytes[t].count;
  }
  std::uint64_t fc1_block(unsigned c) const { return block(m_.fc[0], C, c); }

  /// Tables -> embedding nodes.
  void place_tables()
  {
    auto const& p = cfg_.partition;
    node_of_.resize(m_.tables);
    for (unsigned t = 0; t < m_.tables; ++t) {
      if (!p.table_nodes.empty()) {
        node_of_[t] = p.table_nodes[t];
        if (node_of_[t] >= E)
          throw config::ConfigError("", fmt::format("/workload/partition/table_nodes/{}", t),
                                    fmt::format("embedding node {} does not exist (embedding_nodes = {})", node_of_[t], E));
      } else {
        node_of_[t] = static_cast<unsigned>(std::uint64_t{t} * E / m_.tables);
      }
    }
  }

  nodes::FpgaKernel kernel(unsigned layer) const
  {
    nodes::FpgaKernelConfig k = cfg_.kernel;
    k.dsps                    = cfg_.dsps[layer];
    return nodes::FpgaKernel(fabric_, k);
  }

  unsigned fc_op(DlrmNode& n, unsigned layer, std::uint64_t in, std::uint64_t out, std::vector<unsigned> deps)
  {
    const std::uint64_t weights = in * out * kElem;
    const std::uint64_t room = fabric_.onchip_bytes() > n.onchip_bytes ? fabric_.onchip_bytes() - n.onchip_bytes : 0;
    auto t                   = kernel(layer).vector_matrix(in, out, room, fabric_.hbm_channels);
    if (t.weights_on_chip)
      n.onchip_bytes += weights;
    else
      n.hbm_bytes += weights;
    DlrmOp op;
    op.kind     = DlrmOpKind::Compute;
    op.name     = fmt::format("fc{} {}x{}{}", layer + 1, in, out, t.weights_on_chip ? "" : " (weights in HBM)");
    op.duration = t.total;
    op.deps     = std::move(deps);
    n.ops.push_back(std::move(op));
    return static_cast<unsigned>(n.ops.size() - 1);
  }

  unsigned comm(DlrmNode& n, DlrmOpKind kind, DlrmTag tag, std::string name, unsigned peer, std::uint64_t bytes,
                std::vector<unsigned> deps)
  {
    DlrmOp op;
    op.kind  = kind;
    op.name  = std::move(name);
    op.peer  = peer;
    op.bytes = bytes;
    op.deps  = std::move(deps);
    op.tag   = tag;
    if (kind == DlrmOpKind::Reduce)
      op.group = group_;
    n.ops.push_back(std::move(op));
    return static_cast<unsigned>(n.ops.size() - 1);
  }

  /// Embedding node r: its tables, the lookup, its slice of the concatenated vector.
  void embedding_node(unsigned r)
  {
    DlrmNode& e = plan_.nodes[partner(r, 0)];
    e.role      = fmt::format("embedding {}", r);
    for (unsigned t = 0; t < m_.tables; ++t)
      if (node_of_[t] == r) {
        e.tables++;
        e.hbm_bytes += size_of(t);
      }
    if (e.tables == 0)
      throw config::ConfigError("", "/workload/partition/table_nodes",
                                fmt::format("embedding node {} holds no table: every embedding node needs one", r));
    if (e.hbm_bytes > fabric_.hbm.count)
      throw_hbm_overflow(r, e.hbm_bytes);
    const std::uint64_t slice = slice_of(r);
    DlrmOp lookup;
    lookup.kind     = DlrmOpKind::Lookup;
    lookup.name     = fmt::format("lookup {} tables", e.tables);
    lookup.duration = kernel(0).lookups(e.tables, 0, vec_);
    e.ops.push_back(lookup);
    for (unsigned c = 1; c < C; ++c)
      comm(e, DlrmOpKind::Send, kTagSlice, fmt::format("send embedding slice to fc1 r{} c{}", r, c), partner(r, c),
           slice * kElem, {0});
    const unsigned fc = fc_op(e, 0, slice, fc1_block(0), {0});
    if (C == 1)
      comm(e, DlrmOpKind::Reduce, kTagCollective, "reduce fc1", 0, m_.fc[0] * kElem, {fc});
    else
      comm(e, DlrmOpKind::Send, kTagPartial, fmt::format("send partial to fc1 r{} c{}", r, C - 1), partner(r, C - 1),
           fc1_block(0) * kElem, {fc});
  }

  /// Embedding node r's tables overflow its HBM: what to change. Tables placed by table_nodes are moved there; the
  /// default placement (contiguous runs of tables) names the fewest embedding nodes whose runs all fit, or the table
  /// no node can hold.
  [[noreturn]] void throw_hbm_overflow(unsigned r, std::uint64_t bytes) const
  {
    const std::string held = fmt::format("embedding node {} holds {} of tables, its HBM {} (platform.node.fpga.fabric.hbm)",
                                         r, format_bytes(Bytes{bytes}), format_bytes(fabric_.hbm));
    if (!cfg_.partition.table_nodes.empty())
      throw config::ConfigError("", "/workload/partition/table_nodes",
                                held + ": place fewer of its tables on it");
    for (unsigned t = 0; t < m_.tables; ++t)
      if (size_of(t) > fabric_.hbm.count)
        throw config::ConfigError("", "/workload/model/table_bytes",
                                  fmt::format("{}: table {} alone ({}) is larger than one FPGA's HBM, which no "
                                              "placement changes; split it or give a larger HBM",
                                              held, t, format_bytes(Bytes{size_of(t)})));
    for (unsigned n = E + 1; n <= m_.tables; ++n) {
      std::vector<std::uint64_t> load(n, 0);
      for (unsigned t = 0; t < m_.tables; ++t)
        load[static_cast<unsigned>(std::uint64_t{t} * n / m_.tables)] += size_of(t);
      if (*std::max_element(load.begin(), load.end()) <= fabric_.hbm.count)
        throw config::ConfigError("", "/workload/partition/embedding_nodes",
                                  fmt::format("{}: spread the tables over more embedding nodes ({} is the fewest "
                                              "whose tables, placed in runs as by default, all fit)",
                                              held, n));
    }
    throw config::ConfigError("", "/workload/partition/table_nodes",
                              held + ": no number of embedding nodes fits the tables in runs; place them with table_nodes");
  }

  /// Row r's embedding slice, in elements (its tables' vectors).
  std::uint64_t slice_of(unsigned r) const
  {
    return std::uint64_t{plan_.nodes[partner(r, 0)].tables} * m_.embedding_dim;
  }

  /// FC1 node (r, c >= 1): the row's slice in, its block of FC1, its partial result to the row's last column, which
  /// reduces the row's partials and joins the reduction towards FC2.
  void fc1_node(unsigned r, unsigned c)
  {
    const std::uint64_t slice = slice_of(r);
    DlrmNode& n               = plan_.nodes[partner(r, c)];
    n.role                    = fmt::format("fc1 r{} c{}", r, c);
    const unsigned in = comm(n, DlrmOpKind::Recv, kTagSlice, fmt::format("recv embedding slice from embedding {}", r),
                             partner(r, 0), slice * kElem, {});
    const unsigned f  = fc_op(n, 0, slice, fc1_block(c), {in});
    const unsigned reducer_col = C - 1;
    if (c < reducer_col) {
      comm(n, DlrmOpKind::Send, kTagPartial, fmt::format("send partial to fc1 r{} c{}", r, reducer_col),
           partner(r, reducer_col), fc1_block(c) * kElem, {f});
      return;
    }
    std::vector<unsigned> deps{f};
    for (unsigned c2 = 0; c2 < reducer_col; ++c2)
      deps.push_back(comm(n, DlrmOpKind::Recv, kTagPartial, fmt::format("recv partial from fc1 r{} c{}", r, c2),
                          partner(r, c2), fc1_block(c2) * kElem, {}));
    comm(n, DlrmOpKind::Reduce, kTagCollective, "reduce fc1", 0, m_.fc[0] * kElem, deps);
  }

  /// Layer l >= 1 on its own node: FC1's reduction (its root) or the layer before in, the layer, its output on.
  void layer(unsigned l)
  {
    DlrmNode& n = plan_.nodes[layer_node(l)];
    n.role      = fmt::format("fc{}", l + 1);
    const unsigned in =
        l == 1 ? comm(n, DlrmOpKind::Reduce, kTagCollective, "reduce fc1 (root)", 0, m_.fc[0] * kElem, {})
               : comm(n, DlrmOpKind::Recv, kTagLayer, fmt::format("recv from fc{}", l), layer_node(l - 1),
                      m_.fc[l - 1] * kElem, {});
    const unsigned f = fc_op(n, l, m_.fc[l - 1], m_.fc[l], {in});
    if (l + 1 < layers_) {
      comm(n, DlrmOpKind::Send, kTagLayer, fmt::format("send to fc{}", l + 2), layer_node(l + 1), m_.fc[l] * kElem, {f});
    } else {
      plan_.final_node = layer_node(l);
      plan_.final_op   = f;
    }
  }
};

} // namespace

DlrmPlan make_dlrm_plan(const DlrmConfig& cfg, const nodes::FpgaFabricConfig& fabric)
{
  check_partition(cfg, fabric);
  DlrmPlan plan = PlanBuilder(cfg, fabric).build();
  // Every receive stream expects its peer's messages in the order the peer's send stream issues them (the builder
  // lists a row's slice before its partial on both ends): otherwise the hardware's seek would wait for ever.
  for (unsigned from = 0; from < plan.nodes.size(); ++from)
    for (unsigned to = 0; to < plan.nodes.size(); ++to)
      if (dlrm_send_order(plan, from, to) != dlrm_receive_order(plan, from, to))
        throw std::logic_error(fmt::format("DLRM plan: node {} sends to node {} other messages, or in another tag "
                                           "order, than that node receives",
                                           from, to));
  return plan;
}

std::vector<std::vector<unsigned>> dlrm_streams(const DlrmNode& node)
{
  std::vector<std::vector<unsigned>> streams;
  std::vector<std::pair<DlrmOpKind, unsigned>> keys; // (Send or Recv, peer) of each stream; Compute for others
  for (unsigned j = 0; j < node.ops.size(); ++j) {
    auto const& op = node.ops[j];
    if (op.kind == DlrmOpKind::Send || op.kind == DlrmOpKind::Recv) {
      auto it = std::find(keys.begin(), keys.end(), std::pair{op.kind, op.peer});
      if (it != keys.end()) {
        streams[static_cast<std::size_t>(it - keys.begin())].push_back(j);
        continue;
      }
      keys.emplace_back(op.kind, op.peer);
    } else {
      keys.emplace_back(DlrmOpKind::Compute, 0);
    }
    streams.push_back({j});
  }
  return streams;
}

namespace {

std::vector<std::uint32_t> order_of(const DlrmNode& node, DlrmOpKind kind, unsigned peer)
{
  std::vector<std::uint32_t> tags;
  for (auto const& stream : dlrm_streams(node))
    for (auto j : stream)
      if (node.ops[j].kind == kind && node.ops[j].peer == peer)
        tags.push_back(node.ops[j].tag);
  return tags;
}

} // namespace

std::vector<std::uint32_t> dlrm_send_order(const DlrmPlan& plan, unsigned from, unsigned to)
{
  return order_of(plan.nodes.at(from), DlrmOpKind::Send, to);
}

std::vector<std::uint32_t> dlrm_receive_order(const DlrmPlan& plan, unsigned from, unsigned to)
{
  return order_of(plan.nodes.at(to), DlrmOpKind::Recv, from);
}

DlrmCpuBatch dlrm_cpu_batch(const DlrmConfig& cfg, unsigned batch)
{
  auto const& b = cfg.cpu_baseline;
  auto const& m = cfg.model;
  nodes::CpuCompute cpu(b.cpu);
  const unsigned threads = b.cpu.cores;
  DlrmCpuBatch r;
  r.batch = batch;
  // The graph: one gather per table (run in parallel by the executor's inter-op threads), the concat,
  // then per FC layer a MatMul, a BiasAdd and an activation, one after another.
  const std::uint64_t critical_ops = (m.tables + threads - 1) / threads + 1 + 3 * m.fc.size();
  r.overhead = b.request_overhead + b.op_overhead * static_cast<std::int64_t>(critical_ops);
  r.lookups  = cpu.random_reads(std::uint64_t{batch} * m.tables, std::uint64_t{m.embedding_dim} * 4, threads);
  // The FC layers in steady state: the server has run the model before, so the weights are wherever
  // the previous batch left them (run the layers twice through the cache model, time the second pass).
  nodes::CpuCache cache;
  SimTime fc;
  for (int pass = 0; pass < 2; ++pass) {
    fc = SimTime{};
    std::uint64_t in = std::uint64_t{m.tables} * m.embedding_dim;
    for (std::size_t l = 0; l < m.fc.size(); ++l) {
      fc += cpu.fc_batch(cache, fmt::format("fc{}", l + 1), in, m.fc[l], batch, threads).total;
      in = m.fc[l];
    }
    const std::uint64_t line = std::max<std::uint64_t>(b.cpu.cache_line.count, 1);
    cache.access("embeddings", std::uint64_t{batch} * m.tables * ((m.embedding_dim * 4 + line - 1) / line) * line, 0, 0);
  }
  r.fc         = fc;
  r.total      = r.overhead + r.lookups + r.fc;
  r.throughput = batch / r.total.seconds();
  return r;
}

} // namespace nafsim::workloads
