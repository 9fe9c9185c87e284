#include "workloads/program/ComputeTime.hpp"
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
    program_ = std::make_unique<Program>(load_chakra(cfg_, &repairs_));
}

void Chakra::start(nodes::Cluster& c)
{
  check_compute_model(c, cfg_.engine, cfg_.model, "/workload/model");
  if (stream_)
    stream_->start(c);
  else
    program_->start(c);
  // (Read whole: known before the run.) A run that stalls names the trace's sends that no receive takes.
  if (auto const& r = repairs(); r.unmatched_sends > 0)
    c.scheduler().add_failure_note([n = r.unmatched_sends, first = r.first_unmatched](const std::string& failure) {
      if (failure.find("deadlock") == std::string::npos && failure.find("not ready") == std::string::npos)
        return std::string();
      return fmt::format("{} send(s) of the trace have no receive (the first: {}): their data waits in the receivers' "
                         "buffers, and once those are full their senders wait for ever; give each its COMM_RECV_NODE",
                         n, first);
    });
}

const ChakraRepairs& Chakra::repairs() const
{
  return stream_ ? stream_->repairs() : repairs_;
}

namespace {

/// The summary's line on what was repaired (empty: the trace ran as written).
std::string repairs_line(const ChakraRepairs& r, bool streamed)
{
  if (r.total() == 0)
    return {};
  std::vector<std::string> parts;
  auto add = [&](std::uint64_t n, const char* what) {
    if (n > 0)
      parts.push_back(fmt::format("{} {}", n, what));
  };
  add(r.absent_deps, streamed ? "dependencies on nodes absent from their file dropped (streamed: found at the file's "
                                "end, their nodes waited until then)"
                              : "dependencies on nodes absent from their file dropped");
  add(r.self_deps, "self-dependencies dropped");
  add(r.cpu_gpu_cycles, "CPU operator / GPU kernel cycles broken (the operator's dependency on its kernel dropped)");
  add(r.comm_type_from_name, "collectives typed from their names (no comm_type)");
  add(r.collectives_skipped, "collectives skipped (no comm_type, and no collective in their names)");
  add(r.invalid_nodes, "INVALID_NODEs skipped (type 0, as ASTRA-sim skips them)");
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i)
    s += (i ? ", " : "") + parts[i];
  return fmt::format("  repaired as Chakra's converter output needs: {}; workload.strict: true refuses them", s);
}

} // namespace

void Chakra::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  const std::string replicated = cfg_.replicate ? " (rank 0's file replicated on every rank: replicate)" : "";
  const std::string name       = std::filesystem::path(cfg_.trace).filename().string();
  const std::string sends =
      cfg_.sends == ChakraSends::Eager
          ? "  sends: eager (each completes once its data is in the receiver's buffers, whether or not its receive is "
            "posted, as ASTRA-sim and PyTorch mean a trace's send: at its acknowledgement, over TCP and UDP when the "
            "engine took it; workload.sends: blocking runs the engine's own protocol)"
          : "  sends: blocking (the engine's own protocol: above its eager limit a send waits for its receive)";
  const std::string order = fmt::format(
      "  compute_order: {}",
      cfg_.compute_order == ChakraComputeOrder::Streams
          ? "streams (one compute node at a time per GPU stream and per CPU thread)"
      : cfg_.compute_order == ChakraComputeOrder::AstraSim
          ? "astra-sim (one GPU compute node and one CPU operator per rank at a time, as ASTRA-sim runs them)"
          : "dependencies (every compute node whose dependencies are done, at once)");
  if (stream_)
    summary.push_back(fmt::format("chakra trace {}: streamed on {} ranks{}", name, stream_->ranks(), replicated));
  else
    summary.push_back(fmt::format("chakra trace {}: {} operations on {} ranks{}", name, program_->plan().ops.size(),
                                  program_->plan().cfg.ranks, replicated));
  if (auto r = repairs_line(repairs(), stream_ != nullptr); !r.empty())
    summary.push_back(r);
  if (auto const& r = repairs(); r.unmatched_sends > 0)
    summary.push_back(chakra::unmatched_sends_line(r.unmatched_sends, r.first_unmatched));
  if (auto n = repairs().durations_replayed; n > 0)
    summary.push_back(fmt::format("  compute: model: {} compute or memory node(s) with no work to model (no num_ops or "
                                  "tensor_size, as Chakra's PyTorch converter writes them) replayed their recorded "
                                  "durations",
                                  n));
  if (auto n = repairs().empty_collectives; n > 0)
    summary.push_back(fmt::format("  {} collective node(s) of 0 bytes (counted on each rank) made no CCLO call "
                                  "(ACCL's driver makes none for a count of 0) and were done at once",
                                  n));
  if (auto n = repairs().one_member_allgathers; n > 0)
    summary.push_back(fmt::format("  {} all-gather node(s) on a group of one member ran as the CCLO's copy of the "
                                  "shard (as NCCL copies an out-of-place all-gather on one rank; the firmware has no "
                                  "one-rank allgather)",
                                  n));
  if (auto n = repairs().one_member_collectives; n > 0)
    summary.push_back(fmt::format("  {} collective node(s) on a group of one member ran as the engine's one-rank call "
                                  "(a local copy of the data; ASTRA-sim builds no phase for them, and an in-place "
                                  "PyTorch call moves nothing)",
                                  n));
  if (auto n = repairs().uneven_shares; n > 0)
    summary.push_back(fmt::format("  {} reduce-scatter or all-to-all node(s) (counted on each rank) have a comm_size "
                                  "that is no multiple of their group's size: each rank's share was rounded up to "
                                  "whole bytes (then to whole elements), so that none is lost (ASTRA-sim pads them to "
                                  "whole chunks)",
                                  n));
  if (repairs().issue_orders_opposed)
    summary.push_back("  the ranks issue some communicators' collectives in opposite orders (ASTRA-sim runs them side "
                      "by side; a CCLO runs one call at a time): read whole, every rank's collectives follow their "
                      "dependencies alone, not each rank's issue order");
  for (auto const& [attribute, n] : repairs().unread_attributes)
    summary.push_back(fmt::format("  {} collective node(s) carry {}, which the replay reads nothing of (ASTRA-sim's "
                                  "scheduling priority; here collectives run in their ranks' order)",
                                  n, attribute));
  if (stream_) {
    summary.push_back(sends);
    summary.push_back(order);
    stream_->report(c, sink, summary);
    return;
  }
  auto const& ops = program_->plan().ops;
  if (std::any_of(ops.begin(), ops.end(), [](auto const& o) { return is_p2p(o.kind); }))
    summary.push_back(sends);
  if (std::any_of(ops.begin(), ops.end(), [](auto const& o) { return o.lane >= 0 || o.kind == ProgramOpKind::Compute; }))
    summary.push_back(order);
  program_->report(c, sink, summary);
}

config::Json Chakra::metadata() const
{
  auto const& r = repairs();
  config::Json rep;
  rep["absent_dependencies_dropped"] = r.absent_deps;
  rep["self_dependencies_dropped"]   = r.self_deps;
  rep["cpu_gpu_cycles_broken"]       = r.cpu_gpu_cycles;
  rep["comm_types_from_names"]       = r.comm_type_from_name;
  rep["collectives_skipped"]         = r.collectives_skipped;
  rep["invalid_nodes_skipped"]       = r.invalid_nodes;
  config::Json m;
  m["chakra_repairs"]    = rep;
  m["empty_collectives"] = r.empty_collectives;
  m["one_member_allgathers"] = r.one_member_allgathers;
  m["one_member_collectives"] = r.one_member_collectives;
  m["issue_orders_opposed"]   = r.issue_orders_opposed;
  m["uneven_shares"]          = r.uneven_shares;
  for (auto const& [attribute, n] : r.unread_attributes)
    m["unread_attributes"][attribute] = n;
  if (stream_) {
    m["stream_window_late_nodes"] = stream_->window_late_nodes();
    m["stream_window_late_most_us"] = stream_->window_late_most().us();
    m["stream_absent_late_nodes"]   = stream_->absent_late_nodes();
    m["stream_absent_late_most_us"] = stream_->absent_late_most().us();
  }
  return m;
}

std::string Chakra::unread_reason(std::string_view key) const
{
  return compute_model_unread(cfg_.engine, "model", key);
}

std::optional<unsigned> Chakra::rank_count() const
{
  return stream_ ? stream_->ranks() : program_->plan().cfg.ranks;
}

std::string Chakra::deadlock_advice() const
{
  // Streamed, a rank's ready collectives are issued in id order; read whole, in one order every rank keeps.
  const std::string streamed =
      stream_ ? "the trace was streamed, where each rank issues its ready collectives in id order and its engine runs "
                "one call at a time: if two communicators' collectives are listed in opposite orders on their common "
                "ranks with no dependency between them, they wait for each other; read whole (workload.stream: "
                "false), the trace's collectives run in one order every rank keeps"
              : "";
  // On the CCLO an eager receive holds the rank's call FIFO until its data comes (ACCL's firmware runs calls one at a
  // time): ASTRA-sim posts a receive without blocking, so a trace where two ranks each receive before they send runs
  // there and on the hosts' MPI, and waits for ever here.
  const std::string held =
      cfg_.engine == ProgramEngine::Cclo
          ? "on the CCLO a receive holds its rank's calls until its message comes (the firmware runs one call at a "
            "time): if a rank's receive was called before a send its peer waits for (ready first, with no dependency "
            "between them: ASTRA-sim posts receives without blocking), the two wait for each other; run the trace "
            "on the hosts' MPI (workload.engine: mpi), whose receives do not hold the library, or give the receive a "
            "dependency on the send"
          : "";
  auto join = [](std::string a, const std::string& b) { return a.empty() ? b : b.empty() ? a : a + "\n" + b; };
  if (cfg_.sends != ChakraSends::Blocking)
    return join(held, streamed);
  const std::string blocking =
      "the trace ran with workload.sends: blocking, where a send above the engine's eager limit waits for its "
      "receive; if a rank's receive depends on its own send (as in ASTRA-sim's rings), set workload.sends: eager (the "
      "default, the trace's producers' meaning: a send completes once its data is delivered, whether or not its "
      "receive is posted)";
  return join(join(held, streamed), blocking);
}

} // namespace nafsim::workloads
