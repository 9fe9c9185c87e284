#pragma once
// What drives the nodes in a run. A workload spawns its actors before the run and reports its
// measurements (tables + a few summary lines) after it.

#include "nodes/platform/Cluster.hpp"
#include "simcore/results/ResultSink.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nafsim::workloads {

class Workload {
public:
  virtual ~Workload() = default;
  /// Check the workload against the platform (throw config::ConfigError) and spawn actors.
  virtual void start(nodes::Cluster& cluster) = 0;
  /// After a successful run: add result tables and human summary lines.
  virtual void report(const nodes::Cluster& cluster, results::ResultSink& sink,
                      std::vector<std::string>& summary) const = 0;
  /// A run ended in a deadlock: the setting of this workload that would avoid it, as a sentence ("" if none).
  virtual std::string deadlock_advice() const { return {}; }
  /// After a successful run: what the workload adds to metadata.json under "workload" (null: nothing).
  virtual config::Json metadata() const { return {}; }
  /// The ranks the workload runs (a CCLO build sizes its Rx buffers by them; nothing: it has no rank count).
  virtual std::optional<unsigned> rank_count() const { return std::nullopt; }
  /// While it runs: the share of its work done (a long run's progress line; nothing: not known).
  virtual std::optional<double> progress() const { return std::nullopt; }
  /// After a run: why nothing in it read the workload setting at `key` (its dotted path under `workload`, e.g.
  /// "func" or "background.size"), or "" when it may have been read (simcore/app/UnreadSettings.hpp). A setting
  /// the workload's own other settings make moot (a reduction function on an allgather, min_size beside a list of
  /// sizes) gives the same results for every value: a sweep over it would read as "it changes nothing".
  virtual std::string unread_reason(std::string_view key) const
  {
    (void)key;
    return {};
  }
};

/// The message sizes of a size sweep: `sizes` if not empty, else `min` doubling up to `max` (the step out of
/// a zero `min` is `first_step`). Throws config::ConfigError at /workload/min_size if min > max.
std::vector<std::uint64_t> message_sizes(const std::vector<Bytes>& sizes, Bytes min, Bytes max,
                                         std::uint64_t first_step);

/// The first part of a workload setting's key ("background" of "background.size"): what Workload::unread_reason
/// judges by.
inline std::string_view key_head(std::string_view key) { return key.substr(0, key.find('.')); }

/// Workload::unread_reason of a size sweep's bounds: why `min_size` or `max_size` (`head`) is read by nothing when
/// the sizes are `listed`, or "".
std::string size_bounds_unread(std::string_view head, bool listed);

/// Throw config::ConfigError at /workload/<key> unless host `node` exists on the platform.
void check_node(const nodes::Cluster& c, unsigned node, const char* key);

/// The JSON path of size `i` of a sweep built by message_sizes (for errors): /workload/sizes/i when the list was
/// given, else /workload/max_size (the largest sizes are the ones that break limits).
std::string size_path(const std::vector<Bytes>& given, std::size_t i);

/// With `verify`, every rank's operand and result live as real bytes in this process. Above this many bytes over
/// all ranks a run would exhaust the machine running nafsim (a 24 GiB workstation holds a few copies), so
/// check_verify_budget refuses it: the timing model never needs the bytes, only the check does.
inline constexpr std::uint64_t kVerifyBudget = 4ULL << 30;

/// Throws config::ConfigError at `path` when `ranks` ranks holding `per_rank` bytes of real data exceed
/// kVerifyBudget, naming the size and the fix (verify false, or smaller sizes).
void check_verify_budget(const std::string& path, std::uint64_t size, std::uint64_t per_rank, std::uint64_t ranks);

} // namespace nafsim::workloads
