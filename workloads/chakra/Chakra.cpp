#include "workloads/chakra/Chakra.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace nafsim::workloads {

Chakra::Chakra(const ChakraConfig& cfg) : cfg_(cfg)
{
  if (cfg_.stream)
    stream_ = std::make_unique<ChakraStream>(cfg_);
  else
    program_ = std::make_unique<Program>(load_chakra(cfg_));
}

void Chakra::start(nodes::Cluster& c)
{
  if (stream_)
    stream_->start(c);
  else
    program_->start(c);
}

void Chakra::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  const std::string replicated = cfg_.replicate ? " (rank 0's file replicated on every rank: replicate)" : "";
  const std::string name       = std::filesystem::path(cfg_.trace).filename().string();
  if (stream_) {
    summary.push_back(fmt::format("chakra trace {}: streamed on {} ranks{}", name, stream_->ranks(), replicated));
    stream_->report(c, sink, summary);
    return;
  }
  summary.push_back(fmt::format("chakra trace {}: {} operations on {} ranks{}", name, program_->plan().ops.size(),
                                program_->plan().cfg.ranks, replicated));
  program_->report(c, sink, summary);
}

} // namespace nafsim::workloads
