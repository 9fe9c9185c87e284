#include "workloads/program/ProgramTrace.hpp"

#include <fmt/format.h>

namespace nafsim::workloads {

ProgramTrace::ProgramTrace(results::Trace* trace, std::vector<std::uint32_t> pids)
    : trace_(trace), pids_(std::move(pids)), busy_(pids_.size())
{
}

std::size_t ProgramTrace::begin(unsigned rank)
{
  auto& lanes = busy_.at(rank);
  std::size_t lane = 0;
  while (lane < lanes.size() && lanes[lane])
    ++lane;
  if (lane == lanes.size()) {
    lanes.push_back(false);
    if (trace_)
      trace_->name_thread(pids_[rank], kTrackBase + static_cast<std::uint32_t>(lane),
                          lane == 0 ? fmt::format("program rank {}", rank)
                                    : fmt::format("program rank {} (concurrent {})", rank, lane));
  }
  lanes[lane] = true;
  return lane;
}

void ProgramTrace::end(unsigned rank, std::size_t lane, const std::string& name, SimTime start, SimTime end,
                       std::string args)
{
  busy_.at(rank).at(lane) = false;
  if (trace_)
    trace_->span(pids_[rank], kTrackBase + static_cast<std::uint32_t>(lane), name, start, end, std::move(args));
}

} // namespace nafsim::workloads
