#include "nodes/platform/NodeKindRegistry.hpp"

#include "simcore/config/ConfigError.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::nodes {

void NodeKindRegistry::add(NodeKindEntry e)
{
  if (e.name.empty() || !e.make)
    throw std::logic_error("a node kind needs a name and a factory");
  if (find(e.name))
    throw std::logic_error(fmt::format("node kind '{}' registered twice", e.name));
  entries_.push_back(std::move(e));
}

void NodeKindRegistry::add_section(NodeSectionEntry e)
{
  if (e.name.empty() || !e.params)
    throw std::logic_error("a parameter section needs a name and its defaults");
  for (auto const& k : entries_)
    if (k.name == e.name)
      throw std::logic_error(fmt::format("parameter section '{}' has a node kind's name", e.name));
  for (auto const& o : sections_)
    if (o.name == e.name)
      throw std::logic_error(fmt::format("parameter section '{}' registered twice", e.name));
  sections_.push_back(std::move(e));
}

const NodeKindEntry* NodeKindRegistry::find(std::string_view name) const
{
  for (auto const& e : entries_)
    if (e.name == name)
      return &e;
  return nullptr;
}

const NodeKindEntry& NodeKindRegistry::get(std::string_view name, const std::string& pointer) const
{
  if (const NodeKindEntry* e = find(name))
    return *e;
  throw config::ConfigError("", pointer,
                            fmt::format("unknown node kind \"{}\"; registered kinds: {}", name, names()));
}

std::string NodeKindRegistry::names() const
{
  std::string s;
  for (auto const& e : entries_)
    s += (s.empty() ? "" : "|") + e.name;
  return s;
}

const NodeKindRegistry& node_kinds()
{
  static const NodeKindRegistry all = [] {
    NodeKindRegistry r;
    register_all_node_kinds(r);
    return r;
  }();
  return all;
}

} // namespace nafsim::nodes
