#include "nodes/cclo/RndzvQueue.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

std::string RndzvQueue::describe() const
{
  if (empty())
    return "no rendezvous notification queued";
  std::string s;
  auto add = [&](const RndzvNotice& e) {
    s += fmt::format("{}{} from host {}", s.empty() ? "" : ", ",
                     e.type == RndzvNotice::Type::Address ? "an address" : "a completion", e.src);
  };
  for (auto const& e : pending_)
    add(e);
  for (auto const& e : arrived_)
    add(e);
  return "queued rendezvous notifications: " + s;
}

} // namespace nafsim::nodes
