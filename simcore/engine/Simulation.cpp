#include "simcore/engine/Simulation.hpp"

#include <chrono>
#include <malloc.h>
#include <fmt/format.h>
#include <simgrid/s4u.hpp>
#include <sys/resource.h>

namespace sg4 = simgrid::s4u;

namespace nafsim {

Simulation::Simulation(const std::vector<std::string>& log_settings, std::size_t hosts)
{
  args_ = {"nafsim", "--log=xbt_cfg.thres:warning", "--log=root.thres:warning"};
  for (auto const& l : log_settings)
    args_.push_back("--log=" + l);
#ifdef NAFSIM_SANITIZE
  // ASan cannot follow the raw contexts' stack switches (CMakeLists.txt, NAFSIM_SANITIZE).
  args_.push_back("--cfg=contexts/factory:thread");
  (void)hosts; // thread stacks: no mappings limit to work around
#else
  if (hosts > kGuardedHosts) {
    // Each actor's stack is by default an 8 MiB mapping plus a guard page made with mprotect: two memory
    // mappings per actor, and Linux allows 65,530 per process (vm.max_map_count), so 16,384 nodes with a
    // firmware and a workload actor each could not start. Large runs drop the guard page: one mapping per
    // actor, of 1 MiB, of which only the pages used become resident. The whole test suite runs with 16 KiB
    // stacks and guard pages (measured), so 1 MiB leaves a wide margin.
    args_.push_back("--cfg=contexts/guard-size:0");
    args_.push_back(fmt::format("--cfg=contexts/stack-size:{}", kLargeRunStackKiB));
    // Even one mapping per actor runs out at about 65,000 actors (32,768 nodes), so the stacks come from the
    // heap, one mapping for all: malloc's mmap threshold above the stack size (pinned: it would otherwise move).
    // SimGrid zero-fills a stack (calloc), and calloc skips only memory it has just taken from the system:
    // without top padding each stack is such fresh memory, so its untouched pages cost nothing (measured at
    // 16,384 nodes: 975 MB peak, as with one mapping per stack; with the default 128 KiB padding, calloc
    // clears that much per stack: 4.9 GB), and the heap is not trimmed while actors come and go.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TOP_PAD, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
#endif
  for (auto& a : args_)
    argv_.push_back(a.data());
  argv_.push_back(nullptr);
  int argc = static_cast<int>(args_.size());
  engine_  = std::make_unique<sg4::Engine>(&argc, argv_.data());
  // A pure model (SIMGRID_NOTES.md): the defaults (LV08) scale latency by 13.01 and bandwidth by
  // 0.97 and add cross-traffic.
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  // The kernel counts picoseconds; SimGrid rounds dates to surf/precision (1 ns by default).
  sg4::Engine::set_config("surf/precision:1e-12");
  // SimGrid's log lines print its clock: keep it on the kernel's date while actors run when logs are asked for.
  sched_.follow_simgrid_clock(!log_settings.empty());
}

Simulation::~Simulation() = default;

void Simulation::run(sg4::Host* kernel_host)
{
  sched_.create_spawned();
  sg4::Actor::create("nafsim-kernel", kernel_host, [this] { sched_.run_kernel(); });
  auto t0 = std::chrono::steady_clock::now();
  engine_->run();
  wall_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto e = sched_.error();
  if (!e)
    return;
  std::string failure;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    failure = x.what();
  } catch (...) {
  }
  std::string notes = sched_.failure_notes(failure);
  if (notes.empty())
    std::rethrow_exception(e);
  try {
    std::rethrow_exception(e);
  } catch (const DeadlockError& d) {
    throw DeadlockError(d.what() + notes);
  } catch (const SimulationError& s) {
    throw SimulationError(s.what() + notes);
  }
}

std::uint64_t Simulation::peak_rss_bytes()
{
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
}

} // namespace nafsim
