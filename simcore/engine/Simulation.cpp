#include "simcore/engine/Simulation.hpp"

#include <chrono>
#include <simgrid/s4u.hpp>
#include <sys/resource.h>

namespace sg4 = simgrid::s4u;

namespace nafsim {

Simulation::Simulation(const std::vector<std::string>& log_settings)
{
  args_ = {"nafsim", "--log=xbt_cfg.thres:warning", "--log=root.thres:warning"};
  for (auto const& l : log_settings)
    args_.push_back("--log=" + l);
#ifdef NAFSIM_SANITIZE
  // ASan cannot follow the raw contexts' stack switches (CMakeLists.txt, NAFSIM_SANITIZE).
  args_.push_back("--cfg=contexts/factory:thread");
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
}

Simulation::~Simulation() = default;

void Simulation::run(sg4::Host* kernel_host)
{
  sg4::Actor::create("nafsim-kernel", kernel_host, [this] { sched_.run_kernel(); });
  auto t0 = std::chrono::steady_clock::now();
  engine_->run();
  wall_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto e = sched_.error();
  if (!e)
    return;
  std::string notes = sched_.failure_notes();
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
