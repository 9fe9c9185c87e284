#pragma once
// A timeline of a run in Chrome trace format (open trace.json in https://ui.perfetto.dev or
// chrome://tracing): one process per network element, one thread per activity (work requests,
// inbound messages, each port). Components record into it only when it is enabled.

#include "simcore/units/Units.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nafsim::results {

/// Off; messages (work requests, inbound messages); blocks (messages, and per FPGA the CCLO's micro-controller,
/// data mover and Rx-buffer occupancy); packets (messages and every packet on every port).
enum class TraceLevel { Off, Messages, Blocks, Packets };

class Trace {
public:
  explicit Trace(TraceLevel level = TraceLevel::Off, std::size_t max_events = 2'000'000)
      : level_(level), max_(max_events)
  {
  }
  bool messages() const { return level_ != TraceLevel::Off; }
  bool packets() const { return level_ == TraceLevel::Packets; }
  bool blocks() const { return level_ == TraceLevel::Blocks; }

  void name_process(std::uint32_t pid, std::string name);
  void name_thread(std::uint32_t pid, std::uint32_t tid, std::string name);
  /// A span [begin, end) on track (pid, tid).
  void span(std::uint32_t pid, std::uint32_t tid, std::string name, SimTime begin, SimTime end, std::string args = {});
  /// A counter track `name` of process `pid` taking `value` at `at`.
  void counter(std::uint32_t pid, std::string name, double value, SimTime at);
  /// A point event.
  void instant(std::uint32_t pid, std::uint32_t tid, std::string name, SimTime at, std::string args = {});

  bool truncated() const { return truncated_; }
  std::size_t size() const { return events_.size(); }
  /// The trace as Chrome trace JSON.
  std::string json() const;

private:
  struct Event {
    char ph;
    std::uint32_t pid, tid;
    SimTime ts, dur;
    std::string name, args;
  };
  bool room();
  TraceLevel level_;
  std::size_t max_;
  bool truncated_ = false;
  std::vector<Event> events_;
};

} // namespace nafsim::results
