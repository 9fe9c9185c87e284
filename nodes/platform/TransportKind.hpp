#pragma once
// Which transport a node's network port runs (platform.node.<kind>.transport).

#include "simcore/config/Schema.hpp"

namespace nafsim::nodes {

enum class Transport { Roce, Connectionless, Tcp, Udp };

} // namespace nafsim::nodes

namespace nafsim::config {
template <> struct EnumNames<nodes::Transport> {
  static constexpr std::array list{std::pair{nodes::Transport::Roce, "roce"},
                                   std::pair{nodes::Transport::Connectionless, "connectionless"},
                                   std::pair{nodes::Transport::Tcp, "tcp"}, std::pair{nodes::Transport::Udp, "udp"}};
};
} // namespace nafsim::config
