#include "workloads/chakra/Chakra.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace nafsim::workloads {

void Chakra::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  summary.push_back(fmt::format("chakra trace {}: {} operations on {} ranks{}",
                                std::filesystem::path(cfg_.trace).filename().string(), program_.plan().ops.size(),
                                program_.plan().cfg.ranks,
                                cfg_.replicate ? fmt::format(" (rank 0's file replicated on every rank: replicate)")
                                               : std::string()));
  program_.report(c, sink, summary);
}

} // namespace nafsim::workloads
