#pragma once
// The registry of workload kinds (DESIGN.md section 7, rule 5): filled explicitly by
// register_all_workloads(); an unknown kind is an error that lists the valid ones.

#include "simcore/config/Schema.hpp"
#include "workloads/Workload.hpp"

#include <functional>
#include <memory>

namespace nafsim::workloads {

struct WorkloadEntry {
  std::string kind;
  std::string description;
  /// Rows for `nafsim params`, with paths under `prefix`.
  std::function<void(std::vector<config::ParamRow>&, const std::string& prefix)> list_params;
  /// Parse the workload object (without its "kind") found at `pointer`; `resolved` receives the
  /// complete configuration, defaults included.
  std::function<std::unique_ptr<Workload>(const config::Json&, const std::string& pointer, const config::Origins&,
                                          config::Json& resolved)>
      create;
};

class WorkloadRegistry {
public:
  void add(WorkloadEntry e) { entries_.push_back(std::move(e)); }
  /// The entry for `kind`; `origin`/`pointer` locate the reference for the error message.
  const WorkloadEntry& get(const std::string& kind, const std::string& origin, const std::string& pointer) const;
  const std::vector<WorkloadEntry>& entries() const { return entries_; }

  /// An entry for a workload class W constructed from its config struct Cfg.
  template <class Cfg, class W> static WorkloadEntry make(std::string kind, std::string description)
  {
    WorkloadEntry e;
    e.kind        = std::move(kind);
    e.description = std::move(description);
    e.list_params = [](std::vector<config::ParamRow>& rows, const std::string& prefix) {
      Cfg defaults;
      config::Lister::list(defaults, prefix, rows);
    };
    e.create = [](const config::Json& j, const std::string& pointer, const config::Origins& origins,
                  config::Json& resolved) -> std::unique_ptr<Workload> {
      Cfg cfg;
      // (what a value cannot tell: a key that must be given, where its default is a valid choice of its own)
      if constexpr (requires { Cfg::check_given(j, pointer, origins); })
        Cfg::check_given(j, pointer, origins);
      config::Reader::read(j, cfg, pointer, origins);
      resolved = config::Writer::write(cfg);
      return std::make_unique<W>(cfg);
    };
    return e;
  }

private:
  std::vector<WorkloadEntry> entries_;
};

/// Fill `r` with every workload nafsim has.
void register_all_workloads(WorkloadRegistry& r);

} // namespace nafsim::workloads
