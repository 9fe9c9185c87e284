// The real data a run carries (issue 54: the hub in nodes/platform declares Cluster::carry_data and knows no memory
// model).
#include "nodes/memory/DataPlane.hpp"
#include "nodes/platform/Cluster.hpp"

#include <stdexcept>

namespace nafsim::nodes {

DataPlane& Cluster::carry_data()
{
  if (!data_) {
    for (std::size_t i = 0; i < size(); ++i)
      if (nodes_[i]->data_engine_made())
        throw std::logic_error("Cluster::carry_data() must come before the first CCLO / MPI library is made");
    data_ = std::make_shared<DataPlane>(size());
  }
  return *data_;
}

} // namespace nafsim::nodes
