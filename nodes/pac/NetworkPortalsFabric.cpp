#include "nodes/pac/NetworkPortalsFabric.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/host/HostCluster.hpp"
#include "nodes/platform/Cluster.hpp"
#include "simcore/config/ConfigError.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

class NetworkPortalsFabric::Port final : public HostLibrary {
public:
  Port(NetworkPortalsFabric& f, int node) : f_(f), node_(node) {}
  void on_completion(const roce::Completion& c) override
  {
    if (c.status != roce::Status::Success)
      throw SimulationError(fmt::format("Portals node {}: {}", node_, roce::describe_failure(c)));
    auto it = f_.sent_.find(c.wr_id);
    if (it == f_.sent_.end())
      return;
    auto fn = std::move(it->second);
    f_.sent_.erase(it);
    if (fn)
      fn();
  }
  void on_inbound(net::HostId src, const roce::InboundMessage& m) override
  {
    auto it = f_.in_flight_.find(m.header[0]);
    if (it == f_.in_flight_.end())
      throw SimulationError(fmt::format("Portals node {}: a SEND from host {} carries no Portals message", node_, src));
    PortalsWire w = it->second;
    f_.in_flight_.erase(it);
    f_.deliver(node_, f_.node_of_.at(src), w);
  }

private:
  NetworkPortalsFabric& f_;
  int node_;
};

NetworkPortalsFabric::NetworkPortalsFabric(Cluster& c, std::vector<std::size_t> positions, Bytes header)
    : PortalsFabric(positions.size()), c_(c), pos_(std::move(positions)), header_(header)
{
  require_roce(c_, "portals_mpi over the network");
  for (std::size_t i = 0; i < pos_.size(); ++i) {
    HostNode& h = c_.at<HostNode>(pos_[i]);
    ports_.push_back(std::make_unique<Port>(*this, static_cast<int>(i)));
    h.attach_library(ports_.back().get());
    node_of_[h.id()] = static_cast<int>(i);
    h.nic().set_recv_provider([](const roce::AppHeader&) {
      roce::RecvOffer o; // the Portals engine's message buffer takes every message
      o.status          = roce::RecvOffer::Status::Ready;
      o.recv.local_addr = kHostMemory | (11ULL << 40);
      o.recv.length     = std::uint64_t{1} << 40;
      return o;
    });
  }
}

NetworkPortalsFabric::~NetworkPortalsFabric() = default;

void NetworkPortalsFabric::send(int from, int to, const PortalsWire& w, std::function<void()> sent)
{
  const std::size_t a = pos_.at(static_cast<std::size_t>(from)), b = pos_.at(static_cast<std::size_t>(to));
  const std::uint64_t id = ++next_;
  in_flight_[id]         = w;
  roce::WorkRequest wr;
  wr.wr_id      = id;
  wr.verb       = roce::Verb::Send;
  wr.local_addr = kHostMemory | (12ULL << 40);
  wr.length     = header_.count + w.bytes;
  wr.msg        = (static_cast<std::uint64_t>(from) << 40) | id;
  wr.header     = {id, 0, 0, 0};
  if (sent)
    sent_[id] = std::move(sent);
  c_.poe(a).post_send(c_.qp(a, b), wr);
}

} // namespace nafsim::nodes
