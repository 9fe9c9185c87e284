#include "workloads/chakra/Chakra.hpp"

#include <algorithm>
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
  const std::string sends =
      cfg_.sends == ChakraSends::Eager
          ? "  sends: eager (each completes once its data has left, as ASTRA-sim and PyTorch mean a trace's send; "
            "workload.sends: blocking runs the engine's own protocol)"
          : "  sends: blocking (the engine's own protocol: above its eager limit a send waits for its receive)";
  if (stream_) {
    summary.push_back(fmt::format("chakra trace {}: streamed on {} ranks{}", name, stream_->ranks(), replicated));
    summary.push_back(sends);
    stream_->report(c, sink, summary);
    return;
  }
  summary.push_back(fmt::format("chakra trace {}: {} operations on {} ranks{}", name, program_->plan().ops.size(),
                                program_->plan().cfg.ranks, replicated));
  auto const& ops = program_->plan().ops;
  if (std::any_of(ops.begin(), ops.end(), [](auto const& o) { return is_p2p(o.kind); }))
    summary.push_back(sends);
  program_->report(c, sink, summary);
}

std::string Chakra::deadlock_advice() const
{
  if (cfg_.sends != ChakraSends::Blocking)
    return {};
  return "the trace ran with workload.sends: blocking, where a send above the engine's eager limit waits for its "
         "receive; if a rank's receive depends on its own send (as in ASTRA-sim's rings), set workload.sends: eager "
         "(the default, the trace's producers' meaning: a send completes once its data has left)";
}

} // namespace nafsim::workloads
