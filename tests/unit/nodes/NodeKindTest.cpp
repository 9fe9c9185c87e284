// Node kinds are a registry (nodes/platform/NodeKindRegistry.hpp): a kind defined in this file alone (a bare RDMA
// NIC with a parameter section of its own) is built, checked, connected and reported by the cluster beside the
// registered FPGA kind, engine-free, with nothing in nodes/platform knowing it.
#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/platform/Cluster.hpp"
#include "nodes/platform/ClusterReport.hpp"

#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::nodes;

namespace nafsim::nodes {
void register_fpga_kind(NodeKindRegistry& r); // nodes/fpga/FpgaKind.cpp
}

namespace {

struct ProbeConfig {
  unsigned initial_psn = 100;
  PoeConfig nic;
  roce::RoceConfig rdma;
  PcieConfig pcie;
  template <class V> void describe(V& v)
  {
    v.field("initial_psn", initial_psn, "first PSN of its queue pairs");
    v.field("nic", nic, "its RDMA engine's timing");
    v.field("rdma", rdma, "its RoCE parameters");
    v.field("pcie", pcie, "its host link");
  }
};

// A bare RDMA NIC in host memory: what a new kind of node needs to give the cluster.
class ProbeNode final : public Node, public PoeListener {
public:
  static constexpr std::string_view kKind = "probe";
  ProbeNode(const NodeBuild& b, const ProbeConfig& c)
      : Node(kKind), cfg_(c), memory_(MemoryConfig{}, c.pcie), nic_(b.id, c.nic, c.rdma, b.sched, b.fabric, memory_, *this)
  {
    b.fabric.attach(b.id, &nic_);
  }
  RdmaPoe& rdma() override { return nic_; }
  const RdmaPoe& rdma() const override { return nic_; }
  const MemorySystem& memory() const override { return memory_; }
  Transport transport_kind() const override { return Transport::Roce; }
  Poe& transport() override { return nic_; }
  std::string config_path() const override { return "/platform/node/probe"; }
  unsigned initial_psn() const override { return cfg_.initial_psn; }
  void set_trace(results::Trace& t, std::uint32_t pid) override { nic_.set_trace(&t, pid); }
  void on_completion(QpId, const roce::Completion& c) override { completions.push_back(c); }
  void on_inbound(QpId, const roce::InboundMessage& m) override { inbound.push_back(m); }

  std::vector<roce::Completion> completions;
  std::vector<roce::InboundMessage> inbound;

private:
  ProbeConfig cfg_;
  MemorySystem memory_;
  RdmaPoe nic_;
};

NodeKindRegistry fpga_and_probe(int* checks)
{
  NodeKindRegistry r;
  register_fpga_kind(r);
  NodeKindEntry e;
  e.name        = std::string(ProbeNode::kKind);
  e.description = "a bare RDMA NIC (test)";
  e.plural      = "probes";
  e.a_node      = "a probe";
  e.make        = [](const NodeBuild& b) -> std::unique_ptr<Node> {
    return std::make_unique<ProbeNode>(b, b.platform.node.params(ProbeNode::kKind).as<ProbeConfig>());
  };
  e.check  = [checks](const PlatformConfig&) { ++*checks; };
  e.report = [](const Cluster& c, const std::vector<std::size_t>& at, results::ResultSink& sink) {
    results::Table t("probe_nodes", {"node", "completions"});
    for (std::size_t i : at)
      t.row().add(i).add(static_cast<std::uint64_t>(c.at<ProbeNode>(i).completions.size()));
    sink.add(std::move(t));
  };
  e.params = [] { return KindParams::of(ProbeConfig{}); };
  r.add(std::move(e));
  return r;
}

const results::Table* table(const results::ResultSink& s, const std::string& name)
{
  for (auto const& t : s.tables())
    if (t.name() == name)
      return &t;
  return nullptr;
}

} // namespace

TEST(NodeKind, ANewKindIsBuiltConnectedAndReportedByTheClusterFromItsOwnRegistration)
{
  int checks = 0;
  NodeKindRegistry kinds = fpga_and_probe(&checks);
  PlatformConfig cfg;
  cfg.node              = NodeConfig(kinds);
  cfg.topology.hosts    = 3;
  // Its section reads from JSON like any other (and an unknown key in it is an error at its path).
  config::Origins origins;
  config::Reader::read(config::Json::parse(R"({"kinds": [], "probe": {"initial_psn": 7}})"), cfg.node,
                       "/platform/node", origins);
  EXPECT_THROW(config::Reader::read(config::Json::parse(R"({"probe": {"psn": 7}})"), cfg.node, "/platform/node", origins),
               config::ConfigError);
  cfg.node.kinds = {NodeKindName{"fpga"}, NodeKindName{"probe"}, NodeKindName{"probe"}};
  std::vector<config::ParamRow> rows;
  config::Lister::list(cfg.node, "platform.node", rows);
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.path == "platform.node.probe.initial_psn"; }));

  Scheduler sched;
  Cluster c(cfg, sched, 1, false, kinds);
  EXPECT_EQ(checks, 1); // once for the kind, not per node
  EXPECT_EQ(c.positions("probe"), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(c.kind(0), "fpga");
  EXPECT_EQ(c.at(1).initial_psn(), 7u);
  EXPECT_THROW(c.at<nodes::FpgaNode>(1), config::ConfigError); // a probe is not an FPGA

  // A WRITE from the probe to the FPGA and one to the other probe, over queue pairs the cluster connects.
  roce::WorkRequest wr;
  wr.wr_id  = 1;
  wr.length = 64 * 1024;
  c.poe(1).post_send(c.qp(1, 0), wr);
  wr.wr_id = 2;
  c.poe(1).post_send(c.qp(1, 2), wr);
  sched.run_standalone();
  auto& probe = c.at<ProbeNode>(1);
  ASSERT_EQ(probe.completions.size(), 2u);
  EXPECT_EQ(probe.completions[0].status, roce::Status::Success);
  EXPECT_EQ(probe.completions[1].bytes, 64u * 1024);
  EXPECT_GT(c.at<nodes::FpgaNode>(0).poe().counters().packets_received, 0u);
  EXPECT_GT(c.at<nodes::FpgaNode>(0).memory().device_bytes_written(), 0u); // the FPGA wrote the bytes into its device memory

  results::ResultSink sink("unused"); // never committed
  add_cluster_tables(c, sink);
  const results::Table* nodes = table(sink, "nodes");
  ASSERT_NE(nodes, nullptr);
  EXPECT_EQ(nodes->row_count(), 3u);
  const results::Table* own = table(sink, "probe_nodes");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->row_count(), 2u);
}

TEST(NodeKind, AnUnknownKindIsAConfigErrorListingTheRegisteredOnes)
{
  PlatformConfig cfg;
  cfg.node.kind = NodeKindName{"gpu"};
  Scheduler sched;
  try {
    Cluster c(cfg, sched, 1, false);
    FAIL() << "a cluster of an unknown kind was built";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/platform/node/kind"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fpga|host"), std::string::npos) << e.what();
  }
  config::Origins origins;
  EXPECT_THROW(config::Reader::read(config::Json::parse(R"({"kind": "probe"})"), cfg.node, "/platform/node", origins),
               config::ConfigError);
}

TEST(NodeKind, ASectionOfNoKindIsReadAndListedButIsNoKind)
{
  // nafsim's own: Portals' section belongs to no kind (nodes/pac/PortalsSection.cpp).
  EXPECT_EQ(node_kinds().names(), "fpga|host");
  PlatformConfig cfg;
  config::Origins origins;
  EXPECT_THROW(config::Reader::read(config::Json::parse(R"({"kind": "portals"})"), cfg.node, "/platform/node", origins),
               config::ConfigError);
  // A registry of one kind and one section: the section reads from JSON and lists after the kind's own.
  int checks = 0;
  NodeKindRegistry kinds = fpga_and_probe(&checks);
  kinds.add_section({"tally", "a section of no kind (test)", [] { return KindParams::of(ProbeConfig{}); }});
  NodeConfig node(kinds);
  config::Reader::read(config::Json::parse(R"({"tally": {"initial_psn": 9}})"), node, "/platform/node", origins);
  EXPECT_EQ(node.params("tally").as<ProbeConfig>().initial_psn, 9u);
  EXPECT_EQ(node.params("probe").as<ProbeConfig>().initial_psn, 100u);
  std::vector<config::ParamRow> rows;
  config::Lister::list(node, "platform.node", rows);
  auto at = [&](const std::string& path) {
    return std::find_if(rows.begin(), rows.end(), [&](auto& r) { return r.path == path; }) - rows.begin();
  };
  EXPECT_LT(at("platform.node.probe.initial_psn"), at("platform.node.tally.initial_psn"));
  EXPECT_LT(at("platform.node.tally.initial_psn"), static_cast<std::ptrdiff_t>(rows.size()));
  // Read as another type, or registered under a kind's name or twice: a programming error, said so.
  EXPECT_THROW((void)node.params("tally").as<FpgaNodeConfig>(), std::logic_error);
  EXPECT_THROW(node.params("gpu"), std::logic_error);
  EXPECT_THROW(kinds.add_section({"probe", "clash", [] { return KindParams::of(ProbeConfig{}); }}), std::logic_error);
  EXPECT_THROW(kinds.add_section({"tally", "twice", [] { return KindParams::of(ProbeConfig{}); }}), std::logic_error);
}
