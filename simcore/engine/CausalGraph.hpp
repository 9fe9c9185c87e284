#pragma once
// The causes of a run's events (`nafsim run --critical-path`), from which the critical path of a call is read.
//
// Every event the kernel runs, and every resumption of an actor, has one cause: the event (or actor step) that was
// running when it was scheduled or woken. The kernel records each event it runs as (date, cause, label): the label
// says what the time between the cause and the event was spent on (a resource such as the firmware, the data
// mover's HBM read, a wire, and where: a host or a switch). Following causes back from one event (a rank's
// finalize) gives a chain whose segments [cause date, event date] are contiguous: they add up to the time between
// the chain's ends exactly, and each names its resource. This is the critical path as happens-before analysis
// defines it (the last dependency that enabled each step), the technique of critical-path profiling of parallel
// programs (Yang and Miller, "Critical path analysis for the execution of parallel and distributed programs",
// ICDCS 1988).
//
// ASSUMPTION: an event's cause is whatever scheduled it or woke its actor. A component that computes a date from
// several inputs at once (the data mover's start: the later of its issue slot, its operands' writes and its Rx
// buffer) is blamed on the step that scheduled it, under the label the component gives the whole delay (the move's
// bottleneck engine). Components label their events (EventHandler::cause); unlabelled delays show as "other".

#include "simcore/units/Units.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nafsim {

/// What a delay was spent on (`what`, interned by cause_what) and where (a host, a switch, or nowhere in particular).
struct CauseLabel {
  static constexpr std::int32_t kNowhere = -1;
  std::uint32_t what  = 0; ///< 0: not labelled
  std::int32_t where  = kNowhere;
  /// The delay's lead-in, up to date `lead_until` (ps), was spent on `lead_what` at `lead_where` (e.g. a memory's
  /// first-byte latency before a stream at its bandwidth, there; a packet's last cable before the receive pipeline of
  /// the host it reaches, at the port that drove it); lead_what 0: none.
  std::uint32_t lead_what  = 0;
  std::int32_t lead_where  = kNowhere;
  std::int64_t lead_until = 0;
  /// A host's label (`host`: its id in the topology).
  static CauseLabel at_host(std::uint32_t what, std::uint32_t host) { return {what, static_cast<std::int32_t>(host)}; }
  /// A switch's label (`vertex`: its topology vertex).
  static CauseLabel at_switch(std::uint32_t what, std::uint32_t vertex)
  {
    return {what, -2 - static_cast<std::int32_t>(vertex)};
  }
  bool on_host() const { return where >= 0; }
  bool on_switch() const { return where <= -2; }
  std::uint32_t switch_vertex() const { return static_cast<std::uint32_t>(-2 - where); }
};

/// The interned id of a resource (e.g. "firmware") and what it did there (e.g. "charge: dma issue"). Cheap after the
/// first call for a name; components keep the ids they use (function-local statics).
std::uint32_t cause_what(std::string_view resource, std::string_view detail);
/// The names of an interned id (id 0: "other", "not labelled").
std::string_view cause_resource(std::uint32_t what);
std::string_view cause_detail(std::uint32_t what);

class CausalGraph {
public:
  struct Record {
    std::int64_t t;        ///< date, ps
    std::uint32_t parent;  ///< its cause (record 0: the origin of the run, date 0)
    CauseLabel label;      ///< what [parent date, date] was spent on
  };
  /// A segment of a chain: [begin, end] spent on `label`.
  struct Segment {
    SimTime begin, end;
    CauseLabel label;
  };

  /// At most this many records (4 GB): a longer run stops with an error rather than exhaust the memory.
  static constexpr std::size_t kMaxRecords = 100'000'000;

  explicit CausalGraph(std::size_t max_records = kMaxRecords) : max_(max_records) { add(SimTime{}, 0, {}); }
  /// `label` with its lead-in: the time up to `until` spent on `lead_what` (CauseLabel::lead_what), at the label's
  /// own place.
  static CauseLabel with_lead(CauseLabel label, std::uint32_t lead_what, SimTime until)
  {
    return with_lead(label, CauseLabel{lead_what, label.where}, until);
  }
  /// ... or at the lead-in's own place (`lead`: what and where).
  static CauseLabel with_lead(CauseLabel label, const CauseLabel& lead, SimTime until)
  {
    label.lead_what  = lead.what;
    label.lead_where = lead.where;
    label.lead_until = until.ps();
    return label;
  }
  /// Throws std::length_error past kMaxRecords (the kernel stops the run with it).
  std::uint32_t add(SimTime t, std::uint32_t parent, CauseLabel label)
  {
    if (size_ >= max_)
      full();
    if ((size_ & kChunkMask) == 0)
      chunks_.push_back(std::make_unique<Record[]>(std::size_t{1} << kChunkBits));
    chunks_.back()[size_ & kChunkMask] = Record{t.ps(), parent, label};
    return static_cast<std::uint32_t>(size_++);
  }
  const Record& at(std::uint32_t id) const { return chunks_.at(id >> kChunkBits)[id & kChunkMask]; }
  std::size_t size() const { return size_; }
  /// The chain of causes that ends at record `to`, from date `from` on, oldest first: contiguous segments from
  /// `from` to the record's date (the first one cut at `from`; a step with a lead-in in two); zero-length steps are
  /// left out.
  std::vector<Segment> path(std::uint32_t to, SimTime from) const;

private:
  // Records in chunks of 2^20 (no reallocation: a doubling vector would need both copies at once at its peak).
  static constexpr unsigned kChunkBits       = 20;
  static constexpr std::size_t kChunkMask    = (std::size_t{1} << kChunkBits) - 1;
  [[noreturn]] void full() const;
  std::vector<std::unique_ptr<Record[]>> chunks_;
  std::size_t size_ = 0;
  std::size_t max_;
};

} // namespace nafsim
