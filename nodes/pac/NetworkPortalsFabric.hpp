#pragma once
// Portals over nafsim's network: each Portals message is a RoCE SEND between host nodes, the Portals
// header (`node.portals.header` bytes) ahead of its payload, landing in the target's message buffer
// (a receive always offered: the Portals engine, not the NIC, decides where the bytes go). The SEND
// completing is the message having left. The Portals fields travel beside the packets (by a message
// number in the SEND's application header); their size is the header's.

#include "nodes/pac/PortalsNi.hpp"
#include "simcore/net/Endpoint.hpp"

#include <unordered_map>

namespace nafsim::nodes {

class Cluster;

class NetworkPortalsFabric final : public PortalsFabric {
public:
  /// Node i of the Portals job is host position `positions[i]` of `c` (host nodes over RoCE).
  /// The host nodes keep pointers to this fabric's ports: it must live as long as the run does (the
  /// cluster may be torn down first, so it does not detach them).
  NetworkPortalsFabric(Cluster& c, std::vector<std::size_t> positions, Bytes header);
  ~NetworkPortalsFabric() override;
  void send(int from, int to, const PortalsWire& w, std::function<void()> sent) override;

private:
  class Port;
  Cluster& c_;
  std::vector<std::size_t> pos_;
  Bytes header_;
  std::vector<std::unique_ptr<Port>> ports_;
  std::unordered_map<std::uint64_t, PortalsWire> in_flight_;
  std::unordered_map<std::uint64_t, std::function<void()>> sent_; ///< by work request
  std::unordered_map<net::HostId, int> node_of_;
  std::uint64_t next_ = 0;
};

} // namespace nafsim::nodes
